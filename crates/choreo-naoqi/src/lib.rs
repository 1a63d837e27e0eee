//! choreo-naoqi: the simulated NAO / Pepper robot, the default target of `choreo run`.
//!
//! [`SimRobot`] implements [`choreo_engine::Robot`]: it serves the NAOqi modules that real
//! Choregraphe behaviors call (the "minimum faithful set" of `naoqi-services.md` §6) with
//! realistic durations that follow the engine's clock (virtual time takes no real time),
//! background tasks with the generic `wait`/`stop`/`isRunning` API, ALMemory with
//! subscriptions, and [`Scenario`]s that inject what a simulator cannot sense.
//!
//! Watching it: [`SimRobot::set_observer`] ([`RobotEvent`]s), [`SimRobot::snapshot`]
//! ([`Snapshot`]), [`SimRobot::stats`] ([`CallStats`]).
//!
//! Modules are named after the NAOqi concept: [`tts`] (ALTextToSpeech), `animated_speech`
//! (ALAnimatedSpeech), `animation` (ALAnimationPlayer and the gestures of the stock
//! animations, choreo-robot's `animations` library),
//! `motion` (ALMotion, ALNavigation), `posture` (ALRobotPosture), `memory` (ALMemory),
//! `leds` (ALLeds), [`audio`] (ALAudioPlayer), `speech` (ALSpeechRecognition, ALDialog),
//! `behaviors` (ALBehaviorManager, ALFrameManager: the project's behaviors as nested runs,
//! through the [`BehaviorLauncher`] the layer that builds runs installs with
//! [`SimRobot::set_launcher`]), `tracker` (ALTracker), `awareness` (ALBasicAwareness),
//! `life` (ALAutonomousLife), `people` (ALFaceDetection, ALPeoplePerception),
//! `localization`, `audio_device`, `dcm`, `system` (ALSystem), the modules served from
//! tables (`kept.rs`), `tasks` (the generic task API), [`scenario`]; `catalogue` reads each
//! module's method set and the error for a method not served from NAOqi's catalogue
//! (`choreo_robot::naoqi`).
//! What a NAO or a Pepper is (joints, limits, chains, resource groups) is `choreo_robot`'s,
//! re-exported here as [`Model`] and [`Joint`].

mod animated_speech;
mod animation;
mod args;
pub mod audio;
mod audio_device;
mod autonomous;
mod awareness;
mod behaviors;
mod capture;
mod catalogue;
mod compass;
mod connection;
mod criterion;
mod dcm;
mod detection;
mod dialog;
mod extractor;
mod face;
mod gaze;
mod infrared;
mod kept;
mod leds;
mod life;
mod localization;
mod logger;
mod memory;
mod mood;
mod motion;
mod observe;
mod people;
mod posture;
mod power;
mod python_bridge;
mod reactions;
mod robot_pose;
pub mod scenario;
mod sentinel;
mod service_manager;
mod sim;
mod speech;
mod system;
mod tablet;
mod tasks;
mod toolbox;
mod tracker;
mod trackers;
mod trajectory;
pub mod tts;
mod video;
mod voice_emotion;
mod world;

pub use args::signature;
pub use audio::DEFAULT_SECONDS as DEFAULT_SOUND_SECONDS;
pub use behaviors::{BehaviorLauncher, LAST_UPLOADED, LaunchError, MAX_NESTED, behavior_names};
pub use choreo_robot::{Joint, Model};
pub use dialog::DialogScripts;
pub use memory::TOUCH_SENSORS;
pub use motion::{HAND_SECONDS, WAKE_SECONDS, WALK_START_STOP_SECONDS};
pub use observe::{CallStats, JointState, RobotEvent, Snapshot, TaskInfo};
pub use posture::MAX_SECONDS as MAX_POSTURE_SECONDS;
pub use scenario::{Action, Scenario};
pub use sim::{Observer, SimRobot, resource_tree};
pub use tasks::STOP_POLL;
