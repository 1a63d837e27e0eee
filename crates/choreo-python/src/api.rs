//! The native side of `GeneratedClass`: `_choreo.BoxApi`, one box's handle on the engine
//! (outputs, parameters, timelines, robot calls, logs, ALMemory subscriptions). Every call
//! that may block (a robot call, a sleep) releases the interpreter lock while it waits.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use choreo_engine::{RobotError, TimelineCommand, Value};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::box_state::{BoxState, call_in_box};
use crate::convert::{Foreign, from_python, text, to_python};
use crate::side::{Deliver, EngineSide};

/// Subscription ids of script subscriptions: the high bit keeps them apart from the
/// engine's own (memory inputs).
static NEXT_SUBSCRIPTION: AtomicU64 = AtomicU64::new(1 << 63);

/// `_choreo.BoxApi`: what `GeneratedClass` calls.
#[pyclass(module = "_choreo", name = "BoxApi", frozen)]
pub(crate) struct BoxApi {
    pub(crate) state: Arc<BoxState>,
}

/// A timeline command from its script name and argument.
fn timeline_command(command: &str, arg: Option<&Bound<'_, PyAny>>) -> PyResult<TimelineCommand> {
    let number = |arg: Option<&Bound<'_, PyAny>>| -> PyResult<f64> {
        arg.ok_or_else(|| PyTypeError::new_err(format!("{command} needs a number")))?
            .extract::<f64>()
    };
    Ok(match command {
        "play" => TimelineCommand::Play,
        "pause" => TimelineCommand::Pause,
        "stop" => TimelineCommand::Stop,
        "goto" => match arg.map(|a| a.cast::<PyString>()) {
            // A keyframe name; text that is a whole number is a frame (parameters are text).
            Some(Ok(s)) => {
                let s = s.to_cow()?;
                match s.trim().parse::<i64>() {
                    Ok(frame) => TimelineCommand::GoToFrame(frame),
                    Err(_) => TimelineCommand::GoToLabel(s.to_string()),
                }
            }
            _ => TimelineCommand::GoToFrame(number(arg)?.round() as i64),
        },
        // setFPS accepts floats (section 9).
        "fps" => {
            TimelineCommand::SetFps(number(arg)?.round().clamp(0.0, f64::from(u32::MAX)) as u32)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "no timeline command {other:?}"
            )));
        }
    })
}

#[pymethods]
impl BoxApi {
    /// `getName()`.
    #[getter]
    fn name(&self) -> &str {
        &self.state.name
    }

    /// `boxName`: the display name.
    #[getter]
    fn box_name(&self) -> &str {
        &self.state.info.name
    }

    /// The box path (`root/Dance/Say`), for tracebacks.
    #[getter]
    fn path(&self) -> &str {
        &self.state.info.path
    }

    #[getter]
    fn behavior_id(&self) -> &str {
        &self.state.behavior_id
    }

    #[getter]
    fn parent_id(&self) -> &str {
        &self.state.parent_id
    }

    /// Whether the box is in a diagram (the root is not): the reference's generated class
    /// has `parentBoxName` only then.
    #[getter]
    fn has_parent(&self) -> bool {
        self.state.info.parent.is_some()
    }

    /// Whether the box takes resources when started (the generated class's `resource`).
    #[getter]
    fn has_resources(&self) -> bool {
        self.state.info.has_resources
    }

    #[getter]
    fn behavior_path(&self) -> &str {
        self.state.run.options.behavior_path.trim_end_matches('/')
    }

    #[getter]
    fn relative_path(&self) -> &str {
        &self.state.run.options.behavior_relative_path
    }

    #[getter]
    fn package_uid(&self) -> &str {
        &self.state.run.options.package_uid
    }

    /// The topics of `.dlg` file `path` (the stock Dialog box's, `python/dialog.py`): its
    /// language codes with their `.top` files' paths, read as `choreo check` reads them.
    fn dialog_topics(&self, path: &str) -> PyResult<Vec<(String, String)>> {
        let bytes = std::fs::read(path).map_err(|e| {
            // Refused by the kernel: told as box code's own refusal.
            (e.kind() == std::io::ErrorKind::PermissionDenied)
                .then(|| self.refused_file(&[path.to_string()], "the Dialog box's .dlg"))
                .flatten()
                .unwrap_or_else(|| {
                    PyRuntimeError::new_err(format!("cannot read the dialog {path:?}: {e}"))
                })
        })?;
        let parsed = choreo_xar::project_files::read_dlg(path, &bytes)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        // A Latin-1 `.dlg` is read, with a notice, as its topics are.
        for warning in &parsed.warnings {
            self.state.side.log_cut("warning", &warning.to_string(), 0);
        }
        let dialog = parsed.value;
        let folder = std::path::Path::new(path)
            .parent()
            .unwrap_or(std::path::Path::new("."));
        Ok(dialog
            .topics
            .into_iter()
            .map(|t| (t.language, folder.join(t.file).display().to_string()))
            .collect())
    }

    /// Objects reachable by module name (boxes, ALModules, registered services).
    #[getter]
    fn modules(&self, py: Python<'_>) -> Py<PyAny> {
        self.state.run.modules.clone_ref(py)
    }

    /// What every box script of the run sees after its own globals: Python's builtins,
    /// the Python-2 names, and the module-level names of the run's box scripts.
    #[getter]
    fn shared(&self, py: Python<'_>) -> Py<PyDict> {
        self.state.run.shared.clone_ref(py)
    }

    /// Whether the box declares output `name`.
    fn has_output(&self, name: &str) -> bool {
        self.state.info.outputs.iter().any(|o| o == name)
    }

    /// Fires output `name` (P8); `None` is a bang.
    #[pyo3(signature = (name, value=None))]
    fn fire(&self, name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let value = match value {
            Some(v) => from_python(v, Foreign::Text)?,
            None => Value::None,
        };
        self.state
            .live()?
            .fire(name, value)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// `getParameter(name)` (S3): a `RuntimeError` names a parameter no box on the way up has.
    fn parameter<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.state.side.parameter(name) {
            Some(v) => to_python(py, &v),
            None => Err(PyRuntimeError::new_err(format!(
                "box {:?} has no parameter {name:?}",
                self.state.info.name
            ))),
        }
    }

    /// `setParameter(name, value)` (S4).
    fn set_parameter(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = from_python(value, Foreign::Text)?;
        if self.state.live()?.set_parameter(name, value) {
            Ok(())
        } else {
            Err(PyRuntimeError::new_err(format!(
                "box {:?} has no parameter {name:?}",
                self.state.info.name
            )))
        }
    }

    /// `getParametersList()`: the box's own parameter names.
    fn parameter_names(&self) -> Vec<String> {
        self.state.info.parameters.clone()
    }

    /// A command to the box's own timeline or (`parent`) the one holding it (T4, T5):
    /// `play`, `pause`, `stop`, `goto` (frame or keyframe name), `fps`. False when there is
    /// no parent timeline.
    #[pyo3(signature = (parent, command, arg=None))]
    fn timeline(
        &self,
        parent: bool,
        command: &str,
        arg: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let command = timeline_command(command, arg)?;
        let ctx = self.state.live()?;
        if let TimelineCommand::SetFps(fps) = command {
            let owner = if parent {
                self.parent()
            } else {
                Some(Arc::clone(&self.state))
            };
            if let Some(owner) = owner {
                owner.fps_set.store(fps, Ordering::SeqCst);
            }
        }
        Ok(if parent {
            ctx.parent_timeline(command)
        } else {
            ctx.timeline(command);
            true
        })
    }

    /// `getFPS()` of the own or parent timeline; outside a timeline the parent's is 25 (T7).
    fn fps(&self, parent: bool) -> u32 {
        let set = |state: &BoxState| match state.fps_set.load(Ordering::SeqCst) {
            0 => None,
            fps => Some(fps),
        };
        if parent {
            let engine = self.state.side.parent_fps();
            engine
                .and(self.parent().and_then(|p| set(&p)))
                .or(engine)
                .unwrap_or(25)
        } else {
            set(&self.state).unwrap_or_else(|| self.state.side.fps())
        }
    }

    /// `getSize()`: the end frame of the own or parent timeline (0 if it has none).
    fn size(&self, parent: bool) -> i64 {
        if parent {
            self.parent().map_or(0, |p| p.info.end_frame)
        } else {
            self.state.info.end_frame
        }
    }

    /// `service.method(*args)` on the robot, without the interpreter lock; the robot's
    /// error is a `RuntimeError` (docs/simulated-robot.md, Calls and time).
    fn call<'py>(
        &self,
        py: Python<'py>,
        service: &str,
        method: &str,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = robot_args(args)?;
        // The files the call names: the robot reads them on this thread, which the kernel
        // confines as box code (a refusal is then named as box code's would be).
        let paths: Vec<String> = args
            .iter()
            .filter_map(|v| match v {
                Value::String(s) if s.starts_with('/') => Some(s.clone()),
                _ => None,
            })
            .collect();
        let ctx = self.state.live()?;
        let result = py.detach(|| ctx.call_robot(service, method, args));
        match result {
            Ok(v) => to_python(py, &v),
            Err(e) => {
                let call = format!("{service}.{method}");
                // "Permission denied (os error 13)": the kernel refused the robot a file.
                let refused = e
                    .to_string()
                    .contains("os error 13")
                    .then(|| self.refused_file(&paths, &call))
                    .flatten();
                Err(refused.unwrap_or_else(|| robot_error(&e, &call)))
            }
        }
    }

    /// Whether the robot has module `service` (`ALProxy("X")` raises when it does not).
    fn has_service(&self, service: &str) -> PyResult<bool> {
        Ok(self.state.live()?.has_service(service))
    }

    /// `proxy.post.method(*args)`: starts the method, returns its task id.
    fn post(
        &self,
        py: Python<'_>,
        service: &str,
        method: &str,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<i64> {
        let args = robot_args(args)?;
        let ctx = self.state.live()?;
        py.detach(|| ctx.post_robot(service, method, args))
            .map_err(|e| robot_error(&e, &format!("{service}.post.{method}")))
    }

    /// A log line of the box (`debug`, `info`, `warning`, `error`, `fatal`).
    fn log(&self, level: &str, message: &Bound<'_, PyString>) -> PyResult<()> {
        if self.state.is_alive() {
            self.state.side.log_cut(level, &text(message)?, 0);
        }
        Ok(())
    }

    /// Calls `callback(key, value)` on each update of ALMemory `key`, in the background and
    /// in order, until [`BoxApi::unsubscribe`] or the box is destroyed. Returns the id.
    fn subscribe(&self, py: Python<'_>, key: &str, callback: Py<PyAny>) -> PyResult<u64> {
        self.listen(
            py,
            &format!("callback of {key}"),
            callback,
            |side, id, deliver| side.subscribe(key, id, deliver),
        )
    }

    /// Calls `callback(signal, arguments)` on each emission of signal `signal` of module
    /// `service` (`ALServiceManager.serviceStarted`), as [`BoxApi::subscribe`] does for
    /// ALMemory. Returns the link's id ([`BoxApi::unsubscribe`] ends it).
    fn connect_signal(
        &self,
        py: Python<'_>,
        service: &str,
        signal: &str,
        callback: Py<PyAny>,
    ) -> PyResult<u64> {
        let what = format!("callback of {service}.{signal}");
        self.listen(py, &what, callback, |side, id, deliver| {
            side.connect_signal(service, signal, id, deliver)
        })
    }

    /// Ends subscription `id`.
    fn unsubscribe(&self, id: u64) {
        self.state.unsubscribe(id);
    }

    /// `ALMemory.subscribeToEvent(event, module, ...)` for a module of this run: `callback`
    /// as in [`BoxApi::subscribe`], replacing an earlier subscription of `module` to `event`.
    fn subscribe_event(
        &self,
        py: Python<'_>,
        event: &str,
        module: &str,
        callback: Py<PyAny>,
    ) -> PyResult<()> {
        self.unsubscribe_event(event, module);
        let id = self.subscribe(py, event, callback)?;
        choreo_base::lock(&self.state.run.events).insert(
            (event.to_string(), module.to_string()),
            (Arc::downgrade(&self.state), id),
        );
        Ok(())
    }

    /// `ALMemory.unsubscribeToEvent(event, module)`: false if this run has no such
    /// subscription.
    fn unsubscribe_event(&self, event: &str, module: &str) -> bool {
        let found = choreo_base::lock(&self.state.run.events)
            .remove(&(event.to_string(), module.to_string()));
        match found {
            Some((state, id)) => {
                match state.upgrade() {
                    Some(state) => state.unsubscribe(id),
                    None => self.state.unsubscribe(id),
                }
                true
            }
            None => false,
        }
    }

    /// Another box of the run, by `getName()` (the ALFrameManager functions, S9).
    #[pyo3(name = "box")]
    fn box_named(&self, name: &str) -> Option<BoxApi> {
        self.state.run.box_named(name).map(|state| BoxApi { state })
    }
}

impl BoxApi {
    /// A subscription of `callback` made by `connect` (given the engine, the new id and
    /// what delivers each update), delivered in order, ended with the box. `what` names the
    /// callback in error reports when it has no `__name__`.
    fn listen(
        &self,
        py: Python<'_>,
        what: &str,
        callback: Py<PyAny>,
        connect: impl FnOnce(&dyn EngineSide, u64, Deliver) -> Result<(), RobotError> + Send,
    ) -> PyResult<u64> {
        let side = self.state.live()?;
        // What an exception of the callback is reported from (`onTouched`).
        let source = callback
            .bind(py)
            .getattr("__name__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| what.to_string());
        if !side.has_robot() {
            return Err(PyRuntimeError::new_err(format!("no robot for the {what}")));
        }
        let id = NEXT_SUBSCRIPTION.fetch_add(1, Ordering::SeqCst);
        let state = Arc::clone(&self.state);
        let deliver: Deliver = Box::new(move |key, value| {
            // An update given before the subscription ended but handed over after (its
            // activity's turn came later) is not delivered: as libqi's disconnect, and as
            // the box host's side, which forgets the subscription when it ends.
            if !choreo_base::lock(&state.subscriptions).contains(&id) {
                return;
            }
            call_in_box(&state, &source, |py| {
                callback.call1(py, (key, to_python(py, &value)?)).map(drop)
            });
        });
        // Listed before it is connected: an update may come at once.
        choreo_base::lock(&self.state.subscriptions).push(id);
        if let Err(e) = py.detach(|| connect(side, id, deliver)) {
            choreo_base::lock(&self.state.subscriptions).retain(|s| *s != id);
            return Err(PyRuntimeError::new_err(e.to_string()));
        }
        Ok(id)
    }

    /// A robot call, made for box code, that failed on a file box code may not read (or
    /// write): the refusal, noted for the report with the flag that allows it, as a
    /// `PermissionError` (the robot's own error only says "Permission denied"); `None` when
    /// no path of `paths` is refused.
    fn refused_file(&self, paths: &[String], call: &str) -> Option<PyErr> {
        let confinement = self.state.run.options.confinement.as_ref()?;
        let (kind, path, flag) = ["read", "write"].iter().find_map(|kind| {
            paths
                .iter()
                .find_map(|p| confinement.check(kind, p).map(|flag| (*kind, p, flag)))
        })?;
        let at = format!("{} ({call})", self.state.info.path);
        confinement.note_refusal(format!("{kind} {path} ({at}; {flag})"));
        let doing = if kind == "read" { "reading" } else { "writing" };
        Some(pyo3::exceptions::PyPermissionError::new_err((
            13,
            format!("choreo's sandbox refused {doing} {path} for {call} ({flag} allows it)"),
        )))
    }

    /// The enclosing box.
    fn parent(&self) -> Option<Arc<BoxState>> {
        self.state.run.box_named(&self.state.parent_id)
    }
}

/// A robot error as Python sees it: NAOqi raises `RuntimeError` for every robot error
/// (docs/simulated-robot.md, Calls and time), with the robot's message; without a robot, the message names the
/// call (`call`: `Service.method`, `Service.post.method`).
fn robot_error(error: &RobotError, call: &str) -> PyErr {
    match error {
        RobotError::NoRobot => PyRuntimeError::new_err(format!("no robot to call {call}")),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

fn robot_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<Value>> {
    args.iter()
        .map(|a| from_python(&a, Foreign::Refuse))
        .collect()
}
