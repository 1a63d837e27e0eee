//! What a Python behavior's hook and the stack's runner say to each other: the hook's `cx`
//! asks ([`HookRequest`]), the runner answers ([`HookAnswer`]). The same words whether the
//! hook runs on a thread of choreo's (a channel between two threads) or in the box host (a
//! lane, `crate::remote`): one vocabulary, so that the two places cannot drift apart.

use choreo_engine::Value;

/// A request of a hook's `cx` to the runner.
#[derive(Debug, Clone, PartialEq)]
pub enum HookRequest {
    /// Whether this behavior wants to be activated.
    Wants(String),
    /// Hand control to this behavior, with a callback token or none.
    Delegate(String, Option<u64>),
    /// Run `service.method(args)` as an action, with a callback token or none.
    Run(String, String, Vec<Value>, Option<u64>),
    /// Cancel what it delegated (whether the callback runs).
    CancelDelegates(bool),
    /// Leave the stack: `None` a success, else a failure with this text.
    CancelSelf(Option<String>),
    /// Call `service.method(args)` on the robot.
    Call(String, String, Vec<Value>),
    /// A line of the stack's trace: level, text.
    Log(String, String),
    /// The behavior's state and the world's.
    State,
}

/// The runner's answer to a [`HookRequest`], or the box host's to an order of the stack.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// Yes or no.
    Bool(bool),
    /// Done, or why not.
    Unit(Result<(), String>),
    /// A value, or why none.
    Value(Result<Value, String>),
    /// What `cx` reports.
    State(State),
    /// A behavior made: what it declares, or why it could not be (its traceback).
    Loaded(Result<Declared, String>),
    /// How a hook went.
    Hooked(Hooked),
}

/// What `cx` reports of the behavior and the world.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The tick.
    pub tick: u64,
    /// The stack's time, in seconds.
    pub now: f64,
    /// Whether it is on the stack.
    pub activated: bool,
    /// Whether it handed control on.
    pub delegated: bool,
    /// Whether it is the top of the stack.
    pub can_delegate: bool,
    /// This tick's inputs.
    pub inputs: Vec<(String, Value)>,
}

/// What a Python behavior declares, read once when it is made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Declared {
    /// `delegates()`.
    pub delegates: Vec<String>,
    /// `linked()`.
    pub linked: Vec<String>,
    /// `always_delegates` (true when absent).
    pub always_delegates: bool,
    /// `subscriptions`.
    pub subscriptions: Vec<String>,
}

/// How a hook went.
#[derive(Debug, Clone, PartialEq)]
pub enum Hooked {
    /// The object has no such method.
    Missing,
    /// It returned this.
    Returned(Value),
    /// It raised: the traceback.
    Raised(String),
}

/// The way from a hook's `cx` to the runner: a request sent, its answer (`None`: the runner
/// is gone).
pub(crate) type Link = Box<dyn FnMut(HookRequest) -> Option<HookAnswer> + Send>;
