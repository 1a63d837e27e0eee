//! The API's one error type: each kind says what went wrong and where (the file, the box
//! path, the robot's URL), so a caller can match on it and a person can read it.

use std::path::PathBuf;
use std::time::Duration;

use choreo_engine::EngineError;
use choreo_xar::Diagnostic;

/// What went wrong, at the API's boundary.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Nothing at this path.
    #[error("{}: no such file or folder", path.display())]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The input cannot be read at all (not a behavior, project or archive; malformed).
    #[error("{diagnostic}")]
    Unreadable {
        /// Where and why, with the file, line and column.
        diagnostic: Box<Diagnostic>,
    },
    /// A behavior of the input cannot be read (the others could).
    #[error("{}: a behavior could not be read: {}", path.display(), first(errors))]
    Broken {
        /// The input.
        path: PathBuf,
        /// Every error found, located.
        errors: Vec<Diagnostic>,
    },
    /// The input has no behavior of this name (or none at all).
    #[error("{}: no behavior {}(it has: {})", path.display(),
        name.as_ref().map_or(String::new(), |n| format!("{n:?} ")),
        if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    NoBehavior {
        /// The input.
        path: PathBuf,
        /// The name asked for; `None`: the first one, and there is none.
        name: Option<String>,
        /// The names it has.
        available: Vec<String>,
    },
    /// A scenario file could not be read (it names the file, and the entry's line).
    #[error(transparent)]
    Scenario(#[from] choreo_naoqi::ScenarioError),
    /// The simulated robot has no such language.
    #[error("the simulated robot has no language {name:?}")]
    NoLanguage {
        /// The name asked for (a NAOqi name: `French`).
        name: String,
    },
    /// A scenario puts the simulated robot in a posture its model does not have.
    #[error("{scenario}: posture: {model} has no posture {name:?} (its postures: {known})")]
    NoPosture {
        /// The scenario's name (its file).
        scenario: String,
        /// The model (`NAO`).
        model: String,
        /// The posture asked for.
        name: String,
        /// The model's postures, comma-separated.
        known: String,
    },
    /// The robot at this URL cannot be reached, or refused the connection.
    #[error("{url}: cannot reach the robot: {source}")]
    Robot {
        /// The URL given.
        url: String,
        /// What the qi session said.
        source: choreo_qi::Error,
    },
    /// The behavior's files cannot be laid out on disk for its run (`behaviorAbsolutePath()`).
    #[error("cannot lay out the behavior's files: {diagnostic}")]
    Files {
        /// Why.
        diagnostic: Box<Diagnostic>,
    },
    /// The behavior could not be loaded (a box's code failed to construct: the error names
    /// the box, and its script's line; the time limit passed during the load).
    #[error("{}: {source}", path.display())]
    Load {
        /// The input.
        path: PathBuf,
        /// The engine's error.
        source: EngineError,
    },
    /// A box, input, output, parameter or timeline that the behavior does not have.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// What only the simulated robot has (its state, virtual time, a scenario) was asked
    /// of a run on a real robot.
    #[error("{what}: only on the simulated robot (this run is on a real robot)")]
    NotSimulated {
        /// What was asked.
        what: &'static str,
    },
    /// The robot answered a call with an error.
    #[error(transparent)]
    Call(#[from] choreo_engine::RobotError),
    /// A wait ended before the run did.
    #[error("the run had not ended after {0:?}")]
    WaitTimedOut(Duration),
    /// The run was used after [`crate::Run::close`].
    #[error("this run is closed")]
    Closed,
    /// Box code's process (the box host) could not be started or reached.
    #[error("{0}")]
    BoxHost(String),
    /// Box code did not give the load back within its real-time bound
    /// ([`crate::Setup::box_code_bound`]): its process was stopped; where it was, if known.
    #[error("box code did not give the load back in time after --timeout, so its process was stopped{}", .0.as_ref().map(|at| format!("; where {at}")).unwrap_or_default())]
    BoxCodeTimeout(Option<String>),
    /// A path `choreo explore` handed to another process or machine (the Python API's
    /// `executor`) could not be run there, or its result not read back.
    #[error("a path run by the executor failed: {0}")]
    Executor(String),
    /// An exploration's journal (`choreo explore --resume`) cannot be read or written, or
    /// is another exploration's.
    #[error("{}: cannot resume from this journal: {why}", path.display())]
    Journal {
        /// The journal.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// The first error of a list, for a one-line message.
fn first(errors: &[Diagnostic]) -> String {
    errors.first().map_or_else(String::new, ToString::to_string)
}

/// The API's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
