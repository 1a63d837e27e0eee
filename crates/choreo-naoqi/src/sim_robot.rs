//! [`SimRobot`], the simulated robot as its users hold it: built from the core
//! (`crate::robot`) and the registry (`crate::registry`), it implements
//! [`choreo_engine::Robot`] and offers what a console or a test needs (scenarios, events,
//! snapshots, statistics, the project's behaviors).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use choreo_engine::clock::Time;
use choreo_engine::resource::ResourceTree;
use choreo_engine::{Activity, MemorySink, Robot, RobotError, SubscriptionId, Value};
use choreo_robot::Model;

use crate::registry::{self, Registry};
use crate::robot::body::Body;
use crate::robot::core::{Observer, Sim};
use crate::robot::leds::Leds;
use crate::robot::memory::Memory;
use crate::robot::observe::{CallStats, JointState, Snapshot, TaskInfo};
use crate::robot::playing;
use crate::robot::scenario::{Action, Scenario};
use crate::robot::state::State;
use crate::services::audio::player::Player;
use crate::services::audio::recognition::Recognition;
use crate::services::audio::tts::{self, Speech};
use crate::services::core::behaviors::{self, BehaviorLauncher, Manager};
use crate::services::core::service_manager::{self, Host as ServiceHostSlot, ServiceHost};
use crate::services::interaction::dialog::{self, DialogScripts};
use crate::services::motion::posture;
use crate::services::people::person::Face;
use choreo_base::lock;

/// The simulated NAO or Pepper robot: serves the NAOqi modules of docs/simulated-robot.md with
/// their timing, keeps ALMemory, runs scenarios. Cheap to clone (a shared handle).
#[derive(Clone)]
pub struct SimRobot {
    sim: Arc<Sim>,
}

impl SimRobot {
    /// A robot of `model`, awake and standing (StandInit for NAO, Stand for Pepper), at the
    /// origin of the world frame, eyes white, in English.
    pub fn new(model: Model) -> SimRobot {
        let start = posture::angles(model, model.wake_posture()).unwrap_or_default();
        let state = State::new(Body::new(model, &start), Leds::new(model));
        let memory = Memory::new(model, &registry::declared());
        SimRobot {
            sim: Sim::new(model, &Registry, state, memory, registry::extensions()),
        }
    }

    /// Makes it a robot of NAOqi generation `version`: what `version()` and
    /// `ALSystem.systemVersion` report (by default NAO's 2.8, Pepper's 2.5).
    pub fn set_naoqi(&self, version: choreo_robot::naoqi::Version) {
        *self
            .sim
            .naoqi
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = version;
    }

    /// This robot with `scenario` loaded (see [`SimRobot::load_scenario`]).
    pub fn with_scenario(self, scenario: Scenario) -> SimRobot {
        self.load_scenario(scenario);
        self
    }

    /// Loads a scenario: its timed entries run relative to the engine's attach (at once if
    /// one is attached, else at the next attach), its call triggers from now on; its
    /// `posture` puts the robot there ([`SimRobot::place`]; one the model lacks is left out:
    /// `choreo::Run` refuses it first), its `face` is the face of the person it sees.
    pub fn load_scenario(&self, scenario: Scenario) {
        if let Some(posture) = &scenario.posture {
            self.place(posture);
        }
        if let Some(face) = scenario.face {
            *self.sim.state().part::<Face>() = face;
        }
        playing::load(&self.sim, scenario);
    }

    /// Puts the robot, before its run, in `posture` (one of ALRobotPosture's for its model:
    /// a person laid it on its belly, sat it down), awake; false, and nothing changed, if the
    /// model has no such posture.
    pub fn place(&self, posture: &str) -> bool {
        let Some(angles) = posture::angles(self.sim.model, posture) else {
            return false;
        };
        let mut body = Body::new(self.sim.model, &angles);
        // The posture's own family: lying on its back, its legs are a standing robot's.
        body.floor = self
            .sim
            .model
            .postures()
            .iter()
            .find(|p| p.name == posture)
            .map(|p| p.family)
            .filter(|f| f.starts_with("Lying"))
            .map(|f| (f, self.sim.now()));
        self.sim.state().body = body;
        true
    }

    /// The model simulated.
    pub fn model(&self) -> Model {
        self.sim.model
    }

    /// Sets the observer of [`RobotEvent`](crate::RobotEvent)s (replacing any previous one).
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
        self.sim.state().part::<Manager>().install(name);
    }

    /// Installs where the packages' services run ([`ServiceHost`]: the layer that builds
    /// runs, which runs programs and serves this robot over qi); `None` removes it.
    pub fn set_service_host(&self, host: Option<Arc<dyn ServiceHost>>) {
        self.sim
            .kept("ALServiceManager", |h: &mut ServiceHostSlot| h.0 = host);
    }

    /// Module `service` emits its signal `signal` with `args` to whoever box code connected
    /// to it (`ALServiceManager.serviceStopped` when a service's program dies).
    pub fn emit_signal(&self, service: &str, signal: &str, args: Vec<Value>) {
        self.sim.emit(service, signal, args);
    }

    /// Shows the observer what module `service` did (as the modules' own notices are
    /// shown): for what happens outside the robot on its behalf, a package service's
    /// program's output.
    pub fn notice(&self, service: &str, text: String) {
        self.sim.notice(service, text);
    }

    /// Sets the run's root: the folder where the robot's own paths that methods take
    /// (`ALAudioPlayer.playFile("/home/nao/x.wav")`) name places (`choreo_robot::paths`);
    /// `None`: they name the machine's.
    pub fn set_robot_root(&self, root: Option<std::path::PathBuf>) {
        *self
            .sim
            .robot_root
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = root;
    }

    /// Sets the language the robot speaks and understands (ALTextToSpeech,
    /// ALSpeechRecognition and ALDialog; a robot's setting, English by default): its NAOqi
    /// name (`German`). False if the robot has no such language.
    pub fn set_language(&self, name: &str) -> bool {
        if !tts::installed(name) {
            return false;
        }
        let mut state = self.sim.state();
        state.part::<Speech>().set_language(name);
        state.part::<Recognition>().set_language(name);
        drop(state);
        dialog::set_preferred_language(&self.sim, name);
        true
    }

    /// A QiChat `^call` of this robot's services, as its ALDialog makes one: the result as
    /// QiChat text (`choreo chat` calls the simulated robot so).
    pub fn dialog_call(
        &self,
        service: &str,
        method: &str,
        args: &[choreo_qichat::dialog::CallArg],
    ) -> Result<Option<String>, choreo_qichat::dialog::HostError> {
        dialog::dialog_call(&self.sim, service, method, args)
    }

    /// What runs the `%script` blocks of ALDialog's topics (Python); `None`: they are
    /// not run, with a notice.
    pub fn set_dialog_scripts(&self, scripts: Option<DialogScripts>) {
        self.sim.extension::<dialog::Engine>().set_scripts(scripts);
    }

    /// Where ALBehaviorManager's behaviors come from (the project being run): it lists them
    /// and loads one as a nested run when box code runs or starts it. `None`: only those
    /// installed by name.
    pub fn set_launcher(&self, launcher: Option<Arc<dyn BehaviorLauncher>>) {
        self.sim.state().part::<Manager>().set_launcher(launcher);
    }

    /// Says that behavior `name` runs as `engine`, started by the layer above (the behavior
    /// played): ALBehaviorManager lists it as running, refuses to start it again, and stops
    /// it on `stopBehavior`/`stopAllBehaviors`. Kept until its run is over, not kept alive.
    pub fn behavior_started(&self, name: &str, engine: &Arc<choreo_engine::Engine>) {
        self.sim.state().part::<Manager>().started(name, engine);
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
    pub fn inject(&self, action: &Action) {
        if let Some((hold, release)) = playing::perform(&self.sim, action) {
            playing::later(&self.sim, hold, release);
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
        let mut state = sim.state();
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
            spoken: state.part::<Speech>().spoken.clone(),
            speaking: state.part::<Speech>().speaking(now),
            posture: posture::current(model, &state.body, now).to_string(),
            awake: state.body.awake,
            joints,
            position: state.body.position(now),
            leds: state.leds.groups(now),
            memory: BTreeMap::new(),
            sounds: state.part::<Player>().playing(now),
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
        let called = self.sim.call(service, method, args);
        crate::listening::called(&self.sim, service);
        called
    }

    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        let posted = self.sim.post_task(service, method, args);
        crate::listening::called(&self.sim, service);
        posted
    }

    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError> {
        self.sim.memory.subscribe(key, id, sink);
        crate::listening::changed(&self.sim);
        Ok(())
    }

    fn unsubscribe(&self, id: SubscriptionId) {
        self.sim.memory.unsubscribe(id);
        crate::listening::changed(&self.sim);
        self.sim.disconnect(id);
        if let Some(host) = service_manager::host(&self.sim) {
            host.disconnect(id);
        }
    }

    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError> {
        if !self.sim.has_service(service) {
            return Err(RobotError::UnknownService(service.to_string()));
        }
        // A package service's program emits its own signals, over qi.
        if self.sim.package_service(service)
            && let Some(host) = service_manager::host(&self.sim)
        {
            return host.connect_signal(service, signal, id, sink);
        }
        self.sim.connect(service, signal, id, sink);
        Ok(())
    }

    fn has_service(&self, service: &str) -> bool {
        self.sim.has_service(service)
    }

    fn attach(&self, time: Arc<Activity>) {
        let now = time.now();
        // The dialog's chance is the run's (choreo_engine::Options::seed).
        self.sim.extension::<dialog::Engine>().reseed(time.seed());
        *lock(&self.sim.time) = Some(time);
        *lock(&self.sim.attached_at) = now;
        self.sim.attached.store(true, Ordering::SeqCst);
        self.sim.generation.fetch_add(1, Ordering::SeqCst);
        playing::attached(&self.sim);
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

/// What the robot listens for (`crate::listening`): what `choreo explore` tries.
impl SimRobot {
    /// What the robot listens for now (waiting for the dialog engine if it is answering, as
    /// an ALDialog call does).
    pub fn listening(&self) -> crate::Listening {
        crate::listening::listening(&self.sim, true).unwrap_or_default()
    }

    /// Keeps a log of what the robot listens for from now on (each change, and each action
    /// of a scenario), starting with what it listens for now.
    pub fn log_listening(&self) {
        crate::listening::start_log(&self.sim);
    }

    /// The log kept since [`SimRobot::log_listening`].
    pub fn listening_log(&self) -> Vec<crate::Heard> {
        crate::listening::log(&self.sim)
    }

    /// The dialog's rules and those that answered so far.
    pub fn dialog_coverage(&self) -> crate::DialogCoverage {
        crate::listening::coverage(&self.sim)
    }
}
