//! ALDialog's state, kept in the robot's state: the language, the topics loaded, the
//! subscribers, thresholds, fallbacks, push mode, the turns of answers, who spoke when (for
//! the silence events). The lowest file of the dialog: the engine, the silences and the
//! module read it.

use std::collections::{BTreeMap, BTreeSet};

use choreo_engine::Value;
use choreo_engine::clock::Time;

pub(crate) const NAME: &str = "ALDialog";

/// The confidence under which a recognized sentence is ignored ("by default around 0.5").
pub(crate) const DEFAULT_THRESHOLD: f64 = 0.5;

/// ALDialog's state (the engine is `engine.rs`'s, outside the state's lock).
pub(crate) struct Dialog {
    pub(crate) language: String,
    /// The robot's preferred language (`resetLanguage` goes back to it).
    pub(crate) preferred: String,
    /// The user whose session is open (`openSession`).
    pub(crate) session: Option<i64>,
    /// Loaded topics: (name, language code) → where it came from.
    pub(crate) topics: BTreeMap<(String, Option<String>), String>,
    pub(crate) subscribers: BTreeSet<String>,
    /// Confidence thresholds: (grammar, language) → threshold.
    pub(crate) thresholds: BTreeMap<(String, String), f64>,
    /// The memory keys whose events the active topics answer.
    pub(crate) watched: BTreeSet<String>,
    /// Push mode (`startPush`): a proposal follows each answer.
    pub(crate) push: bool,
    /// Services asked when nothing matches (`addFallback`): (language, service).
    pub(crate) fallbacks: Vec<(String, String)>,
    /// Events answered at once, the speech interrupted (`addBlockingEvent`).
    pub(crate) blocking: BTreeSet<String>,
    /// The dialog's animated speech configuration (`setAnimatedSpeechConfiguration`).
    pub(crate) animated: Value,
    /// Answers are performed in turn: the next ticket, and whose turn it is.
    pub(crate) tickets: u64,
    pub(crate) turn: u64,
    /// Answers memory events set off at the latest instant: (when, how many).
    pub(crate) burst: (Time, usize),
    /// Who spoke when, for the silence events.
    pub(crate) silence: Silence,
}

impl Default for Dialog {
    fn default() -> Dialog {
        Dialog {
            language: "English".into(),
            preferred: "English".into(),
            session: None,
            topics: BTreeMap::new(),
            subscribers: BTreeSet::new(),
            thresholds: BTreeMap::new(),
            watched: BTreeSet::new(),
            push: false,
            fallbacks: Vec::new(),
            blocking: BTreeSet::new(),
            animated: Value::List(Vec::new()),
            tickets: 0,
            turn: 0,
            burst: (Time(0), 0),
            silence: Silence::default(),
        }
    }
}

impl Dialog {
    /// The confidence threshold of `grammar` in the dialog's language.
    pub(crate) fn threshold(&self, grammar: &str) -> f64 {
        self.thresholds
            .get(&(grammar.to_string(), self.language.clone()))
            .copied()
            .unwrap_or(DEFAULT_THRESHOLD)
    }
}

/// Who spoke last, and what was raised since.
#[derive(Default)]
pub(crate) struct Silence {
    /// When the human last spoke, and when anyone did.
    pub human: Time,
    pub anyone: Time,
    /// Raised since the last speech that breaks them.
    pub raised: BTreeSet<&'static str>,
    /// A watcher runs.
    pub watching: bool,
}
