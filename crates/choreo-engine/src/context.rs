//! What box code reaches: [`BoxContext`] fires outputs, reads and sets parameters, commands
//! timelines, calls the robot, logs, and reads and waits on the clock.

use std::sync::Arc;
use std::time::Duration;

use crate::activity::Activity;
use crate::clock::Time;
use crate::engine::command::{Command, TimelineCommand};
use crate::engine::shared::Shared;
use crate::error::{EngineError, RobotError};
use crate::graph::{BoxId, BoxNode};
use choreo_base::Value;

/// What box code can do with the engine: fire outputs, read and set parameters, command
/// timelines, read and wait on the clock. Cheap to clone.
#[derive(Clone)]
pub struct BoxContext {
    pub(crate) shared: Arc<Shared>,
    pub(crate) id: BoxId,
}

impl BoxContext {
    /// The box instance.
    pub fn id(&self) -> BoxId {
        self.id
    }

    /// The box's fixed data.
    pub fn node(&self) -> &BoxNode {
        self.shared.graph.node(self.id)
    }

    /// Fires output `name` with `value` (P8). Returns at once: downstream hooks run later (C2).
    /// An output the box does not declare is an error ([`EngineError::NoOutput`]).
    pub fn fire(&self, name: &str, value: Value) -> Result<(), EngineError> {
        let Some(index) = self.shared.graph.output_index(self.id, name) else {
            return Err(EngineError::NoOutput {
                path: self.node().path.clone(),
                output: name.to_string(),
            });
        };
        self.shared.post_fire(self.id, index, value);
        Ok(())
    }

    /// The value of parameter `name` (S3): typed by its content type; inherited from the
    /// nearest ancestor with a parameter of that name when it says so, or when the box has
    /// none of that name (349 real calls); `None` if no box on the way up has it.
    pub fn parameter(&self, name: &str) -> Option<Value> {
        self.shared.parameter(self.id, name)
    }

    /// Sets parameter `name` of this box (S4); false if the box has no such parameter.
    pub fn set_parameter(&self, name: &str, value: Value) -> bool {
        self.shared.set_parameter(self.id, name, value)
    }

    /// Sends a command to this box's own timeline (`getTimeline()`).
    pub fn timeline(&self, command: TimelineCommand) {
        self.shared.post(Command::Timeline {
            b: self.id,
            command,
        });
    }

    /// Sends a command to the timeline whose keyframe holds this box (`getParentTimeline()`,
    /// T5); false if the box is not inside a playing timeline.
    pub fn parent_timeline(&self, command: TimelineCommand) -> bool {
        match self.shared.timeline_parent(self.id) {
            Some(owner) => {
                self.shared.post(Command::Timeline { b: owner, command });
                true
            }
            None => false,
        }
    }

    /// The robot, if the engine has one.
    pub fn robot(&self) -> Option<&Arc<dyn crate::robot::Robot>> {
        self.shared.robot.as_ref()
    }

    /// Calls the robot, recording the call and its return in the trace (`svc`, `svc_ret`);
    /// [`RobotError::NoRobot`] if the engine has none.
    pub fn call_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, RobotError> {
        self.traced_robot(format!("{service}.{method}"), args, |robot, args| {
            robot.call(service, method, args)
        })
    }

    /// Starts a robot task (`proxy.post.method(...)`) and returns its id, traced like
    /// [`BoxContext::call_robot`] under the name `service.post.method`.
    pub fn post_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<i64, RobotError> {
        self.traced_robot(format!("{service}.post.{method}"), args, |robot, args| {
            robot.post(service, method, args)
        })
    }

    fn traced_robot<T: Clone + Into<Value>>(
        &self,
        name: String,
        args: Vec<Value>,
        call: impl FnOnce(&dyn crate::robot::Robot, Vec<Value>) -> Result<T, RobotError>,
    ) -> Result<T, RobotError> {
        let Some(robot) = self.shared.robot.clone() else {
            return Err(RobotError::NoRobot);
        };
        self.shared.trace.record_step(
            self.now(),
            self.id,
            crate::trace::Step::RobotCall {
                method: name.clone(),
                args: args.clone(),
            },
        );
        let result = call(robot.as_ref(), args);
        self.shared.trace.record_step(
            self.now(),
            self.id,
            crate::trace::Step::returned(name, &result),
        );
        result
    }

    /// A whole number drawn by box code's `random` among `of` outcomes, its generator's being
    /// `drew`: the outcome the run takes (set by the run or `drew`), traced (`chance`).
    pub fn draw(&self, of: u64, drew: u64) -> u64 {
        let draw = self.shared.time.chance().draw(of, drew);
        self.shared.trace.record_step(
            self.now(),
            self.id,
            crate::trace::Step::Chance {
                draw: draw.number,
                of,
                outcome: draw.outcome,
            },
        );
        draw.outcome
    }

    /// Records a message logged by the box code, with the box path (`log` in the trace).
    pub fn log(&self, level: &str, message: &str) {
        self.log_cut(level, message, 0);
    }

    /// [`BoxContext::log`] of a line whose caller already cut `left_out` characters off its
    /// end (box code's flood, cut before it was copied).
    pub fn log_cut(&self, level: &str, message: &str, left_out: usize) {
        self.shared.trace.record_step(
            self.now(),
            self.id,
            crate::trace::Step::Log {
                level: level.to_string(),
                message: bounded_line(message, left_out),
            },
        );
    }

    /// An exception escaped box code that no hook ran and no box code can catch: an ALMemory
    /// callback, a thread the script started, a future's callback (E2). Logged at error
    /// level for the box, as NAOqi logs it; in strict mode it is an error of the box
    /// instead (an `err` event), and the behavior stops as for a hook's (E3). `source`: what
    /// ran the code (`onTouched`, `thread Thread-1`), the error's hook in the report.
    pub fn uncaught(&self, source: &str, text: &str) {
        if self.shared.strict {
            self.shared.post(Command::BoxError {
                b: self.id,
                hook: source.into(),
                text: text.into(),
            });
        } else {
            self.log("error", text);
        }
    }

    /// The engine's clock and activity count: box code that starts work of its own in the
    /// background (a `qi.async` timer, a thread) runs it through [`Activity::spawn`], so
    /// virtual time waits for it.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.shared.time
    }

    /// The frame rate of this box's own timeline (`getTimeline().getFPS()`, T7).
    pub fn fps(&self) -> u32 {
        self.shared.fps(self.id)
    }

    /// The frame rate of the timeline whose keyframe holds this box
    /// (`getParentTimeline().getFPS()`); `None` outside a playing timeline.
    pub fn parent_fps(&self) -> Option<u32> {
        self.shared
            .timeline_parent(self.id)
            .map(|p| self.shared.fps(p))
    }

    /// Now, in behavior time.
    pub fn now(&self) -> Time {
        self.shared.time.now()
    }

    /// Sleeps for `d` of behavior time (virtual time jumps over it).
    pub fn sleep(&self, d: Duration) {
        self.shared.time.sleep(d);
    }
}

/// The most of one logged line the trace keeps, in characters: a box logging 100 MB in a
/// line (a flood, or a mistake) costs the run at most 64 KiB of it, and the line says how
/// much was cut.
pub const LOG_LINE_MAX: usize = 16 * 1024;

/// `message` cut to [`LOG_LINE_MAX`] characters, saying how many were left out (with
/// `left_out` already cut by the caller).
pub fn bounded_line(message: &str, left_out: usize) -> String {
    let cut = message.char_indices().nth(LOG_LINE_MAX).map(|(at, _)| at);
    let (head, more) = match cut {
        Some(at) => (&message[..at], left_out + message[at..].chars().count()),
        None => (message, left_out),
    };
    if more == 0 {
        return head.to_string();
    }
    format!("{head}… ({more} more characters left out: a logged line keeps {LOG_LINE_MAX})")
}
