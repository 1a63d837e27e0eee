//! `choreo replay`: a recorded run (or a behavior stack's) shown by the monitor, paused at its
//! start, played from the page.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use choreo_engine::graph::Graph;
use choreo_monitor::Monitor;
use choreo_robot::Model;

use crate::cli::args::monitor::{MonitorFlags, Source, start, wait};
use crate::cli::error::{CliError, CliResult};
use crate::exit;
use crate::report::live::Verbosity;

/// `choreo replay`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct ReplayArgs {
    /// The trace (JSON Lines).
    pub(crate) trace: PathBuf,
    /// The behavior that ran (any input `run` takes), or the stack's folder.
    pub(crate) behavior_path: PathBuf,
    /// The behavior of a project (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    #[command(flatten)]
    pub(crate) monitor: MonitorFlags,
}

/// `choreo replay TRACE BEHAVIOR`: the monitor of a recorded run, paused at its start, until
/// Ctrl-C (or `--monitor-keep` seconds). A behavior stack's trace (`choreo stack run
/// --trace`: events with a `tick`, no `path`) replays with its folder.
pub fn replay(args: &ReplayArgs) -> CliResult {
    let (trace, path, behavior) = (&args.trace, &args.behavior_path, args.behavior.as_deref());
    let flags = &args.monitor;
    let (header, events) = crate::trace_file::read(trace, |_, _| Ok(()))?;
    let events: Vec<serde_json::Value> = events.into_iter().map(|(_, v)| v).collect();
    // The robot it ran on: the header's (docs/trace.md), else the one its joints are of.
    let model = header
        .as_ref()
        .and_then(|h| h["model"].as_str())
        .and_then(choreo_robot::Model::from_hint)
        .or_else(|| crate::trace_file::model_of_joints(&events));
    let flags = MonitorFlags {
        monitor: flags
            .monitor
            .or(Some(SocketAddr::from(([127, 0, 0, 1], 0)))),
        ..flags.clone()
    };
    // A stack's trace: its own events, and its engines' between them.
    let stack = events.iter().any(choreo_monitor::replay::is_stack_event);
    let count = events.len();
    let replayed = if stack {
        stack_replay(path, &flags, model, events)
    } else {
        behavior_replay(path, behavior, &flags, model, events)
    };
    let (title, _monitor) = match replayed? {
        (title, Some(m)) => (title, m),
        // Not reached: the replay always asks for a monitor.
        (_, None) => return Err(CliError::Shown(exit::USAGE)),
    };
    errln!(
        "replaying {title} ({count} events of {}), paused at the start: play it from the page",
        trace.display()
    );
    let interrupts = crate::cli::run::count_interrupts();
    wait(
        flags.monitor_keep,
        &interrupts,
        interrupts.load(Ordering::SeqCst),
    );
    Ok(exit::OK)
}

/// What a replay shows: its title, and the monitor serving it.
type Replayed = CliResult<(String, Option<Arc<Monitor>>)>;

/// The monitor of a behavior stack's recorded `events`, its definitions in `dir`, on
/// `model` when known.
fn stack_replay(
    dir: &Path,
    flags: &MonitorFlags,
    model: Option<Model>,
    events: Vec<serde_json::Value>,
) -> Replayed {
    let (defs, runner) = crate::cli::stack::load(dir, None)?;
    let xar = crate::stack_driver::driver_xar().map_err(|e| CliError::Runtime(e.to_string()))?;
    let shape = crate::stack_driver::shape(&runner, &defs);
    // The stack plays on without the leaves' behaviors drawn when they cannot be read.
    let played = match crate::cli::stack_run::install(dir, &defs, Verbosity::Quiet) {
        Ok(installed) => crate::stack_driver::played(&installed),
        Err(e) => {
            errln!("warning: the behaviors the stack plays are not drawn: {e}");
            Vec::new()
        }
    };
    let title = format!("stack {}", dir.display());
    let model = model.map(|m| m.name().to_lowercase());
    let source = Source::StackReplay(shape, played, events);
    let monitor = start(flags, &Graph::new(&xar), &title, model.as_deref(), source)?;
    Ok((title, monitor))
}

/// The monitor of a behavior's recorded `events`, on `model` when known.
fn behavior_replay(
    path: &Path,
    behavior: Option<&str>,
    flags: &MonitorFlags,
    model: Option<Model>,
    events: Vec<serde_json::Value>,
) -> Replayed {
    let project = crate::cli::input::load_to_run(path, crate::report::live::Verbosity::Normal)?;
    let behavior = crate::cli::input::pick_behavior(&project, path, behavior)?;
    // Else the one the project was made for.
    let model = model
        .unwrap_or_else(|| crate::implied::model(&project).map_or(Model::Nao, |m| m.value))
        .name()
        .to_lowercase();
    let graph = Graph::new(&behavior.xar);
    let source = Source::Replay(crate::monitored::others(&project, behavior), events);
    let monitor = start(flags, &graph, &behavior.name, Some(&model), source)?;
    Ok((behavior.name.clone(), monitor))
}
