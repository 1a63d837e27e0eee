//! The behaviors of the project being run: the script host a behavior's boxes run in, and,
//! for the simulated robot's ALBehaviorManager, the names a robot gives them and each one
//! loaded as a nested run (the same robot, the same script host kind, the same project
//! folder, the trace under `<behavior folder>:`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use choreo_engine::resource::ResourceTree;
use choreo_engine::{Activity, Engine, Options, Robot, ScriptHost, Trace};
use choreo_naoqi::{BehaviorLauncher, LaunchError, behavior_names};
use choreo_python::confinement::Confinement;
use choreo_python::remote::{BoxHost, RemoteHost};
use choreo_xar::source::Project;

/// Whether an event's path is a nested run's: `<behavior folder>:` before the box path
/// (`greet:root/Say`, `greet:` for its behavior events). The run's own paths start with the
/// root box's name, which holds no `:`.
pub fn of_nested_run(path: &str) -> bool {
    path.split('/')
        .next()
        .is_some_and(|first| first.contains(':'))
}

/// The project's behaviors, as ALBehaviorManager lists and runs them.
pub struct ProjectBehaviors {
    project: Arc<Project>,
    /// Each name a behavior answers to, with its index in the project.
    names: Vec<(String, usize)>,
    /// The project's files on disk (`behaviorAbsolutePath()` is below).
    files: PathBuf,
    trace: Trace,
    /// The robot the run uses; not kept alive from here (the robot holds this launcher).
    robot: Weak<dyn Robot>,
    strict: bool,
    resources: Arc<ResourceTree>,
    /// What a run's trace paths start with, when not its folder and `:`.
    prefix: Option<String>,
    /// What box code of the behaviors it runs may reach, and where it runs (the first
    /// run's).
    boxes: BoxCode,
}

/// Where a run's box code runs and what it may reach: this process (unconfined, or
/// judged and confined thread by thread), or the run's box host.
#[derive(Clone, Default)]
pub struct BoxCode {
    /// What box code may reach (`None`: all the user may).
    pub confinement: Option<Arc<Confinement>>,
    /// The process box code runs in, when not this one.
    pub host: Option<Arc<BoxHost>>,
}

impl BoxCode {
    /// Begins the box host of this process's next run ahead of it (`net`: `--allow-net`),
    /// so that its start overlaps the run's load ([`BoxHost::start_ahead`]); `None` when
    /// none could be: the run then starts its own, and says why it cannot.
    pub fn start_ahead(net: bool) -> Option<choreo_python::remote::Ahead> {
        let executable = choreo_python::remote::Executable::find().ok()?;
        BoxHost::start_ahead(&executable, net).ok()
    }

    /// Box code held to `confinement`, in a box host of its own (started, not waited for),
    /// with `memory` at most (`None`: half the machine's). When no program can serve as the
    /// box host it runs on this process's threads, confined one by one, said once.
    pub fn in_box_host(
        confinement: Arc<Confinement>,
        memory: Option<u64>,
    ) -> Result<BoxCode, choreo_python::remote::StartError> {
        let executable = match choreo_python::remote::Executable::find() {
            Ok(e) => e,
            Err(e) => {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| {
                    eprintln!(
                        "notice: box code runs in this process, confined thread by thread: {e}"
                    )
                });
                return Ok(BoxCode {
                    confinement: Some(confinement),
                    host: None,
                });
            }
        };
        let memory = memory.or_else(choreo_sandbox::limits::default_memory);
        let host = BoxHost::start(&executable, &confinement, memory)?;
        Ok(BoxCode {
            confinement: Some(confinement),
            host: Some(host),
        })
    }
}

impl ProjectBehaviors {
    /// The behaviors of `project`, whose files are at `files`, run on `robot` with the
    /// run's `trace`, strict mode and resource tree. A behavior at the top of the project
    /// (no folder: a lone `.xar`) has no name on a robot.
    pub fn new(
        project: Arc<Project>,
        files: PathBuf,
        trace: Trace,
        robot: Weak<dyn Robot>,
        strict: bool,
        resources: Arc<ResourceTree>,
    ) -> ProjectBehaviors {
        let package = project.manifest.as_ref().and_then(|m| m.uuid.clone());
        let names = project
            .behaviors
            .iter()
            .enumerate()
            .filter(|(_, b)| !Project::behavior_folder(b).is_empty())
            .flat_map(|(i, b)| {
                behavior_names(package.as_deref(), Project::behavior_folder(b))
                    .into_iter()
                    .map(move |n| (n, i))
            })
            .collect();
        ProjectBehaviors {
            project,
            names,
            files,
            trace,
            robot,
            strict,
            resources,
            prefix: None,
            boxes: BoxCode::default(),
        }
    }

    /// The behaviors it runs confined as the run that runs them is (docs/security.md).
    pub fn confined(mut self, boxes: BoxCode) -> ProjectBehaviors {
        self.boxes = boxes;
        self
    }

    /// Behaviors of `project` under names of the caller's choosing (`(name, index)`): what
    /// `choreo stack run` installs for its `PlayChoregraphe` leaves, whatever the folder.
    pub fn named(mut self, names: Vec<(String, usize)>) -> ProjectBehaviors {
        self.names = names;
        self
    }

    /// Its runs' trace paths start with `prefix` (`Dance:` for a stack's leaf `Dance`)
    /// instead of the behavior's folder and `:`.
    pub fn prefixed(mut self, prefix: String) -> ProjectBehaviors {
        self.prefix = Some(prefix);
        self
    }

    /// The name the behavior played answers to (`.lastUploadedChoregrapheBehavior/<folder>`,
    /// as Choregraphe's play uploads it), if it has one.
    pub fn played_name(behavior: &choreo_xar::source::Behavior) -> Option<String> {
        let folder = Project::behavior_folder(behavior);
        (!folder.is_empty()).then(|| behavior_names(None, folder).remove(0))
    }
}

impl BehaviorLauncher for ProjectBehaviors {
    fn installed(&self) -> Vec<String> {
        self.names.iter().map(|(n, _)| n.clone()).collect()
    }

    fn load(&self, name: &str, time: Arc<Activity>) -> Result<Engine, LaunchError> {
        let not_installed = || LaunchError::NotInstalled(name.to_string());
        let i = self
            .names
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, i)| i)
            .ok_or_else(not_installed)?;
        let behavior = self.project.behaviors.get(i).ok_or_else(not_installed)?;
        let robot = self.robot.upgrade().ok_or_else(not_installed)?;
        let folder = Project::behavior_folder(behavior);
        let host = script_host(
            &self.files.join(folder),
            &behavior.path,
            &self.project,
            &self.boxes,
        );
        let options = Options {
            trace: self
                .trace
                .prefixed(self.prefix.as_deref().unwrap_or(&format!("{folder}:"))),
            robot: Some(robot),
            strict: self.strict,
            resources: Some(Arc::clone(&self.resources)),
            time_base: Some(time),
            ..Options::default()
        };
        Engine::load(&behavior.xar, host.as_ref(), options).map_err(LaunchError::Load)
    }
}

/// Several launchers as one: the first that has a name loads it.
pub struct Launchers(pub Vec<Arc<dyn BehaviorLauncher>>);

impl BehaviorLauncher for Launchers {
    fn installed(&self) -> Vec<String> {
        self.0.iter().flat_map(|l| l.installed()).collect()
    }

    fn load(&self, name: &str, time: Arc<Activity>) -> Result<Engine, LaunchError> {
        match self
            .0
            .iter()
            .find(|l| l.installed().iter().any(|n| n == name))
        {
            Some(l) => l.load(name, time),
            None => Err(LaunchError::NotInstalled(name.to_string())),
        }
    }
}

/// The script host for box code: Python scripts in the embedded CPython, in this process
/// or in the run's box host.
pub fn script_host(
    behavior_dir: &Path,
    behavior_file: &str,
    project: &choreo_xar::source::Project,
    boxes: &BoxCode,
) -> Box<dyn ScriptHost> {
    // The package's folder: up from the behavior's as many folders as its file is deep.
    let robot_root = behavior_dir
        .ancestors()
        .nth(behavior_file.matches('/').count())
        .and_then(choreo_robot::paths::root_of)
        .map(|root| root.display().to_string());
    let options = choreo_python::PythonOptions {
        robot_root,
        behavior_path: behavior_dir.display().to_string(),
        package_uid: project
            .manifest
            .as_ref()
            .and_then(|m| m.uuid.clone())
            .unwrap_or_default(),
        behavior_relative_path: Path::new(behavior_file)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        confinement: boxes.confinement.clone(),
    };
    match &boxes.host {
        Some(host) => Box::new(RemoteHost::new(host, &options)),
        None => Box::new(choreo_python::PythonHost::new(options)),
    }
}
