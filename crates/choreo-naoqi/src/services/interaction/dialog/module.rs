//! ALDialog, the module: loading and activating topics, subscribing, languages, what the
//! human said and the memory events reaching the dialog (see the folder's documentation).

use choreo_engine::Value;
use choreo_qichat::dialog::{Dialog as Qichat, QICHAT_EVENTS};

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim, first_served};
use crate::robot::error::CallError;

use super::engine::{self, Engine, Job, Keys, answered, raise_silence, submit};
use super::silence;
use super::state::{DEFAULT_THRESHOLD, Dialog, NAME};

/// How many answers memory events may set off at one instant of behavior time: past it, a
/// loop of rules (`u:(e:x) $x=1`) is cut, with a notice.
const MAX_EVENT_ANSWERS_AT_ONCE: usize = 64;

/// The speech recognition grammars whose confidence thresholds ALDialog keeps.
const GRAMMARS: [&str; 3] = ["BNF", "SLM", "REMOTE"];

/// What the human said reaches the dialog: with a subscriber, recognized with `confidence`
/// at or above the threshold (`None`: `forceInput`, answered even with no subscriber).
pub(crate) fn heard(sim: &Sim, said: &str, confidence: Option<f64>) {
    {
        let mut state = sim.state();
        let d = &state.part::<Dialog>();
        if let Some(c) = confidence
            && (d.subscribers.is_empty() || c < d.threshold("BNF"))
        {
            return;
        }
    }
    sim.raise("Dialog/LastInput", Value::from(said));
    silence::human_spoke(sim, raise_silence);
    submit(sim, Job::Input(said.to_string()));
}

/// A memory event reaches a running dialog: an `e:` rule of an active topic answers it
/// (reactions.rs calls this for every key). qiChat's own events (`Dialog/NotUnderstood`,
/// ...) are the engine's: "only usable in qichat rules, not with ALMemory".
pub(crate) fn memory_event(sim: &Sim, key: &str, _value: &Value) {
    if QICHAT_EVENTS.contains(&key) {
        return;
    }
    {
        let mut state = sim.state();
        let d = &mut state.part::<Dialog>();
        if d.subscribers.is_empty() || !d.watched.contains(key) {
            return;
        }
        let now = sim.now();
        if d.burst.0 == now {
            d.burst.1 += 1;
        } else {
            d.burst = (now, 1);
        }
        if d.burst.1 > MAX_EVENT_ANSWERS_AT_ONCE {
            if d.burst.1 == MAX_EVENT_ANSWERS_AT_ONCE + 1 {
                drop(state);
                sim.notice(
                    NAME,
                    format!(
                        "more than {MAX_EVENT_ANSWERS_AT_ONCE} answers to memory events at one \
                         instant (a loop of rules?): {key:?} is not answered"
                    ),
                );
            }
            return;
        }
    }
    submit(sim, Job::Event(key.to_string()));
}

/// Topic `origin`'s bytes parsed, with the concepts of the files it includes (read next to
/// it by `read`); QiChat errors are the method's, located.
fn parse_topic(
    a: &Args<'_>,
    origin: &str,
    bytes: &[u8],
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, choreo_qichat::ReadError>,
) -> Result<choreo_qichat::Topic, CallError> {
    let mut topic = match choreo_qichat::parse(origin, bytes) {
        Ok(parsed) => parsed.topic,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Err(CallError::Failed(format!(
                "{}: {}",
                a.name,
                text.join("; ")
            )));
        }
    };
    choreo_qichat::include(&mut topic, read)
        .map_err(|e| CallError::Failed(format!("{}: {e}", a.name)))?;
    Ok(topic)
}

/// Reads file `name` that the topic at `path` includes: next to the topic, else in folder
/// `also` (`_addDialogFromTopicBox`'s include folder) when given. A lexicon
/// (`lexicon_enu.top`: the concepts NAOqi keeps for every application) not there is looked
/// for in the application's other dialog folders (Choregraphe copies it into some), and
/// else stands for the robot's own lexicon, which the simulated robot does not have: a
/// notice, and an empty topic.
fn included(sim: &Sim, path: &str, also: Option<&str>, name: &str) -> Result<Vec<u8>, String> {
    let folder = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let at = folder.join(name);
    let error = match std::fs::read(&at) {
        Ok(bytes) => return Ok(bytes),
        Err(e) => format!("cannot read {}: {e}", at.display()),
    };
    if let Some(Ok(bytes)) = also.map(|d| std::fs::read(std::path::Path::new(d).join(name))) {
        return Ok(bytes);
    }
    if !(name.starts_with("lexicon_") && name.ends_with(".top")) {
        return Err(error);
    }
    let siblings = folder
        .parent()
        .and_then(|app| std::fs::read_dir(app).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join(name));
    for candidate in siblings {
        if let Ok(bytes) = std::fs::read(&candidate) {
            return Ok(bytes);
        }
    }
    sim.notice(
        NAME,
        format!(
            "{path} includes {name}, the robot's own lexicon, which the simulated robot does not \
             have: its concepts are unknown"
        ),
    );
    Ok(b"topic: ~lexicon()\n".to_vec())
}

/// A topic file read and parsed (`loadTopic`'s work, before any lock); its includes are
/// looked for in folder `also` too, if given.
fn read_topic(
    sim: &Sim,
    a: &Args<'_>,
    path: &str,
    also: Option<&str>,
) -> Result<choreo_qichat::Topic, CallError> {
    let local = sim.local_path(path);
    let bytes = std::fs::read(&local)
        .map_err(|e| CallError::Failed(format!("{}: cannot read topic {path:?}: {e}", a.name)))?;
    let also = also.map(|d| sim.local_path(d));
    parse_topic(a, path, &bytes, &mut |n| {
        included(sim, &local, also.as_deref(), n).map_err(Into::into)
    })
}

/// Loads `topic` (from `origin`) into the engine, noticing what of it is not run here; its
/// name.
fn load(sim: &Sim, engine: &mut Qichat, topic: choreo_qichat::Topic, origin: &str) -> String {
    for n in choreo_qichat::notices(&topic, origin) {
        sim.notice(NAME, n.to_string());
    }
    let language = topic.language.as_ref().map(|l| l.qichat_code().to_string());
    let name = engine.load(topic);
    sim.extension::<Engine>().saw(engine.rules());
    engine.deactivate(&name);
    sim.state()
        .part::<Dialog>()
        .topics
        .insert((name.clone(), language), origin.to_string());
    name
}

/// The memory keys the active topics answer, after a change to what is active.
fn rewatch(sim: &Sim, engine: &Qichat) {
    let watched = engine.events().into_iter().collect();
    sim.state().part::<Dialog>().watched = watched;
    silence::watch(sim, raise_silence);
}

/// Sets the robot's language: its preferred one and the dialog's.
pub(crate) fn set_preferred_language(sim: &Sim, name: &str) {
    sim.state().part::<Dialog>().preferred = name.to_string();
    set_language(sim, name);
}

/// Sets the dialog language (an installed one's name): the topics of that language answer.
fn set_language(sim: &Sim, name: &str) {
    let mut engine = sim.extension::<Engine>().get();
    engine.set_language(Some(name));
    sim.state().part::<Dialog>().language = name.to_string();
    rewatch(sim, &engine);
}

/// A language argument (a name or a QiChat code) as NAOqi's name.
fn language_name(a: &Args<'_>, i: usize) -> Result<String, CallError> {
    let given = a.str(i)?;
    choreo_robot::languages::by_name(given)
        .or_else(|| choreo_robot::languages::by_code(given))
        .map(|l| l.name.to_string())
        .ok_or_else(|| {
            CallError::Failed(format!("{}: language {given:?} is not installed", a.name))
        })
}

fn strings(items: Vec<String>) -> Value {
    Value::List(items.into_iter().map(Value::String).collect())
}

/// Serves ALDialog.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    first_served(
        &[
            serve_io,
            serve_topics,
            serve_engine,
            serve_users,
            serve_settings,
            serve_thresholds,
        ],
        sim,
        method,
        a,
    )
}

/// Serves ALDialog's inputs and outputs; `NotServed` for another method.
fn serve_io(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "forceInput" => {
            heard(sim, a.str(0)?, None);
            Value::None
        }
        "forceOutput" | "gotoTag" | "gotoTopic" => {
            let (answer, moved) = {
                let mut engine = sim.extension::<Engine>().get();
                let mut keys = Keys::new(sim);
                let focus = engine.focus().map(str::to_string);
                let answer = match method {
                    "forceOutput" => engine.propose(&mut keys),
                    "gotoTag" => {
                        let (tag, name) = (a.str(0)?, a.str(1)?);
                        let found = engine.goto_tag(name, tag, &mut keys);
                        Some(found.ok_or_else(|| {
                            CallError::Failed(format!(
                                "{}: no tag {tag:?} in topic {name:?}",
                                a.name
                            ))
                        })?)
                    }
                    _ => engine.goto_topic(a.str(0)?, &mut keys),
                };
                (answer, engine::focus_moved(&engine, focus))
            };
            engine::raise_focus(sim, moved);
            if let Some(answer) = answer {
                answered(sim, answer);
            }
            Value::None
        }
        "say" => {
            // A tagged sentence of a topic file, said without touching the active topics.
            let (path, tag) = (a.str(0)?, a.str(1)?);
            let topic = read_topic(sim, a, path, None)?;
            let mut alone = Qichat::new(1);
            let name = alone.load(topic);
            alone.activate(&name);
            let answer = alone
                .goto_tag(&name, tag, &mut Keys::new(sim))
                .ok_or_else(|| {
                    CallError::Failed(format!("{}: no tag {tag:?} in {path:?}", a.name))
                })?;
            answered(sim, answer);
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Serves ALDialog's sessions and users' data; `NotServed` for another method.
fn serve_users(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "openSession" | "closeSession" => {
            let user = if method == "openSession" {
                Some(a.int(0)?)
            } else {
                None
            };
            sim.extension::<Engine>().get().set_user(user.unwrap_or(0));
            let before = std::mem::replace(&mut sim.state().part::<Dialog>().session, user);
            match (before, user) {
                (_, Some(id)) => {
                    sim.notice(NAME, format!("opens the session of user {id}"));
                    sim.raise("Dialog/OpenSession", Value::Int(id));
                }
                (Some(id), None) => sim.notice(NAME, format!("closes the session of user {id}")),
                (None, None) => {}
            }
            Value::None
        }
        "insertUserData" => {
            let (name, value, user) = (a.str(0)?, a.str(1)?, a.int(2)?);
            sim.extension::<Engine>()
                .get()
                .insert_user_data(user, name, value);
            Value::None
        }
        "getUserData" => {
            let (name, user) = (a.str(0)?, a.int(1)?);
            let engine = sim.extension::<Engine>().get();
            Value::from(engine.user_data(user, name).unwrap_or_default())
        }
        "getUserDataList" => strings(sim.extension::<Engine>().get().user_data_names(a.int(0)?)),
        "removeUserData" => {
            sim.extension::<Engine>().get().remove_user_data(a.int(0)?);
            Value::None
        }
        "generateSentences" => {
            let (destination, topic) = (a.str(0)?, a.str(1)?);
            language_name(a, 2)?;
            let sentences = sim
                .extension::<Engine>()
                .get()
                .sentences(topic)
                .ok_or_else(|| {
                    CallError::Failed(format!("{}: topic {topic:?} is not loaded", a.name))
                })?;
            let mut text = sentences.join("\n");
            text.push('\n');
            // A robot path (`/home/nao/...`) is written in the run's own folders.
            std::fs::write(sim.local_path(destination), text).map_err(|e| {
                CallError::Failed(format!("{}: cannot write {destination:?}: {e}", a.name))
            })?;
            Value::None
        }
        "getUserList" => Value::List(
            sim.extension::<Engine>()
                .get()
                .users()
                .into_iter()
                .map(Value::Int)
                .collect(),
        ),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The topics `method` loads, read and parsed, with where each came from (before taking any
/// lock); none for another method.
fn read_topics(
    sim: &Sim,
    method: &str,
    a: &Args<'_>,
) -> Result<Vec<(choreo_qichat::Topic, String)>, CallError> {
    Ok(match method {
        "loadTopic" => vec![(read_topic(sim, a, a.str(0)?, None)?, a.str(0)?.to_string())],
        // A private method the stock boxes of Choregraphe 2.4-2.5 call: `loadTopic` with a
        // folder for the topic's includes ("Root of the behavior"), as its qi signature
        // `(ss)s` and its description on the robot give it.
        "_addDialogFromTopicBox" => {
            let topic = read_topic(sim, a, a.str(0)?, Some(a.str(1)?))?;
            vec![(topic, a.str(0)?.to_string())]
        }
        "loadTopicContent" => {
            let mut nowhere =
                |n: &str| Err(format!("cannot include {n:?} in a topic given as text").into());
            let topic = parse_topic(a, "<content>", a.str(0)?.as_bytes(), &mut nowhere)?;
            vec![(topic, "<content>".to_string())]
        }
        "runTopics" => {
            let mut out = Vec::new();
            for path in a.names(0)? {
                out.push((read_topic(sim, a, &path, None)?, path));
            }
            out
        }
        _ => Vec::new(),
    })
}

/// Serves ALDialog's topics: loading, activating, the focus; `NotServed` for another method.
fn serve_topics(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    // Reading topic files happens before taking any lock.
    let files = read_topics(sim, method, a)?;
    let value = match method {
        "loadTopic" | "_addDialogFromTopicBox" | "loadTopicContent" | "runTopics" => {
            let mut engine = sim.extension::<Engine>().get();
            let mut names = Vec::new();
            for (topic, origin) in files {
                names.push(load(sim, &mut engine, topic, &origin));
            }
            if method == "runTopics" {
                for name in &names {
                    engine.activate(name);
                }
                rewatch(sim, &engine);
                sim.state()
                    .part::<Dialog>()
                    .subscribers
                    .insert("runTopics".into());
                strings(names)
            } else {
                Value::String(names.remove(0))
            }
        }
        "unloadTopic" | "activateTopic" | "deactivateTopic" | "setFocus" | "stopTopics" => {
            let names = if method == "stopTopics" {
                a.names(0)?
            } else {
                vec![a.str(0)?.to_string()]
            };
            let mut engine = sim.extension::<Engine>().get();
            for name in names {
                if !engine.loaded(None).contains(&name) {
                    return Err(CallError::Failed(format!(
                        "{}: topic {name:?} is not loaded",
                        a.name
                    )));
                }
                match method {
                    "activateTopic" => {
                        engine.activate(&name);
                    }
                    "deactivateTopic" => {
                        engine.deactivate(&name);
                    }
                    "setFocus" => {
                        let before = engine.focus().map(str::to_string);
                        if !engine.set_focus(&name) {
                            return Err(CallError::Failed(format!(
                                "{}: topic {name:?} is not active",
                                a.name
                            )));
                        }
                        engine::raise_focus(sim, engine::focus_moved(&engine, before));
                    }
                    _ => {
                        engine.unload(&name);
                        sim.state()
                            .part::<Dialog>()
                            .topics
                            .retain(|(n, _), _| *n != name);
                    }
                }
            }
            rewatch(sim, &engine);
            if method == "stopTopics" {
                sim.state().part::<Dialog>().subscribers.remove("runTopics");
            }
            match method {
                "activateTopic" => sim.raise("Dialog/ActivateTopic", a.value(0)),
                "deactivateTopic" => sim.raise("Dialog/DeactivateTopic", a.value(0)),
                _ => {}
            }
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Serves ALDialog's focus, tags, concepts and language; `NotServed` for another method.
fn serve_engine(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "getFocus" => Value::from(sim.extension::<Engine>().get().focus().unwrap_or_default()),
        "getActivatedTopics" => strings(sim.extension::<Engine>().get().activated()),
        "getLoadedTopics" => {
            let language = language_name(a, 0)?;
            strings(sim.extension::<Engine>().get().loaded(Some(&language)))
        }
        "getAllLoadedTopics" => strings(sim.extension::<Engine>().get().loaded(None)),
        "activateTag" | "deactivateTag" => {
            let (tag, topic) = (a.str(0)?, a.str(1)?);
            if !sim
                .extension::<Engine>()
                .get()
                .set_tag(topic, tag, method == "activateTag")
            {
                return Err(CallError::Failed(format!(
                    "{}: topic {topic:?} is not loaded",
                    a.name
                )));
            }
            Value::None
        }
        "setVariablePath" => {
            let (topic, variable, key) = (a.str(0)?, a.str(1)?, a.str(2)?);
            let mut engine = sim.extension::<Engine>().get();
            if !engine.set_variable_path(topic, variable, key) {
                return Err(CallError::Failed(format!(
                    "{}: topic {topic:?} is not loaded",
                    a.name
                )));
            }
            rewatch(sim, &engine);
            Value::None
        }
        "setConcept" | "setConceptKeepInCache" | "addToConcept" => {
            let (name, words) = (a.str(0)?, a.names(2)?);
            language_name(a, 1)?;
            let mut engine = sim.extension::<Engine>().get();
            if method == "addToConcept" {
                engine.add_to_concept(name, words);
            } else {
                engine.set_concept(name, words);
            }
            Value::None
        }
        "getConcept" => {
            let name = a.str(0)?;
            language_name(a, 1)?;
            strings(
                sim.extension::<Engine>()
                    .get()
                    .concept(name)
                    .unwrap_or_default()
                    .to_vec(),
            )
        }
        "clearConcepts" => {
            sim.extension::<Engine>().get().clear_concepts();
            Value::None
        }
        "resetAll" => {
            sim.extension::<Engine>().get().reset_all();
            Value::None
        }
        "setDelay" => {
            let (event, ms) = (a.str(0)?, a.int(1)?);
            sim.extension::<Engine>().get().set_delay(event, ms);
            Value::None
        }
        "setLanguage" => {
            set_language(sim, &crate::services::audio::tts::checked_language(a)?);
            Value::None
        }
        "resetLanguage" => {
            let preferred = sim.state().part::<Dialog>().preferred.clone();
            set_language(sim, &preferred);
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Serves ALDialog's confidence thresholds; `NotServed` for another method.
fn serve_thresholds(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let mut state = sim.state();
    let d = &mut state.part::<Dialog>();
    let value = match method {
        "setASRConfidenceThreshold" => {
            let language = d.language.clone();
            d.thresholds.insert(("BNF".into(), language), a.f64(0)?);
            Value::None
        }
        "getASRConfidenceThreshold" => Value::Float(d.threshold("BNF")),
        "setConfidenceThreshold" => {
            let grammar = a.one_of(0, "a grammar", &GRAMMARS)?.to_string();
            let threshold = a.f64(1)?;
            let languages: Vec<String> = if a.len() > 2 {
                vec![language_name(a, 2)?]
            } else {
                choreo_robot::languages::LANGUAGES
                    .iter()
                    .map(|l| l.name.to_string())
                    .collect()
            };
            for language in languages {
                d.thresholds.insert((grammar.clone(), language), threshold);
            }
            Value::None
        }
        "getConfidenceThreshold" => {
            let grammar = a.one_of(0, "a grammar", &GRAMMARS)?;
            let language = language_name(a, 1)?;
            Value::Float(
                d.thresholds
                    .get(&(grammar.to_string(), language))
                    .copied()
                    .unwrap_or(DEFAULT_THRESHOLD),
            )
        }
        "getAllConfidenceThresholds" => Value::Map(
            GRAMMARS
                .iter()
                .map(|g| {
                    let per_language = choreo_robot::languages::LANGUAGES
                        .iter()
                        .map(|l| {
                            let t = d
                                .thresholds
                                .get(&(g.to_string(), l.name.to_string()))
                                .copied()
                                .unwrap_or(DEFAULT_THRESHOLD);
                            (Value::from(l.name), Value::Float(t))
                        })
                        .collect();
                    (Value::from(*g), Value::Map(per_language))
                })
                .collect(),
        ),
        "removeAllLanguageThresholds" => {
            d.thresholds.clear();
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// ALDialog's methods that keep settings (no engine involved).
fn serve_settings(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let mut state = sim.state();
    let d = &mut state.part::<Dialog>();
    let value = match method {
        "getLanguage" => Value::String(d.language.clone()),
        "subscribe" | "unsubscribe" | "runDialog" | "stopDialog" => {
            let was = !d.subscribers.is_empty();
            match method {
                "subscribe" => {
                    d.subscribers.insert(a.str(0)?.to_string());
                }
                "unsubscribe" => {
                    d.subscribers.remove(a.str(0)?);
                }
                "runDialog" => {
                    d.subscribers.insert("runDialog".into());
                }
                _ => d.subscribers.clear(),
            }
            let is = !d.subscribers.is_empty();
            drop(state);
            // "Dialog/IsStarted: Raised when the dialog engine starts or stops."
            if was != is {
                sim.raise("Dialog/IsStarted", Value::Int(i64::from(is)));
            }
            if !was && is {
                silence::human_spoke(sim, raise_silence);
            }
            return Ok(Reply::Now(Value::None));
        }
        "startPush" | "stopPush" | "setPushMode" => {
            d.push = match method {
                "startPush" => true,
                "stopPush" => false,
                _ => a.int(0)? != 0,
            };
            Value::None
        }
        "addFallback" | "removeFallback" => {
            let language = language_name(a, 0)?;
            let entry = (language, a.str(1)?.to_string());
            d.fallbacks.retain(|f| *f != entry);
            if method == "addFallback" {
                d.fallbacks.push(entry);
            }
            Value::None
        }
        "addBlockingEvent" => {
            d.blocking.insert(a.str(0)?.to_string());
            Value::None
        }
        "removeBlockingEvent" => {
            d.blocking.remove(a.str(0)?);
            Value::None
        }
        "setAnimatedSpeechConfiguration" => {
            d.animated = a.value(0);
            Value::None
        }
        "getAnimatedSpeechConfiguration" => d.animated.clone(),
        "compileAll" => Value::None,
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
