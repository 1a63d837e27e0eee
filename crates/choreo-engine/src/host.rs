//! The script-host boundary: the engine calls box code through [`BoxCode`] and box code
//! reaches the engine through [`BoxContext`]. Python boxes (choreo-python) and native Rust
//! boxes are implementations; the engine knows nothing of either.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::activity::Activity;
use crate::clock::Time;
use crate::engine::{Command, Shared};
use crate::graph::{BoxId, BoxNode};
use crate::value::Value;

/// Which script hook the engine calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Hook {
    /// `onLoad` (R6).
    Load,
    /// `onUnload` (R7).
    Unload,
    /// `onInput_<name>` with the delivered value (a bang is [`Value::None`]).
    Input {
        /// The input's name.
        name: String,
        /// The value.
        value: Value,
    },
    /// `onResourceLost`: a resource held with "Stop on demand" is wanted elsewhere (R12).
    ResourceLost,
    /// `onResourceError`: the resources were still busy when the timeout expired (R9).
    ResourceError,
    /// `onResource(name)`: a resource held with "Callback on demand" is wanted elsewhere (Q3).
    Resource {
        /// The resource asked for.
        name: String,
    },
}

impl Hook {
    /// The hook's script name (`onLoad`, `onUnload`, `onInput_onStart`).
    pub fn script_name(&self) -> String {
        match self {
            Hook::Load => "onLoad".to_string(),
            Hook::Unload => "onUnload".to_string(),
            Hook::Input { name, .. } => format!("onInput_{name}"),
            Hook::ResourceLost => "onResourceLost".to_string(),
            Hook::ResourceError => "onResourceError".to_string(),
            Hook::Resource { .. } => "onResource".to_string(),
        }
    }
}

/// The code of one box instance. Called on worker threads, possibly several hooks at once
/// (C1, C3). An `Err` is an exception escaping the hook (E1).
pub trait BoxCode: Send + Sync {
    /// Runs a hook. A missing hook is not an error: return `Ok(())`.
    fn call(&self, hook: &Hook, ctx: &BoxContext) -> Result<(), String>;

    /// Whether the box defines an optional hook whose absence changes what the engine does
    /// (`onResourceLost`, `onResourceError`, `onResource`: R9, R12, Q3). Other hooks are
    /// always called; a missing one just returns.
    fn defines(&self, hook: &Hook) -> bool {
        let _ = hook;
        false
    }

    /// True for code that never blocks (no sleep, no waiting on anything): the engine then
    /// runs its hooks on the control thread, skipping the hand-off to a worker.
    fn runs_inline(&self) -> bool {
        false
    }
}

/// Makes box code for box instances; one per behavior run.
pub trait ScriptHost: Send + Sync {
    /// Constructs the code of `node` (R1 `new(B)`); an error fails the behavior's load.
    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, String>;

    /// Called once at load, with every box, before any is constructed: work a host does
    /// better in one batch (the Python host compiles every script before running any).
    fn prepare(&self, graph: &crate::graph::Graph) {
        let _ = graph;
    }

    /// The code for a box whose script Choregraphe generated when the behavior ran rather
    /// than keeping it in the file (the stock Choice box): `None` runs the file's script.
    fn generated_code(&self, def: &choreo_xar::BoxDef) -> Option<String> {
        let _ = def;
        None
    }
}

/// A timeline command, from box code or from the engine's user.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineCommand {
    /// Resume, or load and play a stopped timeline.
    Play,
    /// Freeze the cursor; loaded diagrams stay loaded.
    Pause,
    /// R17: unload and set the cursor to -1.
    Stop,
    /// Move the cursor to a frame.
    GoToFrame(i64),
    /// Move the cursor to a behavior keyframe's index, by its name.
    GoToLabel(String),
    /// Change the frame rate from the next frame on.
    SetFps(u32),
}

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
    /// An output the box does not declare is an error (an AttributeError in Python).
    pub fn fire(&self, name: &str, value: Value) -> Result<(), String> {
        let Some(index) = self.shared.graph.output_index(self.id, name) else {
            return Err(format!("box {:?} has no output {name:?}", self.node().name));
        };
        self.shared.post(Command::Fire {
            b: self.id,
            output: index,
            value,
        });
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

    /// Calls the robot, recording the call and its return in the trace (`svc`, `svc_ret`).
    pub fn call_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, String> {
        self.traced_robot(format!("{service}.{method}"), args, |robot, args| {
            robot.call(service, method, args)
        })
    }

    /// Starts a robot task (`proxy.post.method(...)`) and returns its id, traced like
    /// [`BoxContext::call_robot`] under the name `service.post.method`.
    pub fn post_robot(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, String> {
        self.traced_robot(format!("{service}.post.{method}"), args, |robot, args| {
            robot.post(service, method, args)
        })
    }

    fn traced_robot<T>(
        &self,
        name: String,
        args: Vec<Value>,
        call: impl FnOnce(&dyn crate::robot::Robot, Vec<Value>) -> Result<T, String>,
    ) -> Result<T, String> {
        let Some(robot) = self.shared.robot.clone() else {
            return Err(format!("no robot to call {name}"));
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
            crate::trace::Step::RobotReturn {
                method: name,
                ok: result.is_ok(),
            },
        );
        result
    }

    /// Records a message logged by the box code, with the box path (`log` in the trace).
    pub fn log(&self, level: &str, message: &str) {
        self.shared.trace.record_step(
            self.now(),
            self.id,
            crate::trace::Step::Log {
                level: level.to_string(),
                message: message.to_string(),
            },
        );
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

/// The code of a native box: a function of the hook and the context.
pub type NativeFn = Arc<dyn Fn(&Hook, &BoxContext) -> Result<(), String> + Send + Sync>;

/// Native Rust boxes, chosen by box name; boxes with no registered code get a placeholder
/// that does nothing (every hook returns at once), which is enough to load any behavior.
#[derive(Default, Clone)]
pub struct NativeHost {
    by_name: HashMap<String, (NativeFn, bool)>,
    /// Optional hooks (see [`BoxCode::defines`]) that boxes of a name define, by script name.
    defined: HashMap<String, Vec<String>>,
}

impl NativeHost {
    /// A host where every box is a placeholder.
    pub fn new() -> NativeHost {
        NativeHost::default()
    }

    /// Gives the boxes named `name` the code `f`.
    pub fn with(
        mut self,
        name: &str,
        f: impl Fn(&Hook, &BoxContext) -> Result<(), String> + Send + Sync + 'static,
    ) -> NativeHost {
        self.by_name.insert(name.to_string(), (Arc::new(f), false));
        self
    }

    /// Says that the boxes named `name` define the optional hooks `hooks` (script names such
    /// as `onResourceLost`; see [`BoxCode::defines`]); their code receives them.
    pub fn defining(mut self, name: &str, hooks: &[&str]) -> NativeHost {
        self.defined
            .entry(name.to_string())
            .or_default()
            .extend(hooks.iter().map(ToString::to_string));
        self
    }

    /// Gives the boxes named `name` the code `f`, run on the control thread: `f` must never
    /// block (see [`BoxCode::runs_inline`]); a [`BoxContext::sleep`] there returns at once.
    pub fn with_inline(
        mut self,
        name: &str,
        f: impl Fn(&Hook, &BoxContext) -> Result<(), String> + Send + Sync + 'static,
    ) -> NativeHost {
        self.by_name.insert(name.to_string(), (Arc::new(f), true));
        self
    }
}

/// A native box: its function and whether it runs inline (no function: a placeholder), and
/// the optional hooks it defines.
struct NativeBox {
    code: Option<(NativeFn, bool)>,
    defined: Vec<String>,
}

impl BoxCode for NativeBox {
    fn call(&self, hook: &Hook, ctx: &BoxContext) -> Result<(), String> {
        match &self.code {
            Some((f, _)) => f(hook, ctx),
            None => Ok(()),
        }
    }

    fn defines(&self, hook: &Hook) -> bool {
        self.defined.contains(&hook.script_name())
    }

    fn runs_inline(&self) -> bool {
        self.code.as_ref().is_none_or(|(_, inline)| *inline)
    }
}

impl ScriptHost for NativeHost {
    fn construct(&self, node: &BoxNode, _ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, String> {
        Ok(Arc::new(NativeBox {
            code: self.by_name.get(&node.name).cloned(),
            defined: self.defined.get(&node.name).cloned().unwrap_or_default(),
        }))
    }
}
