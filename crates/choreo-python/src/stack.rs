//! Behaviors of the behavior stack written in Python: a class in a `.py` file with the
//! methods of [`choreo_stack::Behavior`] (`update(self, cx)`, `wants_to_be_activated(self,
//! cx)`, ...), each given a context object with the runner API (`cx.delegate("Child")`,
//! `cx.cancel_self()`, `cx.run("ALTextToSpeech", "say", "hi")`, ...).
//!
//! A hook's context lends the runner to the hook for the length of the call, and no longer,
//! without unsafe code: the Python method runs on a scoped thread, while the calling thread
//! keeps the runner's `Context` and answers the requests that the method's `cx` sends it, one
//! at a time, until the method returns. A request that runs another Python behavior's hook
//! (`cx.wants("B")`) does the same one level down. The waiting thread gives up the GIL, so the
//! nested hook can take it.

use crossbeam_channel::{Receiver, Sender, unbounded as channel};
use std::path::Path;
use std::sync::{Arc, Mutex};

use choreo_engine::Value;
use choreo_stack::builtins::robot::RobotCall;
use choreo_stack::{Behavior, Completed, Context, StackError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::confinement::Confinement;
use crate::convert::{Foreign, from_python, to_python};
use crate::project_code::{confined_run, judge_this_thread};

/// A request of a hook's `cx` to the runner.
enum Request {
    Wants(String),
    Delegate(String, Option<u64>),
    Run(RobotCall, Option<u64>),
    CancelDelegates(bool),
    CancelSelf(Completed),
    Call(String, String, Vec<Value>),
    Log(String, String),
    State,
    /// The hook returned (with its value) or raised (with the traceback).
    Done(Result<Value, String>),
}

/// The runner's answer.
enum Answer {
    Bool(bool),
    Unit(Result<(), String>),
    Value(Result<Value, String>),
    State(State),
}

/// What `cx` reports of the behavior and the world.
#[derive(Clone)]
struct State {
    tick: u64,
    now: f64,
    activated: bool,
    delegated: bool,
    can_delegate: bool,
    inputs: Vec<(String, Value)>,
}

/// A behavior whose hooks are the methods of a Python object.
pub struct PythonBehavior {
    object: Py<PyAny>,
    label: String,
    delegates: Vec<String>,
    linked: Vec<String>,
    always_delegates: bool,
    subscriptions: Vec<String>,
    /// The project's code is confined as box code (docs/security.md); `None`: unconfined.
    confinement: Option<Arc<Confinement>>,
}

/// Why a Python behavior cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PythonBehaviorError {
    /// The `.py` file.
    pub file: String,
    /// What went wrong (the exception's traceback, or what is missing).
    pub message: String,
}

impl PythonBehaviorError {
    fn of(file: &Path, message: String) -> PythonBehaviorError {
        PythonBehaviorError {
            file: file.display().to_string(),
            message,
        }
    }
}

impl PythonBehavior {
    /// An instance of class `class` of the Python file `file`, made with `params` as keyword
    /// arguments (a map; `Value::None`: none). What the instance declares (`delegates()`,
    /// `linked()`, `always_delegates`, `subscriptions`) is read once, here. Under a
    /// `confinement`, its code (the module, the constructor, each hook) runs confined.
    pub fn load(
        file: &Path,
        class: &str,
        params: &Value,
        confinement: Option<Arc<Confinement>>,
    ) -> Result<PythonBehavior, PythonBehaviorError> {
        let error = |message: String| PythonBehaviorError::of(file, message);
        let source =
            std::fs::read_to_string(file).map_err(|e| error(format!("cannot read: {e}")))?;
        let made = confined_run(confinement.as_ref(), || {
            Self::made(file, class, params, &source, confinement.clone())
        });
        made.unwrap_or_else(|e| Err(error(e.to_string())))
    }

    /// [`Self::load`]'s Python part, on the thread it runs on.
    fn made(
        file: &Path,
        class: &str,
        params: &Value,
        source: &str,
        confinement: Option<Arc<Confinement>>,
    ) -> Result<PythonBehavior, PythonBehaviorError> {
        let error = |message: String| PythonBehaviorError::of(file, message);
        Python::attach(|py| {
            let traced = |e: PyErr| error(traceback(py, &e));
            let name = format!(
                "choreo_stack_{}",
                file.file_stem()
                    .map(|s| s
                        .to_string_lossy()
                        .replace(|c: char| !c.is_alphanumeric(), "_"))
                    .unwrap_or_default()
            );
            let c = |s: &str| std::ffi::CString::new(s).map_err(|e| error(e.to_string()));
            let module = PyModule::from_code(
                py,
                &c(source)?,
                &c(&file.display().to_string())?,
                &c(&name)?,
            )
            .map_err(traced)?;
            let cls = module
                .getattr(class)
                .map_err(|_| error(format!("no class {class:?} in it")))?;
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
            let names = |method: &str| -> Result<Vec<String>, PythonBehaviorError> {
                match object.getattr(method) {
                    Ok(m) if m.is_callable() => m.call0().and_then(|v| v.extract()).map_err(traced),
                    Ok(v) => v.extract().map_err(traced),
                    Err(_) => Ok(Vec::new()),
                }
            };
            Ok(PythonBehavior {
                label: class.to_string(),
                delegates: names("delegates")?,
                linked: names("linked")?,
                always_delegates: object
                    .getattr("always_delegates")
                    .and_then(|v| v.is_truthy())
                    .unwrap_or(true),
                subscriptions: names("subscriptions")?,
                object: object.unbind(),
                confinement,
            })
        })
    }

    /// Calls method `name` with `cx` (and `args` after it), serving the requests of its
    /// `cx` until it returns: its value, or `None` if the object has no such method.
    fn hook(&self, cx: &mut Context<'_>, name: &str, args: Vec<Value>) -> Option<Value> {
        let has = Python::attach(|py| self.object.bind(py).hasattr(name).unwrap_or(false));
        if !has {
            return None;
        }
        let (to_runner, requests) = channel::<Request>();
        let (answers_tx, answers) = channel::<Answer>();
        let done = std::thread::scope(|scope| {
            let object = &self.object;
            let confinement = self.confinement.as_ref();
            let worker = std::thread::Builder::new()
                .name(format!("stack-py-{}", self.label))
                .spawn_scoped(scope, move || {
                    if let Some(c) = confinement {
                        judge_this_thread(c);
                    }
                    call_method(object, name, args, to_runner, answers)
                });
            if let Err(e) = worker {
                return Err(format!("cannot start the hook's thread: {e}"));
            }
            // Until the method returns: a closed channel means its thread ended anyway.
            while let Ok(request) = requests.recv() {
                let answer = match request {
                    Request::Done(result) => return result,
                    other => serve(cx, other),
                };
                if answers_tx.send(answer).is_err() {
                    break;
                }
            }
            Err("the hook's thread ended without an answer".to_string())
        });
        match done {
            Ok(v) => Some(v),
            Err(traceback) => {
                cx.log("error", &format!("{}.{name}: {traceback}", self.label));
                None
            }
        }
    }
}

/// Answers one request of a hook's `cx`.
fn serve(cx: &mut Context<'_>, request: Request) -> Answer {
    let unit = |r: Result<(), StackError>| Answer::Unit(r.map_err(|e| e.to_string()));
    let find =
        |cx: &Context<'_>, name: &str| cx.find(name).ok_or(StackError::Unknown(name.to_string()));
    match request {
        Request::Wants(name) => Answer::Value(
            find(cx, &name)
                .and_then(|b| cx.wants(b))
                .map(Value::Bool)
                .map_err(|e| e.to_string()),
        ),
        Request::Delegate(name, token) => unit(find(cx, &name).and_then(|b| match token {
            Some(t) => cx.delegate_with_callback(b, t),
            None => cx.delegate(b),
        })),
        Request::Run(call, token) => unit(cx.delegate_action(Box::new(call), token)),
        Request::CancelDelegates(allow) => Answer::Bool(cx.cancel_delegates(allow)),
        Request::CancelSelf(done) => unit(cx.cancel_self_with(done)),
        Request::Call(service, method, args) => Answer::Value(match cx.robot() {
            Some(robot) => robot
                .call(&service, &method, args)
                .map_err(|e| e.to_string()),
            None => Err("no robot".to_string()),
        }),
        Request::Log(level, text) => {
            cx.log(&level, &text);
            Answer::Bool(true)
        }
        Request::State => Answer::State(State {
            tick: cx.tick(),
            now: cx.now().as_secs_f64(),
            activated: cx.is_activated(),
            delegated: cx.is_control_delegated(),
            can_delegate: cx.can_delegate(),
            inputs: cx
                .inputs()
                .iter()
                .map(|i| (i.name.clone(), i.value.clone()))
                .collect(),
        }),
        Request::Done(_) => Answer::Bool(false),
    }
}

/// On the hook's thread: calls `object.name(cx, *args)` with a fresh `cx`, then says it is
/// done (the value, or the traceback) and closes `cx` for good.
fn call_method(
    object: &Py<PyAny>,
    name: &str,
    args: Vec<Value>,
    to_runner: Sender<Request>,
    answers: Receiver<Answer>,
) {
    let result = Python::attach(|py| {
        let cx = Bound::new(
            py,
            HookContext {
                link: Mutex::new(Some((to_runner.clone(), answers))),
            },
        )
        .map_err(|e| traceback(py, &e))?;
        let mut call_args = vec![cx.clone().into_any()];
        for a in &args {
            call_args.push(to_python(py, a).map_err(|e| traceback(py, &e))?);
        }
        let tuple = PyTuple::new(py, call_args).map_err(|e| traceback(py, &e))?;
        let returned = object
            .bind(py)
            .call_method1(name, tuple)
            .map_err(|e| traceback(py, &e));
        // Kept by the script or not, the context ends with its hook.
        if let Ok(mut link) = cx.borrow().link.lock() {
            *link = None;
        }
        let value = returned?;
        from_python(&value, Foreign::Text).map_err(|e| traceback(py, &e))
    });
    // The runner's side waits for this; if it is gone there is no one to tell.
    let _ = to_runner.send(Request::Done(result));
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
    link: Mutex<Option<(Sender<Request>, Receiver<Answer>)>>,
}

impl HookContext {
    /// Sends `request` and waits (without the GIL) for the answer.
    fn ask(&self, py: Python<'_>, request: Request) -> PyResult<Answer> {
        let guard = self
            .link
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the context is broken"))?;
        let Some((to_runner, answers)) = guard.as_ref() else {
            return Err(PyRuntimeError::new_err(
                "this context belongs to a hook that has returned",
            ));
        };
        to_runner
            .send(request)
            .map_err(|_| PyRuntimeError::new_err("the runner is gone"))?;
        py.detach(|| answers.recv())
            .map_err(|_| PyRuntimeError::new_err("the runner is gone"))
    }

    fn unit(&self, py: Python<'_>, request: Request) -> PyResult<()> {
        match self.ask(py, request)? {
            Answer::Unit(Ok(())) => Ok(()),
            Answer::Unit(Err(why)) => Err(PyRuntimeError::new_err(why)),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    fn value(&self, py: Python<'_>, request: Request) -> PyResult<Value> {
        match self.ask(py, request)? {
            Answer::Value(Ok(v)) => Ok(v),
            Answer::Value(Err(why)) => Err(PyRuntimeError::new_err(why)),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    fn state(&self, py: Python<'_>) -> PyResult<State> {
        match self.ask(py, Request::State)? {
            Answer::State(s) => Ok(s),
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
            self.value(py, Request::Wants(name))?,
            Value::Bool(true)
        ))
    }

    /// Hands control to `name`; `callback`: a token for `on_delegation_done`. Raises
    /// `RuntimeError` with the reason when refused.
    #[pyo3(signature = (name, callback=None))]
    fn delegate(&self, py: Python<'_>, name: String, callback: Option<u64>) -> PyResult<()> {
        self.unit(py, Request::Delegate(name, callback))
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
        let call = RobotCall::new(&service, &method, values(args)?);
        self.unit(py, Request::Run(call, callback))
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
        let v = self.value(py, Request::Call(service, method, values(args)?))?;
        to_python(py, &v)
    }

    /// Cancels what it delegated; whether anything was.
    #[pyo3(signature = (allow_callback=false))]
    fn cancel_delegates(&self, py: Python<'_>, allow_callback: bool) -> PyResult<bool> {
        match self.ask(py, Request::CancelDelegates(allow_callback))? {
            Answer::Bool(b) => Ok(b),
            _ => Err(PyRuntimeError::new_err("unexpected answer")),
        }
    }

    /// Leaves the stack; `failure`: its delegator's callback gets a failure with this text.
    #[pyo3(signature = (failure=None))]
    fn cancel_self(&self, py: Python<'_>, failure: Option<String>) -> PyResult<()> {
        let done = failure.map_or(Completed::Success, Completed::Failure);
        self.unit(py, Request::CancelSelf(done))
    }

    /// Writes `text` in the stack's trace (`level`: info, warning, error).
    #[pyo3(signature = (text, level="info"))]
    fn log(&self, py: Python<'_>, text: String, level: &str) -> PyResult<()> {
        self.ask(py, Request::Log(level.to_string(), text))
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

/// `Completed` as Python sees it: `("success", "")`, `("failure", why)`, `("canceled", why)`.
fn completed(done: &Completed) -> Value {
    let (kind, why) = match done {
        Completed::Success => ("success", String::new()),
        Completed::Failure(w) => ("failure", w.clone()),
        Completed::Canceled(w) => ("canceled", w.clone()),
    };
    Value::Tuple(vec![Value::String(kind.into()), Value::String(why)])
}

impl Behavior for PythonBehavior {
    fn delegates(&self) -> Vec<String> {
        self.delegates.clone()
    }
    fn linked(&self) -> Vec<String> {
        self.linked.clone()
    }
    fn always_delegates(&self) -> bool {
        self.always_delegates
    }
    fn subscriptions(&self) -> Vec<String> {
        self.subscriptions.clone()
    }
    fn init(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "init", Vec::new());
    }
    fn on_entered_scope(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "on_entered_scope", Vec::new());
    }
    /// True if the method returns a true value (and if the class has none); false if it
    /// raises.
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        match self.hook(cx, "wants_to_be_activated", Vec::new()) {
            None => !Python::attach(|py| {
                self.object
                    .bind(py)
                    .hasattr("wants_to_be_activated")
                    .unwrap_or(false)
            }),
            Some(Value::Bool(b)) => b,
            Some(Value::None) => false,
            Some(Value::Int(i)) => i != 0,
            Some(_) => true,
        }
    }
    fn on_activated(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "on_activated", Vec::new());
    }
    fn update(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "update", Vec::new());
    }
    fn on_delegation_done(&mut self, cx: &mut Context<'_>, token: u64, done: Completed) {
        let token = Value::Int(i64::try_from(token).unwrap_or(i64::MAX));
        self.hook(cx, "on_delegation_done", vec![token, completed(&done)]);
    }
    fn on_input(&mut self, cx: &mut Context<'_>, input: &choreo_stack::Input) {
        let args = vec![Value::String(input.name.clone()), input.value.clone()];
        self.hook(cx, "on_input", args);
    }
    fn on_deactivated(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "on_deactivated", Vec::new());
    }
    fn on_left_scope(&mut self, cx: &mut Context<'_>) {
        self.hook(cx, "on_left_scope", Vec::new());
    }
}
