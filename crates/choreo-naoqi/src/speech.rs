//! ALSpeechRecognition and ALDialog: their configuration is kept, and they hear only what a
//! scenario says was heard ([`recognize`]): `WordRecognized` = `[word, confidence]`, and,
//! while a dialog runs, `Dialog/LastInput` = the word and the answer of its QiChat topics
//! (choreo-qichat's dialog engine), said through ALTextToSpeech.
//!
//! ALSpeechRecognition's grammar contexts: `compile(bnf, lcf, language)` reads the BNF
//! file (it must exist; the language must be installed) and makes the LCF file, not written
//! to disk but remembered; `addContext(lcf, name)` adds a context from an LCF file compiled
//! so or present on disk, `removeContext(name)` and `removeAllContext()` remove them. The
//! rules are not interpreted either. ALDialog's sessions (`openSession(id)`,
//! `closeSession()`) are kept; the dialog variables they store are ALMemory's already.

use std::collections::{BTreeMap, BTreeSet};

use choreo_engine::Value;

use crate::args::Args;
use crate::sim::{Reply, Sim};
use crate::tts::{LANGUAGES, languages};

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

/// ALDialog's configuration.
pub(crate) struct Dialog {
    language: String,
    /// Loaded topics: name → where they came from.
    topics: BTreeMap<String, String>,
    active: BTreeSet<String>,
    subscribers: BTreeSet<String>,
    concepts: BTreeMap<String, Vec<String>>,
    threshold: f64,
    /// The user whose session is open (`openSession`).
    session: Option<i64>,
    /// The QiChat engine: the loaded topics' rules, focus, scope and variables.
    engine: choreo_qichat::dialog::Dialog,
}

impl Default for Dialog {
    fn default() -> Dialog {
        Dialog {
            language: "English".into(),
            topics: BTreeMap::new(),
            active: BTreeSet::new(),
            subscribers: BTreeSet::new(),
            concepts: BTreeMap::new(),
            threshold: 0.5,
            session: None,
            engine: choreo_qichat::dialog::Dialog::new(1),
        }
    }
}

fn checked_language(a: &Args<'_>) -> Result<String, String> {
    let name = a.str(0)?;
    if LANGUAGES.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(format!("{}: language {name:?} is not installed", a.name))
    }
}

/// Makes the robot hear `word` with `confidence`: what the scenario's `recognize` does.
pub(crate) fn recognize(sim: &Sim, word: &str, confidence: f64) {
    sim.raise(
        "WordRecognized",
        Value::List(vec![Value::from(word), Value::Float(confidence)]),
    );
    answer(sim, word);
}

/// What the human said reaches a running dialog (one with a subscriber): `Dialog/LastInput`,
/// then the answer of the first rule that matches, said through ALTextToSpeech (posted, so
/// the caller does not wait) with `Dialog/Answered`, and the behaviors it starts; or
/// `Dialog/NotUnderstood`.
fn answer(sim: &Sim, said: &str) {
    let answer = {
        let mut state = sim.state();
        let d = &mut state.dialog;
        if d.subscribers.is_empty() {
            return;
        }
        d.engine.input(said)
    };
    sim.raise("Dialog/LastInput", Value::from(said));
    let Some(a) = answer else {
        sim.raise("Dialog/NotUnderstood", Value::from(said));
        return;
    };
    sim.raise("Dialog/Answered", Value::from(a.text.as_str()));
    if !a.text.is_empty() {
        // A say that fails (the robot is busy) is the dialog's, not the caller's, problem.
        let _ = sim.post_call("ALTextToSpeech", "say", vec![Value::from(a.text.as_str())]);
    }
    for action in a.actions {
        use choreo_qichat::dialog::Action;
        let (method, behavior) = match action {
            Action::Start(b) | Action::Run(b) => ("startBehavior", b),
            Action::Stop(b) => ("stopBehavior", b),
            Action::Wait(_) | Action::EndDiscuss(_) => continue,
            Action::Unsupported(f) => {
                sim.notice("ALDialog", format!("^{f} is not supported here"));
                continue;
            }
        };
        if let Err(e) = sim.call(
            "ALBehaviorManager",
            method,
            vec![Value::from(behavior.as_str())],
        ) {
            sim.notice("ALDialog", format!("{method}({behavior}): {e}"));
        }
    }
}

/// ALSpeechRecognition's grammar contexts (see the module docs); `None` for another method.
fn grammar(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Option<Value>, String> {
    const NAME: &str = "ALSpeechRecognition";
    let shown = match method {
        "compile" => {
            let (bnf, lcf, language) = (a.str(0)?, a.str(1)?, a.str(2)?);
            if !LANGUAGES.contains(&language) {
                return Err(format!(
                    "{}: language {language:?} is not installed",
                    a.name
                ));
            }
            std::fs::metadata(bnf)
                .map_err(|e| format!("{}: cannot read the grammar {bnf:?}: {e}", a.name))?;
            sim.state().recognition.compiled.insert(lcf.to_string());
            format!("compiles {bnf} into {lcf} (not written to disk)")
        }
        "addContext" => {
            let (lcf, name) = (a.str(0)?, a.str(1)?);
            let compiled = sim.state().recognition.compiled.contains(lcf);
            if !compiled && std::fs::metadata(lcf).is_err() {
                return Err(format!("{}: no LCF file {lcf:?}", a.name));
            }
            sim.state()
                .recognition
                .grammars
                .insert(name.to_string(), lcf.to_string());
            format!("adds context {name:?} from {lcf}")
        }
        "removeContext" => {
            let name = a.str(0)?;
            sim.state().recognition.grammars.remove(name);
            format!("removes context {name:?}")
        }
        "removeAllContext" => {
            sim.state().recognition.grammars.clear();
            "removes every context".to_string()
        }
        _ => return Ok(None),
    };
    sim.notice(NAME, shown);
    Ok(Some(Value::None))
}

/// Serves ALSpeechRecognition.
pub(crate) fn serve_recognition(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    if let Some(value) = grammar(sim, method, a)? {
        return Ok(Reply::Now(value));
    }
    let mut state = sim.state();
    let r = &mut state.recognition;
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
                return Err(format!("{}: {name:?} is not subscribed", a.name));
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
            r.parameters
                .get(name)
                .cloned()
                .ok_or_else(|| format!("{}: unknown parameter {name:?}", a.name))?
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Topic `origin`'s bytes parsed (QiChat syntax errors are the method's error, located, as
/// NAOqi raises on a bad topic); with where it came from.
fn parse_topic(
    a: &Args<'_>,
    origin: &str,
    bytes: &[u8],
) -> Result<(choreo_qichat::Topic, String), String> {
    match choreo_qichat::parse(origin, bytes) {
        Ok(parsed) => Ok((parsed.topic, origin.to_string())),
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            Err(format!("{}: {}", a.name, text.join("; ")))
        }
    }
}

/// Serves ALDialog.
pub(crate) fn serve_dialog(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let topic = |a: &Args<'_>| -> Result<String, String> { Ok(a.str(0)?.to_string()) };
    // Reading a topic file happens before taking the state lock.
    let loaded = match method {
        "loadTopic" => {
            let path = a.str(0)?;
            let bytes = std::fs::read(path)
                .map_err(|e| format!("{}: cannot read topic {path:?}: {e}", a.name))?;
            Some(parse_topic(a, path, &bytes)?)
        }
        "loadTopicContent" => Some(parse_topic(a, "<content>", a.str(0)?.as_bytes())?),
        _ => None,
    };
    if method == "forceInput" {
        answer(sim, a.str(0)?);
        return Ok(Reply::Now(Value::None));
    }
    if method == "openSession" || method == "closeSession" {
        let user = if method == "openSession" {
            Some(a.int(0)?)
        } else {
            None
        };
        let before = std::mem::replace(&mut sim.state().dialog.session, user);
        match (before, user) {
            (_, Some(id)) => sim.notice("ALDialog", format!("opens the session of user {id}")),
            (Some(id), None) => sim.notice("ALDialog", format!("closes the session of user {id}")),
            (None, None) => {}
        }
        return Ok(Reply::Now(Value::None));
    }
    let mut state = sim.state();
    let d = &mut state.dialog;
    let value = match method {
        "setLanguage" => {
            d.language = checked_language(a)?;
            Value::None
        }
        "getLanguage" => Value::String(d.language.clone()),
        "setConcept" => {
            let (name, _language, words) = (a.str(0)?, a.str(1)?, a.names(2)?);
            d.engine.set_concept(name, words.clone());
            d.concepts.insert(name.to_string(), words);
            Value::None
        }
        "loadTopic" | "loadTopicContent" => {
            let Some((topic, origin)) = loaded else {
                return Err(format!("{}: no topic", a.name));
            };
            let name = d.engine.load(topic);
            d.topics.insert(name.clone(), origin);
            Value::String(name)
        }
        "activateTopic" | "deactivateTopic" | "unloadTopic" => {
            let name = topic(a)?;
            if !d.topics.contains_key(&name) {
                return Err(format!("{}: topic {name:?} is not loaded", a.name));
            }
            match method {
                "activateTopic" => {
                    d.engine.activate(&name);
                    d.active.insert(name)
                }
                "deactivateTopic" => {
                    d.engine.deactivate(&name);
                    d.active.remove(&name)
                }
                _ => {
                    d.engine.deactivate(&name);
                    d.active.remove(&name) | d.topics.remove(&name).is_some()
                }
            };
            Value::None
        }
        "subscribe" => {
            d.subscribers.insert(topic(a)?);
            Value::None
        }
        "unsubscribe" => {
            d.subscribers.remove(&topic(a)?);
            Value::None
        }
        "setASRConfidenceThreshold" => {
            d.threshold = a.f64(0)?;
            Value::None
        }
        "getASRConfidenceThreshold" => Value::Float(d.threshold),
        "stopDialog" => {
            d.subscribers.clear();
            Value::None
        }
        "setFocus" => {
            topic(a)?;
            Value::None
        }
        "gotoTag" => {
            a.str(0)?;
            a.str(1)?;
            Value::None
        }
        "getActivatedTopics" => {
            Value::List(d.active.iter().map(|t| Value::from(t.as_str())).collect())
        }
        "getLoadedTopics" => {
            Value::List(d.topics.keys().map(|t| Value::from(t.as_str())).collect())
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
