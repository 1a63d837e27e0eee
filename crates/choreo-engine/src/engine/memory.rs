//! Memory inputs (P3): ALMemory subscriptions while a diagram is loaded.
//!
//! Subscribing and unsubscribing go through the engine's robot thread (a pool of one thread:
//! the calls in order, off the control thread), which the timelines' motion orders use too.

use std::sync::Arc;

use choreo_xar::model::InputNature;

use crate::engine::command::Command;
use crate::engine::state::Control;
use crate::graph::DiagramId;
use crate::robot::MemorySink;

/// The subscription id of memory input `input` for diagram `d` (unique per pair).
fn memory_subscription(d: DiagramId, input: usize) -> u64 {
    (u64::from(d.0) << 16) | input as u64
}

impl Control {
    /// P3: while diagram `d` is loaded, each memory input of its owner that links into it
    /// is subscribed to its ALMemory key; each update is delivered from that input. The
    /// subscription is a robot call, which may block (several round trips over qi): it runs
    /// on the engine's robot thread, never on the control thread (see [`Control::robot_job`]).
    pub(super) fn subscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = Arc::clone(&self.shared.graph);
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            let Some(key) = input.memory_key.clone() else {
                continue;
            };
            if input.nature != InputNature::Memory || g.diagram(d).from_owner[i].is_empty() {
                continue;
            }
            let id = memory_subscription(d, i);
            let queue = self.shared.queue.clone();
            let index = i as u16;
            let sink: MemorySink = Arc::new(move |_key, value| {
                let _ = queue.send(Command::Memory {
                    d,
                    input: index,
                    value,
                });
            });
            let robot = Arc::clone(&robot);
            let queue = self.shared.queue.clone();
            self.robot_job(Box::new(move || {
                if let Err(e) = robot.subscribe(&key, id, sink) {
                    let _ = queue.send(Command::BoxError {
                        b: owner,
                        hook: format!("subscribe {key}").into(),
                        text: e.to_string().into(),
                    });
                }
            }));
        }
    }

    pub(super) fn unsubscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = Arc::clone(&self.shared.graph);
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            if input.nature == InputNature::Memory && input.memory_key.is_some() {
                let robot = Arc::clone(&robot);
                let id = memory_subscription(d, i);
                self.robot_job(Box::new(move || robot.unsubscribe(id)));
            }
        }
    }

    /// Runs a robot call on the engine's robot thread (one thread, so calls keep their
    /// order: an unsubscribe never overtakes its subscribe), counted as an activity. In
    /// virtual time it runs in its turn (see `crate::turn`) and the control thread lets it
    /// finish (or sleep on the clock) first, so traces stay deterministic; a call that blocks
    /// on something else (a half-open connection) loses its turn and no longer holds anything
    /// but the calls queued behind it.
    pub(super) fn robot_job(&mut self, job: Box<dyn FnOnce() + Send>) {
        let time = Arc::clone(&self.shared.time);
        let base = time.busy();
        let counted = time.counted();
        let turn = counted.turn();
        // What this thread recorded comes before what the job records.
        crate::trace::flush_thread_buffer();
        let run = self.robot_calls.run(Box::new(move || {
            counted.take_turn();
            let _counted = counted;
            job();
        }));
        if let Ok(choreo_base::pool::Started::Queued) = run {
            // Behind a call that blocks (it lost its turn): it lines up when it starts.
            time.withdraw_turn(turn);
        }
        if let Err(e) = run {
            // No thread for it: the job (and its count and turn) is dropped; say so.
            drop(e.into_job());
            self.log_run(
                "error",
                "no thread could start for a robot call: it was not made".to_string(),
            );
            return;
        }
        if time.is_virtual() {
            time.wait_for_yield(base);
        }
    }
}
