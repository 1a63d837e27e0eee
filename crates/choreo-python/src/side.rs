//! The engine as box code reaches it ([`EngineSide`]): the box's own context when box code
//! runs in choreo's process (`--no-sandbox`), or the engine across the box host's channel
//! when it runs in a process of its own (`crate::remote`). The box API, the runtime and the
//! box's state are written once against it, so both run the same Python the same way.
//!
//! [`BoxInfo`] is what box code knows of its box without asking: copied once when the box
//! is constructed, so that a name, a path or a port list never costs a message.

use std::time::Duration;

use choreo_engine::graph::{BoxNode, Content};
use choreo_engine::{BoxContext, EngineError, RobotError, TimelineCommand, Value};

/// What box code knows of its box (from the engine's `BoxNode`), fixed for its life.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxInfo {
    /// The box's index in its behavior (the engine's `BoxId`).
    pub id: u32,
    /// `root/Dance/Say`.
    pub path: String,
    /// The display name.
    pub name: String,
    /// The enclosing box's index; `None` for the root.
    pub parent: Option<u32>,
    /// Whether it takes resources when started.
    pub has_resources: bool,
    /// Input names, in file order.
    pub inputs: Vec<String>,
    /// Output names, in file order.
    pub outputs: Vec<String>,
    /// Parameter names, in file order.
    pub parameters: Vec<String>,
    /// The end frame of its timeline (0 when it has none).
    pub end_frame: i64,
    /// The script.
    pub code: String,
}

impl BoxInfo {
    /// What box code knows of `node`, box `id` of its behavior.
    pub fn of(node: &BoxNode, id: u32) -> BoxInfo {
        BoxInfo {
            id,
            path: node.path.clone(),
            name: node.name.clone(),
            parent: node.parent.map(|(p, _)| p.0),
            has_resources: !node.resources.is_empty(),
            inputs: node.inputs.iter().map(|p| p.name.to_string()).collect(),
            outputs: node.outputs.iter().map(|p| p.name.to_string()).collect(),
            parameters: node.parameters.iter().map(|p| p.name.clone()).collect(),
            end_frame: match &node.content {
                Content::Timeline(t) => t.end_frame.unwrap_or(0),
                _ => 0,
            },
            code: node.code.clone(),
        }
    }
}

/// The run's clock as box code reads it without asking: virtual or real, the seed of its
/// random numbers, the wall clock at behavior time 0 (ms since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockFacts {
    /// Virtual time.
    pub virtual_time: bool,
    /// `choreo_engine::Options::seed`.
    pub seed: u64,
    /// `choreo_engine::Options::start_time`.
    pub start_ms: u64,
}

/// Work box code hands the engine to run in the background (a thread, a callback).
pub type Work = Box<dyn FnOnce() + Send>;

pub use crate::mailbox::Deliver;

/// What box code asks of the engine and the robot. Calls that may block (`sleep`, robot
/// calls) are made without the interpreter lock.
pub trait EngineSide: Send + Sync {
    /// Fires output `name` (P8); an error names an output the box does not declare.
    fn fire(&self, name: &str, value: Value) -> Result<(), EngineError>;
    /// `getParameter` (S3).
    fn parameter(&self, name: &str) -> Option<Value>;
    /// `setParameter` (S4); false without such a parameter.
    fn set_parameter(&self, name: &str, value: Value) -> bool;
    /// A command to the box's own timeline.
    fn timeline(&self, command: TimelineCommand);
    /// A command to the timeline holding the box; false outside one.
    fn parent_timeline(&self, command: TimelineCommand) -> bool;
    /// The own timeline's frame rate.
    fn fps(&self) -> u32;
    /// The parent timeline's frame rate; `None` outside one.
    fn parent_fps(&self) -> Option<u32>;
    /// `service.method(args)` on the robot, traced.
    fn call_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, RobotError>;
    /// `service.post.method(args)`: the task's id.
    fn post_robot(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError>;
    /// Whether the run has a robot.
    fn has_robot(&self) -> bool;
    /// Whether the robot has module `service` (yes without a robot: the call then says).
    fn has_service(&self, service: &str) -> bool;
    /// A log line, `left_out` characters already cut off its end.
    fn log_cut(&self, level: &str, message: &str, left_out: usize);
    /// An exception no box code can catch (E2), from `source`.
    fn uncaught(&self, source: &str, text: &str);
    /// Now, in behavior time (from the run's start).
    fn now(&self) -> Duration;
    /// Sleeps `d` of behavior time; the time it woke at (one question less for box code
    /// that polls: in a box host each is a round trip).
    fn sleep(&self, d: Duration) -> Duration;
    /// Lets the activities waiting for their turn at this instant run first.
    fn pass_turn(&self);
    /// A whole number drawn by box code's `random` among `of` outcomes, the generator's
    /// being `drew`: the outcome the run takes (`choreo_engine::chance`), traced.
    fn draw(&self, of: u64, drew: u64) -> u64;
    /// The run's clock.
    fn clock(&self) -> ClockFacts;
    /// Runs `work` on a new thread counted by the engine (virtual time waits for it).
    fn spawn(&self, name: &str, work: Work) -> std::io::Result<()>;
    /// Delivers every update of ALMemory `key` to `deliver`, in order, until
    /// [`EngineSide::unsubscribe`] with `id`.
    fn subscribe(&self, key: &str, id: u64, deliver: Deliver) -> Result<(), RobotError>;
    /// Delivers every emission of `service.signal` to `deliver` (its name and arguments).
    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: u64,
        deliver: Deliver,
    ) -> Result<(), RobotError>;
    /// Ends subscription `id`.
    fn unsubscribe(&self, id: u64);
    /// Installs NAOqi OS's package imported as `name` into the package cache, as choreo's
    /// own work; `None`, or why it could not.
    fn install_package(&self, name: &str) -> Option<String>;
}

/// In choreo's process: the box's own context.
pub(crate) struct Local(pub(crate) BoxContext);

impl EngineSide for Local {
    fn fire(&self, name: &str, value: Value) -> Result<(), EngineError> {
        self.0.fire(name, value)
    }

    fn parameter(&self, name: &str) -> Option<Value> {
        self.0.parameter(name)
    }

    fn set_parameter(&self, name: &str, value: Value) -> bool {
        self.0.set_parameter(name, value)
    }

    fn timeline(&self, command: TimelineCommand) {
        self.0.timeline(command);
    }

    fn parent_timeline(&self, command: TimelineCommand) -> bool {
        self.0.parent_timeline(command)
    }

    fn fps(&self) -> u32 {
        self.0.fps()
    }

    fn parent_fps(&self) -> Option<u32> {
        self.0.parent_fps()
    }

    fn call_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, RobotError> {
        self.0.call_robot(service, method, args)
    }

    fn post_robot(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        self.0.post_robot(service, method, args)
    }

    fn has_robot(&self) -> bool {
        self.0.robot().is_some()
    }

    fn has_service(&self, service: &str) -> bool {
        self.0.robot().is_none_or(|r| r.has_service(service))
    }

    fn log_cut(&self, level: &str, message: &str, left_out: usize) {
        self.0.log_cut(level, message, left_out);
    }

    fn uncaught(&self, source: &str, text: &str) {
        self.0.uncaught(source, text);
    }

    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.now().0)
    }

    fn sleep(&self, d: Duration) -> Duration {
        self.0.sleep(d);
        self.now()
    }

    fn pass_turn(&self) {
        self.0.activity().pass_turn();
    }

    fn draw(&self, of: u64, drew: u64) -> u64 {
        self.0.draw(of, drew)
    }

    fn clock(&self) -> ClockFacts {
        clock_of(&self.0)
    }

    fn spawn(&self, name: &str, work: Work) -> std::io::Result<()> {
        self.0.activity().spawn(name, work)
    }

    fn subscribe(&self, key: &str, id: u64, deliver: Deliver) -> Result<(), RobotError> {
        let robot = self.0.robot().ok_or(RobotError::NoRobot)?;
        let sink = crate::mailbox::Mailbox::sink(self.0.activity(), deliver);
        robot.subscribe(key, id, sink)
    }

    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: u64,
        deliver: Deliver,
    ) -> Result<(), RobotError> {
        let robot = self.0.robot().ok_or(RobotError::NoRobot)?;
        let sink = crate::mailbox::Mailbox::sink(self.0.activity(), deliver);
        robot.connect_signal(service, signal, id, sink)
    }

    fn unsubscribe(&self, id: u64) {
        if let Some(robot) = self.0.robot() {
            robot.unsubscribe(id);
        }
    }

    fn install_package(&self, name: &str) -> Option<String> {
        let name = name.to_string();
        choreo_sandbox::landlock::helped(move || crate::packages::install(&name))
    }
}

/// The clock facts of the engine `ctx` belongs to.
pub(crate) fn clock_of(ctx: &BoxContext) -> ClockFacts {
    let time = ctx.activity();
    ClockFacts {
        virtual_time: time.is_virtual(),
        seed: time.seed(),
        start_ms: time.start_ms(),
    }
}
