//! The robot's work for a stack's Python behavior, held to that behavior's rules.
//!
//! A hook's `cx.call` and `cx.run` are answered by the stack's runner, on its thread, which
//! is choreo's and stays unconfined (it runs the whole stack). What the robot does for the
//! call (`ALDialog.loadTopic` of a path, a sound a method names) reads files on the
//! caller's behalf: it runs on a thread of its own confined in the kernel with the
//! behavior's rules, as a box's robot calls are in `choreo run`
//! (`crate::remote::BoxHost::order_serving`), so the robot cannot read for it what it could
//! not read itself.

use std::sync::Arc;

use choreo_stack::builtins::robot::RobotCall;
use choreo_stack::{Action, ActionError, Completed, World};

use crate::confinement::Confinement;
use crate::project_code::on_a_thread_of_its_own;

/// Runs `work` on a thread confined in the kernel by `confinement` for its whole (short)
/// life, and waits for it; here, unconfined, without one. `Err`: no thread could start.
pub(super) fn held<T: Send>(
    confinement: Option<&Arc<Confinement>>,
    work: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    let Some(confinement) = confinement else {
        return Ok(work());
    };
    // The kernel's layer only: the robot runs no Python here.
    on_a_thread_of_its_own(
        "choreo-held-call",
        || confinement.confine_this_thread(),
        work,
    )
    .map_err(|e| e.to_string())
}

/// `cx.run`'s action: a robot call whose start (where the robot does its work; a posted
/// method's timed part then runs on its own) is [`held`].
pub(super) struct HeldCall {
    pub(super) call: RobotCall,
    pub(super) confinement: Arc<Confinement>,
}

impl Action for HeldCall {
    fn tag(&self) -> String {
        self.call.tag()
    }

    fn start(&mut self, world: &World) -> Result<(), ActionError> {
        let call = &mut self.call;
        held(Some(&self.confinement), || call.start(world))
            .map_err(|e| ActionError::Robot(choreo_engine::RobotError::Failed(e)))?
    }

    fn poll(&mut self, world: &World) -> Option<Completed> {
        self.call.poll(world)
    }

    fn cancel(&mut self, world: &World) {
        self.call.cancel(world);
    }
}
