//! How a run ended.

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The root box fired a Stopped output (R5).
    Finished,
    /// [`Engine::stop`] was called and the behavior is unloaded.
    Stopped,
    /// Virtual time only: nothing is running and nothing is scheduled, so nothing will ever
    /// happen again (the behavior waits for the world).
    Idle,
    /// [`crate::engine::Options::time_limit`] was reached with the behavior still going (a
    /// timeline that never ends, a loop of links, say). Virtual time stops moving there;
    /// stop the behavior to unload it.
    TimeLimit,
    /// The wait timed out.
    TimedOut,
    /// Strict mode: an error escaped a hook, and the behavior was stopped there and
    /// unloaded (see [`crate::engine::Options::strict`]).
    Failed {
        /// The box path.
        path: String,
        /// The hook (`onInput_onStart`, ...).
        hook: String,
        /// The error.
        message: String,
    },
    /// The robot cannot be reached any more ([`crate::Robot::is_connected`]); the behavior
    /// was stopped and unloaded.
    RobotLost,
    /// The control thread panicked (a bug of choreo's, or an observer's): every loaded box
    /// got its onUnload as far as possible (each waited for a short while) and every box
    /// was destroyed. [`crate::Engine::stop`] and [`crate::Engine::wait`] still return.
    Crashed {
        /// What the panic said.
        message: String,
    },
}

impl Outcome {
    /// Whether the run is over for good (the behavior is unloaded): not an interim report
    /// ([`Outcome::Idle`], [`Outcome::TimeLimit`]) nor a timed-out wait.
    pub fn is_final(&self) -> bool {
        !matches!(self, Outcome::Idle | Outcome::TimeLimit | Outcome::TimedOut)
    }
}
