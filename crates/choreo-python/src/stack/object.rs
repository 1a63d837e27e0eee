//! A Python behavior's Python side: its object made from a `.py` file, a hook called with a
//! fresh `cx` ([`HookContext`]) whose every request goes through a [`Link`] to the runner.
//! The same code runs on a thread of choreo's (`--sandbox=threads`, `--no-sandbox`) and in
//! the box host; only the link differs.

use std::path::Path;
use std::sync::Mutex;

use choreo_engine::Value;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::talk::{Declared, HookAnswer, HookRequest, Hooked, Link, State};
use crate::convert::{Foreign, from_python, to_python};

/// An instance of class `class` of the module `source` (the text of `file`), made with
/// `params` as keyword arguments (a map; `Value::None`: none), and what it declares; or why
/// not (the exception's traceback, or what is missing).
pub(crate) fn make(
    file: &Path,
    class: &str,
    params: &Value,
    source: &str,
) -> Result<(Py<PyAny>, Declared), String> {
    Python::attach(|py| {
        let traced = |e: PyErr| traceback(py, &e);
        let name = format!(
            "choreo_stack_{}",
            file.file_stem()
                .map(|s| s
                    .to_string_lossy()
                    .replace(|c: char| !c.is_alphanumeric(), "_"))
                .unwrap_or_default()
        );
        let c = |s: &str| std::ffi::CString::new(s).map_err(|e| e.to_string());
        let module = PyModule::from_code(
            py,
            &c(source)?,
            &c(&file.display().to_string())?,
            &c(&name)?,
        )
        .map_err(traced)?;
        let cls = module
            .getattr(class)
            .map_err(|_| format!("no class {class:?} in it"))?;
        let kwargs = PyDict::new(py);
        if let Value::Map(pairs) = params {
            for (k, v) in pairs {
                kwargs
                    .set_item(
                        to_python(py, k).map_err(traced)?,
                        to_python(py, v).map_err(traced)?,
                    )
                    .map_err(traced)?;
            }
        }
        let object = cls.call((), Some(&kwargs)).map_err(traced)?;
        let names = |method: &str| -> Result<Vec<String>, String> {
            match object.getattr(method) {
                Ok(m) if m.is_callable() => m.call0().and_then(|v| v.extract()).map_err(traced),
                Ok(v) => v.extract().map_err(traced),
                Err(_) => Ok(Vec::new()),
            }
        };
        let declared = Declared {
            delegates: names("delegates")?,
            linked: names("linked")?,
            always_delegates: object
                .getattr("always_delegates")
                .and_then(|v| v.is_truthy())
                .unwrap_or(true),
            subscriptions: names("subscriptions")?,
        };
        Ok((object.unbind(), declared))
    })
}

/// Whether `object` has a method `name` (a hook it lacks is not called: no thread, no `cx`).
pub(crate) fn has(object: &Py<PyAny>, name: &str) -> bool {
    Python::attach(|py| object.bind(py).hasattr(name).unwrap_or(false))
}

/// Calls method `name` of `object` with a fresh `cx` (and `args` after it) whose requests
/// go through `link`; the context ends with the call, kept by the script or not.
pub(crate) fn call(object: &Py<PyAny>, name: &str, args: &[Value], link: Link) -> Hooked {
    Python::attach(|py| {
        let object = object.bind(py);
        if !object.hasattr(name).unwrap_or(false) {
            return Hooked::Missing;
        }
        let called = || -> Result<Value, String> {
            let cx = Bound::new(
                py,
                HookContext {
                    link: Mutex::new(Some(link)),
                },
            )
            .map_err(|e| traceback(py, &e))?;
            let mut call_args = vec![cx.clone().into_any()];
            for a in args {
                call_args.push(to_python(py, a).map_err(|e| traceback(py, &e))?);
            }
            let tuple = PyTuple::new(py, call_args).map_err(|e| traceback(py, &e))?;
            let returned = object
                .call_method1(name, tuple)
                .map_err(|e| traceback(py, &e));
            if let Ok(mut link) = cx.borrow().link.lock() {
                *link = None;
            }
            from_python(&returned?, Foreign::Text).map_err(|e| traceback(py, &e))
        };
        match called() {
            Ok(v) => Hooked::Returned(v),
            Err(traceback) => Hooked::Raised(traceback),
        }
    })
}

/// The text of a Python exception with its traceback.
fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = py
        .import("traceback")
        .and_then(|tb| {
            tb.getattr("format_exception")?
                .call1((e.get_type(py), e.value(py), e.traceback(py)))
        })
        .and_then(|lines| lines.extract::<Vec<String>>());
    match formatted {
        Ok(lines) => lines.concat().trim_end().to_string(),
        Err(_) => e.to_string(),
    }
}

/// `cx`, as a Python behavior's hook gets it: the runner API for this one call.
#[pyclass(module = "choreo_stack", name = "Context")]
struct HookContext {
    /// The way to the runner; `None` once the hook returned.
    link: Mutex<Option<Link>>,
}

impl HookContext {
    /// Sends `request` and waits for the answer, without the GIL (the runner may call
    /// another Python behavior's hook meanwhile), the lock taken without it too.
    fn ask(&self, py: Python<'_>, request: HookRequest) -> PyResult<HookAnswer> {
        let answer = py.detach(|| {
            let mut link = self
                .link
                .lock()
                .map_err(|_| "the context is broken".to_string())?;
            let Some(link) = link.as_mut() else {
                return Err("this context belongs to a hook that has returned".to_string());
            };
            link(request).ok_or_else(|| "the runner is gone".to_string())
        });
        answer.map_err(PyRuntimeError::new_err)
    }

    fn unit(&self, py: Python<'_>, request: HookRequest) -> PyResult<()> {
        match self.ask(py, request)? {
            HookAnswer::Unit(Ok(())) => Ok(()),
            HookAnswer::Unit(Err(why)) => Err(PyRuntimeError::new_err(why)),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    fn value(&self, py: Python<'_>, request: HookRequest) -> PyResult<Value> {
        match self.ask(py, request)? {
            HookAnswer::Value(Ok(v)) => Ok(v),
            HookAnswer::Value(Err(why)) => Err(PyRuntimeError::new_err(why)),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    fn state(&self, py: Python<'_>) -> PyResult<State> {
        match self.ask(py, HookRequest::State)? {
            HookAnswer::State(s) => Ok(s),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }
}

/// Arguments from Python as values (anything else: its text).
fn values(args: &Bound<'_, PyTuple>) -> PyResult<Vec<Value>> {
    args.iter()
        .map(|a| from_python(&a, Foreign::Refuse))
        .collect()
}

#[pymethods]
impl HookContext {
    /// Whether behavior `name` wants to be activated (it must be in scope).
    fn wants(&self, py: Python<'_>, name: String) -> PyResult<bool> {
        Ok(matches!(
            self.value(py, HookRequest::Wants(name))?,
            Value::Bool(true)
        ))
    }

    /// Hands control to `name`; `callback`: a token for `on_delegation_done`. Raises
    /// `RuntimeError` with the reason when refused.
    #[pyo3(signature = (name, callback=None))]
    fn delegate(&self, py: Python<'_>, name: String, callback: Option<u64>) -> PyResult<()> {
        self.unit(py, HookRequest::Delegate(name, callback))
    }

    /// Runs `service.method(*args)` on the robot as an action (posted, watched until it
    /// ends); `callback`: a token for `on_delegation_done`.
    #[pyo3(signature = (service, method, *args, callback=None))]
    fn run(
        &self,
        py: Python<'_>,
        service: String,
        method: String,
        args: &Bound<'_, PyTuple>,
        callback: Option<u64>,
    ) -> PyResult<()> {
        self.unit(
            py,
            HookRequest::Run(service, method, values(args)?, callback),
        )
    }

    /// Calls `service.method(*args)` on the robot and returns its result.
    #[pyo3(signature = (service, method, *args))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        service: String,
        method: String,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.value(py, HookRequest::Call(service, method, values(args)?))?;
        to_python(py, &v)
    }

    /// Cancels what it delegated; whether anything was.
    #[pyo3(signature = (allow_callback=false))]
    fn cancel_delegates(&self, py: Python<'_>, allow_callback: bool) -> PyResult<bool> {
        match self.ask(py, HookRequest::CancelDelegates(allow_callback))? {
            HookAnswer::Bool(b) => Ok(b),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    /// Leaves the stack; `failure`: its delegator's callback gets a failure with this text.
    #[pyo3(signature = (failure=None))]
    fn cancel_self(&self, py: Python<'_>, failure: Option<String>) -> PyResult<()> {
        self.unit(py, HookRequest::CancelSelf(failure))
    }

    /// Writes `text` in the stack's trace (`level`: info, warning, error).
    #[pyo3(signature = (text, level="info"))]
    fn log(&self, py: Python<'_>, text: String, level: &str) -> PyResult<()> {
        self.ask(py, HookRequest::Log(level.to_string(), text))
            .map(|_| ())
    }

    /// Whether it is activated (on the stack).
    fn is_activated(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.state(py)?.activated)
    }

    /// Whether it handed control on (a delegate above it, or an action of its own).
    fn is_control_delegated(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.state(py)?.delegated)
    }

    /// Whether it is the top of the stack.
    fn can_delegate(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.state(py)?.can_delegate)
    }

    /// The tick.
    #[getter]
    fn tick(&self, py: Python<'_>) -> PyResult<u64> {
        Ok(self.state(py)?.tick)
    }

    /// The stack's time, in seconds.
    #[getter]
    fn now(&self, py: Python<'_>) -> PyResult<f64> {
        Ok(self.state(py)?.now)
    }

    /// This tick's inputs, as `(name, value)` pairs.
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
        self.state(py)?
            .inputs
            .iter()
            .map(|(n, v)| Ok((n.clone(), to_python(py, v)?)))
            .collect()
    }
}
