//! The errors at the engine's boundaries: [`ScriptError`] (box code), [`RobotError`] (the
//! robot) and [`EngineError`] (loading and controlling a behavior).
//!
//! Their `Display` texts are the messages the engine showed before these types existed:
//! traces, tests and the command line keep showing the same words.

use std::time::Duration;

/// An exception or a panic escaping box code: a hook (E1) or the construction of a box (E3).
///
/// Its `Display` is the message alone, so a trace shows the same text as before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ScriptError {
    /// What the box code said (for a Python script: the traceback).
    pub message: String,
    /// The line of the box's script where the error was raised, when the host knows it.
    pub line: Option<u32>,
}

impl ScriptError {
    /// An error with `message` and no line.
    pub fn new(message: impl Into<String>) -> ScriptError {
        ScriptError {
            message: message.into(),
            line: None,
        }
    }

    /// This error, raised at `line` of the box's script.
    #[must_use]
    pub fn at_line(self, line: u32) -> ScriptError {
        ScriptError {
            line: Some(line),
            ..self
        }
    }
}

impl From<String> for ScriptError {
    fn from(message: String) -> ScriptError {
        ScriptError::new(message)
    }
}

impl From<&str> for ScriptError {
    fn from(message: &str) -> ScriptError {
        ScriptError::new(message)
    }
}

/// A robot error that box code lets escape (a native box's `?` on a robot call).
impl From<RobotError> for ScriptError {
    fn from(error: RobotError) -> ScriptError {
        ScriptError::new(error.to_string())
    }
}

/// An engine error that box code lets escape (a native box's `?` on [`fire`]).
///
/// [`fire`]: crate::BoxContext::fire
impl From<EngineError> for ScriptError {
    fn from(error: EngineError) -> ScriptError {
        ScriptError::new(error.to_string())
    }
}

/// Why a robot call, post or subscription failed: a program can tell a missing service
/// from a lost robot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RobotError {
    /// The engine has no robot: there is nothing to call.
    #[error("no robot")]
    NoRobot,
    /// The robot has no module of this name (NAOqi's message; stock boxes look for it).
    #[error("Can't find service: {0}")]
    UnknownService(String),
    /// The module does not serve this method, or no overload takes these arguments.
    #[error("{service}.{method}: method not served by the robot (args: {signature}){detail}")]
    UnknownMethod {
        /// The module.
        service: String,
        /// The method asked for.
        method: String,
        /// The signature of the arguments given, as the robot writes it, such as `(sf)`
        /// (NAOqi's message shows it).
        signature: String,
        /// What the robot adds, empty or from `; `: why it does not serve the method (the
        /// simulated robot: not yet, or no NAOqi version has it) and the closest names.
        detail: String,
    },
    /// The method exists but refuses these arguments (the message names the method).
    #[error("{0}")]
    BadArguments(String),
    /// The link to the robot is down (the message says what was lost).
    #[error("disconnected: {0}")]
    Disconnected(String),
    /// No answer came within this time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The method ran and raised: the robot's own error message.
    #[error("{0}")]
    Failed(String),
    /// A robot without background tasks was asked to post a call (the call, as
    /// `Service.post.method`).
    #[error("{0}: this robot cannot run background tasks")]
    CannotPost(String),
}

impl RobotError {
    /// True when the robot is (perhaps only for now) out of reach: [`RobotError::Disconnected`]
    /// or [`RobotError::Timeout`]. Other errors come from a robot that answered.
    pub fn is_connection_lost(&self) -> bool {
        matches!(self, RobotError::Disconnected(_) | RobotError::Timeout(_))
    }
}

/// Why a behavior could not be loaded, or a command from outside was refused.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The code of the box at `path` could not be constructed (E3): the load fails.
    #[error("{path}: cannot construct the box: {error}")]
    Construct {
        /// The box's path (`root/Say`).
        path: String,
        /// What its code raised.
        error: ScriptError,
    },
    /// A thread the engine needs could not be started.
    #[error("cannot start the {what}: {error}")]
    Thread {
        /// Which one: `"control thread"`, `"frame clock"`.
        what: &'static str,
        /// The system's error.
        error: std::io::Error,
    },
    /// No box has this path.
    #[error("no box {path:?}")]
    NoBox {
        /// The path asked for.
        path: String,
    },
    /// The box has no input of this name.
    #[error("box {path:?} has no input {input:?}")]
    NoInput {
        /// The box's path.
        path: String,
        /// The input asked for.
        input: String,
    },
    /// The box has no output of this name. The message names the box by its name (the
    /// last part of its path), as a script sees it.
    #[error("box {:?} has no output {output:?}", box_name(path))]
    NoOutput {
        /// The box's path.
        path: String,
        /// The output asked for.
        output: String,
    },
    /// The box has no parameter of this name.
    #[error("box {path:?} has no parameter {name:?}")]
    NoParameter {
        /// The box's path.
        path: String,
        /// The parameter asked for.
        name: String,
    },
    /// The box has no timeline that plays (a script box, or a flow-diagram holder).
    #[error("box {path:?} has no timeline")]
    NoTimeline {
        /// The box's path.
        path: String,
    },
    /// The time limit ([`Options::time_limit`]) passed while the boxes were still being
    /// constructed, so the behavior never started ([`crate::Engine::load`]; box code that
    /// slept then was woken, and every box constructed was destroyed again).
    ///
    /// [`Options::time_limit`]: crate::Options::time_limit
    #[error("the time limit ({limit:?}) passed while the boxes were being constructed")]
    LoadTimeLimit {
        /// The limit that passed.
        limit: Duration,
    },
}

/// The name of the box at `path`: its last part.
fn box_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_error_shows_its_message_alone() {
        let e = ScriptError::new("Traceback ...\nRuntimeError: boom").at_line(7);
        assert_eq!(e.to_string(), "Traceback ...\nRuntimeError: boom");
        assert_eq!(e.line, Some(7));
        assert_eq!(ScriptError::new("x").line, None);
    }

    #[test]
    fn script_errors_come_from_text_and_from_other_errors() {
        let from_str: ScriptError = "boom".into();
        let from_string: ScriptError = format!("bo{}", "om").into();
        assert_eq!(from_str, from_string);
        assert_eq!(from_str, ScriptError::new("boom"));
        let robot: ScriptError = RobotError::UnknownService("ALFoo".into()).into();
        assert_eq!(robot.message, "Can't find service: ALFoo");
        let engine: ScriptError = EngineError::NoOutput {
            path: "root/A".into(),
            output: "out".into(),
        }
        .into();
        assert_eq!(engine.message, "box \"A\" has no output \"out\"");
        assert_eq!(engine.line, None);
    }

    #[test]
    fn robot_errors_keep_naoqi_wording() {
        let cases = [
            (RobotError::NoRobot, "no robot"),
            (
                RobotError::UnknownService("ALFoo".into()),
                "Can't find service: ALFoo",
            ),
            (
                RobotError::UnknownMethod {
                    service: "ALMotion".into(),
                    method: "fooBar".into(),
                    signature: "(sf)".into(),
                    detail: String::new(),
                },
                "ALMotion.fooBar: method not served by the robot (args: (sf))",
            ),
            (
                RobotError::UnknownMethod {
                    service: "ALMotion".into(),
                    method: "fooBar".into(),
                    signature: "()".into(),
                    detail: "; no NAOqi version has it".into(),
                },
                "ALMotion.fooBar: method not served by the robot (args: ()); no NAOqi version has it",
            ),
            (
                RobotError::BadArguments("ALLeds.on: argument 1 must be a string".into()),
                "ALLeds.on: argument 1 must be a string",
            ),
            (
                RobotError::Disconnected("connection reset".into()),
                "disconnected: connection reset",
            ),
            (
                RobotError::Timeout(Duration::from_millis(1500)),
                "timed out after 1.5s",
            ),
            (
                RobotError::Failed("ALMemory.getData: no key".into()),
                "ALMemory.getData: no key",
            ),
            (
                RobotError::CannotPost("ALMotion.post.moveTo".into()),
                "ALMotion.post.moveTo: this robot cannot run background tasks",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    #[test]
    fn only_disconnection_and_timeout_are_connection_losses() {
        assert!(RobotError::Disconnected("x".into()).is_connection_lost());
        assert!(RobotError::Timeout(Duration::from_secs(1)).is_connection_lost());
        for other in [
            RobotError::NoRobot,
            RobotError::UnknownService("A".into()),
            RobotError::BadArguments("b".into()),
            RobotError::Failed("c".into()),
            RobotError::CannotPost("d".into()),
        ] {
            assert!(!other.is_connection_lost(), "{other:?}");
        }
    }

    #[test]
    fn engine_errors_keep_their_messages() {
        let construct = EngineError::Construct {
            path: "root/A".into(),
            error: ScriptError::new("SyntaxError: invalid syntax").at_line(3),
        };
        assert_eq!(
            construct.to_string(),
            "root/A: cannot construct the box: SyntaxError: invalid syntax"
        );
        let thread = EngineError::Thread {
            what: "control thread",
            error: std::io::Error::other("no more threads"),
        };
        assert_eq!(
            thread.to_string(),
            "cannot start the control thread: no more threads"
        );
        let cases = [
            (EngineError::NoBox { path: "x".into() }, "no box \"x\""),
            (
                EngineError::NoInput {
                    path: "p".into(),
                    input: "i".into(),
                },
                "box \"p\" has no input \"i\"",
            ),
            (
                EngineError::NoOutput {
                    path: "root/Dance/Say".into(),
                    output: "o".into(),
                },
                "box \"Say\" has no output \"o\"",
            ),
            (
                EngineError::NoOutput {
                    path: "root".into(),
                    output: "o".into(),
                },
                "box \"root\" has no output \"o\"",
            ),
            (
                EngineError::NoParameter {
                    path: "root/A".into(),
                    name: "n".into(),
                },
                "box \"root/A\" has no parameter \"n\"",
            ),
            (
                EngineError::LoadTimeLimit {
                    limit: Duration::from_secs(2),
                },
                "the time limit (2s) passed while the boxes were being constructed",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
