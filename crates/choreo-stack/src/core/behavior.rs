//! The contract a behavior implements (behavior-stack.md §2–§3, after Anki's `IBehavior`):
//! the lifecycle hooks the runner calls, in the order its rules guarantee, what a behavior
//! declares about itself once, at load, and the [`Context`] each hook gets: the runner API
//! (`IBehaviorRunner`: delegate, cancel delegates, cancel self, is control delegated, can
//! delegate) and a view of the world. The hooks and their context are one concept: a
//! context runs other behaviors' hooks (`wants`), and every hook takes a context.
//!
//! A stack change a hook asks for is checked at once against the stack as it will be once the
//! changes already asked for are made (the *projected* stack), recorded in the trace with its
//! result, and made when the hook returns: hooks never run inside hooks, but for
//! `wants_to_be_activated`, which may not change anything.

use choreo_engine::Robot;

use crate::core::action::Action;
use crate::core::error::StackError;
use crate::core::input::Input;
use crate::core::state::{Core, Op, State};
use crate::core::trace::Event;
pub use crate::core::types::{BehaviorId, Completed};

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

/// Which hook is running: what it may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `init`, `on_entered_scope`, `on_left_scope`, inputs while in scope.
    Plain,
    /// `wants_to_be_activated`: no stack change (L5).
    Wtba,
    /// `on_activated`, `update`, callbacks and inputs while activated.
    Active,
    /// `on_deactivated`: no stack change (bug 6 of the original).
    Deactivating,
}

/// The behaviors, each taken out of its slot while one of its hooks runs.
pub(crate) type Behaviors = [Option<Box<dyn Behavior>>];

/// The runner as a hook of behavior [`Context::me`] sees it.
pub struct Context<'a> {
    pub(crate) me: BehaviorId,
    pub(crate) mode: Mode,
    pub(crate) core: &'a mut Core,
    pub(crate) behaviors: &'a mut Behaviors,
}

/// Runs `f` on behavior `b` with a context in `mode`; `None` if one of `b`'s hooks is
/// running already (the behavior is out of its slot).
pub(crate) fn call_hook<R>(
    behaviors: &mut Behaviors,
    core: &mut Core,
    b: BehaviorId,
    mode: Mode,
    f: impl FnOnce(&mut dyn Behavior, &mut Context<'_>) -> R,
) -> Option<R> {
    let mut taken = behaviors.get_mut(b.index())?.take()?;
    let timed = core.timing.then(std::time::Instant::now);
    let result = {
        let mut cx = Context {
            me: b,
            mode,
            core: &mut *core,
            behaviors: &mut *behaviors,
        };
        f(taken.as_mut(), &mut cx)
    };
    if let Some(started) = timed {
        core.charge(b, started.elapsed());
    }
    if let Some(slot) = behaviors.get_mut(b.index()) {
        *slot = Some(taken);
    }
    Some(result)
}

/// Evaluates `wants_to_be_activated` of `b` (L4–L6, K3, T6) and records it.
pub(crate) fn ask_wtba(
    behaviors: &mut Behaviors,
    core: &mut Core,
    b: BehaviorId,
) -> Result<bool, StackError> {
    match core.slot(b).state {
        State::InScope => {}
        State::Activated => return Err(StackError::AlreadyActive),
        State::NotInitialized | State::OutOfScope => return Err(StackError::NotInScope),
    }
    if behaviors.get(b.index()).is_none_or(Option::is_none) {
        return Err(StackError::Busy);
    }
    let vetoed = core.slot(b).veto_tick == core.world.tick;
    // Every condition is sampled (stateful ones depend on it), then the behavior is asked.
    let met = core.eval_wtba_conditions(b);
    let wants = !vetoed
        && met
        && call_hook(behaviors, core, b, Mode::Wtba, |x, cx| {
            x.wants_to_be_activated(cx)
        })
        .unwrap_or(false);
    let tick = core.world.tick;
    core.slot_mut(b).wtba = (tick, wants);
    core.record(Event::Wtba { b, wants });
    Ok(wants)
}

impl Context<'_> {
    /// This behavior.
    pub fn me(&self) -> BehaviorId {
        self.me
    }

    /// The name of `b` (its id, or `@name` for an anonymous behavior).
    pub fn name(&self, b: BehaviorId) -> &str {
        self.core.names.get(b.index()).map_or("?", String::as_str)
    }

    /// The tick.
    pub fn tick(&self) -> u64 {
        self.core.world.tick
    }

    /// The stack's time.
    pub fn now(&self) -> std::time::Duration {
        self.core.world.now
    }

    /// This tick's inputs (all of them, subscribed or not).
    pub fn inputs(&self) -> &[Input] {
        &self.core.world.inputs
    }

    /// The robot, if the runner has one.
    pub fn robot(&self) -> Option<&dyn Robot> {
        self.core.world.robot.as_deref()
    }

    /// The behavior with id `name` as this behavior sees it: its own anonymous behaviors
    /// first, then the global ids.
    pub fn find(&self, name: &str) -> Option<BehaviorId> {
        self.core.find(self.me, name)
    }

    /// Records a message of this behavior in the trace (`level`: `info`, `warning` or
    /// `error`).
    pub fn log(&mut self, level: &str, text: &str) {
        self.core.record(Event::Log {
            b: self.me,
            level: level.to_string(),
            text: text.to_string(),
        });
    }

    /// Whether this behavior is activated (on the stack).
    pub fn is_activated(&self) -> bool {
        self.core.slot(self.me).state == State::Activated
    }

    /// Whether it is the top of the stack as it will be once the changes asked for are
    /// made (`CanDelegate`).
    pub fn can_delegate(&self) -> bool {
        self.core.projected.last() == Some(&self.me)
            && matches!(self.mode, Mode::Active | Mode::Plain)
    }

    /// Whether it handed control on: something above it on the (projected) stack, or an
    /// action of its own outstanding (A3: never another behavior's action).
    pub fn is_control_delegated(&self) -> bool {
        self.core.is_control_delegated(self.me)
    }

    /// The behavior it delegated to (right above it on the projected stack), if any.
    pub fn delegate_above(&self) -> Option<BehaviorId> {
        let p = &self.core.projected;
        let i = p.iter().position(|x| *x == self.me)?;
        p.get(i + 1).copied()
    }

    /// Asks `b` whether it wants to be activated (see [`Behavior::wants_to_be_activated`]):
    /// `Err` if `b` is not in scope (L4), is activated, or is running a hook.
    pub fn wants(&mut self, b: BehaviorId) -> Result<bool, StackError> {
        ask_wtba(self.behaviors, self.core, b)
    }

    /// Vetoes `b`'s activation for this tick (T6, `SetDontActivateThisTick`): its
    /// `wants_to_be_activated` is false until the next tick.
    pub fn veto(&mut self, b: BehaviorId) {
        let tick = self.core.world.tick;
        if let Some(slot) = self.core.slots.get_mut(b.index()) {
            slot.veto_tick = tick;
        }
    }

    /// Hands control to `to` (`Delegate`): it must be the top, `to` one of its declared
    /// delegates, in scope, and have wanted to be activated this tick. No callback.
    pub fn delegate(&mut self, to: BehaviorId) -> Result<(), StackError> {
        self.delegate_inner(to, None)
    }

    /// [`Context::delegate`], and when the delegation ends, `on_delegation_done(token, ..)`.
    /// A refused delegation installs no callback (bug 1 of the original).
    pub fn delegate_with_callback(&mut self, to: BehaviorId, token: u64) -> Result<(), StackError> {
        self.delegate_inner(to, Some(token))
    }

    fn delegate_inner(&mut self, to: BehaviorId, token: Option<u64>) -> Result<(), StackError> {
        let result = self.check_delegate(to);
        self.core.record(Event::Delegate {
            from: self.me,
            to,
            token,
            result: result.clone(),
        });
        if result.is_ok() {
            self.core.projected.push(to);
            self.core.queue.push_back(Op::Push { by: self.me, to });
            self.core.set_callback(self.me, token);
        }
        result
    }

    fn check_delegate(&self, to: BehaviorId) -> Result<(), StackError> {
        self.check_mode()?;
        if self.core.projected.last() != Some(&self.me) {
            return Err(StackError::NotTop);
        }
        if !self.core.slot(self.me).delegates.contains(&to) {
            return Err(StackError::NotADelegate);
        }
        let mine = self.core.slot(self.me);
        if mine.action_outstanding() {
            return Err(StackError::AlreadyDelegated);
        }
        if self.core.projected.contains(&to) {
            return Err(StackError::AlreadyActive);
        }
        let slot = self.core.slot(to);
        if slot.scope_refs == 0 {
            return Err(StackError::NotInScope);
        }
        if slot.wtba != (self.core.world.tick, true) {
            return Err(StackError::NotWanting);
        }
        Ok(())
    }

    fn check_mode(&self) -> Result<(), StackError> {
        match self.mode {
            Mode::Wtba => Err(StackError::NoDelegationInWtba),
            Mode::Deactivating => Err(StackError::NoDelegationInDeactivation),
            Mode::Plain | Mode::Active => Ok(()),
        }
    }

    /// Runs `action` (A1: it must be the top, activated, with nothing delegated); it starts at
    /// the end of this tick. `token`: call `on_delegation_done(token, ..)` when it ends. A
    /// refused action is dropped, unstarted.
    pub fn delegate_action(
        &mut self,
        action: Box<dyn Action>,
        token: Option<u64>,
    ) -> Result<(), StackError> {
        let result = self.check_mode().and_then(|()| {
            if self.core.slot(self.me).state != State::Activated {
                Err(StackError::NotActivated)
            } else if self.core.projected.last() != Some(&self.me) {
                Err(StackError::NotTop)
            } else if self.core.is_control_delegated(self.me) {
                Err(StackError::AlreadyDelegated)
            } else {
                Ok(())
            }
        });
        self.core.record(Event::DelegateAction {
            from: self.me,
            tag: action.tag(),
            token,
            result: result.clone(),
        });
        if result.is_ok() {
            self.core.set_callback(self.me, token);
            self.core.queue_action(self.me, action);
        }
        result
    }

    /// Cancels what it delegated (`CancelDelegates`): its action, and every behavior above
    /// it, popped top-down when the hook returns. `allow_callback`: its callback is kept and
    /// fires (with `Canceled`) at its next eligible update (C4); otherwise it is dropped.
    /// Returns whether anything was cancelled; false (not an error) if it is not on the stack.
    pub fn cancel_delegates(&mut self, allow_callback: bool) -> bool {
        let result =
            self.check_mode().is_ok() && self.core.cancel_delegates(self.me, allow_callback);
        self.core.record(Event::CancelDelegates {
            by: self.me,
            allow_callback,
            result,
        });
        result
    }

    /// Leaves the stack (`CancelSelf`): its delegates, then itself, popped when the hook
    /// returns; its delegator's callback gets [`Completed::Success`].
    pub fn cancel_self(&mut self) -> Result<(), StackError> {
        self.cancel_self_with(Completed::Success)
    }

    /// [`Context::cancel_self`], its delegator's callback getting `done` (a failure, say).
    pub fn cancel_self_with(&mut self, done: Completed) -> Result<(), StackError> {
        let result = self.check_mode().and_then(|()| {
            if self.core.projected.contains(&self.me) {
                Ok(())
            } else {
                Err(StackError::NotOnStack)
            }
        });
        self.core.record(Event::CancelSelf {
            by: self.me,
            result: result.clone(),
        });
        if result.is_ok() {
            self.core.cancel_self(self.me, done);
        }
        result
    }
}
