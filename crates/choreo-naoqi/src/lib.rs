//! choreo-naoqi: the simulated NAO / Pepper robot, the default target of `choreo run`.
//!
//! [`SimRobot`] implements [`choreo_engine::Robot`]: it serves the NAOqi modules that real
//! Choregraphe behaviors call (the "minimum faithful set" of docs/simulated-robot.md) with
//! realistic durations that follow the engine's clock (virtual time takes no real time),
//! background tasks with the generic `wait`/`stop`/`isRunning` API, ALMemory with
//! subscriptions, and [`Scenario`]s that inject what a simulator cannot sense.
//!
//! Watching it: [`SimRobot::set_observer`] ([`RobotEvent`]s), [`SimRobot::snapshot`]
//! ([`Snapshot`]), [`SimRobot::stats`] ([`CallStats`]).
//!
//! The map, from the bottom up:
//!
//! - `robot/`: the simulated robot's core, naming no module: the robot (`core.rs`), the call
//!   path and the generic methods (`calls.rs`), arguments and typed call errors, tasks,
//!   ALMemory's store, the body and the LEDs over time, observation, [`scenario`]s, NAOqi's
//!   catalogue, the machinery of modules served from a method table.
//! - `services/`: one file per NAOqi module, in the groups of NAOqi's documentation:
//!   `core` (ALMemory, ALSystem, ALLogger, ALBehaviorManager, ...), `motion` (ALMotion,
//!   ALRobotPosture, ALAnimationPlayer, DCM, ...), `trackers`, `audio` ([`tts`],
//!   ALAnimatedSpeech, [`audio`] (ALAudioPlayer), ALSpeechRecognition, ...), `vision`,
//!   `people` (people perception), `interaction` (ALDialog, ALBasicAwareness,
//!   ALAutonomousLife, ...), `sensors` (ALLeds, ALBattery, ...), `emotion` (ALMood).
//! - `registry.rs`: every module by name and how it is served, the one place that knows
//!   them all (a new module: one file and one line there); `reactions.rs`: which modules
//!   react to which ALMemory keys.
//! - `sim_robot.rs`: [`SimRobot`], the core and the registry put together.
//!
//! What a NAO or a Pepper is (joints, limits, chains, resource groups) is `choreo_robot`'s,
//! re-exported here as [`Model`] and [`Joint`].

mod listening;
mod reactions;
mod registry;
mod robot;
mod services;
mod sim_robot;
mod world_events;

pub use listening::{DialogCoverage, Heard, Listening};
pub use robot::scenario;
pub use services::audio::player as audio;
pub use services::audio::tts;

pub use choreo_robot::{Joint, Model};
pub use robot::args::signature;
pub use robot::core::Observer;
pub use robot::memory::TOUCH_SENSORS;
pub use robot::observe::{CallStats, JointState, RobotEvent, Snapshot, TaskInfo};
pub use robot::scenario::{Action, Scenario, ScenarioError};
pub use robot::tasks::STOP_POLL;
pub use services::audio::player::DEFAULT_SECONDS as DEFAULT_SOUND_SECONDS;
pub use services::core::behaviors::{BehaviorLauncher, LaunchError, MAX_NESTED, behavior_names};
pub use services::core::service_manager::{
    PROCESS_CRASHED, ProgramError, ServiceHost, ServiceProcess,
};
pub use services::interaction::dialog::DialogScripts;
pub use services::motion::orders::HAND_SECONDS;
pub use services::motion::posture::MAX_SECONDS as MAX_POSTURE_SECONDS;
pub use services::motion::stiffness::WAKE_SECONDS;
pub use services::motion::walks::WALK_START_STOP_SECONDS;
pub use services::people::person::{Expression, Face, Gender};
pub use sim_robot::{SimRobot, resource_tree};
pub use world_events::{WORLD_EVENTS, WorldEvent, world_event};
