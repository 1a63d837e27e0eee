//! How far a generated behavior and its run may go.

use std::time::Duration;

/// How many times one rule of a box acts (later matching hooks do nothing): bounds loops.
pub(crate) const MAX_ACTS: usize = 3;
/// Virtual sleeps, in ms: multiples of common frame periods, so that wake-ups and frames meet.
pub(crate) const SLEEPS: [u64; 7] = [10, 50, 100, 200, 250, 500, 1000];
/// How often (real time) a run is looked at: for its outcome, or for a loop of links.
pub(crate) const POLL: Duration = Duration::from_millis(2);
/// A run whose virtual time stands still for this long in real time while more than
/// `LOUD_LINK` events come is stopped as a loop.
pub(crate) const STANDING: Duration = Duration::from_secs(1);
/// A run with more operations in flight than this is stopped as a loop: well below the
/// engine's cap of 100,000 (see `engine_bug_a_stop_at_the_operation_cap_is_lost`).
pub(crate) const PEAK_STOP: usize = 50_000;
/// The engine's cap on operations in flight (see [`choreo_engine::Engine::peak_operations`]).
pub(crate) const MAX_OPS: usize = 100_000;
/// How many steps the engine runs before it looks at its commands (a stop) again.
pub(crate) const STEP_BUDGET: usize = 4096;
/// Virtual time limit of a run.
pub(crate) const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Real time allowed for a run, for its stop, and for hooks to return after the stop: a
/// hang's bound, far above what any run needs (a loop of links with both cores kept busy
/// besides took over 10 s to reach its 2 s of virtual time).
pub(crate) const REAL_WAIT: Duration = Duration::from_secs(60);
/// [`REAL_WAIT`] for a run that is a loop of links to its time limit (a hang's bound).
pub(crate) const LOOP_WAIT: Duration = Duration::from_secs(300);
/// Probability that a diagram gets P9 links (owner input straight to owner output).
pub(crate) const P9_LINKS: f64 = 0.3;
/// Probability that a diagram gets links closing cycles between its boxes.
pub(crate) const CYCLES: f64 = 0.4;
/// Probability that a box's code echoes one of its inputs to one of its outputs, always.
pub(crate) const ECHOES: f64 = 0.3;
/// Probability that a box's code runs inline on the control thread.
pub(crate) const INLINE: f64 = 0.3;
