//! `choreo.load_fleet(path, robots, ...)`: one behavior on several robots, its timelines
//! started together ([`choreo::fleet::Fleet`], what `choreo run --robot A --robot B` does),
//! each robot's run a `choreo.Run`.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{
    DEFAULT_WAIT, Held, Options, Progress, Run, caught_up, ending_object, py_error, robot_at,
    seconds, setup_of,
};

/// A behavior loaded on several robots (`choreo.Fleet`): see `choreo/_native.pyi`.
#[pyclass(module = "choreo._native", frozen)]
pub(crate) struct Fleet {
    fleet: Held<choreo::fleet::Fleet>,
    runs: Vec<Py<Run>>,
}

#[pymethods]
impl Fleet {
    /// Each robot's run, in the order of `robots`.
    #[getter]
    fn runs(&self, py: Python<'_>) -> Vec<Py<Run>> {
        self.runs.iter().map(|r| r.clone_ref(py)).collect()
    }

    /// Starts the behavior on every robot at once.
    fn start(&self) -> PyResult<()> {
        self.fleet.get()?.start().map_err(py_error)
    }

    /// Waits at most `timeout` seconds for every run's end: a `choreo.Ending` per robot. A
    /// run that ends is no longer waited for at the others' timeline starts.
    #[pyo3(signature = (timeout = DEFAULT_WAIT))]
    fn wait_end<'py>(&self, py: Python<'py>, timeout: f64) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let limit = seconds(timeout)?;
        let fleet = self.fleet.get()?;
        let observers: Vec<Arc<Progress>> =
            self.runs.iter().flat_map(|r| r.get().progress()).collect();
        let endings = py
            .detach(|| {
                let endings = fleet.wait_end(limit);
                caught_up(&observers);
                endings
            })
            .map_err(py_error)?;
        endings.iter().map(|e| ending_object(py, e)).collect()
    }

    /// The report's lines on the network and the starts: each robot's delay and clock, how
    /// far apart the timelines started.
    fn report(&self) -> PyResult<Vec<String>> {
        Ok(self.fleet.get()?.report())
    }

    /// How many timeline starts had every running robot at the rendezvous.
    #[getter]
    fn together(&self) -> PyResult<u64> {
        Ok(self.fleet.get()?.counts().0)
    }

    /// How many timeline starts went without some robot (it never came within the wait).
    #[getter]
    fn partial(&self) -> PyResult<u64> {
        Ok(self.fleet.get()?.counts().1)
    }

    /// Closes every run (`Run.close`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        for run in &self.runs {
            run.get().close(py)?;
        }
        let fleet = self.fleet.get()?;
        py.detach(|| fleet.close());
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
}

/// `choreo.load_fleet(path, robots, ...)`: sets up `behavior` of `path` once, then loads it
/// on each robot of `robots` (qi URLs).
#[pyfunction]
#[pyo3(signature = (path, robots, behavior = None, *, user = None, token = None, model = None,
    timeout = None, strict = false, params = None, language = None, seed = None,
    start_time = None, sandbox = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn load_fleet(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    robots: Vec<String>,
    behavior: Option<String>,
    user: Option<String>,
    token: Option<String>,
    model: Option<String>,
    timeout: Option<f64>,
    strict: bool,
    params: Option<&Bound<'_, PyDict>>,
    language: Option<String>,
    seed: Option<u64>,
    start_time: Option<String>,
    sandbox: Option<&Bound<'_, PyAny>>,
) -> PyResult<Fleet> {
    if robots.is_empty() {
        return Err(PyValueError::new_err(
            "load_fleet: expected the robots' URLs (tcp://host:9559, ...)",
        ));
    }
    let options = Options {
        model,
        timeout,
        strict,
        params,
        language,
        seed,
        start_time,
        sandbox: crate::allowed(sandbox)?,
    };
    let setup = setup_of(py, path, behavior.as_deref(), options)?;
    let setups = robots
        .into_iter()
        .map(|url| {
            setup
                .clone()
                .target(robot_at(url, user.clone(), token.clone()))
        })
        .collect();
    // Box constructors run Python on the engine's threads: the GIL must be free meanwhile.
    let fleet = py
        .detach(move || choreo::fleet::Fleet::load(setups))
        .map_err(py_error)?;
    let runs = fleet
        .runs()
        .iter()
        .map(|r| Py::new(py, Run::of(Arc::clone(r))))
        .collect::<PyResult<_>>()?;
    Ok(Fleet {
        fleet: Held::new(fleet),
        runs,
    })
}
