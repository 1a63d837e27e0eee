//! Raising and inserting ALMemory keys: the value is stored, the observer told, every
//! subscriber called, and the modules that watch the key react (the registry's
//! reactions, through [`crate::robot::core::Services`]).

use choreo_engine::Value;

use crate::robot::core::Sim;
use crate::robot::observe::RobotEvent;

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
        self.services.before_delivery(self, key, &value);
        let previous = self.memory.get(key);
        self.notify(key, value.clone(), event);
        self.services
            .after_delivery(self, key, previous.as_ref(), &value);
    }

    fn notify(&self, key: &str, value: Value, event: bool) {
        let sinks = self.memory.store(key, &value, event);
        self.observe(RobotEvent::MemoryEvent {
            key: key.to_string(),
            value: value.clone(),
        });
        for sink in sinks {
            sink(key, value.clone());
        }
    }
}
