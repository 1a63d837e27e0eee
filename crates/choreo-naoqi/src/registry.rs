//! The registry: every NAOqi module the simulated robot serves, by name, and how — its own
//! function, or a method table (`robot/table.rs`). The one place that knows every module
//! (no module knows it); the core asks it through [`Services`].
//!
//! Adding a module: a file in its NAOqi group under `services/` and one line in
//! [`MODULES`].

use std::any::Any;

use choreo_engine::Value;

use crate::reactions;
use crate::robot::args::Args;
use crate::robot::core::{Reply, ServeFn, Services, Sim};
use crate::robot::error::CallError;
use crate::robot::memory::Declared;
use crate::robot::table::{self, Service};
use crate::services::audio::{animated_speech, device, player, recognition, tts, voice_emotion};
use crate::services::core::{
    behaviors, connection, logger, memory, package_manager, preferences, python_bridge,
    service_manager, system, tablet, world,
};
use crate::services::emotion::mood;
use crate::services::interaction::{autonomous, awareness, dialog, life};
use crate::services::motion::{almotion, animation, dcm, navigation, posture, robot_pose};
use crate::services::people::{face, perception};
use crate::services::sensors::{infrared, leds, power, sentinel};
use crate::services::trackers::{legacy, tracker};
use crate::services::vision::{capture, compass, detection, localization, toolbox, video};

/// How the robot serves a module.
pub(crate) enum Serve {
    /// By the module's own function.
    Module(&'static str, ServeFn),
    /// From its method table.
    Table(&'static Service),
}

impl Serve {
    /// The module's NAOqi name.
    pub fn name(&self) -> &'static str {
        match self {
            Serve::Module(name, _) => name,
            Serve::Table(service) => service.name,
        }
    }
}

/// Every module served, one line each.
pub(crate) const MODULES: &[Serve] = &[
    // core
    Serve::Module("ALMemory", memory::serve),
    Serve::Module("ALBehaviorManager", behaviors::serve),
    Serve::Module("ALFrameManager", behaviors::serve_frames),
    Serve::Module("ALChoregraphe", behaviors::serve_frames),
    Serve::Table(&system::SERVICE),
    Serve::Table(&logger::SERVICE),
    Serve::Table(&service_manager::SERVICE),
    Serve::Table(&package_manager::SERVICE),
    Serve::Table(&connection::SERVICE),
    Serve::Table(&tablet::SERVICE),
    Serve::Table(&world::SERVICE),
    Serve::Table(&preferences::SERVICE),
    Serve::Table(&python_bridge::SERVICE),
    // motion
    Serve::Module("ALMotion", almotion::serve),
    Serve::Module("ALNavigation", navigation::serve_navigation),
    Serve::Module("ALRobotPosture", posture::serve),
    Serve::Table(&robot_pose::SERVICE),
    Serve::Table(&animation::SERVICE),
    Serve::Table(&dcm::SERVICE),
    // trackers
    Serve::Table(&tracker::SERVICE),
    Serve::Table(&legacy::RED_BALL),
    Serve::Table(&legacy::FACE),
    // audio
    Serve::Module("ALTextToSpeech", tts::serve_tts),
    Serve::Module("ALAnimatedSpeech", animated_speech::serve),
    Serve::Module("ALAudioPlayer", player::serve),
    Serve::Module("ALSpeechRecognition", recognition::serve_recognition),
    Serve::Table(&device::SERVICE),
    Serve::Table(&voice_emotion::SERVICE),
    Serve::Table(&detection::SOUND),
    Serve::Table(&detection::LOCALIZATION),
    Serve::Table(&detection::SOURCE_LOCALIZATION),
    // vision
    Serve::Table(&video::SERVICE),
    Serve::Table(&capture::PHOTO),
    Serve::Table(&capture::VIDEO),
    Serve::Table(&compass::SERVICE),
    Serve::Table(&toolbox::SERVICE),
    Serve::Table(&detection::MOVEMENT),
    Serve::Table(&detection::DARKNESS),
    Serve::Table(&detection::BACKLIGHTING),
    Serve::Table(&localization::SERVICE),
    // people perception
    Serve::Table(&perception::FACE),
    Serve::Table(&perception::PEOPLE),
    Serve::Table(&face::SERVICE),
    // interaction
    Serve::Module("ALDialog", dialog::serve),
    Serve::Table(&awareness::SERVICE),
    Serve::Table(&life::SERVICE),
    Serve::Table(&autonomous::MOVES),
    Serve::Table(&autonomous::BLINKING),
    // sensors
    Serve::Module("ALLeds", leds::serve),
    Serve::Table(&infrared::SERVICE),
    Serve::Table(&power::BATTERY),
    Serve::Table(&power::TEMPERATURE),
    Serve::Table(&sentinel::SERVICE),
    // emotion
    Serve::Table(&mood::SERVICE),
];

/// How module `service` is served, if it is.
fn find(service: &str) -> Option<&'static Serve> {
    MODULES.iter().find(|s| s.name() == service)
}

/// The modules' ALMemory keys from boot.
pub(crate) fn declared() -> Declared {
    Declared {
        events: tracker::EVENTS
            .into_iter()
            .chain(awareness::EVENTS)
            .chain(perception::EVENTS)
            .collect(),
        lists: perception::LISTS.to_vec(),
        strings: vec![(life::STATE_KEY, life::BOOT_STATE), (life::FOCUS_KEY, "")],
        later: reactions::DECLARED
            .iter()
            .chain(infrared::EVENTS)
            .copied()
            .collect(),
    }
}

/// What the modules keep outside the state's lock (see `Sim::extension`).
pub(crate) fn extensions() -> Vec<Box<dyn Any + Send + Sync>> {
    vec![
        Box::new(dialog::Engine::default()),
        Box::new(crate::listening::Log::default()),
    ]
}

/// The registry, as the core sees it.
pub(crate) struct Registry;

impl Services for Registry {
    fn has(&self, service: &str) -> bool {
        find(service).is_some()
    }

    fn serve(
        &self,
        sim: &Sim,
        service: &str,
        method: &str,
        a: &Args<'_>,
    ) -> Result<Reply, CallError> {
        match find(service) {
            Some(Serve::Module(_, serve)) => serve(sim, method, a),
            Some(Serve::Table(service)) => table::serve(sim, service, method, a),
            None => Ok(Reply::NotServed),
        }
    }

    fn table_methods(&self, service: &str) -> Vec<&'static str> {
        match find(service) {
            Some(Serve::Table(service)) => service.method_names(),
            _ => Vec::new(),
        }
    }

    fn before_delivery(&self, sim: &Sim, key: &str, value: &Value) {
        reactions::before(sim, key, value);
    }

    fn after_delivery(&self, sim: &Sim, key: &str, previous: Option<&Value>, value: &Value) {
        reactions::after(sim, key, previous, value);
    }

    fn recognize(&self, sim: &Sim, word: &str, confidence: f64) {
        recognition::recognize(sim, word, confidence);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_is_served_once() {
        let mut names: Vec<&str> = MODULES.iter().map(Serve::name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a module listed twice");
    }
}
