//! The robot's state behind the core's one lock: the body and the LEDs, which many modules
//! command and read, and each module's own state as a part of its own type, created at
//! first use (the core does not know the modules' types: a module names its own).

use std::any::{Any, TypeId};
use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::body::Body;
use crate::robot::leds::Leds;

/// The robot's state.
pub(crate) struct State {
    /// Joints, stiffness, the base.
    pub body: Body,
    /// Every LED.
    pub leds: Leds,
    /// The modules' own state, one part per type.
    parts: BTreeMap<TypeId, Box<dyn Any + Send>>,
    /// What the modules served from a table keep (`table.rs`).
    pub kept: Kept,
}

/// The state the table-served modules keep, per module.
#[derive(Default)]
pub(crate) struct Kept {
    /// Their settings, by module and name.
    pub settings: BTreeMap<&'static str, BTreeMap<String, Value>>,
    /// Their own state, by module and type.
    pub parts: BTreeMap<(&'static str, TypeId), Box<dyn Any + Send>>,
}

impl State {
    /// A robot's state with this body and these LEDs.
    pub fn new(body: Body, leds: Leds) -> State {
        State {
            body,
            leds,
            parts: BTreeMap::new(),
            kept: Kept::default(),
        }
    }

    /// The part of type `T` (a module's own state), created by `T::default()` at first use.
    pub fn part<T: Default + Send + 'static>(&mut self) -> &mut T {
        let slot = self
            .parts
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()));
        if !slot.is::<T>() {
            *slot = Box::new(T::default());
        }
        match slot.downcast_mut::<T>() {
            Some(part) => part,
            None => unreachable!("a part is stored under its own type"),
        }
    }
}
