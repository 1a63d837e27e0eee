//! Shared by the stock-box, corpus-run and soak tests: the corpus's behaviors (the corpus
//! itself is found by `choreo_testkit`), and one behavior run on the simulated robot with
//! Python box scripts, in virtual time; ([`cli`]) the `choreo` command as the CLI tests
//! run it; ([`qi`]) the libqi python and its fixture processes; ([`project`]) a small
//! project to convert, package and install; ([`served`]) `choreo` serving a monitor; ([`sim`]) `choreo sim` serving robots;
//! ([`browser`]) chromium showing its page; ([`devtools`]) a live page read in real time;
//! ([`hostile`]) a hostile behavior run as a user runs it.

pub mod browser;
pub mod cli;
pub mod devtools;
pub mod hostile;
pub mod project;
pub mod qi;
pub mod served;
pub mod sim;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use choreo_engine::trace::{Event, Step};
use choreo_engine::{Engine, Options, Outcome, Robot, Trace, Value};
use choreo_naoqi::{Model, Scenario, SimRobot};
use choreo_python::{PythonHost, PythonOptions};
use choreo_xar::model::XarFile;

/// Loads `xar` with `host` on `robot` in virtual time limited to `limit` seconds, recording
/// into `trace`, frames reported to `on_frame`.
pub fn load_on(
    xar: &XarFile,
    host: &dyn choreo_engine::ScriptHost,
    robot: &SimRobot,
    trace: &Trace,
    limit: f64,
    on_frame: Option<choreo_engine::FrameObserver>,
) -> Result<Engine, choreo_engine::EngineError> {
    Engine::load(
        xar,
        host,
        Options {
            virtual_time: true,
            trace: trace.clone(),
            time_limit: Some(Duration::from_secs_f64(limit)),
            robot: Some(Arc::new(robot.clone()) as Arc<dyn Robot>),
            on_frame,
            ..Options::default()
        },
    )
}

/// One behavior loaded on a fresh simulated NAO with the Python host, in virtual time.
pub struct Run {
    pub engine: Arc<Engine>,
    pub robot: SimRobot,
    pub trace: Trace,
    _host: Box<dyn choreo_engine::ScriptHost>,
    /// For a project's behavior: the robot the engine calls (the launcher holds it weakly)
    /// and the project's files on disk (a temporary folder that lives as long as the run).
    _project: Option<(Arc<dyn Robot>, choreo_xar::source::FilesOnDisk)>,
}

impl Drop for Run {
    /// Behaviors the run started with ALBehaviorManager and left running end with it, as
    /// `choreo run` ends them.
    fn drop(&mut self) {
        if self._project.is_some() {
            self.robot.stop_behaviors();
            self.robot.set_launcher(None);
        }
    }
}

/// The real-time cap of one wait: far more than any stock box needs in virtual time.
pub const WAIT: Duration = Duration::from_secs(60);

impl Run {
    /// Loads `xar` (its scripts see `dir` as their behavior folder), with `scenario`
    /// (YAML text) loaded in the robot, and virtual time limited to `limit` seconds.
    pub fn load(
        xar: &XarFile,
        dir: &Path,
        scenario: Option<&str>,
        limit: f64,
    ) -> Result<Run, String> {
        let robot = SimRobot::new(Model::Nao);
        if let Some(text) = scenario {
            robot.load_scenario(
                Scenario::from_str(text, "scenario.yaml").map_err(|e| e.to_string())?,
            );
        }
        let trace = Trace::new();
        let host = PythonHost::new(PythonOptions {
            behavior_path: dir.display().to_string(),
            ..PythonOptions::default()
        });
        let engine = load_on(xar, &host, &robot, &trace, limit, None).map_err(|e| e.to_string())?;
        Ok(Run {
            engine: Arc::new(engine),
            robot,
            trace,
            _host: Box::new(host),
            _project: None,
        })
    }

    /// Loads a corpus behavior as `choreo run` does: a project's behavior with the project's
    /// files laid out as on a robot (an archive's unpacked) and its other behaviors for
    /// ALBehaviorManager; a lone file in its own folder.
    pub fn corpus(job: &CorpusBehavior, limit: f64) -> Result<Run, String> {
        Run::corpus_with(job, limit, None, None)
    }

    /// [`Run::corpus`] with `scenario` (YAML text) loaded in the robot, which speaks
    /// `language` (a NAOqi name), else the language of the package's manifest, as under
    /// `choreo run`.
    pub fn corpus_with(
        job: &CorpusBehavior,
        limit: f64,
        scenario: Option<&str>,
        language: Option<&str>,
    ) -> Result<Run, String> {
        let Some(project) = &job.project else {
            return Run::load(&job.xar, &job.dir, scenario, limit);
        };
        let files = project.on_disk().map_err(|e| e.to_string())?;
        let dir = if job.relative.is_empty() {
            files.path().to_path_buf()
        } else {
            files.path().join(&job.relative)
        };
        let behavior = project
            .behaviors
            .iter()
            .find(|b| choreo_xar::source::Project::behavior_folder(b) == job.relative)
            .ok_or_else(|| format!("{}: no behavior in {:?}", job.name, job.relative))?;
        // Confined as `choreo run` confines box code by default (docs/security.md).
        let confinement = choreo_python::confinement::Confinement::new(
            &files
                .robot_root()
                .map(Path::to_path_buf)
                .into_iter()
                .collect::<Vec<_>>(),
            &[files.path().to_path_buf()],
            choreo_python::confinement::Allowed::default(),
        );
        let boxes = choreo::nested::BoxCode {
            confinement: Some(Arc::new(confinement)),
            host: None,
        };
        let host_box = choreo::nested::script_host(&dir, &behavior.path, project, &boxes);
        let robot = SimRobot::new(job.model);
        robot.set_robot_root(files.robot_root().map(Path::to_path_buf));
        let language =
            language.or_else(|| choreo::implied::language(project).map(|l| l.value.name));
        if let Some(language) = language {
            assert!(robot.set_language(language), "no language {language:?}");
        }
        if let Some(text) = scenario {
            robot.load_scenario(
                Scenario::from_str(text, "scenario.yaml").map_err(|e| e.to_string())?,
            );
        }
        let shared: Arc<dyn Robot> = Arc::new(robot.clone());
        let trace = Trace::new();
        let resources = robot
            .resource_tree()
            .ok_or_else(|| "the simulated robot has no resource tree".to_string())?;
        robot.set_launcher(Some(Arc::new(choreo::nested::ProjectBehaviors::new(
            Arc::clone(project),
            files.path().to_path_buf(),
            trace.clone(),
            Arc::downgrade(&shared),
            false,
            resources,
        ))));
        let engine = Engine::load(
            &job.xar,
            host_box.as_ref(),
            Options {
                virtual_time: true,
                trace: trace.clone(),
                time_limit: Some(Duration::from_secs_f64(limit)),
                robot: Some(Arc::clone(&shared)),
                ..Options::default()
            },
        )
        .map_err(|e| e.to_string())?;
        let engine = Arc::new(engine);
        if let Some(name) = choreo::nested::ProjectBehaviors::played_name(behavior) {
            robot.behavior_started(&name, &engine);
        }
        Ok(Run {
            engine,
            robot,
            trace,
            _host: host_box,
            _project: Some((shared, files)),
        })
    }

    /// Loads the first behavior of the file at `path` (a stock box.xar or behavior.xar).
    pub fn file(path: &Path, scenario: Option<&str>, limit: f64) -> Run {
        let project = choreo_xar::source::load_path(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let behavior = project
            .behaviors
            .first()
            .unwrap_or_else(|| panic!("{}: no behavior", path.display()));
        Run::load(&behavior.xar, path.parent().unwrap(), scenario, limit)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The stock box of the file at `path` (a box.xar) placed as `root/Box` in the diagram of
    /// an empty root: started, the root loads it and waits, so that a test can stimulate its
    /// inputs with values (a library box's typed onStart would otherwise get the start's
    /// bang).
    pub fn nested(path: &Path, scenario: Option<&str>, limit: f64) -> Run {
        let text = std::fs::read_to_string(path).unwrap();
        let start = text.find("<Box ").expect("a Box element");
        let end = text.rfind("</Box>").expect("a Box element") + "</Box>".len();
        let tag_end = start + text[start..].find('>').unwrap();
        let tag = text[start..tag_end]
            .replacen(" name=\"root\"", " name=\"Box\"", 1)
            .replacen(" id=\"", " id=\"1\" old_id=\"", 1);
        let xml = format!(
            r#"{head}<Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
{tag}{body}
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>{tail}"#,
            head = &text[..start],
            body = &text[tag_end..end],
            tail = &text[end..],
        );
        let x = choreo_xar::read_xar(&path.display().to_string(), xml.as_bytes())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .value;
        Run::load(&x, path.parent().unwrap(), scenario, limit)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Sets a parameter of the box at `path` from its text (before the start).
    pub fn param(&self, path: &str, name: &str, text: &str) -> &Run {
        self.engine
            .set_parameter(path, name, text)
            .unwrap_or_else(|e| panic!("{path} {name}: {e}"));
        self
    }

    /// Starts the behavior and waits until it finishes, goes idle or reaches its limit.
    pub fn start(&self) -> Outcome {
        self.engine.start();
        self.engine.wait(WAIT)
    }

    /// Stimulates input `input` of the box at `path` and waits until nothing more happens.
    pub fn stimulate(&self, path: &str, input: &str, value: Value) -> Outcome {
        self.engine
            .stimulate(path, input, value)
            .unwrap_or_else(|e| panic!("{e}"));
        self.engine.wait(WAIT)
    }

    /// Every event so far.
    pub fn events(&self) -> Vec<Event> {
        self.trace.events()
    }

    /// The values and times (seconds) at which the box at `path` fired output `port`.
    pub fn outputs(&self, path: &str, port: &str) -> Vec<(f64, Value)> {
        self.events()
            .into_iter()
            .filter_map(|e| match &e.step {
                Step::Out { port: p, value } if e.path == path && p == port => {
                    Some((secs(&e), value.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The arguments and times (seconds) of every call of `method` (`ALLeds.fade`), blocking
    /// or posted (`ALLeds.post.fade`).
    pub fn calls(&self, method: &str) -> Vec<(f64, Vec<Value>)> {
        self.events()
            .into_iter()
            .filter_map(|e| match &e.step {
                Step::RobotCall { method: m, args } if m.replacen(".post.", ".", 1) == method => {
                    Some((secs(&e), args.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// Errors in box code, as `path hook: text`.
    pub fn errors(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e.step {
                Step::Err { hook, text } => Some(format!("{} {hook}: {text}", e.path)),
                _ => None,
            })
            .collect()
    }

    /// The whole trace, one short line per event (for failure messages).
    pub fn dump(&self) -> String {
        self.events()
            .iter()
            .filter(|e| !matches!(e.step, Step::Frame { .. }))
            .map(|e| format!("{:>9.3}s {}", secs(e), e.short()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The event's time in seconds.
pub fn secs(e: &Event) -> f64 {
    e.time_ns as f64 / 1e9
}

/// Asserts two times (seconds) agree within a millisecond.
#[track_caller]
pub fn assert_secs(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() < 1e-3,
        "{what}: at {got} s, expected {want} s"
    );
}

/// One behavior of the corpus, with what `choreo run` derives from its package.
pub struct CorpusBehavior {
    /// The file, and the behavior inside a project or archive (`file :: behavior/path`).
    pub name: String,
    /// The behavior.
    pub xar: XarFile,
    /// The folder its scripts see as the behavior's.
    pub dir: PathBuf,
    /// Pepper when the package's manifest asks for it (`JULIETTE`), else NAO.
    pub model: Model,
    /// The package uuid, from the manifest (empty without one).
    pub package_uid: String,
    /// The behavior's folder inside its package (empty for a lone file).
    pub relative: String,
    /// The folders of every behavior of the same project or archive (the names
    /// ALBehaviorManager knows them by, after the package), this one's included.
    pub project_behaviors: Vec<String>,
    /// The project or archive it belongs to (`None` for a lone file).
    pub project: Option<Arc<choreo_xar::source::Project>>,
}

/// Other processes keeping cores busy (a shell's busy loop each) until dropped: the load of
/// a busy CI runner, for the tests that must give the same result under it.
pub struct Hogs(Vec<std::process::Child>);

impl Hogs {
    /// `n` busy loops.
    pub fn start(n: usize) -> Hogs {
        Hogs(
            (0..n)
                .map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdout(std::process::Stdio::null())
                        .spawn()
                        .expect("sh runs")
                })
                .collect(),
        )
    }

    /// A busy loop on every core of the machine.
    pub fn every_core() -> Hogs {
        Hogs::start(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Signs in a box script that it blocks or spins on real I/O (a server socket, the network):
/// virtual time cannot move while such a hook runs, so a run that never ends because of it
/// is the world's.
pub const REAL_IO: &[&str] = &[
    "accept(",
    "recv(",
    "urlopen",
    "urllib",
    "requests.",
    "socket.",
];

/// Every behavior of the corpus below `root`, in the order of the corpus run: projects
/// (`.pml`: their behaviors are then not run again as lone files), then archives (`.crg`,
/// `.cbl`, `.pkg`: each behavior inside), then every other `.xar`; each kind in file order.
/// Second, the files that could not be loaded, with the error (file, error).
pub fn corpus_behaviors(root: &Path) -> (Vec<CorpusBehavior>, Vec<(String, String)>) {
    // macOS AppleDouble companions (`._name.pml`) are metadata, not projects: skipped, as
    // `choreo check` skips them.
    let files = choreo_testkit::files_under(root, &|p| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("._"))
    });
    let short = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let canonical = |p: &Path| dunce::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut behaviors = Vec::new();
    let mut load_errors = Vec::new();
    let mut covered = BTreeSet::new();
    for kinds in [&["pml"][..], &["crg", "cbl", "pkg"]] {
        for f in files
            .iter()
            .filter(|f| choreo_testkit::has_extension(f, kinds))
        {
            let project = match choreo_xar::source::load_path(f) {
                Ok(project) => project,
                Err(e) => {
                    load_errors.push((short(f), e.to_string()));
                    continue;
                }
            };
            let manifest = project.manifest.as_ref();
            // As `choreo run` decides: the manifest, else what the content was made for.
            let model = choreo::implied::model(&project).map_or(Model::Nao, |m| m.value);
            let uid = manifest.and_then(|m| m.uuid.clone()).unwrap_or_default();
            let parent = f.parent().unwrap();
            let folders: Vec<String> = project
                .behaviors
                .iter()
                .map(|b| b.path.rsplit_once('/').map_or("", |p| p.0).to_string())
                .collect();
            let project = Arc::new(project);
            for b in &project.behaviors {
                if kinds == ["pml"] {
                    covered.insert(canonical(&parent.join(&b.path)));
                }
                let relative = b.path.rsplit_once('/').map_or("", |p| p.0).to_string();
                behaviors.push(CorpusBehavior {
                    name: format!("{} :: {}", short(f), b.path),
                    dir: parent.join(&relative),
                    xar: b.xar.clone(),
                    model,
                    package_uid: uid.clone(),
                    relative,
                    project_behaviors: folders.clone(),
                    project: Some(Arc::clone(&project)),
                });
            }
        }
    }
    for f in files
        .iter()
        .filter(|f| choreo_testkit::has_extension(f, &["xar"]))
    {
        if covered.contains(&canonical(f)) {
            continue;
        }
        match choreo_xar::read_xar(&f.display().to_string(), &std::fs::read(f).unwrap()) {
            Ok(x) => behaviors.push(CorpusBehavior {
                name: short(f),
                dir: f.parent().unwrap().to_path_buf(),
                xar: x.value,
                model: Model::Nao,
                package_uid: String::new(),
                relative: String::new(),
                project_behaviors: Vec::new(),
                project: None,
            }),
            Err(e) => load_errors.push((short(f), e.to_string())),
        }
    }
    (behaviors, load_errors)
}

/// `child`'s standard error (piped), line by line, read on a thread until it closes: the
/// pipe never fills, whoever listens.
pub fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead as _;
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}
