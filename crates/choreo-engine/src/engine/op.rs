//! Operations: each lifecycle operation is a small program of [`Step`]s that the control
//! thread runs one step at a time, parks while it waits (for a hook, a diagram's load, a
//! resource) and resumes later. [`Ops`] holds them under generation-checked ids.

use std::collections::VecDeque;

use crate::graph::{BoxId, DiagramId, Target};
use crate::hook::Hook;
use crate::trace::End;
use choreo_base::Value;

/// What the control thread does next for one operation.
#[derive(Debug, Clone)]
pub(super) enum Step {
    /// Call a hook and wait for it to return.
    Hook(BoxId, Hook),
    /// G1: after an onStart hook, load and forward if it succeeded and no stop came.
    AfterStart(BoxId, u16, Value),
    /// Load the diagram(s) or timeline of a box (R8 step 3).
    LoadContent(BoxId),
    /// Unload the diagram(s) or timeline of a box.
    UnloadContent(BoxId),
    /// R14 (with the keyframe's layer and name for a keyframe diagram). Waits for a load or
    /// unload of the same diagram in progress to finish first.
    LoadDiagram(DiagramId, Option<(String, String)>),
    /// R15. Waits for a load or unload of the same diagram in progress to finish first (a
    /// load in progress is told to load no more boxes).
    UnloadDiagram(DiagramId, Option<(String, String)>),
    /// R6 for a box of a diagram being loaded, unless that load was cancelled.
    LoadBoxIn(DiagramId, BoxId),
    /// The end of a diagram's load: it counts as loaded; operations waiting for it go on.
    LoadDone(DiagramId),
    /// The end of a diagram's unload: it counts as unloaded; operations waiting for it go on.
    UnloadDone(DiagramId),
    /// R6, if not loaded.
    LoadBox(BoxId),
    /// R7, if loaded.
    UnloadBox(BoxId),
    LinksOn(DiagramId),
    LinksOff(DiagramId),
    /// Deliver from owner input `u16` into the loaded diagram `DiagramId`.
    ForwardInto(DiagramId, u16, Value),
    /// Deliver from a box's input into each of its loaded diagrams (R8 step 4, P1).
    Forward(BoxId, u16, Value),
    /// Deliver an output along its links in the parent diagram (R11 step 2).
    Deliver(BoxId, u16, Value),
    /// One link of diagram `d` carries a value, if the diagram's links are still on (an
    /// earlier link of the same output may have turned them off: a Stopped output of the
    /// diagram's owner, R15).
    Link(DiagramId, End, Target, Value),
    /// An output of a box is stimulated by a link from inside its diagram (R11).
    FireOutput(BoxId, u16, Value),
    /// Start a timeline's cursor (R8 step 4), unless it was stopped since the load that
    /// asked for it (the stop count it had then).
    Play(BoxId, u64),
    /// Stimulate the root's onStart (R3), unless a stop came meanwhile.
    StartRoot,
    /// The root's load (its onLoad) is done: a stop waiting for it goes on.
    RootLoaded,
    /// Wait while the root's load is under way (a stop never unloads the root beside its
    /// running onLoad).
    AfterRootLoad,
    /// Q1, Q2: take the box's resources, or wait for them (the op parks), or give up (R9).
    Acquire(BoxId),
    /// Q2: after the holders in the way were acted on, take the resources or wait for them
    /// (`true`: a Lock or Callback holder is in the way, so the wait has a deadline).
    TakeResources(BoxId, bool),
    /// G1: remember "last command = start" (once the resources are held).
    Started(BoxId),
    /// Q5: release what the box holds.
    Release(BoxId),
    /// R9: the resources never came: `onResourceError` if defined, else `onStopped`.
    ResourceError(BoxId),
    /// Fire the box's `onStopped` output, if it has one (R9, R12).
    FireStopped(BoxId),
    /// `beh(end)` (R5).
    EndBehavior,
    /// Destroy every box (R4 step 2).
    Destroy,
}

/// A running operation: the steps left, and whether its last hook succeeded.
pub(super) struct Op {
    pub(super) steps: VecDeque<Step>,
    pub(super) last_ok: bool,
    /// Waiting for a hook to return, or for a diagram's load or unload to finish.
    pub(super) waiting: bool,
    /// Runs only while this box is loaded (checked before each step up to its hook): set
    /// for the operations signals start along links.
    pub(super) guard: Option<BoxId>,
}

/// Names an operation: its slot, and the slot's generation when the operation was made. A
/// slot is reused once its operation ends, with the next generation, so an id kept past the
/// end of its operation (a hook returning after its start was dropped, say) is detected and
/// never acts on the slot's next operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OpId {
    slot: u32,
    generation: u32,
}

/// The operations in flight.
#[derive(Default)]
pub(super) struct Ops {
    /// Per slot: its generation and its operation, if one lives there.
    slots: Vec<(u32, Option<Op>)>,
    /// Slots with no operation, for reuse.
    free: Vec<u32>,
    /// Step queues of ended operations, for reuse (no allocation per operation).
    spare: Vec<VecDeque<Step>>,
    /// Operations alive.
    live: usize,
}

/// How many step queues of ended operations are kept for reuse.
const MAX_SPARE_QUEUES: usize = 64;

impl Ops {
    /// A new operation running `steps` (while box `guard` is loaded, see [`Op::guard`]).
    pub(super) fn insert(
        &mut self,
        steps: impl IntoIterator<Item = Step>,
        guard: Option<BoxId>,
    ) -> OpId {
        let mut queue = self.spare.pop().unwrap_or_default();
        queue.extend(steps);
        let op = Op {
            steps: queue,
            last_ok: true,
            waiting: false,
            guard,
        };
        self.live += 1;
        match self.free.pop() {
            Some(slot) => {
                let entry = &mut self.slots[slot as usize];
                entry.1 = Some(op);
                OpId {
                    slot,
                    generation: entry.0,
                }
            }
            None => {
                let slot = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
                self.slots.push((0, Some(op)));
                OpId {
                    slot,
                    generation: 0,
                }
            }
        }
    }

    /// The operation `id`, if it is still alive.
    pub(super) fn get(&self, id: OpId) -> Option<&Op> {
        match self.slots.get(id.slot as usize) {
            Some((generation, op)) if *generation == id.generation => op.as_ref(),
            _ => None,
        }
    }

    /// The operation `id`, if it is still alive.
    pub(super) fn get_mut(&mut self, id: OpId) -> Option<&mut Op> {
        match self.slots.get_mut(id.slot as usize) {
            Some((generation, op)) if *generation == id.generation => op.as_mut(),
            _ => None,
        }
    }

    /// Ends operation `id` (no effect if it already ended); its slot gets a new generation.
    pub(super) fn remove(&mut self, id: OpId) {
        let Some((generation, slot)) = self.slots.get_mut(id.slot as usize) else {
            return;
        };
        if *generation != id.generation {
            return;
        }
        if let Some(op) = slot.take() {
            *generation = generation.wrapping_add(1);
            self.free.push(id.slot);
            self.live -= 1;
            if self.spare.len() < MAX_SPARE_QUEUES {
                let mut queue = op.steps;
                queue.clear();
                self.spare.push(queue);
            }
        }
    }

    /// How many operations are alive.
    pub(super) fn len(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_id_is_never_acted_on() {
        let mut ops = Ops::default();
        let a = ops.insert([Step::StartRoot], None);
        ops.remove(a);
        let b = ops.insert([Step::Destroy], None);
        assert_ne!(a, b, "the reused slot has a new generation");
        assert!(ops.get(a).is_none());
        assert!(ops.get_mut(a).is_none());
        ops.remove(a);
        assert!(
            ops.get(b).is_some(),
            "removing a stale id leaves the new op alone"
        );
        assert_eq!(ops.len(), 1);
        ops.remove(b);
        assert_eq!(ops.len(), 0);
    }
}
