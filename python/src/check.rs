//! `choreo.check(*paths, body=False, cache=False)`: `choreo check`'s pipeline
//! ([`choreo::check`]) for a program or a test, each file's result as the dict
//! `choreo check --json` prints for it.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::py_error;

/// Checks the files below `paths` without running them; one dict per file, in order: `file`,
/// `kind`, `status` ("ok", "warning", "error"), `summary`, `diagnostics` (each with
/// `severity`, `kind`, `file`, `line`, `column`, `element_path`, `message`), and `body` with
/// `body=True`. The GIL is free while the files are checked (box scripts are compiled on
/// other threads).
#[pyfunction]
#[pyo3(signature = (*paths, body = false, cache = false))]
pub(crate) fn check<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyTuple>,
    body: bool,
    cache: bool,
) -> PyResult<Bound<'py, PyList>> {
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.extract()).collect::<PyResult<_>>()?;
    if paths.is_empty() {
        return Err(PyValueError::new_err(
            "check: expected at least one path (a file or a folder)",
        ));
    }
    let files = choreo::check::files(&paths).map_err(py_error)?;
    let options = choreo::check::Options { body, cache };
    let checked = py.detach(move || choreo::check::check(&files, options, &|| {}));
    let json = py.import("json")?;
    let list = PyList::empty(py);
    for file in checked {
        list.append(json.call_method1("loads", (file.json.to_string(),))?)?;
    }
    Ok(list)
}
