//! Actions: what a behavior delegates to when it wants the robot to do something (say,
//! move, take a posture) rather than hand control to another behavior (behavior-stack.md
//! §9). They are not pushed on the stack; each behavior owns its own (A3).

use crate::core::types::Completed;
use crate::core::world::World;

/// Something the robot does over several ticks. The runner starts it at the end of the tick
/// it was delegated in (behaviors decide first, actions execute second), polls it once a tick
/// after that, and cancels it when its owner cancels its delegates or is deactivated.
pub trait Action: Send {
    /// A short name for the trace (`say`, `posture StandInit`).
    fn tag(&self) -> String;

    /// Starts it. An `Err` ends it at once as a failure, with why.
    fn start(&mut self, world: &World) -> Result<(), ActionError>;

    /// Whether it ended, and how (`None`: still running).
    fn poll(&mut self, world: &World) -> Option<Completed>;

    /// Stops it before it ended.
    fn cancel(&mut self, world: &World);
}

/// Why an action could not start: it then ends at once as a failure saying so.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// The stack runs without a robot.
    #[error("no robot")]
    NoRobot,
    /// The robot refused the call that starts it.
    #[error(transparent)]
    Robot(#[from] choreo_engine::RobotError),
}
