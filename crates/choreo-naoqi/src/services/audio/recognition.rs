//! ALSpeechRecognition: its configuration is kept, and it hears only what a scenario says was
//! heard ([`recognize`]): `WordRecognized` = `[word, confidence]`; a running dialog hears it
//! too (`dialog.rs`).
//!
//! ALSpeechRecognition's grammar contexts: `compile(bnf, lcf, language)` reads the BNF
//! file (it must exist; the language must be installed) and makes the LCF file, not written
//! to disk but remembered; `addContext(lcf, name)` adds a context from an LCF file compiled
//! so or present on disk, `removeContext(name)` and `removeAllContext()` remove them. The
//! rules are not interpreted either.

use std::collections::{BTreeMap, BTreeSet};

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::services::audio::tts::{checked_language, installed, languages};

/// ALSpeechRecognition's configuration.
pub(crate) struct Recognition {
    language: String,
    vocabulary: Vec<String>,
    word_spotting: bool,
    contexts: Vec<(Vec<String>, bool)>,
    subscribers: BTreeSet<String>,
    paused: bool,
    parameters: BTreeMap<String, Value>,
    /// LCF files `compile` made (paths as given).
    compiled: BTreeSet<String>,
    /// Grammar contexts: name → LCF file.
    grammars: BTreeMap<String, String>,
}

impl Default for Recognition {
    fn default() -> Recognition {
        Recognition {
            language: "English".into(),
            vocabulary: Vec::new(),
            word_spotting: false,
            contexts: Vec::new(),
            subscribers: BTreeSet::new(),
            paused: false,
            parameters: BTreeMap::new(),
            compiled: BTreeSet::new(),
            grammars: BTreeMap::new(),
        }
    }
}

/// ALSpeechRecognition's events (its API page): a script's `ALMemory.subscribeToEvent` to
/// one starts recognition as `subscribe` does (ALMemory's API page: it "automatically
/// launches the module that declared itself as the generator of the event"), which is how
/// the stock Speech Reco. box starts it.
const EVENTS: [&str; 4] = [
    "WordRecognized",
    "WordRecognizedAndGrammar",
    "LastWordRecognized",
    "SpeechDetected",
];

/// The vocabulary while recognition runs (someone subscribed to ALSpeechRecognition or a
/// script to one of its events) and is not paused: what it can hear now.
pub(crate) fn hears(sim: &Sim) -> Option<Vec<String>> {
    let by_event = sim.memory.scripts_subscribe_to(&EVENTS);
    let mut state = sim.state();
    let r = state.part::<Recognition>();
    ((!r.subscribers.is_empty() || by_event) && !r.paused).then(|| r.vocabulary.clone())
}

impl Recognition {
    /// Sets the recognition language (an installed one's name).
    pub(crate) fn set_language(&mut self, name: &str) {
        self.language = name.to_string();
    }
}

/// Makes the robot hear `word` with `confidence`: what the scenario's `recognize` does.
/// While recognition runs, the voice is detected first: `SpeechDetected` = `True`
/// (ALSpeechRecognition's page: "True if a voice activity is detected").
pub(crate) fn recognize(sim: &Sim, word: &str, confidence: f64) {
    if hears(sim).is_some() {
        sim.raise("SpeechDetected", Value::Bool(true));
    }
    sim.raise(
        "WordRecognized",
        Value::List(vec![Value::from(word), Value::Float(confidence)]),
    );
    crate::services::interaction::dialog::heard(sim, word, Some(confidence));
}

/// ALSpeechRecognition's grammar contexts (see the module docs); `None` for another method.
fn grammar(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Option<Value>, CallError> {
    const NAME: &str = "ALSpeechRecognition";
    let shown = match method {
        "compile" => {
            let (bnf, lcf, language) = (a.str(0)?, a.str(1)?, a.str(2)?);
            if !installed(language) {
                return Err(CallError::Failed(format!(
                    "{}: language {language:?} is not installed",
                    a.name
                )));
            }
            std::fs::metadata(sim.local_path(bnf)).map_err(|e| {
                CallError::Failed(format!("{}: cannot read the grammar {bnf:?}: {e}", a.name))
            })?;
            sim.state()
                .part::<Recognition>()
                .compiled
                .insert(lcf.to_string());
            format!("compiles {bnf} into {lcf} (not written to disk)")
        }
        "addContext" => {
            let (lcf, name) = (a.str(0)?, a.str(1)?);
            let compiled = sim.state().part::<Recognition>().compiled.contains(lcf);
            if !compiled && std::fs::metadata(sim.local_path(lcf)).is_err() {
                return Err(CallError::Failed(format!(
                    "{}: no LCF file {lcf:?}",
                    a.name
                )));
            }
            sim.state()
                .part::<Recognition>()
                .grammars
                .insert(name.to_string(), lcf.to_string());
            format!("adds context {name:?} from {lcf}")
        }
        "removeContext" => {
            let name = a.str(0)?;
            sim.state().part::<Recognition>().grammars.remove(name);
            format!("removes context {name:?}")
        }
        "removeAllContext" => {
            sim.state().part::<Recognition>().grammars.clear();
            "removes every context".to_string()
        }
        _ => return Ok(None),
    };
    sim.notice(NAME, shown);
    Ok(Some(Value::None))
}

/// Serves ALSpeechRecognition.
pub(crate) fn serve_recognition(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    if let Some(value) = grammar(sim, method, a)? {
        return Ok(Reply::Now(value));
    }
    let mut state = sim.state();
    let r = &mut state.part::<Recognition>();
    let value = match method {
        "setLanguage" => {
            r.language = checked_language(a)?;
            Value::None
        }
        "getLanguage" => Value::String(r.language.clone()),
        "getAvailableLanguages" => languages(),
        "setVocabulary" | "setWordListAsVocabulary" => {
            r.vocabulary = a.names(0)?;
            r.word_spotting = method == "setVocabulary" && a.len() > 1 && a.bool(1)?;
            Value::None
        }
        "getVocabulary" => Value::List(
            r.vocabulary
                .iter()
                .map(|w| Value::from(w.as_str()))
                .collect(),
        ),
        "subscribe" => {
            r.subscribers.insert(a.str(0)?.to_string());
            Value::None
        }
        "unsubscribe" => {
            let name = a.str(0)?;
            if !r.subscribers.remove(name) {
                return Err(CallError::Failed(format!(
                    "{}: {name:?} is not subscribed",
                    a.name
                )));
            }
            Value::None
        }
        "pause" => {
            r.paused = a.bool(0)?;
            Value::None
        }
        "pushContexts" => {
            let saved = (r.vocabulary.clone(), r.word_spotting);
            r.contexts.push(saved);
            Value::None
        }
        "popContexts" => {
            if let Some((vocabulary, spotting)) = r.contexts.pop() {
                r.vocabulary = vocabulary;
                r.word_spotting = spotting;
            }
            Value::None
        }
        "setVisualExpression" | "setAudioExpression" => {
            r.parameters
                .insert(method.to_string(), Value::Bool(a.bool(0)?));
            Value::None
        }
        "setParameter" => {
            r.parameters.insert(a.str(0)?.to_string(), a.value(1));
            Value::None
        }
        "getParameter" => {
            let name = a.str(0)?;
            r.parameters.get(name).cloned().ok_or_else(|| {
                CallError::Failed(format!("{}: unknown parameter {name:?}", a.name))
            })?
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
