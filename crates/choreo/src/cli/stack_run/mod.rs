//! `choreo stack run DIR`: a stack of JSON definitions run against the simulated robot.
//!
//! The stack is driven by a behavior of one native box (`Stack`), run by an engine as
//! `choreo run` runs any behavior. The box's `onStart` hook ticks the runner every period
//! and sleeps on the engine's clock in between. So `--fast` (virtual time), `--timeout`, the
//! robot's durations, the scenario's events and the Choregraphe behaviors the stack plays
//! (nested runs of that engine, started through the robot's ALBehaviorManager) all share one
//! time. The engine knows nothing of the stack.

mod args;
mod driver;
mod installed;
mod listeners;
mod load;

pub(crate) use args::StackRunArgs;
pub(crate) use installed::install;

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_base::lock;
use choreo_engine::clock::Time;
use choreo_engine::{Engine, Options, Trace};
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use choreo_stack::Runner;
use choreo_stack::core::trace::Record;

use crate::cli::args::ModelArg;
use crate::cli::args::monitor::Source;
use crate::cli::error::{CliError, CliResult};
use crate::cli::run::Target;
use crate::report::live::{Live, Verbosity};

use crate::stack_driver::{Driver, driver_xar, load_driver, shape};
use crate::stack_driver::{TraceFile, engine_lines, json_lines, record_json};
use driver::drive;
use listeners::live_listener;
use load::{Asked, Loaded, load};

/// Runs the stack: loaded, watched, driven to its end, reported.
pub fn run(args: &StackRunArgs) -> CliResult {
    // The played behaviors' box code, as `choreo run`'s (docs/security.md).
    if let Some(code) = args.sandbox.enter(args.verbose) {
        return Ok(code);
    }
    crate::cli::args::sandbox::hold_to(args.timeout);
    let asked = asked(args)?;
    let Loaded {
        defs,
        target,
        robot,
        resources,
        engine_trace,
        mut runner,
        period,
        played,
        own,
    } = load(&asked)?;
    let xar = driver_xar().map_err(|e| CliError::Runtime(e.to_string()))?;
    let live = Live::new(asked.verbosity, asked.args.fast);
    runner.add_listener(live_listener(live.clone(), period, asked.verbosity));
    {
        // What the played behaviors' boxes log, and their errors, as `choreo run` shows them.
        let live = live.clone();
        engine_trace.add_listener(Arc::new(move |e| {
            crate::report::show_box_event(&live, "", e);
        }));
    }
    // `--trace`: the stack's events and, between them, the played behaviors' and what the
    // robot showed (as `choreo run --trace` writes them), so that a replay shows both.
    let trace_file = trace_file(&asked, &mut runner, &engine_trace, period)?;
    let monitor = crate::cli::args::monitor::start(
        &args.monitor,
        &choreo_engine::graph::Graph::new(&xar),
        &format!("stack {}", args.dir.display()),
        Some(&asked.model.name().to_lowercase()),
        Source::Stack(shape(&runner, &defs), played),
    )?;
    if let Some(m) = &monitor {
        crate::cli::args::monitor::feed(m, &engine_trace);
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
        box_code_ended: crate::stack_driver::box_code_ended(own),
    });
    let options = Options {
        virtual_time: args.fast,
        trace: engine_trace.clone(),
        time_limit: args.timeout.map(Duration::from_secs_f64),
        robot: Some(Arc::clone(&robot)),
        resources: Some(resources),
        ..Options::default()
    };
    let engine = Arc::new(
        load_driver(&xar, &driver, options).map_err(|e| CliError::Runtime(e.to_string()))?,
    );
    let sampler = watch_sim(&target, &live, &engine, &engine_trace, monitor.is_some());
    let interrupts = crate::cli::run::count_interrupts();
    say_start(&asked);
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
    let (code, report) = crate::stack_driver::report(&driver, &outcome, stopped_for, time, started);
    crate::cli::args::sandbox::hold_to(None);
    errln!("{report}");
    drop(sampler);
    if let Some(out) = trace_file {
        // The played behaviors' last events are not followed by a stack event that flushes.
        let _ = lock(&out).flush();
    }
    if let Some(m) = monitor {
        let keep = args.monitor.monitor_keep;
        crate::cli::args::monitor::linger(
            &m,
            crate::stack_driver::outcome_word(code),
            &report,
            keep,
            &interrupts,
        );
    }
    Ok(code)
}

/// What `args` ask for: one robot at most (exit 2 for more), the model, how much to say.
fn asked(args: &StackRunArgs) -> CliResult<Asked<'_>> {
    let robots = args.remote.args().map_err(CliError::Usage)?;
    if robots.len() > 1 {
        return Err(CliError::Usage(
            "stack run drives one robot: give one --robot".to_string(),
        ));
    }
    Ok(Asked {
        args,
        robot: robots.into_iter().next(),
        model: args.robot_model.map_or(Model::Nao, ModelArg::model),
        verbosity: Verbosity::from_flags(args.quiet, args.verbose),
    })
}

/// `--trace`: the stack's events and, between them, the played behaviors' and what the
/// robot showed (as `choreo run --trace` writes them), so that a replay shows both.
fn trace_file(
    asked: &Asked<'_>,
    runner: &mut Runner,
    engine_trace: &Trace,
    period: Duration,
) -> CliResult<Option<TraceFile>> {
    let args = asked.args;
    Ok(match &args.trace {
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
    })
}

/// What the simulated robot shows, said live and recorded into the trace; sampled for the
/// monitor when there is one.
fn watch_sim(
    target: &Target,
    live: &Live,
    engine: &Arc<Engine>,
    engine_trace: &Trace,
    sampled: bool,
) -> Option<crate::looks::Sampler> {
    let Target::Sim(sim) = target else {
        return None;
    };
    let live = live.clone();
    let now = Arc::downgrade(engine);
    let (shows, shown) = (engine_trace.clone(), SimRobot::clone(sim));
    sim.set_observer(Arc::new(move |e: &RobotEvent| {
        let at = now.upgrade().map_or(Time(0), |engine| engine.now());
        live.robot_event(at, e);
        crate::looks::record(&shows, &shown, at, e);
    }));
    if sampled {
        crate::looks::Sampler::start(SimRobot::clone(sim), engine_trace.clone())
    } else {
        None
    }
}

/// The line that says what runs where.
fn say_start(asked: &Asked<'_>) {
    if asked.verbosity != Verbosity::Quiet {
        let on = match &asked.robot {
            Some(robot) => format!("the robot at {}", robot.url),
            None => format!("a simulated {}", asked.model.name()),
        };
        errln!(
            "running the stack {} on {on} ({} time, a tick every {} ms); Ctrl-C stops it",
            asked.args.dir.display(),
            if asked.args.fast { "virtual" } else { "real" },
            asked.args.tick_ms
        );
    }
}
