//! The small types every part of the stack names: a behavior's id and how a delegation
//! ended. They sit below the behaviors, the runner and the trace, which all speak of them.

use std::fmt;

/// A behavior of the stack, by its index in the runner (behaviors are singletons per id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct BehaviorId(pub(crate) u32);

impl BehaviorId {
    /// The index (the order in which the behavior was added to the runner).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BehaviorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// How a delegation ended, as the delegator's callback receives it (C5: one typed payload for
/// behaviors and actions alike).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Completed {
    /// The delegate finished: a behavior that cancelled itself, an action that succeeded.
    Success,
    /// The delegate failed (an action's error, a behavior that said so), with why.
    Failure(String),
    /// The delegation was cancelled (`cancel_delegates` with the callback kept), with why.
    Canceled(String),
}

impl fmt::Display for Completed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Completed::Success => write!(f, "success"),
            Completed::Failure(why) => write!(f, "failure: {why}"),
            Completed::Canceled(why) => write!(f, "canceled: {why}"),
        }
    }
}
