//! choreo-engine: runs Choregraphe behaviors with the lifecycle of the official reference.
//!
//! See `docs/runtime-rules.md` (at the repository's top) for the numbered rules this crate
//! follows; code comments cite them (R8, T4, G1, ...), and its sections (§6: resources).
//!
//! - [`graph`]: a behavior instantiated: boxes, ports, parameters and links as indices.
//! - [`engine`]: the control thread, the lifecycle, timelines, resources, workers.
//! - [`host`]: the boundary to box code (script hosts, native boxes); [`hook`]: the hooks;
//!   [`context`]: what box code reaches.
//! - [`resource`]: box resources and the resource tree (§6).
//! - [`robot`]: the boundary to a robot (service calls, ALMemory subscriptions).
//! - [`error`]: the errors at those boundaries ([`ScriptError`], [`RobotError`],
//!   [`EngineError`]).
//! - [`clock`]: real and virtual time; [`chance`]: box code's random draws, counted;
//!   [`activity`]: what may run beside the control thread;
//!   `turn`: in virtual time, which of them acts, one at a time, in a deterministic order.
//! - [`trace`]: the event trace. [`Value`]: dynamic values (choreo-base's).

pub mod activity;
pub mod chance;
pub mod clock;
pub mod context;
pub mod engine;
pub mod error;
pub mod graph;
pub mod hook;
pub mod host;
pub mod resource;
pub mod robot;
pub mod trace;
mod turn;

pub use activity::Activity;
pub use choreo_base::Value;
pub use context::BoxContext;
pub use engine::command::TimelineCommand;
pub use engine::{Engine, FrameObserver, Options, Outcome};
pub use error::{EngineError, RobotError, ScriptError};
pub use hook::{Hook, PortName};
pub use host::{BoxCode, NativeHost, ScriptHost};
pub use robot::{MemorySink, Robot, SubscriptionId};
pub use trace::Trace;
