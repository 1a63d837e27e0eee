//! `choreo run`: load a behavior, run it on the simulated robot (or a real one over qi), show
//! what the robot does, and report.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::clock::Time;
use choreo_engine::trace::{Event, Step};
use choreo_engine::{Engine, EngineError, Options, Outcome, Robot, ScriptHost, Trace};
use choreo_naoqi::{Model, RobotEvent, SimRobot};

use crate::exit;
use crate::joints::JointRecorder;
use crate::report;

/// What `choreo run` was asked to do.
pub struct RunArgs {
    /// The behavior: a .xar, project folder, .pml, .crg, .pkg or split folder.
    pub path: PathBuf,
    /// Which behavior of a project (its name); the first one by default.
    pub behavior: Option<String>,
    /// Virtual time: as fast as the machine goes, same trace as real time.
    pub fast: bool,
    /// Stop after this long (behavior time).
    pub timeout: Option<f64>,
    /// Write the trace as JSON Lines here.
    pub trace: Option<PathBuf>,
    /// `box/path/name=value` parameter overrides.
    pub params: Vec<String>,
    /// A scenario file injecting the world.
    pub events: Option<PathBuf>,
    /// An error in box code stops the behavior (exit 3).
    pub strict: bool,
    /// NAO or Pepper; `None`: what the package's manifest asks for, else NAO.
    pub model: Option<Model>,
    /// A real robot to run on instead of the simulated one.
    pub robot: Option<RobotArgs>,
    /// Only the report (no live output).
    pub quiet: bool,
}

/// How to reach a real robot.
pub struct RobotArgs {
    /// `tcp://HOST:PORT` or `tcps://HOST:PORT`.
    pub url: String,
    /// Authentication user (NAOqi 2.9).
    pub user: Option<String>,
    /// Authentication token (NAOqi 2.9).
    pub token: Option<String>,
    /// The SHA-256 fingerprint the robot's TLS certificate must have.
    pub pin: Option<String>,
}

impl RobotArgs {
    /// The session options these ask for.
    fn options(&self) -> Result<choreo_qi::SessionOptions, String> {
        let tls = match &self.pin {
            Some(pin) => choreo_qi::TlsVerify::Pinned(vec![
                pin.parse::<choreo_qi::Fingerprint>()
                    .map_err(|e| format!("--pin {pin}: {e}"))?,
            ]),
            None => choreo_qi::TlsVerify::AcceptAny,
        };
        Ok(choreo_qi::SessionOptions {
            user: self.user.clone(),
            token: self.token.clone(),
            tls,
            ..choreo_qi::SessionOptions::default()
        })
    }
}

/// How long `wait` blocks between looks at Ctrl-C and errors.
const POLL: Duration = Duration::from_millis(100);

/// What the live output and the report gather while the behavior runs.
#[derive(Default, Clone)]
struct Tally {
    errors: Vec<String>,
    boxes_run: std::collections::BTreeSet<String>,
    /// Robot calls per service (from the trace: the same for every robot).
    calls: BTreeMap<String, u64>,
    /// Robot calls that failed, per `Service.method`.
    failed_calls: BTreeMap<String, u64>,
    /// The behavior is destroyed (its first `del`): what box threads that outlive their
    /// box do afterwards is not the run's, and is not counted.
    over: bool,
}

/// Where the behavior runs.
enum Target {
    Sim(Arc<SimRobot>),
    Remote(Arc<choreo_qi::RemoteRobot>),
}

impl Target {
    fn robot(&self) -> Arc<dyn Robot> {
        match self {
            Target::Sim(r) => Arc::clone(r) as Arc<dyn Robot>,
            Target::Remote(r) => Arc::clone(r) as Arc<dyn Robot>,
        }
    }
}

/// Runs the behavior; returns the exit code.
pub fn run(args: &RunArgs) -> u8 {
    let project = match report::load(&args.path, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let behavior = match report::pick_behavior(&project, &args.path, args.behavior.as_deref()) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let model = args
        .model
        .or_else(|| report::manifest_model(&project))
        .unwrap_or(Model::Nao);
    let target = match &args.robot {
        None => {
            let robot = Arc::new(SimRobot::new(model));
            if let Some(file) = &args.events {
                match choreo_naoqi::Scenario::from_path(file) {
                    Ok(s) => robot.load_scenario(s),
                    Err(e) => {
                        errln!("{e}");
                        return exit::LOAD;
                    }
                }
            }
            Target::Sim(robot)
        }
        Some(_) if args.fast || args.events.is_some() => {
            errln!("--robot runs on a real robot: --fast and --events are for the simulated one");
            return exit::USAGE;
        }
        Some(robot) => {
            let options = match robot.options() {
                Ok(o) => o,
                Err(e) => {
                    errln!("{e}");
                    return exit::USAGE;
                }
            };
            match choreo_qi::RemoteRobot::connect(&robot.url, options) {
                Ok(r) => Target::Remote(Arc::new(r)),
                Err(e) => {
                    errln!("{}: cannot reach the robot: {e}", robot.url);
                    return exit::ROBOT;
                }
            }
        }
    };
    let trace = match &args.trace {
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Trace::unkept(Some(Box::new(std::io::BufWriter::new(f)))),
            Err(e) => {
                errln!("{}: cannot write the trace: {e}", file.display());
                return exit::WRITE;
            }
        },
        None => Trace::unkept(None),
    };
    let tally = Arc::new(Mutex::new(Tally::default()));
    let live = Live::new(args.quiet);
    {
        let tally = Arc::clone(&tally);
        let live = live.clone();
        let remote = matches!(target, Target::Remote(_));
        trace.set_listener(Arc::new(move |e: &Event| {
            on_trace_event(e, &tally, &live, remote);
        }));
    }
    // The simulated joints at every frame, into the trace written (`choreo plot --trace`).
    let joints = match (&target, &args.trace) {
        (Target::Sim(robot), Some(_)) => {
            Some(JointRecorder::new(SimRobot::clone(robot), trace.clone()))
        }
        _ => None,
    };
    let behavior_dir = behavior_folder(&args.path, &behavior.path);
    let host = script_host(&behavior_dir, &behavior.path, &project);
    let options = Options {
        virtual_time: args.fast,
        trace: trace.clone(),
        time_limit: args.timeout.map(Duration::from_secs_f64),
        robot: Some(target.robot()),
        strict: args.strict,
        // A real robot does not say which model it is: the resource groups of the model
        // asked for (or the manifest's) apply. The simulated robot gives its own.
        resources: Some(Arc::new(choreo_naoqi::resource_tree(model))),
        on_frame: joints.as_ref().map(JointRecorder::observer),
    };
    let engine = match Engine::load(&behavior.xar, host.as_ref(), options) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            errln!("{}: {e}", args.path.display());
            return load_exit(&e);
        }
    };
    if let Some(joints) = &joints {
        joints.bind(&engine, &behavior.xar);
    }
    for p in &args.params {
        if let Err(e) = set_param(&engine, p) {
            errln!("--param {p}: {e}");
            return exit::USAGE;
        }
    }
    if let Target::Sim(robot) = &target {
        let engine = Arc::clone(&engine);
        let live = live.clone();
        robot.set_observer(Arc::new(move |e: &RobotEvent| {
            live.robot_event(engine.now(), e);
        }));
    }
    let interrupts = Arc::new(AtomicUsize::new(0));
    {
        let interrupts = Arc::clone(&interrupts);
        // A second Ctrl-C forces the exit; the first asks for a clean stop (R4).
        let _ = ctrlc::set_handler(move || {
            if interrupts.fetch_add(1, Ordering::SeqCst) >= 1 {
                errln!("\ninterrupted again: exiting without unloading");
                std::process::exit(i32::from(exit::INTERRUPTED));
            }
        });
    }
    if !args.quiet {
        let on = match &args.robot {
            Some(robot) => format!("the robot at {}", robot.url),
            None => format!("a simulated {}", model.name()),
        };
        errln!(
            "running {} on {on} ({} time); Ctrl-C stops it",
            behavior.name,
            if args.fast { "virtual" } else { "real" }
        );
    }
    let started = Instant::now();
    engine.start();
    // The engine supervises the run (strict mode, the time limit, a lost robot); this loop
    // only turns Ctrl-C into a stop, and an interim outcome (idle, time limit) into a stop.
    let mut ending = Ending::Running;
    loop {
        let outcome = engine.wait(POLL);
        if outcome.is_final() {
            ending = ending.or(match outcome {
                Outcome::Finished => Ending::Finished,
                Outcome::Failed { .. } => Ending::Error,
                Outcome::RobotLost => Ending::Disconnected,
                Outcome::Crashed { .. } => Ending::Crashed,
                _ => Ending::Interrupted,
            });
            break;
        }
        if ending != Ending::Running {
            continue;
        }
        let why = if interrupts.load(Ordering::SeqCst) > 0 {
            Some(Ending::Interrupted)
        } else if outcome == Outcome::Idle {
            Some(Ending::Idle)
        } else if outcome == Outcome::TimeLimit {
            Some(Ending::Timeout)
        } else {
            None
        };
        if let Some(why) = why {
            engine.stop();
            ending = why;
        }
    }
    // Exact: when the run ended (a time limit, a stop, the end), not after the unload.
    let behavior_time = engine.ended_at().unwrap_or_else(|| engine.now());
    live.finish();
    if let Err(e) = trace.flush_writer() {
        errln!("cannot write the trace: {e}");
    }
    let tally = tally.lock().map(|t| t.clone()).unwrap_or_default();
    let unsupported = match &target {
        Target::Sim(robot) => robot.stats().unsupported,
        Target::Remote(_) => BTreeMap::new(),
    };
    print_report(
        ending,
        behavior_time,
        started.elapsed(),
        &tally,
        &unsupported,
    );
    match ending {
        Ending::Finished => exit::OK,
        Ending::Error | Ending::Crashed => exit::RUNTIME,
        Ending::Timeout | Ending::Idle => exit::TIMEOUT,
        Ending::Interrupted => exit::INTERRUPTED,
        Ending::Disconnected => exit::ROBOT,
        Ending::Running => exit::OK,
    }
}

/// Why the run ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    Running,
    Finished,
    /// `--strict` and an error in box code.
    Error,
    Timeout,
    /// Virtual time: nothing more can happen (the behavior waits for the world).
    Idle,
    Interrupted,
    /// `--robot`: the connection to the robot was lost.
    Disconnected,
    /// The engine's control thread panicked (a bug of choreo's); it unloaded what it could.
    Crashed,
}

impl Ending {
    fn or(self, other: Ending) -> Ending {
        if self == Ending::Running { other } else { self }
    }
}

/// `box/path/name=value`: the box path as in the trace (`root/Say`), `root/` optional.
fn set_param(engine: &Engine, spec: &str) -> Result<(), String> {
    let (target, value) = spec.split_once('=').ok_or("expected box/path/name=value")?;
    let (path, name) = target
        .rsplit_once('/')
        .ok_or("expected box/path/name=value")?;
    let root = engine
        .graph()
        .node(choreo_engine::graph::Graph::ROOT)
        .path
        .clone();
    let full = if path == root || path.starts_with(&format!("{root}/")) {
        path.to_string()
    } else {
        format!("{root}/{path}")
    };
    engine
        .set_parameter(&full, name, value)
        .map_err(|e| e.to_string())
}

/// The exit code for a behavior that could not be loaded: [`exit::LOAD`] whatever the
/// reason (a box that cannot be constructed, a thread that cannot start, the time limit).
/// Every kind is listed so that a new one is given its code on purpose.
fn load_exit(error: &EngineError) -> u8 {
    match error {
        EngineError::Construct { .. } | EngineError::Thread { .. } => exit::LOAD,
        // `--timeout` bounds the whole run, box construction included.
        EngineError::LoadTimeLimit { .. } => exit::TIMEOUT,
        // Not load errors (commands to a loaded engine); counted as such should one appear.
        EngineError::NoBox { .. }
        | EngineError::NoInput { .. }
        | EngineError::NoOutput { .. }
        | EngineError::NoParameter { .. } => exit::LOAD,
    }
}

/// The folder a behavior's scripts see as `behaviorAbsolutePath()`: on disk for a folder or
/// a file; for an archive (read in memory), a path named after it.
fn behavior_folder(input: &Path, behavior_file: &str) -> PathBuf {
    let base = if input.is_dir() {
        input.to_path_buf()
    } else {
        input.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    match Path::new(behavior_file).parent() {
        Some(p) if input.is_dir() => base.join(p),
        _ => base,
    }
}

/// The script host for box code: Python scripts in the embedded CPython.
fn script_host(
    behavior_dir: &Path,
    behavior_file: &str,
    project: &choreo_xar::source::Project,
) -> Box<dyn ScriptHost> {
    let options = choreo_python::PythonOptions {
        behavior_path: behavior_dir.display().to_string(),
        package_uid: project
            .manifest
            .as_ref()
            .and_then(|m| m.uuid.clone())
            .unwrap_or_default(),
        behavior_relative_path: Path::new(behavior_file)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    Box::new(choreo_python::PythonHost::new(options))
}

fn on_trace_event(e: &Event, tally: &Mutex<Tally>, live: &Live, remote: bool) {
    if let Ok(mut t) = tally.lock() {
        if t.over {
            return;
        }
        if e.step == Step::Del {
            t.over = true;
        }
    }
    match &e.step {
        Step::Call { hook } if hook.starts_with("onInput_") => {
            if let Ok(mut t) = tally.lock()
                && !t.boxes_run.contains(&e.path)
            {
                t.boxes_run.insert(e.path.clone());
            }
        }
        Step::Err { hook, text } => {
            let line = format!("{} {hook}: {text}", e.path);
            live.line(Time(e.time_ns), &format!("error in {line}"));
            if let Ok(mut t) = tally.lock() {
                t.errors.push(line);
            }
        }
        Step::Log { level, message } => {
            live.line(Time(e.time_ns), &format!("{level} {}: {message}", e.path));
        }
        Step::RobotCall { method, args } => {
            if let Ok(mut t) = tally.lock() {
                let service = method.split('.').next().unwrap_or_default();
                *t.calls.entry(service.to_string()).or_default() += 1;
            }
            // The simulated robot says what it does; a real one is shown its calls.
            if remote {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                live.line(
                    Time(e.time_ns),
                    &format!("calls {method}({})", args.join(", ")),
                );
            }
        }
        Step::RobotReturn { method, ok: false } => {
            if let Ok(mut t) = tally.lock() {
                *t.failed_calls.entry(method.clone()).or_default() += 1;
            }
        }
        Step::Frame { frame } => live.frame(&e.path, *frame),
        _ => {}
    }
}

/// Live human output on stderr: what the robot does, errors, and a progress line while a
/// timeline plays. Quiet: nothing.
#[derive(Clone)]
pub(crate) struct Live {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl Live {
    pub(crate) fn new(quiet: bool) -> Live {
        let bar = (!quiet).then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar
        });
        Live { quiet, bar }
    }

    pub(crate) fn line(&self, at: Time, text: &str) {
        if self.quiet {
            return;
        }
        let line = format!("{:>8.2}s  {text}", at.as_secs_f64());
        match &self.bar {
            Some(bar) if !bar.is_hidden() => bar.println(line),
            _ => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    }

    fn frame(&self, timeline: &str, frame: i64) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{timeline}: frame {frame}"));
            bar.tick();
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    pub(crate) fn robot_event(&self, at: Time, e: &RobotEvent) {
        let text = match e {
            RobotEvent::Said { text, duration } => format!("says {text:?} ({duration:.1} s)"),
            RobotEvent::SpeechInterrupted { text } => format!("stops saying {text:?}"),
            RobotEvent::PostureChanged { posture } => format!("posture: {posture}"),
            RobotEvent::MotionStarted {
                method,
                joints,
                duration,
            } => format!(
                "moves {} ({method}, {duration:.1} s)",
                joint_summary(joints)
            ),
            RobotEvent::StiffnessChanged { joints, stiffness } => {
                format!("stiffness {stiffness:.1} on {}", joint_summary(joints))
            }
            RobotEvent::MoveStarted { method, target } => match target {
                Some([x, y, t]) => format!("walks to x {x:.2} m, y {y:.2} m, θ {t:.2} ({method})"),
                None => format!("walks ({method})"),
            },
            RobotEvent::Moved { position } => format!(
                "stands at x {:.2} m, y {:.2} m, θ {:.2}",
                position[0], position[1], position[2]
            ),
            RobotEvent::LedsChanged {
                group,
                rgb,
                duration,
            } => format!(
                "LEDs {group} -> #{:02x}{:02x}{:02x} ({duration:.1} s)",
                channel(rgb[0]),
                channel(rgb[1]),
                channel(rgb[2])
            ),
            RobotEvent::SoundPlayed { file, duration } => match duration {
                Some(d) => format!("plays {file} ({d:.1} s)"),
                None => format!("plays {file} (looping)"),
            },
            RobotEvent::SoundStopped { file } => format!("stops {file}"),
            // A service's own bookkeeping keys (ALTextToSpeech/TextDone, ...) say nothing new.
            RobotEvent::MemoryEvent { key, .. } if key.starts_with("AL") && key.contains('/') => {
                return;
            }
            RobotEvent::MemoryEvent { key, value } => format!("ALMemory {key} = {value}"),
            RobotEvent::TaskStopped {
                service, method, ..
            } => format!("{service}.{method} stopped"),
            RobotEvent::Unsupported {
                service,
                method,
                signature,
            } => format!("unsupported call {service}.{method}{signature}"),
            RobotEvent::CallFailed {
                service,
                method,
                error,
            } => format!("{service}.{method} failed: {error}"),
            RobotEvent::ScriptError { message } => format!("script error: {message}"),
            RobotEvent::Log {
                level,
                source,
                message,
            } => format!("log [{level}] {source}: {message}"),
            RobotEvent::Notice { service, text } => format!("{service}: {text}"),
        };
        self.line(at, &text);
    }
}

fn channel(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn joint_summary(joints: &[String]) -> String {
    match joints.len() {
        0 => "no joint".to_string(),
        1..=3 => joints.join(", "),
        n => format!("{n} joints"),
    }
}

fn print_report(
    ending: Ending,
    behavior_time: Time,
    real: Duration,
    tally: &Tally,
    unsupported: &BTreeMap<String, u64>,
) {
    let how = match ending {
        Ending::Finished | Ending::Running => "finished",
        Ending::Error => "stopped: error in box code (--strict)",
        Ending::Timeout => "stopped: timeout",
        Ending::Idle => "stopped: waiting for events that never came (nothing left to do)",
        Ending::Interrupted => "stopped: interrupted",
        Ending::Disconnected => "stopped: the robot disconnected",
        Ending::Crashed => "stopped: the engine crashed (a bug of choreo's; please report it)",
    };
    outln!("run report");
    outln!("  outcome        {how}");
    outln!(
        "  duration       {:.2} s behavior time, {:.2} s real time",
        behavior_time.as_secs_f64(),
        real.as_secs_f64()
    );
    outln!("  boxes run      {}", tally.boxes_run.len());
    print_counts("robot calls", &tally.calls);
    print_counts("unsupported", unsupported);
    print_counts("failed calls", &tally.failed_calls);
    outln!("  errors         {}", tally.errors.len());
    for e in &tally.errors {
        let first = e.lines().next().unwrap_or_default();
        outln!("    {first}");
    }
}

fn print_counts(title: &str, counts: &BTreeMap<String, u64>) {
    if counts.is_empty() && title != "robot calls" {
        return;
    }
    let total: u64 = counts.values().sum();
    outln!("  {title:<14} {total}");
    for (m, n) in counts {
        outln!("    {m:<24} {n}");
    }
}
