//! `choreo run`: load a behavior, run it on the simulated robot (or a real one over qi), show
//! what the robot does, and report.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use choreo_naoqi::{Model, Scenario, SimRobot};

use crate::cli::args::ModelArg;
use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::report::live::{Live, Verbosity};

use crate::StoppedBy;
use invocation::{Invocation, POLL};
use one::One;

mod args;
mod fleet;
mod invocation;
mod one;
mod repeat;

pub(crate) use args::RunArgs;
pub(crate) use invocation::{Target, count_interrupts};

/// Runs the behavior.
pub fn run(args: &RunArgs) -> CliResult {
    // Box code may end this process: a parent that outlives it reports (docs/security.md).
    if let Some(code) = args.sandbox.enter(args.verbose) {
        return Ok(code);
    }
    let _ahead = args.sandbox.box_host_ahead();
    let robots = args.remote.args().map_err(CliError::Usage)?;
    let verbosity = Verbosity::from_flags(args.quiet, args.verbose);
    let project = input::load_to_run(&args.path, verbosity)?;
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
    let scenario = input::load_scenario(args.events.as_deref())?;
    let base = configured(args, base, model, scenario.as_ref());
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
        live: Live::new(verbosity, args.fast),
        base: &base,
    };
    if let Some(n) = args.repeat {
        return repeat::repeat(&setup, n);
    }
    if robots.len() > 1 {
        if args.monitor.monitor.is_some() {
            return Err(CliError::Usage(
                "--monitor shows one run: not a fleet's (yet)".to_string(),
            ));
        }
        return fleet::run_fleet(&setup);
    }
    run_one(&setup, language.as_deref())
}

/// The API's setup of the run, as the arguments ask.
fn configured(
    args: &RunArgs,
    base: crate::Setup,
    model: Model,
    scenario: Option<&Scenario>,
) -> crate::Setup {
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
    if let Some(s) = scenario {
        base = base.scenario(s.clone());
    }
    base.sandbox(args.sandbox.allowed())
        .box_host(args.sandbox.box_host())
        .max_memory(args.sandbox.max_memory)
        // Before the supervising parent's bound: choreo's process reports it itself.
        .box_code_bound(
            args.timeout
                .map(|t| Duration::from_secs_f64(t) + crate::cli::args::sandbox::BOX_CODE_GRACE),
        )
}

/// In virtual time, while the engine still calls box code in its box host, the supervising
/// parent's bound moves with the run (up to the box host's own stretch): a run whose time
/// stands still on a loaded machine is slow, not held ([`choreo_python::remote::QUIET`]).
fn hold_while_called(args: &RunArgs, run: &crate::Run, started: std::time::Instant) {
    let Some(timeout) = args.timeout.filter(|_| args.fast) else {
        return;
    };
    let grace = crate::cli::args::sandbox::BOX_CODE_GRACE;
    let most = (Duration::from_secs_f64(timeout) + grace) * choreo_python::remote::STRETCH;
    if started.elapsed() < most && run.box_code_called_within(choreo_python::remote::QUIET) {
        crate::cli::args::sandbox::hold_to(Some(timeout));
    }
}

/// One run, on the simulated robot or one real robot, to its report.
fn run_one(setup: &Invocation<'_>, language: Option<&str>) -> CliResult {
    let (args, robots, model, verbosity) = (setup.args, setup.robots, setup.model, setup.verbosity);
    let behavior = setup.behavior;
    let target = match robots.first() {
        None => Target::Sim(Arc::new(SimRobot::new(model))),
        Some(robot) => robot.connect()?,
    };
    // Counted from before the load: a Ctrl-C while it waits (for pip) stops the run.
    let interrupts = count_interrupts();
    let mut one = One::load(setup, target, args.trace.as_deref(), "", None)?;
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
    // A Ctrl-C during the load stops the run as it starts.
    if interrupts.load(Ordering::SeqCst) > 0 {
        one.poll(Duration::ZERO, Some(StoppedBy::Interrupt));
    }
    // The engine supervises the run (strict mode, the time limit, a lost robot); this loop
    // only turns Ctrl-C into a stop, and an interim outcome (idle, time limit) into a stop.
    let started = std::time::Instant::now();
    while !one.poll(
        POLL,
        (interrupts.load(Ordering::SeqCst) > 0).then_some(StoppedBy::Interrupt),
    ) {
        hold_while_called(args, &one.run, started);
    }
    let monitor = one.monitor.as_ref().map(|(m, _)| Arc::clone(m));
    let report = one.finish(args.timeout, &setup.implied);
    setup.live.finish();
    invocation::print_report("run report", &report);
    if let Some(m) = monitor {
        let text = report.text("run report");
        let keep = args.monitor.monitor_keep;
        crate::cli::args::monitor::linger(&m, report.ending.word(), &text, keep, &interrupts);
    }
    Ok(report.ending.exit_code())
}
