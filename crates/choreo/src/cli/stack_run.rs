//! `choreo stack run DIR`: a stack of JSON definitions run against the simulated robot.
//!
//! The stack is driven by a behavior of one native box (`Stack`), run by an engine as
//! `choreo run` runs any behavior. The box's `onStart` hook ticks the runner every period
//! and sleeps on the engine's clock in between. So `--fast` (virtual time), `--timeout`, the
//! robot's durations, the scenario's events and the Choregraphe behaviors the stack plays
//! (nested runs of that engine, started through the robot's ALBehaviorManager) all share one
//! time. The engine knows nothing of the stack.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::nested::{Launchers, ProjectBehaviors};
use choreo_base::lock;
use choreo_engine::clock::Time;
use choreo_engine::{Engine, NativeHost, Options, Outcome, Robot, Trace, Value};
use choreo_naoqi::{BehaviorLauncher, Model, RobotEvent, SimRobot};
use choreo_stack::definition::{Definition, Spec, load_dir};
use choreo_stack::robot::PlayChoregraphe;
use choreo_stack::trace::{Event, Record};
use choreo_stack::{Behavior, Classes, DefinitionError, Runner, Tick};
use choreo_xar::source::{FilesOnDisk, Project};

use crate::cli::args::{ModelArg, RobotArgs, RobotFlags, timeout_secs};
use crate::cli::error::{CliError, CliResult};
use crate::cli::fold::Line;
use crate::cli::live::{Kind, Live, Verbosity};
use crate::cli::monitor::{MonitorFlags, Played, Source};
use crate::cli::report;
use crate::cli::run::Target;
use crate::exit;
use choreo_monitor::stack::{StackNode, StackShape};

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
}

/// A Choregraphe behavior a `PlayChoregraphe` leaf plays: loaded, its files on disk, and the
/// name it is installed under on the simulated robot.
pub(crate) struct Installed {
    name: String,
    project: Arc<Project>,
    index: usize,
    files: FilesOnDisk,
}

impl Installed {
    /// The prefix of its events' paths (`Dance:` for `Dance:root/Say`).
    fn prefix(&self) -> String {
        format!("{}:", self.name.trim_start_matches("stack/"))
    }
}

/// The behaviors the stack's leaves play, as the monitor draws them.
pub(crate) fn played(installed: &[Installed]) -> Played {
    installed
        .iter()
        .filter_map(|i| {
            let b = i.project.behaviors.get(i.index)?;
            Some((
                i.prefix(),
                Arc::new(choreo_engine::graph::Graph::new(&b.xar)),
            ))
        })
        .collect()
}

/// The behavior that drives the stack: a root holding the native box `Stack`, started by the
/// root and stopping it.
const DRIVER: &str = r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Stack" id="1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
</Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#;

/// The driver behavior, read ([`exit::RUNTIME`] if it does not read: a bug of choreo's).
pub(crate) fn driver_xar() -> CliResult<choreo_xar::XarFile> {
    choreo_xar::read_xar("stack.xar", DRIVER.as_bytes())
        .map(|x| x.value)
        .map_err(|e| {
            CliError::Runtime(format!(
                "internal error: the driver behavior does not read: {e}"
            ))
        })
}

/// The first ALMemory subscription id of the driver (far from the engine's own).
const SUBSCRIPTIONS: u64 = 0x5354_4143_0000_0000;

/// Runs the stack: loaded, watched, driven to its end, reported.
pub fn run(args: &StackRunArgs) -> CliResult {
    let robots = args.remote.args().map_err(CliError::Usage)?;
    if robots.len() > 1 {
        return Err(CliError::Usage(
            "stack run drives one robot: give one --robot".to_string(),
        ));
    }
    let asked = Asked {
        args,
        robot: robots.into_iter().next(),
        model: args.robot_model.map_or(Model::Nao, ModelArg::model),
        verbosity: Verbosity::from_flags(args.quiet, args.verbose),
    };
    let Loaded {
        defs,
        target,
        robot,
        resources,
        engine_trace,
        mut runner,
        period,
        played,
    } = load(&asked)?;
    let xar = driver_xar()?;
    let live = Live::new(asked.verbosity);
    runner.add_listener(live_listener(live.clone(), period, asked.verbosity));
    {
        // What the played behaviors' boxes log, and their errors, as `choreo run` shows them.
        let live = live.clone();
        engine_trace.add_listener(Arc::new(move |e| {
            crate::cli::run::show_box_event(&live, "", e);
        }));
    }
    // `--trace`: the stack's events and, between them, the played behaviors' and what the
    // robot showed (as `choreo run --trace` writes them), so that a replay shows both.
    let trace_file = match &args.trace {
        Some(file) => {
            let f = std::fs::File::create(file).map_err(|e| {
                CliError::Write(format!("{}: cannot write the trace: {e}", file.display()))
            })?;
            let out: TraceFile = Arc::new(Mutex::new(std::io::BufWriter::new(f)));
            // The first line says which robot it ran on (docs/trace.md): a replay draws it.
            let header = serde_json::json!({
                "event": "run", "time_ns": 0, "path": "",
                "clock": if args.fast { "virtual" } else { "real" },
                "model": asked.model.name().to_lowercase(),
            });
            let _ = writeln!(lock(&out), "{header}");
            runner.add_listener(json_lines(Arc::clone(&out), period));
            engine_trace.add_listener(engine_lines(Arc::clone(&out)));
            Some(out)
        }
        None => None,
    };
    let monitor = crate::cli::monitor::start(
        &args.monitor,
        &choreo_engine::graph::Graph::new(&xar),
        &format!("stack {}", args.dir.display()),
        Some(&asked.model.name().to_lowercase()),
        Source::Stack(shape(&runner, &defs), played),
    )?;
    if let Some(m) = &monitor {
        crate::cli::monitor::feed(m, &engine_trace);
        let m = Arc::clone(m);
        let tick = period;
        runner.add_listener(Box::new(move |r: &Record, names: &[String]| {
            m.publish_stack(record_json(r, names, tick));
        }));
    }
    let commands = monitor.as_ref().and_then(|m| m.commands());
    let driver = Arc::new(Driver {
        runner: Mutex::new(Some(runner)),
        stop: AtomicBool::new(false),
        period,
        ended: Mutex::new(None),
    });
    let options = Options {
        virtual_time: args.fast,
        trace: engine_trace.clone(),
        time_limit: args.timeout.map(Duration::from_secs_f64),
        robot: Some(Arc::clone(&robot)),
        resources: Some(resources),
        ..Options::default()
    };
    let engine = Arc::new(load_driver(&xar, &driver, options)?);
    let mut sampler = None;
    if let Target::Sim(sim) = &target {
        let live = live.clone();
        let now = Arc::downgrade(&engine);
        let (shows, shown) = (engine_trace.clone(), SimRobot::clone(sim));
        sim.set_observer(Arc::new(move |e: &RobotEvent| {
            let at = now.upgrade().map_or(Time(0), |engine| engine.now());
            live.robot_event(at, e);
            crate::looks::record(&shows, &shown, at, e);
        }));
        if monitor.is_some() {
            sampler = crate::looks::Sampler::start(SimRobot::clone(sim), engine_trace.clone());
        }
    }
    let interrupts = crate::cli::run::count_interrupts();
    if asked.verbosity != Verbosity::Quiet {
        let on = match &asked.robot {
            Some(robot) => format!("the robot at {}", robot.url),
            None => format!("a simulated {}", asked.model.name()),
        };
        errln!(
            "running the stack {} on {on} ({} time, a tick every {} ms); Ctrl-C stops it",
            args.dir.display(),
            if args.fast { "virtual" } else { "real" },
            args.tick_ms
        );
    }
    let started = Instant::now();
    engine.start();
    let (outcome, stopped_for) = drive(&engine, &live, commands.as_ref(), &interrupts);
    if let Target::Sim(sim) = &target {
        sim.stop_behaviors();
        sim.set_launcher(None);
    }
    let time = engine.ended_at().unwrap_or_else(|| engine.now());
    drop(engine);
    live.finish();
    let (code, report) = report(&driver, &outcome, stopped_for, time, started);
    errln!("{report}");
    drop(sampler);
    if let Some(out) = trace_file {
        // The played behaviors' last events are not followed by a stack event that flushes.
        let _ = lock(&out).flush();
    }
    if let Some(m) = monitor {
        let outcome = match code {
            exit::OK => "finished",
            exit::INTERRUPTED => "stopped",
            exit::TIMEOUT => "time limit",
            _ => "error",
        };
        let keep = args.monitor.monitor_keep;
        crate::cli::monitor::linger(&m, outcome, &report, keep, &interrupts);
    }
    Ok(code)
}

/// What `choreo stack run` was asked, its flags read.
struct Asked<'a> {
    args: &'a StackRunArgs,
    /// The real robot to run on; none: the simulated one.
    robot: Option<RobotArgs>,
    model: Model,
    verbosity: Verbosity,
}

/// The stack loaded, on its robot, not yet driven.
struct Loaded {
    defs: Vec<Definition>,
    target: Target,
    robot: Arc<dyn Robot>,
    resources: Arc<choreo_engine::resource::ResourceTree>,
    /// The trace of the driver's engine (and of the behaviors the stack plays).
    engine_trace: Trace,
    runner: Runner,
    /// The behaviors the leaves play, for the monitor.
    played: Played,
    period: Duration,
}

/// Loads the definitions and the behaviors their leaves play, reaches the robot (or makes
/// the simulated one) and builds the runner.
fn load(asked: &Asked<'_>) -> CliResult<Loaded> {
    let args = asked.args;
    let defs = load_dir(&args.dir).map_err(|e| CliError::Load(e.to_string()))?;
    let installed = install(&args.dir, &defs, asked.verbosity)?;
    let scenario = report::load_scenario(args.events.as_deref())?;
    let target = match &asked.robot {
        None => {
            let sim = Arc::new(SimRobot::new(asked.model));
            if let Some(s) = scenario {
                sim.load_scenario(s);
            }
            Target::Sim(sim)
        }
        Some(_) if args.fast || args.events.is_some() => {
            return Err(CliError::Usage(
                "--robot runs on a real robot: --fast and --events are for the simulated one"
                    .to_string(),
            ));
        }
        Some(_) if !installed.is_empty() => {
            return Err(CliError::Usage(
                "--robot: a PlayChoregraphe leaf with a path needs the simulated robot; on a \
                 real robot, name a behavior installed on it (\"installed\")"
                    .to_string(),
            ));
        }
        Some(remote) => remote.connect()?,
    };
    let robot: Arc<dyn Robot> = target.robot();
    let resources = Arc::new(choreo_naoqi::resource_tree(asked.model));
    let engine_trace = Trace::unkept(None);
    let weak: Weak<dyn Robot> = Arc::downgrade(&robot);
    let launchers: Vec<Arc<dyn BehaviorLauncher>> = installed
        .iter()
        .map(|i| {
            Arc::new(
                ProjectBehaviors::new(
                    Arc::clone(&i.project),
                    i.files.path().to_path_buf(),
                    engine_trace.clone(),
                    weak.clone(),
                    false,
                    Arc::clone(&resources),
                )
                .named(vec![(i.name.clone(), i.index)])
                // `Dance:root/Say`: the leaf's events say whose they are.
                .prefixed(i.prefix()),
            ) as Arc<dyn BehaviorLauncher>
        })
        .collect();
    if let Target::Sim(sim) = &target {
        sim.set_launcher(Some(Arc::new(Launchers(launchers))));
    }
    let period = Duration::from_millis(args.tick_ms);
    let runner = classes(&args.dir, &installed)
        .build(
            &defs,
            args.base.as_deref(),
            choreo_stack::Options {
                period,
                budget: Some(period),
                robot: Some(Arc::clone(&robot)),
                ..choreo_stack::Options::default()
            },
        )
        .map_err(|e| CliError::Load(e.to_string()))?;
    Ok(Loaded {
        defs,
        target,
        robot,
        resources,
        engine_trace,
        runner,
        period,
        // Only drawn by a monitor: no graph built for a run without one.
        played: match args.monitor.monitor {
            Some(_) => played(&installed),
            None => Vec::new(),
        },
    })
}

/// The engine of the driver behavior, its `Stack` box ticking `driver`'s runner.
fn load_driver(
    xar: &choreo_xar::XarFile,
    driver: &Arc<Driver>,
    options: Options,
) -> CliResult<Engine> {
    let host = {
        let start = Arc::clone(driver);
        let unload = Arc::clone(driver);
        NativeHost::new().with("Stack", move |hook, ctx| {
            match hook.script_name().as_str() {
                "onInput_onStart" => start.drive(ctx),
                "onUnload" => unload.stop.store(true, Ordering::SeqCst),
                _ => {}
            }
            Ok(())
        })
    };
    Engine::load(xar, &host, options).map_err(|e| {
        CliError::Runtime(format!(
            "internal error: the driver behavior does not load: {e}"
        ))
    })
}

/// Waits for the engine's end, stopping it at Ctrl-C, the page's stop, the time limit or
/// idleness: the final outcome, and the exit code of the stop, if one was made.
fn drive(
    engine: &Engine,
    live: &Live,
    commands: Option<&std::sync::mpsc::Receiver<choreo_monitor::Command>>,
    interrupts: &std::sync::atomic::AtomicUsize,
) -> (Outcome, Option<u8>) {
    let mut stopped_for = None;
    let outcome = loop {
        let outcome = engine.wait(Duration::from_millis(100));
        live.tick(engine.now());
        if outcome.is_final() {
            break outcome;
        }
        if stopped_for.is_some() {
            continue;
        }
        let page_stop = commands.is_some_and(|c| crate::cli::monitor::commands(c, engine));
        stopped_for = if interrupts.load(Ordering::SeqCst) > 0 || page_stop {
            Some(exit::INTERRUPTED)
        } else if matches!(outcome, Outcome::TimeLimit | Outcome::Idle) {
            Some(exit::TIMEOUT)
        } else {
            None
        };
        if stopped_for.is_some() {
            engine.stop();
        }
    };
    (outcome, stopped_for)
}

/// The exit code of the run, and its report line.
fn report(
    driver: &Driver,
    outcome: &Outcome,
    stopped_for: Option<u8>,
    time: Time,
    started: Instant,
) -> (u8, String) {
    let ended = choreo_base::lock(&driver.ended).take();
    let ticks = choreo_base::lock(&driver.runner)
        .as_ref()
        .map_or(0, Runner::tick_count);
    let code = match (stopped_for, &ended, outcome) {
        (_, Some(Err(_)), _) => exit::LOAD,
        (_, _, Outcome::RobotLost) => exit::ROBOT,
        (Some(code), _, _) => code,
        (None, _, Outcome::Finished) => exit::OK,
        (None, _, _) => exit::RUNTIME,
    };
    let why = match (&ended, stopped_for) {
        (Some(Err(e)), _) => format!("could not start: {e}"),
        (_, Some(exit::INTERRUPTED)) => "interrupted (the stack cancelled top-down)".into(),
        (_, Some(_)) => "stopped at the time limit (the stack cancelled top-down)".into(),
        (Some(Ok(())), None) => "finished (the stack emptied)".into(),
        (None, None) => format!("ended: {outcome:?}"),
    };
    let report = format!(
        "stack {why}: {ticks} ticks, {:.2} s of stack time in {:.2} s real time",
        time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    (code, report)
}

/// The stack's behaviors and their delegates, for the monitor's Stack view.
pub(crate) fn shape(runner: &Runner, defs: &[Definition]) -> StackShape {
    let names = runner.names();
    let name = |b: &choreo_stack::BehaviorId| names.get(b.index()).cloned().unwrap_or_default();
    let behaviors = (0..names.len())
        .filter_map(|i| {
            let b = runner.id(names.get(i)?)?;
            let n = name(&b);
            let class = defs
                .iter()
                .find(|d| d.id == n || n.ends_with(&format!("/@{}", d.id)))
                .map_or_else(String::new, |d| d.class.clone());
            Some(StackNode {
                class,
                delegates: runner.delegates_of(b).iter().map(&name).collect(),
                name: n,
            })
        })
        .collect();
    StackShape {
        base: name(&runner.base()),
        behaviors,
    }
}

/// The behavior time of tick `tick` (tick 1 at 0).
fn tick_time(period: Duration, tick: u64) -> Time {
    Time(
        u64::try_from(period.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_mul(tick.saturating_sub(1)),
    )
}

/// The runner, owned by the driver box's hook while it runs.
struct Driver {
    runner: Mutex<Option<Runner>>,
    /// Set by the box's `onUnload` (a stop, the time limit, Ctrl-C).
    stop: AtomicBool,
    period: Duration,
    /// How the stack ended: `Ok` it emptied or was cancelled, `Err` it could not start.
    ended: Mutex<Option<Result<(), String>>>,
}

impl Driver {
    /// Ticks the stack every period of the engine's clock until it finishes or the box is
    /// unloaded, then fires the box's `onStopped`.
    fn drive(&self, ctx: &choreo_engine::BoxContext) {
        let Some(mut runner) = choreo_base::lock(&self.runner).take() else {
            return;
        };
        let subscribed = subscribe(&runner, ctx);
        let period = u64::try_from(self.period.as_nanos())
            .unwrap_or(u64::MAX)
            .max(1);
        let start = ctx.now().0;
        let mut n: u64 = 0;
        let result = loop {
            if self.stop.load(Ordering::SeqCst) {
                runner.cancel_all();
                break Ok(());
            }
            match runner.tick() {
                Ok(Tick::Running) => {}
                Ok(Tick::Finished) => break Ok(()),
                Err(e) => break Err(e.to_string()),
            }
            n += 1;
            let now = ctx.now().0;
            // Two periods or more behind: skip ahead rather than burst (§11).
            if now.saturating_sub(start) / period > n + 1 {
                n = now.saturating_sub(start) / period;
            }
            ctx.activity()
                .sleep_until(Time(start.saturating_add(n.saturating_mul(period))));
        };
        if let Some(robot) = ctx.robot() {
            for id in subscribed {
                robot.unsubscribe(id);
            }
        }
        *choreo_base::lock(&self.ended) = Some(result);
        *choreo_base::lock(&self.runner) = Some(runner);
        let _ = ctx.fire("onStopped", Value::None);
    }
}

/// Subscribes to every input the stack's behaviors and conditions watch (ALMemory keys and
/// events of the robot), each update posted to the stack's inbox; the subscription ids.
fn subscribe(runner: &Runner, ctx: &choreo_engine::BoxContext) -> Vec<u64> {
    let Some(robot) = ctx.robot() else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for (i, name) in runner.input_names().into_iter().enumerate() {
        let inbox = runner.inbox();
        let id = SUBSCRIPTIONS + i as u64;
        let sink = Arc::new(move |key: &str, value: Value| inbox.post(key, value));
        match robot.subscribe(&name, id, sink) {
            Ok(()) => ids.push(id),
            Err(e) => ctx.log("warning", &format!("cannot watch {name}: {e}")),
        }
    }
    ids
}

/// Loads the Choregraphe behaviors the `PlayChoregraphe` leaves name by `path` (relative to
/// the stack's folder; `behaviorName` picks one of a project's behaviors).
pub(crate) fn install(
    dir: &Path,
    defs: &[Definition],
    verbosity: Verbosity,
) -> CliResult<Vec<Installed>> {
    let mut out = Vec::new();
    for def in defs.iter().filter(|d| d.class == "PlayChoregraphe") {
        let Some(path) = def.keys.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        let path = dir.join(path);
        let project = Arc::new(
            report::load_shown(&path, false, verbosity).map_err(|e| e.recoded(CliError::Load))?,
        );
        let picked = def.keys.get("behaviorName").and_then(|n| n.as_str());
        let behavior = report::pick_behavior(&project, &path, picked)
            .map_err(|e| e.recoded(CliError::Load))?;
        let index = project
            .behaviors
            .iter()
            .position(|b| std::ptr::eq(b, behavior))
            .unwrap_or(0);
        let files = project
            .on_disk()
            .map_err(|e| CliError::Load(format!("{}: {e}", path.display())))?;
        out.push(Installed {
            name: installed_name(def),
            project,
            index,
            files,
        });
    }
    Ok(out)
}

/// The name a `PlayChoregraphe` leaf's behavior is installed under on the simulated robot.
fn installed_name(def: &Definition) -> String {
    match &def.owner {
        Some(owner) => format!("stack/{owner}/@{}", def.id),
        None => format!("stack/{}", def.id),
    }
}

/// The built-in classes, with `PlayChoregraphe` also taking a `path` (installed here), and
/// `Python`: a class of a `.py` file of the stack's folder (`file`, `class`, `params`).
pub(crate) fn classes(dir: &Path, installed: &[Installed]) -> Classes {
    let mut classes = Classes::builtin();
    let folder = dir.to_path_buf();
    classes.register(
        "Python",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let file = folder.join(spec.string("file")?);
                let class = spec.string("class")?;
                let params = spec
                    .get("params")
                    .map_or(Value::None, choreo_stack::conditions::json_value);
                if !matches!(params, Value::None | Value::Map(_)) {
                    return Err(spec.error("params", "must be an object (keyword arguments)"));
                }
                choreo_python::stack::PythonBehavior::load(&file, &class, &params)
                    .map(|b| Box::new(b) as Box<dyn Behavior>)
                    .map_err(|e| spec.error("file", e.to_string()))
            },
        ),
    );
    let names: HashSet<String> = installed.iter().map(|i| i.name.clone()).collect();
    classes.register(
        "PlayChoregraphe",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let name = if spec.get("path").is_some() {
                    let _ = spec.get("behaviorName");
                    let name = installed_name(spec.definition());
                    if !names.contains(&name) {
                        return Err(spec.error("path", "was not loaded"));
                    }
                    name
                } else {
                    spec.string("installed")?
                };
                Ok(Box::new(PlayChoregraphe::new(&name)))
            },
        ),
    );
    classes
}

/// Live lines for the stack: what is pushed and popped and by whom, what behaviors log (a
/// dispatcher says why it chose a child), how delegations and actions ended, ticks over
/// budget; with `-v`, every event.
fn live_listener(
    live: Live,
    period: Duration,
    verbosity: Verbosity,
) -> choreo_stack::trace::Listener {
    let mut stack: Vec<String> = Vec::new();
    // Who delegated to a behavior about to be pushed.
    let mut chosen_by: std::collections::HashMap<String, String> = Default::default();
    Box::new(move |r: &Record, names: &[String]| {
        let n = |b: &choreo_stack::BehaviorId| names.get(b.index()).cloned().unwrap_or_default();
        let at = tick_time(period, r.tick);
        let text = match &r.event {
            Event::Push { b } => {
                stack.push(n(b));
                let why = match chosen_by.remove(&n(b)) {
                    Some(by) => format!(" (delegated by {by})"),
                    None => String::new(),
                };
                Some(format!("stack: {}{why}", stack.join(" > ")))
            }
            Event::Pop { b } => {
                if stack.last() == Some(&n(b)) {
                    stack.pop();
                }
                Some(format!(
                    "stack: {} (popped {})",
                    if stack.is_empty() {
                        "empty".to_string()
                    } else {
                        stack.join(" > ")
                    },
                    n(b)
                ))
            }
            Event::Delegate {
                from,
                to,
                result: Ok(()),
                ..
            } => {
                chosen_by.insert(n(to), n(from));
                None
            }
            Event::Callback { b, payload, .. } => {
                Some(format!("{}: its delegation ended: {payload}", n(b)))
            }
            Event::ActionDone { owner, tag, result } => {
                Some(format!("{}: {tag} done: {result}", n(owner)))
            }
            Event::Log { b, level, text } if level == "error" => {
                live.line(at, Kind::Error, Line::plain(format!("{}: {text}", n(b))));
                None
            }
            Event::Log { b, text, .. } => Some(format!("{}: {text}", n(b))),
            Event::TickOverrun { .. } => {
                Some(choreo_stack::trace::describe(r, names).trim().to_string())
            }
            _ if verbosity == Verbosity::Verbose => {
                Some(choreo_stack::trace::describe(r, names).trim().to_string())
            }
            _ => None,
        };
        if let Some(t) = text {
            live.line(at, Kind::Info, Line::plain(t));
        }
    })
}

/// The `--trace` file, written by the stack's listener and the engines' trace.
type TraceFile = Arc<Mutex<std::io::BufWriter<std::fs::File>>>;

/// A listener writing each stack event as a JSON line, the behaviors named, with its tick's
/// time (ticks every `period`); flushed at each, so that a stack cut short keeps its trace.
fn json_lines(out: TraceFile, period: Duration) -> choreo_stack::trace::Listener {
    Box::new(move |r: &Record, names: &[String]| {
        let value = record_json(r, names, period);
        let mut out = lock(&out);
        // A trace that cannot be written must not stop the stack.
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    })
}

/// A listener writing each event of the engines (the driver's, the played behaviors', what
/// the robot shows) as `choreo run --trace` does: a line with `seq` and `path`, no `tick`.
fn engine_lines(out: TraceFile) -> choreo_engine::trace::Listener {
    Arc::new(move |e: &choreo_engine::trace::Event| {
        if let Ok(line) = serde_json::to_string(e) {
            let _ = writeln!(lock(&out), "{line}");
        }
    })
}

/// A stack event as JSON, each behavior index (`b`, `from`, `to`, `by`, `owner`, `base`)
/// replaced by its name, with `time_ns`, its tick's time (ticks every `period`): a line of
/// `--trace`, an event of the monitor.
fn record_json(r: &Record, names: &[String], period: Duration) -> serde_json::Value {
    let mut value = serde_json::to_value(r).unwrap_or_default();
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("time_ns".into(), tick_time(period, r.tick).0.into());
        for key in ["b", "from", "to", "by", "owner", "base"] {
            if let Some(v) = map.get_mut(key)
                && let Some(i) = v.as_u64()
                && let Some(name) = usize::try_from(i).ok().and_then(|i| names.get(i))
            {
                *v = serde_json::Value::String(name.clone());
            }
        }
    }
    value
}
