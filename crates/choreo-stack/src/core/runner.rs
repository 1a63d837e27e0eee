//! The runner (`IBehaviorRunner` and `BehaviorStack` of the original): the stack, activatable
//! scope kept by reference counts, the tick (behavior-stack.md §7), delegation callbacks and
//! actions.

use std::time::{Duration, Instant};

use crate::core::behavior::{Behavior, Mode, ask_wtba, call_hook};
use crate::core::error::SetupError;
use crate::core::input::{Inbox, Input};
pub use crate::core::state::State;
use crate::core::state::{Callback, Core, Op};
use crate::core::trace::{Event, Listener, Trace};
use crate::core::types::{BehaviorId, Completed};

/// What a tick did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// The stack runs on.
    Running,
    /// The stack is empty and stays so: the run is over.
    Finished,
}

/// A behavior stack: build it with a [`Builder`](crate::Builder), then [`Runner::tick`] it.
pub struct Runner {
    pub(crate) behaviors: Vec<Option<Box<dyn Behavior>>>,
    pub(crate) core: Core,
    pub(crate) base: BehaviorId,
    pub(crate) period: Duration,
    pub(crate) budget: Option<Duration>,
    pub(crate) reinstall_base: bool,
    pub(crate) inbox: Inbox,
    pub(crate) reset: Option<BehaviorId>,
    pub(crate) finished: bool,
}

impl Runner {
    /// Initializes every behavior, in the order they were added (L1).
    fn init_all(&mut self) {
        for i in 0..self.behaviors.len() {
            let b = BehaviorId(u32::try_from(i).unwrap_or(u32::MAX));
            call_hook(
                &mut self.behaviors,
                &mut self.core,
                b,
                Mode::Plain,
                |x, cx| {
                    x.init(cx);
                },
            );
            self.core.slot_mut(b).state = State::OutOfScope;
            self.core.record(Event::Init { b });
        }
    }

    /// Adds a listener of the trace (see [`Listener`]).
    pub fn add_listener(&mut self, listener: Listener) {
        self.core.trace.add_listener(listener);
    }

    /// The trace (its kept events: see [`Options::keep_trace`](crate::Options::keep_trace)).
    pub fn trace(&self) -> &Trace {
        &self.core.trace
    }

    /// The behaviors' names, by index: ids, and `@name` for anonymous behaviors.
    pub fn names(&self) -> &[String] {
        &self.core.names
    }

    /// The behavior with the global id `name`.
    pub fn id(&self, name: &str) -> Option<BehaviorId> {
        self.core.ids.get(name).copied()
    }

    /// The declared delegates of `b`, as resolved at build (frozen: R2).
    pub fn delegates_of(&self, b: BehaviorId) -> &[BehaviorId] {
        self.core.slots.get(b.index()).map_or(&[], |s| &s.delegates)
    }

    /// The behaviors reachable from the base through declared delegates, depth first, each
    /// with its depth (what `GetAllDelegates` walks); one seen before is listed again but
    /// not walked again.
    pub fn delegation_tree(&self) -> Vec<(BehaviorId, usize)> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![(self.base(), 0usize)];
        while let Some((b, depth)) = todo.pop() {
            out.push((b, depth));
            if !seen.insert(b.index()) {
                continue;
            }
            for d in self.delegates_of(b).iter().rev() {
                todo.push((*d, depth + 1));
            }
        }
        out
    }

    /// The linked closure of `b` (P3).
    pub fn linked_of(&self, b: BehaviorId) -> &[BehaviorId] {
        self.core.slots.get(b.index()).map_or(&[], |s| &s.linked)
    }

    /// Every input name a behavior subscribed to or a condition watches, sorted: what a
    /// runner fed from a robot subscribes to (ALMemory keys and events).
    pub fn input_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .core
            .slots
            .iter()
            .flat_map(|s| {
                s.subscriptions.iter().cloned().chain(
                    s.wtba_conditions
                        .iter()
                        .chain(&s.cancel_conditions)
                        .flat_map(|c| c.inputs()),
                )
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// How many wtba and cancel conditions `b` has.
    pub fn condition_counts(&self, b: BehaviorId) -> (usize, usize) {
        self.core.slots.get(b.index()).map_or((0, 0), |s| {
            (s.wtba_conditions.len(), s.cancel_conditions.len())
        })
    }

    /// The state of `b`.
    pub fn state(&self, b: BehaviorId) -> Option<State> {
        self.core.slots.get(b.index()).map(|s| s.state)
    }

    /// The stack, base first.
    pub fn stack(&self) -> &[BehaviorId] {
        &self.core.stack
    }

    /// The base behavior.
    pub fn base(&self) -> BehaviorId {
        self.base
    }

    /// The tick last run (0 before the first).
    pub fn tick_count(&self) -> u64 {
        self.core.world.tick
    }

    /// Where inputs are posted (from any thread).
    pub fn inbox(&self) -> Inbox {
        self.inbox.clone()
    }

    /// Whether the run is over (the stack emptied and stays empty).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Replaces the stack by one on `base` at the start of the next tick (R8: never while a
    /// tick runs).
    pub fn request_reset(&mut self, base: BehaviorId) {
        self.reset = Some(base);
    }

    /// Initializes every behavior (L1). [`Runner::tick`] calls it before the first tick if
    /// it was not called.
    pub fn start(&mut self) {
        if self
            .core
            .slots
            .iter()
            .all(|s| s.state == State::NotInitialized)
        {
            self.init_all();
        }
    }

    /// Runs one tick (§7). `Err` only when the stack cannot be set up: the base does not
    /// want to be activated (S2).
    pub fn tick(&mut self) -> Result<Tick, SetupError> {
        self.start();
        if self.finished {
            return Ok(Tick::Finished);
        }
        let started = self.budget.map(|_| Instant::now());
        let tick = self.core.world.tick + 1;
        self.core.world.tick = tick;
        // The first tick is at time 0.
        self.core.world.now = self
            .period
            .saturating_mul(u32::try_from(tick - 1).unwrap_or(u32::MAX));
        self.core.world.inputs = self.inbox.take();
        self.core.record(Event::TickBegin);
        // 1. A deferred reset.
        if let Some(base) = self.reset.take() {
            self.clear_stack();
            self.base = base;
            self.core.record(Event::Reset { base });
        }
        // 2. The stack, the first tick (or after a reset; again after the base left, if so
        //    configured).
        if !self.core.root {
            if let Err(e) = self.install_base() {
                // S2: no stack. The root goes, so that the trace stays consistent.
                self.clear_stack();
                self.core.record(Event::TickEnd);
                return Err(e);
            }
        } else if self.core.stack.is_empty() {
            if self.reinstall_base {
                // A base that does not want now is asked again next tick; meanwhile it is
                // in scope and updated as such.
                let _ = self.push_base();
            } else {
                self.clear_stack();
                self.finished = true;
                self.core.record(Event::TickEnd);
                return Ok(Tick::Finished);
            }
        }
        // 3. Action completions seen at the end of the last tick.
        self.handle_action_completions();
        // 5. The stack pass, bottom-up; pushes during the pass are updated in it (T2).
        let mut idx = 0;
        while let Some(&b) = self.core.stack.get(idx) {
            self.update_one(b);
            idx += 1;
        }
        // 6. The in-scope pass, in the order of entry into scope (T4).
        let mut k = 0;
        while let Some(&b) = self.core.in_scope.get(k) {
            if self.core.slot(b).last_update != tick {
                self.update_one(b);
            }
            k += 1;
        }
        // 7. An empty stack is a state of its own (R7).
        if self.core.stack.is_empty() {
            self.core.record(Event::StackEmpty);
        }
        // 8. Actions run: those queued this tick start, the others are polled.
        self.update_actions();
        if let (Some(started), Some(budget)) = (started, self.budget) {
            self.check_budget(started.elapsed(), budget);
        }
        self.core.record(Event::TickEnd);
        Ok(Tick::Running)
    }

    /// Cancels the whole stack top-down and ends the run (S6; Ctrl-C).
    pub fn cancel_all(&mut self) {
        self.clear_stack();
        self.finished = true;
    }

    /// S2: the root entry, then the base.
    fn install_base(&mut self) -> Result<(), SetupError> {
        self.core.root = true;
        for b in self.core.scope_of(&[self.base]) {
            self.scope_inc(b);
        }
        self.push_base()
    }

    fn push_base(&mut self) -> Result<(), SetupError> {
        let base = self.base;
        let wants = ask_wtba(&mut self.behaviors, &mut self.core, base).unwrap_or(false);
        if !wants {
            return Err(SetupError::BaseDoesNotWant(
                self.core.names[base.index()].clone(),
            ));
        }
        self.core.projected.push(base);
        self.push(base);
        self.apply_queue();
        Ok(())
    }

    /// S6: pops everything top-down, then the root's reference to the base, then the root.
    fn clear_stack(&mut self) {
        if let Some(&base) = self.core.stack.first() {
            self.core.projected.clear();
            self.core.queue.clear();
            self.core.queue.push_back(Op::PopSelf {
                b: base,
                done: Completed::Canceled("stack cleared".into()),
            });
            self.apply_queue();
        }
        if self.core.root {
            self.core.root = false;
            for b in self.core.scope_of(&[self.base]) {
                self.scope_dec(b);
            }
        }
    }

    /// One update of `b` with what comes before and after it: its inputs, its callback (C1),
    /// the update, the checks after it (C6) and the changes it asked for.
    fn update_one(&mut self, b: BehaviorId) {
        let tick = self.core.world.tick;
        let active = self.core.slot(b).state == State::Activated;
        self.deliver_inputs(b, active);
        if active {
            self.fire_callback(b);
        }
        self.core.slot_mut(b).last_update = tick;
        self.core.record(Event::Update { b });
        let mode = if self.core.slot(b).state == State::Activated {
            Mode::Active
        } else {
            Mode::Plain
        };
        call_hook(&mut self.behaviors, &mut self.core, b, mode, |x, cx| {
            x.update(cx)
        });
        if self.core.slot(b).state == State::Activated && self.core.projected.contains(&b) {
            let slot = self.core.slot(b);
            let idle = slot.always_delegates && !self.core.is_control_delegated(b);
            let cancel = !slot.cancel_conditions.is_empty() && self.core.eval_conditions(b, true);
            if idle || cancel {
                self.core.record(Event::CancelSelf {
                    by: b,
                    result: Ok(()),
                });
                self.core.cancel_self(b, Completed::Success);
            }
        }
        self.apply_queue();
    }

    fn deliver_inputs(&mut self, b: BehaviorId, active: bool) {
        if self.core.slot(b).subscriptions.is_empty() || self.core.world.inputs.is_empty() {
            return;
        }
        let inputs: Vec<Input> = self
            .core
            .world
            .inputs
            .iter()
            .filter(|i| self.core.slot(b).subscriptions.contains(&i.name))
            .cloned()
            .collect();
        for input in inputs {
            self.core.record(Event::Input {
                b,
                name: input.name.clone(),
            });
            let mode = if active { Mode::Active } else { Mode::Plain };
            call_hook(&mut self.behaviors, &mut self.core, b, mode, |x, cx| {
                x.on_input(cx, &input);
                if active {
                    x.on_input_while_activated(cx, &input);
                } else {
                    x.on_input_while_in_scope(cx, &input);
                }
            });
            self.apply_queue();
        }
    }

    /// C1–C5: fires `b`'s callback if it is activated, no longer control-delegated and its
    /// delegation ended before this tick.
    fn fire_callback(&mut self, b: BehaviorId) {
        let tick = self.core.world.tick;
        if self.core.is_control_delegated(b) {
            return;
        }
        let ready = matches!(
            &self.core.slot(b).callback,
            Some(Callback { done: Some((ended, _)), .. }) if *ended < tick
        );
        if !ready {
            return;
        }
        let Some(Callback {
            token,
            done: Some((_, payload)),
        }) = self.core.slot_mut(b).callback.take()
        else {
            return;
        };
        self.core.record(Event::Callback {
            b,
            token,
            payload: payload.clone(),
        });
        call_hook(
            &mut self.behaviors,
            &mut self.core,
            b,
            Mode::Active,
            |x, cx| {
                x.on_delegation_done(cx, token, payload);
            },
        );
        self.apply_queue();
    }

    /// Makes the changes hooks asked for, in order; hooks they run may ask for more, made
    /// after them.
    fn apply_queue(&mut self) {
        // Nothing asked for: the projected stack is the stack already.
        if self.core.queue.is_empty() {
            return;
        }
        while let Some(op) = self.core.queue.pop_front() {
            match op {
                Op::Push { by, to } => {
                    if self.core.stack.last() == Some(&by)
                        && self.core.slot(to).state == State::InScope
                    {
                        self.push(to);
                    }
                }
                Op::PopAbove { keep, done } => {
                    while self.core.stack.last().is_some_and(|t| *t != keep)
                        && self.core.stack.contains(&keep)
                    {
                        self.pop(done.clone());
                    }
                }
                Op::PopSelf { b, done } => {
                    while self.core.stack.contains(&b) {
                        let last = self.core.stack.last() == Some(&b);
                        self.pop(if last { Some(done.clone()) } else { None });
                        if last {
                            // It ended on its own (what `BehaviorFinished` reads).
                            let name = self.core.names[b.index()].clone();
                            self.core.world.finished.insert(name, self.core.world.tick);
                        }
                    }
                }
            }
        }
        self.core.projected.clone_from(&self.core.stack);
    }

    /// §5.1: `b` becomes the top.
    fn push(&mut self, b: BehaviorId) {
        let scope = self.core.scope_of(&self.core.slot(b).delegates);
        self.core.stack.push(b);
        self.core.record(Event::Push { b });
        for d in scope {
            self.scope_inc(d);
        }
        self.core.slot_mut(b).state = State::Activated;
        self.core.set_conditions_active(b, false, false);
        self.core.set_conditions_active(b, true, true);
        self.core.record(Event::Activated { b });
        call_hook(
            &mut self.behaviors,
            &mut self.core,
            b,
            Mode::Active,
            |x, cx| {
                x.on_activated(cx);
            },
        );
    }

    /// §5.2: the top leaves the stack; its delegator's callback gets `done` (if given).
    fn pop(&mut self, done: Option<Completed>) {
        let Some(&t) = self.core.stack.last() else {
            return;
        };
        let scope = self.core.scope_of(&self.core.slot(t).delegates);
        self.core.record(Event::Pop { b: t });
        for d in scope {
            self.scope_dec(d);
        }
        // C3: its delegates are cancelled without callbacks, its callback dropped.
        self.core.cancel_action(t);
        self.core.slot_mut(t).callback = None;
        self.core.slot_mut(t).state = State::InScope;
        self.core.set_conditions_active(t, true, false);
        self.core.set_conditions_active(t, false, true);
        self.core.record(Event::Deactivated { b: t });
        call_hook(
            &mut self.behaviors,
            &mut self.core,
            t,
            Mode::Deactivating,
            |x, cx| {
                x.on_deactivated(cx);
            },
        );
        self.core.stack.pop();
        if let (Some(&delegator), Some(done)) = (self.core.stack.last(), done) {
            let tick = self.core.world.tick;
            self.core.end_callback(delegator, tick, done);
        }
    }

    fn scope_inc(&mut self, b: BehaviorId) {
        let slot = self.core.slot_mut(b);
        slot.scope_refs += 1;
        let count = slot.scope_refs;
        self.core.record(Event::ScopeRefInc { b, count });
        if count == 1 {
            // L3: the in-scope pass of this tick updates it, unless it was updated already
            // this tick (T3: at most once).
            self.core.slot_mut(b).state = State::InScope;
            self.core.in_scope.push(b);
            self.core.set_conditions_active(b, false, true);
            self.core.record(Event::EnteredScope { b });
            call_hook(
                &mut self.behaviors,
                &mut self.core,
                b,
                Mode::Plain,
                |x, cx| {
                    x.on_entered_scope(cx);
                },
            );
        }
    }

    fn scope_dec(&mut self, b: BehaviorId) {
        let slot = self.core.slot_mut(b);
        slot.scope_refs = slot.scope_refs.saturating_sub(1);
        let count = slot.scope_refs;
        self.core.record(Event::ScopeRefDec { b, count });
        if count == 0 {
            self.core.slot_mut(b).state = State::OutOfScope;
            self.core.in_scope.retain(|x| *x != b);
            self.core.set_conditions_active(b, false, false);
            self.core.record(Event::LeftScope { b });
            call_hook(
                &mut self.behaviors,
                &mut self.core,
                b,
                Mode::Plain,
                |x, cx| {
                    x.on_left_scope(cx);
                },
            );
        }
    }

    /// §7 step 3: the actions that ended last tick are handled: their owners are no longer
    /// control-delegated, and their callbacks get the completion.
    fn handle_action_completions(&mut self) {
        for k in 0..self.core.with_actions.len() {
            let b = self.core.with_actions[k];
            if let Some((ended, done)) = self.core.slot_mut(b).action_done.take() {
                self.core.end_callback(b, ended, done);
            }
        }
        let slots = &self.core.slots;
        self.core
            .with_actions
            .retain(|b| slots[b.index()].action_outstanding());
    }

    /// §7 step 8: actions queued this tick start; running ones are polled.
    fn update_actions(&mut self) {
        let tick = self.core.world.tick;
        for k in 0..self.core.with_actions.len() {
            let owner = self.core.with_actions[k];
            let i = owner.index();
            let Some(mut action) = self.core.slots[i].action.take() else {
                continue;
            };
            let ended = if self.core.slots[i].action_started {
                action.poll(&self.core.world)
            } else {
                self.core.slots[i].action_started = true;
                match action.start(&self.core.world) {
                    Ok(()) => action.poll(&self.core.world),
                    Err(why) => Some(Completed::Failure(why.to_string())),
                }
            };
            match ended {
                None => self.core.slots[i].action = Some(action),
                Some(result) => {
                    self.core.record(Event::ActionDone {
                        owner,
                        tag: action.tag(),
                        result: result.clone(),
                    });
                    self.core.slots[i].action_done = Some((tick, result));
                }
            }
        }
    }

    /// §6 of the issue: a tick over its budget is an event naming who took the time.
    fn check_budget(&mut self, took: Duration, budget: Duration) {
        let charged = std::mem::take(&mut self.core.charged);
        let mut spent: Vec<(BehaviorId, u64)> = Vec::new();
        for b in charged {
            let d = std::mem::take(&mut self.core.slot_mut(b).spent);
            if took > budget {
                spent.push((b, u64::try_from(d.as_micros()).unwrap_or(u64::MAX)));
            }
        }
        if took > budget {
            spent.sort_by_key(|s| std::cmp::Reverse(s.1));
            spent.truncate(5);
            self.core.record(Event::TickOverrun {
                took_us: u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
                budget_us: u64::try_from(budget.as_micros()).unwrap_or(u64::MAX),
                slowest: spent,
            });
        }
    }
}
