//! ALSpeechRecognition and ALDialog: their configuration is kept, and they hear only what a
//! scenario says was heard ([`recognize`]): `WordRecognized` = `[word, confidence]`, and
//! `Dialog/LastInput` = the word while a dialog runs. QiChat rules are not interpreted.
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
    let dialog_running = !sim.state().dialog.subscribers.is_empty();
    if dialog_running {
        sim.raise("Dialog/LastInput", Value::from(word));
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

/// The name of the topic in QiChat `source` (`topic: ~name()`).
fn topic_name(source: &str) -> Option<String> {
    let line = source
        .lines()
        .map(str::trim)
        .find(|l| l.to_ascii_lowercase().starts_with("topic:"))?;
    let rest = line.get(6..)?.trim().strip_prefix('~')?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Serves ALDialog.
pub(crate) fn serve_dialog(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let topic = |a: &Args<'_>| -> Result<String, String> { Ok(a.str(0)?.to_string()) };
    // Reading a topic file happens before taking the state lock.
    let loaded = match method {
        "loadTopic" => {
            let path = a.str(0)?;
            let source = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: cannot read topic {path:?}: {e}", a.name))?;
            Some((source, path.to_string()))
        }
        "loadTopicContent" => Some((a.str(0)?.to_string(), "<content>".to_string())),
        _ => None,
    };
    if method == "forceInput" {
        let input = a.str(0)?;
        sim.raise("Dialog/LastInput", Value::from(input));
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
            d.concepts.insert(name.to_string(), words);
            Value::None
        }
        "loadTopic" | "loadTopicContent" => {
            let (source, origin) = loaded.unwrap_or_default();
            let name = topic_name(&source)
                .ok_or_else(|| format!("{}: no `topic: ~name()` line in {origin}", a.name))?;
            d.topics.insert(name.clone(), origin);
            Value::String(name)
        }
        "activateTopic" | "deactivateTopic" | "unloadTopic" => {
            let name = topic(a)?;
            if !d.topics.contains_key(&name) {
                return Err(format!("{}: topic {name:?} is not loaded", a.name));
            }
            match method {
                "activateTopic" => d.active.insert(name),
                "deactivateTopic" => d.active.remove(&name),
                _ => d.active.remove(&name) | d.topics.remove(&name).is_some(),
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_come_from_the_topic_line() {
        assert_eq!(
            topic_name("topic: ~greetings()\nlanguage: enu\nu:(hi) hello"),
            Some("greetings".to_string())
        );
        assert_eq!(topic_name("language: enu"), None);
    }
}
