//! `choreo.Chat(*paths, lang="enu", seed=0, sandbox=True)`: a conversation with QiChat topics,
//! `.dlg` dialogs or the Dialog boxes of behaviors, as `choreo chat` holds it
//! ([`choreo::chat`]): a teacher's test says a line and reads the robot's answer.

use std::path::PathBuf;
use std::sync::Mutex;

use choreo::chat::{Answer, ChatError, Scripts, Session};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// A conversation: [`Chat::start`] starts the Dialog boxes, [`Chat::hear`] says a line (or
/// raises an event, `e:Key`).
#[pyclass(module = "choreo._native")]
pub(crate) struct Chat {
    session: Mutex<Session>,
    /// The warnings and notices of the topics read.
    #[pyo3(get)]
    warnings: Vec<String>,
}

#[pymethods]
impl Chat {
    #[new]
    #[pyo3(signature = (*paths, lang = "enu", seed = 0, sandbox = true))]
    fn new(paths: &Bound<'_, PyTuple>, lang: &str, seed: u64, sandbox: bool) -> PyResult<Chat> {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.extract()).collect::<PyResult<_>>()?;
        if paths.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "Chat: expected at least one topic, dialog or behavior",
            ));
        }
        let (allowed, scripts) = match sandbox {
            true => (
                Some(choreo::Allowed::default()),
                Scripts::BoxHost(None, None),
            ),
            false => (None, Scripts::Here),
        };
        let mut session = Session::new(seed, &paths, allowed, scripts);
        let mut warnings = Vec::new();
        for path in &paths {
            if let Err(e) = session.add(path, lang, &mut |w| warnings.push(w)) {
                let message = match e {
                    ChatError::Load(m) => m,
                    ChatError::Unsaid => format!("{}: the topic cannot be read", path.display()),
                };
                return Err(Python::attach(|py| -> PyResult<PyErr> {
                    let class = py.import("choreo.errors")?.getattr("LoadError")?;
                    Ok(PyErr::from_value(class.call1((message,))?))
                })
                .unwrap_or_else(|e| e));
            }
        }
        Ok(Chat {
            session: Mutex::new(session),
            warnings,
        })
    }

    /// Starts every Dialog box of the behaviors given (its topic activated, its `onStart`
    /// raised); the answers, each a dict (see [`Chat::hear`]).
    fn start<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut session = choreo_base::lock(&self.session);
        let answers = session.start();
        answers
            .iter()
            .map(|a| answer_dict(py, &session, a))
            .collect()
    }

    /// What the robot answers `line` (`e:Key` raises the event `Key`), then what the memory
    /// events its answers raise answer in turn: each a dict (`text`: what it says, `topic`,
    /// `failed`: a rule matched but had nothing valid to say, `tags`, `shown`: the line
    /// `choreo chat` prints), or None where no rule matches.
    fn hear<'py>(&self, py: Python<'py>, line: &str) -> PyResult<Vec<Option<Bound<'py, PyDict>>>> {
        let mut session = choreo_base::lock(&self.session);
        let answers = session.hear(line);
        answers
            .iter()
            .map(|a| a.as_ref().map(|a| answer_dict(py, &session, a)).transpose())
            .collect()
    }
}

fn answer_dict<'py>(
    py: Python<'py>,
    session: &Session,
    a: &Answer,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("text", &a.text)?;
    d.set_item("topic", &a.topic)?;
    d.set_item("failed", a.failed)?;
    d.set_item("tags", &a.tags)?;
    d.set_item("shown", session.show(Some(a)))?;
    Ok(d)
}
