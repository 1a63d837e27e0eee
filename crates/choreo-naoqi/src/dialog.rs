//! ALDialog: QiChat topics run by choreo-qichat's dialog engine.
//!
//! **Topics.** `loadTopic(path)` (with the concepts of the files its `include:` lines name,
//! next to it) and `loadTopicContent(text)` parse a topic; a syntax error fails the call
//! with its location, as NAOqi raises on a bad topic. A topic answers while it is activated
//! and ALDialog's language (`setLanguage`) is the topic's `language:`.
//!
//! **Variables are ALMemory's.** `$name` reads memory key `name` and `$name=value` writes it
//! (a string, notifying subscribers as `insertData` does); `setVariablePath(topic, name,
//! key)` makes the topic's `$name` and `e:name` key `key` instead (the stock Dialog box gives
//! its inputs and outputs keys of their own this way: our reading of that method, whose
//! documentation is not public). `e:` rules answer memory events while the dialog runs.
//!
//! **Answers.** While a dialog runs (something subscribed), what the robot hears (a
//! scenario's `recognize`, `forceInput`) raises `Dialog/LastInput`, then `Dialog/Answered`
//! and the answer, or `Dialog/NotUnderstood` (which `e:Dialog/NotUnderstood` rules answer).
//! An answer is performed in the order its output says, on a background activity, one
//! answer after the other: words and `^start`/`^run`/`^stop`/`^wait` through
//! ALAnimatedSpeech (which plays stock animations and runs installed behaviors), `$var=value`
//! once the words before it are said. `gotoTag` and `forceOutput` make the robot speak
//! first. Sessions (`openSession(id)`, `closeSession()`) are kept.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_qichat::dialog::{Action, Answer, Memory, Step};

use crate::args::Args;
use crate::sim::{Reply, Sim};

const NAME: &str = "ALDialog";

/// How many answers memory events may set off at one instant of behavior time: past it, a
/// loop of rules (`u:(e:x) $x=1`) is cut, with a notice.
const MAX_EVENT_ANSWERS_AT_ONCE: usize = 64;

/// How long an answer waits for the answers before it to be performed.
const MAX_TURN_WAIT: Duration = Duration::from_secs(600);

/// ALDialog's state.
pub(crate) struct Dialog {
    language: String,
    /// Loaded topics: name → (where it came from, its language code).
    topics: BTreeMap<String, (String, Option<String>)>,
    /// Topics activated (they answer in their language).
    active: BTreeSet<String>,
    subscribers: BTreeSet<String>,
    threshold: f64,
    /// The user whose session is open (`openSession`).
    session: Option<i64>,
    /// The QiChat engine: the loaded topics' rules, focus, scope and proposals.
    engine: choreo_qichat::dialog::Dialog,
    /// Answers are performed in turn: the next ticket, and whose turn it is.
    tickets: u64,
    turn: u64,
    /// Answers memory events set off at the latest instant: (when, how many).
    burst: (Time, usize),
}

impl Default for Dialog {
    fn default() -> Dialog {
        Dialog {
            language: "English".into(),
            topics: BTreeMap::new(),
            active: BTreeSet::new(),
            subscribers: BTreeSet::new(),
            threshold: 0.5,
            session: None,
            engine: choreo_qichat::dialog::Dialog::new(1),
            tickets: 0,
            turn: 0,
            burst: (Time(0), 0),
        }
    }
}

impl Dialog {
    /// Sets the dialog language (an installed one's name).
    pub(crate) fn set_language(&mut self, name: &str) {
        self.language = name.to_string();
        self.sync();
    }

    /// The engine's active topics: those activated whose language is ALDialog's.
    fn sync(&mut self) {
        let code = choreo_robot::languages::by_name(&self.language).map(|l| l.code);
        for (name, (_, language)) in &self.topics {
            let speaks = language.is_none() || language.as_deref() == code;
            if self.active.contains(name) && speaks {
                self.engine.activate(name);
            } else {
                self.engine.deactivate(name);
            }
        }
    }
}

/// ALMemory as the dialog engine sees it: the stored keys, and what the answer being made
/// wrote (written to memory later, in order, when the answer is performed).
struct Keys<'a> {
    sim: &'a Sim,
    written: HashMap<String, Option<String>>,
}

impl<'a> Keys<'a> {
    fn new(sim: &'a Sim) -> Keys<'a> {
        Keys {
            sim,
            written: HashMap::new(),
        }
    }
}

impl Memory for Keys<'_> {
    fn get(&self, key: &str) -> Option<String> {
        match self.written.get(key) {
            Some(v) => v.clone(),
            None => self.sim.memory.get(key).and_then(|v| text(&v)),
        }
    }
    fn set(&mut self, key: &str, value: Option<&str>) {
        self.written
            .insert(key.to_string(), value.map(str::to_string));
    }
}

/// A memory value as QiChat text (numbers as written, booleans as 1/0); `None` for lists,
/// maps and bytes.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
        _ => None,
    }
}

/// What the human said reaches a running dialog (one with a subscriber).
pub(crate) fn heard(sim: &Sim, said: &str) {
    let answer = {
        let mut state = sim.state();
        let d = &mut state.dialog;
        if d.subscribers.is_empty() {
            return;
        }
        let mut keys = Keys::new(sim);
        d.engine.input(said, &mut keys)
    };
    sim.raise("Dialog/LastInput", Value::from(said));
    match answer {
        Some(a) => answered(sim, a),
        None => sim.raise("Dialog/NotUnderstood", Value::from(said)),
    }
}

/// A memory event reaches a running dialog: an `e:` rule of an active topic answers it
/// (reactions.rs calls this for every key).
pub(crate) fn memory_event(sim: &Sim, key: &str, _value: &Value) {
    let answer = {
        let mut state = sim.state();
        let d = &mut state.dialog;
        if d.subscribers.is_empty() || !d.engine.events().iter().any(|e| e == key) {
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
        let mut keys = Keys::new(sim);
        d.engine.event(key, &mut keys)
    };
    if let Some(a) = answer {
        answered(sim, a);
    }
}

/// The robot answers: `Dialog/Answered`, then the answer performed.
fn answered(sim: &Sim, a: Answer) {
    sim.raise("Dialog/Answered", Value::from(a.text.as_str()));
    perform(sim, a.steps);
}

/// Performs `steps` on a background activity, after the answers before it.
fn perform(sim: &Sim, steps: Vec<Step>) {
    let ticket = {
        let mut state = sim.state();
        state.dialog.tickets += 1;
        state.dialog.tickets - 1
    };
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        sim.state().dialog.turn += 1;
        return;
    };
    let clock = std::sync::Arc::clone(&time);
    let spawned = time.spawn("ALDialog answer", move || {
        let deadline = clock
            .now()
            .0
            .saturating_add(MAX_TURN_WAIT.as_nanos() as u64);
        while me.state().dialog.turn < ticket && clock.now().0 < deadline {
            clock.sleep(Duration::from_millis(20));
        }
        run_steps(&me, steps);
        me.state().dialog.turn += 1;
    });
    if let Err(e) = spawned {
        sim.state().dialog.turn += 1;
        sim.notice(NAME, format!("cannot perform an answer: {e}"));
    }
}

/// Says and does `steps` in order (see the module docs).
fn run_steps(sim: &Sim, steps: Vec<Step>) {
    let mut speech = String::new();
    let say = |speech: &mut String| {
        let text = std::mem::take(speech);
        if !text.trim().is_empty()
            && let Err(e) = sim.call("ALAnimatedSpeech", "say", vec![Value::from(text.trim())])
        {
            sim.notice(NAME, format!("cannot say {:?}: {e}", text.trim()));
        }
    };
    for step in steps {
        match step {
            Step::Say(words) => {
                speech.push_str(&words);
                speech.push(' ');
            }
            Step::Do(action) => match action {
                Action::Start(x) => speech.push_str(&format!("^start({x}) ")),
                Action::Run(x) => speech.push_str(&format!("^run({x}) ")),
                Action::Stop(x) => speech.push_str(&format!("^stop({x}) ")),
                Action::Wait(x) => speech.push_str(&format!("^wait({x}) ")),
                Action::EndDiscuss(reason) => {
                    sim.notice(NAME, format!("^endDiscuss({reason}): the discussion ends"));
                }
                Action::Unsupported(f) => sim.notice(NAME, format!("^{f} is not supported here")),
            },
            Step::Set { key, value } => {
                say(&mut speech);
                match value {
                    Some(v) => sim.insert(&key, Value::String(v)),
                    None => sim.memory.remove(&key),
                }
            }
        }
    }
    say(&mut speech);
}

/// Topic `origin`'s bytes parsed, with the concepts of the files it includes (read next to
/// it by `read`); QiChat errors are the method's, located.
fn parse_topic(
    a: &Args<'_>,
    origin: &str,
    bytes: &[u8],
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<choreo_qichat::Topic, String> {
    let mut topic = match choreo_qichat::parse(origin, bytes) {
        Ok(parsed) => parsed.topic,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Err(format!("{}: {}", a.name, text.join("; ")));
        }
    };
    choreo_qichat::include(&mut topic, read).map_err(|e| format!("{}: {e}", a.name))?;
    Ok(topic)
}

/// Reads file `name` that the topic at `path` includes: next to the topic. A lexicon
/// (`lexicon_enu.top`: the concepts NAOqi keeps for every application) not there is looked
/// for in the application's other dialog folders (Choregraphe copies it into some), and
/// else stands for the robot's own lexicon, which the simulated robot does not have: a
/// notice, and an empty topic.
fn included(sim: &Sim, path: &str, name: &str) -> Result<Vec<u8>, String> {
    let folder = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let at = folder.join(name);
    let error = match std::fs::read(&at) {
        Ok(bytes) => return Ok(bytes),
        Err(e) => format!("cannot read {}: {e}", at.display()),
    };
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

/// Serves ALDialog.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let topic = |a: &Args<'_>| -> Result<String, String> { Ok(a.str(0)?.to_string()) };
    // Reading a topic file happens before taking the state lock.
    let loaded = match method {
        "loadTopic" => {
            let path = a.str(0)?;
            let bytes = std::fs::read(path)
                .map_err(|e| format!("{}: cannot read topic {path:?}: {e}", a.name))?;
            Some((
                parse_topic(a, path, &bytes, &mut |n| included(sim, path, n))?,
                path.to_string(),
            ))
        }
        "loadTopicContent" => {
            let mut nowhere =
                |n: &str| Err(format!("cannot include {n:?} in a topic given as text"));
            Some((
                parse_topic(a, "<content>", a.str(0)?.as_bytes(), &mut nowhere)?,
                "<content>".to_string(),
            ))
        }
        _ => None,
    };
    match method {
        "forceInput" => {
            heard(sim, a.str(0)?);
            return Ok(Reply::Now(Value::None));
        }
        "forceOutput" => {
            let answer = {
                let mut state = sim.state();
                let mut keys = Keys::new(sim);
                state.dialog.engine.propose(&mut keys)
            };
            if let Some(answer) = answer {
                answered(sim, answer);
            }
            return Ok(Reply::Now(Value::None));
        }
        "gotoTag" => {
            let (tag, name) = (a.str(0)?, a.str(1)?);
            let answer = {
                let mut state = sim.state();
                let mut keys = Keys::new(sim);
                state.dialog.engine.goto_tag(name, tag, &mut keys)
            };
            let answer =
                answer.ok_or_else(|| format!("{}: no tag {tag:?} in topic {name:?}", a.name))?;
            answered(sim, answer);
            return Ok(Reply::Now(Value::None));
        }
        "openSession" | "closeSession" => {
            let user = if method == "openSession" {
                Some(a.int(0)?)
            } else {
                None
            };
            let before = std::mem::replace(&mut sim.state().dialog.session, user);
            match (before, user) {
                (_, Some(id)) => sim.notice(NAME, format!("opens the session of user {id}")),
                (Some(id), None) => sim.notice(NAME, format!("closes the session of user {id}")),
                (None, None) => {}
            }
            return Ok(Reply::Now(Value::None));
        }
        _ => {}
    }
    let mut state = sim.state();
    let d = &mut state.dialog;
    let value = match method {
        "setLanguage" => {
            d.set_language(&crate::speech::checked_language(a)?);
            Value::None
        }
        "getLanguage" => Value::String(d.language.clone()),
        "setConcept" | "setConceptKeepInCache" => {
            let (name, _language, words) = (a.str(0)?, a.str(1)?, a.names(2)?);
            d.engine.set_concept(name, words);
            Value::None
        }
        "loadTopic" | "loadTopicContent" => {
            let Some((topic, origin)) = loaded else {
                return Err(format!("{}: no topic", a.name));
            };
            let language = topic.language.as_ref().map(|l| l.code.clone());
            let name = d.engine.load(topic);
            d.active.remove(&name);
            d.topics.insert(name.clone(), (origin, language));
            Value::String(name)
        }
        "activateTopic" | "deactivateTopic" | "unloadTopic" | "setFocus" => {
            let name = topic(a)?;
            if !d.topics.contains_key(&name) {
                return Err(format!("{}: topic {name:?} is not loaded", a.name));
            }
            match method {
                "activateTopic" => {
                    d.active.insert(name);
                    d.sync();
                }
                "deactivateTopic" => {
                    d.active.remove(&name);
                    d.sync();
                }
                "unloadTopic" => {
                    d.active.remove(&name);
                    d.topics.remove(&name);
                    d.engine.unload(&name);
                }
                _ => {
                    if !d.engine.set_focus(&name) {
                        return Err(format!("{}: topic {name:?} is not active", a.name));
                    }
                }
            }
            Value::None
        }
        "setVariablePath" => {
            let (name, variable, key) = (a.str(0)?, a.str(1)?, a.str(2)?);
            if !d.engine.set_variable_path(name, variable, key) {
                return Err(format!("{}: topic {name:?} is not loaded", a.name));
            }
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
