//! How a run ended.

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The root box fired a Stopped output (R5).
    Finished,
    /// [`Engine::stop`] was called and the behavior is unloaded.
    Stopped,
    /// Virtual time only: nothing is running and nothing is scheduled, so nothing will ever
    /// happen again (the behavior waits for the world).
    Idle,
    /// Virtual time only: [`Options::time_limit`] was reached with the behavior still going
    /// (a timeline that never ends, say). Time stops moving; stop the behavior to unload it.
    TimeLimit,
    /// The wait timed out.
    TimedOut,
}
