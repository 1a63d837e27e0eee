//! What the stack refuses, and why: returned to the behavior that asked and recorded in the
//! trace, in every build (behavior-stack.md §2: the original only asserted in dev builds).

/// A runner call a behavior made that was refused; the stack is then unchanged (R3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
pub enum StackError {
    /// Only the top of the stack may delegate (R1).
    #[error("not the top of the stack")]
    NotTop,
    /// The delegate is not in the set the delegator declared (R2).
    #[error("not one of its declared delegates")]
    NotADelegate,
    /// The delegate did not answer `wants_to_be_activated` true this tick (L6).
    #[error("the delegate did not want to be activated this tick")]
    NotWanting,
    /// The behavior is not in activatable scope (L4, or a delegate not in scope).
    #[error("not in activatable scope")]
    NotInScope,
    /// The delegate is already on the stack (behaviors are singletons).
    #[error("already on the stack")]
    AlreadyActive,
    /// Asked from inside `wants_to_be_activated` (L5).
    #[error("no stack change from inside wants_to_be_activated")]
    NoDelegationInWtba,
    /// Asked from inside `on_deactivated` (bug 6 of the original).
    #[error("no stack change from inside on_deactivated")]
    NoDelegationInDeactivation,
    /// The behavior is not on the stack (`cancel_self`).
    #[error("not on the stack")]
    NotOnStack,
    /// The behavior is not activated (`delegate_action`, A1).
    #[error("not activated")]
    NotActivated,
    /// The behavior has a delegate or an action outstanding already (A1).
    #[error("control is delegated already")]
    AlreadyDelegated,
    /// A hook of the behavior asked about is running (a behavior asking its own delegator).
    #[error("its hook is running")]
    Busy,
    /// No behavior has this id, or it is private to another behavior.
    #[error("no behavior {0:?} here")]
    Unknown(String),
}

/// Why a runner could not be built or started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Two behaviors have the same id.
    #[error("two behaviors have the id {0:?}")]
    DuplicateId(String),
    /// A behavior declares a delegate (or linked behavior) no behavior has as id.
    #[error("behavior {behavior:?} names {named:?} as a {what}, and no behavior has that id")]
    UnknownBehavior {
        /// The behavior that declares it.
        behavior: String,
        /// The id it names.
        named: String,
        /// "delegate" or "linked behavior".
        what: &'static str,
    },
    /// Behaviors that can delegate (or link) to each other in a circle: one of them would
    /// have to be on the stack twice, and scope counts would never come back to zero.
    #[error("a delegation cycle: {}", .0.join(" → "))]
    Cycle(Vec<String>),
    /// The base is not a behavior of the runner.
    #[error("the base behavior {0:?} is not defined")]
    UnknownBase(String),
    /// A behavior's linked behaviors go on for more than 1,000 steps (P3's bound).
    #[error("the linked behaviors of {0:?} go on for more than 1000 steps")]
    LinkedTooDeep(String),
    /// The base did not want to be activated when the stack was set up (S2).
    #[error("the base behavior {0:?} does not want to be activated")]
    BaseDoesNotWant(String),
}
