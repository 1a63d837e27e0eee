//! Inputs: what arrives from outside the stack (an ALMemory event, a scenario's touch, a
//! message from another thread) and is handed to the behaviors that subscribed to it, once
//! per tick (behavior-stack.md §7, steps 4 and 5).

use std::sync::{Arc, Mutex};

use choreo_engine::Value;

/// One input: a name (an ALMemory key, an event name) and its value.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Input {
    /// What it is, as behaviors subscribe to it.
    pub name: String,
    /// What it carries.
    pub value: Value,
}

/// Where inputs are posted, from any thread: the runner takes what arrived at the start of
/// each tick. Cloning gives another handle to the same inbox.
#[derive(Debug, Clone, Default)]
pub struct Inbox {
    queue: Arc<Mutex<Vec<Input>>>,
}

impl Inbox {
    /// Posts `input` for the next tick.
    pub fn post(&self, name: impl Into<String>, value: Value) {
        choreo_base::lock(&self.queue).push(Input {
            name: name.into(),
            value,
        });
    }

    /// Everything posted since the last call, in order.
    pub(crate) fn take(&self) -> Vec<Input> {
        std::mem::take(&mut *choreo_base::lock(&self.queue))
    }
}
