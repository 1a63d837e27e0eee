//! The simulated robot's core, [`Sim`]: its model, its time, its state behind one lock,
//! ALMemory's store, its tasks, its observer and statistics, and the [`Services`] it
//! serves, given by the registry when the robot is built. The core names no service: what a
//! call of a module does is the registry's, so a new module never touches this file.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};

use choreo_base::lock;
use choreo_engine::clock::Time;
use choreo_engine::{Activity, MemorySink, SubscriptionId, Value};
use choreo_robot::Model;
use choreo_robot::naoqi::Version;

use crate::robot::args::Args;
use crate::robot::error::CallError;
use crate::robot::memory::Memory;
use crate::robot::observe::{CallStats, RobotEvent};
use crate::robot::scenario::Run;
use crate::robot::state::State;
use crate::robot::tasks;

/// The NAOqi generation a robot of `model` runs unless told (`SimRobot::set_naoqi`): NAO's
/// of the NAO V6 system (2.8), Pepper's of 2.5.
fn default_naoqi(model: Model) -> Version {
    match model {
        Model::Nao => Version::V2_8,
        Model::Pepper => Version::V2_5,
    }
}

/// Receives every [`RobotEvent`]; called from the thread that caused it, without any robot
/// lock held (it may call back into the robot), so it must be short.
pub type Observer = Arc<dyn Fn(&RobotEvent) + Send + Sync>;

/// A method that takes time, as a task of this robot (see `tasks.rs`).
pub(crate) type Plan = tasks::Plan<Sim>;
/// A task of this robot.
pub(crate) type Task = tasks::Task<Sim>;
/// The tasks of this robot.
pub(crate) type Tasks = tasks::Tasks<Sim>;

/// What a service answers to a call.
pub(crate) enum Reply {
    /// The result, at once.
    Now(Value),
    /// A method that takes time: run as a task.
    Timed(Plan),
    /// The answer of a generic ALModule method (`ping`, `wait`, ...), served by the core
    /// for every module: no scenario trigger fires at its start.
    Generic(Value),
    /// The module does not serve this method.
    NotServed,
}

/// A module's function, or a family of its methods: `(sim, method, args)`, `NotServed` for a
/// method it does not serve.
pub(crate) type ServeFn = fn(&Sim, &str, &Args<'_>) -> Result<Reply, CallError>;

/// The answer of the first of `families` that serves `method` (`NotServed` if none does): a
/// module with many methods serves them by family, each family a function of its own.
pub(crate) fn first_served(
    families: &[ServeFn],
    sim: &Sim,
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, CallError> {
    for serve in families {
        match serve(sim, method, a)? {
            Reply::NotServed => {}
            reply => return Ok(reply),
        }
    }
    Ok(Reply::NotServed)
}

/// The NAOqi modules the robot serves, as the core sees them: the registry
/// (`crate::registry`) implements it, knowing every module; no module knows it.
pub(crate) trait Services: Send + Sync {
    /// Whether the robot has module `service`.
    fn has(&self, service: &str) -> bool;

    /// Serves `method` of `service` (a generic ALModule method is the core's).
    fn serve(
        &self,
        sim: &Sim,
        service: &str,
        method: &str,
        a: &Args<'_>,
    ) -> Result<Reply, CallError>;

    /// The methods a module served from a table has, for a module NAOqi's catalogue lacks.
    fn table_methods(&self, service: &str) -> Vec<&'static str>;

    /// The modules' reactions to ALMemory key `key`, before `value` is delivered.
    fn before_delivery(&self, sim: &Sim, key: &str, value: &Value);

    /// The modules' reactions to ALMemory key `key`, once `value` (which replaced
    /// `previous`) was delivered.
    fn after_delivery(&self, sim: &Sim, key: &str, previous: Option<&Value>, value: &Value);

    /// ALSpeechRecognition hears `word` (a scenario's `recognize`).
    fn recognize(&self, sim: &Sim, word: &str, confidence: f64);
}

/// The shared core of a simulated robot.
pub(crate) struct Sim {
    /// The model simulated.
    pub model: Model,
    me: Weak<Sim>,
    /// The modules served (the registry).
    pub services: &'static dyn Services,
    pub(crate) time: Mutex<Option<Arc<Activity>>>,
    /// Behavior time at the last attach: scenario times count from there.
    pub(crate) attached_at: Mutex<Time>,
    /// Whether an engine attached its time.
    pub attached: AtomicBool,
    /// Counts attaches, so a scenario runner of an older engine stops.
    pub generation: AtomicU64,
    state: Mutex<State>,
    /// ALMemory's store.
    pub memory: Memory,
    /// The tasks running.
    pub tasks: Tasks,
    pub(crate) observer: RwLock<Option<Observer>>,
    pub(crate) stats: Mutex<CallStats>,
    /// The scenarios loaded.
    pub scenarios: Mutex<Vec<Arc<Run>>>,
    /// The NAOqi generation it runs (what `version()` reports).
    pub(crate) naoqi: RwLock<Version>,
    /// What modules keep outside the state's lock, one of each type, given by the registry
    /// (ALDialog's QiChat engine: its `^call` calls other modules mid-answer).
    extensions: Vec<Box<dyn Any + Send + Sync>>,
    /// The run's root: where the robot's own paths (`/home/nao/...`) that methods take name
    /// places (see [`Sim::local_path`]); `None`: they name the machine's.
    pub(crate) robot_root: RwLock<Option<std::path::PathBuf>>,
    /// Who listens to which module's signal: (link, module, signal, where it goes).
    signals: Mutex<Vec<(SubscriptionId, String, String, MemorySink)>>,
}

impl Sim {
    /// Delivers signal `signal` of module `service` to `sink` until [`Sim::disconnect`].
    pub(crate) fn connect(
        &self,
        service: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) {
        lock(&self.signals).push((id, service.to_string(), signal.to_string(), sink));
    }

    /// Ends signal link `id` (no effect if there is none).
    pub(crate) fn disconnect(&self, id: SubscriptionId) {
        lock(&self.signals).retain(|(link, ..)| *link != id);
    }

    /// Module `service` emits `signal` with `args`: each listener gets the signal's name and
    /// the arguments as a list (outside the lock: a listener may connect or disconnect).
    pub(crate) fn emit(&self, service: &str, signal: &str, args: Vec<Value>) {
        let sinks: Vec<MemorySink> = lock(&self.signals)
            .iter()
            .filter(|(_, m, s, _)| m == service && s == signal)
            .map(|(.., sink)| Arc::clone(sink))
            .collect();
        for sink in sinks {
            sink(signal, Value::List(args.clone()));
        }
    }

    /// Path `path` as a method reads it: a robot path (`/home/nao/x.wav`,
    /// `choreo_robot::paths`) under the run's root, any other path as it is.
    pub(crate) fn local_path(&self, path: &str) -> String {
        self.robot_file(path)
            .map_or_else(|| path.to_string(), |f| f.display().to_string())
    }

    /// The file under the run's root that robot path `path` names; `None` for a path outside
    /// the robot's folders or a run without a root: a method writes only there.
    pub(crate) fn robot_file(&self, path: &str) -> Option<std::path::PathBuf> {
        let root = self
            .robot_root
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let root = root.as_ref()?;
        match choreo_robot::paths::local(path) {
            Some(local) => Some(root.join(local)),
            // A path in the run's own folders already (box code's temporary files), unless
            // it leads out of them (the package's folder is a link to the project's).
            None => within(root, std::path::Path::new(path)),
        }
    }

    /// Writes robot file `path` through `write` (its folder made) where the path is in a
    /// robot folder: how it went, for the method's notice (`written`, `not written: why`).
    /// The notice names the robot path only, so a trace is the same whatever the root.
    pub(crate) fn write_robot_file(
        &self,
        path: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> String {
        use std::io::Write as _;
        let Some(file) = self.robot_file(path) else {
            return "not written: not in a robot folder".to_string();
        };
        let attempt = || -> std::io::Result<()> {
            if let Some(folder) = file.parent() {
                std::fs::create_dir_all(folder)?;
            }
            let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
            write(&mut out)?;
            out.flush()
        };
        match attempt() {
            Ok(()) => "written".to_string(),
            Err(e) => format!("not written: {e}"),
        }
    }
}

/// `path` if it is in `root` and stays there once its links are followed.
fn within(root: &std::path::Path, path: &std::path::Path) -> Option<std::path::PathBuf> {
    use choreo_base::path::resolved;
    (path.is_absolute() && resolved(path).starts_with(resolved(root))).then(|| path.to_path_buf())
}

impl Sim {
    /// A robot of `model` serving `services`, in `state`, remembering `memory`, with the
    /// modules' `extensions`.
    pub fn new(
        model: Model,
        services: &'static dyn Services,
        state: State,
        memory: Memory,
        extensions: Vec<Box<dyn Any + Send + Sync>>,
    ) -> Arc<Sim> {
        Arc::new_cyclic(|me| Sim {
            model,
            me: me.clone(),
            services,
            time: Mutex::new(None),
            attached_at: Mutex::new(Time(0)),
            attached: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            state: Mutex::new(state),
            robot_root: RwLock::new(None),
            signals: Mutex::new(Vec::new()),
            memory,
            tasks: Tasks::default(),
            observer: RwLock::new(None),
            stats: Mutex::new(CallStats::default()),
            scenarios: Mutex::new(Vec::new()),
            naoqi: RwLock::new(default_naoqi(model)),
            extensions,
        })
    }

    /// The full NAOqi version it reports (`version()`, `ALSystem.systemVersion`).
    pub fn naoqi_release(&self) -> &'static str {
        self.naoqi
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .release()
    }

    /// The robot's state (short critical sections only: never call out while holding it).
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The extension of type `T` (see [`Sim::new`]); the registry gives every one the
    /// modules use.
    pub fn extension<T: Any>(&self) -> &T {
        match self.extensions.iter().find_map(|e| e.downcast_ref::<T>()) {
            Some(extension) => extension,
            None => unreachable!("the registry gives every extension the modules use"),
        }
    }

    /// This core, shared (for background work).
    pub fn arc(&self) -> Option<Arc<Sim>> {
        self.me.upgrade()
    }

    /// The attached time, or real time if no engine attached one yet.
    pub fn time(&self) -> Result<Arc<Activity>, CallError> {
        let mut time = lock(&self.time);
        if let Some(t) = time.as_ref() {
            return Ok(Arc::clone(t));
        }
        let real = Activity::real()
            .map_err(|e| CallError::Failed(format!("cannot start a clock: {e}")))?;
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

    /// Counts a call of `service.method`, and its outcome when it is not a success
    /// (`unsupported` or `failed`).
    pub(crate) fn count(&self, service: &str, method: &str, outcome: Option<&str>) {
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

    /// A script error forwarded by `onPythonError`.
    pub fn script_error(&self, message: String) {
        self.observe(RobotEvent::ScriptError { message });
    }
}
