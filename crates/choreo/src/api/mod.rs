//! The Rust API: open any input, set up a run (robot, clock, limits, parameters), load it,
//! then start, stimulate, observe, drive and wait. The crate's root re-exports it; the
//! `choreo` command runs behaviors through it.
//!
//! One file per concept: `project` ([`Project`], any input opened), `setup` ([`Setup`], how a
//! run is set up, and where it runs: [`Target`], [`Clock`]), `run` ([`Run`], [`Timeline`],
//! and how a run ends: [`Ending`], [`StoppedBy`]), `events` ([`Events`]), `error` ([`Error`])
//! and `watched` ([`Watched`], the robot a run talks to, which knows what an idle run waits
//! for).

mod error;
mod events;
mod project;
mod run;
mod setup;
mod watched;

pub use error::{Error, Result};
pub use events::Events;
pub use project::Project;
pub(crate) use run::dialog_script;
pub use run::{Ending, Run, StoppedBy, Timeline};
pub use setup::{Allowed, Clock, RobotObserver, Setup, Target};
pub use watched::Watched;
