//! What every robot's run of one `choreo run` shares: the arguments read, the target, and
//! the small helpers the runs use (Ctrl-C, parameters, load errors).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use choreo_engine::{EngineError, Robot};
use choreo_naoqi::{Model, Scenario, SimRobot};

use crate::cli::args::RobotArgs;
use crate::cli::error::{CliError, CliResult, robot_fix, with_help};
use crate::report::live::{Live, Verbosity};

use super::args::RunArgs;
use crate::exit;
use crate::{Ending, StoppedBy};
use choreo_xar::source::Behavior;

/// How long `wait` blocks between looks at Ctrl-C and errors.
pub(super) const POLL: Duration = Duration::from_millis(100);

/// Where the behavior runs.
pub(crate) enum Target {
    Sim(Arc<SimRobot>),
    Remote(Arc<choreo_qi::RemoteRobot>),
}

impl Target {
    /// The target, as the API takes it.
    pub(super) fn api(&self) -> crate::Target {
        match self {
            Target::Sim(r) => crate::Target::Simulated(SimRobot::clone(r)),
            Target::Remote(r) => crate::Target::Remote(Arc::clone(r)),
        }
    }

    /// The robot, as the engine takes it.
    pub(crate) fn robot(&self) -> Arc<dyn Robot> {
        match self {
            Target::Sim(r) => Arc::clone(r) as Arc<dyn Robot>,
            Target::Remote(r) => Arc::clone(r) as Arc<dyn Robot>,
        }
    }
}

/// What every robot's run of one `choreo run` shares.
pub(super) struct Invocation<'a> {
    pub(super) args: &'a RunArgs,
    /// The simulated robot's model and language where the project chose them, and why.
    pub(super) implied: Vec<String>,
    /// The real robots to run on (none: the simulated one; several: a fleet).
    pub(super) robots: &'a [RobotArgs],
    /// How much live output: errors only, folded, or every line.
    pub(super) verbosity: Verbosity,
    /// The API's setup every robot's run starts from.
    pub(super) base: &'a crate::Setup,
    pub(super) behavior: &'a Behavior,
    pub(super) model: Model,
    /// The scenario of the simulated robot (its stubs are recognised in the trace).
    pub(super) scenario: Option<Scenario>,
    pub(super) live: Live,
}

/// The monitor's title: the project's name, and the behavior's when the project has
/// several (`Dances: salsa`).
pub(super) fn title(project: &crate::Project, behavior: &str) -> String {
    match project.behaviors().len() {
        0 | 1 => project.name().to_string(),
        _ => format!("{}: {behavior}", project.name()),
    }
}

/// Counts Ctrl-C presses from now on: the first asks for a clean stop (R4), which the caller
/// makes when it sees the count; a second exits at once, unless only a monitor lingers
/// after the end (then it ends the linger, as the caller sees).
pub(crate) fn count_interrupts() -> Arc<AtomicUsize> {
    let interrupts = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&interrupts);
    let _ = ctrlc::set_handler(move || {
        // A load waiting for pip (a slow index) goes on to its stop at once.
        choreo_python::stop_installs();
        if seen.fetch_add(1, Ordering::SeqCst) >= 1 && !crate::cli::args::monitor::lingering() {
            errln!("\ninterrupted again: exiting without unloading");
            std::process::exit(i32::from(exit::INTERRUPTED));
        }
    });
    interrupts
}

/// How a run stopped by Ctrl-C ends.
pub(super) fn interrupted() -> Ending {
    Ending::Stopped {
        by: StoppedBy::Interrupt,
    }
}

/// `box/path/name=value`: the box path as in the trace (`root/Say`), `root/` optional.
pub(super) fn set_param(run: &crate::Run, spec: &str) -> Result<(), String> {
    let (target, value) = spec.split_once('=').ok_or("expected box/path/name=value")?;
    let (path, name) = target
        .rsplit_once('/')
        .ok_or("expected box/path/name=value")?;
    run.set_parameter_text(path, name, value)
        .map_err(|e| e.to_string())
}

/// A behavior that could not be loaded, told by `message`: [`CliError::Load`] whatever the
/// reason (a box that cannot be constructed, a thread that cannot start, files that cannot
/// be laid out), but the time limit and the robot. Every kind is listed so that a new one is
/// given its exit code on purpose.
pub(super) fn load_error(message: String, error: &crate::Error) -> CliError {
    use crate::Error as E;
    match error {
        // `--timeout` bounds the whole run, box construction included.
        E::Load {
            source: EngineError::LoadTimeLimit { .. },
            ..
        } => CliError::Timeout(message),
        E::BoxCodeTimeout(_) => CliError::Timeout(message),
        E::Robot { .. } | E::Call(_) => CliError::Robot(message),
        E::NotFound { .. } | E::NoLanguage { .. } | E::NotSimulated { .. } => {
            CliError::Usage(message)
        }
        E::NoPosture { .. } => CliError::Load(message),
        E::Load { .. }
        | E::Unreadable { .. }
        | E::Broken { .. }
        | E::NoBehavior { .. }
        | E::Scenario { .. }
        | E::Files { .. }
        | E::Engine(_)
        | E::WaitTimedOut(_)
        | E::Closed
        | E::BoxHost(_)
        | E::Executor(_)
        | E::Journal { .. } => CliError::Load(message),
    }
}

impl RobotArgs {
    /// Connects to the robot; on failure, why (bad options:
    /// usage; unreachable: robot).
    pub(crate) fn connect(&self) -> CliResult<Target> {
        let options = self.options().map_err(CliError::Usage)?;
        match choreo_qi::RemoteRobot::connect(&self.url, options) {
            Ok(r) => {
                if r.session().is_legacy() && (self.user.is_some() || self.token.is_some()) {
                    errln!(
                        "{}: the robot speaks NAOqi 2.1's protocol, which has no \
                         authentication: --user and --token were not used",
                        self.url
                    );
                }
                Ok(Target::Remote(Arc::new(r)))
            }
            Err(e) => Err(CliError::Robot(with_help(
                format!("{}: cannot reach the robot: {e}", self.url),
                robot_fix(&e),
            ))),
        }
    }
}

/// Prints the run's report under `title` (through the supervising parent when there is one).
pub(super) fn print_report(title: &str, r: &crate::report::Report) {
    crate::cli::args::sandbox::print_report(&r.text(title));
}
