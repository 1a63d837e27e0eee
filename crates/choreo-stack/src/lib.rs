//! A behavior stack after Anki Vector's (`IBehavior` / `IBehaviorRunner`), with the contract
//! of `behavior-stack.md` checked in every build: behaviors enter activatable scope when an
//! active behavior may delegate to them, are asked whether they want to be activated, are
//! pushed and popped, get exactly one update per tick, and hand control on to behaviors and
//! actions. Choregraphe behaviors are leaves of it (`PlayChoregraphe`).
//!
//! - [`core`](mod@crate::core): behaviors and their hooks, the runner and its state, the
//!   builder, actions and conditions as traits, the trace and its checker. It uses neither of
//!   the others.
//! - [`builtins`]: the dispatchers and `Wait`, the built-in conditions, the robot's leaves.
//! - [`definitions`]: behaviors defined in JSON, and the classes a definition may name.
//!
//! It knows the engine only for `Value` and the `Robot` trait. Python behaviors are
//! choreo-python's `stack` (choreo-python depends on this crate, never the reverse).
//!
//! ```
//! use choreo_stack::{Behavior, Builder, Context, Options, Tick};
//!
//! /// Delegates to `child` once, then finishes when it is done.
//! struct Parent { started: bool }
//! impl Behavior for Parent {
//!     fn delegates(&self) -> Vec<String> { vec!["child".into()] }
//!     fn wants_to_be_activated(&mut self, _: &mut Context<'_>) -> bool { true }
//!     fn update(&mut self, cx: &mut Context<'_>) {
//!         if !self.started {
//!             let child = cx.find("child").unwrap();
//!             if cx.wants(child) == Ok(true) && cx.delegate(child).is_ok() {
//!                 self.started = true;
//!             }
//!         }
//!     }
//! }
//! /// Wants to run, and ends at its first update.
//! struct Child;
//! impl Behavior for Child {
//!     fn always_delegates(&self) -> bool { false }
//!     fn wants_to_be_activated(&mut self, _: &mut Context<'_>) -> bool { true }
//!     fn update(&mut self, cx: &mut Context<'_>) {
//!         if cx.is_activated() { cx.cancel_self().unwrap(); }
//!     }
//! }
//!
//! let mut b = Builder::new();
//! b.add("parent", Box::new(Parent { started: false }));
//! b.add("child", Box::new(Child));
//! let mut runner = b.build("parent", Options::default()).unwrap();
//! let mut ticks = 0;
//! while runner.tick().unwrap() == Tick::Running { ticks += 1; }
//! // Tick 1: the parent delegates, the child is pushed, updated in the same pass (T2) and
//! // ends. Tick 2: the parent has nothing delegated and is cancelled (C6). Tick 3: finished.
//! assert_eq!(ticks, 2);
//! ```

pub mod builtins;
pub mod core;
pub mod definitions;

pub use core::action::{Action, ActionError};
pub use core::behavior::Context;
pub use core::behavior::{Behavior, BehaviorId, Completed};
pub use core::builder::{Builder, Options};
pub use core::condition::Condition;
pub use core::error::{SetupError, StackError};
pub use core::input::{Inbox, Input};
pub use core::runner::{Runner, State, Tick};
pub use core::trace::{Event, Record, Trace};
pub use core::world::World;
pub use definitions::classes::{Classes, LoadError};
pub use definitions::definition::{Definition, DefinitionError};
