//! How a run is set up before it loads: the robot, the clock, the limits, parameters, a
//! scenario, and the hooks a tool adds (a trace of its own, a frame observer, a fleet's
//! timeline sync, an observer of the robot's events).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use choreo_engine::clock::Time;
use choreo_engine::engine::sync::TimelineSync;
use choreo_engine::{FrameObserver, Trace, Value};
use choreo_naoqi::{RobotEvent, Scenario, SimRobot};
use choreo_robot::Model;

use crate::api::error::Result;
use crate::api::project::Project;
pub use choreo_python::confinement::Allowed;

/// Which time a run lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// Real time: a 10 s dance takes 10 s (the only clock a real robot has).
    #[default]
    Real,
    /// Virtual time: as fast as the machine goes, with the same trace as in real time
    /// (`choreo run --fast`); time jumps whenever everything waits.
    Virtual,
}

/// Where a run's behavior runs.
#[derive(Clone)]
pub enum Target {
    /// A simulated robot the caller made (to keep a handle on it, or to share it).
    Simulated(SimRobot),
    /// A robot (real, or `choreo sim`) reached over qi at a URL (`tcp://host:9559`,
    /// `tcps://...`), connected when the run loads.
    Url {
        /// The robot's URL.
        url: String,
        /// Authentication, TLS pinning, NAOqi generation.
        options: choreo_qi::SessionOptions,
    },
    /// A robot already connected over qi.
    Remote(Arc<choreo_qi::RemoteRobot>),
}

/// What a robot event observer is given: the behavior time and the event.
pub type RobotObserver = Arc<dyn Fn(Time, &RobotEvent) + Send + Sync>;

/// A parameter to set once the behavior is loaded.
#[derive(Clone)]
enum Param {
    /// Read by the parameter's type, as `--param` reads it.
    Text(String),
    /// Given as it is.
    Value(Value),
}

/// The setup of one run: made by [`Project::behavior`] (or [`Setup::open`]), changed by
/// its methods (each takes and gives the setup), loaded by [`Setup::load`]. The defaults:
/// a simulated robot of the model the manifest asks for (else NAO), speaking the language
/// the project implies (else English), real time, no time limit, not strict. A clone sets
/// up another run of the same behavior (a fleet: one per robot).
#[derive(Clone)]
pub struct Setup {
    pub(crate) project: Project,
    pub(crate) behavior: usize,
    pub(crate) target: Option<Target>,
    pub(crate) model: Option<Model>,
    pub(crate) language: Option<String>,
    pub(crate) scenario: Option<Scenario>,
    pub(crate) scenario_file: Option<PathBuf>,
    pub(crate) clock: Clock,
    pub(crate) time_limit: Option<Duration>,
    pub(crate) seed: Option<u64>,
    pub(crate) start_time: Option<u64>,
    pub(crate) strict: bool,
    pub(crate) installed: bool,
    params: Vec<(String, String, Param)>,
    pub(crate) trace: Option<Trace>,
    pub(crate) on_frame: Option<FrameObserver>,
    pub(crate) timeline_sync: Option<Arc<dyn TimelineSync>>,
    pub(crate) on_robot_event: Option<RobotObserver>,
    pub(crate) sandbox: Option<Allowed>,
    pub(crate) box_host: bool,
    pub(crate) max_memory: Option<u64>,
    pub(crate) box_code_bound: Option<Duration>,
}

// Here rather than in project.rs: a project knows nothing of runs; a setup is made from one.
impl Project {
    /// The setup of a run of behavior `name` (`None`: the first one); see [`Setup`].
    pub fn behavior(&self, name: Option<&str>) -> Result<Setup> {
        let index = self.index_of(name)?;
        Ok(Setup::new(self.clone(), index))
    }
}

impl Setup {
    pub(crate) fn new(project: Project, behavior: usize) -> Setup {
        Setup {
            project,
            behavior,
            target: None,
            model: None,
            language: None,
            scenario: None,
            scenario_file: None,
            clock: Clock::Real,
            time_limit: None,
            seed: None,
            start_time: None,
            strict: false,
            installed: false,
            params: Vec::new(),
            trace: None,
            on_frame: None,
            timeline_sync: None,
            on_robot_event: None,
            sandbox: Some(Allowed::default()),
            box_host: true,
            max_memory: None,
            box_code_bound: None,
        }
    }

    /// What box code may reach beyond its project, the run's folders and its Python
    /// (docs/security.md): by default nothing (`Some(Allowed::default())`); `None` runs it
    /// unconfined, with everything the user running choreo may reach (`--no-sandbox`).
    pub fn sandbox(mut self, allowed: Option<Allowed>) -> Setup {
        self.sandbox = allowed;
        self
    }

    /// Whether a sandboxed run's box code runs in a process of its own, confined as a whole
    /// (docs/security.md, The box host: the default), rather than on this process's
    /// threads, each confined by the kernel (weaker; also what happens, with a notice, when
    /// no program can serve as the box host). No effect on a run without a sandbox.
    pub fn box_host(mut self, on: bool) -> Setup {
        self.box_host = on;
        self
    }

    /// The most memory box code's process may take, in bytes (`None`: half the machine's);
    /// with [`Setup::box_host`] only.
    pub fn max_memory(mut self, bytes: Option<u64>) -> Setup {
        self.max_memory = bytes;
        self
    }

    /// The real time box code's process gets from the load on (with [`Setup::box_host`]):
    /// past it, where each of its threads is gets dumped, it is killed, and the run ends
    /// [`crate::Ending::BoxHostEnded`] out of time, whatever box code does (a constructor
    /// or a hook that never returns, in any time). `None`: no bound.
    pub fn box_code_bound(mut self, within: Option<Duration>) -> Setup {
        self.box_code_bound = within;
        self
    }

    /// Opens `path` ([`Project::open`]) and sets up a run of its first behavior.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Setup> {
        Project::open(path)?.behavior(None)
    }

    /// The simulated robot's model (NAO or Pepper); by default the manifest's, else NAO.
    /// On a real robot: the model whose resource groups apply (a robot does not say).
    pub fn model(mut self, model: Model) -> Setup {
        self.model = Some(model);
        self
    }

    /// The language the simulated robot speaks (a NAOqi name: `French`); by default the
    /// one the project implies, else English.
    pub fn language(mut self, name: impl Into<String>) -> Setup {
        self.language = Some(name.into());
        self
    }

    /// The world of the simulated robot: events, words heard, calls answered
    /// (`docs/scenarios.md`).
    pub fn scenario(mut self, scenario: Scenario) -> Setup {
        self.scenario = Some(scenario);
        self
    }

    /// The draws by chance the scenario sets: the run's to set, not the robot's
    /// (`choreo_engine::chance`).
    pub(crate) fn chance(&self) -> std::collections::BTreeMap<u64, u64> {
        self.scenario
            .as_ref()
            .map(|s| s.chance.clone())
            .unwrap_or_default()
    }

    /// [`Setup::scenario`] read from a YAML or JSON file when the run loads.
    pub fn scenario_file(mut self, path: impl Into<PathBuf>) -> Setup {
        self.scenario_file = Some(path.into());
        self
    }

    /// Runs on this robot instead of a simulated one made for the run.
    pub fn target(mut self, target: Target) -> Setup {
        self.target = Some(target);
        self
    }

    /// Runs on the robot at `url` (`tcp://192.168.1.12:9559`), with default options.
    pub fn robot_url(self, url: impl Into<String>) -> Setup {
        self.target(Target::Url {
            url: url.into(),
            options: choreo_qi::SessionOptions::default(),
        })
    }

    /// Real or virtual time ([`Clock`]).
    pub fn clock(mut self, clock: Clock) -> Setup {
        self.clock = clock;
        self
    }

    /// Stops the run after this long of behavior time (box construction included).
    pub fn time_limit(mut self, limit: Duration) -> Setup {
        self.time_limit = Some(limit);
        self
    }

    /// The seed of everything random in the run (box code's `random`, the dialog's random
    /// choices): the same seed, the same run. By default a fixed one in virtual time, a
    /// random one in real time; [`crate::Run::seed`] says which.
    pub fn seed(mut self, seed: u64) -> Setup {
        self.seed = Some(seed);
        self
    }

    /// The wall clock at the run's start, in ms since the Unix epoch (UTC): what
    /// `time.time()`, `datetime.now()` and QiChat's date functions read, moving with the
    /// run's clock. By default Monday 5 January 2026, 10:00 UTC in virtual time, now in real
    /// time (`choreo_engine::clock::parse_utc` reads `2026-03-01T18:30:00Z`).
    pub fn start_time(mut self, ms: u64) -> Setup {
        self.start_time = Some(ms);
        self
    }

    /// Runs the project as an installed package, its folder named after its uuid, rather
    /// than as Choregraphe's Play uploads it (`.lastUploadedChoregrapheBehavior`, the
    /// default; docs/box-environment.md).
    pub fn installed(mut self, installed: bool) -> Setup {
        self.installed = installed;
        self
    }

    /// An error escaping box code stops the behavior ([`crate::Ending::Failed`]).
    pub fn strict(mut self, strict: bool) -> Setup {
        self.strict = strict;
        self
    }

    /// Sets parameter `name` of the box at `path` (`root/Say`, `root/` optional) to
    /// `value` once loaded, before the start.
    pub fn param(mut self, path: &str, name: &str, value: impl Into<Value>) -> Setup {
        self.params.push((
            path.to_string(),
            name.to_string(),
            Param::Value(value.into()),
        ));
        self
    }

    /// [`Setup::param`] from a text read by the parameter's type (`--param`'s form).
    pub fn param_text(mut self, path: &str, name: &str, text: &str) -> Setup {
        self.params.push((
            path.to_string(),
            name.to_string(),
            Param::Text(text.to_string()),
        ));
        self
    }

    /// The trace the run records into (one with a writer: `--trace`); by default a trace
    /// that keeps its last 262,144 events.
    pub fn trace(mut self, trace: Trace) -> Setup {
        self.trace = Some(trace);
        self
    }

    /// Called by the engine at every frame of every playing timeline.
    pub fn on_frame(mut self, observer: FrameObserver) -> Setup {
        self.on_frame = Some(observer);
        self
    }

    /// Asked when a timeline starts (a fleet's rendezvous).
    pub fn timeline_sync(mut self, sync: Arc<dyn TimelineSync>) -> Setup {
        self.timeline_sync = Some(sync);
        self
    }

    /// Called with each event of the simulated robot (what it says, its LEDs, its
    /// postures, the calls it serves), at its behavior time, until the run is over: what
    /// box code still running then makes the robot do is not the run's (nor in its trace);
    /// only ALServiceManager's notices of the package's services stopping with the run
    /// come after.
    pub fn on_robot_event(mut self, observer: RobotObserver) -> Setup {
        self.on_robot_event = Some(observer);
        self
    }

    /// The behavior this run will run, as choreo-xar read it.
    pub fn behavior(&self) -> &choreo_xar::source::Behavior {
        self.project.behavior_at(self.behavior)
    }

    /// The project this run comes from.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The model the run will use: asked, else the target's, else the one the project was
    /// made for ([`Project::model`]).
    pub fn chosen_model(&self) -> Model {
        let sim = match &self.target {
            Some(Target::Simulated(sim)) => Some(sim.model()),
            _ => None,
        };
        self.model.or(sim).unwrap_or_else(|| self.project.model())
    }

    /// The language the simulated robot will speak (a NAOqi name), when not English.
    pub fn chosen_language(&self) -> Option<String> {
        self.language
            .clone()
            .or_else(|| self.project.language().map(str::to_string))
    }

    /// Why the run's robot is the model it is and speaks the language it does, where the
    /// project decided rather than the caller ("Pepper: the manifest names no robot; ...");
    /// for a run's report.
    pub fn implied_reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.model.is_none()
            && self.target.is_none()
            && let Some(model) = self.project.implied_model()
        {
            out.push(format!("{}: {}", model.value.name(), model.why));
        }
        if self.language.is_none()
            && let Some(l) = crate::implied::language(self.project.files())
        {
            out.push(format!("{}: {}", l.value.name, l.why));
        }
        out
    }

    /// The parameters to set, resolved by `set` (path, name, then a text or a value).
    pub(crate) fn apply_params(
        &self,
        mut set_text: impl FnMut(&str, &str, &str) -> Result<()>,
        mut set_value: impl FnMut(&str, &str, Value) -> Result<()>,
    ) -> Result<()> {
        for (path, name, param) in &self.params {
            match param {
                Param::Text(text) => set_text(path, name, text)?,
                Param::Value(value) => set_value(path, name, value.clone())?,
            }
        }
        Ok(())
    }
}
