//! Package services: the programs a manifest's `<services>` declares, run as NAOqi's
//! ServiceManager runs them (the 2.8 pages `naoqi/core/servicemanager.html`,
//! `servicemanager-api.html` and `dev/tutos/create_a_new_service.html`).
//!
//! - A service is `<package uuid>.<name>` (or `<name>` alone). `autorun` ones start with the
//!   run, as at boot; the others when box code asks ALServiceManager.
//! - Its `execStart` runs in the package's folder with `--qi-url=<the robot>` added, as
//!   NAOqi passes it: the simulated robot is served over qi (`choreo_qi::serve_robot`, on a
//!   free loopback port, first when a service starts), so the program's `qi.Application`
//!   connects to it and the services it registers are in the robot's directory, where box
//!   code's calls reach them (choreo-naoqi's `ServiceHost`).
//! - A Python program (`python`, `./python`, `python2`, `/usr/bin/python2.7 ...`: the robot's
//!   interpreter, or the launcher qipkg writes; a `.py` file or one whose `#!` line names
//!   python, run as the robot runs it, by its `#!` line) runs in the embedded Python's
//!   interpreter, with PyPI's `qi` (libqi's Python binding) installed once beside NAOqi OS's
//!   packages, and the package's `lib/python2.7/site-packages` first, as qipkg's launcher
//!   sets it. Its script and the package's modules are read as the fixer rewrites Python 2
//!   for box scripts, with box scripts' Python-2 builtins (`choreo_python::program`).
//! - What it writes (stdout, stderr) and how it ends are shown as the robot's notices
//!   (trace and report); an end nobody asked for is reported. It is stopped with the run:
//!   SIGTERM, then SIGKILL after NAOqi's 15 s.
//!
//! Why `start` waits (real time, at most [`READY`]) for the program to register a service:
//! box code runs in virtual time, which would otherwise race past a program still starting.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use choreo_base::lock;
use choreo_engine::{MemorySink, Robot, RobotError, SubscriptionId, Value};
use choreo_naoqi::{ProgramError, ServiceHost, ServiceProcess, SimRobot};
use choreo_python::confinement::Confinement;
use choreo_qi::{RemoteRobot, RobotServer, ServerEvent, ServerOptions, SessionOptions};
use choreo_xar::project_files::PackageService;

/// How long `start` waits for a program to register a service.
pub const READY: Duration = Duration::from_secs(30);

/// How long a stopped program has after SIGTERM before SIGKILL (NAOqi's 15 s).
pub const STOP_GRACE: Duration = Duration::from_secs(15);

/// Why a program could not be started or reached: the run's services are gone.
const HELPER_GONE: &str = "the run's package services are gone";

/// The Python binding of libqi that service programs import (PyPI's).
const QI_PIN: &str = "qi==3.1.5";

/// The services of one run's package.
pub struct PackageServices {
    /// Itself, for the threads and the server's log (which must not keep it alive).
    me: std::sync::Weak<PackageServices>,
    uuid: String,
    declared: Vec<PackageService>,
    /// The package's folder (the programs' working folder).
    folder: PathBuf,
    /// The run's root: the programs' `HOME` is its `home/nao`.
    root: Option<PathBuf>,
    robot: SimRobot,
    state: Mutex<State>,
    changed: Condvar,
    /// Where Python programs' fixed copies go (made at the first), removed with the run.
    programs: Mutex<Option<tempfile::TempDir>>,
    /// The run's confinement, which holds its programs too (docs/security.md), and the
    /// port each program listens on (so that the others may reach it); `None`: unconfined.
    confined: Option<(Arc<Confinement>, BTreeMap<String, u16>)>,
}

#[derive(Default)]
struct State {
    server: Option<RobotServer>,
    /// A client of the server, for box code's calls (made again after a (re)start).
    client: Option<Arc<RemoteRobot>>,
    /// Services programs registered (not the robot's own modules).
    registered: BTreeSet<String>,
    /// Registrations seen, ever (what `start` waits for).
    added: u64,
    /// The programs, by full service name.
    running: BTreeMap<String, Program>,
}

struct Program {
    pid: u32,
    /// Set when the program ended, with how.
    ended: Arc<(Mutex<Option<String>>, Condvar)>,
    /// Set when choreo asked it to stop (its end is then not reported as a death).
    stopping: Arc<std::sync::atomic::AtomicBool>,
    /// A `start` waits for it to register or end: a death meanwhile is that call's to
    /// signal (on box code's turn, the same moment every run), not the waiter's (whose
    /// moment is the OS's).
    awaited: bool,
}

impl PackageServices {
    /// The services of the package `uuid` whose folder is `folder`, for `robot`.
    pub fn new(
        uuid: &str,
        declared: Vec<PackageService>,
        folder: &Path,
        root: Option<&Path>,
        robot: SimRobot,
        confinement: Option<Arc<Confinement>>,
    ) -> Arc<PackageServices> {
        let confined = confinement.map(|c| {
            let ports = declared
                .iter()
                .map(|s| (s.name.clone(), free_port().unwrap_or(0)))
                .collect();
            (c, ports)
        });
        Arc::new_cyclic(|me| PackageServices {
            me: me.clone(),
            uuid: uuid.to_string(),
            declared,
            folder: folder.to_path_buf(),
            root: root.map(Path::to_path_buf),
            robot,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            programs: Mutex::new(None),
            confined,
        })
    }

    /// Runs `work` with this as choreo's own work, outside box code's confinement, though
    /// box code's call asked for it (`choreo_sandbox::landlock::helped`); `None` once the
    /// services are gone.
    fn helped<T: Send + 'static>(
        &self,
        work: impl FnOnce(&PackageServices) -> T + Send + 'static,
    ) -> Option<T> {
        let me = self.me.upgrade()?;
        Some(choreo_sandbox::landlock::helped(move || work(&me)))
    }

    fn full(&self, name: &str) -> String {
        format!("{}.{name}", self.uuid)
    }

    fn declared(&self, full: &str) -> Option<&PackageService> {
        self.declared.iter().find(|s| self.full(&s.name) == full)
    }

    /// Starts the `autorun` services, as the robot does at boot.
    pub fn start_autorun(&self) {
        for s in self.declared.iter().filter(|s| s.autorun) {
            if let Err(e) = self.start(&self.full(&s.name)) {
                self.notice(format!("{}: {e}", self.full(&s.name)));
            }
        }
    }

    /// Stops every program (the run is over).
    pub fn stop_all(&self) {
        let names: Vec<String> = lock(&self.state).running.keys().cloned().collect();
        for name in names {
            let _ = self.stop(&name);
        }
        let mut state = lock(&self.state);
        state.client = None;
        if let Some(server) = state.server.take() {
            server.stop();
        }
    }

    fn notice(&self, text: String) {
        self.robot.notice("ALServiceManager", text);
    }

    /// `serviceStopped` for program `full`, which died unasked: its reason is then
    /// ProcessCrashed.
    fn died(&self, full: &str) {
        let args = vec![Value::from(full), Value::Int(choreo_naoqi::PROCESS_CRASHED)];
        self.robot
            .emit_signal("ALServiceManager", "serviceStopped", args);
    }

    /// The robot's qi URL, serving it first if need be.
    fn url(&self) -> Result<String, String> {
        if let Some(server) = &lock(&self.state).server {
            return Ok(server.url.clone());
        }
        // Served without the state's lock: the server reports its own registrations.
        let weak = self.me.clone();
        let log = Arc::new(move |e: &ServerEvent| {
            let Some(me) = weak.upgrade() else { return };
            match e {
                ServerEvent::ServiceAdded(name, _) if !me.robot_has(name) => {
                    let mut state = lock(&me.state);
                    state.registered.insert(name.clone());
                    state.added += 1;
                    me.changed.notify_all();
                }
                ServerEvent::ServiceRemoved(name, _) => {
                    lock(&me.state).registered.remove(name);
                }
                _ => {}
            }
        });
        let options = ServerOptions {
            log,
            ..ServerOptions::default()
        };
        let robot: Arc<dyn Robot> = Arc::new(self.robot.clone());
        let server = choreo_qi::serve_robot(robot, "tcp://127.0.0.1:0", None, options)
            .map_err(|e| format!("cannot serve the robot over qi: {e}"))?;
        let mut state = lock(&self.state);
        if let Some(first) = &state.server {
            // Another thread served it meanwhile.
            server.stop();
            return Ok(first.url.clone());
        }
        let url = server.url.clone();
        state.server = Some(server);
        Ok(url)
    }

    /// Whether `name` is the directory or a module the robot itself serves (registered when
    /// it was served, before any program ran).
    fn robot_has(&self, name: &str) -> bool {
        name == "ServiceDirectory" || self.robot.has_service(name)
    }

    fn spawn(&self, full: &str) -> Result<(), String> {
        let service = self
            .declared(full)
            .ok_or_else(|| format!("no package declares service {full:?}"))?;
        let url = self.url()?;
        let mut command = self.command(&service.name, &service.exec_start, &url)?;
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {:?}: {e}", service.exec_start))?;
        self.notice(format!("{full}: started ({})", service.exec_start));
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let me = self.me.clone();
            let name = full.to_string();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stream)
                    .lines()
                    .map_while(Result::ok)
                {
                    match me.upgrade() {
                        Some(me) => me.notice(format!("{name}: {line}")),
                        None => break,
                    }
                }
            });
        }
        let ended = Arc::new((Mutex::new(None), Condvar::new()));
        let stopping = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let program = Program {
            pid: child.id(),
            ended: Arc::clone(&ended),
            stopping: Arc::clone(&stopping),
            awaited: true,
        };
        lock(&self.state).running.insert(full.to_string(), program);
        let me = self.me.clone();
        let name = full.to_string();
        std::thread::spawn(move || {
            let how = match child.wait() {
                Ok(status) => status.to_string(),
                Err(e) => format!("cannot be waited for: {e}"),
            };
            if let Some(me) = me.upgrade() {
                // Said before `start`, `stop` or `isServiceRunning` can see the end, so box
                // code that goes on from them finds the notice and the signal given.
                if stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    me.notice(format!("{name}: stopped ({how})"));
                } else {
                    me.notice(format!(
                        "{name}: died ({how}); ServiceManager did not ask it to stop"
                    ));
                    let awaited = lock(&me.state)
                        .running
                        .get(&name)
                        .is_some_and(|p| p.awaited);
                    if !awaited {
                        me.died(&name);
                    }
                }
                let mut state = lock(&me.state);
                state.running.remove(&name);
                state.client = None;
                drop(state);
                me.changed.notify_all();
            }
            *lock(&ended.0) = Some(how);
            ended.1.notify_all();
        });
        Ok(())
    }

    /// The command line `exec_start` of service `name` as NAOqi runs it, connected to `url`.
    fn command(&self, name: &str, exec_start: &str, url: &str) -> Result<Command, String> {
        let words = shlex::split(exec_start)
            .ok_or_else(|| format!("execStart {exec_start:?} is not a command line"))?;
        let (program, args) = words
            .split_first()
            .ok_or_else(|| "execStart is empty".to_string())?;
        let base = Path::new(program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let local = |p: &str| {
            if p.starts_with('/') {
                PathBuf::from(p)
            } else {
                self.folder.join(p)
            }
        };
        let interpreter =
            base == "python" || base.starts_with("python2") || base.starts_with("python3");
        // The Python script and its arguments: after the interpreter (unless an option comes
        // first), or the program itself when its name or `#!` line says Python.
        let script = if interpreter {
            args.split_first()
                .filter(|(first, _)| !first.starts_with('-'))
        } else if base.ends_with(".py")
            || choreo_python::program::has_python_shebang(&local(program))
        {
            Some((program, args))
        } else {
            None
        };
        let started;
        let mut command = if interpreter || script.is_some() {
            started = choreo_python::packages::interpreter();
            let mut c = Command::new(&started);
            let mut path = vec![
                self.folder.join("lib/python2.7/site-packages"),
                qi_folder()?,
                choreo_python::packages::packages_folder(),
            ];
            if let Some(old) = std::env::var_os("PYTHONPATH") {
                path.extend(std::env::split_paths(&old));
            }
            c.env(
                "PYTHONPATH",
                std::env::join_paths(path).map_err(|e| e.to_string())?,
            );
            // Each line shown when written, not when the program ends.
            c.env("PYTHONUNBUFFERED", "1");
            match script {
                Some((script, rest)) => {
                    let out = self.programs()?.join(name);
                    c.args(
                        choreo_python::program::prepare(&self.folder, &local(script), &out)
                            .map_err(|e| e.to_string())?,
                    );
                    c.arg(local(script)).args(rest);
                }
                None => {
                    c.args(args);
                }
            }
            c
        } else {
            started = if program.contains('/') && !program.starts_with('/') {
                self.folder.join(program)
            } else {
                on_path(program)
            };
            let mut c = Command::new(&started);
            c.args(args);
            c
        };
        command
            .arg(format!("--qi-url={url}"))
            .current_dir(&self.folder);
        if let Some(root) = &self.root {
            command.env("HOME", root.join("home/nao"));
        }
        self.confine(&mut command, name, &started, url)?;
        Ok(command)
    }

    /// Confines program `name` (started from `started`) as box code, in the kernel: it
    /// listens on its own port, and reaches the robot at `url` and the package's other
    /// programs (docs/security.md). The port is told in `QI_LISTEN_URL`, which libqi's
    /// ApplicationSession reads when a service is registered (the 2.8 page
    /// `dev/libqi/api/cpp/messaging/applicationsession.html`), not on the command line:
    /// NAOqi's ServiceManager gives `--qi-url` only, and a strict parser refuses more.
    fn confine(
        &self,
        command: &mut Command,
        name: &str,
        started: &Path,
        url: &str,
    ) -> Result<(), String> {
        let Some((confinement, ports)) = &self.confined else {
            return Ok(());
        };
        let listen = ports.get(name).copied().unwrap_or(0);
        if listen != 0 {
            command.env("QI_LISTEN_URL", format!("tcp://127.0.0.1:{listen}"));
        }
        let robot = url
            .rsplit_once(':')
            .and_then(|(_, p)| p.trim_end_matches('/').parse::<u16>().ok());
        let reach: Vec<u16> = ports.values().copied().chain(robot).collect();
        let mut reads = vec![
            self.folder.clone(),
            qi_folder()?,
            choreo_python::packages::packages_folder(),
        ];
        if let Some(programs) = lock(&self.programs).as_ref() {
            reads.push(programs.path().to_path_buf());
        }
        if let Some(layer) = confinement.program_layer(&reads, started, &reach, listen) {
            layer
                .confine_program(command)
                .map_err(|e| format!("cannot confine the program: {e}"))?;
        }
        Ok(())
    }

    /// The folder Python programs' fixed copies go in (made at the first call).
    fn programs(&self) -> Result<PathBuf, String> {
        let mut programs = lock(&self.programs);
        if let Some(dir) = programs.as_ref() {
            return Ok(dir.path().to_path_buf());
        }
        let dir = tempfile::Builder::new()
            .prefix("choreo-programs-")
            .tempdir()
            .map_err(|e| format!("cannot make a folder for service programs: {e}"))?;
        let path = dir.path().to_path_buf();
        *programs = Some(dir);
        Ok(path)
    }

    /// The client box code's calls go through.
    fn client(&self) -> Result<Arc<RemoteRobot>, String> {
        if let Some(c) = &lock(&self.state).client {
            return Ok(Arc::clone(c));
        }
        self.helped(PackageServices::connect)
            .unwrap_or_else(|| Err(HELPER_GONE.to_string()))
    }

    /// Serves the robot (if need be) and connects the client to it.
    fn connect(&self) -> Result<Arc<RemoteRobot>, String> {
        let url = self.url()?;
        let client = Arc::new(
            RemoteRobot::connect(&url, SessionOptions::default())
                .map_err(|e| format!("cannot reach the robot's qi server: {e}"))?,
        );
        lock(&self.state).client = Some(Arc::clone(&client));
        Ok(client)
    }
}

/// A loopback port free now, for a program to listen on.
fn free_port() -> Option<u16> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    probe.local_addr().ok().map(|a| a.port())
}

/// Where `program` (a bare name) is found on `PATH`, as the shell would; itself when not.
fn on_path(program: &str) -> PathBuf {
    if program.starts_with('/') {
        return PathBuf::from(program);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|folder| folder.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

/// Where PyPI's `qi` is installed for service programs: `<package cache>/qi-for-services`,
/// installed there once (pip, under a lock), kept out of box code's `sys.path` (box code's
/// `qi` is choreo's). The folder's name is no Python identifier on purpose: the cache is in
/// `sys.path`, and a folder named `qi` there would import, where PyPI's `qi` is not
/// installed, as a hollow namespace package in box code's and a Python caller's `import qi`.
fn qi_folder() -> Result<PathBuf, String> {
    let folder = choreo_python::packages::packages_folder().join("qi-for-services");
    if folder.join("qi").is_dir() {
        return Ok(folder);
    }
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let lock_file = std::fs::File::create(folder.join(".lock"))
        .map_err(|e| format!("{}: {e}", folder.display()))?;
    lock_file
        .lock()
        .map_err(|e| format!("{}: {e}", folder.display()))?;
    if folder.join("qi").is_dir() {
        return Ok(folder);
    }
    eprintln!(
        "choreo: installing {QI_PIN} for package services, once, into {}",
        folder.display()
    );
    let done = Command::new(choreo_python::packages::interpreter())
        .args(["-m", "pip", "install", "--no-deps", "--no-input"])
        .args(["--disable-pip-version-check", "--target"])
        .arg(&folder)
        .arg(QI_PIN)
        .env_remove("PYTHONPATH")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run pip: {e}"))?;
    if !done.status.success() {
        let text = String::from_utf8_lossy(&done.stderr);
        let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("pip could not install {QI_PIN}: {last}"));
    }
    Ok(folder)
}

impl ServiceHost for PackageServices {
    fn services(&self) -> Vec<ServiceProcess> {
        let running = lock(&self.state);
        self.declared
            .iter()
            .map(|s| {
                let name = self.full(&s.name);
                ServiceProcess {
                    running: running.running.contains_key(&name),
                    name,
                    exec_start: s.exec_start.clone(),
                    autorun: s.autorun,
                    package_uuid: self.uuid.clone(),
                }
            })
            .collect()
    }

    fn resolve(&self, name: &str) -> Option<String> {
        self.declared
            .iter()
            .find(|s| self.full(&s.name) == name || s.name == name)
            .map(|s| self.full(&s.name))
    }

    fn start(&self, full: &str) -> Result<bool, ProgramError> {
        let before = {
            let state = lock(&self.state);
            if state.running.contains_key(full) {
                return Ok(false);
            }
            state.added
        };
        let name = full.to_string();
        self.helped(move |me| me.spawn(&name))
            .unwrap_or_else(|| Err(HELPER_GONE.to_string()))
            .map_err(ProgramError::Launch)?;
        let deadline = Instant::now() + READY;
        let mut state = lock(&self.state);
        while state.added == before && state.running.contains_key(full) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                if let Some(program) = state.running.get_mut(full) {
                    program.awaited = false;
                }
                drop(state);
                self.notice(format!(
                    "{full}: registered no service in {} s; box code goes on",
                    READY.as_secs()
                ));
                return Ok(true);
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        // Decided under the lock the waiter reads `awaited` under: a death from now on is
        // the waiter's to signal.
        match state.running.get_mut(full) {
            Some(program) => {
                program.awaited = false;
                Ok(true)
            }
            None => {
                drop(state);
                self.died(full);
                Ok(false)
            }
        }
    }

    fn stop(&self, full: &str) -> Result<bool, ProgramError> {
        let Some((pid, ended, stopping)) = lock(&self.state)
            .running
            .get(full)
            .map(|p| (p.pid, Arc::clone(&p.ended), Arc::clone(&p.stopping)))
        else {
            return Ok(false);
        };
        stopping.store(true, std::sync::atomic::Ordering::SeqCst);
        let process = choreo_sandbox::child::Handle::of_pid(pid)
            .map_err(|e| ProgramError::Signal(e.to_string()))?;
        process.terminate();
        let (done, cond) = &*ended;
        let mut how = lock(done);
        let deadline = Instant::now() + STOP_GRACE;
        while how.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                process.kill();
                drop(
                    cond.wait_timeout(how, Duration::from_secs(5))
                        .unwrap_or_else(PoisonError::into_inner),
                );
                break;
            }
            how = cond
                .wait_timeout(how, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        Ok(true)
    }

    fn has_module(&self, module: &str) -> bool {
        lock(&self.state).registered.contains(module)
    }

    fn call(&self, module: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        // The program's own error, as text: what it says is what box code gets.
        self.client()
            .map_err(RobotError::Failed)?
            .call(module, method, args)
            .map_err(|e| RobotError::Failed(e.to_string()))
    }

    fn connect_signal(
        &self,
        module: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError> {
        self.client()
            .map_err(RobotError::Failed)?
            .connect_signal(module, signal, id, sink)
            .map_err(|e| RobotError::Failed(e.to_string()))
    }

    fn disconnect(&self, id: SubscriptionId) {
        let client = lock(&self.state).client.clone();
        if let Some(client) = client {
            client.unsubscribe(id);
        }
    }
}
