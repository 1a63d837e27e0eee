//! Why a command failed, as a value: each command returns it up to [`crate::cli::main`],
//! which prints it once and exits with its code. Where a command finds the trouble it only
//! says what it was, so that every message goes out the same way, in one place.

use crate::exit;

/// A command that failed: what to tell the user, and (by its kind) the exit code
/// ([`exit`]).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// [`exit::NO`]: a negative answer that is an error: the robot answered with one, a
    /// stack's definitions are wrong.
    #[error("{0}")]
    No(String),
    /// [`exit::USAGE`]: bad arguments, or a path that does not exist.
    #[error("{0}")]
    Usage(String),
    /// [`exit::RUNTIME`]: an error in box code stopped the behavior.
    #[error("{0}")]
    Runtime(String),
    /// [`exit::LOAD`]: an input could not be read or is not a valid behavior.
    #[error("{0}")]
    Load(String),
    /// [`exit::TIMEOUT`]: the behavior did not finish in time.
    #[error("{0}")]
    Timeout(String),
    /// [`exit::WRITE`]: an output could not be written.
    #[error("{0}")]
    Write(String),
    /// [`exit::ROBOT`]: the robot could not be reached or was lost.
    #[error("{0}")]
    Robot(String),
    /// Already shown where it was found, in a form of its own (diagnostics at their file and
    /// line, a report): nothing is left to print but the exit code.
    #[error("exit code {0}")]
    Shown(u8),
}

impl CliError {
    /// The exit code the command ends with.
    pub fn code(&self) -> u8 {
        match self {
            CliError::No(_) => exit::NO,
            CliError::Usage(_) => exit::USAGE,
            CliError::Runtime(_) => exit::RUNTIME,
            CliError::Load(_) => exit::LOAD,
            CliError::Timeout(_) => exit::TIMEOUT,
            CliError::Write(_) => exit::WRITE,
            CliError::Robot(_) => exit::ROBOT,
            CliError::Shown(code) => *code,
        }
    }

    /// The same failure under another kind (`CliError::Load`), so another exit code; one
    /// already shown stays shown, with that code.
    pub fn recoded(self, kind: fn(String) -> CliError) -> CliError {
        match self {
            CliError::Shown(_) => CliError::Shown(kind(String::new()).code()),
            e => kind(e.to_string()),
        }
    }

    /// Tells the user (standard error), unless it was shown already: `error: ...`, then
    /// the `help: ...` lines the message carries ([`with_help`]), as cargo and rustc write
    /// them.
    pub fn print(&self) {
        if matches!(self, CliError::Shown(_)) {
            return;
        }
        let text = self.to_string();
        // A located diagnostic (`file:line: error: ...`) says it is an error itself.
        let first = text.lines().next().unwrap_or("");
        if first.contains("error: ") {
            errln!("{text}");
        } else {
            errln!("error: {text}");
        }
    }
}

impl From<crate::trace_file::TraceFileError> for CliError {
    fn from(e: crate::trace_file::TraceFileError) -> CliError {
        match e {
            crate::trace_file::TraceFileError::Missing(m) => CliError::Usage(m),
            crate::trace_file::TraceFileError::Unreadable(m) => CliError::Load(m),
        }
    }
}

impl From<crate::convert_output::NoRoom> for CliError {
    fn from(e: crate::convert_output::NoRoom) -> CliError {
        match e {
            crate::convert_output::NoRoom::Refused(m) => CliError::Usage(m),
            crate::convert_output::NoRoom::CannotRemove(m) => CliError::Write(m),
        }
    }
}

/// What a command that ran ends with: its exit code ([`exit`]), success or a negative
/// answer (`check` found errors, `diff` differences).
pub type ExitCode = u8;

/// What every command returns: the code it ended with, or why it failed.
pub type CliResult<T = ExitCode> = Result<T, CliError>;

/// The fix of an unreachable robot.
const ROBOT_FIX: &str =
    "is the robot on, on this network? NAOqi listens on tcp://HOST:9559 (2.9: tcps://HOST:9503)";

/// The fix of a robot that refused the credentials given (or asked for some).
const AUTH_FIX: &str = "give --user and --token: a NAOqi 2.9 robot's user (nao) and \
     password, or the token `choreo sim` printed";

/// The fix of a robot that could not be reached for `e`.
pub fn robot_fix(e: &choreo_qi::Error) -> &'static str {
    match e {
        choreo_qi::Error::Authentication(_) => AUTH_FIX,
        _ => ROBOT_FIX,
    }
}

/// The fix of a path that names nothing.
pub const PATH_FIX: &str =
    "give a behavior (.xar), a project (a .pml or its folder), a .crg or a .pkg";

/// `message` followed by a `help:` line saying the fix, where one is known.
pub fn with_help(message: impl std::fmt::Display, fix: &str) -> String {
    format!("{message}\nhelp: {fix}")
}
