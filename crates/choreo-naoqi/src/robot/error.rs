//! How a call of the simulated robot fails, typed: the arguments are not what the method
//! takes, or the method itself failed. Converted to the engine's [`RobotError`] in one
//! place ([`CallError::into_robot_error`]), with NAOqi's wording unchanged.

use std::fmt;

use choreo_engine::RobotError;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallError {
    /// An argument of call `call` (`Service.method`) is not what the method expects.
    BadArguments {
        /// The call whose arguments are wrong: a module that serves a call by making
        /// another one (DCM through ALMotion) fails when the other's arguments are wrong.
        call: String,
        /// What is wrong, as NAOqi says it.
        message: String,
    },
    /// The method failed.
    Failed(String),
}

impl CallError {
    /// What the error says.
    pub fn message(&self) -> &str {
        match self {
            CallError::BadArguments { message, .. } | CallError::Failed(message) => message,
        }
    }

    /// The error of call `call` (`Service.method`) for the engine: bad arguments when they
    /// are that call's own, a failure otherwise.
    pub fn into_robot_error(self, call: &str) -> RobotError {
        match self {
            CallError::BadArguments { call: of, message } if of == call => {
                RobotError::BadArguments(message)
            }
            other => RobotError::Failed(other.message().to_string()),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for CallError {}
