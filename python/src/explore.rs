//! `choreo.explore(path, ...)`: `choreo explore`'s search ([`choreo::explore`]) for a
//! program or a test (a course's CI asserting "no fault on any path, coverage ≥ N%"); the
//! result as the dict `choreo explore --json` prints. With an `executor` (any
//! `concurrent.futures.Executor`: a process pool, Dask's, Ray's), each path runs where the
//! executor sends it, as `choreo._native.explore_path`, and comes back as JSON; the search
//! stays here.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use choreo::explore::{Ran, Step};

use crate::py_error;

fn seconds(s: f64, what: &str) -> PyResult<Duration> {
    (s.is_finite() && s > 0.0)
        .then(|| Duration::from_secs_f64(s))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "explore: {what} must be a positive number of seconds"
            ))
        })
}

fn open(path: &PathBuf, behavior: Option<&str>) -> PyResult<choreo::Setup> {
    choreo::Project::open(path)
        .and_then(|p| p.behavior(behavior))
        .map_err(py_error)
}

/// Explores the behavior at `path` (`behavior`: which of a project's) within the bounds:
/// `max_paths` paths, `depth` inputs a path, `time` seconds of real time, `timeout` seconds
/// of behavior time past a path's last input, `jobs` paths at once (default: the cores; with
/// an executor, the paths handed to it at once). Returns the JSON's dict (docs/explore.md):
/// `paths`, `complete`, `boxes`, `entered`, `loaded`, `rules_matched`, `rules_unmatched`,
/// `unproduced`, `faults` (each with its `steps`). With `journal` (a file), the paths it
/// holds are not run again and the others are written down: an exploration resumed
/// (`choreo explore --resume`). The GIL is free while the paths run.
#[pyfunction]
#[pyo3(signature = (path, behavior = None, max_paths = 200, depth = 6, time = 30.0, timeout = 60.0, jobs = None, executor = None, journal = None))]
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
    executor: Option<Py<PyAny>>,
    journal: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let defaults = choreo::explore::Options::default();
    let options = choreo::explore::Options {
        max_paths: max_paths.max(1),
        depth,
        time: seconds(time, "time")?,
        horizon: seconds(timeout, "timeout")?,
        jobs: jobs.unwrap_or(defaults.jobs).max(1),
    };
    let setup = open(&path, behavior.as_deref())?;
    let journal = journal
        .map(|j| choreo::explore::Journal::open(&j, &setup, options.horizon, true))
        .transpose()
        .map_err(py_error)?;
    let found = py
        .detach(move || match (executor, &journal) {
            (None, None) => choreo::explore::explore(&setup, &options),
            (None, Some(j)) => choreo::explore::explore_resuming(&setup, &options, j),
            (Some(executor), journal) => {
                let runner = |batch: &[Vec<Step>]| {
                    Python::attach(|py| {
                        hand_out(py, &executor, &path, behavior.as_deref(), timeout, batch)
                    })
                };
                match journal {
                    Some(j) => choreo::explore::explore_with(&setup, &options, &|batch| {
                        j.run(batch, runner)
                    }),
                    None => choreo::explore::explore_with(&setup, &options, &runner),
                }
            }
        })
        .map_err(py_error)?;
    let json = serde_json::to_string(&found).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (json,))
}

/// Submits each path of `batch` to `executor` (`submit(explore_path, ...)`), then reads
/// each result in order; an executor or worker error is that path's.
fn hand_out(
    py: Python<'_>,
    executor: &Py<PyAny>,
    path: &PathBuf,
    behavior: Option<&str>,
    timeout: f64,
    batch: &[Vec<Step>],
) -> Vec<choreo::Result<Ran>> {
    let failed = |e: PyErr| choreo::Error::Executor(e.to_string());
    let submitted: Vec<PyResult<Bound<'_, PyAny>>> = batch
        .iter()
        .map(|steps| {
            let steps =
                serde_json::to_string(steps).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let run = py.import("choreo._native")?.getattr("explore_path")?;
            executor
                .bind(py)
                .call_method1("submit", (run, path, behavior, steps, timeout))
        })
        .collect();
    submitted
        .into_iter()
        .map(|future| {
            let text: String = future
                .and_then(|f| f.call_method0("result")?.extract())
                .map_err(failed)?;
            serde_json::from_str(&text).map_err(|e| choreo::Error::Executor(e.to_string()))
        })
        .collect()
}

/// Runs one path of an exploration (its inputs as JSON, `choreo explore --json`'s `steps`
/// form) and returns what it showed as JSON: what `explore(..., executor=...)` hands to an
/// executor's workers, which need `choreo` installed and the behavior at `path`.
#[pyfunction]
#[pyo3(signature = (path, behavior, steps, timeout))]
pub(crate) fn explore_path(
    py: Python<'_>,
    path: PathBuf,
    behavior: Option<String>,
    steps: &str,
    timeout: f64,
) -> PyResult<String> {
    let steps: Vec<Step> = serde_json::from_str(steps)
        .map_err(|e| PyValueError::new_err(format!("explore_path: {e}")))?;
    let horizon = seconds(timeout, "timeout")?;
    let setup = open(&path, behavior.as_deref())?;
    let ran = py
        .detach(move || choreo::explore::path::run(&setup, &steps, horizon))
        .map_err(py_error)?;
    serde_json::to_string(&ran).map_err(|e| PyValueError::new_err(e.to_string()))
}
