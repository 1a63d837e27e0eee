//! ALMemory's store: keys and values, the events declared, the engine's subscriptions
//! (its memory inputs, through [`choreo_engine::Robot::subscribe`]) and the scripts'
//! `subscribeToEvent`s. Raising a key is `events.rs`; the module ALMemory is
//! `services/core/memory.rs`.
//!
//! Choice recorded here (NAOqi's documentation leaves it open): `insertData` notifies
//! subscribers like `raiseEvent` does.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};

use choreo_engine::{MemorySink, SubscriptionId, Value};

use choreo_robot::Model;
use choreo_robot::memory::{Datum, boot_keys};

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

/// The ALMemory keys the modules have from boot, given by the registry.
#[derive(Default)]
pub(crate) struct Declared {
    /// Events without a value until raised.
    pub events: Vec<&'static str>,
    /// Lists, empty at boot.
    pub lists: Vec<&'static str>,
    /// Strings, with their value at boot.
    pub strings: Vec<(&'static str, &'static str)>,
    /// Events the modules raise, declared after the boot values.
    pub later: Vec<&'static str>,
}

/// The store and its subscribers.
#[derive(Default)]
pub(crate) struct Memory {
    inner: Mutex<Store>,
}

#[derive(Default)]
pub(crate) struct Store {
    pub data: BTreeMap<String, Value>,
    pub events: BTreeSet<String>,
    pub sinks: Vec<(String, SubscriptionId, MemorySink)>,
    /// `subscribeToEvent` (and micro) subscriptions by scripts: (event, module).
    pub scripts: BTreeSet<(String, String)>,
}

impl Memory {
    /// A store with the sensor keys of `model` at rest (0.0), the empty perception keys and
    /// the keys the modules `declared`.
    pub fn new(model: Model, declared: &Declared) -> Memory {
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
                .chain(declared.events.iter().copied())
            {
                s.events.insert(key.to_string());
            }
            for key in &declared.lists {
                s.data.insert(key.to_string(), Value::List(Vec::new()));
                s.events.insert(key.to_string());
            }
            for (key, value) in &declared.strings {
                s.data.insert(key.to_string(), Value::from(*value));
                s.events.insert(key.to_string());
            }
            for (key, value) in boot_keys(model) {
                s.data.insert(key.clone(), datum(value));
                s.events.insert(key);
            }
            for key in &declared.later {
                s.events.insert((*key).to_string());
            }
        }
        memory
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Store> {
        choreo_base::lock(&self.inner)
    }

    /// Stores `value` under `key` and returns the sinks to notify (called by the caller,
    /// without the lock).
    pub(crate) fn store(&self, key: &str, value: &Value, event: bool) -> Vec<MemorySink> {
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

    /// The keys of the engine's subscriptions, as many times as subscribed.
    pub(crate) fn subscribed(&self) -> Vec<String> {
        self.lock()
            .sinks
            .iter()
            .map(|(k, _, _)| k.clone())
            .collect()
    }

    /// Whether a script subscribed to one of `events` with `subscribeToEvent`, which
    /// "automatically launches the module that declared itself as the generator of the
    /// event" (ALMemory's API page).
    pub(crate) fn scripts_subscribe_to(&self, events: &[&str]) -> bool {
        self.lock()
            .scripts
            .iter()
            .any(|(event, _)| events.contains(&event.as_str()))
    }

    /// Removes an engine subscription.
    pub fn unsubscribe(&self, id: SubscriptionId) {
        self.lock().sinks.retain(|(_, i, _)| *i != id);
    }
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
