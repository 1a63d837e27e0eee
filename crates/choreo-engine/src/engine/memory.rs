//! Memory inputs (P3): ALMemory subscriptions while a diagram is loaded.

use std::sync::Arc;

use choreo_xar::model::InputNature;

use crate::engine::command::Command;
use crate::engine::state::Control;
use crate::graph::DiagramId;
use crate::robot::MemorySink;
use crate::trace::Step as TraceStep;

/// The subscription id of memory input `input` for diagram `d` (unique per pair).
fn memory_subscription(d: DiagramId, input: usize) -> u64 {
    (u64::from(d.0) << 16) | input as u64
}

impl Control {
    /// P3: while diagram `d` is loaded, each memory input of its owner that links into it
    /// is subscribed to its ALMemory key; each update is delivered from that input.
    pub(super) fn subscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = &self.shared.graph;
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            let Some(key) = input.memory_key.as_deref() else {
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
            if let Err(e) = robot.subscribe(key, id, sink) {
                self.record(
                    owner,
                    TraceStep::Err {
                        hook: format!("subscribe {key}"),
                        text: e.to_string(),
                    },
                );
            }
        }
    }

    pub(super) fn unsubscribe_memory(&mut self, d: DiagramId) {
        let Some(robot) = self.shared.robot.clone() else {
            return;
        };
        let g = &self.shared.graph;
        let owner = g.diagram(d).owner;
        for (i, input) in g.node(owner).inputs.iter().enumerate() {
            if input.nature == InputNature::Memory && input.memory_key.is_some() {
                robot.unsubscribe(memory_subscription(d, i));
            }
        }
    }
}
