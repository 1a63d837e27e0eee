//! `choreo.explore(path, ...)`: `choreo explore`'s search ([`choreo::explore`]) for a
//! program or a test (a course's CI asserting "no fault on any path, coverage ≥ N%"); the
//! result as the dict `choreo explore --json` prints.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::py_error;

/// Explores the behavior at `path` (`behavior`: which of a project's) within the bounds:
/// `max_paths` paths, `depth` inputs a path, `time` seconds of real time, `timeout` seconds
/// of behavior time past a path's last input, `jobs` paths at once (default: the cores).
/// Returns the JSON's dict (docs/explore.md): `paths`, `complete`, `boxes`, `entered`,
/// `loaded`, `rules_matched`, `rules_unmatched`, `unproduced`, `faults` (each with its
/// `steps`). The GIL is free while the paths run.
#[pyfunction]
#[pyo3(signature = (path, behavior = None, max_paths = 200, depth = 6, time = 30.0, timeout = 60.0, jobs = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn explore<'py>(
    py: Python<'py>,
    path: PathBuf,
    behavior: Option<String>,
    max_paths: usize,
    depth: usize,
    time: f64,
    timeout: f64,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let seconds = |s: f64, what: &str| {
        (s.is_finite() && s > 0.0)
            .then(|| Duration::from_secs_f64(s))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "explore: {what} must be a positive number of seconds"
                ))
            })
    };
    let defaults = choreo::explore::Options::default();
    let options = choreo::explore::Options {
        max_paths: max_paths.max(1),
        depth,
        time: seconds(time, "time")?,
        horizon: seconds(timeout, "timeout")?,
        jobs: jobs.unwrap_or(defaults.jobs).max(1),
    };
    let setup = choreo::Project::open(&path)
        .and_then(|p| p.behavior(behavior.as_deref()))
        .map_err(py_error)?;
    let found = py
        .detach(move || choreo::explore::explore(&setup, &options))
        .map_err(py_error)?;
    let json = serde_json::to_string(&found).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (json,))
}
