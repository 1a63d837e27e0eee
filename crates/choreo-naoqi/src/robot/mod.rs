//! The simulated robot's core: what every call goes through and what every module shares.
//! It names no module; the modules reach it through its types ([`core::Sim`], [`core::Reply`],
//! [`core::Plan`], [`args::Args`], [`error::CallError`]), and the registry gives it the
//! modules as [`core::Services`].
//!
//! From the bottom up: `args` (reading arguments), `error` (how a call fails), `catalogue`
//! (NAOqi's method sets), `observe` (what an observer sees), `trajectory`, `body` and `leds`
//! (the robot's physical state over time), `tasks` (methods that take time), `memory`
//! (ALMemory's store), `scenario` (what a scenario says), `state` (all of it behind one
//! lock), `core` (the robot); then what acts on the robot: `calls` (the call path and the
//! generic methods), `driving` (tasks), `events` (raising keys), `playing` (scenarios),
//! `table` and `extractor` (the modules served from a table).

pub(crate) mod args;
pub(crate) mod body;
pub(crate) mod calls;
pub(crate) mod catalogue;
pub(crate) mod core;
pub(crate) mod driving;
pub(crate) mod error;
pub(crate) mod events;
pub(crate) mod extractor;
pub(crate) mod leds;
pub(crate) mod memory;
pub(crate) mod observe;
pub(crate) mod playing;
pub mod scenario;
pub(crate) mod state;
pub(crate) mod table;
pub(crate) mod tasks;
pub(crate) mod trajectory;
