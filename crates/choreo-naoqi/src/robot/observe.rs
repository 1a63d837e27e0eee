//! Watching the simulated robot: events as they happen (for `choreo run`'s live output),
//! a snapshot of its state, and call statistics (for the run report, §7 of
//! docs/simulated-robot.md).

use std::collections::BTreeMap;

use choreo_engine::Value;
use serde::Serialize;

/// Something a person watching the robot would notice.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RobotEvent {
    /// Speech started (`ALTextToSpeech.say`, `ALAnimatedSpeech.say`), tags stripped.
    Said {
        /// What is said.
        text: String,
        /// How long it takes, in seconds.
        duration: f64,
    },
    /// A speech was stopped before its end.
    SpeechInterrupted {
        /// What was being said.
        text: String,
    },
    /// The robot reached a posture (goToPosture, applyPosture, wakeUp, rest).
    PostureChanged {
        /// The posture's name.
        posture: String,
    },
    /// Joints started moving.
    MotionStarted {
        /// The ALMotion (or ALRobotPosture) method.
        method: String,
        /// The joints commanded.
        joints: Vec<String>,
        /// How long the motion takes, in seconds (0 for setAngles-style commands, which
        /// unfold at their speed).
        duration: f64,
    },
    /// The robot's stiffness changed (wakeUp, rest, setStiffnesses...).
    StiffnessChanged {
        /// The joints.
        joints: Vec<String>,
        /// The new stiffness (the last one, for an interpolation).
        stiffness: f64,
    },
    /// The base started moving (moveTo, move, moveToward, navigateTo).
    MoveStarted {
        /// The method.
        method: String,
        /// The target `[x, y, θ]` in the world frame, for a move to a place.
        target: Option<[f64; 3]>,
    },
    /// The base stopped: arrived, or stopped; where it is `[x, y, θ]` (world frame).
    Moved {
        /// x, y (m) and θ (rad).
        position: [f64; 3],
    },
    /// LEDs were commanded.
    LedsChanged {
        /// The group or LED name as called.
        group: String,
        /// The target colour, red, green, blue in 0..1.
        rgb: [f64; 3],
        /// The fade duration in seconds.
        duration: f64,
    },
    /// A sound started.
    SoundPlayed {
        /// The file (or `sine <freq> Hz`).
        file: String,
        /// Its duration in seconds; `None` when it loops.
        duration: Option<f64>,
    },
    /// A sound was stopped before its end.
    SoundStopped {
        /// The file.
        file: String,
    },
    /// An ALMemory event was raised or data inserted.
    MemoryEvent {
        /// The key.
        key: String,
        /// The value.
        value: Value,
    },
    /// A task was stopped (`stop(id)`, stopAll, a newer command on the same resource).
    TaskStopped {
        /// The module.
        service: String,
        /// The method.
        method: String,
        /// The task id.
        id: i64,
    },
    /// A call the simulated robot does not serve (it raised RuntimeError).
    Unsupported {
        /// The module.
        service: String,
        /// The method.
        method: String,
        /// The argument signature, e.g. `(sf)`.
        signature: String,
    },
    /// A served call failed (bad arguments, unknown name...).
    CallFailed {
        /// The module.
        service: String,
        /// The method.
        method: String,
        /// The error.
        error: String,
    },
    /// A message logged through ALLogger.
    Log {
        /// The level: "fatal", "error", "warning", "info", "debug".
        level: String,
        /// Who logged it (the module name the script gave).
        source: String,
        /// The message.
        message: String,
    },
    /// Something a module did that a person would notice (a page on the tablet, an object
    /// stored in the world representation, a setting changed).
    Notice {
        /// The module.
        service: String,
        /// What it did.
        text: String,
    },
    /// The robot fell (choreo-body's balance; NAOqi's fall manager reacts).
    Fell {
        /// "forwards", "backwards", "to the left", "to the right".
        direction: String,
        /// What happened, for a person: `NAO fell backwards at 12.40 s: the centre of mass
        /// left the feet behind the heels by 2.1 cm`.
        text: String,
    },
    /// A script error forwarded with `onPythonError`.
    ScriptError {
        /// The message, as forwarded.
        message: String,
    },
}

/// A joint in a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointState {
    /// The NAOqi joint name.
    pub name: String,
    /// Angle in radians (hands: opening ratio 0..1).
    pub angle: f64,
    /// Stiffness 0..1.
    pub stiffness: f64,
}

/// A running task in a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskInfo {
    /// The module.
    pub service: String,
    /// The method.
    pub method: String,
    /// The id (`wait`/`stop` take it).
    pub id: i64,
}

/// The robot's state at one instant; cheap enough to take every frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    /// Behavior time, in seconds.
    pub time: f64,
    /// Every text spoken so far (tags stripped), in order.
    pub spoken: Vec<String>,
    /// The text being spoken now.
    pub speaking: Option<String>,
    /// The posture the joints are in, or "Unknown".
    pub posture: String,
    /// Whether the robot is awake (wakeUp, not rest).
    pub awake: bool,
    /// Every joint.
    pub joints: Vec<JointState>,
    /// Position in the world frame: x, y (m), θ (rad).
    pub position: [f64; 3],
    /// Colour of each LED group (average over its LEDs), red, green, blue in 0..1.
    pub leds: Vec<(String, [f64; 3])>,
    /// ALMemory: every key and its value.
    pub memory: BTreeMap<String, Value>,
    /// Sounds playing now.
    pub sounds: Vec<String>,
    /// Tasks running now.
    pub tasks: Vec<TaskInfo>,
}

/// How the robot was used: what the run report lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CallStats {
    /// Calls per module.
    pub per_service: BTreeMap<String, u64>,
    /// Calls per `Module.method`.
    pub per_method: BTreeMap<String, u64>,
    /// Calls the robot does not serve, per `Module.method` (unknown modules included).
    pub unsupported: BTreeMap<String, u64>,
    /// Served calls that failed, per `Module.method`.
    pub failed: BTreeMap<String, u64>,
}
