//! One box and its run as box code sees them: the run's shared state ([`Run`]), each box's
//! ([`BoxState`]), the box whose code runs on a thread (a thread-local, set around every hook,
//! callback and background task), and running code as a box. Below the box API, the
//! interpreter's set-up and the host, which all work on it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use choreo_engine::SubscriptionId;

use crate::side::{BoxInfo, ClockFacts, EngineSide};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

/// Per-run values a behavior's scripts can ask for (S7).
#[derive(Debug, Clone, Default)]
pub struct PythonOptions {
    /// The behavior's folder, without a trailing slash (`behaviorAbsolutePath()`,
    /// `ALFrameManager.getBehaviorPath`).
    pub behavior_path: String,
    /// The package uuid from `manifest.xml` (`packageUid()`).
    pub package_uid: String,
    /// The behavior's path inside its package (`behaviorRelativePath()`).
    pub behavior_relative_path: String,
    /// The run's root: where the robot's own paths (`/home/nao/...`) name places in box
    /// code (`python/paths.py`); `None`: they name the machine's.
    pub robot_root: Option<String>,
    /// What box code may reach beyond the run's folders (docs/security.md); `None`: all
    /// the user running choreo may (`--no-sandbox`).
    pub confinement: Option<Arc<crate::confinement::Confinement>>,
}

/// What the boxes of one run share: the options, every box by its `getName()`, and the
/// modules that ALMemory callbacks can reach by name (S6).
pub(crate) struct Run {
    pub(crate) options: PythonOptions,
    pub(crate) boxes: Mutex<HashMap<String, Weak<BoxState>>>,
    /// `getName()` or ALModule name → the object whose methods ALMemory calls: a
    /// `weakref.WeakValueDictionary`, so that it keeps no box alive (and no cycle through
    /// Rust forms that Python's collector could not see).
    pub(crate) modules: Py<PyAny>,
    /// The subscriptions made by `ALMemory.subscribeToEvent`.
    pub(crate) events: Mutex<HashMap<EventKey, EventSubscription>>,
    /// The run's `random.Random` (see `runtime::rng`), made when first drawn from.
    pub(crate) rng: OnceLock<Py<PyAny>>,
    /// The `__builtins__` of every box namespace of the run (`generated.namespace` fills it
    /// on first use): where a name a box script sets at module level is found by the
    /// others, as in the reference, which ran every script in one namespace.
    pub(crate) shared: Py<PyDict>,
}

/// `(event, module)` of `ALMemory.subscribeToEvent`.
pub(crate) type EventKey = (String, String);

/// The box whose callback receives an event, and its subscription.
pub(crate) type EventSubscription = (Weak<BoxState>, SubscriptionId);

impl Run {
    /// The box whose `getName()` is `name`, if it is alive.
    pub(crate) fn box_named(&self, name: &str) -> Option<Arc<BoxState>> {
        choreo_base::lock(&self.boxes)
            .get(name)
            .and_then(Weak::upgrade)
    }
}

/// One box instance as its Python code sees it.
pub(crate) struct BoxState {
    /// The engine as this box's code reaches it.
    pub(crate) side: Arc<dyn EngineSide>,
    /// What box code knows of its box.
    pub(crate) info: BoxInfo,
    /// The run's clock.
    pub(crate) clock: ClockFacts,
    /// `getName()`: unique in the run (S6).
    pub(crate) name: String,
    pub(crate) parent_id: String,
    pub(crate) behavior_id: String,
    pub(crate) run: Arc<Run>,
    /// The frame rate last given to the box's timeline by box code: the engine applies it
    /// when its control thread gets to it, a script reads it back at once (0: none).
    pub(crate) fps_set: AtomicU32,
    /// False once the engine dropped the box: background work then stops acting.
    pub(crate) alive: AtomicBool,
    pub(crate) subscriptions: Mutex<Vec<SubscriptionId>>,
}

/// `getName()` of the box with path `path` and id `id`: the path made identifier-safe, and
/// the id, which makes it unique (sibling boxes may share a name).
fn module_name(path: &str, id: u32) -> String {
    let safe: String = path
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    format!("{safe}_{id}")
}

impl BoxState {
    pub(crate) fn new(
        side: Arc<dyn EngineSide>,
        info: BoxInfo,
        clock: ClockFacts,
        run: Arc<Run>,
    ) -> BoxState {
        let root = info.path.split('/').next().unwrap_or_default();
        let behavior_id = module_name(root, 0);
        let parent_id = match (info.parent, info.path.rsplit_once('/')) {
            (Some(parent), Some((parent_path, _))) => module_name(parent_path, parent),
            _ => behavior_id.clone(),
        };
        BoxState {
            name: module_name(&info.path, info.id),
            parent_id,
            behavior_id,
            side,
            info,
            clock,
            run,
            fps_set: AtomicU32::new(0),
            alive: AtomicBool::new(true),
            subscriptions: Mutex::new(Vec::new()),
        }
    }

    /// The engine, or a `RuntimeError` once the box is gone.
    pub(crate) fn live(&self) -> PyResult<&dyn EngineSide> {
        if self.alive.load(Ordering::SeqCst) {
            Ok(self.side.as_ref())
        } else {
            Err(PyRuntimeError::new_err(format!(
                "{}: the behavior was unloaded",
                self.info.path
            )))
        }
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Ends subscription `id`.
    pub(crate) fn unsubscribe(&self, id: SubscriptionId) {
        choreo_base::lock(&self.subscriptions).retain(|s| *s != id);
        self.side.unsubscribe(id);
    }

    /// The box is destroyed: its subscriptions end and its background work stops acting.
    pub(crate) fn close(&self) {
        self.alive.store(false, Ordering::SeqCst);
        let ids = std::mem::take(&mut *choreo_base::lock(&self.subscriptions));
        for id in ids {
            self.side.unsubscribe(id);
        }
    }
}

thread_local! {
    /// The box whose code runs on this thread.
    static CURRENT: RefCell<Option<Arc<BoxState>>> = const { RefCell::new(None) };
}

/// Makes a box current on this thread until dropped (then the previous one is again).
pub(crate) struct Entered(Option<Arc<BoxState>>);

impl Entered {
    /// Also confines the thread in the kernel, on its first entry into box code of a
    /// confined run: every way into box code passes here.
    pub(crate) fn new(state: Arc<BoxState>) -> Entered {
        if let Some(confinement) = &state.run.options.confinement {
            confinement.confine_this_thread();
        }
        Entered(CURRENT.with(|c| c.replace(Some(state))))
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

pub(crate) fn current_state() -> Option<Arc<BoxState>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// `describe(error)` of `generated.py` (a traceback naming boxes and their script lines),
/// set once the interpreter is set up (`runtime::set_up`); before that, and if set-up
/// failed, errors are logged with their plain text.
pub(crate) static DESCRIBE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Reports `error`, an exception that escaped box code outside its hooks (E2), for the
/// current box: `uncaught` names what ran the code when no box code can catch the exception
/// (a callback, a thread: [`BoxContext::uncaught`], which stops a strict run); `None` only
/// logs it at error level (a `qi.async` function, whose future holds the error for the box
/// code to read). Printed when no box is current.
pub(crate) fn log_exception(py: Python<'_>, error: &PyErr, uncaught: Option<&str>) {
    // An error raised through a call from Rust keeps its traceback beside the exception:
    // put back where `describe` reads it.
    let value = error.value(py);
    if value.getattr("__traceback__").is_ok_and(|t| t.is_none())
        && let Some(traceback) = error.traceback(py)
    {
        let _ = value.setattr("__traceback__", traceback);
    }
    let text = DESCRIBE
        .get(py)
        .and_then(|d| d.call1(py, (value,)).ok())
        .and_then(|t| t.extract::<String>(py).ok())
        .unwrap_or_else(|| error.to_string());
    match (current_state(), uncaught) {
        (Some(state), Some(source)) if state.is_alive() => state.side.uncaught(source, &text),
        (Some(state), None) if state.is_alive() => state.side.log_cut("error", &text, 0),
        // A closed stderr must not panic a box's thread.
        _ => {
            let _ = writeln!(std::io::stderr(), "choreo-python: {text}");
        }
    }
}

/// Runs `work` as code of the box `state` (its context current, the lock held); an
/// exception is uncaught, from `source` (E2).
pub(crate) fn call_in_box(
    state: &Arc<BoxState>,
    source: &str,
    work: impl FnOnce(Python<'_>) -> PyResult<()>,
) {
    if !state.is_alive() {
        return;
    }
    let _entered = Entered::new(Arc::clone(state));
    Python::attach(|py| {
        if let Err(e) = work(py) {
            log_exception(py, &e, Some(source));
        }
    });
}

/// Sleeps `seconds` of behavior time as a box (virtual time jumps over it); the time it
/// woke at.
pub(crate) fn sleep_in_box(py: Python<'_>, side: &dyn EngineSide, seconds: f64) -> Duration {
    // Rounded up to the nanosecond: a positive sleep shorter than 1 ns must still move
    // virtual time, or a loop that sleeps until a deadline in float seconds (qi.wait_for,
    // threading.Timer) spins without time ever reaching the deadline.
    let d = Duration::from_nanos((seconds * 1e9).ceil() as u64);
    py.detach(|| side.sleep(d))
}
