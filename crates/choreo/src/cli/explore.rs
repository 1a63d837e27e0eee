//! `choreo explore PATH`: every branch a person could take ([`crate::explore`]); prints the
//! one-screen summary or the JSON, and writes each fault's scenario with `--out`.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::args::monitor::{MonitorFlags, Source};
use crate::cli::error::{CliError, CliResult};
use crate::exit;
use crate::explore::{Exploration, Journal, Options, explore, explore_resuming};

/// `choreo explore`'s arguments.
#[derive(clap::Args)]
pub(crate) struct ExploreArgs {
    /// The behavior: a .xar, a behavior or project folder, a .pml, a .crg, a package.
    pub(crate) path: PathBuf,
    /// Which behavior of a project (the first by default).
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// Paths run at most (the first, with no input, included).
    #[arg(long, default_value_t = Options::default().max_paths)]
    pub(crate) max_paths: usize,
    /// Inputs on a path at most.
    #[arg(long, default_value_t = Options::default().depth)]
    pub(crate) depth: usize,
    /// Real time spent at most, in seconds (the paths under way finish).
    #[arg(long, default_value_t = Options::default().time.as_secs_f64())]
    pub(crate) time: f64,
    /// Behavior time a path runs past its last input at most, in seconds.
    #[arg(long, default_value_t = Options::default().horizon.as_secs_f64())]
    pub(crate) timeout: f64,
    /// Paths run at once (the machine's cores by default).
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// Writes each fault's scenario here (`fault-1.yaml`, ...), the JSON (`explore.json`) and
    /// the journal of the paths run (`paths.jsonl`), which `--resume` goes on from.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Goes on from the journal in `--out`: its paths are not run again.
    #[arg(long, requires = "out")]
    pub(crate) resume: bool,
    /// Prints the JSON instead of the summary.
    #[arg(long)]
    pub(crate) json: bool,
    /// Then serves the monitor's page of the behavior coloured by coverage: boxes some path
    /// entered, and those never entered with why (at ADDR, by default 127.0.0.1 on a free
    /// port; docs/monitor.md).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub(crate) monitor: Option<std::net::SocketAddr>,
    /// Keep the page up this many seconds (default: until Ctrl-C).
    #[arg(long, value_name = "SECONDS", requires = "monitor")]
    pub(crate) monitor_keep: Option<f64>,
    /// Box code's confinement, as `choreo run`'s (docs/security.md).
    #[command(flatten)]
    pub(crate) sandbox: crate::cli::args::sandbox::SandboxFlags,
}

/// Explores (exit 0: no fault found; 1: faults found; 4: the behavior does not load).
pub fn run(args: &ExploreArgs) -> CliResult {
    if let Some(code) = args.sandbox.enter(false) {
        return Ok(code);
    }
    let seconds = |s: f64, what: &str| {
        (s.is_finite() && s > 0.0)
            .then(|| Duration::from_secs_f64(s))
            .ok_or_else(|| CliError::Usage(format!("--{what} wants a positive number of seconds")))
    };
    let defaults = Options::default();
    let options = Options {
        max_paths: args.max_paths.max(1),
        depth: args.depth,
        time: seconds(args.time, "time")?,
        horizon: seconds(args.timeout, "timeout")?,
        jobs: args.jobs.unwrap_or(defaults.jobs).max(1),
    };
    let project = crate::Project::open(&args.path).map_err(|e| CliError::Load(e.to_string()))?;
    let setup = project
        .behavior(args.behavior.as_deref())
        .map_err(|e| CliError::Load(e.to_string()))?
        .sandbox(args.sandbox.allowed())
        .box_host(args.sandbox.box_host())
        .max_memory(args.sandbox.max_memory);
    let found = match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::Write(format!("{}: {e}", dir.display())))?;
            let journal = Journal::open(
                &dir.join("paths.jsonl"),
                &setup,
                options.horizon,
                args.resume,
            )
            .map_err(|e| CliError::Usage(e.to_string()))?;
            if args.resume {
                errln!("resuming: {} paths run before", journal.paths());
            }
            let found = explore_resuming(&setup, &options, &journal);
            if let Some(why) = journal.failed() {
                errln!("warning: the journal is incomplete: {why}");
            }
            found
        }
        None => explore(&setup, &options),
    }
    .map_err(|e| CliError::Load(e.to_string()))?;
    let json =
        serde_json::to_string_pretty(&found).map_err(|e| CliError::Runtime(e.to_string()))?;
    if let Some(dir) = &args.out {
        let write = |name: String, text: &str| {
            std::fs::write(dir.join(&name), text)
                .map_err(|e| CliError::Write(format!("{}: {e}", dir.join(&name).display())))
        };
        write("explore.json".into(), &format!("{json}\n"))?;
        for (i, fault) in found.faults.iter().enumerate() {
            write(format!("fault-{}.yaml", i + 1), &fault.scenario())?;
        }
    }
    let text = if args.json {
        format!("{json}\n")
    } else {
        found.summary()
    };
    crate::cli::args::sandbox::print_report(&text);
    if args.monitor.is_some() {
        show(args, &setup, &found, &text)?;
    }
    Ok(if found.faults.is_empty() {
        exit::OK
    } else {
        exit::NO
    })
}

/// `--monitor`: the behavior's page, its boxes coloured by what the exploration entered,
/// kept up until Ctrl-C or `--monitor-keep`.
fn show(args: &ExploreArgs, setup: &crate::Setup, found: &Exploration, text: &str) -> CliResult {
    let interrupts = crate::cli::run::count_interrupts();
    let flags = MonitorFlags {
        monitor: args.monitor,
        monitor_control: false,
        monitor_keep: args.monitor_keep,
    };
    let behavior = setup.behavior();
    let graph = choreo_engine::graph::Graph::new(&behavior.xar);
    let title = format!("{} (explored)", setup.project().name());
    let played = crate::monitored::others(setup.project().files(), behavior);
    let model = setup.project().model().name().to_lowercase();
    let Some(monitor) = crate::cli::args::monitor::start(
        &flags,
        &graph,
        &title,
        Some(&model),
        Source::Run(played),
    )?
    else {
        return Ok(exit::OK);
    };
    monitor.announce(&found.coverage_message());
    let keep = flags.monitor_keep.filter(|s| s.is_finite() && *s >= 0.0);
    crate::cli::args::monitor::linger(&monitor, "explored", text, keep, &interrupts);
    Ok(exit::OK)
}
