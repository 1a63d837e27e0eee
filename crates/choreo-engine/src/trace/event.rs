//! What a trace is made of: [`Event`]s, each a [`Step`] of a box (or of the behavior) with
//! its sequence number and time; and the compact one-line form tests compare.

use serde::Serialize;

use choreo_base::Value;

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Step {
    /// The box was constructed (`new(B)`).
    New,
    /// The box was destroyed (`del(B)`).
    Del,
    /// A script hook was entered: `onLoad`, `onUnload` or `onInput_<name>`.
    Call {
        /// The hook.
        hook: String,
    },
    /// A script hook returned (`ok` false: it raised or panicked).
    Ret {
        /// The hook.
        hook: String,
        /// Whether it returned normally.
        ok: bool,
    },
    /// An input was stimulated, before any hook ran.
    In {
        /// Input name.
        port: String,
        /// The value.
        value: Value,
    },
    /// An output was stimulated.
    Out {
        /// Output name.
        port: String,
        /// The value.
        value: Value,
    },
    /// A link carried a value from `from` to `to` (paths with port names).
    Deliver {
        /// Source, `box.port` (`(parent).port` for the enclosing box).
        from: String,
        /// Destination, `box.port`.
        to: String,
    },
    /// An output was fired while its links were off: nothing was delivered (R14, R15).
    Dropped {
        /// The output.
        port: String,
    },
    /// A parameter received a value (link into a parameter, or setParameter).
    Param {
        /// Parameter name.
        name: String,
        /// The new value.
        value: Value,
    },
    /// The links of the box's diagram were activated.
    LinksOn,
    /// The links of the box's diagram were broken.
    LinksOff,
    /// A timeline command: `play`, `pause`, `stop`, `goto`.
    Timeline {
        /// The command.
        command: String,
        /// The frame for `goto`.
        frame: Option<i64>,
    },
    /// The time cursor reached a frame.
    Frame {
        /// The frame.
        frame: i64,
    },
    /// A behavior keyframe's diagram was loaded.
    KfOn {
        /// Layer name.
        layer: String,
        /// Keyframe name.
        keyframe: String,
    },
    /// A behavior keyframe's diagram was unloaded.
    KfOff {
        /// Layer name.
        layer: String,
        /// Keyframe name.
        keyframe: String,
    },
    /// An error escaped a hook, or box code failed in another way.
    Err {
        /// The hook (or what failed).
        hook: String,
        /// The message.
        text: String,
    },
    /// Box code called the robot (`svc`).
    RobotCall {
        /// `ALTextToSpeech.say`.
        method: String,
        /// The arguments.
        args: Vec<Value>,
    },
    /// That robot call returned (`svc_ret`); `ok` false: the robot raised an error.
    RobotReturn {
        /// `ALTextToSpeech.say`.
        method: String,
        /// Whether it succeeded.
        ok: bool,
        /// What it returned (a post: the task id), in brief ([`Value::brief`]); absent
        /// when it raised.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
        /// The error it raised.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Resource traffic (§6): `ask` (the box starts and wants them), `got`, `timeout` (R9),
    /// `lost` (taken by another box, R12, or paused for it), `free` (released, Q5).
    Resource {
        /// What happened.
        what: String,
        /// The resource names.
        names: Vec<String>,
    },
    /// Box code logged a message (`self.logger.info(...)`, `self.log(...)`, `print`).
    Log {
        /// `debug`, `info`, `warning`, `error` or `fatal`.
        level: String,
        /// The message.
        message: String,
    },
    /// A timeline's motion (docs/motion.md): `send` (an `angleInterpolationBezier` order from
    /// `frame`, moving `joints` for `seconds`), `kill` (the order in flight stopped: pause,
    /// stop, goTo, new fps, the end), `busy` (Waiting mode: the joints are taken, the frame
    /// holds), `goto` (moved to the values at `frame` while stopped).
    Motion {
        /// What happened.
        what: String,
        /// The frame it was sent from.
        frame: i64,
        /// The joints it moves.
        joints: Vec<String>,
        /// How long it lasts (0 for a kill).
        seconds: f64,
    },
    /// The simulated robot's joint angles at that moment (radians; hands: opening ratio):
    /// what the joints did, sampled at each frame of a playing timeline by `choreo run`.
    Joints {
        /// Joint names.
        names: Vec<String>,
        /// Their values, in the same order.
        values: Vec<f64>,
    },
    /// A behavior-level event: `start`, `end` (the root fired a Stopped output), `stop`.
    Behavior {
        /// What happened.
        what: String,
    },
    /// The simulated robot started saying `text` (tags stripped), for `seconds`: whoever
    /// asked (a box, a dialog's answer), recorded by `choreo run` as `Joints` are.
    Said {
        /// What is said.
        text: String,
        /// How long it takes.
        seconds: f64,
    },
    /// The simulated robot's LED groups (`LeftFaceLeds`, `ChestLeds`, ...) fade to `rgb`
    /// (red, green, blue in 0..1) over `seconds`, after an ALLeds command: recorded by
    /// `choreo run` as `Said` is.
    Leds {
        /// The groups.
        groups: Vec<String>,
        /// The colour each reaches, in the same order.
        rgb: Vec<[f64; 3]>,
        /// How long the fade takes.
        seconds: f64,
    },
    /// Box code drew a whole number by chance (`random.randint`, `choice`, ...): the run's
    /// draw `draw` (the first is 1), among `of` outcomes, took `outcome` (in `0..of`: the
    /// seed's, or the one the run set, [`crate::chance`]).
    Chance {
        /// The draw's number in the run.
        draw: u64,
        /// How many outcomes it had.
        of: u64,
        /// The one taken.
        outcome: u64,
    },
    /// The simulated robot reached a posture (`Stand`, `Crouch`, ...).
    Posture {
        /// The posture's name.
        name: String,
    },
}

/// How many parts of a robot call's result a trace keeps whole ([`Value::brief`]).
pub const RESULT_BUDGET: usize = 64;

impl Step {
    /// The `robot_return` of a call to `method` that gave `result`.
    pub fn returned<T: Clone + Into<Value>, E: std::fmt::Display>(
        method: String,
        result: &Result<T, E>,
    ) -> Step {
        match result {
            Ok(v) => Step::RobotReturn {
                method,
                ok: true,
                value: Some(v.clone().into().brief(RESULT_BUDGET)),
                error: None,
            },
            Err(e) => Step::RobotReturn {
                method,
                ok: false,
                value: None,
                error: Some(e.to_string()),
            },
        }
    }
}

/// One trace event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Sequence number, from 0, gap-free.
    pub seq: u64,
    /// Behavior time in nanoseconds.
    pub time_ns: u64,
    /// The box path (`root/Dance/Say`), empty for behavior-level events.
    pub path: String,
    /// What happened.
    #[serde(flatten)]
    pub step: Step,
}

impl Event {
    /// A compact one-line form for tests: `path step` (e.g. `root/Say call onInput_onStart`).
    pub fn short(&self) -> String {
        let what = match &self.step {
            Step::New => "new".to_string(),
            Step::Del => "del".to_string(),
            Step::Call { hook } => format!("call {hook}"),
            Step::Ret { hook, ok } => format!("ret {hook}{}", if *ok { "" } else { " err" }),
            Step::In { port, value } => format!("in {port} {value}"),
            Step::Out { port, value } => format!("out {port} {value}"),
            Step::Deliver { from, to } => format!("deliver {from} -> {to}"),
            Step::Dropped { port } => format!("dropped {port}"),
            Step::Param { name, value } => format!("param {name} = {value}"),
            Step::LinksOn => "links_on".to_string(),
            Step::LinksOff => "links_off".to_string(),
            Step::Timeline { command, frame } => match frame {
                Some(f) => format!("tl {command} {f}"),
                None => format!("tl {command}"),
            },
            Step::Frame { frame } => format!("frame {frame}"),
            Step::KfOn { layer, keyframe } => format!("kf_on {layer}/{keyframe}"),
            Step::KfOff { layer, keyframe } => format!("kf_off {layer}/{keyframe}"),
            Step::Err { hook, text } => format!("err {hook}: {text}"),
            Step::RobotCall { method, args } => {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                format!("svc {method}({})", args.join(", "))
            }
            Step::RobotReturn { method, ok, .. } => {
                format!("svc_ret {method}{}", if *ok { "" } else { " err" })
            }
            Step::Resource { what, names } => format!("res {what} {}", names.join(",")),
            Step::Log { level, message } => format!("log {level}: {message}"),
            Step::Motion {
                what,
                frame,
                joints,
                seconds,
            } => format!("motion {what} {frame} [{}] {seconds:.3}s", joints.join(",")),
            Step::Joints { names, .. } => format!("joints {}", names.len()),
            Step::Behavior { what } => format!("beh {what}"),
            Step::Said { text, seconds } => format!("said {text:?} {seconds:.3}s"),
            Step::Leds {
                groups, seconds, ..
            } => {
                format!("leds {} {seconds:.3}s", groups.join(","))
            }
            Step::Chance { draw, of, outcome } => format!("chance {draw}: {outcome} of {of}"),
            Step::Posture { name } => format!("posture {name}"),
        };
        if self.path.is_empty() {
            what
        } else {
            format!("{} {what}", self.path)
        }
    }
}
