//! `--monitor`: the live web page of a run (or a replay), served by choreo-monitor
//! (docs/monitor.md); the URL printed, a page's commands carried out, the page kept up after
//! the end.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::Trace;
use choreo_engine::graph::Graph;
use choreo_monitor::stack::StackShape;
use choreo_monitor::{Monitor, MonitorOptions};

use crate::monitored::Played;

use crate::cli::error::{CliError, CliResult};

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
    /// A live run, and the behaviors of its project its box code may run
    /// (`runBehavior`), each with its events' path prefix.
    Run(Played),
    /// A behavior stack's live run: the stack's tree, and the Choregraphe behaviors its
    /// leaves play (each with its events' path prefix).
    Stack(StackShape, Played),
    /// A recorded trace's events, and the behaviors of its project the run could play.
    Replay(Played, Vec<serde_json::Value>),
    /// A behavior stack's recorded events (`choreo stack run --trace`), its tree and the
    /// behaviors its leaves play.
    StackReplay(StackShape, Played, Vec<serde_json::Value>),
}

/// Starts the monitor for the behavior `graph` when asked, and prints its URL;
/// [`CliError::Usage`] when it cannot listen.
pub fn start(
    flags: &MonitorFlags,
    graph: &Graph,
    title: &str,
    model: Option<&str>,
    source: Source,
) -> CliResult<Option<Arc<Monitor>>> {
    let Some(addr) = flags.monitor else {
        return Ok(None);
    };
    let mut options = MonitorOptions {
        addr,
        title: title.to_string(),
        model: model.map(str::to_string),
        control: flags.monitor_control,
        edit: false,
        stack: None,
        played: Vec::new(),
    };
    let started = match source {
        Source::Replay(played, events) => {
            options.played = played;
            Monitor::replay(graph, events, options)
        }
        Source::Stack(shape, played) => {
            options.stack = Some(shape);
            options.played = played;
            Monitor::start(graph, options)
        }
        Source::StackReplay(shape, played, events) => {
            options.stack = Some(shape);
            options.played = played;
            Monitor::replay(graph, events, options)
        }
        Source::Run(played) => {
            options.played = played;
            Monitor::start(graph, options)
        }
    };
    let monitor = started.map_err(|e| CliError::Usage(format!("--monitor: {e}")))?;
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

/// Set once a monitor lingers after its run's end: nothing is left to unload, so the Ctrl-C
/// that ends the linger ends the command as the first did, not at once ([`lingering`]).
static LINGERING: AtomicBool = AtomicBool::new(false);

/// Whether a monitor lingers after its run's end (the Ctrl-C handler asks: a second Ctrl-C
/// during a run exits at once, which would leave the run's folders behind after it).
pub(crate) fn lingering() -> bool {
    LINGERING.load(Ordering::SeqCst)
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
    LINGERING.store(true, Ordering::SeqCst);
    let seen = interrupts.load(Ordering::SeqCst);
    match keep {
        Some(s) => errln!("monitor: {} stays up {s} s", monitor.url()),
        None => errln!("monitor: {} stays up; Ctrl-C quits", monitor.url()),
    }
    wait(keep, interrupts, seen);
    monitor.close();
}

/// Waits `keep` seconds, or until Ctrl-C (`interrupts` past `seen`) when `None`.
pub(crate) fn wait(keep: Option<f64>, interrupts: &AtomicUsize, seen: usize) {
    let until = keep.map(|s| Instant::now() + Duration::from_secs_f64(s.min(1e9)));
    while interrupts.load(Ordering::SeqCst) == seen && until.is_none_or(|u| Instant::now() < u) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Carries out what pages asked ([`crate::monitored::carry_out`]), saying on stderr what
/// could not be done; true when one asked to stop.
pub fn commands(
    receiver: &std::sync::mpsc::Receiver<choreo_monitor::Command>,
    engine: &choreo_engine::Engine,
    robot: Option<&choreo_naoqi::SimRobot>,
) -> bool {
    crate::monitored::carry_out(receiver, engine, robot, &mut |why| errln!("monitor: {why}"))
}
