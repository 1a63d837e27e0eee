//! What behaviors, conditions and actions may read of the world at a tick: the tick and its
//! time, this tick's inputs, the robot.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use choreo_engine::Robot;

use crate::core::input::Input;

/// The world as the runner sees it during one tick.
pub struct World {
    /// The tick (1 for the first; 0 before it, while behaviors are initialized).
    pub tick: u64,
    /// The stack's time at this tick: the ticks before it times the tick period (0 at the
    /// first; virtual or real time alike).
    pub now: Duration,
    /// The inputs that arrived for this tick, in order.
    pub inputs: Vec<Input>,
    /// The last tick each behavior (by name) ended on its own (cancelled itself, whatever
    /// the reason), not popped by another: what a `BehaviorFinished` condition reads.
    pub finished: HashMap<String, u64>,
    /// The robot actions and conditions talk to, if any.
    pub robot: Option<Arc<dyn Robot>>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("tick", &self.tick)
            .field("now", &self.now)
            .field("inputs", &self.inputs)
            .field("robot", &self.robot.is_some())
            .finish()
    }
}
