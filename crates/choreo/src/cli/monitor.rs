//! `--monitor`: the live web page of a run (or a replay), served by choreo-monitor
//! (docs/monitor.md); the URL printed, a page's commands carried out, the page kept up after
//! the end.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_engine::{Engine, Trace};
use choreo_monitor::stack::StackShape;
use choreo_monitor::{Command, Monitor, MonitorOptions};

use crate::cli::exit;

/// The monitor's options, as `run` and `replay` take them.
#[derive(Debug, Clone, clap::Args)]
pub struct MonitorFlags {
    /// Serve a live web page of the run (the diagram lighting up, timelines, the robot, the
    /// trace): at ADDR, by default 127.0.0.1 on a free port; the URL is printed. An address
    /// other than loopback (0.0.0.0:8080) puts a random token in the URL. docs/monitor.md.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub monitor: Option<SocketAddr>,
    /// The page may stimulate inputs of boxes (it may always stop the run).
    #[arg(long, requires = "monitor")]
    pub monitor_control: bool,
    /// After the end, keep the page up this many seconds (default: until Ctrl-C).
    #[arg(long, value_name = "SECONDS", requires = "monitor", value_parser = seconds)]
    pub monitor_keep: Option<f64>,
}

/// A number of seconds, 0 or more.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("{text:?}: expected a number of seconds, 0 or more")),
    }
}

/// What a monitor shows besides the behavior.
pub enum Source {
    /// A live run.
    Run,
    /// A behavior stack's live run: the stack's tree.
    Stack(StackShape),
    /// A recorded trace's events.
    Replay(Vec<serde_json::Value>),
    /// A behavior stack's recorded events (`choreo stack run --trace`), and its tree.
    StackReplay(StackShape, Vec<serde_json::Value>),
}

/// Starts the monitor for the behavior `graph` when asked, and prints its URL;
/// [`exit::USAGE`] when it cannot listen.
pub fn start(
    flags: &MonitorFlags,
    graph: &Graph,
    title: &str,
    model: Option<&str>,
    source: Source,
) -> Result<Option<Arc<Monitor>>, u8> {
    let Some(addr) = flags.monitor else {
        return Ok(None);
    };
    let mut options = MonitorOptions {
        addr,
        title: title.to_string(),
        model: model.map(str::to_string),
        control: flags.monitor_control,
        stack: None,
    };
    let started = match source {
        Source::Replay(events) => Monitor::replay(graph, events, options),
        Source::Stack(shape) => {
            options.stack = Some(shape);
            Monitor::start(graph, options)
        }
        Source::StackReplay(shape, events) => {
            options.stack = Some(shape);
            Monitor::replay(graph, events, options)
        }
        Source::Run => Monitor::start(graph, options),
    };
    let monitor = started.map_err(|e| {
        errln!("--monitor: {e}");
        exit::USAGE
    })?;
    if !addr.ip().is_loopback() {
        errln!(
            "warning: the monitor listens on {addr}, not only on this machine: anyone who has \
             the URL (its token) sees the run{}",
            if flags.monitor_control {
                " and can stimulate its boxes"
            } else {
                " and can stop it"
            }
        );
    }
    errln!("monitor: {}", monitor.url());
    Ok(Some(Arc::new(monitor)))
}

/// Hands every event of `trace` to `monitor`.
pub fn feed(monitor: &Arc<Monitor>, trace: &Trace) {
    let m = Arc::clone(monitor);
    trace.add_listener(Arc::new(move |e| m.publish(e)));
}

/// Carries out what pages asked; true when one asked to stop.
pub fn commands(receiver: &std::sync::mpsc::Receiver<Command>, engine: &Engine) -> bool {
    let mut stop = false;
    while let Ok(c) = receiver.try_recv() {
        match c {
            Command::Stop => stop = true,
            Command::Stimulate { path, input, value } => {
                let value = choreo_stack::conditions::json_value(&value);
                if let Err(e) = engine.stimulate(&path, &input, value) {
                    errln!("monitor: cannot stimulate {path}.{input}: {e}");
                }
            }
        }
    }
    stop
}

/// After the end: the page shows the outcome and `report`, and stays up for `keep`
/// seconds, or until Ctrl-C (one more than `interrupts` had when the run ended).
pub fn linger(
    monitor: &Monitor,
    outcome: &str,
    report: &str,
    keep: Option<f64>,
    interrupts: &AtomicUsize,
) {
    monitor.ended(outcome, report);
    let seen = interrupts.load(Ordering::SeqCst);
    match keep {
        Some(s) => errln!("monitor: {} stays up {s} s", monitor.url()),
        None => errln!("monitor: {} stays up; Ctrl-C quits", monitor.url()),
    }
    wait(keep, interrupts, seen);
    monitor.close();
}

/// Waits `keep` seconds, or until Ctrl-C (`interrupts` past `seen`) when `None`.
fn wait(keep: Option<f64>, interrupts: &AtomicUsize, seen: usize) {
    let until = keep.map(|s| Instant::now() + Duration::from_secs_f64(s.min(1e9)));
    while interrupts.load(Ordering::SeqCst) == seen && until.is_none_or(|u| Instant::now() < u) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `choreo replay TRACE BEHAVIOR`: the monitor of a recorded run, paused at its start, until
/// Ctrl-C (or `--monitor-keep` seconds); the exit code. A behavior stack's trace
/// (`choreo stack run --trace`: events with a `tick`, no `path`) replays with its folder.
pub fn replay(trace: &Path, path: &Path, behavior: Option<&str>, flags: &MonitorFlags) -> u8 {
    let events: Vec<serde_json::Value> = match crate::cli::trace_file::events(trace, |_, _| Ok(()))
    {
        Ok(e) => e.into_iter().map(|(_, v)| v).collect(),
        Err(code) => return code,
    };
    let flags = MonitorFlags {
        monitor: flags
            .monitor
            .or(Some(SocketAddr::from(([127, 0, 0, 1], 0)))),
        ..flags.clone()
    };
    let stack = events
        .first()
        .is_some_and(|e| e.get("tick").is_some() && e.get("path").is_none());
    let count = events.len();
    let replayed = if stack {
        stack_replay(path, &flags, events)
    } else {
        behavior_replay(path, behavior, &flags, events)
    };
    let (title, _monitor) = match replayed {
        Ok((title, Some(m))) => (title, m),
        Ok((_, None)) => return exit::USAGE,
        Err(code) => return code,
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
    exit::OK
}

/// What a replay shows: its title, and the monitor serving it.
type Replayed = Result<(String, Option<Arc<Monitor>>), u8>;

/// The monitor of a behavior stack's recorded `events`, its definitions in `dir`.
fn stack_replay(dir: &Path, flags: &MonitorFlags, events: Vec<serde_json::Value>) -> Replayed {
    let (defs, runner) = crate::cli::stack::load(dir, None)?;
    let xar = crate::cli::stack_run::driver_xar()?;
    let shape = crate::cli::stack_run::shape(&runner, &defs);
    let title = format!("stack {}", dir.display());
    let source = Source::StackReplay(shape, events);
    let monitor = start(flags, &Graph::new(&xar), &title, None, source)?;
    Ok((title, monitor))
}

/// The monitor of a behavior's recorded `events`.
fn behavior_replay(
    path: &Path,
    behavior: Option<&str>,
    flags: &MonitorFlags,
    events: Vec<serde_json::Value>,
) -> Replayed {
    let project = crate::cli::report::load(path, false)?;
    let behavior = crate::cli::report::pick_behavior(&project, path, behavior)?;
    // The robot the trace's joints are of, else the one the manifest asks for.
    let joints = events
        .iter()
        .filter(|e| e["event"] == "joints")
        .flat_map(|e| e["names"].as_array().into_iter().flatten())
        .filter_map(serde_json::Value::as_str);
    let model = choreo_robot::Model::from_joints(joints)
        .or_else(|| crate::cli::report::manifest_model(&project))
        .map(|m| m.name().to_lowercase());
    let graph = Graph::new(&behavior.xar);
    let source = Source::Replay(events);
    let monitor = start(flags, &graph, &behavior.name, model.as_deref(), source)?;
    Ok((behavior.name.clone(), monitor))
}
