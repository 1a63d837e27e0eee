//! How a run ended ([`Outcome`]), and how it is reported to who waits: a wait with a timeout,
//! or, for box code of another run waiting for the end, a wait parked on the time base.

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The root box fired a Stopped output (R5).
    Finished,
    /// [`crate::Engine::stop`] was called and the behavior is unloaded.
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

/// The outcome as the engine's users see it, and the box code of other runs parked waiting
/// for the end (see [`crate::Engine::wait_end_parked`]).
pub(crate) struct Reported {
    slot: std::sync::Mutex<Slot>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct Slot {
    outcome: Option<Outcome>,
    /// Waiters parked on the time base until the end.
    parked: Vec<Option<crate::turn::TurnId>>,
}

impl Reported {
    pub(crate) fn new() -> Reported {
        Reported {
            slot: std::sync::Mutex::new(Slot::default()),
            changed: std::sync::Condvar::new(),
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        choreo_base::lock(&self.slot)
    }

    /// Reports `outcome` unless a final one was: Finished, Stopped and the like are final;
    /// Idle and TimeLimit only until then. A final one wakes the parked waiters, counted
    /// again on `time` before this returns (the caller, the control thread, is counted).
    pub(crate) fn set(&self, outcome: Outcome, time: &crate::activity::Activity) {
        let mut slot = self.slot();
        if slot.outcome.as_ref().is_some_and(Outcome::is_final) {
            return;
        }
        if outcome.is_final() {
            let parked = std::mem::take(&mut slot.parked);
            time.unpark(parked.len());
            for turn in parked {
                time.wake_turn(turn);
            }
        }
        slot.outcome = Some(outcome);
        self.changed.notify_all();
    }

    /// The outcome reported so far.
    pub(crate) fn now(&self) -> Option<Outcome> {
        self.slot().outcome.clone()
    }

    /// Waits up to `timeout` of real time for an outcome; an interim one is taken (reported
    /// once). [`Outcome::TimedOut`] if none came.
    pub(crate) fn wait(&self, timeout: std::time::Duration) -> Outcome {
        let guard = self.slot();
        let (mut slot, _) = self
            .changed
            .wait_timeout_while(guard, timeout, |s| s.outcome.is_none())
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let outcome = slot.outcome.clone().unwrap_or(Outcome::TimedOut);
        if !outcome.is_final() {
            slot.outcome = None;
        }
        outcome
    }

    /// Waits, however long it takes, for a final outcome. `time`: the caller is a counted
    /// activity of `time`, parked while it waits (see [`crate::activity::Activity::park`]).
    pub(crate) fn wait_final(&self, time: Option<&crate::activity::Activity>) -> Outcome {
        let mut slot = self.slot();
        let mut mine = None;
        if let Some(time) = time
            && !slot.outcome.as_ref().is_some_and(Outcome::is_final)
        {
            mine = time.give_turn();
            slot.parked.push(mine);
            time.park();
        }
        let outcome = crate::activity::waiting(|| {
            loop {
                if let Some(o) = slot.outcome.as_ref().filter(|o| o.is_final()) {
                    return o.clone();
                }
                slot = self
                    .changed
                    .wait(slot)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        });
        // The slot's lock went with the closure.
        if let Some(time) = time {
            time.take_turn(mine);
        }
        outcome
    }
}
