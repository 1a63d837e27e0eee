//! `choreo run`'s arguments.

use std::path::PathBuf;

use crate::cli::args::monitor::MonitorFlags;
use crate::cli::args::sandbox::SandboxFlags;
use crate::cli::args::{ModelArg, RobotFlags, language_arg, start_time, timeout_secs};

/// `choreo run`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// A .xar, project folder, .pml, .crg, .pkg or split folder.
    pub(crate) path: PathBuf,
    /// The behavior of a project to run (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// Virtual time: sleeps and robot actions take no real time (same trace).
    #[arg(long)]
    pub(crate) fast: bool,
    /// Stop after this many seconds (behavior time): more than 0, at most 315360000
    /// (10 years).
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = timeout_secs,
        allow_hyphen_values = true
    )]
    pub(crate) timeout: Option<f64>,
    /// The seed of everything random in the run (box code's `random`, the dialog's
    /// random choices): the same seed, the same run. By default 1 with --fast, a random
    /// one in real time; the report and the trace's first line say which.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// The date and time (UTC) the run starts at, as box code's `time.time()` and
    /// `datetime.now()` and QiChat's date functions read it: `2026-03-01T18:30:00Z`. By
    /// default 2026-01-05T10:00:00Z with --fast, now in real time.
    #[arg(long, value_name = "UTC", value_parser = start_time)]
    pub(crate) start_time: Option<u64>,
    /// With --fast: run the behavior N times (2 to 100) and compare their traces; the
    /// first event where a run differs from the first is shown (exit 1 when one does).
    #[arg(long, value_name = "N", requires = "fast", value_parser = clap::value_parser!(u32).range(2..=100))]
    pub(crate) repeat: Option<u32>,
    /// Write every lifecycle event as JSON Lines (docs/trace.md); on the simulated robot,
    /// also its joints at each frame of a playing timeline (`joints` events, which
    /// `choreo plot --trace` draws).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Set a parameter before the start: `box/path/name=value` (repeatable).
    #[arg(long = "param", value_name = "BOX/NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// A scenario (YAML or JSON) that injects events: docs/scenarios.md.
    #[arg(long, value_name = "FILE")]
    pub(crate) events: Option<PathBuf>,
    /// Stop the behavior at the first error in box code (exit 3).
    #[arg(long)]
    pub(crate) strict: bool,
    #[command(flatten)]
    pub(crate) remote: RobotFlags,
    /// A fleet: one robot lost (or failing) stops the behavior on every robot (by
    /// default the others go on).
    #[arg(long)]
    pub(crate) all_or_nothing: bool,
    /// The robot to simulate; by default the one the package's manifest asks for
    /// (Pepper for `JULIETTE` models), else the one its content was made for, else NAO.
    #[arg(long, value_enum)]
    pub(crate) robot_model: Option<ModelArg>,
    /// The language the simulated robot speaks and understands (German, ged or de_DE);
    /// by default the manifest's when the package does not speak English, else the one
    /// all its topics share, else English.
    #[arg(long, value_name = "LANGUAGE", value_parser = language_arg)]
    pub(crate) lang: Option<&'static choreo_robot::languages::Language>,
    /// Run the project as an installed package (its folder named after its uuid) rather
    /// than as Choregraphe's Play uploads it (`.lastUploadedChoregrapheBehavior`).
    #[arg(long)]
    pub(crate) installed: bool,
    /// Print only errors (exceptions and errors boxes log) and the report.
    #[arg(long, short, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Print every line as it comes (repeated lines are folded otherwise), whole
    /// tracebacks, and every warning of the load.
    #[arg(long, short)]
    pub(crate) verbose: bool,
    #[command(flatten)]
    pub(crate) monitor: MonitorFlags,
    #[command(flatten)]
    pub(crate) sandbox: SandboxFlags,
}

// Here rather than in args.rs: connecting makes the run's [`Target`].
