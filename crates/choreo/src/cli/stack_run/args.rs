//! `choreo stack run`'s arguments.

use std::path::PathBuf;

use crate::cli::args::monitor::MonitorFlags;
use crate::cli::args::sandbox::SandboxFlags;
use crate::cli::args::{ModelArg, RobotFlags, timeout_secs};

/// `choreo stack run`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct StackRunArgs {
    /// The folder of behavior definitions (*.json).
    pub(crate) dir: PathBuf,
    /// The base behavior; by default the one behavior no other delegates to.
    #[arg(long)]
    pub(crate) base: Option<String>,
    /// The tick period, in milliseconds (Anki's engine ticks every 60).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub(crate) tick_ms: u64,
    /// Virtual time: ticks, sleeps and robot actions take no real time.
    #[arg(long)]
    pub(crate) fast: bool,
    /// Stop after this many seconds (stack time).
    #[arg(long, value_name = "SECONDS", value_parser = timeout_secs, allow_hyphen_values = true)]
    pub(crate) timeout: Option<f64>,
    /// Write every stack event as JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// A scenario (YAML or JSON) for the simulated robot: docs/scenarios.md.
    #[arg(long, value_name = "FILE")]
    pub(crate) events: Option<PathBuf>,
    /// The simulated robot.
    #[arg(long, value_enum)]
    pub(crate) robot_model: Option<ModelArg>,
    /// A real robot instead of the simulated one (`PlayChoregraphe` leaves then name
    /// behaviors installed on it).
    #[command(flatten)]
    pub(crate) remote: RobotFlags,
    /// Only errors and the report.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Every stack event.
    #[arg(short, long, conflicts_with = "quiet")]
    pub(crate) verbose: bool,
    #[command(flatten)]
    pub(crate) monitor: MonitorFlags,
    /// What the played behaviors' box code may reach (as `choreo run`'s).
    #[command(flatten)]
    pub(crate) sandbox: SandboxFlags,
}
