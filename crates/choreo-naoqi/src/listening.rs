//! What the simulated robot would pass on to the behavior now if a person acted: the words
//! ALSpeechRecognition listens for, the rules of the running dialog and the ALMemory keys
//! the behavior subscribes to. `choreo explore` tries these at each point where a behavior
//! waits; the robot keeps a log of each change when asked ([`SimRobot::log_listening`]),
//! made where the change is made (a call, a subscription), so it is the same every run.

use std::collections::BTreeSet;
use std::sync::Mutex;

use choreo_base::lock;
use choreo_qichat::dialog::listening::{Listened, RuleAt};

use crate::robot::core::Sim;
use crate::services::audio::recognition;
use crate::services::audio::tts::Speech;
use crate::services::interaction::dialog;

/// What the robot listens for now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Listening {
    /// ALSpeechRecognition's vocabulary while someone subscribes to it and it is not paused
    /// (the stock Choice box's answers, a script's `setVocabulary`).
    pub words: Vec<String>,
    /// The user rules of the active topics while a dialog runs.
    pub rules: Vec<Listened>,
    /// The ALMemory keys subscribed (memory inputs, `subscribeToEvent`, qi subscribers),
    /// each once, sorted.
    pub keys: Vec<String>,
}

impl Listening {
    /// Whether nothing is listened for.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.rules.is_empty() && self.keys.is_empty()
    }
}

/// An entry of the log of what the robot listens for.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// What it listens for changed, at `time` (seconds of behavior time); `said`: the last
    /// thing the robot said before, if anything.
    Listening {
        /// Behavior time, in seconds.
        time: f64,
        /// What it listens for from then on.
        listening: Listening,
        /// The last thing it said.
        said: Option<String>,
    },
    /// A scenario's action was performed at `time`: what follows comes after it.
    Acted {
        /// Behavior time, in seconds.
        time: f64,
    },
}

/// Which of the loaded topics' user rules answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DialogCoverage {
    /// Every user rule (subrules included) of every topic loaded so far.
    pub rules: Vec<RuleAt>,
    /// Those that answered.
    pub matched: BTreeSet<RuleAt>,
}

/// The log, kept as an extension of the robot; `None` until asked for.
#[derive(Default)]
pub(crate) struct Log(Mutex<Option<Vec<Heard>>>);

/// Services whose calls may change what the robot listens for.
const LISTENING_SERVICES: [&str; 3] = ["ALSpeechRecognition", "ALDialog", "ALMemory"];

/// After `service.method` was called: logs what the robot listens for if it changed.
pub(crate) fn called(sim: &Sim, service: &str) {
    if LISTENING_SERVICES.contains(&service) {
        changed(sim);
    }
}

/// Logs what the robot listens for, if the log is kept and it changed.
pub(crate) fn changed(sim: &Sim) {
    if lock(&sim.extension::<Log>().0).is_none() {
        return;
    }
    let Some(now) = listening(sim, false) else {
        return;
    };
    let said = sim.state().part::<Speech>().spoken.last().cloned();
    let mut log = lock(&sim.extension::<Log>().0);
    let Some(log) = log.as_mut() else {
        return;
    };
    let last = log.iter().rev().find_map(|h| match h {
        Heard::Listening { listening, .. } => Some(listening),
        Heard::Acted { .. } => None,
    });
    if last != Some(&now) {
        log.push(Heard::Listening {
            time: sim.now().as_secs_f64(),
            listening: now,
            said,
        });
    }
}

/// A scenario's action is performed now.
pub(crate) fn acted(sim: &Sim) {
    if let Some(log) = lock(&sim.extension::<Log>().0).as_mut() {
        log.push(Heard::Acted {
            time: sim.now().as_secs_f64(),
        });
    }
}

/// What the robot listens for; `None` while the dialog engine is busy answering, unless
/// `wait`.
pub(crate) fn listening(sim: &Sim, wait: bool) -> Option<Listening> {
    let words = recognition::hears(sim).unwrap_or_default();
    let keys: BTreeSet<String> = sim.memory.subscribed().into_iter().collect();
    Some(Listening {
        words,
        rules: dialog::listening(sim, wait)?,
        keys: keys.into_iter().collect(),
    })
}

/// Every user rule of the dialog's topics, and those that answered so far.
pub(crate) fn coverage(sim: &Sim) -> DialogCoverage {
    let (rules, matched) = dialog::coverage(sim);
    DialogCoverage { rules, matched }
}

/// Keeps the log from now on, starting with what the robot listens for now.
pub(crate) fn start_log(sim: &Sim) {
    lock(&sim.extension::<Log>().0).get_or_insert_with(Vec::new);
    changed(sim);
}

/// The log kept since [`start_log`].
pub(crate) fn log(sim: &Sim) -> Vec<Heard> {
    lock(&sim.extension::<Log>().0).clone().unwrap_or_default()
}
