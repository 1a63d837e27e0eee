//! ALMemory: the key-value store, events, and subscriptions (the engine's memory inputs
//! through [`choreo_engine::Robot::subscribe`], scripts' `subscribeToEvent` recorded).
//!
//! Choice recorded here (naoqi-services.md §3.3 leaves it open): `insertData` notifies
//! subscribers like `raiseEvent` does.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use choreo_engine::{MemorySink, SubscriptionId, Value};

use crate::args::Args;
use crate::sim::{Reply, Sim};
use choreo_robot::Model;
use choreo_robot::memory::{
    Datum, DeviceKey, MOTOR_TEMPERATURE, NAO_MASS, boot_keys, device_key, device_keys,
};

/// Touch and bumper events a scenario may `touch`, with the models that have them.
pub const TOUCH_SENSORS: &[(&str, &[Model])] = &[
    ("FrontTactilTouched", &[Model::Nao, Model::Pepper]),
    ("MiddleTactilTouched", &[Model::Nao, Model::Pepper]),
    ("RearTactilTouched", &[Model::Nao, Model::Pepper]),
    ("HandRightBackTouched", &[Model::Nao, Model::Pepper]),
    ("HandRightLeftTouched", &[Model::Nao]),
    ("HandRightRightTouched", &[Model::Nao]),
    ("HandLeftBackTouched", &[Model::Nao, Model::Pepper]),
    ("HandLeftLeftTouched", &[Model::Nao]),
    ("HandLeftRightTouched", &[Model::Nao]),
    ("LeftBumperPressed", &[Model::Nao, Model::Pepper]),
    ("RightBumperPressed", &[Model::Nao, Model::Pepper]),
    ("BackBumperPressed", &[Model::Pepper]),
    ("ChestButtonPressed", &[Model::Nao, Model::Pepper]),
];

/// The store and its subscribers.
#[derive(Default)]
pub(crate) struct Memory {
    inner: Mutex<Store>,
}

#[derive(Default)]
struct Store {
    data: BTreeMap<String, Value>,
    events: BTreeSet<String>,
    sinks: Vec<(String, SubscriptionId, MemorySink)>,
    /// `subscribeToEvent` (and micro) subscriptions by scripts: (event, module).
    scripts: BTreeSet<(String, String)>,
}

impl Memory {
    /// A store with the sensor keys of `model` at rest (0.0) and the empty perception keys.
    pub fn new(model: Model) -> Memory {
        let memory = Memory::default();
        {
            let mut s = memory.lock();
            for (key, models) in TOUCH_SENSORS {
                if models.contains(&model) {
                    s.data.insert((*key).to_string(), Value::Float(0.0));
                    s.events.insert((*key).to_string());
                }
            }
            for key in [
                "WordRecognized",
                "FaceDetected",
                "LandmarkDetected",
                "PictureDetected",
            ] {
                s.data.insert(key.to_string(), Value::List(Vec::new()));
                s.events.insert(key.to_string());
            }
            for key in [
                "SpeechDetected",
                "ALTextToSpeech/TextStarted",
                "ALTextToSpeech/TextDone",
                "ALTextToSpeech/TextInterrupted",
            ] {
                s.data.insert(key.to_string(), Value::Int(0));
                s.events.insert(key.to_string());
            }
            for key in ["robotHasFallen", "Dialog/LastInput"]
                .into_iter()
                .chain(crate::tracker::EVENTS)
                .chain(crate::awareness::EVENTS)
                .chain(crate::people::EVENTS)
            {
                s.events.insert(key.to_string());
            }
            for key in crate::people::LISTS {
                s.data.insert(key.to_string(), Value::List(Vec::new()));
                s.events.insert(key.to_string());
            }
            for (key, value) in [
                (crate::life::STATE_KEY, crate::life::BOOT_STATE),
                (crate::life::FOCUS_KEY, ""),
            ] {
                s.data.insert(key.to_string(), Value::from(value));
                s.events.insert(key.to_string());
            }
            for (key, value) in boot_keys(model) {
                s.data.insert(key.clone(), datum(value));
                s.events.insert(key);
            }
            for key in crate::reactions::DECLARED
                .iter()
                .chain(crate::infrared::EVENTS)
            {
                s.events.insert((*key).to_string());
            }
        }
        memory
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `value` under `key` and returns the sinks to notify (called by the caller,
    /// without the lock).
    fn store(&self, key: &str, value: &Value, event: bool) -> Vec<MemorySink> {
        let mut s = self.lock();
        s.data.insert(key.to_string(), value.clone());
        if event {
            s.events.insert(key.to_string());
        }
        s.sinks
            .iter()
            .filter(|(k, _, _)| k == key)
            .map(|(_, _, sink)| sink.clone())
            .collect()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.lock().data.get(key).cloned()
    }

    /// Removes `key` and its value.
    pub fn remove(&self, key: &str) {
        self.lock().data.remove(key);
    }

    /// Every key and value.
    pub fn all(&self) -> BTreeMap<String, Value> {
        self.lock().data.clone()
    }

    /// Adds an engine subscription.
    pub fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) {
        self.lock().sinks.push((key.to_string(), id, sink));
    }

    /// Removes an engine subscription.
    pub fn unsubscribe(&self, id: SubscriptionId) {
        self.lock().sinks.retain(|(_, i, _)| *i != id);
    }
}

impl Sim {
    /// Raises `key` with `value`: stores it, tells the observer, calls every sink (without
    /// any lock held: a sink may call back into the robot); the modules that watch the key
    /// react (`reactions.rs`).
    pub(crate) fn raise(&self, key: &str, value: Value) {
        self.react(key, value, true);
    }

    /// Inserts data: stores it and notifies like [`Sim::raise`] (see the module docs).
    pub(crate) fn insert(&self, key: &str, value: Value) {
        self.react(key, value, false);
    }

    /// Raises `key` as a module does in reaction to another key: no module reacts to it in
    /// turn.
    pub(crate) fn raise_quietly(&self, key: &str, value: Value) {
        self.notify(key, value, true);
    }

    /// Inserts data as a module does in reaction to another key (see
    /// [`Sim::raise_quietly`]).
    pub(crate) fn insert_quietly(&self, key: &str, value: Value) {
        self.notify(key, value, false);
    }

    fn react(&self, key: &str, value: Value, event: bool) {
        crate::reactions::before(self, key, &value);
        let previous = self.memory.get(key);
        self.notify(key, value.clone(), event);
        crate::reactions::after(self, key, previous.as_ref(), &value);
    }

    fn notify(&self, key: &str, value: Value, event: bool) {
        let sinks = self.memory.store(key, &value, event);
        self.observe(crate::observe::RobotEvent::MemoryEvent {
            key: key.to_string(),
            value: value.clone(),
        });
        for sink in sinks {
            sink(key, value.clone());
        }
    }
}

/// The value of `key`: what was stored under it, else the robot's device reading
/// (`Device/SubDeviceList/...`: joint positions and stiffness from the body now, the rest at
/// rest, as choreo-robot's table says).
pub(crate) fn read(sim: &Sim, key: &str) -> Option<Value> {
    if let Some(v) = sim.memory.get(key) {
        return Some(v);
    }
    let model = sim.model;
    let now = sim.now();
    let Some(device) = device_key(model, key) else {
        return crate::dcm::led_reading(sim, key).map(Value::Float);
    };
    let value = match device {
        DeviceKey::Name => return Some(Value::String(crate::system::robot_name(sim))),
        DeviceKey::Position(i) => sim.state().body.angle(model, i, now),
        DeviceKey::Stiffness(i) => sim.state().body.stiffness(model, i, now),
        DeviceKey::Temperature(_) => MOTOR_TEMPERATURE,
        DeviceKey::Current(_) => 0.0,
        DeviceKey::AtRest(v) => v,
        DeviceKey::FootLoad(share) => {
            let state = sim.state();
            if crate::robot_pose::on_feet(sim, &state.body, now) {
                share * NAO_MASS
            } else {
                0.0
            }
        }
    };
    Some(Value::Float(value))
}

/// Serves ALMemory.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let memory = &sim.memory;
    Ok(Reply::Now(match method {
        "getData" => {
            let key = a.str(0)?;
            read(sim, key).ok_or_else(|| format!("ALMemory.getData: key not found: {key:?}"))?
        }
        "insertData" => {
            sim.insert(a.str(0)?, a.value(1));
            Value::None
        }
        "insertListData" => {
            for (i, pair) in a.list(0)?.iter().enumerate() {
                match pair {
                    Value::List(kv) | Value::Tuple(kv) if kv.len() == 2 => match &kv[0] {
                        Value::String(key) => sim.insert(key, kv[1].clone()),
                        _ => return Err(a.bad(0, &format!("[[key, value], ...] (item {i})"))),
                    },
                    _ => return Err(a.bad(0, &format!("[[key, value], ...] (item {i})"))),
                }
            }
            Value::None
        }
        "raiseEvent" | "raiseMicroEvent" => {
            sim.raise(a.str(0)?, a.value(1));
            Value::None
        }
        "subscribeToEvent" | "subscribeToMicroEvent" => {
            let (event, module) = (a.str(0)?, a.str(1)?);
            a.str(2)?;
            let mut s = memory.lock();
            s.events.insert(event.to_string());
            s.scripts.insert((event.to_string(), module.to_string()));
            Value::None
        }
        "unsubscribeToEvent" | "unsubscribeToMicroEvent" => {
            let (event, module) = (a.str(0)?, a.str(1)?);
            if !memory
                .lock()
                .scripts
                .remove(&(event.to_string(), module.to_string()))
            {
                return Err(format!(
                    "ALMemory.{method}: module {module:?} is not subscribed to {event:?}"
                ));
            }
            Value::None
        }
        "declareEvent" => {
            memory.lock().events.insert(a.str(0)?.to_string());
            Value::None
        }
        "removeData" => {
            memory.remove(a.str(0)?);
            Value::None
        }
        "getDataList" => {
            let part = a.str(0)?;
            let mut keys: BTreeSet<String> = memory
                .lock()
                .data
                .keys()
                .filter(|k| k.contains(part))
                .cloned()
                .collect();
            keys.extend(
                device_keys(sim.model)
                    .into_iter()
                    .filter(|k| k.contains(part)),
            );
            strings(keys.iter())
        }
        "getDataListName" => strings(memory.lock().data.keys()),
        "getEventList" => strings(memory.lock().events.iter()),
        "getListData" => {
            let keys = a.names(0)?;
            Value::List(
                keys.iter()
                    .map(|k| read(sim, k).unwrap_or_default())
                    .collect(),
            )
        }
        "getSubscribers" => {
            let event = a.str(0)?;
            strings(
                memory
                    .lock()
                    .scripts
                    .iter()
                    .filter(|(e, _)| e == event)
                    .map(|(_, m)| m),
            )
        }
        _ => return Ok(Reply::NotServed),
    }))
}

/// A boot value as a [`Value`].
fn datum(d: Datum) -> Value {
    match d {
        Datum::Bool(b) => Value::Bool(b),
        Datum::Int(i) => Value::Int(i),
        Datum::Str(t) => Value::from(t),
        Datum::List(items) => Value::List(items.iter().map(|d| datum(*d)).collect()),
    }
}

fn strings<'a>(items: impl Iterator<Item = &'a String>) -> Value {
    Value::List(items.map(|s| Value::String(s.clone())).collect())
}
