//! The script host: each box script runs in its own namespace, its `MyClass` is constructed
//! at load (R1), and its hooks are called on the engine's workers with the interpreter lock
//! taken only while Python runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use choreo_engine::graph::BoxNode;
use choreo_engine::{BoxCode, BoxContext, Hook, ScriptError, ScriptHost, Value};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::api::BoxApi;
use crate::box_state::{BoxState, Entered, PythonOptions, Run};
use crate::convert::to_python;
use crate::runtime::runtime;
use crate::side::{BoxInfo, ClockFacts, EngineSide};

/// Runs box scripts in the embedded CPython. One per behavior run.
pub struct PythonHost {
    run: Arc<Run>,
    /// Scripts fixed by [`ScriptHost::prepare`]: original text → fixed text, each taken by
    /// the first box constructed with it.
    prepared: Mutex<HashMap<String, String>>,
}

impl PythonHost {
    /// A host for one run (starts the interpreter if it is not running yet).
    pub fn new(options: PythonOptions) -> PythonHost {
        let (modules, shared) = Python::attach(|py| {
            let modules = py
                .import("weakref")
                .and_then(|w| w.getattr("WeakValueDictionary")?.call0())
                .map_or_else(|_| PyDict::new(py).into_any().unbind(), Bound::unbind);
            (modules, PyDict::new(py).unbind())
        });
        PythonHost {
            run: Arc::new(Run {
                options,
                boxes: Mutex::new(HashMap::new()),
                modules,
                events: Mutex::new(HashMap::new()),
                rng: OnceLock::new(),
                shared,
            }),
            prepared: Mutex::new(HashMap::new()),
        }
    }
}

impl ScriptHost for PythonHost {
    fn generated_code(&self, def: &choreo_xar::BoxDef) -> Option<String> {
        crate::plugins::generated_code(def)
    }

    fn prepare(&self, graph: &choreo_engine::graph::Graph) {
        self.prepare_scripts(
            graph
                .boxes
                .iter()
                .map(|n| (n.code.as_str(), n.path.as_str())),
        );
    }

    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, ScriptError> {
        let made = self.make_box(
            Arc::new(crate::side::Local(ctx.clone())),
            crate::side::BoxInfo::of(node, ctx.id().0),
            crate::side::clock_of(ctx),
        )?;
        Ok(Arc::new(made))
    }
}

impl PythonHost {
    /// Fixes and compiles, in one batch, the scripts (text, box path) of the boxes about
    /// to be constructed.
    pub(crate) fn prepare_scripts<'a>(&self, scripts: impl Iterator<Item = (&'a str, &'a str)>) {
        let mut prepared = choreo_base::lock(&self.prepared);
        prepared.clear();
        let mut items = Vec::new();
        for (code, path) in scripts {
            if code.trim().is_empty() || prepared.contains_key(code) {
                continue;
            }
            let fixed = crate::fixer::fix(code);
            items.push((fixed.clone(), path.to_string()));
            prepared.insert(code.to_string(), fixed);
        }
        drop(prepared);
        // A failure here only loses the head start: construct compiles and reports.
        let _ = Python::attach(|py| -> PyResult<()> {
            let rt = runtime(py).map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
            rt.precompile.call1(py, (items,))?;
            Ok(())
        });
    }

    /// Constructs a box (R1): its script run in its own namespace, its `MyClass` made.
    pub(crate) fn make_box(
        &self,
        side: Arc<dyn EngineSide>,
        info: BoxInfo,
        clock: ClockFacts,
    ) -> Result<PythonBox, ScriptError> {
        let state = Arc::new(BoxState::new(side, info, clock, Arc::clone(&self.run)));
        choreo_base::lock(&self.run.boxes).insert(state.name.clone(), Arc::downgrade(&state));
        let code = state.info.code.as_str();
        if code.trim().is_empty() {
            return Ok(PythonBox {
                state,
                script: None,
            });
        }
        let prepared = choreo_base::lock(&self.prepared).remove(code);
        let fixed = prepared.unwrap_or_else(|| crate::fixer::fix(code));
        let _entered = Entered::new(Arc::clone(&state));
        let script = Python::attach(|py| -> Result<Option<Script>, ScriptError> {
            // The load thread constructs every box: one thread state for all (thread.rs).
            crate::thread::keep(py);
            let rt = runtime(py)?;
            let api = Py::new(
                py,
                BoxApi {
                    state: Arc::clone(&state),
                },
            )
            .map_err(|e| ScriptError::new(e.to_string()))?;
            let made = rt
                .construct
                .call1(py, (api, code, fixed))
                .map_err(|e| script_error(py, &e))?;
            let (namespace, instance, optional): (Py<PyDict>, Py<PyAny>, Vec<String>) =
                made.extract(py).map_err(|e| script_error(py, &e))?;
            let inputs = state
                .info
                .inputs
                .iter()
                .map(|name| {
                    let hook = format!("onInput_{name}");
                    (name.as_str().into(), PyString::intern(py, &hook).unbind())
                })
                .collect();
            Ok((!instance.is_none(py)).then_some(Script {
                _namespace: namespace,
                instance,
                optional,
                inputs,
            }))
        })?;
        Ok(PythonBox { state, script })
    }
}

/// The text of a Python error: its message (construct already formats a traceback).
fn message(py: Python<'_>, e: &PyErr) -> String {
    e.value(py)
        .str()
        .map_or_else(|_| e.to_string(), |s| s.to_string())
}

/// A Python error as a [`ScriptError`]: its message, and the line of the box script at fault
/// when `generated.construct` gave it (`choreo_line`).
fn script_error(py: Python<'_>, e: &PyErr) -> ScriptError {
    let error = ScriptError::new(message(py, e));
    let line = e
        .value(py)
        .getattr(intern!(py, "choreo_line"))
        .ok()
        .and_then(|l| l.extract::<Option<u32>>().ok())
        .flatten();
    match line {
        Some(line) => error.at_line(line),
        None => error,
    }
}

/// A box instance: its engine handle and, if its script defines `MyClass`, the instance.
pub(crate) struct PythonBox {
    state: Arc<BoxState>,
    script: Option<Script>,
}

/// A constructed script.
struct Script {
    /// The module dict the script ran in (kept alive with the box).
    _namespace: Py<PyDict>,
    instance: Py<PyAny>,
    /// Optional hooks it defines (see [`BoxCode::defines`]).
    optional: Vec<String>,
    /// Each input's name and its hook's name (`onInput_<name>`) as a Python string, made
    /// once rather than on every call.
    inputs: Vec<(choreo_engine::PortName, Py<PyString>)>,
}

impl Script {
    /// The script name of `hook` as a Python string.
    fn hook_name<'py>(&self, py: Python<'py>, hook: &Hook) -> Bound<'py, PyString> {
        match hook {
            Hook::Load => intern!(py, "onLoad").clone(),
            Hook::Unload => intern!(py, "onUnload").clone(),
            Hook::Input { name, .. } => match self.inputs.iter().find(|(n, _)| n == name) {
                Some((_, hook)) => hook.bind(py).clone(),
                None => PyString::new(py, &hook.script_name()),
            },
            _ => PyString::new(py, &hook.script_name()),
        }
    }
}

impl BoxCode for PythonBox {
    fn call(&self, hook: &Hook, _ctx: &BoxContext) -> Result<(), ScriptError> {
        self.run_hook(hook)
    }

    fn defines(&self, hook: &Hook) -> bool {
        let name = hook.script_name();
        self.optional().contains(&name)
    }

    fn runs_inline(&self) -> bool {
        // No MyClass: every hook returns at once.
        self.script.is_none()
    }
}

impl PythonBox {
    /// Whether its script defines `MyClass` (else every hook returns at once).
    pub(crate) fn has_script(&self) -> bool {
        self.script.is_some()
    }

    /// The optional hooks its script defines (see [`BoxCode::defines`]).
    pub(crate) fn optional(&self) -> &[String] {
        self.script.as_ref().map_or(&[], |s| s.optional.as_slice())
    }

    /// Runs `hook`; an `Err` is an exception escaping it (E1).
    pub(crate) fn run_hook(&self, hook: &Hook) -> Result<(), ScriptError> {
        let Some(script) = &self.script else {
            return Ok(());
        };
        let resource;
        let value = match hook {
            Hook::Input { value, .. } => Some(value),
            Hook::Resource { name } => {
                resource = Value::String(name.clone());
                Some(&resource)
            }
            _ => None,
        };
        let _entered = Entered::new(Arc::clone(&self.state));
        Python::attach(|py| {
            crate::thread::keep(py);
            let rt = runtime(py)?;
            let argument = match value {
                Some(v) => to_python(py, v).map_err(|e| script_error(py, &e))?,
                None => py.None().into_bound(py),
            };
            let failed = rt
                .run_hook
                .call1(
                    py,
                    (
                        script.instance.bind(py),
                        script.hook_name(py, hook),
                        argument,
                        value.is_some(),
                    ),
                )
                .map_err(|e| script_error(py, &e))?;
            match failed.extract::<Option<(String, Option<u32>)>>(py) {
                Ok(None) => Ok(()),
                Ok(Some((text, None))) => Err(ScriptError::new(text)),
                Ok(Some((text, Some(line)))) => Err(ScriptError::new(text).at_line(line)),
                Err(e) => Err(script_error(py, &e)),
            }
        })
    }
}

impl Drop for PythonBox {
    fn drop(&mut self) {
        self.state.close();
    }
}
