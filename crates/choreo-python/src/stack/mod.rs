//! Behaviors of the behavior stack written in Python: a class in a `.py` file with the
//! methods of [`choreo_stack::Behavior`] (`update(self, cx)`, `wants_to_be_activated(self,
//! cx)`, ...), each given a context object with the runner API (`cx.delegate("Child")`,
//! `cx.cancel_self()`, `cx.run("ALTextToSpeech", "say", "hi")`, ...).
//!
//! A hook's context lends the runner to the hook for the length of the call, and no longer,
//! without unsafe code: the method runs elsewhere (a scoped thread, or the box host's thread
//! paired with this one), while the calling thread keeps the runner's `Context` and answers
//! the requests the method's `cx` sends it ([`HookRequest`]), one at a time, until the method
//! returns. A request that runs another Python behavior's hook (`cx.wants("B")`) does the
//! same one level down.
//!
//! - `talk`: the requests and answers; `object`: the Python side, the same in both places.

use crossbeam_channel::unbounded as channel;
use std::path::Path;
use std::sync::Arc;

use choreo_engine::Value;
use choreo_stack::builtins::robot::RobotCall;
use choreo_stack::{Behavior, Completed, Context, StackError};
use pyo3::prelude::*;

use crate::confinement::Confinement;
use crate::project_code::{confined_run, judge_this_thread};
use crate::remote::BoxHost;

mod held;
mod object;
mod talk;

pub(crate) use object::{call, make};
pub(crate) use talk::Link;
pub(crate) use talk::{Declared, HookAnswer, HookRequest, Hooked, State};

/// Where a behavior's object lives.
enum Place {
    /// In this process.
    Here(Py<PyAny>),
    /// In a box host, under this handle.
    BoxHost { host: Arc<BoxHost>, handle: u64 },
}

/// A behavior whose hooks are the methods of a Python object.
pub struct PythonBehavior {
    place: Place,
    /// What its code may reach, and the robot's work for it (`None`: all the user may).
    confinement: Option<Arc<Confinement>>,
    label: String,
    declared: Declared,
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

impl PythonBehavior {
    /// An instance of class `class` of the Python file `file`, made with `params` as keyword
    /// arguments (a map; `Value::None`: none). What the instance declares (`delegates()`,
    /// `linked()`, `always_delegates`, `subscriptions`) is read once, here. Its code (the
    /// module, the constructor, each hook) runs in `host`, a box host confined as a whole,
    /// when given; else on threads of this process confined by `confinement` (`None`:
    /// unconfined). Either way, what the robot does for its `cx` is held to `confinement`.
    pub fn load(
        file: &Path,
        class: &str,
        params: &Value,
        confinement: Option<Arc<Confinement>>,
        host: Option<Arc<BoxHost>>,
    ) -> Result<PythonBehavior, PythonBehaviorError> {
        let error = |message: String| PythonBehaviorError {
            file: file.display().to_string(),
            message,
        };
        // Read here, by choreo: the box host is told the text, as the file names it.
        let source =
            std::fs::read_to_string(file).map_err(|e| error(format!("cannot read: {e}")))?;
        let (place, declared) = match host {
            Some(host) => {
                let (handle, declared) = host
                    .stack_load(file, class, params, &source)
                    .map_err(error)?;
                (Place::BoxHost { host, handle }, declared)
            }
            None => {
                let made = confined_run(confinement.as_ref(), || {
                    object::make(file, class, params, &source)
                });
                let (object, declared) =
                    made.unwrap_or_else(|e| Err(e.to_string())).map_err(error)?;
                (Place::Here(object), declared)
            }
        };
        Ok(PythonBehavior {
            place,
            confinement,
            label: class.to_string(),
            declared,
        })
    }

    /// Calls method `name` with `cx` (and `args` after it), serving the requests of its
    /// `cx` until it returns; an exception is logged with its traceback.
    fn hook(&self, cx: &mut Context<'_>, name: &str, args: Vec<Value>) -> Hooked {
        let confinement = self.confinement.as_ref();
        let hooked = match &self.place {
            Place::Here(object) => {
                if !object::has(object, name) {
                    return Hooked::Missing;
                }
                self.hook_here(object, confinement, cx, name, &args)
            }
            Place::BoxHost { host, handle } => {
                host.stack_hook(*handle, name, &args, &mut |r| serve(cx, r, confinement))
            }
        };
        if let Hooked::Raised(traceback) = &hooked {
            cx.log("error", &format!("{}.{name}: {traceback}", self.label));
        }
        hooked
    }

    /// [`Self::hook`] in this process: the method runs on a scoped thread (confined and
    /// judged under `confinement`) while this one keeps the runner's `Context` and answers
    /// the requests its `cx` sends, one at a time, until the method returns. A request that
    /// runs another Python behavior's hook (`cx.wants("B")`) does the same one level down;
    /// the waiting thread gives up the GIL, so the nested hook can take it.
    fn hook_here(
        &self,
        object: &Py<PyAny>,
        confinement: Option<&Arc<Confinement>>,
        cx: &mut Context<'_>,
        name: &str,
        args: &[Value],
    ) -> Hooked {
        let (to_runner, requests) = channel::<ToRunner>();
        let (answers_tx, answers) = channel::<HookAnswer>();
        std::thread::scope(|scope| {
            let done = to_runner.clone();
            let link: Link = Box::new(move |request| {
                to_runner.send(ToRunner::Request(request)).ok()?;
                answers.recv().ok()
            });
            let worker = std::thread::Builder::new()
                .name(format!("stack-py-{}", self.label))
                .spawn_scoped(scope, move || {
                    if let Some(c) = confinement {
                        judge_this_thread(c);
                    }
                    // The runner waits for this; if it is gone there is no one to tell.
                    let _ = done.send(ToRunner::Done(object::call(object, name, args, link)));
                });
            if let Err(e) = worker {
                return Hooked::Raised(format!("cannot start the hook's thread: {e}"));
            }
            // Until the method returns: a closed channel means its thread ended anyway.
            while let Ok(message) = requests.recv() {
                let answer = match message {
                    ToRunner::Done(hooked) => return hooked,
                    ToRunner::Request(request) => serve(cx, request, confinement),
                };
                if answers_tx.send(answer).is_err() {
                    break;
                }
            }
            Hooked::Raised("the hook's thread ended without an answer".to_string())
        })
    }
}

impl Drop for PythonBehavior {
    fn drop(&mut self) {
        if let Place::BoxHost { host, handle } = &self.place {
            host.stack_drop(*handle);
        }
    }
}

/// What a hook's thread tells the runner's, in this process.
enum ToRunner {
    Request(HookRequest),
    Done(Hooked),
}

/// Answers one request of a hook's `cx`; what the robot does for it is held to
/// `confinement` (`held`).
fn serve(
    cx: &mut Context<'_>,
    request: HookRequest,
    confinement: Option<&Arc<Confinement>>,
) -> HookAnswer {
    let unit = |r: Result<(), StackError>| HookAnswer::Unit(r.map_err(|e| e.to_string()));
    let find =
        |cx: &Context<'_>, name: &str| cx.find(name).ok_or(StackError::Unknown(name.to_string()));
    match request {
        HookRequest::Wants(name) => HookAnswer::Value(
            find(cx, &name)
                .and_then(|b| cx.wants(b))
                .map(Value::Bool)
                .map_err(|e| e.to_string()),
        ),
        HookRequest::Delegate(name, token) => unit(find(cx, &name).and_then(|b| match token {
            Some(t) => cx.delegate_with_callback(b, t),
            None => cx.delegate(b),
        })),
        HookRequest::Run(service, method, args, token) => {
            let call = RobotCall::new(&service, &method, args);
            let action: Box<dyn choreo_stack::Action> = match confinement {
                Some(c) => Box::new(held::HeldCall {
                    call,
                    confinement: Arc::clone(c),
                }),
                None => Box::new(call),
            };
            unit(cx.delegate_action(action, token))
        }
        HookRequest::CancelDelegates(allow) => HookAnswer::Bool(cx.cancel_delegates(allow)),
        HookRequest::CancelSelf(failure) => {
            unit(cx.cancel_self_with(failure.map_or(Completed::Success, Completed::Failure)))
        }
        HookRequest::Call(service, method, args) => HookAnswer::Value(match cx.robot() {
            Some(robot) => held::held(confinement, || robot.call(&service, &method, args))
                .and_then(|r| r.map_err(|e| e.to_string())),
            None => Err("no robot".to_string()),
        }),
        HookRequest::Log(level, text) => {
            cx.log(&level, &text);
            HookAnswer::Bool(true)
        }
        HookRequest::State => HookAnswer::State(State {
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
        self.declared.delegates.clone()
    }
    fn linked(&self) -> Vec<String> {
        self.declared.linked.clone()
    }
    fn always_delegates(&self) -> bool {
        self.declared.always_delegates
    }
    fn subscriptions(&self) -> Vec<String> {
        self.declared.subscriptions.clone()
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
            Hooked::Missing => true,
            Hooked::Raised(_) => false,
            Hooked::Returned(Value::Bool(b)) => b,
            Hooked::Returned(Value::None) => false,
            Hooked::Returned(Value::Int(i)) => i != 0,
            Hooked::Returned(_) => true,
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
