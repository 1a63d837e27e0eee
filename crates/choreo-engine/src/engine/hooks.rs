//! Calling box hooks: inline on the control thread, or on a worker (C1), and their return.

use std::sync::Arc;

use choreo_xar::model::InputNature;

use crate::activity::HookYield;
use crate::clock::Time;
use crate::context::BoxContext;
use crate::engine::op::OpId;
use crate::engine::state::{Control, Pending, SLOW_STOP, Timer};
use crate::engine::workers::{Handed, Job, call_guarded};
use crate::graph::BoxId;
use crate::hook::Hook;
use crate::trace::{Compact, HookRef, Step as TraceStep};

/// Virtual time: how long, in real time, the control thread waits for a hook that loads a
/// nested behavior (whose boxes are being constructed) to return or sleep on the clock.
const NESTED_LOAD_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

impl Control {
    pub(super) fn dispatch(&mut self, op: OpId, b: BoxId, hook: Hook) {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        let name = HookRef::of(&self.shared.graph, b, &hook);
        self.compact(b, Compact::Call(name));
        let code = Arc::clone(&self.code[b.0 as usize]);
        if code.runs_inline() {
            let ctx = BoxContext {
                shared: Arc::clone(&self.shared),
                id: b,
            };
            let (ok, text) = call_guarded(code.as_ref(), &hook, &ctx);
            self.finish_hook(op, b, name, ok, text);
            return;
        }
        let stops = match &hook {
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
        let slow_stop = stops.then(|| {
            let at = Time(self.now().0.saturating_add(SLOW_STOP.as_nanos() as u64));
            self.schedule(at, Timer::SlowStop(ticket))
        });
        self.waiting.insert(
            ticket,
            Pending {
                op,
                b,
                hook: name,
                slow_stop,
            },
        );
        if let Some(o) = self.ops.get_mut(op) {
            o.waiting = true;
        }
        let shared = Arc::clone(&self.shared);
        // Activities running beside this control thread: a nested engine's own count comes
        // and goes with what is posted to it (a hook of its own may post, and count it
        // again, while this waits), so it is left out of both sides of the comparison.
        let base = shared.time.busy().saturating_sub(shared.own_count());
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
        });
        if matches!(handed, Handed::Queued) && !self.cap_reported {
            self.cap_reported = true;
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
        if shared.time.is_virtual() {
            // Determinism: let the hook run until it returns or waits (sleeps on the clock,
            // or waits for a nested run it started), and the nested runs (other than this
            // engine itself) until they have nothing left to do at this instant; while a
            // nested behavior it loads is constructed, up to NESTED_LOAD_WAIT (commands, a
            // stop, must get their turn some day).
            let own = usize::from(shared.accounted.is_some());
            let time = &shared.time;
            let ready = || {
                time.busy().saturating_sub(shared.own_count()) <= base
                    && progress.yielded()
                    && time.nested_busy() <= own
            };
            time.wait_until(ready);
            let patience = std::time::Instant::now() + NESTED_LOAD_WAIT;
            while !ready() && time.nested_loads() && std::time::Instant::now() < patience {
                time.wait_until(ready);
            }
            if !progress.yielded() && self.waiting.contains_key(&ticket) {
                // It waits on something else (a lock, a queue, real I/O): the run goes on,
                // but its order is now up to the OS; say so.
                let hook = name.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "{hook} neither returned nor slept on the clock within 2 s of real \
                             time (it waits on something else); the run goes on without \
                             waiting for it"
                        ),
                    },
                );
            } else if !ready() {
                // Another activity kept busy at this instant (a nested run, robot work): the
                // order of what follows is now up to the OS; say so.
                let hook = name.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "after {hook}, other activities at this instant (a nested run, \
                             robot work) were still busy after 2 s of real time; the run goes \
                             on without waiting for them"
                        ),
                    },
                );
            }
        }
    }

    pub(super) fn hook_done(&mut self, ticket: u64, ok: bool, text: String) {
        let Some(Pending {
            op,
            b,
            hook,
            slow_stop,
        }) = self.waiting.remove(&ticket)
        else {
            return;
        };
        if let Some(token) = slow_stop {
            self.cancel_timer(token);
        }
        self.finish_hook(op, b, hook, ok, text);
        self.resume(op);
    }

    /// Records a hook's return and lets its op go on with the result (G1).
    pub(super) fn finish_hook(
        &mut self,
        op: OpId,
        b: BoxId,
        hook: HookRef,
        ok: bool,
        text: String,
    ) {
        self.compact(b, Compact::Ret(hook, ok));
        if !ok {
            let hook = hook.name(&self.shared.graph, b);
            self.box_error(b, hook, text);
        }
        if let Some(o) = self.ops.get_mut(op) {
            o.last_ok = ok;
            o.waiting = false;
        }
    }
}
