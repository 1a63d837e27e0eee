//! The state of the stack, apart from the behaviors themselves: each behavior's slot (its
//! state, scope count, callback, action, conditions), the stack and the stack as it will be
//! once the changes asked for are made, and the queue of those changes. Both the runner and
//! a hook's [`Context`](crate::Context) work on it.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::core::action::Action;
use crate::core::condition::Condition;
use crate::core::trace::{Event, Trace};
use crate::core::types::{BehaviorId, Completed};
use crate::core::world::World;

/// A behavior's state (§2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum State {
    /// Not yet initialized.
    NotInitialized,
    /// Initialized, no active behavior may delegate to it.
    OutOfScope,
    /// An active behavior may delegate to it; not on the stack.
    InScope,
    /// On the stack.
    Activated,
}

/// A stored delegation callback: its token, and once the delegation ended, the tick it ended
/// in and how.
#[derive(Debug)]
pub(crate) struct Callback {
    pub(crate) token: u64,
    pub(crate) done: Option<(u64, Completed)>,
}

/// Per-behavior state kept by the runner.
pub(crate) struct Slot {
    pub(crate) delegates: Vec<BehaviorId>,
    /// The transitive closure of its linked behaviors.
    pub(crate) linked: Vec<BehaviorId>,
    /// The anonymous behaviors it owns: (name, id).
    pub(crate) anonymous: Vec<(String, BehaviorId)>,
    pub(crate) always_delegates: bool,
    pub(crate) subscriptions: Vec<String>,
    pub(crate) state: State,
    pub(crate) scope_refs: u32,
    pub(crate) last_update: u64,
    /// The tick of its last `wants_to_be_activated` and the answer.
    pub(crate) wtba: (u64, bool),
    pub(crate) veto_tick: u64,
    pub(crate) callback: Option<Callback>,
    /// Its action: queued (to start at the end of the tick) or running.
    pub(crate) action: Option<Box<dyn Action>>,
    pub(crate) action_started: bool,
    /// An action that ended and is not yet handled (the tick it ended in, how).
    pub(crate) action_done: Option<(u64, Completed)>,
    pub(crate) wtba_conditions: Vec<Box<dyn Condition>>,
    pub(crate) cancel_conditions: Vec<Box<dyn Condition>>,
    /// Time its hooks took this tick (when timing).
    pub(crate) spent: Duration,
}

impl Slot {
    /// Whether its action is queued, running, or ended and not yet handled (§7 step 3).
    pub(crate) fn action_outstanding(&self) -> bool {
        self.action.is_some() || self.action_done.is_some()
    }
}

/// A stack change asked for by a hook, made when it returns.
#[derive(Debug)]
pub(crate) enum Op {
    /// `by` delegated to `to`.
    Push { by: BehaviorId, to: BehaviorId },
    /// Pop everything above `keep`; its callback gets `done` if it keeps one.
    PopAbove {
        keep: BehaviorId,
        done: Option<Completed>,
    },
    /// Pop everything above `b`, then `b`; its delegator's callback gets `done`.
    PopSelf { b: BehaviorId, done: Completed },
}

/// Everything of the runner but the behaviors themselves (which are taken out of their
/// slots while their hooks run).
pub(crate) struct Core {
    pub(crate) names: Vec<String>,
    pub(crate) ids: HashMap<String, BehaviorId>,
    pub(crate) slots: Vec<Slot>,
    /// Index 0 is the base, the last the top.
    pub(crate) stack: Vec<BehaviorId>,
    /// The stack once the queued changes are made.
    pub(crate) projected: Vec<BehaviorId>,
    pub(crate) queue: VecDeque<Op>,
    pub(crate) trace: Trace,
    pub(crate) world: World,
    /// Behaviors in scope, in the order they entered it (the in-scope pass's order, T4).
    pub(crate) in_scope: Vec<BehaviorId>,
    /// Whether the root entry (whose delegate set is the base) is there.
    pub(crate) root: bool,
    /// Whether hooks are timed (a tick budget is set).
    pub(crate) timing: bool,
    /// The behaviors whose hooks were timed this tick (when timing).
    pub(crate) charged: Vec<BehaviorId>,
    /// The behaviors that have an action (queued, running or ended and not yet handled), in
    /// the order they asked: the action steps of the tick visit these only.
    pub(crate) with_actions: Vec<BehaviorId>,
}

impl Core {
    pub(crate) fn slot(&self, b: BehaviorId) -> &Slot {
        &self.slots[b.index()]
    }

    pub(crate) fn slot_mut(&mut self, b: BehaviorId) -> &mut Slot {
        &mut self.slots[b.index()]
    }

    #[inline]
    pub(crate) fn record(&mut self, event: Event) {
        if self.trace.on() {
            let tick = self.world.tick;
            self.trace.record(tick, event, &self.names);
        }
    }

    pub(crate) fn charge(&mut self, b: BehaviorId, spent: Duration) {
        if let Some(slot) = self.slots.get_mut(b.index()) {
            if slot.spent.is_zero() {
                self.charged.push(b);
            }
            slot.spent += spent;
        }
    }

    pub(crate) fn find(&self, me: BehaviorId, name: &str) -> Option<BehaviorId> {
        self.slot(me)
            .anonymous
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
            .or_else(|| self.ids.get(name).copied())
    }

    /// What a stack entry with delegate set `delegates` keeps in scope (§5.1, P1): its
    /// delegates, then the linked closure of each.
    pub(crate) fn scope_of(&self, delegates: &[BehaviorId]) -> Vec<BehaviorId> {
        let mut v = delegates.to_vec();
        for d in delegates {
            v.extend(self.slot(*d).linked.iter().copied());
        }
        v
    }

    pub(crate) fn is_control_delegated(&self, b: BehaviorId) -> bool {
        self.slot(b).action_outstanding()
            || self
                .projected
                .iter()
                .position(|x| *x == b)
                .is_some_and(|i| i + 1 < self.projected.len())
    }

    pub(crate) fn set_callback(&mut self, b: BehaviorId, token: Option<u64>) {
        self.slot_mut(b).callback = token.map(|token| Callback { token, done: None });
    }

    pub(crate) fn queue_action(&mut self, owner: BehaviorId, action: Box<dyn Action>) {
        let slot = self.slot_mut(owner);
        slot.action = Some(action);
        slot.action_started = false;
        if !self.with_actions.contains(&owner) {
            self.with_actions.push(owner);
        }
    }

    /// `cancel_delegates` of `b` on the projected stack: whether anything goes.
    pub(crate) fn cancel_delegates(&mut self, b: BehaviorId, allow_callback: bool) -> bool {
        let Some(i) = self.projected.iter().position(|x| *x == b) else {
            return false;
        };
        let above = i + 1 < self.projected.len();
        let had_action = self.slot(b).action.is_some();
        if had_action {
            self.cancel_action(b);
        }
        if !allow_callback {
            self.slot_mut(b).callback = None;
        } else if had_action && !above {
            let tick = self.world.tick;
            self.end_callback(b, tick, Completed::Canceled("cancel_delegates".into()));
        }
        if above {
            self.projected.truncate(i + 1);
            self.queue.push_back(Op::PopAbove {
                keep: b,
                done: allow_callback.then(|| Completed::Canceled("cancel_delegates".into())),
            });
        }
        above || had_action
    }

    /// `cancel_self` of `b` (on the projected stack).
    pub(crate) fn cancel_self(&mut self, b: BehaviorId, done: Completed) {
        if let Some(i) = self.projected.iter().position(|x| *x == b) {
            self.projected.truncate(i);
            self.queue.push_back(Op::PopSelf { b, done });
        }
    }

    /// Stops `b`'s action, if any, without a completion.
    pub(crate) fn cancel_action(&mut self, b: BehaviorId) {
        let slot = &mut self.slots[b.index()];
        if let Some(mut action) = slot.action.take()
            && slot.action_started
        {
            action.cancel(&self.world);
        }
        self.slots[b.index()].action_done = None;
    }

    /// Marks `b`'s callback (if it keeps one, not yet ended) as ended in `tick` with `done`.
    pub(crate) fn end_callback(&mut self, b: BehaviorId, tick: u64, done: Completed) {
        if let Some(cb) = self.slot_mut(b).callback.as_mut()
            && cb.done.is_none()
        {
            cb.done = Some((tick, done));
        }
    }

    pub(crate) fn eval_wtba_conditions(&mut self, b: BehaviorId) -> bool {
        self.eval_conditions(b, false)
    }

    /// Evaluates every condition of `b`'s list (`cancel`: the cancel-self list), recording
    /// each: all of them met (`wtba`) or any (`cancel`).
    pub(crate) fn eval_conditions(&mut self, b: BehaviorId, cancel: bool) -> bool {
        let n = if cancel {
            self.slot(b).cancel_conditions.len()
        } else {
            self.slot(b).wtba_conditions.len()
        };
        let mut all = true;
        let mut any = false;
        for k in 0..n {
            let slot = &mut self.slots[b.index()];
            let list = if cancel {
                &mut slot.cancel_conditions
            } else {
                &mut slot.wtba_conditions
            };
            let met = list[k].is_met(&self.world);
            all &= met;
            any |= met;
            let cond = format!("{}[{k}]", if cancel { "cancel" } else { "wtba" });
            self.record(Event::CondEval {
                owner: b,
                cond,
                met,
            });
        }
        if cancel { any } else { all }
    }

    /// Opens or closes the window of `b`'s wtba (`cancel` false) or cancel conditions (K2).
    pub(crate) fn set_conditions_active(&mut self, b: BehaviorId, cancel: bool, active: bool) {
        let n = if cancel {
            self.slot(b).cancel_conditions.len()
        } else {
            self.slot(b).wtba_conditions.len()
        };
        for k in 0..n {
            let slot = &mut self.slots[b.index()];
            let list = if cancel {
                &mut slot.cancel_conditions
            } else {
                &mut slot.wtba_conditions
            };
            list[k].set_active(active, &self.world);
            let cond = format!("{}[{k}]", if cancel { "cancel" } else { "wtba" });
            self.record(Event::CondActive {
                owner: b,
                cond,
                active,
            });
        }
    }
}
