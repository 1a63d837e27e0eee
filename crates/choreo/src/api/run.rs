//! A loaded behavior: start and stop it, stimulate its boxes, observe what they do, read
//! and set parameters, drive timelines, read the simulated robot, wait for the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_engine::trace::{Event, ListenerId, Step};
use choreo_engine::{Engine, EngineError, Options, Outcome, Robot, TimelineCommand, Trace, Value};
use choreo_naoqi::{RobotEvent, Scenario, SimRobot, Snapshot};
use choreo_python::confinement::Confinement;
use choreo_robot::Model;
use choreo_xar::source::FilesOnDisk;

use crate::api::error::{Error, Result};
use crate::api::events::Events;
use crate::api::project::Project;
use crate::api::setup::{Clock, Setup, Target};
use crate::api::watched::Watched;
use crate::nested::{BoxCode, ProjectBehaviors, script_host};
use crate::package_services::PackageServices;

/// How a run ended, in the words a person uses: what `Run::wait_end` returns, what the
/// command reports, and the command's exit code ([`Ending::exit_code`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The root box fired its Stopped output.
    Finished,
    /// Stopped before it ended by itself; `by` says who asked.
    Stopped {
        /// Who stopped it.
        by: StoppedBy,
    },
    /// Virtual time: nothing could happen any more, the behavior waited for the world; it
    /// was stopped. `awaiting`: the ALMemory keys it was subscribed to then.
    Idle {
        /// The keys subscribed when it went idle, sorted.
        awaiting: Vec<String>,
    },
    /// The time limit ([`Setup::time_limit`]) passed; it was stopped.
    TimeLimit,
    /// Strict mode: an error escaped box code, and the behavior was stopped there.
    Failed {
        /// The box (`root/Say`).
        path: String,
        /// The hook (`onInput_onStart`).
        hook: String,
        /// The error.
        message: String,
    },
    /// The robot could not be reached any more; the behavior was stopped.
    RobotLost,
    /// A bug of choreo's stopped the run (what it unloaded, it unloaded).
    Crashed {
        /// What the panic said.
        message: String,
    },
    /// Box code's process (the box host) ended before the run did — box code ended it
    /// (`os._exit`, a signal, a crash in native code), or choreo stopped it for breaking its
    /// protocol — and the run was stopped (docs/security.md, The box host).
    BoxHostEnded {
        /// How.
        how: String,
        /// Where box code was, when it could be told: what it said it was about to do
        /// (`root/Box line 4 (onInput_onStart): os._exit(0)`), or the box frame of a fatal
        /// error's dump (`root/Box line 4 (onInput_onStart)`).
        at: Option<String>,
        /// It was stopped because box code did not give the run back within its real-time
        /// bound ([`Setup::box_code_bound`]).
        timeout: bool,
    },
}

/// Who stopped a run before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoppedBy {
    /// The program running it ([`Run::stop`]), or the robot's ALBehaviorManager.
    Program,
    /// An interruption: Ctrl-C (SIGINT) in the command.
    Interrupt,
    /// The monitor's page (its Stop button).
    Page,
    /// The fleet: another robot of `--all-or-nothing` did not finish.
    Fleet,
}

impl Ending {
    /// The ending a final outcome means: the one place the engine's [`Outcome`] becomes an
    /// ending (an interim outcome, idle or the time limit, ends a run once it is stopped).
    pub fn of(outcome: Outcome) -> Ending {
        match outcome {
            Outcome::Finished => Ending::Finished,
            Outcome::Failed {
                path,
                hook,
                message,
            } => Ending::Failed {
                path,
                hook,
                message,
            },
            Outcome::RobotLost => Ending::RobotLost,
            Outcome::Crashed { message } => Ending::Crashed { message },
            Outcome::Idle => Ending::Idle {
                awaiting: Vec::new(),
            },
            Outcome::TimeLimit => Ending::TimeLimit,
            Outcome::Stopped | Outcome::TimedOut => Ending::Stopped {
                by: StoppedBy::Program,
            },
        }
    }

    /// The exit code of a command whose run ended so ([`crate::exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            Ending::Finished => crate::exit::OK,
            Ending::Failed { .. } | Ending::Crashed { .. } => crate::exit::RUNTIME,
            Ending::TimeLimit | Ending::Idle { .. } => crate::exit::TIMEOUT,
            Ending::Stopped { .. } => crate::exit::INTERRUPTED,
            Ending::RobotLost => crate::exit::ROBOT,
            Ending::BoxHostEnded { timeout: true, .. } => crate::exit::TIMEOUT,
            Ending::BoxHostEnded { .. } => crate::exit::ABNORMAL,
        }
    }

    /// One word for it: the monitor's `ended` message.
    pub fn word(&self) -> &'static str {
        match self {
            Ending::Finished => "finished",
            Ending::Failed { .. } => "error",
            Ending::TimeLimit => "timeout",
            Ending::Idle { .. } => "idle",
            Ending::Stopped { .. } => "stopped",
            Ending::RobotLost => "robot lost",
            Ending::Crashed { .. } => "crashed",
            Ending::BoxHostEnded { .. } => "box code ended",
        }
    }
}

/// A loaded behavior and the robot it runs on. Every method takes `&self`: share it
/// between threads in an `Arc`. Dropping it stops the behavior ([`Run::close`]).
pub struct Run {
    engine: Arc<Engine>,
    trace: Trace,
    robot: Arc<Watched>,
    sim: Option<SimRobot>,
    project: Project,
    behavior: usize,
    model: Model,
    /// The manifest's services, if it declares any: stopped when the run closes.
    services: Option<Arc<PackageServices>>,
    /// The behavior's files on disk, kept until the run is dropped.
    _files: FilesOnDisk,
    /// What box code may reach, and was refused (`None`: unconfined).
    confinement: Option<Arc<Confinement>>,
    /// The process box code runs in, when not this one.
    box_host: Option<Arc<choreo_python::remote::BoxHost>>,
    /// Observers added with [`Run::on_event`] and [`Run::on_output`].
    listeners: Mutex<Vec<ListenerId>>,
    /// Why the run was stopped by a wait ([`Run::wait_end`]), if it was.
    stopped_for: Mutex<Option<Ending>>,
    closed: AtomicBool,
}

// Here rather than in setup.rs: a setup knows nothing of runs; loading one makes a run.
impl Setup {
    /// Loads the behavior: its files laid out as on a robot, its boxes constructed, the
    /// robot reached. Nothing runs until [`Run::start`].
    pub fn load(mut self) -> Result<Run> {
        if let Some(file) = self.scenario_file.take() {
            let scenario = Scenario::from_path(&file)?;
            self.scenario = Some(scenario);
        }
        Run::load(self)
    }
}

impl Run {
    pub(crate) fn load(setup: Setup) -> Result<Run> {
        let project = setup.project.clone();
        let behavior = project.behavior_at(setup.behavior);
        let model = setup.chosen_model();
        let language = setup.chosen_language();
        let trace = setup.trace.clone().unwrap_or_default();
        // `behaviorAbsolutePath()`: the behavior's folder where a robot installs it; an
        // archive's files are unpacked to a temporary folder, removed with the run.
        let install = match setup.installed {
            true => choreo_xar::source::Install::Package,
            false => choreo_xar::source::Install::Played,
        };
        let files = project
            .files()
            .on_disk_as(install)
            .map_err(|e| Error::Files { diagnostic: e.0 })?;
        if let Some(root) = files.robot_root() {
            trace.set_robot_root(root);
        }
        let behavior_dir = files.behavior_dir(behavior);
        let confinement = confinement(&setup, &project, &files);
        let boxes = box_code(&setup, confinement.clone())?;
        // The robot while the box host starts (its interpreter set up meanwhile).
        let (robot, sim) = connect(&setup, model, language.as_deref())?;
        let robot = Arc::new(Watched::new(robot));
        let host = script_host(&behavior_dir, &behavior.path, project.files(), &boxes);
        // A real robot does not say which model it is: the resource groups of the model
        // chosen apply. The simulated robot gives its own.
        let resources = Arc::new(choreo_naoqi::resource_tree(model));
        let options = Options {
            virtual_time: setup.clock == Clock::Virtual,
            trace: trace.clone(),
            time_limit: setup.time_limit,
            robot: Some(Arc::clone(&robot) as Arc<dyn Robot>),
            strict: setup.strict,
            resources: Some(Arc::clone(&resources)),
            on_frame: setup.on_frame.clone(),
            time_base: None,
            timeline_sync: setup.timeline_sync.clone(),
            seed: setup.seed,
            chance: setup.chance(),
            start_time: setup.start_time,
        };
        let engine = Engine::load(&behavior.xar, host.as_ref(), options);
        let ready = boxes.host.as_deref().map_or(Ok(()), box_host_ready);
        if ready.is_err() || engine.is_err() {
            // What the load recorded (the boxes made before the failure, and unmade) is
            // written now: box code may keep the trace alive past the process's end.
            let _ = trace.flush_writer();
        }
        ready?;
        let engine =
            engine.map_err(|source| load_failed(source, project.path(), boxes.host.as_deref()))?;
        let engine = Arc::new(engine);
        if let Some(host) = &boxes.host {
            // Box code's process gone, nothing runs its hooks: the run stops there, and
            // says why (`Run::box_host_end`).
            let weak = Arc::downgrade(&engine);
            host.on_end(move || {
                if let Some(engine) = weak.upgrade() {
                    engine.stop();
                }
            });
        }
        if let Some(sim) = &sim {
            let world = World {
                engine: &engine,
                trace: &trace,
                robot: &robot,
                files: &files,
                resources: &resources,
                boxes: &boxes,
            };
            equip(sim, &setup, &project, behavior, world);
        }
        let services = sim
            .as_ref()
            .and_then(|sim| package_services(sim, &project, &files, confinement.clone()));
        let run = Run {
            engine,
            trace,
            robot,
            sim,
            project,
            behavior: setup.behavior,
            model,
            services,
            _files: files,
            confinement,
            box_host: boxes.host.clone(),
            listeners: Mutex::new(Vec::new()),
            stopped_for: Mutex::new(None),
            closed: AtomicBool::new(false),
        };
        setup.apply_params(
            |path, name, text| run.set_parameter_text(path, name, text),
            |path, name, value| run.set_parameter(path, name, value),
        )?;
        Ok(run)
    }

    /// What box code was refused by the sandbox, in order (`write /tmp/x (root/Box line 4;
    /// --allow-write /tmp)`); empty when nothing was, or the run is unconfined.
    pub fn refused(&self) -> Vec<String> {
        // A refusal travels on the box host's control socket, the error it raised on a
        // lane: what the box host said before now is read first.
        if let (Some(_), Some(host)) = (&self.confinement, &self.box_host) {
            host.sync();
        }
        let refused = self.confinement.as_ref().map(|c| c.refused());
        // The robot's paths, as the trace shows them (`Trace::set_robot_root`).
        refused
            .unwrap_or_default()
            .iter()
            .map(|r| self.trace.robot_view(r))
            .collect()
    }

    /// How box code's process (the box host) ended, when the run has one and it ended
    /// before the run let it go: box code ended it (`os._exit`, a signal, a crash), or
    /// choreo stopped it for breaking its protocol.
    pub fn box_host_end(&self) -> Option<choreo_python::remote::Ended> {
        let ended = self.box_host.as_ref()?.ended();
        (!ended.let_go && (ended.status.is_some() || ended.stopped.is_some())).then_some(ended)
    }

    /// Whether the engine called box code in its box host within `within` of now (a run in
    /// virtual time whose time stands still is then slow, not held by box code); false
    /// without a box host.
    pub fn box_code_called_within(&self, within: Duration) -> bool {
        self.box_host
            .as_ref()
            .is_some_and(|h| h.called_within(within))
    }

    /// How many processes box code started were still running in its box host's namespace
    /// when the run let the box host go (after [`Run::close`]), killed with it.
    pub fn left_running(&self) -> usize {
        self.box_host.as_ref().map_or(0, |h| h.ended().left_running)
    }

    /// The end of the box host's standard error (a fatal error's dump).
    fn box_host_fault(&self) -> String {
        self.box_host
            .as_ref()
            .map(|h| h.stderr_tail())
            .unwrap_or_default()
    }

    /// The ending of a run whose box host ended before it: how, from choreo's side.
    pub fn box_host_ending(&self) -> Option<Ending> {
        let ended = self.box_host_end()?;
        let how = crate::ended::box_host_how(&ended)?;
        let at = (ended.notes.first().cloned())
            .or_else(|| crate::ended::box_frame(&self.box_host_fault()));
        Some(Ending::BoxHostEnded {
            how,
            at,
            timeout: ended.out_of_time,
        })
    }

    /// Starts the behavior (its root's onStart).
    pub fn start(&self) -> Result<()> {
        self.open()?;
        // The `autorun` services start first, as at the robot's boot.
        if let Some(services) = &self.services {
            services.start_autorun();
        }
        self.engine.start();
        Ok(())
    }

    /// Asks the behavior to stop: every box is unloaded, then destroyed ([`Run::wait_end`]
    /// waits for it).
    pub fn stop(&self) {
        self.engine.stop();
    }

    /// Stimulates input `input` of the box at `path` (`root/Say`, `root/` optional) with
    /// `value` (`()` for a bang), as a link would.
    pub fn stimulate(&self, path: &str, input: &str, value: impl Into<Value>) -> Result<()> {
        self.open()?;
        let path = self.box_path(path);
        Ok(self.engine.stimulate(&path, input, value.into())?)
    }

    /// Every trace event from now on, as an iterator that ends with the run
    /// ([`Events`]).
    pub fn events(&self) -> Events {
        Events::new(&self.trace, &self.engine)
    }

    /// Calls `observer` with every trace event from now on (on the trace's delivery
    /// thread, in order), until [`Run::unobserve`] or the run is dropped.
    pub fn on_event(&self, observer: impl Fn(&Event) + Send + Sync + 'static) -> ListenerId {
        let id = self.trace.add_listener(Arc::new(observer));
        self.lock_listeners().push(id);
        id
    }

    /// Calls `observer` with the value of each firing of output `output` of the box at
    /// `path`, until [`Run::unobserve`] or the run is dropped.
    pub fn on_output(
        &self,
        path: &str,
        output: &str,
        observer: impl Fn(&Value) + Send + Sync + 'static,
    ) -> Result<ListenerId> {
        let path = self.box_path(path);
        let graph = self.engine.graph();
        let b = graph
            .find(&path)
            .ok_or_else(|| EngineError::NoBox { path: path.clone() })?;
        if !graph.node(b).outputs.iter().any(|o| o.name == output) {
            return Err(EngineError::NoOutput {
                path,
                output: output.to_string(),
            }
            .into());
        }
        let output = output.to_string();
        Ok(self.on_event(move |e| {
            if let Step::Out { port, value } = &e.step
                && *port == output
                && e.path == path
            {
                observer(value);
            }
        }))
    }

    /// Stops calling an observer of [`Run::on_event`] or [`Run::on_output`].
    pub fn unobserve(&self, id: ListenerId) {
        self.trace.remove_listener(id);
        self.lock_listeners().retain(|l| *l != id);
    }

    /// The value parameter `name` of the box at `path` has now, as its code reads it (an
    /// inheriting parameter: its nearest ancestor's).
    pub fn parameter(&self, path: &str, name: &str) -> Result<Value> {
        Ok(self.engine.parameter(&self.box_path(path), name)?)
    }

    /// Sets parameter `name` of the box at `path` to `value` (its box code reads it from
    /// then on).
    pub fn set_parameter(&self, path: &str, name: &str, value: impl Into<Value>) -> Result<()> {
        let path = self.box_path(path);
        Ok(self.engine.set_parameter_value(&path, name, value.into())?)
    }

    /// Sets parameter `name` of the box at `path` from a text read by the parameter's type
    /// (`choreo run --param`'s form).
    pub fn set_parameter_text(&self, path: &str, name: &str, text: &str) -> Result<()> {
        Ok(self
            .engine
            .set_parameter(&self.box_path(path), name, text)?)
    }

    /// The timeline of the box at `path`, to play, pause or move it.
    pub fn timeline(&self, path: &str) -> Result<Timeline<'_>> {
        let path = self.box_path(path);
        let graph = self.engine.graph();
        let b = graph
            .find(&path)
            .ok_or_else(|| EngineError::NoBox { path: path.clone() })?;
        match graph.node(b).content {
            choreo_engine::graph::Content::Timeline(_) => Ok(Timeline { run: self, path }),
            _ => Err(EngineError::NoTimeline { path }.into()),
        }
    }

    /// The simulated robot's state now: joints, LEDs, posture, what it said, ALMemory.
    pub fn robot_state(&self) -> Result<Snapshot> {
        Ok(self.simulated("the robot's state")?.snapshot())
    }

    /// Everything the simulated robot has said, in order (tags stripped).
    pub fn said(&self) -> Result<Vec<String>> {
        Ok(self.robot_state()?.spoken)
    }

    /// Every joint's angle now (radians; hands: opening ratio), by name.
    pub fn joints(&self) -> Result<BTreeMap<String, f64>> {
        Ok(self
            .robot_state()?
            .joints
            .into_iter()
            .map(|j| (j.name, j.angle))
            .collect())
    }

    /// The value of ALMemory key `key` (on the simulated robot or a real one).
    pub fn memory(&self, key: &str) -> Result<Value> {
        Ok(self
            .robot
            .call("ALMemory", "getData", vec![Value::from(key)])?)
    }

    /// Raises ALMemory event `key` with `value`, as the world would (a touch:
    /// `("FrontTactilTouched", 1.0)`; on a real robot too).
    pub fn raise_event(&self, key: &str, value: impl Into<Value>) -> Result<()> {
        let value = value.into();
        match &self.sim {
            Some(sim) => sim.raise_event(key, value),
            None => {
                self.robot
                    .call("ALMemory", "raiseEvent", vec![Value::from(key), value])?;
            }
        }
        Ok(())
    }

    /// The simulated robot, when the run has one.
    pub fn simulated_robot(&self) -> Option<&SimRobot> {
        self.sim.as_ref()
    }

    /// The seed of the run's chance (see [`Setup::seed`]): give it again to repeat the run.
    pub fn seed(&self) -> u64 {
        self.engine.time().seed()
    }

    /// The wall clock at the run's start, in ms since the Unix epoch (UTC; see
    /// [`Setup::start_time`]).
    pub fn start_time(&self) -> u64 {
        self.engine.time().start_ms()
    }

    /// Now, in behavior time.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(self.engine.now().0)
    }

    /// Waits at most `timeout` (real time) for what comes next: a final outcome, or an
    /// interim one ([`Outcome::Idle`]: nothing will happen any more unless the world acts;
    /// [`Outcome::TimeLimit`]), which leaves the behavior running.
    pub fn wait(&self, timeout: Duration) -> Result<Outcome> {
        match self.engine.wait(timeout) {
            Outcome::TimedOut => Err(Error::WaitTimedOut(timeout)),
            outcome => Ok(outcome),
        }
    }

    /// Waits at most `timeout` (real time) for the run's end. A run that goes idle (it
    /// waits for the world) or reaches its time limit is stopped then, and ends so.
    pub fn wait_end(&self, timeout: Duration) -> Result<Ending> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let outcome = self.engine.wait(left);
            let why = match outcome {
                Outcome::TimedOut => return Err(Error::WaitTimedOut(timeout)),
                Outcome::Idle => Ending::Idle {
                    awaiting: self.robot.subscribed(),
                },
                Outcome::TimeLimit => Ending::TimeLimit,
                done => {
                    if let Some(ending) = self.box_host_ending() {
                        return Ok(ending);
                    }
                    let why = self.lock_stopped_for().take();
                    return Ok(why.unwrap_or_else(|| Ending::of(done)));
                }
            };
            let mut stopped_for = self.lock_stopped_for();
            if stopped_for.is_none() {
                *stopped_for = Some(why);
                self.engine.stop();
            }
        }
    }

    /// The ALMemory keys subscribed now (what an idle behavior waits for).
    pub fn awaited(&self) -> Vec<String> {
        self.robot.subscribed()
    }

    /// Stops the behavior if it runs, waits (at most 10 s) for its unload, stops the
    /// behaviors it started through ALBehaviorManager, ends box code's process and removes
    /// the observers, so that dropping the run frees its engine and threads. Later calls
    /// that act on the behavior are [`Error::Closed`].
    pub fn close(&self) {
        self.close_for_report();
        if let Some(host) = &self.box_host {
            host.reap();
        }
    }

    /// [`Run::close`], but box code's process, killed, is waited for only when the run is
    /// dropped: a caller with a report to print prints it while the kernel ends its
    /// namespace (a few milliseconds).
    pub fn close_for_report(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if !self.engine.is_over() {
            self.engine.stop();
            let _ = self.engine.wait(Duration::from_secs(10));
        }
        if let Some(services) = &self.services {
            services.stop_all();
        }
        if let Some(host) = &self.box_host {
            // Its end is told before it is let go: `box_host_end` keeps it.
            host.release();
        }
        if let Some(sim) = &self.sim {
            sim.stop_behaviors();
            sim.set_launcher(None);
            sim.set_service_host(None);
            // The observer holds the engine, the trace and the robot itself: let them go.
            sim.set_observer(Arc::new(|_: &RobotEvent| {}));
        }
        let _ = self.trace.flush_writer();
        for id in self.lock_listeners().drain(..) {
            self.trace.remove_listener(id);
        }
    }

    /// The engine, for what the API does not cover (the CLI's reports, the monitor).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The run's trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The robot model the run uses.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The project the behavior comes from.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The behavior's name in its project.
    pub fn behavior_name(&self) -> &str {
        &self.project.behavior_at(self.behavior).name
    }

    /// `path` as the trace names it: the root's name first (`Say` and `root/Say` are both
    /// `root/Say`).
    pub fn box_path(&self, path: &str) -> String {
        let root = &self.engine.graph().node(Graph::ROOT).path;
        if path == root || path.starts_with(&format!("{root}/")) {
            path.to_string()
        } else {
            format!("{root}/{path}")
        }
    }

    fn simulated(&self, what: &'static str) -> Result<&SimRobot> {
        self.sim.as_ref().ok_or(Error::NotSimulated { what })
    }

    fn open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            Err(Error::Closed)
        } else {
            Ok(())
        }
    }

    fn lock_listeners(&self) -> std::sync::MutexGuard<'_, Vec<ListenerId>> {
        choreo_base::lock(&self.listeners)
    }

    fn lock_stopped_for(&self) -> std::sync::MutexGuard<'_, Option<Ending>> {
        choreo_base::lock(&self.stopped_for)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // Box code's process reaped here too after `close_for_report`: others may hold it
        // (the engine's host), and nothing of it may outlive the run's owner (a process
        // reparented to choreo's supervising parent would count as box code's).
        self.close();
    }
}

/// The timeline of one box ([`Run::timeline`]): each command acts as the box's own code
/// would (`getTimeline()`), at the next turn of the engine.
pub struct Timeline<'a> {
    run: &'a Run,
    path: String,
}

impl Timeline<'_> {
    fn send(&self, command: TimelineCommand) -> Result<()> {
        self.run.open()?;
        Ok(self.run.engine.timeline(&self.path, command)?)
    }

    /// Plays from the cursor (loads and plays a stopped timeline).
    pub fn play(&self) -> Result<()> {
        self.send(TimelineCommand::Play)
    }

    /// Freezes the cursor; what is loaded stays loaded.
    pub fn pause(&self) -> Result<()> {
        self.send(TimelineCommand::Pause)
    }

    /// Unloads and puts the cursor before the first frame.
    pub fn stop(&self) -> Result<()> {
        self.send(TimelineCommand::Stop)
    }

    /// Moves the cursor to `frame`.
    pub fn go_to_frame(&self, frame: i64) -> Result<()> {
        self.send(TimelineCommand::GoToFrame(frame))
    }

    /// Moves the cursor to the behavior keyframe named `label`.
    pub fn go_to_label(&self, label: &str) -> Result<()> {
        self.send(TimelineCommand::GoToLabel(label.to_string()))
    }

    /// Plays at `fps` frames per second from the next frame on.
    pub fn set_fps(&self, fps: u32) -> Result<()> {
        self.send(TimelineCommand::SetFps(fps))
    }
}

/// What a real robot cannot have: virtual time, a scenario (the world is the real one).
fn only_simulated(setup: &Setup) -> Result<()> {
    if setup.clock == Clock::Virtual {
        return Err(Error::NotSimulated {
            what: "virtual time",
        });
    }
    if setup.scenario.is_some() {
        return Err(Error::NotSimulated { what: "a scenario" });
    }
    Ok(())
}

/// The robot a run drives: the simulated one (its language and scenario set) or a real one.
fn connect(
    setup: &Setup,
    model: Model,
    language: Option<&str>,
) -> Result<(Arc<dyn Robot>, Option<SimRobot>)> {
    let target = match setup.target.clone() {
        Some(target) => target,
        None => Target::Simulated(SimRobot::new(model)),
    };
    Ok(match target {
        Target::Simulated(sim) => {
            if let Some(name) = language
                && !sim.set_language(name)
            {
                return Err(Error::NoLanguage {
                    name: name.to_string(),
                });
            }
            if let Some(s) = &setup.scenario {
                known_posture(&sim, s)?;
                sim.load_scenario(s.clone());
            }
            (Arc::new(sim.clone()), Some(sim))
        }
        Target::Url { url, options } => {
            only_simulated(setup)?;
            let remote = choreo_qi::RemoteRobot::connect(&url, options)
                .map_err(|source| Error::Robot { url, source })?;
            (Arc::new(remote) as Arc<dyn Robot>, None)
        }
        Target::Remote(remote) => {
            only_simulated(setup)?;
            (remote as Arc<dyn Robot>, None)
        }
    })
}

/// An error unless the posture `scenario` starts the robot in, if any, is one of its model's.
fn known_posture(sim: &SimRobot, scenario: &Scenario) -> Result<()> {
    let Some(name) = &scenario.posture else {
        return Ok(());
    };
    let model = sim.model();
    let known: Vec<&str> = model.postures().iter().map(|p| p.name).collect();
    if known.contains(&name.as_str()) {
        return Ok(());
    }
    Err(Error::NoPosture {
        scenario: scenario.name.clone(),
        model: model.name().to_string(),
        name: name.clone(),
        known: known.join(", "),
    })
}

/// What a loaded run gives the simulated robot to work with.
struct World<'a> {
    engine: &'a Arc<Engine>,
    trace: &'a Trace,
    robot: &'a Arc<Watched>,
    files: &'a FilesOnDisk,
    resources: &'a Arc<choreo_engine::resource::ResourceTree>,
    boxes: &'a BoxCode,
}

/// The simulated robot made the run's own: what it shows goes into the trace, its paths
/// name the run's folders, its dialogs run Python, its ALBehaviorManager runs the project's
/// behaviors.
fn equip(
    sim: &SimRobot,
    setup: &Setup,
    project: &Project,
    behavior: &choreo_xar::source::Behavior,
    world: World<'_>,
) {
    let now = Arc::clone(world.engine);
    let shows = world.trace.clone();
    let shown = sim.clone();
    let theirs = setup.on_robot_event.clone();
    sim.set_observer(Arc::new(move |e: &RobotEvent| {
        let at = now.now();
        // A fall says which frame of which timeline the robot was playing.
        let framed;
        let e = match e {
            RobotEvent::Fell { direction, text } => {
                framed = RobotEvent::Fell {
                    direction: direction.clone(),
                    text: crate::looks::while_playing(text, &now.timeline_frames()),
                };
                &framed
            }
            _ => e,
        };
        // Box code still running once the run is over (a thread the end woke) acts outside
        // the run: not the run's, as for its trace. ServiceManager stopping the package's
        // services as the run closes is the run's own end, and told.
        let closing =
            matches!(e, RobotEvent::Notice { service, .. } if service == "ALServiceManager");
        if let Some(observer) = &theirs
            && (closing || !now.is_over())
        {
            observer(at, e);
        }
        // What the robot says, its LEDs and posture go into the trace: a dialog's
        // answers are said by the robot itself, not by a box's call.
        crate::looks::record(&shows, &shown, at, e);
    }));
    // The robot's paths the methods take name places in the run's own folders.
    sim.set_robot_root(world.files.robot_root().map(std::path::Path::to_path_buf));
    // ALDialog's `%script` blocks run in the embedded CPython: the box host's when the run
    // has one (they are the project's code).
    let confinement = world.boxes.confinement.clone();
    let host = world.boxes.host.clone();
    sim.set_dialog_scripts(Some(Arc::new(move |code: &str| match &host {
        Some(host) => {
            host.dialog_script(code)
                .map_err(|e| choreo_qichat::dialog::HostError::Raised {
                    exception: e.exception,
                })
        }
        None => dialog_script(code, confinement.as_ref()),
    })));
    // ALBehaviorManager runs the project's behaviors as nested runs of this one.
    let weak: Weak<Watched> = Arc::downgrade(world.robot);
    sim.set_launcher(Some(Arc::new(
        ProjectBehaviors::new(
            Arc::clone(project.files()),
            world.files.path().to_path_buf(),
            world.trace.clone(),
            weak,
            setup.strict,
            Arc::clone(world.resources),
        )
        .confined(world.boxes.clone()),
    )));
    if let Some(name) = ProjectBehaviors::played_name(behavior) {
        sim.behavior_started(&name, world.engine);
    }
}

/// Why a load failed: a timeout when its box host was stopped for want of time (box code
/// did not give the load back), else the engine's error.
fn load_failed(
    source: choreo_engine::EngineError,
    path: &Path,
    host: Option<&choreo_python::remote::BoxHost>,
) -> Error {
    match host {
        Some(h) if h.ended().out_of_time => Error::BoxCodeTimeout(
            (h.ended().notes.first().cloned())
                .or_else(|| crate::ended::box_frame(&h.stderr_tail())),
        ),
        _ => Error::Load {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// The run's box code: in a box host when the setup asks for one and the run is confined
/// (started, not waited for: [`box_host_ready`]).
fn box_code(setup: &Setup, confinement: Option<Arc<Confinement>>) -> Result<BoxCode> {
    let Some(confinement) = confinement else {
        return Ok(BoxCode::default());
    };
    if !setup.box_host {
        return Ok(BoxCode {
            confinement: Some(confinement),
            host: None,
        });
    }
    let boxes = BoxCode::in_box_host(confinement, setup.max_memory)
        .map_err(|e| Error::BoxHost(e.to_string()))?;
    if let (Some(host), Some(within)) = (&boxes.host, setup.box_code_bound) {
        host.bound(within);
    }
    Ok(boxes)
}

/// The box host started without waiting (its interpreter is set up while choreo loads the
/// run) is ready: or why not; its shortfall said once.
fn box_host_ready(host: &choreo_python::remote::BoxHost) -> Result<()> {
    host.wait_ready()
        .map_err(|why| Error::BoxHost(why.to_string()))?;
    if let Some(short) = host.shortfall() {
        eprintln!("notice: box code's process has {short}");
    }
    Ok(())
}

/// The confinement of the run's box code, as the setup asks: the run's folders written, the
/// project read (docs/security.md).
fn confinement(setup: &Setup, project: &Project, files: &FilesOnDisk) -> Option<Arc<Confinement>> {
    let allowed = setup.sandbox.clone()?;
    let run: Vec<PathBuf> = files
        .robot_root()
        .map(Path::to_path_buf)
        .into_iter()
        .collect();
    // A lone file's folder holds what it names (its sounds, its pictures).
    let input = project.path();
    let input = if input.is_file() {
        input.parent().unwrap_or(input)
    } else {
        input
    };
    let mut read = vec![files.path().to_path_buf(), input.to_path_buf()];
    // A behavior run from inside a package reaches the package's other files, as on the
    // robot, where the whole package is installed (`behavior_1/../dialog/dialog.dlg`): the
    // nearest folder above it with a manifest.
    if let Some(package) = input
        .ancestors()
        .skip(1)
        .take(PACKAGE_DEPTH)
        .find(|folder| folder.join("manifest.xml").is_file())
    {
        read.push(package.to_path_buf());
    }
    Some(Arc::new(Confinement::new(&run, &read, allowed)))
}

/// How far above a behavior's folder its package's manifest is looked for: a package's
/// behaviors sit one or two folders down (`behavior_1/`, `behaviors/greet/`).
const PACKAGE_DEPTH: usize = 3;

/// ALServiceManager's services: the manifest's, run by their programs (package_services.rs).
fn package_services(
    sim: &SimRobot,
    project: &Project,
    files: &FilesOnDisk,
    confinement: Option<Arc<Confinement>>,
) -> Option<Arc<PackageServices>> {
    let m = project.files().manifest.as_ref()?;
    if m.services.is_empty() {
        return None;
    }
    let uuid = m.uuid.clone().unwrap_or_else(|| project.name().to_string());
    let services = PackageServices::new(
        &uuid,
        m.services.clone(),
        files.path(),
        files.robot_root(),
        sim.clone(),
        confinement,
    );
    sim.set_service_host(Some(
        Arc::clone(&services) as Arc<dyn choreo_naoqi::ServiceHost>
    ));
    Some(services)
}

/// QiChat's `%script`, run in the embedded CPython (for ALDialog, and `choreo chat`), under
/// the project's `confinement`.
pub(crate) fn dialog_script(
    code: &str,
    confinement: Option<&Arc<Confinement>>,
) -> Result<String, choreo_qichat::dialog::HostError> {
    choreo_python::run_dialog_script(code, confinement).map_err(|e| {
        choreo_qichat::dialog::HostError::Raised {
            exception: e.exception,
        }
    })
}
