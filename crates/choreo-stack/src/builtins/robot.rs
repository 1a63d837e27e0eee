//! Leaves that act through the robot: a robot call run as an action (`say`, an animation, a
//! posture, any NAOqi method), and a Choregraphe behavior played as a leaf through the
//! robot's ALBehaviorManager, as an application on a NAO starts one. Both work the same on
//! the simulated robot and on a real one.

use choreo_engine::Value;

use crate::core::action::{Action, ActionError};
use crate::core::behavior::Context;
use crate::core::behavior::{Behavior, Completed};
use crate::core::world::World;

/// `service.method(args)` posted to the robot (`proxy.post.method`): it runs until the
/// service's `isRunning(id)` says no; cancelling calls `stop(id)`.
#[derive(Debug, Clone)]
pub struct RobotCall {
    /// The NAOqi module.
    pub service: String,
    /// The method.
    pub method: String,
    /// Its arguments.
    pub args: Vec<Value>,
    task: Option<i64>,
}

impl RobotCall {
    /// The call `service.method(args)`.
    pub fn new(service: &str, method: &str, args: Vec<Value>) -> RobotCall {
        RobotCall {
            service: service.to_string(),
            method: method.to_string(),
            args,
            task: None,
        }
    }
}

impl Action for RobotCall {
    fn tag(&self) -> String {
        format!("{}.{}", self.service, self.method)
    }

    fn start(&mut self, world: &World) -> Result<(), ActionError> {
        let robot = world.robot.as_ref().ok_or(ActionError::NoRobot)?;
        let id = robot.post(&self.service, &self.method, self.args.clone())?;
        self.task = Some(id);
        Ok(())
    }

    fn poll(&mut self, world: &World) -> Option<Completed> {
        let (Some(robot), Some(id)) = (world.robot.as_ref(), self.task) else {
            return Some(Completed::Failure("not started".into()));
        };
        match robot.call(&self.service, "isRunning", vec![Value::Int(id)]) {
            Ok(Value::Bool(true)) => None,
            Ok(_) => Some(Completed::Success),
            Err(e) => Some(Completed::Failure(e.to_string())),
        }
    }

    fn cancel(&mut self, world: &World) {
        if let (Some(robot), Some(id)) = (world.robot.as_ref(), self.task) {
            // Already ended, or the robot is gone: nothing left to stop.
            let _ = robot.call(&self.service, "stop", vec![Value::Int(id)]);
        }
    }
}

/// A leaf that runs one robot call as its action and ends when it does, its delegator's
/// callback getting the call's outcome (`Say`, `Animation`, `Posture`, `RobotCall`).
#[derive(Debug)]
pub struct CallLeaf {
    call: RobotCall,
}

impl CallLeaf {
    /// A leaf running `call`.
    pub fn new(call: RobotCall) -> CallLeaf {
        CallLeaf { call }
    }
}

impl Behavior for CallLeaf {
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        cx.robot().is_some()
    }

    fn on_activated(&mut self, cx: &mut Context<'_>) {
        if cx
            .delegate_action(Box::new(self.call.clone()), Some(0))
            .is_err()
        {
            let _ = cx.cancel_self_with(Completed::Failure("the action was refused".into()));
        }
    }

    fn on_delegation_done(&mut self, cx: &mut Context<'_>, _token: u64, done: Completed) {
        let _ = cx.cancel_self_with(done);
    }
}

/// A Choregraphe behavior as a leaf (`PlayChoregraphe`): activated, it is started with
/// `ALBehaviorManager.startBehavior(name)`; once `isBehaviorRunning(name)` says it ended, the
/// leaf cancels itself; deactivated first, it is stopped (`stopBehavior`, which waits for its
/// boxes to unload).
#[derive(Debug)]
pub struct PlayChoregraphe {
    /// The behavior's name on the robot (an installed behavior).
    name: String,
    started: bool,
}

impl PlayChoregraphe {
    /// Plays the installed behavior `name`.
    pub fn new(name: &str) -> PlayChoregraphe {
        PlayChoregraphe {
            name: name.to_string(),
            started: false,
        }
    }

    fn call(&self, cx: &Context<'_>, method: &str) -> Result<Value, String> {
        let robot = cx.robot().ok_or("no robot")?;
        robot
            .call(
                "ALBehaviorManager",
                method,
                vec![Value::String(self.name.clone())],
            )
            .map_err(|e| e.to_string())
    }
}

impl Behavior for PlayChoregraphe {
    fn always_delegates(&self) -> bool {
        false
    }

    /// It wants to run when the robot has it installed.
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        matches!(self.call(cx, "isBehaviorInstalled"), Ok(Value::Bool(true)))
    }

    fn on_activated(&mut self, cx: &mut Context<'_>) {
        match self.call(cx, "startBehavior") {
            Ok(_) => self.started = true,
            Err(why) => {
                self.started = false;
                let _ = cx.cancel_self_with(Completed::Failure(why));
            }
        }
    }

    fn update(&mut self, cx: &mut Context<'_>) {
        if !cx.is_activated() || !self.started {
            return;
        }
        match self.call(cx, "isBehaviorRunning") {
            Ok(Value::Bool(true)) => {}
            Ok(_) => {
                self.started = false;
                let _ = cx.cancel_self();
            }
            Err(why) => {
                self.started = false;
                let _ = cx.cancel_self_with(Completed::Failure(why));
            }
        }
    }

    fn on_deactivated(&mut self, cx: &mut Context<'_>) {
        if std::mem::take(&mut self.started) {
            // Stopped before its end: stop it (an error here means it is gone already).
            let _ = self.call(cx, "stopBehavior");
        }
    }
}
