//! Conditions (behavior-stack.md §10.1): tests a behavior's activation and its staying active
//! depend on, each evaluated only inside its window (K1) and that window tied to its owner's
//! state (K2).

use crate::core::world::World;

/// A condition of a behavior: one of its `wantsToBeActivatedCondition`s (open while the owner
/// is in scope and not activated) or `wantsToCancelSelfCondition`s (open while it is
/// activated).
pub trait Condition: Send {
    /// What it tests, for the trace and errors (`timer 2 s`, `memory Key > 3`).
    fn describe(&self) -> String;

    /// Its window opened (`true`) or closed: a stateful condition (a timer, "became true")
    /// starts afresh on opening.
    fn set_active(&mut self, active: bool, world: &World) {
        let _ = (active, world);
    }

    /// The input names it watches (an `InputSeen`'s): a runner fed from a robot subscribes
    /// to them.
    fn inputs(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether it holds now; asked only while its window is open, at most once a tick per
    /// use.
    fn is_met(&mut self, world: &World) -> bool;
}
