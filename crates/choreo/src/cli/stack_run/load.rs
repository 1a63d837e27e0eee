//! Everything a stack run needs, loaded before it starts: the definitions, the robot, the
//! engine and its driver.

use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Weak};
use std::time::Duration;

use crate::nested::{BoxCode, Launchers, ProjectBehaviors};
use choreo_engine::{Robot, Trace};
use choreo_naoqi::{BehaviorLauncher, Model, SimRobot};
use choreo_python::confinement::Confinement;
use choreo_stack::Runner;
use choreo_stack::definitions::definition::{Definition, load_dir};

use crate::cli::args::RobotArgs;
use crate::cli::args::sandbox::SandboxFlags;
use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::cli::run::Target;
use crate::monitored::Played;
use crate::report::live::Verbosity;

use super::args::StackRunArgs;
use super::installed::install;
use crate::stack_driver::{OwnCode, classes, played};

/// What `choreo stack run` was asked, its flags read.
pub(super) struct Asked<'a> {
    pub(super) args: &'a StackRunArgs,
    /// The real robot to run on; none: the simulated one.
    pub(super) robot: Option<RobotArgs>,
    pub(super) model: Model,
    pub(super) verbosity: Verbosity,
}

/// The stack loaded, on its robot, not yet driven.
pub(super) struct Loaded {
    pub(super) defs: Vec<Definition>,
    pub(super) target: Target,
    pub(super) robot: Arc<dyn Robot>,
    pub(super) resources: Arc<choreo_engine::resource::ResourceTree>,
    /// The trace of the driver's engine (and of the behaviors the stack plays).
    pub(super) engine_trace: Trace,
    pub(super) runner: Runner,
    /// The behaviors the leaves play, for the monitor.
    pub(super) played: Played,
    pub(super) period: Duration,
    /// Where the stack's own Python behaviors run (made at the first one).
    pub(super) own: Arc<OwnCode>,
}

/// Loads the definitions and the behaviors their leaves play, reaches the robot (or makes
/// the simulated one) and builds the runner.
pub(super) fn load(asked: &Asked<'_>) -> CliResult<Loaded> {
    let args = asked.args;
    let defs = load_dir(&args.dir).map_err(|e| CliError::Load(e.to_string()))?;
    let installed = install(&args.dir, &defs, asked.verbosity)?;
    let scenario = input::load_scenario(args.events.as_deref())?;
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
    let mut launchers: Vec<Arc<dyn BehaviorLauncher>> = Vec::new();
    for i in &installed {
        launchers.push(Arc::new(
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
            .prefixed(i.prefix())
            .confined(leaf_box_code(args, &i.files)?),
        ));
    }
    if let Target::Sim(sim) = &target {
        sim.set_launcher(Some(Arc::new(Launchers(launchers))));
    }
    let period = Duration::from_millis(args.tick_ms);
    // The stack's own Python behaviors: the stack's folder to read, nothing to write.
    let (sandbox, dir) = (args.sandbox.clone(), args.dir.clone());
    let own: Arc<OwnCode> = Arc::new(LazyLock::new(Box::new(move || {
        confined(&sandbox, &[], &[dir]).map_err(|e| crate::stack_driver::NoBoxCode(e.to_string()))
    })));
    let runner = classes(&args.dir, &installed, Arc::clone(&own))
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
        own,
        // Only drawn by a monitor: no graph built for a run without one.
        played: match args.monitor.monitor {
            Some(_) => played(&installed),
            None => Vec::new(),
        },
    })
}

/// The box code of the behaviors a leaf plays: confined to the run's folders and its
/// project's files (`files`), in a box host of its own (on this process's threads with
/// `--sandbox=threads`); unconfined with `--no-sandbox`.
fn leaf_box_code(
    args: &StackRunArgs,
    files: &choreo_xar::source::FilesOnDisk,
) -> CliResult<BoxCode> {
    let run: Vec<_> = files.robot_root().map(Into::into).into_iter().collect();
    confined(&args.sandbox, &run, &[files.path().into()])
}

/// Code that writes `run` and reads `project` (and what the run's flags allow), in a box
/// host of its own, or on this process's threads with `--sandbox=threads`; unconfined with
/// `--no-sandbox`.
fn confined(sandbox: &SandboxFlags, run: &[PathBuf], project: &[PathBuf]) -> CliResult<BoxCode> {
    let Some(allowed) = sandbox.allowed() else {
        return Ok(BoxCode::default());
    };
    let confinement = Arc::new(Confinement::new(run, project, allowed));
    if !sandbox.box_host() {
        return Ok(BoxCode {
            confinement: Some(confinement),
            host: None,
        });
    }
    BoxCode::in_box_host(confinement, sandbox.max_memory).map_err(|e| CliError::Load(e.to_string()))
}
