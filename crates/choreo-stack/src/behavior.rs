//! The contract a behavior implements (behavior-stack.md §2–§3, after Anki's `IBehavior`):
//! the lifecycle hooks the runner calls, in the order its rules guarantee, and what a behavior
//! declares about itself once, at load.

use std::fmt;

use crate::context::Context;
use crate::input::Input;

/// A behavior of the stack, by its index in the runner (behaviors are singletons per id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct BehaviorId(pub(crate) u32);

impl BehaviorId {
    /// The index (the order in which the behavior was added to the runner).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BehaviorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// How a delegation ended, as the delegator's callback receives it (C5: one typed payload for
/// behaviors and actions alike).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Completed {
    /// The delegate finished: a behavior that cancelled itself, an action that succeeded.
    Success,
    /// The delegate failed (an action's error, a behavior that said so), with why.
    Failure(String),
    /// The delegation was cancelled (`cancel_delegates` with the callback kept), with why.
    Canceled(String),
}

impl fmt::Display for Completed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Completed::Success => write!(f, "success"),
            Completed::Failure(why) => write!(f, "failure: {why}"),
            Completed::Canceled(why) => write!(f, "canceled: {why}"),
        }
    }
}

/// A behavior: its hooks run on the runner's thread, one at a time, in the order of
/// behavior-stack.md. A hook asks the runner for things through its [`Context`]; stack
/// changes it asks for are checked at once and made when the hook returns (bug 6 of the
/// original: no stack change while a hook runs).
///
/// Everything has a default but [`Behavior::wants_to_be_activated`].
pub trait Behavior: Send {
    /// The ids of every behavior this one may delegate to (`GetAllDelegates`). Read once,
    /// when the runner is built, and frozen there (R2): what it returns later is ignored.
    fn delegates(&self) -> Vec<String> {
        Vec::new()
    }

    /// Behaviors that enter activatable scope together with this one (P3), so that its own
    /// `wants_to_be_activated` may ask theirs while it is only in scope. Read once, like
    /// [`Behavior::delegates`].
    fn linked(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether an activated behavior must always have a delegate (C6,
    /// `behaviorAlwaysDelegates`): if it has none after its update, the runner cancels it in
    /// that update. True by default, as in the original; leaves that act on their own (a
    /// wait, a Choregraphe behavior) say false.
    fn always_delegates(&self) -> bool {
        true
    }

    /// The input names ([`Input::name`]) this behavior wants delivered while it is in scope
    /// or activated (T5). Read once.
    fn subscriptions(&self) -> Vec<String> {
        Vec::new()
    }

    /// Called once, before the first tick (L1).
    fn init(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// The behavior became a possible delegate of an active behavior (the 0→1 transition of
    /// its scope count, L2): start what `wants_to_be_activated` relies on.
    fn on_entered_scope(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// Whether it wants to take control now. Asked only while it is in scope and not
    /// activated (L4); a true answer is a wish, not a promise, and nothing may be started
    /// here: the context refuses every stack change (L5).
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool;

    /// It was given control (pushed on the stack). Its delegates are already in scope (S1),
    /// so it may ask them and delegate from here.
    fn on_activated(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// One update per tick while in scope or activated (L10, T3); nothing tells the two
    /// apart but [`Context::is_activated`].
    fn update(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// A delegation made with a callback token ended (C1–C5): called at the start of its
    /// first update in which it is activated and no longer control-delegated, never in the
    /// tick the delegation ended, at most once per delegation, never after it was
    /// deactivated.
    fn on_delegation_done(&mut self, cx: &mut Context<'_>, token: u64, done: Completed) {
        let _ = (cx, token, done);
    }

    /// An input it subscribed to arrived, whether it is activated or only in scope (T5: the
    /// "always" handler, called first).
    fn on_input(&mut self, cx: &mut Context<'_>, input: &Input) {
        let _ = (cx, input);
    }

    /// An input it subscribed to arrived while it is activated (after [`Behavior::on_input`]).
    fn on_input_while_activated(&mut self, cx: &mut Context<'_>, input: &Input) {
        let _ = (cx, input);
    }

    /// An input it subscribed to arrived while it is in scope and not activated (after
    /// [`Behavior::on_input`]).
    fn on_input_while_in_scope(&mut self, cx: &mut Context<'_>, input: &Input) {
        let _ = (cx, input);
    }

    /// It lost control (popped: it cancelled itself or a lower behavior cancelled it). Its
    /// delegates have already left scope (S3); it stays in scope (S5). Stack changes are
    /// refused here (bug 6 of the original).
    fn on_deactivated(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// It is no longer a possible delegate of any active behavior (the 1→0 transition):
    /// stop what [`Behavior::on_entered_scope`] started.
    fn on_left_scope(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
    }
}
