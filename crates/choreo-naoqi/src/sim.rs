//! The simulated robot: [`SimRobot`], what every call goes through (statistics, the generic
//! task API, scenario triggers, tasks), and the dispatch to the services.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};

use choreo_engine::clock::Time;
use choreo_engine::resource::ResourceTree;
use choreo_engine::{Activity, MemorySink, Robot, RobotError, SubscriptionId, Value};

use crate::args::{Args, signature};
use crate::memory::Memory;
use crate::observe::{CallStats, JointState, RobotEvent, Snapshot, TaskInfo};
use crate::scenario::{Scenario, When};
use crate::tasks::{Driven, Plan, Tasks};
use crate::{audio, behaviors, kept, leds, motion, posture, speech, tts};
use choreo_robot::Model;

/// The NAOqi version a robot of `model` reports (`version()`, `ALSystem.systemVersion`):
/// NAO's of the NAO V6 system (2.8), Pepper's of 2.5.
pub(crate) fn naoqi_version(model: Model) -> &'static str {
    match model {
        Model::Nao => "2.8.5.10",
        Model::Pepper => "2.5.10.7",
    }
}

/// Receives every [`RobotEvent`]; called from the thread that caused it, without any robot
/// lock held (it may call back into the robot), so it must be short.
pub type Observer = Arc<dyn Fn(&RobotEvent) + Send + Sync>;

/// What a service answers to a call.
pub(crate) enum Reply {
    /// The result, at once.
    Now(Value),
    /// A method that takes time: run as a task.
    Timed(Plan),
    /// The module does not serve this method.
    NotServed,
}

/// The modules served by their own files; their method sets are NAOqi's catalogue's
/// (`crate::catalogue`), the generic ALModule methods on top.
const SERVED: &[&str] = &[
    "ALTextToSpeech",
    "ALAnimatedSpeech",
    "ALMemory",
    "ALMotion",
    "ALNavigation",
    "ALRobotPosture",
    "ALLeds",
    "ALAudioPlayer",
    "ALSpeechRecognition",
    "ALDialog",
    "ALBehaviorManager",
    "ALFrameManager",
    "ALChoregraphe",
];

/// The modules served from a method table, one line each (`kept.rs`).
pub(crate) const KEPT: &[&kept::Service] = &[
    &crate::robot_pose::SERVICE,
    &crate::world::SERVICE,
    &crate::logger::SERVICE,
    &crate::sentinel::SERVICE,
    &crate::compass::SERVICE,
    &crate::mood::SERVICE,
    &crate::service_manager::SERVICE,
    &crate::autonomous::MOVES,
    &crate::autonomous::BLINKING,
    &crate::face::SERVICE,
    &crate::voice_emotion::SERVICE,
    &crate::tablet::SERVICE,
    &crate::video::SERVICE,
    &crate::connection::SERVICE,
    &crate::capture::PHOTO,
    &crate::capture::VIDEO,
    &crate::toolbox::SERVICE,
    &crate::detection::MOVEMENT,
    &crate::detection::DARKNESS,
    &crate::detection::BACKLIGHTING,
    &crate::detection::SOUND,
    &crate::detection::LOCALIZATION,
    &crate::detection::SOURCE_LOCALIZATION,
    &crate::trackers::RED_BALL,
    &crate::trackers::FACE,
    &crate::infrared::SERVICE,
    &crate::power::BATTERY,
    &crate::power::TEMPERATURE,
    &crate::python_bridge::SERVICE,
    &crate::animation::SERVICE,
    &crate::tracker::SERVICE,
    &crate::awareness::SERVICE,
    &crate::life::SERVICE,
    &crate::people::FACE,
    &crate::people::PEOPLE,
    &crate::localization::SERVICE,
    &crate::audio_device::SERVICE,
    &crate::dcm::SERVICE,
    &crate::system::SERVICE,
];

fn kept_service(service: &str) -> Option<&'static kept::Service> {
    KEPT.iter().copied().find(|k| k.name == service)
}

/// The methods `service` has besides the generic ones (empty for an unknown module).
pub(crate) fn methods_of(service: &str) -> Vec<&'static str> {
    let listed = crate::catalogue::methods(service);
    if listed.is_empty() {
        // A module served from a table that the catalogue lacks still lists what it serves
        // (a test keeps the two in step: `every_method_a_table_serves_is_in_the_catalogue`).
        return kept_service(service).map_or_else(Vec::new, kept::Service::method_names);
    }
    listed
}

/// The state of every service, behind one lock (held only for short, non-blocking work).
pub(crate) struct State {
    pub speech: tts::Speech,
    pub body: motion::Body,
    pub leds: leds::Leds,
    pub audio: audio::Player,
    pub recognition: speech::Recognition,
    pub dialog: crate::dialog::Dialog,
    pub behaviors: behaviors::Manager,
    pub kept: kept::Kept,
}

/// The shared core of a [`SimRobot`].
pub(crate) struct Sim {
    pub model: Model,
    me: Weak<Sim>,
    time: Mutex<Option<Arc<Activity>>>,
    /// Behavior time at the last attach: scenario times count from there.
    attached_at: Mutex<Time>,
    /// Whether an engine attached its time.
    pub attached: AtomicBool,
    /// Counts attaches, so a scenario runner of an older engine stops.
    pub generation: AtomicU64,
    state: Mutex<State>,
    /// ALDialog's QiChat engine, outside `state`: `^call` calls other services mid-answer.
    pub qichat: crate::dialog::Engine,
    pub memory: Memory,
    pub tasks: Tasks,
    observer: RwLock<Option<Observer>>,
    stats: Mutex<CallStats>,
    pub scenarios: Mutex<Vec<Arc<crate::scenario::Run>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sim {
    /// The service state (short critical sections only: never call out while holding it).
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// This core, shared (for background work).
    pub fn arc(&self) -> Option<Arc<Sim>> {
        self.me.upgrade()
    }

    /// The attached time, or real time if no engine attached one yet.
    pub fn time(&self) -> Result<Arc<Activity>, String> {
        let mut time = lock(&self.time);
        if let Some(t) = time.as_ref() {
            return Ok(Arc::clone(t));
        }
        let real = Activity::real().map_err(|e| format!("cannot start a clock: {e}"))?;
        *time = Some(Arc::clone(&real));
        Ok(real)
    }

    /// Now, in behavior time.
    pub fn now(&self) -> Time {
        self.time().map_or(Time(0), |t| t.now())
    }

    /// Behavior time at the last attach.
    pub fn attached_at(&self) -> Time {
        *lock(&self.attached_at)
    }

    /// Tells the observer.
    pub fn observe(&self, event: RobotEvent) {
        let observer = self
            .observer
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(observer) = observer {
            observer(&event);
        }
    }

    fn count(&self, service: &str, method: &str, outcome: Option<&str>) {
        let name = format!("{service}.{method}");
        let mut stats = lock(&self.stats);
        *stats.per_service.entry(service.to_string()).or_default() += 1;
        *stats.per_method.entry(name.clone()).or_default() += 1;
        if let Some(list) = outcome {
            let map = match list {
                "unsupported" => &mut stats.unsupported,
                _ => &mut stats.failed,
            };
            *map.entry(name).or_default() += 1;
        }
    }

    /// Whether the robot has module `service`.
    pub fn has_service(&self, service: &str) -> bool {
        SERVED.contains(&service)
            || kept_service(service).is_some()
            || crate::scenario::stubs_service(self, service)
    }

    /// A call of a module or a method the robot does not serve: counted, observed, and the
    /// error NAOqi raises for it.
    fn unsupported(&self, service: &str, method: &str, args: &[Value]) -> RobotError {
        self.count(service, method, Some("unsupported"));
        let signature = signature(args);
        self.observe(RobotEvent::Unsupported {
            service: service.to_string(),
            method: method.to_string(),
            signature: signature.clone(),
        });
        if self.has_service(service) {
            RobotError::UnknownMethod {
                service: service.to_string(),
                method: method.to_string(),
                signature,
                detail: crate::catalogue::not_served(service, method),
            }
        } else {
            RobotError::UnknownService(service.to_string())
        }
    }

    /// A call that failed: counted and observed.
    fn failed(&self, service: &str, method: &str, error: RobotError) -> RobotError {
        self.count(service, method, Some("failed"));
        self.observe(RobotEvent::CallFailed {
            service: service.to_string(),
            method: method.to_string(),
            error: error.to_string(),
        });
        error
    }

    fn serve(&self, service: &str, method: &str, a: &Args<'_>) -> Result<Reply, String> {
        match service {
            "ALTextToSpeech" => tts::serve_tts(self, method, a),
            "ALAnimatedSpeech" => crate::animated_speech::serve(self, method, a),
            "ALMemory" => crate::memory::serve(self, method, a),
            "ALMotion" => motion::serve(self, method, a),
            "ALNavigation" => motion::serve_navigation(self, method, a),
            "ALRobotPosture" => posture::serve(self, method, a),
            "ALLeds" => leds::serve(self, method, a),
            "ALAudioPlayer" => audio::serve(self, method, a),
            "ALSpeechRecognition" => speech::serve_recognition(self, method, a),
            "ALDialog" => crate::dialog::serve(self, method, a),
            "ALBehaviorManager" | "ALFrameManager" | "ALChoregraphe" => {
                behaviors::serve(self, service, method, a)
            }
            _ => match kept_service(service) {
                Some(k) => kept::serve(self, k, method, a),
                None => Ok(Reply::NotServed),
            },
        }
    }

    /// The start of every call and post: counts it, serves the generic methods, asks the
    /// service. `Ok(Err(value))` is a generic method's answer.
    fn begin(
        &self,
        service: &str,
        method: &str,
        args: &[Value],
    ) -> Result<Result<Reply, Value>, RobotError> {
        // A scenario's stub stands in for the robot (docs/scenarios.md), also for a method
        // the simulated robot does not serve or NAOqi's catalogue does not know.
        if let Some(value) = crate::scenario::stub(self, service, method, args) {
            self.count(service, method, None);
            crate::scenario::on_call(self, service, method, args, When::Start);
            return Ok(Ok(Reply::Now(value)));
        }
        if !self.has_service(service) || !crate::catalogue::may_have(service, method) {
            return Err(self.unsupported(service, method, args));
        }
        let a = Args::new(service, method, args);
        let reply = match self.generic(service, method, &a) {
            Some(result) => result.map(Err),
            // The services' errors are text: their argument checks (`Args::bad`) say the
            // arguments are wrong, anything else is the method's own failure.
            None => self.serve(service, method, &a).map(Ok).map_err(|e| {
                if a.is_bad(&e) {
                    RobotError::BadArguments(e)
                } else {
                    RobotError::Failed(e)
                }
            }),
        };
        match reply {
            Ok(Ok(Reply::NotServed)) => Err(self.unsupported(service, method, args)),
            Ok(reply) => {
                self.count(service, method, None);
                if reply.is_ok() {
                    crate::scenario::on_call(self, service, method, args, When::Start);
                }
                Ok(reply)
            }
            Err(e) => Err(self.failed(service, method, e)),
        }
    }

    /// A blocking call.
    pub fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        match self.begin(service, method, &args)? {
            Err(value) => Ok(value),
            Ok(Reply::Timed(plan)) => {
                let task = self.start_task(service, method, &args, plan);
                match self.drive(&task, None) {
                    Driven::Finished(v) => Ok(v),
                    Driven::TimedOut => Ok(Value::None),
                }
            }
            Ok(Reply::Now(value)) => {
                crate::scenario::on_call(self, service, method, &args, When::End);
                Ok(value)
            }
            Ok(Reply::NotServed) => Err(self.unsupported(service, method, &args)),
        }
    }

    /// A posted call: a task driven in the background; its id at once.
    pub fn post_call(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<i64, RobotError> {
        match self.begin(service, method, &args)? {
            Ok(Reply::Timed(plan)) => {
                let task = self.start_task(service, method, &args, plan);
                let id = task.id;
                if task.phase() == crate::tasks::Phase::Running {
                    self.drive_in_background(&format!("{service}.{method}#{id}"), task, |_, _| {})
                        .map_err(|e| RobotError::Failed(format!("{service}.post.{method}: {e}")))?;
                }
                Ok(id)
            }
            Ok(Reply::Now(_)) | Err(_) => {
                crate::scenario::on_call(self, service, method, &args, When::End);
                Ok(self.tasks.fresh_id(service))
            }
            Ok(Reply::NotServed) => Err(self.unsupported(service, method, &args)),
        }
    }

    /// What follows the end (or stop) of a task.
    pub fn task_over(&self, task: &crate::tasks::Task) {
        crate::scenario::on_call(self, &task.service, &task.method, &task.args, When::End);
    }

    /// A script error forwarded by `onPythonError`.
    pub fn script_error(&self, message: String) {
        self.observe(RobotEvent::ScriptError { message });
    }
}

/// The simulated NAO or Pepper robot: serves the NAOqi modules of naoqi-services.md §6 with
/// their timing, keeps ALMemory, runs scenarios. Cheap to clone (a shared handle).
#[derive(Clone)]
pub struct SimRobot {
    sim: Arc<Sim>,
}

impl SimRobot {
    /// A robot of `model`, awake and standing (StandInit for NAO, Stand for Pepper), at the
    /// origin of the world frame, eyes white, in English.
    pub fn new(model: Model) -> SimRobot {
        let sim = Arc::new_cyclic(|me| Sim {
            model,
            me: me.clone(),
            time: Mutex::new(None),
            attached_at: Mutex::new(Time(0)),
            attached: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            state: Mutex::new(State {
                speech: tts::Speech::default(),
                body: motion::Body::new(model),
                leds: leds::Leds::new(model),
                audio: audio::Player::default(),
                recognition: speech::Recognition::default(),
                dialog: crate::dialog::Dialog::default(),
                behaviors: behaviors::Manager::default(),
                kept: kept::Kept::default(),
            }),
            qichat: crate::dialog::Engine::default(),
            memory: Memory::new(model),
            tasks: Tasks::default(),
            observer: RwLock::new(None),
            stats: Mutex::new(CallStats::default()),
            scenarios: Mutex::new(Vec::new()),
        });
        SimRobot { sim }
    }

    /// This robot with `scenario` loaded (see [`SimRobot::load_scenario`]).
    pub fn with_scenario(self, scenario: Scenario) -> SimRobot {
        self.load_scenario(scenario);
        self
    }

    /// Loads a scenario: its timed entries run relative to the engine's attach (at once if
    /// one is attached, else at the next attach), its call triggers from now on.
    pub fn load_scenario(&self, scenario: Scenario) {
        crate::scenario::load(&self.sim, scenario);
    }

    /// The model simulated.
    pub fn model(&self) -> Model {
        self.sim.model
    }

    /// Sets the observer of [`RobotEvent`]s (replacing any previous one).
    pub fn set_observer(&self, observer: Observer) {
        *self
            .sim
            .observer
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(observer);
    }

    /// Makes `name` (`package/behavior`) an installed behavior for ALBehaviorManager, one
    /// that is only recorded as started and stopped (nothing runs); the behaviors of a
    /// project come from a launcher ([`SimRobot::set_launcher`]).
    pub fn install_behavior(&self, name: &str) {
        self.sim.state().behaviors.install(name);
    }

    /// Sets the language the robot speaks and understands (ALTextToSpeech,
    /// ALSpeechRecognition and ALDialog; a robot's setting, English by default): its NAOqi
    /// name (`German`). False if the robot has no such language.
    pub fn set_language(&self, name: &str) -> bool {
        if !crate::tts::installed(name) {
            return false;
        }
        let mut state = self.sim.state();
        state.speech.set_language(name);
        state.recognition.set_language(name);
        drop(state);
        crate::dialog::set_preferred_language(&self.sim, name);
        true
    }

    /// A QiChat `^call` of this robot's services, as its ALDialog makes one: the result as
    /// QiChat text (`choreo chat` calls the simulated robot so).
    pub fn dialog_call(
        &self,
        service: &str,
        method: &str,
        args: &[choreo_qichat::dialog::CallArg],
    ) -> Result<Option<String>, String> {
        crate::dialog::dialog_call(&self.sim, service, method, args)
    }

    /// What runs the `%script` blocks of ALDialog's topics (Python); `None`: they are
    /// not run, with a notice.
    pub fn set_dialog_scripts(&self, scripts: Option<crate::DialogScripts>) {
        self.sim.qichat.set_scripts(scripts);
    }

    /// Where ALBehaviorManager's behaviors come from (the project being run): it lists them
    /// and loads one as a nested run when box code runs or starts it. `None`: only those
    /// installed by name.
    pub fn set_launcher(&self, launcher: Option<Arc<dyn crate::BehaviorLauncher>>) {
        self.sim.state().behaviors.set_launcher(launcher);
    }

    /// Says that behavior `name` runs as `engine`, started by the layer above (the behavior
    /// played): ALBehaviorManager lists it as running, refuses to start it again, and stops
    /// it on `stopBehavior`/`stopAllBehaviors`. Kept until its run is over, not kept alive.
    pub fn behavior_started(&self, name: &str, engine: &Arc<choreo_engine::Engine>) {
        self.sim.state().behaviors.started(name, engine);
    }

    /// Stops every behavior ALBehaviorManager started (nested runs), waits for their ends
    /// and forgets every behavior running (the one told with
    /// [`SimRobot::behavior_started`] too): for the layer that runs behaviors, once its own
    /// run is over and before it drops its engine, so that nothing outlives it. Called from
    /// a thread that is not box code.
    pub fn stop_behaviors(&self) {
        behaviors::stop_nested(&self.sim);
    }

    /// Raises an ALMemory event by hand (a console, a test).
    pub fn raise_event(&self, key: &str, value: Value) {
        self.sim.raise(key, value);
    }

    /// Performs a scenario action now (a console, a test); a touch releases by itself.
    pub fn inject(&self, action: &crate::scenario::Action) {
        if let Some((hold, release)) = crate::scenario::perform(&self.sim, action) {
            crate::scenario::later(&self.sim, hold, release);
        }
    }

    /// Call statistics so far.
    pub fn stats(&self) -> CallStats {
        lock(&self.sim.stats).clone()
    }

    /// Every joint's angle now (radians; hands: opening ratio), in the model's "Body" order,
    /// with the behavior time it is for: the joints of [`SimRobot::snapshot`] alone, under one
    /// short lock, cheap enough to read at every frame (from the engine's control thread).
    pub fn joint_angles(&self) -> (Time, Vec<f64>) {
        let sim = &self.sim;
        let now = sim.now();
        let model = sim.model;
        let state = sim.state();
        let angles = (0..model.joints().len())
            .map(|i| state.body.angle(model, i, now))
            .collect();
        (now, angles)
    }

    /// The colour of each LED group a snapshot reports (`LeftFaceLeds`, `ChestLeds`, ...)
    /// at behavior time `at` (a fade under way: where it will be then, if nothing changes
    /// it); one short lock of the state.
    pub fn led_colours(&self, at: Time) -> Vec<(String, [f64; 3])> {
        self.sim.state().leds.groups(at)
    }

    /// The robot's state now.
    pub fn snapshot(&self) -> Snapshot {
        let sim = &self.sim;
        let now = sim.now();
        let model = sim.model;
        let state = sim.state();
        let joints = model
            .joints()
            .iter()
            .enumerate()
            .map(|(i, joint)| JointState {
                name: joint.name.to_string(),
                angle: state.body.angle(model, i, now),
                stiffness: state.body.stiffness(model, i, now),
            })
            .collect();
        let snapshot = Snapshot {
            time: now.as_secs_f64(),
            spoken: state.speech.spoken.clone(),
            speaking: state.speech.speaking(now),
            posture: posture::current(model, &state.body, now).to_string(),
            awake: state.body.awake,
            joints,
            position: state.body.position(now),
            leds: state.leds.groups(now),
            memory: BTreeMap::new(),
            sounds: state.audio.playing(now),
            tasks: Vec::new(),
        };
        drop(state);
        let tasks = sim
            .tasks
            .running(|_| true)
            .iter()
            .map(|t| TaskInfo {
                service: t.service.clone(),
                method: t.method.clone(),
                id: t.id,
            })
            .collect();
        Snapshot {
            memory: sim.memory.all(),
            tasks,
            ..snapshot
        }
    }
}

impl Robot for SimRobot {
    fn model(&self) -> Option<Model> {
        Some(self.sim.model)
    }

    fn resource_tree(&self) -> Option<Arc<ResourceTree>> {
        Some(Arc::new(resource_tree(self.sim.model)))
    }

    fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        self.sim.call(service, method, args)
    }

    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        self.sim.post_call(service, method, args)
    }

    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError> {
        self.sim.memory.subscribe(key, id, sink);
        Ok(())
    }

    fn unsubscribe(&self, id: SubscriptionId) {
        self.sim.memory.unsubscribe(id);
    }

    fn has_service(&self, service: &str) -> bool {
        self.sim.has_service(service)
    }

    fn attach(&self, time: Arc<Activity>) {
        let now = time.now();
        // The dialog's chance is the run's (choreo_engine::Options::seed).
        self.sim.qichat.reseed(time.seed());
        *lock(&self.sim.time) = Some(time);
        *lock(&self.sim.attached_at) = now;
        self.sim.attached.store(true, Ordering::SeqCst);
        self.sim.generation.fetch_add(1, Ordering::SeqCst);
        crate::scenario::attached(&self.sim);
    }
}

/// The engine's resource tree for `model`: the groups of its resource manager
/// ([`Model::resource_groups`]) over its joints.
pub fn resource_tree(model: Model) -> ResourceTree {
    model
        .resource_groups()
        .into_iter()
        .fold(ResourceTree::new(), |tree, (group, covers)| {
            tree.with_group(group, &covers)
        })
}
