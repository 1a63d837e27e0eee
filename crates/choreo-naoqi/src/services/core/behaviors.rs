//! ALBehaviorManager and ALFrameManager.
//!
//! The behaviors installed are those of the project being run, as a [`BehaviorLauncher`]
//! says (installed by the layer that builds runs, the CLI: [`crate::SimRobot::set_launcher`]),
//! under the names a robot gives them ([`behavior_names`]), plus names installed by hand
//! ([`crate::SimRobot::install_behavior`]: recorded as started and stopped, they do not run).
//! Running one loads it through the launcher as a nested run on the time base of the run
//! that asks (the engine's `Options::time_base`): one behavior time, one trace.
//!
//! As on NAOqi (§3.11), a name not installed raises RuntimeError, and so does starting a
//! behavior already running: a behavior that runs itself, or A that runs B that runs A, is
//! refused there, and at most [`MAX_NESTED`] nested runs exist at once. `runBehavior` waits
//! for the end (finished or stopped; a run that failed, in strict mode, raises), parked on
//! the time base so that virtual time moves for the nested run; the failure of a run nobody
//! waits for (`startBehavior`, a posted `runBehavior`) stops a strict run that owns the time
//! base instead; `stopBehavior` and `stopAllBehaviors` stop and wait for the end (the run
//! that called them included, as on a robot); a nested run that ended is dropped on a
//! thread of its own.
//!
//! ALFrameManager's behavior and timeline calls (getBehaviorPath, get/setTimelineFps,
//! exitBehavior...) need the engine's knowledge of the behavior, so the engine or the script
//! host answers them; the robot serves only `onPythonError`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Weak};

use choreo_engine::{Activity, Engine, EngineError, Outcome, Value};

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;

/// The most nested runs (started by ALBehaviorManager) that may exist at once.
pub const MAX_NESTED: usize = 16;

/// The names a behavior of a project answers to on a robot: `<package id>/<behavior
/// folder>` (the package id from `manifest.xml`, when there is one) and
/// `.lastUploadedChoregrapheBehavior/<behavior folder>` (what Choregraphe's play uploaded).
pub fn behavior_names(package: Option<&str>, folder: &str) -> Vec<String> {
    let folder = folder.trim_matches('/');
    package
        .filter(|p| !p.is_empty())
        .into_iter()
        .chain([choreo_robot::paths::PLAYED])
        .map(|p| format!("{p}/{folder}"))
        .collect()
}

/// Where ALBehaviorManager gets behaviors from: which are installed, and how one is loaded.
/// Installed by the layer that builds runs ([`crate::SimRobot::set_launcher`]), which knows
/// the project, the script host and the trace.
pub trait BehaviorLauncher: Send + Sync {
    /// The names of the behaviors installed (see [`behavior_names`]).
    fn installed(&self) -> Vec<String>;

    /// Loads behavior `name` (one of [`BehaviorLauncher::installed`]), not started, as a
    /// nested run on `time` (the time base of the run that asks, to give as the engine's
    /// `Options::time_base`), with this robot. Called from box code (a hook's thread).
    fn load(&self, name: &str, time: Arc<Activity>) -> Result<Engine, LaunchError>;
}

/// Why a behavior could not be loaded.
#[derive(Debug)]
pub enum LaunchError {
    /// The launcher has no behavior of that name.
    NotInstalled(String),
    /// The behavior did not load (a box could not be constructed, ...).
    Load(EngineError),
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::NotInstalled(name) => write!(f, "behavior {name:?} is not installed"),
            LaunchError::Load(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LaunchError::NotInstalled(_) => None,
            LaunchError::Load(e) => Some(e),
        }
    }
}

/// A behavior that runs, by name.
enum Running {
    /// Being loaded: the name is taken.
    Loading,
    /// A nested run ALBehaviorManager started.
    Nested(Arc<Engine>),
    /// The run the layer above started itself (the behavior played), see
    /// [`crate::SimRobot::behavior_started`]; not kept alive from here.
    Outer(Weak<Engine>),
    /// A behavior installed by name only: recorded as running until stopped.
    Recorded,
}

impl Running {
    /// Its engine, unless it is over.
    fn engine(&self) -> Option<Arc<Engine>> {
        match self {
            Running::Nested(e) => Some(Arc::clone(e)),
            Running::Outer(w) => w.upgrade(),
            Running::Loading | Running::Recorded => None,
        }
        .filter(|e| !e.is_over())
    }

    fn is_running(&self) -> bool {
        matches!(self, Running::Loading | Running::Recorded) || self.engine().is_some()
    }
}

/// Installed and running behaviors.
#[derive(Default)]
pub(crate) struct Manager {
    /// Installed by hand (recorded only).
    installed: BTreeSet<String>,
    launcher: Option<Arc<dyn BehaviorLauncher>>,
    running: BTreeMap<String, Running>,
}

impl Manager {
    /// Makes `name` installed.
    pub fn install(&mut self, name: &str) {
        self.installed.insert(name.to_string());
    }

    /// Sets where behaviors come from.
    pub fn set_launcher(&mut self, launcher: Option<Arc<dyn BehaviorLauncher>>) {
        self.launcher = launcher;
    }

    /// Says that `name` runs as `engine`, started by the layer above.
    pub fn started(&mut self, name: &str, engine: &Arc<Engine>) {
        self.running
            .insert(name.to_string(), Running::Outer(Arc::downgrade(engine)));
    }

    /// Forgets the behaviors that are over (nested runs are dropped on a thread of their
    /// own: see [`retire`]).
    fn sweep(&mut self) {
        let over: Vec<String> = self
            .running
            .iter()
            .filter(|(_, r)| !r.is_running())
            .map(|(n, _)| n.clone())
            .collect();
        for name in over {
            if let Some(Running::Nested(e)) = self.running.remove(&name) {
                retire(e);
            }
        }
    }

    /// Every behavior name installed (`<package>/<behavior>`), sorted.
    pub(crate) fn installed(&self) -> BTreeSet<String> {
        let mut all = self.installed.clone();
        if let Some(l) = &self.launcher {
            all.extend(l.installed());
        }
        all
    }

    fn running_names(&mut self) -> Vec<String> {
        self.sweep();
        self.running.keys().cloned().collect()
    }

    /// The engines of every behavior running, to stop (recorded ones are forgotten, as
    /// stopped); the outer run's too if `outer`.
    fn engines_to_stop(&mut self, outer: bool) -> Vec<Arc<Engine>> {
        self.sweep();
        let mut engines = Vec::new();
        self.running.retain(|_, r| match r {
            Running::Nested(e) => {
                engines.push(Arc::clone(e));
                true
            }
            Running::Outer(w) => {
                if outer && let Some(e) = w.upgrade() {
                    engines.push(e);
                }
                true
            }
            Running::Loading => true,
            Running::Recorded => false,
        });
        engines
    }
}

/// Drops a nested run that is over on a thread of its own: dropping joins its threads,
/// waiting a while for box code that outlives it, which must hold up neither the box code
/// that ran it nor virtual time. Every handle box code held goes here too: the last one,
/// dropped in box code, would join the run's threads (a hook still asleep on the clock)
/// while that box code holds its turn, and virtual time would wait for it.
fn retire(engine: Arc<Engine>) {
    // If no thread can start, the engine is dropped here, which only waits longer.
    let _ = std::thread::Builder::new()
        .name("choreo-retire".to_string())
        .spawn(move || drop(engine));
}

fn names(list: impl IntoIterator<Item = String>) -> Value {
    Value::List(list.into_iter().map(Value::String).collect())
}

/// What a run's final outcome means to `runBehavior`: an error only for a run that failed,
/// on one line (a traceback's last line: the exception).
fn failure(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Failed {
            path,
            hook,
            message,
        } => {
            let last = message
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .trim();
            Some(format!("{path} ({hook}): {last}"))
        }
        Outcome::Crashed { message } => Some(format!("the engine crashed: {message}")),
        Outcome::RobotLost => Some("the robot was lost".to_string()),
        _ => None,
    }
}

/// Starts behavior `name` and waits until it has started: its nested run, or `None` for a
/// behavior installed by name only. `awaited`: box code waits for its end and is told if
/// it failed; otherwise its failure goes to the run that owns the time base
/// ([`Engine::fails_its_owner`]).
fn start(
    sim: &Sim,
    a: &Args<'_>,
    name: &str,
    awaited: bool,
) -> Result<Option<Arc<Engine>>, CallError> {
    let launcher = {
        let mut state = sim.state();
        let m = &mut state.part::<Manager>();
        m.sweep();
        if !m.installed().contains(name) {
            return Err(CallError::Failed(format!(
                "{}: behavior {name:?} is not installed",
                a.name
            )));
        }
        if m.running.contains_key(name) {
            return Err(CallError::Failed(format!(
                "{}: behavior {name:?} is already running",
                a.name
            )));
        }
        let launcher = m
            .launcher
            .clone()
            .filter(|l| l.installed().iter().any(|n| n == name));
        let Some(launcher) = launcher else {
            m.running.insert(name.to_string(), Running::Recorded);
            return Ok(None);
        };
        let nested = m
            .running
            .values()
            .filter(|r| matches!(r, Running::Loading | Running::Nested(_)))
            .count();
        if nested >= MAX_NESTED {
            return Err(CallError::Failed(format!(
                "{}: behavior {name:?} cannot start: {MAX_NESTED} behaviors already run \
                 nested (behaviors that keep starting others?)",
                a.name
            )));
        }
        m.running.insert(name.to_string(), Running::Loading);
        launcher
    };
    // Loading constructs the boxes, whose code may call the robot: outside the lock.
    let loaded = sim.time().and_then(|time| {
        launcher.load(name, time).map_err(|e| {
            CallError::Failed(format!("{}: behavior {name:?} cannot load: {e}", a.name))
        })
    });
    match loaded {
        Ok(engine) => {
            let engine = Arc::new(engine);
            sim.state()
                .part::<Manager>()
                .running
                .insert(name.to_string(), Running::Nested(Arc::clone(&engine)));
            if !awaited {
                engine.fails_its_owner();
            }
            // Outside the lock: the start runs box code.
            engine.start_parked();
            Ok(Some(engine))
        }
        Err(e) => {
            sim.state().part::<Manager>().running.remove(name);
            Err(e)
        }
    }
}

/// Stops `engines` and waits for their ends (parked: the caller is box code), but for a
/// run the calling box belongs to (whose stop may wait for this very hook, an onUnload).
fn stop_and_wait(engines: &[Arc<Engine>]) {
    for e in engines {
        e.stop();
    }
    for e in engines.iter().filter(|e| !e.runs_on_this_thread()) {
        e.wait_end_parked();
    }
}

/// Serves ALFrameManager and ALChoregraphe: `onPythonError`, the script errors Choregraphe
/// forwards (told to the observer).
pub(crate) fn serve_frames(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    if method != "onPythonError" {
        return Ok(Reply::NotServed);
    }
    let parts: Vec<String> = a.values.iter().map(ToString::to_string).collect();
    sim.script_error(parts.join(": "));
    Ok(Reply::Now(Value::None))
}

/// Whether `service.method` returns only at the end of a behavior's run
/// (`ALBehaviorManager.runBehavior`): posted, it runs on a background activity
/// ([`Sim::post_in_background`]) rather than in the poster's call.
pub(crate) fn waits_for_a_run(service: &str, method: &str) -> bool {
    service == "ALBehaviorManager" && method == "runBehavior"
}

/// Serves ALBehaviorManager.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "runBehavior" => {
            let name = a.str(0)?;
            // Called from box code, the failure is raised there; posted (a task of its own),
            // nobody would hear of it.
            if let Some(engine) = start(sim, a, name, Engine::runs_box_code_here())? {
                let outcome = engine.wait_end_parked();
                sim.state().part::<Manager>().sweep();
                retire(engine);
                if let Some(why) = failure(&outcome) {
                    return Err(CallError::Failed(format!(
                        "{}: behavior {name:?} failed: {why}",
                        a.name
                    )));
                }
            }
            Value::None
        }
        "startBehavior" => {
            start(sim, a, a.str(0)?, false)?;
            Value::None
        }
        "preloadBehavior" => Value::Bool(
            sim.state()
                .part::<Manager>()
                .installed()
                .contains(a.str(0)?),
        ),
        "stopBehavior" => {
            let name = a.str(0)?;
            let engine = {
                let mut state = sim.state();
                let m = &mut state.part::<Manager>();
                match m.running.get(name) {
                    Some(Running::Recorded) => {
                        m.running.remove(name);
                        None
                    }
                    Some(r) => r.engine(),
                    None => None,
                }
            };
            if let Some(engine) = engine {
                stop_and_wait(std::slice::from_ref(&engine));
                sim.state().part::<Manager>().sweep();
                retire(engine);
            }
            Value::None
        }
        "stopAllBehaviors" => {
            let engines = sim.state().part::<Manager>().engines_to_stop(true);
            stop_and_wait(&engines);
            sim.state().part::<Manager>().sweep();
            engines.into_iter().for_each(retire);
            Value::None
        }
        "isBehaviorRunning" | "isBehaviorLoaded" => {
            let name = a.str(0)?;
            let mut state = sim.state();
            state.part::<Manager>().sweep();
            Value::Bool(state.part::<Manager>().running.contains_key(name))
        }
        "isBehaviorInstalled" | "isBehaviorPresent" => Value::Bool(
            sim.state()
                .part::<Manager>()
                .installed()
                .contains(a.str(0)?),
        ),
        "getInstalledBehaviors" | "getBehaviorNames" | "getUserBehaviorNames" => {
            names(sim.state().part::<Manager>().installed())
        }
        "getSystemBehaviorNames" => names([]),
        "getRunningBehaviors" | "getLoadedBehaviors" => {
            names(sim.state().part::<Manager>().running_names())
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// Stops every nested run ALBehaviorManager started, waits for their ends, and forgets
/// every behavior running, the one played included (see
/// [`crate::SimRobot::stop_behaviors`]).
pub(crate) fn stop_nested(sim: &Sim) {
    let engines = sim.state().part::<Manager>().engines_to_stop(false);
    for e in &engines {
        e.stop();
    }
    for e in &engines {
        e.wait_end();
    }
    engines.into_iter().for_each(retire);
    let forgotten = std::mem::take(&mut sim.state().part::<Manager>().running);
    for running in forgotten.into_values() {
        if let Running::Nested(e) = running {
            retire(e);
        }
    }
}
