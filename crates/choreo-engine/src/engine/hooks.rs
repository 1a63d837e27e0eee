//! Calling box hooks: inline on the control thread, or on a worker (C1), and their return.

use std::sync::Arc;

use choreo_xar::model::InputNature;

use crate::activity::HookYield;
use crate::clock::{Time, TimerToken};
use crate::context::BoxContext;
use crate::engine::command::Returned;
use crate::engine::op::OpId;
use crate::engine::state::{Control, Pending, SLOW_STOP, Timer};
use crate::engine::workers::{Handed, Job, call_unmarked};
use crate::graph::BoxId;
use crate::hook::Hook;
use crate::trace::{Compact, HookRef, Step as TraceStep};

impl Control {
    pub(super) fn dispatch(&mut self, op: OpId, b: BoxId, hook: Hook) {
        if self.boxes[b.0 as usize].inline {
            let name = HookRef::of(&self.shared.graph, b, &hook);
            let ok = self.call_inline(b, &hook, name);
            self.work.hook_result(op, ok);
            return;
        }
        let ticket = self.pending.next_ticket;
        self.pending.next_ticket += 1;
        let name = HookRef::of(&self.shared.graph, b, &hook);
        self.compact(b, Compact::Call(name));
        let code = Arc::clone(&self.code[b.0 as usize]);
        let slow_stop = self.slow_stop_timer(b, &hook, ticket);
        // Virtual time: its place in the turns (crate::turn), after whoever runs now.
        let turn = self.shared.time.enlist_turn();
        self.pending.waiting.insert(
            ticket,
            Pending {
                op,
                b,
                hook: name,
                slow_stop,
                turn,
            },
        );
        if let Some(o) = self.work.ops.get_mut(op) {
            o.waiting = true;
        }
        let shared = Arc::clone(&self.shared);
        // Activities running beside this control thread: a nested engine's own count comes
        // and goes with what is posted to it (a hook of its own may post, and count it
        // again, while this waits), so it is left out of both sides of the comparison; so are
        // the engines whose box code loaded this one (they wait for it, see
        // `Shared::ancestors`).
        let others = || {
            shared
                .time
                .busy()
                .saturating_sub(shared.own_count() + shared.ancestors_counting())
        };
        let base = others();
        let progress = HookYield::new();
        shared.time.begin();
        crate::trace::flush_thread_buffer();
        let handed = self.workers.run(Job {
            code,
            hook,
            ctx: BoxContext {
                shared: Arc::clone(&shared),
                id: b,
            },
            ticket,
            progress: Arc::clone(&progress),
            turn,
        });
        if matches!(handed, Handed::Queued) {
            self.say_workers_capped(b);
        }
        if shared.time.is_virtual() {
            // Determinism: let the hook run until it returns or waits (sleeps on the clock,
            // or waits for a nested run it started), and the nested runs (other than this
            // engine itself, and those whose box code waits for it) until they have nothing
            // left to do at this instant. However long that takes: a hook that waits on
            // something else or never waits loses its turn (crate::turn), and is said to.
            let own = usize::from(shared.accounted.is_some());
            let time = &shared.time;
            let ready = || {
                others() <= base
                    && (progress.yielded() || turn.is_some_and(|t| time.turns().is_outside(t)))
                    && time
                        .nested_busy()
                        .saturating_sub(shared.ancestors_counting())
                        <= own
            };
            let done = time.wait_until(ready);
            self.report_turns();
            if !done {
                // A counted activity outside the turns kept busy at this instant: the order
                // of what follows is now up to the OS; say so.
                let hook = name.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "after {hook}, other activities at this instant were still busy \
                             after 2 s of real time; the run goes on without waiting for them"
                        ),
                    },
                );
            }
        }
    }

    /// A stopping hook (onUnload, an onStop input) gets a timer: past [`SLOW_STOP`] the
    /// trace says it is slow to stop.
    fn slow_stop_timer(&mut self, b: BoxId, hook: &Hook, ticket: u64) -> Option<TimerToken> {
        let stops = match hook {
            Hook::Unload => true,
            Hook::Input { name: input, .. } => self
                .shared
                .graph
                .node(b)
                .inputs
                .iter()
                .any(|p| p.name == *input && p.nature == InputNature::OnStop),
            _ => false,
        };
        stops.then(|| {
            let at = Time(self.now().0.saturating_add(SLOW_STOP.as_nanos() as u64));
            self.schedule(at, Timer::SlowStop(ticket))
        })
    }

    /// The trace says once that hooks wait for a worker: the pool is at its cap.
    fn say_workers_capped(&mut self, b: BoxId) {
        if self.watch.cap_reported {
            return;
        }
        self.watch.cap_reported = true;
        self.record(
            b,
            TraceStep::Log {
                level: "warning".into(),
                message: "every worker thread is busy and their number is at its cap: \
                          this hook waits for one to free"
                    .into(),
            },
        );
    }

    /// Says, in the trace, which activities lost their turn (crate::turn) and why: a hook of
    /// this engine by its name, anything else as background work.
    pub(super) fn report_turns(&mut self) {
        for (turn, why) in self.shared.time.turns().notices() {
            let hook = self
                .pending
                .waiting
                .values()
                .find(|p| p.turn == Some(turn))
                .map(|p| (p.b, p.hook));
            let message = format!(
                "{why}: it goes on beside the others, and the order of what it does until it \
                 next waits is up to the OS"
            );
            match hook {
                Some((b, hook)) => {
                    let hook = hook.name(&self.shared.graph, b);
                    self.record(
                        b,
                        TraceStep::Log {
                            level: "warning".into(),
                            message: format!("{hook} {message}"),
                        },
                    );
                }
                None => self.log_run(
                    "warning",
                    format!("background work (a robot task or a thread of box code) {message}"),
                ),
            }
        }
    }

    pub(super) fn hook_done(&mut self, ticket: u64, returned: Returned) {
        let Some(Pending {
            op,
            b,
            hook,
            slow_stop,
            ..
        }) = self.pending.waiting.remove(&ticket)
        else {
            return;
        };
        if let Some(token) = slow_stop {
            self.cancel_timer(token);
        }
        self.finish_hook(op, b, hook, returned);
        self.work.resume(op);
    }

    /// Calls the hook of box `b` (`name`: how the graph knows it), whose code runs inline,
    /// here and now, its call and its return recorded; whether it succeeded.
    #[inline(always)]
    pub(super) fn call_inline(&mut self, b: BoxId, hook: &Hook, name: HookRef) -> bool {
        self.compact(b, Compact::Call(name));
        self.inline.id = b;
        let returned = call_unmarked(self.code[b.0 as usize].as_ref(), hook, &self.inline);
        self.hook_returned(b, name, returned)
    }

    /// Records a hook's return and lets its op go on with the result (G1).
    pub(super) fn finish_hook(&mut self, op: OpId, b: BoxId, hook: HookRef, returned: Returned) {
        let ok = self.hook_returned(b, hook, returned);
        self.work.hook_result(op, ok);
    }

    /// Records a hook's return; a failed one is a box error. Whether it returned.
    #[inline(always)]
    fn hook_returned(&mut self, b: BoxId, hook: HookRef, returned: Returned) -> bool {
        self.compact(b, Compact::Ret(hook, returned.is_ok()));
        match returned {
            Ok(()) => true,
            Err(text) => {
                self.hook_failed(b, hook, text);
                false
            }
        }
    }

    #[cold]
    fn hook_failed(&mut self, b: BoxId, hook: HookRef, text: String) {
        let hook = hook.name(&self.shared.graph, b);
        self.box_error(b, hook, text);
    }
}
