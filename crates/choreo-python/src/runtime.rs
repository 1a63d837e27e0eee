//! The interpreter, set up once per process: the native module `_choreo`, the shim modules
//! (`naoqi`, `qi`, the Python-2 names) and the patches that make box code follow the engine
//! (`time.sleep`, `time.time`, threads). The box whose code runs on a thread is known through
//! [`crate::box_state`].

use std::ffi::CString;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

use crate::api::BoxApi;
use crate::box_state::{DESCRIBE, call_in_box, current_state, log_exception, sleep_in_box};
use crate::convert::text;
use crate::division::Py2Division;

/// The Python functions the host calls (from `generated.py`).
pub(crate) struct Runtime {
    /// `construct(box, source, fixed)`.
    pub(crate) construct: Py<PyAny>,
    /// `precompile([(fixed, path), ...])`.
    pub(crate) precompile: Py<PyAny>,
    /// `run_hook(instance, name, value, has_value)`.
    pub(crate) run_hook: Py<PyAny>,
}

/// The Python-2 builtins and module names (also given to package services' programs,
/// `program.rs`).
pub(crate) const PY2_CODE: &str = include_str!("python/py2.py");

/// The shim modules: (module name, file name in tracebacks, source), in import order. Their
/// names are private: box code imports them as `qi`, `naoqi`, `almath` and `motion` through
/// its own `__import__`, and other code under those names only when no real module has them
/// (`generated.py`'s `install`), so a host process's own `qi` is never replaced.
const SHIMS: [(&str, &str, &str); 10] = [
    (
        "_choreo_packages",
        "choreo/packages.py",
        include_str!("python/packages.py"),
    ),
    (
        "_choreo_paths",
        "choreo/paths.py",
        include_str!("python/paths.py"),
    ),
    ("_choreo_py2", "choreo/py2.py", PY2_CODE),
    (
        "_choreo_sandbox",
        "choreo/sandbox.py",
        include_str!("python/sandbox.py"),
    ),
    (
        "_choreo_almath",
        "choreo/almath.py",
        include_str!("python/almath.py"),
    ),
    (
        "_choreo_motion",
        "choreo/motion.py",
        include_str!("python/motion.py"),
    ),
    ("_choreo_qi", "choreo/qi.py", include_str!("python/qi.py")),
    (
        "_choreo_locks",
        "choreo/locks.py",
        include_str!("python/locks.py"),
    ),
    (
        "_choreo_naoqi",
        "choreo/naoqi.py",
        include_str!("python/naoqi.py"),
    ),
    (
        "_choreo_generated",
        "choreo/generated.py",
        include_str!("python/generated.py"),
    ),
];

static RUNTIME: PyOnceLock<Result<Runtime, String>> = PyOnceLock::new();

/// The runtime, set up on first use; an error (a bug in a shim) is kept and repeated.
pub(crate) fn runtime(py: Python<'_>) -> Result<&'static Runtime, String> {
    RUNTIME
        .get_or_init(py, || {
            set_up(py).map_err(|e| format!("cannot set up the Python runtime: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn set_up(py: Python<'_>) -> PyResult<Runtime> {
    let sys = py.import("sys")?;
    crate::sandbox::enable_fault_dump(py)?;
    // Before any box code could change what they are (packages.rs).
    crate::packages::settle();
    add_user_folders(&sys)?;
    let modules = sys.getattr("modules")?;
    let native = PyModule::new(py, "_choreo")?;
    native.add_class::<BoxApi>()?;
    native.add("py2div", Bound::new(py, Py2Division)?)?;
    native.add_function(wrap_pyfunction!(current, &native)?)?;
    native.add_function(wrap_pyfunction!(sleep, &native)?)?;
    native.add_function(wrap_pyfunction!(sleep_then_now, &native)?)?;
    native.add_function(wrap_pyfunction!(now, &native)?)?;
    native.add_function(wrap_pyfunction!(time, &native)?)?;
    native.add_function(wrap_pyfunction!(rng, &native)?)?;
    native.add_function(wrap_pyfunction!(draw, &native)?)?;
    native.add_function(wrap_pyfunction!(pass_turn, &native)?)?;
    native.add_function(wrap_pyfunction!(is_virtual, &native)?)?;
    native.add_function(wrap_pyfunction!(spawn, &native)?)?;
    native.add_function(wrap_pyfunction!(log, &native)?)?;
    native.add_function(wrap_pyfunction!(log_exception_py, &native)?)?;
    native.add_function(wrap_pyfunction!(robot_root, &native)?)?;
    native.add_function(wrap_pyfunction!(robot_folders, &native)?)?;
    native.add_function(wrap_pyfunction!(os_packages, &native)?)?;
    native.add_function(wrap_pyfunction!(packages_folder, &native)?)?;
    native.add_function(wrap_pyfunction!(install_os_package, &native)?)?;
    native.add_function(wrap_pyfunction!(crate::sandbox::ends_process, &native)?)?;
    native.add_function(wrap_pyfunction!(crate::sandbox::confined, &native)?)?;
    native.add_function(wrap_pyfunction!(crate::sandbox::is_confined, &native)?)?;
    native.add_function(wrap_pyfunction!(crate::sandbox::may_reach, &native)?)?;
    native.add_function(wrap_pyfunction!(crate::sandbox::python_folders, &native)?)?;
    modules.set_item("_choreo", &native)?;
    let mut last = None;
    for (name, file, source) in SHIMS {
        let c = |s: &str| CString::new(s).map_err(|e| PyValueError::new_err(e.to_string()));
        let module = PyModule::from_code(py, &c(source)?, &c(file)?, &c(name)?)?;
        // Tracebacks through the shims show their lines: linecache asks the module's loader
        // (there is no file to read).
        let loader = Bound::new(py, ShimSource(source))?;
        module.setattr("__loader__", &loader)?;
        let spec = module.getattr("__spec__")?;
        if !spec.is_none() {
            spec.setattr("loader", &loader)?;
        }
        last = Some(module);
    }
    let generated = last.ok_or_else(|| PyRuntimeError::new_err("no shim modules"))?;
    generated.getattr("install")?.call0()?;
    let runtime = Runtime {
        construct: generated.getattr("construct")?.unbind(),
        precompile: generated.getattr("precompile")?.unbind(),
        run_hook: generated.getattr("run_hook")?.unbind(),
    };
    let describe = generated.getattr("describe")?.unbind();
    DESCRIBE.get_or_init(py, || describe);
    Ok(runtime)
}

/// Puts the folders of `CHOREO_PYTHONPATH` in `sys.path` right after the standard library
/// (after `lib-dynload`, else at the end), so they never hide a standard module.
fn add_user_folders(sys: &Bound<'_, PyModule>) -> PyResult<()> {
    let folders = crate::environment::user_folders();
    if folders.is_empty() {
        return Ok(());
    }
    let path = sys.getattr("path")?;
    let entries: Vec<String> = path.extract()?;
    let at = entries
        .iter()
        .position(|e| e.trim_end_matches('/').ends_with("lib-dynload"))
        .map_or(entries.len(), |i| i + 1);
    for (i, folder) in folders.iter().enumerate() {
        path.call_method1("insert", (at + i, folder.to_string_lossy().into_owned()))?;
    }
    Ok(())
}

/// The loader of a shim module as `linecache` sees it: what gives its source.
#[pyclass(module = "_choreo", frozen)]
struct ShimSource(&'static str);

#[pymethods]
impl ShimSource {
    /// The module's source (PEP 302 `get_source`).
    fn get_source(&self, _name: &str) -> &'static str {
        self.0
    }
}

/// `_choreo.robot_root()`: the folder the robot's paths name places in for the box whose
/// code runs on this thread (see `PythonOptions::robot_root`); `None` outside box code.
#[pyfunction]
fn robot_root() -> Option<String> {
    current_state().and_then(|state| state.run.options.robot_root.clone())
}

/// `_choreo.robot_folders()`: each robot folder box code may name, with the folder under
/// the run's root that stands for it (choreo-robot's `paths::FOLDERS`).
#[pyfunction]
fn robot_folders() -> Vec<(&'static str, &'static str)> {
    choreo_robot::paths::FOLDERS
        .iter()
        .map(|f| (f.robot, f.local))
        .collect()
}

/// One import name of NAOqi OS's Python packages for `packages.py`: (name, which OS ships
/// what, the pins to install or `None`, why nothing can be or `None`).
type OsPackage = (
    &'static str,
    String,
    Option<Vec<&'static str>>,
    Option<&'static str>,
);

/// `_choreo.os_packages()`: every name box code imports a package of NAOqi OS by, from
/// choreo-robot's table (`data/python.txt`); the standard library's are left out.
#[pyfunction]
fn os_packages() -> Vec<OsPackage> {
    use choreo_robot::python::{Install, packages, packages_for};
    let mut names: Vec<&'static str> = packages().iter().flat_map(|p| p.imports.clone()).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let all = packages_for(name);
            let shipped = all
                .iter()
                .map(|p| p.shipped())
                .collect::<Vec<_>>()
                .join("; ");
            let pins = all.iter().find_map(|p| match &p.install {
                Install::Pins(pins) => Some(pins.clone()),
                _ => None,
            });
            let why = all.iter().find_map(|p| match p.install {
                Install::Unavailable(why) => Some(why),
                _ => None,
            });
            let stdlib = all.iter().all(|p| p.install == Install::Stdlib);
            (!stdlib).then_some((name, shipped, pins, why))
        })
        .collect()
}

/// `_choreo.packages_folder()`: the cache of NAOqi OS's packages ([`crate::packages`]).
#[pyfunction]
fn packages_folder() -> String {
    crate::packages::packages_folder()
        .to_string_lossy()
        .into_owned()
}

/// `_choreo.install_os_package(name)`: installs NAOqi OS's package imported as `name` into
/// the cache, as choreo's own work: on the helper thread, outside box code's confinement,
/// with the pins of choreo-robot's table ([`crate::packages`]); `None`, or why it could not.
#[pyfunction]
fn install_os_package(py: Python<'_>, name: String) -> Option<String> {
    match current_state() {
        Some(state) => py.detach(|| state.side.install_package(&name)),
        None => py.detach(|| crate::packages::install_outside_a_box(&name)),
    }
}

/// `_choreo.current()`: the box whose code runs on this thread.
#[pyfunction]
fn current() -> Option<BoxApi> {
    current_state().map(|state| BoxApi { state })
}

/// `time.sleep` in box code: behavior time (virtual time jumps over it), without the lock;
/// elsewhere a real sleep.
#[pyfunction]
fn sleep(py: Python<'_>, seconds: f64) -> PyResult<()> {
    sleep_then_now(py, seconds).map(drop)
}

/// `_choreo.sleep`, then `_choreo.now()`, in one question: what a wait that polls asks
/// (`qi.wait_for`), which in a box host is a round trip each.
#[pyfunction]
fn sleep_then_now(py: Python<'_>, seconds: f64) -> PyResult<f64> {
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(PyValueError::new_err(
            "sleep length must be a non-negative number",
        ));
    }
    match current_state() {
        Some(state) => Ok(sleep_in_box(py, state.live()?, seconds).as_secs_f64()),
        None => {
            py.detach(|| std::thread::sleep(Duration::from_secs_f64(seconds)));
            Ok(now())
        }
    }
}

/// Seconds of behavior time in box code (`time.clock`, qi clocks); elsewhere seconds since
/// the process started using the runtime.
#[pyfunction]
fn now() -> f64 {
    match current_state() {
        Some(state) => state.side.now().as_secs_f64(),
        None => {
            static START: OnceLock<Instant> = OnceLock::new();
            START.get_or_init(Instant::now).elapsed().as_secs_f64()
        }
    }
}

fn wall_clock() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `time.time()` in box code: the run's wall clock (its start time plus behavior time, see
/// `choreo_engine::Options::start_time`), so durations measured with it agree with
/// `time.sleep` in virtual time too, and a run in virtual time reads the same dates every
/// time; elsewhere the wall clock.
#[pyfunction]
fn time() -> f64 {
    match current_state() {
        Some(state) => state.clock.start_ms as f64 / 1000.0 + state.side.now().as_secs_f64(),
        None => wall_clock(),
    }
}

/// `_choreo.rng(cls)`: the `random.Random` of the current box's run, made with `cls` (the
/// run's generator class, `generated.py`) and the run's seed (`choreo_engine::Options::seed`)
/// when first asked for: what `random.random()` and the other functions of the `random`
/// module draw from in box code, so that the same seed gives the same numbers. `None`
/// outside box code.
#[pyfunction]
fn rng(py: Python<'_>, cls: Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
    let Some(state) = current_state() else {
        return Ok(None);
    };
    if let Some(rng) = state.run.rng.get() {
        return Ok(Some(rng.clone_ref(py)));
    }
    let made = cls.call1((state.clock.seed,))?.unbind();
    Ok(Some(state.run.rng.get_or_init(|| made).clone_ref(py)))
}

/// `_choreo.draw(of, drew)`: the outcome a whole-number draw among `of` takes, the run's
/// generator having given `drew` (the run may set it: `choreo_engine::chance`); `drew`
/// outside box code.
#[pyfunction]
fn draw(py: Python<'_>, of: u64, drew: u64) -> u64 {
    match current_state() {
        Some(state) if state.is_alive() => py.detach(|| state.side.draw(of, drew)),
        _ => drew,
    }
}

/// `_choreo.pass_turn()`: in virtual time, lets the activities waiting for their turn at
/// this instant run first (see `choreo_engine::Activity::pass_turn`), without the GIL.
#[pyfunction]
fn pass_turn(py: Python<'_>) {
    if let Some(state) = current_state() {
        py.detach(|| state.side.pass_turn());
    }
}

/// Whether the current box runs in virtual time.
#[pyfunction]
fn is_virtual() -> bool {
    current_state().is_some_and(|s| s.clock.virtual_time)
}

/// Runs `function()` on a new thread as work of the current box: counted by the engine so
/// virtual time waits for it; an exception is logged (E2). Without a box: a plain thread.
#[pyfunction]
#[pyo3(signature = (function, name=None))]
fn spawn(py: Python<'_>, function: Py<PyAny>, name: Option<String>) -> PyResult<()> {
    let name = name.unwrap_or_else(|| "choreo-python".to_string());
    let started = match current_state() {
        Some(state) => {
            // A bound on box code's threads (docs/security.md, Bounds): at the limit, an
            // error at the line that starts one, as CPython's own "can't start new thread".
            let running = BOX_THREADS.fetch_add(1, Ordering::SeqCst);
            if running >= BOX_THREADS_MAX {
                BOX_THREADS.fetch_sub(1, Ordering::SeqCst);
                return Err(PyRuntimeError::new_err(format!(
                    "can't start new thread: box code already runs {BOX_THREADS_MAX} threads \
                     (choreo's bound, docs/security.md)"
                )));
            }
            let source = name.clone();
            let confined = choreo_sandbox::landlock::this_thread_confined();
            let side = Arc::clone(&state.side);
            let work = Box::new(move || {
                choreo_sandbox::landlock::inherit(confined);
                call_in_box(&state, &source, |py| function.call0(py).map(drop));
                BOX_THREADS.fetch_sub(1, Ordering::SeqCst);
            });
            let started = py.detach(|| side.spawn(&name, work));
            if started.is_err() {
                BOX_THREADS.fetch_sub(1, Ordering::SeqCst);
            }
            started
        }
        None => std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                Python::attach(|py| {
                    if let Err(e) = function.call0(py) {
                        log_exception(py, &e, None);
                    }
                });
            })
            .map(drop),
    };
    started.map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))
}

/// The threads box code may run at once in the process, all runs together.
pub(crate) const BOX_THREADS_MAX: usize = 256;

/// The threads box code runs now.
static BOX_THREADS: AtomicUsize = AtomicUsize::new(0);

/// A log line for the current box (printed when there is none).
#[pyfunction]
fn log(level: &str, message: &Bound<'_, PyString>) -> PyResult<()> {
    // A flood is cut before it is copied (docs/security.md, Bounds).
    let limit = choreo_engine::context::LOG_LINE_MAX;
    let length = message.len()?;
    let (message, left_out) = if length > limit {
        let head = message.as_any().get_item(pyo3::types::PySlice::new(
            message.py(),
            0,
            limit as isize,
            1,
        ))?;
        let head = text(head.cast::<PyString>()?)?.to_string();
        (head.into(), length - limit)
    } else {
        (text(message)?, 0)
    };
    match current_state() {
        Some(state) if state.is_alive() => state.side.log_cut(level, &message, left_out),
        _ => {
            let _ = writeln!(std::io::stderr(), "choreo-python: {level}: {message}");
        }
    }
    Ok(())
}

/// `_choreo.log_exception(e, uncaught=None)`: reports an exception with its traceback (E2);
/// `uncaught`: what ran the code, when no box code can catch the exception (see
/// [`log_exception`]).
#[pyfunction]
#[pyo3(name = "log_exception", signature = (error, uncaught=None))]
fn log_exception_py(py: Python<'_>, error: Bound<'_, PyAny>, uncaught: Option<String>) {
    log_exception(py, &PyErr::from_value(error), uncaught.as_deref());
}
