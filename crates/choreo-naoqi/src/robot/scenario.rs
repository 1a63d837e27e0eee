//! Scenarios: the world a simulated robot cannot sense, injected at given times or when the
//! behavior makes a given call (`choreo run --events FILE`), and stubs that answer calls the
//! simulation lacks (`on_call` + `reply`). The format is in `docs/scenarios.md`; YAML or JSON
//! (by the `.json` extension).

use std::sync::Mutex;

use choreo_engine::Value;
use serde::Deserialize;

use crate::robot::memory::TOUCH_SENSORS;
use crate::services::people::person::Face;

/// How long a `touch` holds the sensor before releasing it, unless the entry says `hold`.
pub const TOUCH_HOLD_SECONDS: f64 = 0.2;

/// A scenario: what happens to the robot, entry by entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Where it came from (a file name), for messages.
    pub name: String,
    /// Its entries, in file order.
    pub entries: Vec<Entry>,
    /// The outcomes it sets for box code's draws by chance, by draw number (the run's first
    /// is 1; `choreo_engine::chance`): what the run, not the robot, takes from it.
    pub chance: std::collections::BTreeMap<u64, u64>,
    /// The posture the robot is in when the run starts (a person put it there): one of
    /// ALRobotPosture's for the model (`LyingBelly`); by default its wake posture.
    pub posture: Option<String>,
    /// The face of the person the robot sees (ALFaceCharacteristics reads it); by default
    /// [`Face::default`].
    pub face: Option<Face>,
}

/// One entry: when, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// When it happens.
    pub trigger: Trigger,
    /// What happens.
    pub action: Action,
}

/// When an entry happens.
#[derive(Debug, Clone, PartialEq)]
pub enum Trigger {
    /// At this many seconds of behavior time after the engine attached the robot.
    At(f64),
    /// When the behavior calls a method.
    OnCall {
        /// `Module.method`, e.g. `ALTextToSpeech.say`.
        call: String,
        /// Only if the first argument (as text) contains this.
        contains: Option<String>,
        /// Only if the arguments are these (numbers compare by value: `1` matches `1.0`).
        args: Option<Vec<Value>>,
        /// At the call's start or end.
        when: When,
        /// Seconds to wait after that.
        delay: f64,
        /// Every matching call, not only the first.
        repeat: bool,
    },
}

/// Which moment of a call triggers an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// When the call is made.
    Start,
    /// When it returns (a posted call: when its task ends or is stopped).
    End,
}

/// What an entry does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `ALMemory.raiseEvent(key, value)`.
    RaiseEvent {
        /// The key.
        key: String,
        /// The value.
        value: Value,
    },
    /// `ALMemory.insertData(key, value)`.
    InsertData {
        /// The key.
        key: String,
        /// The value.
        value: Value,
    },
    /// The robot hears `word`: `WordRecognized` = `[word, confidence]` (and
    /// `Dialog/LastInput` = word while a dialog runs).
    Recognize {
        /// The word or phrase.
        word: String,
        /// Confidence 0..1.
        confidence: f64,
    },
    /// A touch: the sensor's event is raised with 1.0, then 0.0 after `hold` seconds.
    Touch {
        /// The event key, e.g. `FrontTactilTouched`.
        sensor: String,
        /// Seconds between press and release.
        hold: f64,
    },
    /// A stub: the call is answered with `value` at once, instead of by the robot (which may
    /// not serve it at all). Only with an `on_call` trigger; never performed by a trigger.
    Reply {
        /// What the call returns.
        value: Value,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Free text for people; accepted and ignored.
    #[serde(default, rename = "description")]
    _description: Option<serde::de::IgnoredAny>,
    events: Vec<Entry>,
    #[serde(default)]
    chance: SetDraws,
    #[serde(default)]
    posture: Option<String>,
    #[serde(default)]
    face: Option<Face>,
}

/// `chance: [{draw: 2, outcome: 5}]`: the run's second draw takes outcome 5. Each draw
/// once, numbered from 1 (checked while parsing, so an error names its line).
#[derive(Default)]
struct SetDraws(std::collections::BTreeMap<u64, u64>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawSetDraw")]
struct SetDraw {
    draw: u64,
    outcome: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetDraw {
    draw: u64,
    outcome: u64,
}

impl TryFrom<RawSetDraw> for SetDraw {
    type Error = &'static str;

    fn try_from(raw: RawSetDraw) -> Result<SetDraw, &'static str> {
        if raw.draw == 0 {
            return Err("chance: draws are numbered from 1");
        }
        Ok(SetDraw {
            draw: raw.draw,
            outcome: raw.outcome,
        })
    }
}

impl<'de> Deserialize<'de> for SetDraws {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SetDraws, D::Error> {
        let mut out = std::collections::BTreeMap::new();
        for s in Vec::<SetDraw>::deserialize(d)? {
            if out.insert(s.draw, s.outcome).is_some() {
                return Err(serde::de::Error::custom(format!(
                    "chance: draw {} is set twice",
                    s.draw
                )));
            }
        }
        Ok(SetDraws(out))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    at: Option<f64>,
    on_call: Option<String>,
    contains: Option<String>,
    args: Option<Vec<serde_json::Value>>,
    when: Option<When>,
    delay: Option<f64>,
    repeat: Option<bool>,
    raise_event: Option<KeyValue>,
    insert_data: Option<KeyValue>,
    recognize: Option<Recognize>,
    touch: Option<Touch>,
    /// Present even when `null` (a stub answering None).
    #[serde(default, deserialize_with = "present")]
    reply: Option<serde_json::Value>,
    /// Free text for people; accepted and ignored.
    #[serde(default, rename = "note")]
    _note: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyValue {
    key: String,
    #[serde(default)]
    value: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Recognize {
    word: String,
    confidence: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Touch {
    Sensor(String),
    Held { sensor: String, hold: f64 },
}

/// A field that is there, whatever its value (`reply: null` is `Some(Null)`, not absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

fn to_value(v: serde_json::Value) -> Value {
    Value::deserialize(v).unwrap_or_default()
}

fn seconds(what: &str, x: f64) -> Result<f64, String> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(format!("`{what}` must be a number of seconds ≥ 0, got {x}"))
    }
}

impl TryFrom<RawEntry> for Entry {
    type Error = String;

    fn try_from(mut raw: RawEntry) -> Result<Entry, String> {
        let trigger = trigger_of(&mut raw)?;
        let action = action_of(&mut raw)?;
        Ok(Entry { trigger, action })
    }
}

/// When an entry acts: at a time, or on a call (with its filters); what contradicts the
/// kind of trigger is refused.
fn trigger_of(raw: &mut RawEntry) -> Result<Trigger, String> {
    Ok(match (raw.at, raw.on_call.take()) {
        (Some(_), Some(_)) => {
            return Err("an entry has both `at` and `on_call`: choose one".into());
        }
        (None, None) => {
            return Err("an entry needs `at: <seconds>` or `on_call: \"Module.method\"`".into());
        }
        (Some(at), None) => {
            if raw.reply.is_some() {
                return Err(
                    "`reply` answers a call: it needs `on_call: \"Module.method\"`, not `at`"
                        .into(),
                );
            }
            for (field, set) in [
                ("contains", raw.contains.is_some()),
                ("args", raw.args.is_some()),
                ("when", raw.when.is_some()),
                ("delay", raw.delay.is_some()),
                ("repeat", raw.repeat.is_some()),
            ] {
                if set {
                    return Err(format!("`{field}` only applies to `on_call` entries"));
                }
            }
            Trigger::At(seconds("at", at)?)
        }
        (None, Some(call)) => {
            let valid = call
                .split_once('.')
                .is_some_and(|(m, f)| !m.is_empty() && !f.is_empty() && !f.contains('.'));
            if !valid {
                return Err(format!(
                    "`on_call` must be \"Module.method\" (e.g. \"ALTextToSpeech.say\"), got {call:?}"
                ));
            }
            if raw.reply.is_some() {
                for (field, set) in [
                    ("when", raw.when.is_some()),
                    ("delay", raw.delay.is_some()),
                    ("repeat", raw.repeat.is_some()),
                ] {
                    if set {
                        return Err(format!(
                            "`{field}` does not apply to a `reply` entry (a stub answers every matching call, at once)"
                        ));
                    }
                }
            }
            Trigger::OnCall {
                call,
                contains: raw.contains.take(),
                args: raw
                    .args
                    .take()
                    .map(|args| args.into_iter().map(to_value).collect()),
                when: raw.when.take().unwrap_or(When::End),
                delay: seconds("delay", raw.delay.unwrap_or(0.0))?,
                repeat: raw.repeat.unwrap_or(false),
            }
        }
    })
}

/// What an entry does: exactly one action.
fn action_of(raw: &mut RawEntry) -> Result<Action, String> {
    let mut actions = Vec::new();
    if let Some(kv) = raw.raise_event.take() {
        actions.push(Action::RaiseEvent {
            key: kv.key,
            value: to_value(kv.value),
        });
    }
    if let Some(kv) = raw.insert_data.take() {
        actions.push(Action::InsertData {
            key: kv.key,
            value: to_value(kv.value),
        });
    }
    if let Some(r) = raw.recognize.take() {
        let confidence = r.confidence.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&confidence) {
            return Err(format!(
                "recognize: `confidence` must be in 0..1, got {confidence}"
            ));
        }
        if r.word.trim().is_empty() {
            return Err("recognize: `word` is empty".into());
        }
        actions.push(Action::Recognize {
            word: r.word,
            confidence,
        });
    }
    if let Some(t) = raw.touch.take() {
        let (sensor, hold) = match t {
            Touch::Sensor(s) => (s, TOUCH_HOLD_SECONDS),
            Touch::Held { sensor, hold } => (sensor, seconds("hold", hold)?),
        };
        if !TOUCH_SENSORS.iter().any(|(name, _)| *name == sensor) {
            let known: Vec<&str> = TOUCH_SENSORS.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "touch: unknown sensor {sensor:?} (sensors: {})",
                known.join(", ")
            ));
        }
        actions.push(Action::Touch { sensor, hold });
    }
    if let Some(value) = raw.reply.take() {
        actions.push(Action::Reply {
            value: to_value(value),
        });
    }
    if actions.len() > 1 {
        return Err("an entry has several actions: give each its own entry".into());
    }
    actions.pop().ok_or_else(|| {
        "an entry needs an action: `raise_event`, `insert_data`, `recognize`, `touch` or `reply`"
            .to_string()
    })
}

/// One scenario action given alone, as a page sends it to a run playing (`{"recognize":
/// {"word": "hello"}}`, `{"touch": "FrontTactilTouched"}`, `{"raise_event": {"key", "value"}}`,
/// `{"insert_data": ...}`): performed now, its fields checked as a scenario file's.
pub fn action_now(step: &serde_json::Value) -> Result<Action, ScenarioError> {
    let mut raw = RawEntry::deserialize(step).map_err(|e| ScenarioError::Action(e.to_string()))?;
    if raw.at.is_some() || raw.on_call.is_some() || raw.reply.is_some() {
        return Err(ScenarioError::Action(
            "an action performed now has no `at`, `on_call` or `reply`".into(),
        ));
    }
    action_of(&mut raw).map_err(ScenarioError::Action)
}

/// The action a page's `world` message asks (docs/monitor.md): its scenario `step`
/// ([`action_now`]), or a world `event` raised with the value its documentation page gives
/// ([`crate::WORLD_EVENTS`]).
pub fn world_action(message: &serde_json::Value) -> Result<Action, ScenarioError> {
    if let Some(key) = message["event"].as_str() {
        let value = crate::world_event(key)
            .and_then(|e| (e.values)().into_iter().next())
            .ok_or_else(|| {
                ScenarioError::Action(format!("{key}: not an event the world raises"))
            })?;
        return Ok(Action::RaiseEvent {
            key: key.to_string(),
            value,
        });
    }
    action_now(&message["step"])
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        Entry::try_from(RawEntry::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Why a scenario file cannot be used: each names the file, and where the text is at fault,
/// its line and column, so that the command prints `file:line:column: message`.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file cannot be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file, as given.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not a valid scenario (syntax, or an entry that does not hold), at a place.
    #[error("{file}:{line}:{column}: {message}")]
    At {
        /// The file, as given.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// Its column (from 1).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The text is not a valid scenario, where the parser gives no place.
    #[error("{file}: {message}")]
    Invalid {
        /// The file, as given.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// An action given alone ([`action_now`]) does not hold.
    #[error("{0}")]
    Action(String),
}

/// A parser's message without its own ` at line L column C` tail (the error says where).
fn without_place(message: &str) -> String {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
        .to_string()
}

impl Scenario {
    /// Reads a scenario file (YAML, or JSON when the name ends in `.json`).
    pub fn from_path(path: &std::path::Path) -> Result<Scenario, ScenarioError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            file: name.clone(),
            source,
        })?;
        Scenario::from_str(&text, &name)
    }

    /// Parses a scenario; `name` is used in errors (`name:line:column: message`) and picks
    /// the syntax (`.json`: JSON, anything else: YAML).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, name: &str) -> Result<Scenario, ScenarioError> {
        let file: File = if name.to_ascii_lowercase().ends_with(".json") {
            serde_json::from_str(text).map_err(|e| ScenarioError::At {
                file: name.to_string(),
                line: e.line(),
                column: e.column(),
                message: without_place(&e.to_string()),
            })?
        } else {
            serde_norway::from_str(text).map_err(|e| {
                let message = without_place(&e.to_string());
                let file = name.to_string();
                match e.location() {
                    Some(l) => ScenarioError::At {
                        file,
                        line: l.line(),
                        column: l.column(),
                        message,
                    },
                    None => ScenarioError::Invalid { file, message },
                }
            })?
        };
        Ok(Scenario {
            name: name.to_string(),
            entries: file.events,
            chance: file.chance.0,
            posture: file.posture,
            face: file.face,
        })
    }
}

impl Trigger {
    /// Whether a call of `name` (`Module.method`) with `args` is one this trigger waits for
    /// (its moment and its one-shot state aside).
    pub(crate) fn matches_call(&self, name: &str, args: &[Value]) -> bool {
        let Trigger::OnCall {
            call,
            contains,
            args: wanted,
            ..
        } = self
        else {
            return false;
        };
        call == name
            && contains
                .as_ref()
                .is_none_or(|c| first_text(args).contains(c.as_str()))
            && wanted.as_ref().is_none_or(|w| {
                w.len() == args.len() && w.iter().zip(args).all(|(a, b)| same(a, b))
            })
    }
}

/// The first argument of a call as text (a string as is), for `contains`.
fn first_text(args: &[Value]) -> String {
    match args.first() {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// Whether a value written in a scenario (`a`) is the value a call passed (`b`): numbers by
/// value (`1` and `1.0`), lists and tuples alike (YAML has no tuples), maps in any order.
fn same(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    };
    let items = |v: &Value| match v {
        Value::List(items) | Value::Tuple(items) => Some(items.clone()),
        _ => None,
    };
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (items(a), items(b)) {
        return x.len() == y.len() && x.iter().zip(&y).all(|(a, b)| same(a, b));
    }
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| same(k, k2) && same(v, v2)))
        }
        _ => a == b,
    }
}

impl Scenario {
    /// The answer of this scenario's first stub (`on_call` + `reply`, in file order) that
    /// matches a call of `service.method(args)`; None when no stub answers it.
    pub fn reply_to(&self, service: &str, method: &str, args: &[Value]) -> Option<&Value> {
        let name = format!("{service}.{method}");
        self.entries.iter().find_map(|e| match &e.action {
            Action::Reply { value } if e.trigger.matches_call(&name, args) => Some(value),
            _ => None,
        })
    }

    /// Whether a stub of this scenario answers some method of `service` (then the robot
    /// has that module, as far as the behavior can tell).
    pub fn stubs_service(&self, service: &str) -> bool {
        self.entries.iter().any(|e| match (&e.trigger, &e.action) {
            (Trigger::OnCall { call, .. }, Action::Reply { .. }) => {
                call.split_once('.').is_some_and(|(m, _)| m == service)
            }
            _ => false,
        })
    }
}

/// A scenario loaded into a robot: which one-shot call triggers have fired.
pub(crate) struct Run {
    /// The scenario.
    pub scenario: Scenario,
    /// Per entry, whether it has fired.
    pub fired: Mutex<Vec<bool>>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{Model, SimRobot};
    use choreo_engine::{Robot, RobotError};

    const STUBS: &str = "\
events:
  - on_call: ALFoo.bar
    args: [1, \"x\"]
    reply: first
  - on_call: ALFoo.bar
    reply: [1, 2]
  - on_call: ALFoo.none
    reply: null
  - on_call: ALMemory.getData
    contains: Battery
    reply: 0.5
  - on_call: ALFoo.bar
    raise_event: {key: Foo/Called, value: 1}
";

    fn robot() -> SimRobot {
        SimRobot::new(Model::Nao).with_scenario(Scenario::from_str(STUBS, "s.yaml").unwrap())
    }

    fn error(text: &str) -> String {
        Scenario::from_str(text, "w.yaml").unwrap_err().to_string()
    }

    #[test]
    fn a_stub_is_read_with_its_reply_and_arguments() {
        let s = Scenario::from_str(STUBS, "s.yaml").unwrap();
        assert_eq!(
            s.entries[0].trigger,
            Trigger::OnCall {
                call: "ALFoo.bar".into(),
                contains: None,
                args: Some(vec![Value::Int(1), Value::String("x".into())]),
                when: When::End,
                delay: 0.0,
                repeat: false,
            }
        );
        assert_eq!(
            s.entries[1].action,
            Action::Reply {
                value: Value::List(vec![Value::Int(1), Value::Int(2)])
            }
        );
        // `reply: null` is a stub answering None, not a missing action.
        assert_eq!(s.entries[2].action, Action::Reply { value: Value::None });
    }

    #[test]
    fn the_first_matching_stub_answers_and_arguments_narrow_it() {
        let s = Scenario::from_str(STUBS, "s.yaml").unwrap();
        let reply = |args: &[Value]| s.reply_to("ALFoo", "bar", args).cloned();
        assert_eq!(
            reply(&[Value::Float(1.0), Value::String("x".into())]),
            Some(Value::String("first".into())),
            "1.0 is the 1 of the file"
        );
        assert_eq!(
            reply(&[Value::Int(2)]),
            Some(Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
        assert_eq!(s.reply_to("ALFoo", "baz", &[]), None);
        assert_eq!(
            s.reply_to(
                "ALMemory",
                "getData",
                &[Value::String("Device/Battery".into())]
            ),
            Some(&Value::Float(0.5))
        );
        assert_eq!(
            s.reply_to("ALMemory", "getData", &[Value::String("Other".into())]),
            None
        );
        assert!(s.stubs_service("ALFoo") && s.stubs_service("ALMemory"));
        assert!(!s.stubs_service("ALBar"));
    }

    #[test]
    fn values_compare_as_a_person_writes_them() {
        let list = |v: Vec<Value>| Value::List(v);
        assert!(same(
            &list(vec![Value::Int(1)]),
            &Value::Tuple(vec![Value::Float(1.0)])
        ));
        assert!(!same(&Value::Int(1), &Value::String("1".into())));
        let map = |k: &str, v: i64| (Value::String(k.into()), Value::Int(v));
        assert!(same(
            &Value::Map(vec![map("a", 1), map("b", 2)]),
            &Value::Map(vec![map("b", 2), map("a", 1)])
        ));
        assert!(!same(
            &Value::Map(vec![map("a", 1)]),
            &Value::Map(vec![map("a", 2)])
        ));
    }

    #[test]
    fn the_simulated_robot_answers_with_the_stub() {
        let robot = robot();
        assert!(robot.has_service("ALFoo"), "a stubbed module exists");
        assert_eq!(
            robot.call("ALFoo", "bar", vec![]).unwrap(),
            Value::List(vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(robot.call("ALFoo", "none", vec![]).unwrap(), Value::None);
        // A stub stands in for a served method too, for the calls it matches only.
        assert_eq!(
            robot
                .call(
                    "ALMemory",
                    "getData",
                    vec![Value::String("Device/Battery".into())]
                )
                .unwrap(),
            Value::Float(0.5)
        );
        // The other entries still react to the stubbed call.
        assert_eq!(
            robot.snapshot().memory.get("Foo/Called"),
            Some(&Value::Int(1))
        );
        // A method no stub answers is still unknown.
        assert!(matches!(
            robot.call("ALFoo", "baz", vec![]),
            Err(RobotError::UnknownMethod { .. })
        ));
        assert!(matches!(
            robot.call("ALBar", "baz", vec![]),
            Err(RobotError::UnknownService(_))
        ));
        let stats = robot.stats();
        assert_eq!(stats.per_method.get("ALFoo.bar"), Some(&1));
        assert!(!stats.unsupported.contains_key("ALFoo.bar"));
    }

    #[test]
    fn a_stub_entry_is_checked_with_file_and_line() {
        assert_eq!(
            error("events:\n  - at: 1\n    reply: 2\n"),
            "w.yaml:2:3: events: `reply` answers a call: it needs `on_call: \"Module.method\"`, not `at`"
        );
        let e = error("events:\n  - on_call: A.b\n    repeat: true\n    reply: 2\n");
        assert!(
            e.starts_with("w.yaml:2:3: ")
                && e.contains("`repeat` does not apply to a `reply` entry"),
            "{e}"
        );
        let e = error("events:\n  - on_call: A.b\n    reply: 2\n    touch: FrontTactilTouched\n");
        assert!(e.contains("several actions"), "{e}");
        let e = error("events:\n  - at: 1\n    args: [1]\n    touch: FrontTactilTouched\n");
        assert!(
            e.contains("`args` only applies to `on_call` entries"),
            "{e}"
        );
    }
}
