//! Resources (§6): who holds what, and what happens to a holder in the way (Q1–Q5, R9, R12).

use std::time::Duration;

use crate::clock::{Time, TimerToken};
use crate::engine::command::TimelineCommand;
use crate::engine::op::{OpId, Step};
use crate::engine::state::{Control, LastCommand, ResourceWaiter, Timer};
use crate::graph::BoxId;
use crate::hook::Hook;
use crate::resource::{LockType, ResourceNode};
use crate::trace::Step as TraceStep;

impl Control {
    pub(super) fn names(resources: &[ResourceNode]) -> Vec<String> {
        resources.iter().map(|r| r.name.clone()).collect()
    }

    /// Q1–Q3 for box `b` starting in op `id`: take the resources if free; otherwise act on
    /// each holder in the way by its lock type, and wait (parking the op) or give up (R9).
    pub(super) fn acquire(&mut self, b: BoxId) -> Vec<Step> {
        let wanted = self.shared.graph.node(b).resources.clone();
        self.record(
            b,
            TraceStep::Resource {
                what: "ask".into(),
                names: Self::names(&wanted),
            },
        );
        let conflicts: Vec<(BoxId, LockType, String)> = self
            .resources
            .holdings
            .conflicts(&wanted, |h| self.encloses(h, b))
            .into_iter()
            .map(|(holder, rs)| {
                // The holder's strongest hold decides (the reference's generated code let
                // the last resource decide, a bug: docs/runtime-rules.md §10, 6).
                let strongest = rs
                    .iter()
                    .map(|r| r.lock)
                    .max_by_key(|l| match l {
                        LockType::StopOnDemand => 0,
                        LockType::PauseOnDemand => 1,
                        LockType::CallbackOnDemand => 2,
                        LockType::Lock => 3,
                    })
                    .unwrap_or(LockType::Lock);
                (holder, strongest, rs[0].name.clone())
            })
            .collect();
        let mut blocked = false;
        for (holder, lock, name) in conflicts {
            match lock {
                LockType::Lock => blocked = true,
                LockType::CallbackOnDemand => {
                    blocked = true;
                    if self.code[holder.0 as usize].defines(&Hook::Resource { name: name.clone() })
                    {
                        self.spawn_op(vec![Step::Hook(holder, Hook::Resource { name })]);
                    }
                }
                LockType::StopOnDemand => self.lose(holder),
                LockType::PauseOnDemand => self.pause_for_resources(holder),
            }
        }
        // The holders' stops and callbacks run first, as calls did in the reference.
        vec![Step::TakeResources(b, blocked)]
    }

    /// Q2 after [`Control::acquire`] acted on the holders in the way: take the resources if
    /// they are free now, else wait for them (up to the timeout when `blocked` by a Lock or
    /// Callback holder) or give up at once (timeout 0).
    pub(super) fn take_resources(&mut self, id: OpId, b: BoxId, blocked: bool) -> Vec<Step> {
        let wanted = self.shared.graph.node(b).resources.clone();
        // Stopping a holder may have unloaded this box too (its Stopped output reaching
        // the diagram that holds it): then it does not start at all.
        if !self.boxes[b.0 as usize].loaded {
            if let Some(op) = self.work.ops.get_mut(id) {
                op.steps.clear();
            }
            return Vec::new();
        }
        // Stopped or paused holders may have released at once.
        if self
            .resources
            .holdings
            .conflicts(&wanted, |h| self.encloses(h, b))
            .is_empty()
        {
            self.grant(b, &wanted);
            return Vec::new();
        }
        // Q2: a Lock or Callback holder makes the asker wait up to its timeout (the longest
        // of its resources'); holders being stopped or paused release soon, so waiting for
        // them alone has no deadline.
        let timeout = wanted
            .iter()
            .map(|r| r.timeout)
            .max_by_key(|t| t.map_or(u128::MAX, |d| d.as_nanos()))
            .flatten();
        if blocked && timeout == Some(Duration::ZERO) {
            return self.resource_failed(id, b);
        }
        let deadline = match timeout {
            Some(t) if blocked => {
                let at = Time(self.now().0.saturating_add(t.as_nanos() as u64));
                Some(self.schedule(at, Timer::ResourceDeadline(b)))
            }
            _ => None,
        };
        if let Some(op) = self.work.ops.get_mut(id) {
            op.waiting = true;
        }
        self.resources.waiters.push(ResourceWaiter {
            b,
            op: Some(id),
            deadline,
        });
        // Step again is not needed: the op resumes after this step once granted.
        Vec::new()
    }

    /// Whether `outer` is `b` or a box enclosing it (their resources are shared with it).
    pub(super) fn encloses(&self, outer: BoxId, b: BoxId) -> bool {
        let mut at = Some(b);
        while let Some(x) = at {
            if x == outer {
                return true;
            }
            at = self.shared.graph.node(x).parent.map(|(p, _)| p);
        }
        false
    }

    pub(super) fn grant(&mut self, b: BoxId, resources: &[ResourceNode]) {
        self.resources.holdings.grant(b, resources);
        self.record(
            b,
            TraceStep::Resource {
                what: "got".into(),
                names: Self::names(resources),
            },
        );
    }

    /// Q5: `b` releases what it holds (traced), and waiting boxes that can now go, go.
    pub(super) fn release(&mut self, b: BoxId) {
        let Some(held) = self.resources.holdings.release(b) else {
            return;
        };
        self.resources.losing.remove(&b);
        self.record(
            b,
            TraceStep::Resource {
                what: "free".into(),
                names: Self::names(&held),
            },
        );
        self.grant_waiters();
    }

    /// Grants resources to the waiting boxes that can have them, in arrival order.
    pub(super) fn grant_waiters(&mut self) {
        let mut i = 0;
        while i < self.resources.waiters.len() {
            let b = self.resources.waiters[i].b;
            let wanted = self.shared.graph.node(b).resources.clone();
            if !self
                .resources
                .holdings
                .conflicts(&wanted, |h| self.encloses(h, b))
                .is_empty()
            {
                i += 1;
                continue;
            }
            let w = self.resources.waiters.remove(i);
            if let Some(token) = w.deadline {
                self.cancel_timer(token);
            }
            self.grant(b, &wanted);
            match w.op {
                Some(op) => self.work.resume(op),
                // Paused on demand (Q3): it plays again.
                None => self.timeline_command(b, TimelineCommand::Play),
            }
            // Granting may have started and stopped boxes: look again from the start.
            i = 0;
        }
    }

    /// Box `b` is unloaded: its waits for resources end, and the starts waiting on them are
    /// dropped (no hook of an unloaded box runs).
    pub(super) fn forget_resource_waits(&mut self, b: BoxId) {
        let mut i = 0;
        while i < self.resources.waiters.len() {
            if self.resources.waiters[i].b != b {
                i += 1;
                continue;
            }
            let w = self.resources.waiters.remove(i);
            if let Some(token) = w.deadline {
                self.cancel_timer(token);
            }
            if let Some(op) = w.op {
                self.work.ops.remove(op);
            }
        }
    }

    /// Q2, R9: box `b` waited for its resources until the deadline.
    pub(super) fn resource_timeout(&mut self, b: BoxId, token: TimerToken) {
        let Some(i) = self
            .resources
            .waiters
            .iter()
            .position(|w| w.b == b && w.deadline == Some(token))
        else {
            return;
        };
        let w = self.resources.waiters.remove(i);
        if let Some(op) = w.op {
            let steps = self.resource_failed(op, b);
            if let Some(o) = self.work.ops.get_mut(op) {
                o.steps.extend(steps);
            }
            self.work.resume(op);
        }
    }

    /// R9 for the start op `id` of box `b`: no hook, no load; `onResourceError` or
    /// `onStopped` instead. Returns the steps that replace the rest of the op.
    pub(super) fn resource_failed(&mut self, id: OpId, b: BoxId) -> Vec<Step> {
        let names = Self::names(&self.shared.graph.node(b).resources);
        self.record(
            b,
            TraceStep::Resource {
                what: "timeout".into(),
                names,
            },
        );
        if let Some(op) = self.work.ops.get_mut(id) {
            op.steps.clear();
        }
        vec![Step::ResourceError(b)]
    }

    /// R12: the holder `a` of a "Stop on demand" resource is stopped for another box:
    /// `onResourceLost` if defined, its content unloaded, its resources released, then
    /// `onStopped` if there was no `onResourceLost`.
    pub(super) fn lose(&mut self, a: BoxId) {
        if !self.resources.losing.insert(a) {
            return; // Already being stopped.
        }
        let held = self.shared.graph.node(a).resources.clone();
        self.record(
            a,
            TraceStep::Resource {
                what: "lost".into(),
                names: Self::names(&held),
            },
        );
        self.boxes[a.0 as usize].last = LastCommand::Stop;
        let steps = if self.code[a.0 as usize].defines(&Hook::ResourceLost) {
            vec![
                Step::Hook(a, Hook::ResourceLost),
                Step::UnloadContent(a),
                Step::Release(a),
            ]
        } else {
            vec![
                Step::UnloadContent(a),
                Step::Release(a),
                Step::FireStopped(a),
            ]
        };
        self.spawn_op(steps);
    }

    /// Q3 "Pause on demand": the holder's timeline pauses, it releases, and it waits (with
    /// no deadline) to take its resources again and play on.
    pub(super) fn pause_for_resources(&mut self, a: BoxId) {
        let held = self.shared.graph.node(a).resources.clone();
        self.record(
            a,
            TraceStep::Resource {
                what: "lost".into(),
                names: Self::names(&held),
            },
        );
        self.timeline_command(a, TimelineCommand::Pause);
        if let Some(held) = self.resources.holdings.release(a) {
            self.record(
                a,
                TraceStep::Resource {
                    what: "free".into(),
                    names: Self::names(&held),
                },
            );
        }
        self.resources.waiters.push(ResourceWaiter {
            b: a,
            op: None,
            deadline: None,
        });
    }
}
