//! `choreo._native`: the Rust API ([`choreo::Run`]) and the `choreo` command for CPython.
//!
//! Box scripts run in the interpreter that imported this module (no second CPython): the
//! engine's worker threads take its GIL to run them. So every call here that waits for the
//! engine (load, wait, close, events, a run dropped) lets the GIL go while it waits, and the
//! observers a program gives are called on threads of their own, in order, each taking the
//! GIL once for all the items waiting.
//! Errors are the exceptions of `choreo/errors.py`, made here with the file, box and line.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};
use std::thread::{JoinHandle, ThreadId};
use std::time::Duration;

use choreo::{Clock, Ending, Error, Outcome, Setup};
use choreo_engine::{EngineError, Value};
use choreo_python::convert::{Foreign, from_python, to_python};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod chat;
mod check;
mod explore;
mod fleet;

/// How long `wait` and `wait_end` wait by default (real seconds): long enough for any
/// behavior in virtual time, and a bound on a test that would hang.
const DEFAULT_WAIT: f64 = 60.0;

/// The exception for `e`, from `choreo.errors`, with what locates it.
fn py_error(e: Error) -> PyErr {
    Python::attach(|py| match make_error(py, &e) {
        Ok(err) => err,
        Err(failed) => failed,
    })
}

fn make_error(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let errors = py.import("choreo.errors")?;
    let kwargs = PyDict::new(py);
    let class = match e {
        Error::NotFound { path } => {
            kwargs.set_item("path", path)?;
            "NotFoundError"
        }
        Error::Load { path, source } => {
            kwargs.set_item("path", path)?;
            if let EngineError::Construct { path: b, error } = source {
                kwargs.set_item("box", b)?;
                kwargs.set_item("line", error.line)?;
            }
            "LoadError"
        }
        Error::Broken { path, .. } | Error::NoBehavior { path, .. } => {
            kwargs.set_item("path", path)?;
            "LoadError"
        }
        Error::Unreadable { diagnostic } | Error::Files { diagnostic } => {
            kwargs.set_item("path", &diagnostic.file)?;
            kwargs.set_item("line", diagnostic.position.map(|p| p.line))?;
            "LoadError"
        }
        Error::Scenario(_) | Error::NoLanguage { .. } | Error::NoPosture { .. } => "LoadError",
        Error::Engine(engine) => {
            match engine {
                EngineError::NoBox { path }
                | EngineError::NoInput { path, .. }
                | EngineError::NoOutput { path, .. }
                | EngineError::NoParameter { path, .. }
                | EngineError::NoTimeline { path }
                | EngineError::Construct { path, .. } => kwargs.set_item("box", path)?,
                EngineError::Thread { .. } | EngineError::LoadTimeLimit { .. } => {}
            }
            "BoxError"
        }
        Error::Robot { .. } | Error::Call(_) => "RobotError",
        Error::NotSimulated { .. } => "NotSimulatedError",
        Error::WaitTimedOut(_) => "WaitTimeout",
        Error::Closed => "ClosedError",
        Error::BoxHost(_) | Error::Executor(_) | Error::Journal { .. } => "LoadError",
        Error::BoxCodeTimeout(_) => "WaitTimeout",
    };
    let exception = errors
        .getattr(class)?
        .call((e.to_string(),), Some(&kwargs))?;
    Ok(PyErr::from_value(exception))
}

/// A Python value as a [`Value`]: what NAOqi could send (no objects).
fn value_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_python(obj, Foreign::Refuse)
}

/// A value a Python object holds, dropped without the GIL: the engine's threads it joins
/// then may be waiting for the GIL (a worker gives its Python thread state back as it ends).
struct Held<T: Send>(Option<T>);

impl<T: Send> Held<T> {
    fn new(value: T) -> Held<T> {
        Held(Some(value))
    }

    /// The value; it is gone only while the holder is dropped.
    fn get(&self) -> PyResult<&T> {
        self.0.as_ref().ok_or_else(|| py_error(Error::Closed))
    }
}

impl<T: Send> Drop for Held<T> {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            Python::attach(|py| py.detach(move || drop(value)));
        }
    }
}

/// A loaded behavior on its robot (`choreo.Run`): see `choreo/_native.pyi`. Weakly
/// referenced by the package, which closes the runs still open when the program exits.
#[pyclass(module = "choreo._native", frozen, weakref)]
struct Run {
    run: Held<Arc<choreo::Run>>,
    /// The threads delivering to Python observers (`on_event`, `on_output`).
    observers: Mutex<Vec<Observer>>,
    /// The observers' listeners, by the number Python was given (gone once unobserved).
    listeners: Mutex<Vec<Option<choreo::ListenerId>>>,
}

#[pymethods]
impl Run {
    /// Starts the behavior.
    fn start(&self) -> PyResult<()> {
        self.run.get()?.start().map_err(py_error)
    }

    /// Asks the behavior to stop (every box unloaded).
    fn stop(&self) -> PyResult<()> {
        self.run.get()?.stop();
        Ok(())
    }

    /// Stops it if it runs, waits for its unload and for the observers to have been given
    /// every event; later calls raise ClosedError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let run = Arc::clone(self.run.get()?);
        let observers: Vec<Observer> = choreo_base::lock(&self.observers).drain(..).collect();
        py.detach(move || {
            run.close();
            // The observers' senders went with the run's listeners: each thread ends once it
            // has delivered what it had.
            for observer in observers {
                let _ = observer.thread.join();
            }
        });
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// Stimulates `input` of the box at `path` with `value` (None: a bang).
    #[pyo3(signature = (path, input, value = None))]
    fn stimulate(&self, path: &str, input: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let value = value.map(value_of).transpose()?.unwrap_or(Value::None);
        self.run
            .get()?
            .stimulate(path, input, value)
            .map_err(py_error)
    }

    /// Every trace event from now on, as dicts (the keys of `--trace`'s JSON Lines).
    fn events(&self) -> PyResult<Events> {
        Ok(Events {
            events: Held::new(Mutex::new((self.run.get()?.events(), VecDeque::new()))),
        })
    }

    /// Calls `callback(event)` with every trace event from now on, in order, on a thread of
    /// its own; returns an id for `unobserve`.
    fn on_event(&self, callback: Py<PyAny>) -> PyResult<usize> {
        let feed = self.deliverer(callback, event_dict)?;
        let id = self.run.get()?.on_event(move |e| feed.send(e.clone()));
        Ok(self.remember(id))
    }

    /// Calls `callback(value)` at each firing of `output` of the box at `path`, in order,
    /// on a thread of its own.
    fn on_output(&self, path: &str, output: &str, callback: Py<PyAny>) -> PyResult<usize> {
        let feed = self.deliverer(callback, to_python)?;
        let id = self
            .run
            .get()?
            .on_output(path, output, move |value| feed.send(value.clone()))
            .map_err(py_error)?;
        Ok(self.remember(id))
    }

    /// Stops calling an observer.
    fn unobserve(&self, id: usize) -> PyResult<()> {
        let taken = choreo_base::lock(&self.listeners)
            .get_mut(id)
            .and_then(Option::take);
        if let Some(listener) = taken {
            self.run.get()?.unobserve(listener);
        }
        Ok(())
    }

    /// The value of parameter `name` of the box at `path`.
    fn parameter<'py>(
        &self,
        py: Python<'py>,
        path: &str,
        name: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = self.run.get()?.parameter(path, name).map_err(py_error)?;
        to_python(py, &value)
    }

    /// Sets parameter `name` of the box at `path`.
    fn set_parameter(&self, path: &str, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.run
            .get()?
            .set_parameter(path, name, value_of(value)?)
            .map_err(py_error)
    }

    /// The timeline of the box at `path`.
    fn timeline(&self, path: &str) -> PyResult<Timeline> {
        self.run.get()?.timeline(path).map_err(py_error)?;
        Ok(Timeline {
            run: Held::new(Arc::clone(self.run.get()?)),
            path: path.to_string(),
        })
    }

    /// The simulated robot's state: time, said, speaking, posture, awake, joints, position,
    /// leds, memory, sounds.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.run.get()?.robot_state().map_err(py_error)?;
        let d = PyDict::new(py);
        d.set_item("time", s.time)?;
        d.set_item("said", s.spoken)?;
        d.set_item("speaking", s.speaking)?;
        d.set_item("posture", s.posture)?;
        d.set_item("awake", s.awake)?;
        let joints = PyDict::new(py);
        for j in &s.joints {
            joints.set_item(&j.name, j.angle)?;
        }
        d.set_item("joints", joints)?;
        d.set_item("position", s.position.to_vec())?;
        let leds = PyDict::new(py);
        for (group, rgb) in &s.leds {
            leds.set_item(group, rgb.to_vec())?;
        }
        d.set_item("leds", leds)?;
        let memory = PyDict::new(py);
        for (key, value) in &s.memory {
            memory.set_item(key, to_python(py, value)?)?;
        }
        d.set_item("memory", memory)?;
        d.set_item("sounds", s.sounds)?;
        Ok(d)
    }

    /// Everything the simulated robot said, in order.
    fn said(&self) -> PyResult<Vec<String>> {
        self.run.get()?.said().map_err(py_error)
    }

    /// Every joint's angle now, by name (radians; hands: opening ratio).
    fn joints(&self) -> PyResult<std::collections::BTreeMap<String, f64>> {
        self.run.get()?.joints().map_err(py_error)
    }

    /// The value of ALMemory key `key`.
    fn memory<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        let run = Arc::clone(self.run.get()?);
        let key = key.to_string();
        let value = py.detach(move || run.memory(&key)).map_err(py_error)?;
        to_python(py, &value)
    }

    /// Raises ALMemory event `key` with `value`, as the world would.
    #[pyo3(signature = (key, value = None))]
    fn raise_event(
        &self,
        py: Python<'_>,
        key: &str,
        value: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let value = value.map(value_of).transpose()?.unwrap_or(Value::None);
        let run = Arc::clone(self.run.get()?);
        let key = key.to_string();
        py.detach(move || run.raise_event(&key, value))
            .map_err(py_error)
    }

    /// The seed of the run's chance (box code's `random`, the dialog's random choices):
    /// `choreo.load(..., seed=...)` with it repeats the run.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.run.get()?.seed())
    }

    /// The wall clock at the run's start, UTC (`2026-01-05T10:00:00Z`): what box code's
    /// `datetime.now()` read at behavior time 0.
    #[getter]
    fn start_time(&self) -> PyResult<String> {
        Ok(choreo_robot::calendar::format_utc(
            self.run.get()?.start_time(),
        ))
    }

    /// What the sandbox refused box code, in order, each with the flag (the `sandbox` key)
    /// that allows it: `write /tmp/x (root/Box line 4; --allow-write /tmp)`.
    #[getter]
    fn refused(&self) -> PyResult<Vec<String>> {
        Ok(self.run.get()?.refused())
    }

    /// Now, in behavior time (seconds).
    #[getter]
    fn now(&self) -> PyResult<f64> {
        Ok(self.run.get()?.now().as_secs_f64())
    }

    /// The behavior's name in its project.
    #[getter]
    fn behavior(&self) -> PyResult<String> {
        Ok(self.run.get()?.behavior_name().to_string())
    }

    /// The robot model: "NAO" or "Pepper".
    #[getter]
    fn model(&self) -> PyResult<&'static str> {
        Ok(self.run.get()?.model().name())
    }

    /// `path` as the trace names it (`Say` and `root/Say` are both `root/Say`).
    fn box_path(&self, path: &str) -> PyResult<String> {
        Ok(self.run.get()?.box_path(path))
    }

    /// The ALMemory keys subscribed now (what an idle behavior waits for).
    fn awaited(&self) -> PyResult<Vec<String>> {
        Ok(self.run.get()?.awaited())
    }

    /// Waits at most `timeout` seconds for what comes next: "finished", "stopped", "idle",
    /// "time_limit", "failed", "robot_lost", "crashed". The observers have then been given
    /// every event up to it.
    #[pyo3(signature = (timeout = DEFAULT_WAIT))]
    fn wait(&self, py: Python<'_>, timeout: f64) -> PyResult<&'static str> {
        let limit = seconds(timeout)?;
        let run = Arc::clone(self.run.get()?);
        let observers = self.progress();
        let outcome = py
            .detach(move || {
                let outcome = run.wait(limit);
                caught_up(&observers);
                outcome
            })
            .map_err(py_error)?;
        Ok(outcome_word(&outcome))
    }

    /// Waits at most `timeout` seconds for the end (an idle run or its time limit is
    /// stopped then): a `choreo.Ending`. The observers have then been given every event.
    #[pyo3(signature = (timeout = DEFAULT_WAIT))]
    fn wait_end<'py>(&self, py: Python<'py>, timeout: f64) -> PyResult<Bound<'py, PyAny>> {
        let limit = seconds(timeout)?;
        let run = Arc::clone(self.run.get()?);
        let observers = self.progress();
        let ending = py
            .detach(move || {
                let ending = run.wait_end(limit);
                caught_up(&observers);
                ending
            })
            .map_err(py_error)?;
        ending_object(py, &ending)
    }
}

/// How many observed items a deliverer hands Python at once (one GIL acquisition).
const BATCH: usize = 4096;

/// A Python observer: the thread calling it, and how far it has got.
struct Observer {
    id: ThreadId,
    thread: JoinHandle<()>,
    progress: Arc<Progress>,
}

/// Items given to an observer's thread and items it has handed Python: `wait` returns once
/// the second has caught up with the first, so a test reads every event up to the end.
#[derive(Default)]
struct Progress {
    given: AtomicU64,
    handed: Mutex<u64>,
    moved: Condvar,
}

impl Progress {
    fn handed(&self, n: u64) {
        *choreo_base::lock(&self.handed) += n;
        self.moved.notify_all();
    }

    /// Waits until everything given so far has been handed Python.
    fn catch_up(&self) {
        let given = self.given.load(Ordering::SeqCst);
        let handed = choreo_base::lock(&self.handed);
        drop(
            self.moved
                .wait_while(handed, |h| *h < given)
                .unwrap_or_else(PoisonError::into_inner),
        );
    }
}

/// The engine's end of an observer: items go to its thread, counted.
struct Feed<T> {
    tx: mpsc::Sender<T>,
    progress: Arc<Progress>,
}

impl<T> Feed<T> {
    fn send(&self, item: T) {
        if self.tx.send(item).is_ok() {
            self.progress.given.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Waits until every observer has been handed what it was given.
fn caught_up(observers: &[Arc<Progress>]) {
    for progress in observers {
        progress.catch_up();
    }
}

impl Run {
    /// A thread that calls `callback` with each item given to the [`Feed`] it returns, in
    /// order, taking the GIL once for all the items waiting; it ends when the feed is
    /// dropped (the observer removed). An exception of the callback is reported as
    /// unraisable (`sys.unraisablehook`), never raised in the engine.
    fn deliverer<T: Send + 'static>(
        &self,
        callback: Py<PyAny>,
        convert: for<'py> fn(Python<'py>, &T) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Feed<T>> {
        let (tx, rx) = mpsc::channel::<T>();
        let progress = Arc::new(Progress::default());
        let handing = Arc::clone(&progress);
        let thread = std::thread::Builder::new()
            .name("choreo-observer".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    batch.extend(rx.try_iter().take(BATCH));
                    Python::attach(|py| {
                        for item in &batch {
                            let result = convert(py, item).and_then(|v| callback.call1(py, (v,)));
                            if let Err(err) = result {
                                err.write_unraisable(py, None);
                            }
                        }
                    });
                    handing.handed(batch.len() as u64);
                }
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start an observer: {e}")))?;
        choreo_base::lock(&self.observers).push(Observer {
            id: thread.thread().id(),
            thread,
            progress: Arc::clone(&progress),
        });
        Ok(Feed { tx, progress })
    }

    /// How far each observer's thread has got, but the one calling (an observer that waits
    /// for the run from its callback cannot wait for itself).
    fn progress(&self) -> Vec<Arc<Progress>> {
        let here = std::thread::current().id();
        choreo_base::lock(&self.observers)
            .iter()
            .filter(|o| o.id != here)
            .map(|o| Arc::clone(&o.progress))
            .collect()
    }

    /// The Python object of a loaded run.
    fn of(run: Arc<choreo::Run>) -> Run {
        Run {
            run: Held::new(run),
            observers: Mutex::new(Vec::new()),
            listeners: Mutex::new(Vec::new()),
        }
    }

    /// Keeps a listener id under a number Python can hold: its index in this run's list.
    fn remember(&self, id: choreo::ListenerId) -> usize {
        let mut listeners = choreo_base::lock(&self.listeners);
        listeners.push(Some(id));
        listeners.len() - 1
    }
}

/// A number of seconds as a duration: finite and not negative.
fn seconds(s: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| PyValueError::new_err(format!("timeout {s}: expected seconds, 0 or more")))
}

fn outcome_word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Finished => "finished",
        Outcome::Stopped => "stopped",
        Outcome::Idle => "idle",
        Outcome::TimeLimit => "time_limit",
        Outcome::TimedOut => "timed_out",
        Outcome::Failed { .. } => "failed",
        Outcome::RobotLost => "robot_lost",
        Outcome::Crashed { .. } => "crashed",
    }
}

/// A `choreo.Ending` for `ending`.
fn ending_object<'py>(py: Python<'py>, ending: &Ending) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    let kind = match ending {
        Ending::Finished => "finished",
        Ending::Stopped { .. } => "stopped",
        Ending::Idle { awaiting } => {
            kwargs.set_item("awaiting", awaiting)?;
            "idle"
        }
        Ending::TimeLimit => "time_limit",
        Ending::Failed {
            path,
            hook,
            message,
        } => {
            kwargs.set_item("box", path)?;
            kwargs.set_item("hook", hook)?;
            kwargs.set_item("message", message)?;
            "failed"
        }
        Ending::RobotLost => "robot_lost",
        Ending::Crashed { message } => {
            kwargs.set_item("message", message)?;
            "crashed"
        }
        Ending::BoxHostEnded { how, at, .. } => {
            kwargs.set_item("message", how)?;
            kwargs.set_item("box", at)?;
            "box_host_ended"
        }
    };
    py.import("choreo.errors")?
        .getattr("Ending")?
        .call((kind,), Some(&kwargs))
}

/// An event as the dict `--trace` writes (its JSON object).
fn event_dict<'py>(py: Python<'py>, e: &choreo::Event) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(e).map_err(|err| PyValueError::new_err(err.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The timeline of one box (`Run.timeline`).
#[pyclass(module = "choreo._native", frozen)]
struct Timeline {
    run: Held<Arc<choreo::Run>>,
    path: String,
}

impl Timeline {
    fn act(&self, f: impl FnOnce(&choreo::Timeline<'_>) -> choreo::Result<()>) -> PyResult<()> {
        let timeline = self.run.get()?.timeline(&self.path).map_err(py_error)?;
        f(&timeline).map_err(py_error)
    }
}

#[pymethods]
impl Timeline {
    /// Plays from the cursor.
    fn play(&self) -> PyResult<()> {
        self.act(|t| t.play())
    }

    /// Freezes the cursor.
    fn pause(&self) -> PyResult<()> {
        self.act(|t| t.pause())
    }

    /// Unloads and rewinds.
    fn stop(&self) -> PyResult<()> {
        self.act(|t| t.stop())
    }

    /// Moves the cursor to `frame`.
    fn go_to_frame(&self, frame: i64) -> PyResult<()> {
        self.act(|t| t.go_to_frame(frame))
    }

    /// Moves the cursor to the keyframe named `label`.
    fn go_to_label(&self, label: &str) -> PyResult<()> {
        self.act(|t| t.go_to_label(label))
    }

    /// Plays at `fps` frames per second.
    fn set_fps(&self, fps: u32) -> PyResult<()> {
        self.act(|t| t.set_fps(fps))
    }
}

/// A run's events (`Run.events`): an iterator of dicts that ends with the run.
#[pyclass(module = "choreo._native")]
struct Events {
    /// The run's events, and those taken from them but not given yet.
    events: Held<Mutex<(choreo::Events, VecDeque<choreo::Event>)>>,
}

#[pymethods]
impl Events {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let events = self.events.get()?;
        let mut guard = choreo_base::lock(events);
        if let Some(e) = guard.1.pop_front() {
            return event_dict(py, &e).map(Some);
        }
        // Nothing taken yet: wait for the next event without the GIL, and take with it
        // every one already there.
        drop(guard);
        let next = py.detach(|| {
            let mut guard = choreo_base::lock(events);
            let (events, taken) = &mut *guard;
            let first = events.next()?;
            while taken.len() < BATCH {
                match events.try_next() {
                    Some(e) => taken.push_back(e),
                    None => break,
                }
            }
            Some(first)
        });
        next.map(|e| event_dict(py, &e)).transpose()
    }
}

/// `choreo.load(path, ...)`: opens any input (or takes a `Project`), sets its run up and
/// loads it.
#[pyfunction]
#[pyo3(signature = (path, behavior = None, *, robot = None, user = None, token = None,
    model = None, fast = false, timeout = None, strict = false, params = None, scenario = None,
    language = None, seed = None, start_time = None, sandbox = None))]
#[allow(clippy::too_many_arguments)]
fn load(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    behavior: Option<String>,
    robot: Option<String>,
    user: Option<String>,
    token: Option<String>,
    model: Option<String>,
    fast: bool,
    timeout: Option<f64>,
    strict: bool,
    params: Option<&Bound<'_, PyDict>>,
    scenario: Option<&Bound<'_, PyAny>>,
    language: Option<String>,
    seed: Option<u64>,
    start_time: Option<String>,
    sandbox: Option<&Bound<'_, PyAny>>,
) -> PyResult<Run> {
    let options = Options {
        model,
        timeout,
        strict,
        params,
        language,
        seed,
        start_time,
        sandbox: allowed(sandbox)?,
    };
    let mut setup = setup_of(py, path, behavior.as_deref(), options)?;
    match robot {
        Some(url) => setup = setup.target(robot_at(url, user, token)),
        None if user.is_some() || token.is_some() => {
            return Err(PyValueError::new_err(
                "user and token are for a robot: give robot=\"tcp://HOST:PORT\"",
            ));
        }
        None => {}
    }
    if fast {
        setup = setup.clock(Clock::Virtual);
    }
    if let Some(s) = scenario {
        setup = match s.extract::<PathBuf>() {
            Ok(file) => setup.scenario_file(file),
            Err(_) => {
                let text: String = py
                    .import("json")?
                    .call_method1("dumps", (s,))
                    .map_err(|e| PyTypeError::new_err(format!("scenario: {e}")))?
                    .extract()?;
                let scenario = choreo::Scenario::from_str(&text, "scenario.json")
                    .map_err(|e| py_error(Error::Scenario(e)))?;
                setup.scenario(scenario)
            }
        };
    }
    // Box constructors run Python on the engine's threads: the GIL must be free meanwhile.
    let run = py.detach(move || setup.load()).map_err(py_error)?;
    Ok(Run::of(Arc::new(run)))
}

/// The robot at `url`, authenticated as `user` with `token` when given (a NAOqi 2.9 robot,
/// or `choreo sim` beyond loopback).
fn robot_at(url: String, user: Option<String>, token: Option<String>) -> choreo::Target {
    choreo::Target::Url {
        url,
        options: choreo_qi::SessionOptions {
            user,
            token,
            ..choreo_qi::SessionOptions::default()
        },
    }
}

/// What `choreo.load` and `choreo.load_fleet` both take, besides the input and the robot.
struct Options<'a, 'py> {
    model: Option<String>,
    timeout: Option<f64>,
    strict: bool,
    params: Option<&'a Bound<'py, PyDict>>,
    language: Option<String>,
    seed: Option<u64>,
    start_time: Option<String>,
    /// What box code may reach, and where it runs.
    sandbox: Sandbox,
}

/// `sandbox=` read: what box code may reach (`None`: unconfined, `sandbox=False`), and
/// whether it runs in a process of its own (`box_host`).
pub(crate) struct Sandbox {
    allowed: Option<choreo::Allowed>,
    box_host: bool,
}

/// `sandbox=`: `True` or nothing, confined, box code in a process of its own (docs/security.md,
/// The box host); `False`, unconfined, in this process; a dict of the command line's flags
/// (`allow_read`, `allow_write`: lists of paths; `allow_net`: `True` or a list of
/// `host:port`; `allow_run`: a bool; `box_host`: `False` runs box code on this process's
/// confined threads rather than in a process of its own), confined with those allowed.
/// `"require"` (or the dict's `require: True`) refuses to run where the kernel cannot
/// confine box code; otherwise such a machine is said once, with a `RuntimeWarning`.
fn allowed(sandbox: Option<&Bound<'_, PyAny>>) -> PyResult<Sandbox> {
    // Box code in a process of its own, the box host, unless asked otherwise: box code can
    // then neither end nor read the process that loaded it (pytest's).
    let alone = |allowed| Sandbox {
        allowed,
        box_host: true,
    };
    let Some(sandbox) = sandbox else {
        return kernel_checked(false, choreo::Allowed::default()).map(alone);
    };
    if let Ok(on) = sandbox.extract::<bool>() {
        return match on {
            true => kernel_checked(false, choreo::Allowed::default()).map(alone),
            false => Ok(alone(None)),
        };
    }
    if let Ok(mode) = sandbox.extract::<String>() {
        if mode != "require" {
            return Err(PyValueError::new_err(format!(
                "sandbox: {mode:?} is not \"require\""
            )));
        }
        return kernel_checked(true, choreo::Allowed::default()).map(alone);
    }
    let dict = sandbox.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("sandbox: expected True, False, \"require\" or a dict of allow_read, allow_write, allow_net, allow_run, require, box_host")
    })?;
    let mut allowed = choreo::Allowed::default();
    let mut require = false;
    let mut box_host = true;
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "require" => require = value.extract()?,
            "allow_read" => allowed.read = value.extract()?,
            "allow_write" => allowed.write = value.extract()?,
            "allow_net" => {
                allowed.net = match value.extract::<bool>() {
                    Ok(true) => Some(Vec::new()),
                    Ok(false) => None,
                    Err(_) => Some(value.extract()?),
                }
            }
            "allow_run" => allowed.run = value.extract()?,
            "box_host" => box_host = value.extract()?,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "sandbox: {key:?} is not one of allow_read, allow_write, allow_net, allow_run, require, box_host"
                )));
            }
        }
    }
    Ok(Sandbox {
        allowed: kernel_checked(require, allowed)?,
        box_host,
    })
}

/// `allowed`, confined, where this machine's kernel confines box code; where it cannot: an
/// error when `require`d, else a `RuntimeWarning`, once per process (as `choreo run`'s
/// notice).
fn kernel_checked(require: bool, allowed: choreo::Allowed) -> PyResult<Option<choreo::Allowed>> {
    use choreo_sandbox::landlock::{shortfall, support};
    static SAID: std::sync::Once = std::sync::Once::new();
    let Some(short) = shortfall(support()) else {
        return Ok(Some(allowed));
    };
    if require {
        return Err(PyRuntimeError::new_err(format!(
            "{short} (sandbox=\"require\")"
        )));
    }
    let mut warned = Ok(());
    SAID.call_once(|| {
        warned = Python::attach(|py| {
            let text = std::ffi::CString::new(short).unwrap_or_default();
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(),
                &text,
                1,
            )
        });
    });
    warned.map(|()| Some(allowed))
}

/// The setup of `behavior` of `path` (a path or a `Project`) with `options`.
fn setup_of(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    behavior: Option<&str>,
    options: Options<'_, '_>,
) -> PyResult<Setup> {
    let project = project_of(py, path)?;
    let mut setup: Setup = project.behavior(behavior).map_err(py_error)?;
    if let Some(name) = options.model {
        setup = setup.model(match name.to_ascii_lowercase().as_str() {
            "nao" => choreo::Model::Nao,
            "pepper" => choreo::Model::Pepper,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "model {name:?}: expected \"nao\" or \"pepper\""
                )));
            }
        });
    }
    if let Some(t) = options.timeout {
        setup = setup.time_limit(seconds(t)?);
    }
    setup = setup
        .strict(options.strict)
        .sandbox(options.sandbox.allowed)
        .box_host(options.sandbox.box_host);
    if let Some(seed) = options.seed {
        setup = setup.seed(seed);
    }
    if let Some(text) = options.start_time {
        let ms = choreo_robot::calendar::parse_utc(&text).ok_or_else(|| {
            PyValueError::new_err(format!(
                "start_time {text:?}: expected a UTC date and time such as \"2026-03-01T18:30:00Z\""
            ))
        })?;
        setup = setup.start_time(ms);
    }
    if let Some(language) = options.language {
        setup = setup.language(language);
    }
    for (key, value) in options.params.into_iter().flat_map(|d| d.iter()) {
        let key: String = key.extract()?;
        let (box_path, name) = key.rsplit_once('/').ok_or_else(|| {
            PyValueError::new_err(format!("parameter {key:?}: expected \"box/path/Name\""))
        })?;
        setup = setup.param(box_path, name, value_of(&value)?);
    }
    Ok(setup)
}

/// An opened input (`choreo.Project`): its behaviors, what reading it found; `choreo.load`
/// takes it instead of a path (read once).
#[pyclass(module = "choreo._native", frozen)]
struct Project {
    project: choreo::Project,
}

#[pymethods]
impl Project {
    /// Opens any input; every behavior must be readable (else LoadError).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Project> {
        let project = py
            .detach(move || choreo::Project::open(&path))
            .map_err(py_error)?;
        Ok(Project { project })
    }

    /// The path it was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.project.path().to_path_buf()
    }

    /// Its name (the `.pml`'s, the archive's title, the manifest's, the file's).
    #[getter]
    fn name(&self) -> String {
        self.project.name().to_string()
    }

    /// Its behaviors' names, in project order (the first is run by default).
    #[getter]
    fn behaviors(&self) -> Vec<String> {
        self.project
            .behaviors()
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// What reading it found to say (missing files...), each located.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.project
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The robot it was made for ("NAO", "Pepper"): the manifest's, else the one its
    /// content shows, else NAO.
    #[getter]
    fn model(&self) -> &'static str {
        self.project.model().name()
    }

    /// The language a robot running it speaks when not English (a NAOqi name), or None.
    #[getter]
    fn language(&self) -> Option<&'static str> {
        self.project.language()
    }

    fn __repr__(&self) -> String {
        format!(
            "Project({:?}, behaviors={:?})",
            self.project.path(),
            self.project.behaviors()
        )
    }
}

/// The project `input` names: a `Project`, or a path opened now.
fn project_of(py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<choreo::Project> {
    if let Ok(p) = input.cast::<Project>() {
        return Ok(p.get().project.clone());
    }
    let path: PathBuf = input.extract()?;
    py.detach(move || choreo::Project::open(&path))
        .map_err(py_error)
}

/// The `choreo` command with `argv` (its name first); returns the exit code. Box scripts run
/// in this interpreter; the GIL is free while the command runs.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(move || choreo::cli::main(argv))
}

/// `_serve_box_host()`: this interpreter was started by choreo as box code's process (the
/// box host, docs/security.md): serves it, and ends the process when choreo lets it go.
#[pyfunction]
fn _serve_box_host(py: Python<'_>) {
    let code = py.detach(choreo_python::remote::serve_box_host_here);
    std::process::exit(code);
}

/// `_set_box_host(python, folder)`: this process's runs start their box host as `python`
/// importing choreo from `folder` (the package's parent folder), without the user's site
/// packages or startup files.
#[pyfunction]
fn _set_box_host(python: PathBuf, folder: String) {
    // The folder comes as the program's first argument (`sys.argv[1]` under `-c`): no
    // quoting of a path into Python's text.
    let bootstrap = "import sys; sys.path.insert(0, sys.argv[1]); from choreo import _native; \
                     _native._serve_box_host()";
    choreo_python::remote::Executable::set_default(choreo_python::remote::Executable {
        program: python,
        args: vec![
            "-s".into(),
            "-S".into(),
            "-c".into(),
            bootstrap.into(),
            folder.into(),
        ],
    });
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Run>()?;
    m.add_class::<Timeline>()?;
    m.add_class::<Events>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    m.add_class::<chat::Chat>()?;
    m.add_function(wrap_pyfunction!(explore::explore, m)?)?;
    m.add_function(wrap_pyfunction!(explore::explore_path, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::load_fleet, m)?)?;
    m.add_class::<fleet::Fleet>()?;
    m.add_class::<Project>()?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(_serve_box_host, m)?)?;
    m.add_function(wrap_pyfunction!(_set_box_host, m)?)?;
    Ok(())
}
