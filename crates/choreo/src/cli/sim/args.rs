//! `choreo sim`'s arguments.

use std::path::PathBuf;

use crate::cli::args::monitor::MonitorFlags;
use crate::cli::args::{ModelArg, listen_url};

/// `choreo sim`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct SimArgs {
    /// Where to listen; loopback unless told otherwise. Port 0: any free port.
    #[arg(
        long,
        value_name = "URL",
        default_value = choreo_qi::DEFAULT_LISTEN,
        value_parser = listen_url
    )]
    pub(crate) listen: String,
    /// The robot to simulate.
    #[arg(long, value_enum)]
    pub(crate) robot_model: Option<ModelArg>,
    /// A scenario (YAML or JSON) that injects events: docs/scenarios.md.
    #[arg(long, value_name = "FILE")]
    pub(crate) events: Option<PathBuf>,
    /// `--listen tcps://`: the server's certificate (PEM).
    #[arg(long, value_name = "PEM", requires = "key")]
    pub(crate) cert: Option<PathBuf>,
    /// `--listen tcps://`: the certificate's private key (PEM).
    #[arg(long, value_name = "PEM", requires = "cert")]
    pub(crate) key: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// The NAOqi generation whose qi dialect is spoken: 2.1 (NAO V4/V5: no
    /// authentication, capabilities in a Capability message), 2.5 (2.3 to 2.7), 2.8
    /// (NAO6) or 2.9 (libqi 4). Clients of older generations are answered in theirs
    /// whatever this says.
    #[arg(long, value_name = "VERSION", default_value = "2.9")]
    pub(crate) naoqi: choreo_qi::Generation,
    /// Serve N simulated robots, on N consecutive ports from the `--listen` port (port
    /// 0: N free ports): a fleet to try on one machine.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(crate) count: u16,
    /// Write every call the robots receive to FILE, one JSON object a line when it returns
    /// (`t`: Unix time in seconds it was received, `done`: when it returned, `robot`,
    /// `method`, `args`).
    #[arg(long, value_name = "FILE")]
    pub(crate) calls: Option<PathBuf>,
    /// Delay every message each way by MS milliseconds, plus or minus JITTER (uniform;
    /// messages keep their order, as on TCP): a robot reached over Wi-Fi. A list
    /// (`5,20,50±20`) gives robot 1, 2, 3... of `--count` each its own, in turn; `5>100@4`
    /// is 5 ms, then 100 ms from 4 s after each connection opened. tcp:// only.
    #[arg(long, value_name = "MS[±JITTER][>MS[±JITTER]@S]", value_delimiter = ',', value_parser = choreo_qi::Latency::parse)]
    pub(crate) latency: Vec<choreo_qi::Latency>,
    /// Beyond loopback: the user clients authenticate as (as on a NAOqi 2.9 robot).
    #[arg(long, value_name = "NAME", default_value = "nao")]
    pub(crate) user: String,
    /// The token clients authenticate with: required of them beyond loopback (by default a
    /// random one, printed), and on loopback too when given.
    #[arg(long, value_name = "TOKEN", conflicts_with = "no_auth")]
    pub(crate) token: Option<String>,
    /// Beyond loopback, serve without authentication: any machine that reaches the port
    /// drives the robot.
    #[arg(long)]
    pub(crate) no_auth: bool,
    #[command(flatten)]
    pub(crate) monitor: MonitorFlags,
}
