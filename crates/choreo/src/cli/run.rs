//! `choreo run`: load a behavior, run it on the simulated robot (or a real one over qi), show
//! what the robot does, and report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::clock::Time;
use choreo_engine::engine::sync::TimelineSync;
use choreo_engine::graph::Graph;
use choreo_engine::trace::{Event, Step};
use choreo_engine::{EngineError, Outcome, Robot, Trace};
use choreo_monitor::{Command, Monitor};
use choreo_naoqi::{Model, Scenario, SimRobot};
use std::sync::mpsc::Receiver;

use crate::cli::args::{ModelArg, RobotArgs, RobotFlags, language_arg, start_time, timeout_secs};
use crate::cli::error::{CliError, CliResult, ROBOT_FIX, with_help};
use crate::cli::fold::Line;
use crate::cli::joints::JointRecorder;
use crate::cli::live::{Kind, Live, Verbosity};
use crate::cli::monitor::{MonitorFlags, Source, others};
use crate::cli::report;
use crate::cli::tally::{Failure, Tally, logged_error};
use crate::exit;
use crate::fleet::FleetSync;
use crate::{Ending, StoppedBy};
use choreo_xar::source::Behavior;

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
}

// Here rather than in args.rs: connecting makes the run's [`Target`].
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
                ROBOT_FIX,
            ))),
        }
    }
}

/// How long `wait` blocks between looks at Ctrl-C and errors.
const POLL: Duration = Duration::from_millis(100);

/// What the trace listener needs: the tally, the live output, the stubs to recognize.
struct Watch {
    tally: Mutex<Tally>,
    live: Live,
    /// The scenario loaded in the simulated robot (its stubs answer calls).
    scenario: Option<Scenario>,
    /// Running on a real robot: its calls are shown.
    remote: bool,
    /// What starts each live line: the robot of a fleet (`robot 2: `), or nothing.
    who: String,
}

/// Where the behavior runs.
pub(crate) enum Target {
    Sim(Arc<SimRobot>),
    Remote(Arc<choreo_qi::RemoteRobot>),
}

impl Target {
    /// The target, as the API takes it.
    fn api(&self) -> crate::Target {
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
struct Invocation<'a> {
    args: &'a RunArgs,
    /// The simulated robot's model and language where the project chose them, and why.
    implied: Vec<String>,
    /// The real robots to run on (none: the simulated one; several: a fleet).
    robots: &'a [RobotArgs],
    /// How much live output: errors only, folded, or every line.
    verbosity: Verbosity,
    /// The API's setup every robot's run starts from.
    base: &'a crate::Setup,
    behavior: &'a Behavior,
    model: Model,
    /// The scenario of the simulated robot (its stubs are recognised in the trace).
    scenario: Option<Scenario>,
    live: Live,
}

/// One robot's run, loaded or running.
struct One {
    run: crate::Run,
    watch: Arc<Watch>,
    target: Target,
    /// How it ended, once it did (or was stopped).
    ending: Option<Ending>,
    started: Instant,
    /// The live web page, and what its pages ask.
    monitor: Option<(Arc<Monitor>, Option<Receiver<Command>>)>,
    /// The simulated joints sampled for the page, whatever moves them.
    _sampler: Option<crate::looks::Sampler>,
}

impl One {
    /// Loads the behavior for `target`: the trace (to `trace_file`), the live lines (each
    /// starting with `who`), the engine (timelines started by `sync`, if any), through the
    /// API ([`crate::Setup`]).
    fn load(
        setup: &Invocation<'_>,
        target: Target,
        trace_file: Option<&Path>,
        who: &str,
        sync: Option<Arc<dyn TimelineSync>>,
    ) -> CliResult<One> {
        let args = setup.args;
        let trace = match trace_file {
            Some(file) => match std::fs::File::create(file) {
                Ok(f) => Trace::unkept(Some(Box::new(std::io::BufWriter::new(f)))),
                Err(e) => {
                    return Err(CliError::Write(format!(
                        "{}: cannot write the trace: {e}",
                        file.display()
                    )));
                }
            },
            None => Trace::unkept(None),
        };
        let live = setup.live.clone();
        let scenario = match &target {
            Target::Sim(_) => setup.scenario.clone(),
            Target::Remote(_) => None,
        };
        let watch = Arc::new(Watch {
            tally: Mutex::new(Tally::default()),
            live: live.clone(),
            scenario,
            remote: matches!(target, Target::Remote(_)),
            who: who.to_string(),
        });
        {
            let watch = Arc::clone(&watch);
            trace.set_listener(Arc::new(move |e: &Event| on_trace_event(e, &watch)));
        }
        let behavior = setup.behavior;
        // The page sees every event from the load on.
        // A real robot does not say which model it is: the one asked for (or the
        // manifest's), as for the resource groups.
        let model = Some(setup.model.name().to_lowercase());
        let monitor = crate::cli::monitor::start(
            &args.monitor,
            &Graph::new(&behavior.xar),
            &title(setup.base.project(), &behavior.name),
            model.as_deref(),
            // Only drawn by a monitor: no graph built for a run without one.
            Source::Run(match args.monitor.monitor {
                Some(_) => others(setup.base.project().files(), behavior),
                None => Vec::new(),
            }),
        )?;
        if let Some(m) = &monitor {
            crate::cli::monitor::feed(m, &trace);
        }
        let mut api = setup.base.clone().target(target.api()).trace(trace.clone());
        // The simulated joints at every frame, into the trace written (`choreo plot --trace`)
        // and to the monitor.
        let joints = match &target {
            Target::Sim(robot) if trace_file.is_some() || monitor.is_some() => {
                Some(JointRecorder::new(SimRobot::clone(robot), trace.clone()))
            }
            _ => None,
        };
        if let Some(joints) = &joints {
            api = api.on_frame(joints.observer());
        }
        if let Some(sync) = sync {
            api = api.timeline_sync(sync);
        }
        if let Target::Sim(_) = &target {
            api = api.on_robot_event(Arc::new(move |at, e| live.robot_event(at, e)));
        }
        let run = match api.load() {
            Ok(run) => run,
            Err(e) => return Err(load_error(format!("{who}{e}"), &e)),
        };
        if let Some(joints) = &joints {
            joints.bind(run.engine(), &behavior.xar);
        }
        for p in &args.params {
            if let Err(e) = set_param(&run, p) {
                return Err(CliError::Usage(format!("--param {p}: {e}")));
            }
        }
        let sampler = match &target {
            Target::Sim(sim) if monitor.is_some() => {
                crate::looks::Sampler::start(SimRobot::clone(sim), trace.clone())
            }
            _ => None,
        };
        Ok(One {
            run,
            watch,
            target,
            ending: None,
            started: Instant::now(),
            monitor: monitor.map(|m| {
                let commands = m.commands();
                (m, commands)
            }),
            _sampler: sampler,
        })
    }

    fn start(&mut self) {
        self.started = Instant::now();
        // Through the run: the manifest's autorun services start first. A run just loaded
        // is open, so this cannot fail.
        let _ = self.run.start();
    }

    /// One look at the run, waiting up to `wait`: an interim outcome (idle, time limit) or
    /// `stop` (Ctrl-C, the fleet) becomes a clean stop. True once the run has ended.
    fn poll(&mut self, wait: Duration, stop: Option<StoppedBy>) -> bool {
        let page_stop = match &self.monitor {
            Some((_, Some(commands))) => crate::cli::monitor::commands(commands, self.run.engine()),
            _ => false,
        };
        let stop = stop.or(page_stop.then_some(StoppedBy::Page));
        let engine = self.run.engine();
        let outcome = engine.wait(wait);
        self.watch.live.tick(engine.now());
        if outcome.is_final() {
            self.ending.get_or_insert(match Ending::of(outcome) {
                // A stop the command did not ask for came from outside it: an interruption.
                Ending::Stopped { .. } => Ending::Stopped {
                    by: StoppedBy::Interrupt,
                },
                ending => ending,
            });
            return true;
        }
        if self.ending.is_some() {
            return false;
        }
        let why = match (stop, outcome) {
            (Some(by), _) => Some(Ending::Stopped { by }),
            (None, Outcome::Idle) => Some(Ending::Idle {
                awaiting: self.run.awaited(),
            }),
            (None, Outcome::TimeLimit) => Some(Ending::TimeLimit),
            _ => None,
        };
        if let Some(why) = why {
            engine.stop();
            self.ending = Some(why);
        }
        false
    }

    /// After the end: what the report shows (the trace flushed first: every event
    /// delivered, the whole tally).
    fn finish(self, timeout: Option<f64>, implied: &[String]) -> Report {
        // Exact: when the run ended (a time limit, a stop, the end), not after the unload.
        let engine = self.run.engine();
        let behavior_time = engine.ended_at().unwrap_or_else(|| engine.now());
        // Behaviors the run started with ALBehaviorManager and left running end with it.
        self.run.close();
        if let Err(e) = self.run.trace().flush_writer() {
            errln!("{}cannot write the trace: {e}", self.watch.who);
        }
        let tally = choreo_base::lock(&self.watch.tally).clone();
        let unsupported = match &self.target {
            Target::Sim(robot) => robot.stats().unsupported,
            Target::Remote(_) => BTreeMap::new(),
        };
        Report {
            ending: self.ending.unwrap_or(Ending::Finished),
            implied: implied.to_vec(),
            timeout,
            behavior_time,
            real: self.started.elapsed(),
            tally,
            unsupported,
            seed: self.run.seed(),
            start_ms: self.run.start_time(),
        }
    }
}

/// The monitor's title: the project's name, and the behavior's when the project has
/// several (`Dances: salsa`).
fn title(project: &crate::Project, behavior: &str) -> String {
    match project.behaviors().len() {
        0 | 1 => project.name().to_string(),
        _ => format!("{}: {behavior}", project.name()),
    }
}

/// Runs the behavior.
pub fn run(args: &RunArgs) -> CliResult {
    let robots = args.remote.args().map_err(CliError::Usage)?;
    let verbosity = Verbosity::from_flags(args.quiet, args.verbose);
    let project = report::load_shown(&args.path, false, verbosity)?;
    let project = crate::Project::new(&args.path, Arc::new(project));
    let base = project
        .behavior(args.behavior.as_deref())
        .map_err(|e| CliError::Load(e.to_string()))?;
    let model = args
        .robot_model
        .map(ModelArg::model)
        .unwrap_or_else(|| base.chosen_model());
    // What the project decided of the simulated robot, and why (the report's `robot`).
    let implied = match (robots.is_empty(), args.robot_model, args.lang) {
        (false, _, _) => Vec::new(),
        (true, asked, lang) => {
            let mut asked_for = base.clone();
            if let Some(m) = asked {
                asked_for = asked_for.model(m.model());
            }
            if let Some(l) = lang {
                asked_for = asked_for.language(l.name);
            }
            asked_for.implied_reasons()
        }
    };
    if !robots.is_empty() && (args.fast || args.events.is_some() || args.lang.is_some()) {
        return Err(CliError::Usage(
            "--robot runs on a real robot: --fast, --events and --lang are for the simulated one"
                .to_string(),
        ));
    }
    let scenario = report::load_scenario(args.events.as_deref())?;
    let mut base = base
        .model(model)
        .clock(if args.fast {
            crate::Clock::Virtual
        } else {
            crate::Clock::Real
        })
        .strict(args.strict)
        .installed(args.installed);
    if let Some(limit) = args.timeout {
        base = base.time_limit(Duration::from_secs_f64(limit));
    }
    if let Some(seed) = args.seed {
        base = base.seed(seed);
    }
    if let Some(start) = args.start_time {
        base = base.start_time(start);
    }
    if let Some(language) = args.lang {
        base = base.language(language.name);
    }
    if let Some(s) = &scenario {
        base = base.scenario(s.clone());
    }
    let language = base.chosen_language();
    let behavior = base.behavior();
    let setup = Invocation {
        args,
        implied,
        robots: &robots,
        verbosity,
        behavior,
        model,
        scenario,
        live: Live::new(verbosity),
        base: &base,
    };
    if let Some(n) = args.repeat {
        return repeat(&setup, n);
    }
    if robots.len() > 1 {
        if args.monitor.monitor.is_some() {
            return Err(CliError::Usage(
                "--monitor shows one run: not a fleet's (yet)".to_string(),
            ));
        }
        return run_fleet(&setup);
    }
    let target = match robots.first() {
        None => Target::Sim(Arc::new(SimRobot::new(model))),
        Some(robot) => robot.connect()?,
    };
    let mut one = One::load(&setup, target, args.trace.as_deref(), "", None)?;
    let interrupts = count_interrupts();
    if verbosity != Verbosity::Quiet {
        let on = match robots.first() {
            Some(robot) => format!("the robot at {}", robot.url),
            None => match language {
                Some(l) => format!("a simulated {} speaking {l}", model.name()),
                None => format!("a simulated {}", model.name()),
            },
        };
        errln!(
            "running {} on {on} ({} time); Ctrl-C stops it",
            behavior.name,
            if args.fast { "virtual" } else { "real" }
        );
    }
    one.start();
    // The engine supervises the run (strict mode, the time limit, a lost robot); this loop
    // only turns Ctrl-C into a stop, and an interim outcome (idle, time limit) into a stop.
    while !one.poll(
        POLL,
        (interrupts.load(Ordering::SeqCst) > 0).then_some(StoppedBy::Interrupt),
    ) {}
    let monitor = one.monitor.as_ref().map(|(m, _)| Arc::clone(m));
    let report = one.finish(args.timeout, &setup.implied);
    setup.live.finish();
    print_report("run report", &report);
    if let Some(m) = monitor {
        let text = report_text("run report", &report);
        let keep = args.monitor.monitor_keep;
        crate::cli::monitor::linger(&m, report.ending.word(), &text, keep, &interrupts);
    }
    Ok(report.ending.exit_code())
}

/// `--repeat N` (virtual time): the behavior runs `n` times, each on a new simulated robot,
/// its trace written to a file (`--trace`'s, numbered, or a temporary one); each trace is
/// compared with the first, event by event, temporary folders masked. Run 1 shows its lines
/// as asked (`-q`, `-v`), the others only their errors; the first run's report follows.
/// Exit 1 when a run differs, else the first run's code.
fn repeat(setup: &Invocation<'_>, n: u32) -> CliResult {
    let args = setup.args;
    let quiet = Invocation {
        args: setup.args,
        implied: setup.implied.clone(),
        robots: setup.robots,
        verbosity: Verbosity::Quiet,
        base: setup.base,
        behavior: setup.behavior,
        model: setup.model,
        scenario: setup.scenario.clone(),
        live: Live::new(Verbosity::Quiet),
    };
    let mut first: Option<(Vec<String>, Report)> = None;
    let mut differs = false;
    let interrupts = count_interrupts();
    for i in 1..=n {
        let file = match &args.trace {
            Some(t) => numbered(t, i as usize),
            None => {
                std::env::temp_dir().join(format!("choreo-repeat-{}-{i}.jsonl", std::process::id()))
            }
        };
        let this = if i == 1 { setup } else { &quiet };
        let target = Target::Sim(Arc::new(SimRobot::new(setup.model)));
        let mut one = One::load(this, target, Some(&file), "", None)?;
        one.start();
        while !one.poll(
            POLL,
            (interrupts.load(Ordering::SeqCst) > 0).then_some(StoppedBy::Interrupt),
        ) {}
        let report = one.finish(args.timeout, &setup.implied);
        this.live.finish();
        let text = std::fs::read_to_string(&file);
        if args.trace.is_none() {
            let _ = std::fs::remove_file(&file);
        }
        let lines = match text {
            Ok(text) => crate::cli::trace_file::comparable_lines(&text),
            Err(e) => {
                return Err(CliError::Write(format!(
                    "{}: cannot read the trace back: {e}",
                    file.display()
                )));
            }
        };
        if report.ending == interrupted() {
            return Ok(report.ending.exit_code());
        }
        match &first {
            None => first = Some((lines, report)),
            Some((first_lines, _)) => {
                if let Some((line, a, b)) =
                    crate::cli::trace_file::first_difference(first_lines, &lines)
                {
                    differs = true;
                    let show = |l: Option<String>| l.unwrap_or_else(|| "(the end)".to_string());
                    outln!(
                        "run {i} differs from run 1 at line {line} of the trace:\n  run 1: {}\n  \
                         run {i}: {}",
                        show(a),
                        show(b)
                    );
                }
            }
        }
    }
    let Some((lines, report)) = first else {
        return Ok(exit::OK);
    };
    if !differs {
        outln!("{n} runs, the same trace: {} lines each", lines.len());
    }
    print_report("run report (run 1)", &report);
    Ok(if differs {
        exit::NO
    } else {
        report.ending.exit_code()
    })
}

/// `FILE` for robot `n` of a fleet: `t.jsonl` → `t.3.jsonl`.
fn numbered(file: &Path, n: usize) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match file.extension() {
        Some(ext) => format!("{stem}.{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{n}"),
    };
    file.with_file_name(name)
}

/// The behavior on every robot of a fleet: one engine each, all loaded, then started at one
/// instant; timelines started together through a [`FleetSync`]; a robot that ends (lost,
/// failed) ends alone unless `--all-or-nothing`; a report per robot.
fn run_fleet(setup: &Invocation<'_>) -> CliResult {
    let args = setup.args;
    let sync = FleetSync::new(setup.robots.len());
    let mut ones = Vec::new();
    for (i, robot) in setup.robots.iter().enumerate() {
        let target = robot.connect()?;
        if let Target::Remote(remote) = &target {
            sync.probe(i, remote.session().clone());
            // The modules a timeline's start calls, looked up before the start (robots far
            // away would otherwise start late by these round trips).
            let remote = Arc::clone(remote);
            std::thread::spawn(move || remote.prepare(&["ALMotion", "ALMemory"]));
        }
        let trace = args.trace.as_deref().map(|f| numbered(f, i + 1));
        let who = format!("robot {}: ", i + 1);
        match One::load(setup, target, trace.as_deref(), &who, Some(sync.member(i))) {
            Ok(one) => ones.push(one),
            Err(e) => {
                // Told before the robots already loaded unload (what their boxes say then
                // comes after it, as it happens).
                e.print();
                return Err(CliError::Shown(e.code()));
            }
        }
    }
    sync.wait_measured(Duration::from_secs(3));
    let interrupts = count_interrupts();
    if setup.verbosity != Verbosity::Quiet {
        errln!(
            "running {} on {} robots (real time, timelines started together); Ctrl-C stops them",
            setup.behavior.name,
            ones.len()
        );
    }
    for one in &mut ones {
        one.start();
    }
    let mut ended = vec![false; ones.len()];
    let mut stop_all: Option<StoppedBy> = None;
    while ended.iter().any(|e| !e) {
        if interrupts.load(Ordering::SeqCst) > 0 {
            stop_all = Some(StoppedBy::Interrupt);
        }
        for (i, one) in ones.iter_mut().enumerate() {
            if ended[i] {
                continue;
            }
            if one.poll(Duration::ZERO, stop_all) {
                ended[i] = true;
                sync.leave(i);
                if args.all_or_nothing && one.ending != Some(Ending::Finished) && stop_all.is_none()
                {
                    errln!(
                        "robot {} did not finish: stopping the fleet (--all-or-nothing)",
                        i + 1
                    );
                    stop_all = Some(StoppedBy::Fleet);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let reports: Vec<Report> = ones
        .into_iter()
        .map(|o| o.finish(args.timeout, &setup.implied))
        .collect();
    setup.live.finish();
    for (i, (report, robot)) in reports.iter().zip(setup.robots).enumerate() {
        print_report(
            &format!("run report: robot {} at {}", i + 1, robot.url),
            report,
        );
    }
    let finished = reports
        .iter()
        .filter(|r| r.ending == Ending::Finished)
        .count();
    let (together, partial) = sync.counts();
    outln!("fleet");
    outln!("  robots         {} ({finished} finished)", reports.len());
    outln!("  timelines      {together} started together, {partial} without every robot");
    for line in sync.report() {
        outln!("  {line}");
    }
    // The first robot that did not finish by itself names the exit code; robots stopped by
    // `--all-or-nothing` only if there is no other.
    let code = |stopped: bool| {
        reports
            .iter()
            .filter(|r| {
                (r.ending
                    == Ending::Stopped {
                        by: StoppedBy::Fleet,
                    })
                    == stopped
            })
            .map(|r| r.ending.exit_code())
            .find(|c| *c != exit::OK)
    };
    Ok(code(false).or_else(|| code(true)).unwrap_or(exit::OK))
}

/// Counts Ctrl-C presses from now on: the first asks for a clean stop (R4), which the caller
/// makes when it sees the count; a second exits at once.
pub(crate) fn count_interrupts() -> Arc<AtomicUsize> {
    let interrupts = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&interrupts);
    let _ = ctrlc::set_handler(move || {
        if seen.fetch_add(1, Ordering::SeqCst) >= 1 {
            errln!("\ninterrupted again: exiting without unloading");
            std::process::exit(i32::from(exit::INTERRUPTED));
        }
    });
    interrupts
}

/// How a run stopped by Ctrl-C ends.
fn interrupted() -> Ending {
    Ending::Stopped {
        by: StoppedBy::Interrupt,
    }
}

/// `box/path/name=value`: the box path as in the trace (`root/Say`), `root/` optional.
fn set_param(run: &crate::Run, spec: &str) -> Result<(), String> {
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
fn load_error(message: String, error: &crate::Error) -> CliError {
    use crate::Error as E;
    match error {
        // `--timeout` bounds the whole run, box construction included.
        E::Load {
            source: EngineError::LoadTimeLimit { .. },
            ..
        } => CliError::Timeout(message),
        E::Robot { .. } | E::Call(_) => CliError::Robot(message),
        E::NotFound { .. } | E::NoLanguage { .. } | E::NotSimulated { .. } => {
            CliError::Usage(message)
        }
        E::Load { .. }
        | E::Unreadable { .. }
        | E::Broken { .. }
        | E::NoBehavior { .. }
        | E::Scenario { .. }
        | E::Files { .. }
        | E::Engine(_)
        | E::WaitTimedOut(_)
        | E::Closed => CliError::Load(message),
    }
}

/// Event `e` of the trace: counted, and shown as it happens.
/// Shows what a box's code said live: an error escaping a hook, or a line it logged (`who`
/// before it); false for any other event.
pub(crate) fn show_box_event(live: &Live, who: &str, e: &Event) -> bool {
    let at = Time(e.time_ns);
    match &e.step {
        Step::Err { hook, text } => {
            let failure = Failure::new(&e.path, hook, text);
            let line = Line::plain(format!("{who}error in {failure}"));
            live.line(at, Kind::Error, line);
            live.details(text);
        }
        Step::Log { level, message } => {
            let kind = if logged_error(&e.path, &e.step).is_some() {
                Kind::Error
            } else {
                Kind::Info
            };
            // Different messages of a box say different things: only repeats fold. The run's
            // own messages have no box.
            let line = if e.path.is_empty() {
                Line::plain(format!("{who}{level}: {message}"))
            } else {
                Line::plain(format!("{who}{level} {}: {message}", e.path))
            };
            live.line(at, kind, line);
        }
        _ => return false,
    }
    true
}

fn on_trace_event(e: &Event, watch: &Watch) {
    let stub = match (&e.step, &watch.scenario) {
        (Step::RobotCall { method, args }, Some(scenario)) => {
            let service = method.split('.').next().unwrap_or_default();
            let name = method.rsplit('.').next().unwrap_or_default();
            scenario.reply_to(service, name, args)
        }
        _ => None,
    };
    let over = {
        let mut tally = choreo_base::lock(&watch.tally);
        let over = tally.is_over();
        tally.record(e, stub.is_some());
        over
    };
    if over {
        return;
    }
    let at = Time(e.time_ns);
    let live = &watch.live;
    let who = watch.who.as_str();
    let line = |mut line: Line| {
        line.head.insert_str(0, who);
        line
    };
    if show_box_event(live, who, e) {
        return;
    }
    match &e.step {
        Step::RobotCall { method, args } => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            let args = args.join(", ");
            if let Some(reply) = stub {
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(
                        format!("stub: {method}"),
                        format!("({args}) -> {reply}"),
                    )),
                );
            } else if watch.remote {
                // The simulated robot says what it does; a real one is shown its calls.
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(format!("calls {method}"), format!("({args})"))),
                );
            }
            if let Some(logged) = logged_error(&e.path, &e.step) {
                live.line(
                    at,
                    Kind::Error,
                    line(Line::plain(format!("error {logged}"))),
                );
            }
        }
        Step::Frame { frame } => live.frame(&format!("{who}{}", e.path), *frame),
        _ => {}
    }
}

/// What the report is made of.
struct Report {
    ending: Ending,
    /// The simulated robot's model and language where the project chose them, and why.
    implied: Vec<String>,
    /// `--timeout`, seconds.
    timeout: Option<f64>,
    behavior_time: Time,
    real: Duration,
    tally: Tally,
    unsupported: BTreeMap<String, u64>,
    /// The run's seed and start time (ms since the epoch): what repeats it.
    seed: u64,
    start_ms: u64,
}

fn print_report(title: &str, r: &Report) {
    out!("{}", report_text(title, r));
}

/// The report as printed.
fn report_text(title: &str, r: &Report) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let tally = &r.tally;
    // What an idle behavior waits for: events subscribed, box code that has not returned.
    let awaited: &[String] = match &r.ending {
        Ending::Idle { awaiting } => awaiting,
        _ => &[],
    };
    let mut waits: Vec<String> = awaited
        .iter()
        .map(|key| format!("ALMemory event {key}"))
        .collect();
    waits.extend(tally.running_at_stop.iter().flatten().cloned());
    let how = match &r.ending {
        Ending::Finished => "finished".to_string(),
        Ending::Failed { .. } => "stopped at the first error in box code (--strict)".to_string(),
        Ending::TimeLimit => match r.timeout {
            Some(t) => format!("stopped: timeout ({t} s of behavior time, --timeout)"),
            None => "stopped: timeout".to_string(),
        },
        Ending::Idle { .. } if waits.is_empty() => {
            "stopped: nothing left to do, yet the behavior did not finish (its root never fired onStopped)"
                .to_string()
        }
        Ending::Idle { .. } => "stopped: waiting for an event nobody sent".to_string(),
        Ending::Stopped {
            by: StoppedBy::Interrupt | StoppedBy::Program,
        } => "stopped: interrupted (Ctrl-C); every box was unloaded".to_string(),
        Ending::Stopped {
            by: StoppedBy::Page,
        } => "stopped from the monitor's page; every box was unloaded".to_string(),
        Ending::RobotLost => "stopped: the robot disconnected".to_string(),
        Ending::Crashed { .. } => {
            "stopped: the engine crashed (a bug of choreo's; please report it)".to_string()
        }
        Ending::Stopped {
            by: StoppedBy::Fleet,
        } => "stopped: another robot of the fleet did not finish (--all-or-nothing)".to_string(),
    };
    let _ = writeln!(o, "{title}");
    let _ = writeln!(o, "  outcome        {how}");
    if matches!(r.ending, Ending::Idle { .. }) && !waits.is_empty() {
        for (i, w) in waits.iter().enumerate() {
            let title = if i == 0 { "waiting for" } else { "" };
            let _ = writeln!(o, "  {title:<14} {w}");
        }
        if !awaited.is_empty() {
            let _ = writeln!(
                o,
                "  {:<14} (a scenario can send events: --events, docs/scenarios.md)",
                ""
            );
        }
    }
    for (i, why) in r.implied.iter().enumerate() {
        let _ = writeln!(o, "  {:<14} {why}", if i == 0 { "robot" } else { "" });
    }
    let _ = writeln!(
        o,
        "  duration       {:.2} s behavior time, {:.2} s real time",
        r.behavior_time.as_secs_f64(),
        r.real.as_secs_f64()
    );
    let _ = writeln!(
        o,
        "  repeat with    --seed {} --start-time {}",
        r.seed,
        choreo_robot::calendar::format_utc(r.start_ms)
    );
    let _ = writeln!(o, "  boxes run      {}", tally.boxes_run.len());
    write_counts(&mut o, "robot calls", &tally.calls);
    write_counts(&mut o, "stubbed", &tally.stubbed);
    write_counts(&mut o, "unsupported", &r.unsupported);
    write_counts(&mut o, "failed calls", &tally.failed_calls);
    write_list(&mut o, "errors", &tally.failures, true);
    write_list(&mut o, "logged errors", &tally.logged, false);
    o
}

/// `title` and how many `items`, then each distinct one once with its count (`×3`), into `o`.
fn write_list<T: std::fmt::Display>(o: &mut String, title: &str, items: &[T], always: bool) {
    use std::fmt::Write as _;
    if items.is_empty() && !always {
        return;
    }
    let _ = writeln!(o, "  {title:<14} {}", items.len());
    let mut distinct: Vec<(String, usize)> = Vec::new();
    for item in items {
        let text = item.to_string();
        match distinct.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => distinct.push((text, 1)),
        }
    }
    for (text, n) in distinct {
        if n > 1 {
            let _ = writeln!(o, "    {text} (×{n})");
        } else {
            let _ = writeln!(o, "    {text}");
        }
    }
}

fn write_counts(o: &mut String, title: &str, counts: &BTreeMap<String, u64>) {
    use std::fmt::Write as _;
    if counts.is_empty() && title != "robot calls" {
        return;
    }
    let total: u64 = counts.values().sum();
    let _ = writeln!(o, "  {title:<14} {total}");
    for (m, n) in counts {
        let _ = writeln!(o, "    {m:<24} {n}");
    }
}
