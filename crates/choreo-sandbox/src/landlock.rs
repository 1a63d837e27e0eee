//! The kernel's confinement of the threads that run box code (docs/security.md): Landlock,
//! through the `landlock` crate. What box code reaches through Python is judged at its line
//! by the audit hooks (choreo-python's `confinement`); this layer holds where Python's hooks
//! do not reach — native code called through `ctypes`, a C extension, a program box code
//! starts — because the kernel refuses the system call itself.
//!
//! Landlock restricts a *thread* (and the threads and programs it starts afterwards), never
//! the others. That fits choreo: box code runs only on its run's own threads (the engine's
//! workers, the load thread, the threads box code starts), each confined at its first entry
//! into box code ([`Layer::confine_this_thread`]), while choreo's own threads (the main
//! thread writing the trace, the monitor, the robot's connection) keep what the user has.
//! A confinement is for the thread's whole life: a run's threads never serve another run.

#[cfg_attr(target_os = "linux", path = "landlock_kernel.rs")]
#[cfg_attr(not(target_os = "linux"), path = "landlock_none.rs")]
mod kernel;

use std::cell::Cell;
use std::path::PathBuf;

/// What a confined thread may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Read (files and folders, beneath each).
    pub read: Vec<PathBuf>,
    /// Read, write, create, remove, rename (beneath each).
    pub write: Vec<PathBuf>,
    /// The TCP ports it may connect to; `None`: any.
    pub connect: Option<Vec<u16>>,
    /// The TCP ports it may bind (0: an ephemeral port the kernel picks); `None`: any.
    pub bind: Option<Vec<u16>>,
    /// It may start programs (`execve`); else no program starts from a confined thread,
    /// but those under `execute`.
    pub run: bool,
    /// Programs (files, or folders of them) it may start even without `run`.
    pub execute: Vec<PathBuf>,
    /// It may signal only the processes of its own Landlock domain (itself, what it starts):
    /// Landlock's signal scope (ABI 6; older kernels, nothing). For a whole process confined
    /// alone (the box host): on a thread among unconfined ones, it would refuse a signal to
    /// its own process too.
    pub scope_signals: bool,
}

/// What this machine's kernel can confine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Files and TCP (Landlock ABI 4 or later).
    Full,
    /// Files only (ABI 1 to 3): the network is judged only in Python.
    FilesOnly,
    /// Nothing: Landlock is not built in or not enabled.
    None,
}

/// What this machine's kernel can confine (asks it; cheap).
pub fn support() -> Support {
    kernel::support()
}

/// The sentence that says what the kernel leaves to Python's hooks, when it cannot confine
/// everything (said once per run); `None` when it can.
pub fn shortfall(support: Support) -> Option<&'static str> {
    match support {
        Support::Full => None,
        Support::FilesOnly => Some(
            "this kernel confines box code's files but not its network (Landlock older than \
             ABI 4, Linux 6.7): box code's connections are judged in Python only",
        ),
        Support::None => Some(kernel::NONE_SAID),
    }
}

/// What a run does on a kernel of `support`: runs confined; says [`shortfall`] once and runs
/// with Python's judgement only; or, when the run `require`s confinement
/// (`--sandbox=require`), refuses to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The kernel confines everything.
    Confined,
    /// A notice to say once; the run goes on.
    Said(String),
    /// Why the run is refused.
    Refused(String),
}

/// The [`Verdict`] for a run on a kernel of `support`.
pub fn verdict(support: Support, require: bool) -> Verdict {
    match (shortfall(support), require) {
        (None, _) => Verdict::Confined,
        (Some(short), true) => Verdict::Refused(format!("error: {short} (--sandbox=require)")),
        (Some(short), false) => Verdict::Said(format!(
            "notice: {short}; `--sandbox=require` refuses to run on such a machine"
        )),
    }
}

/// Why a thread could not be confined.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The ruleset could not be made or enforced.
    #[cfg(target_os = "linux")]
    #[error("the kernel's confinement failed: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// Its descriptor could not be copied for another thread.
    #[error("the kernel's confinement failed: {0}")]
    Io(#[from] std::io::Error),
}

/// A run's rules, made once, enforced on each of its threads.
#[derive(Debug)]
pub struct Layer {
    ruleset: kernel::Confinement,
}

thread_local! {
    /// This thread is confined (by its own call, or by the thread that started it).
    static CONFINED: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is confined: a thread it starts is too (the kernel's inheritance),
/// which [`inherit`] tells the new thread.
pub fn this_thread_confined() -> bool {
    CONFINED.with(Cell::get)
}

/// Tells a thread that the thread that started it was confined (the kernel already
/// confines it), so that it does not stack the same rules again: a thread has at most 16.
pub fn inherit(confined: bool) {
    if confined {
        CONFINED.with(|c| c.set(true));
    }
}

impl Layer {
    /// The rules made a ruleset. Paths that do not exist are left out (nothing to reach).
    pub fn new(rules: &Rules) -> Result<Layer, Error> {
        Ok(Layer {
            ruleset: kernel::Confinement::new(rules)?,
        })
    }

    /// Confines the program `command` starts with the rules, from its first instruction
    /// (between the fork and the exec). A kernel without Landlock leaves the command as it
    /// is.
    pub fn confine_program(&self, command: &mut std::process::Command) -> Result<(), Error> {
        self.ruleset.confine_program(command)
    }

    /// Confines the calling thread with the rules, for the rest of its life, unless it is
    /// already. `Ok(false)`: the kernel enforced nothing (no Landlock).
    pub fn confine_this_thread(&self) -> Result<bool, Error> {
        if this_thread_confined() {
            return Ok(true);
        }
        let enforced = self.ruleset.restrict_self()?;
        CONFINED.with(|c| c.set(enforced));
        Ok(enforced)
    }
}

/// A thread of choreo's own, started before any confinement, that does for a confined
/// thread the work of choreo's own that box code's call asks for: a connection to a robot's
/// service opened, a package service's program started (the kernel would hold that work to
/// box code's rules, and a thread that a confined one starts is confined too). One job at a
/// time.
struct Helper {
    jobs: std::sync::Mutex<std::sync::mpsc::Sender<Job>>,
}

/// A job for the [`Helper`].
type Job = Box<dyn FnOnce() + Send>;

/// The process's helper, once started by [`start_helper`].
static HELPER: std::sync::OnceLock<Option<Helper>> = std::sync::OnceLock::new();

thread_local! {
    /// This is the helper's thread (a job that asks for help runs in place).
    static IS_HELPER: Cell<bool> = const { Cell::new(false) };
}

/// Starts the process's helper thread, once; a confined run's set-up calls it, on the
/// caller's thread (a confined thread starts none: its helper would be confined).
pub fn start_helper() {
    if this_thread_confined() {
        return;
    }
    HELPER.get_or_init(|| {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("choreo-helper".to_string())
            .spawn(move || {
                IS_HELPER.with(|h| h.set(true));
                for job in queue {
                    job();
                }
            })
            .ok()?;
        Some(Helper {
            jobs: std::sync::Mutex::new(jobs),
        })
    });
}

/// Runs `work` as choreo's own: on the helper's thread when there is one, else here (no
/// confined run started one). Always there, not only from a thread known to be confined:
/// a thread that choreo's own code starts from a confined one is confined without knowing.
pub fn helped<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let helper = HELPER.get().and_then(Option::as_ref);
    let Some(helper) = helper.filter(|_| !IS_HELPER.with(Cell::get)) else {
        return work();
    };
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    // Shared with the job, so that it can still run here if the helper is gone.
    let work = std::sync::Arc::new(std::sync::Mutex::new(Some(work)));
    let job_work = std::sync::Arc::clone(&work);
    let job: Job = Box::new(move || {
        let taken = job_work
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(w) = taken {
            let _ = tx.send(w());
        }
    });
    let sent = helper
        .jobs
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(job)
        .is_ok();
    if sent && let Ok(done) = rx.recv() {
        return done;
    }
    // The helper is gone (an earlier job panicked): here, judged as box code. Taken already,
    // the work panicked on the helper: a panic here too, as if it had run here.
    let taken = work
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    match taken {
        Some(w) => w(),
        None => std::panic::panic_any("choreo's helper thread panicked running a job"),
    }
}

// Linux's: the kernel's confinement tried for real (elsewhere nothing is enforced).
#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;
    use std::io::ErrorKind;
    use std::net::{TcpListener, TcpStream};

    /// Runs `work` on a new thread confined by `rules` (the test's own thread stays free).
    fn confined<T: Send>(rules: &Rules, work: impl FnOnce() -> T + Send) -> T {
        let layer = Layer::new(rules).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(layer.confine_this_thread().unwrap(), "not enforced");
                work()
            })
            .join()
            .unwrap()
        })
    }

    #[test]
    fn this_machine_confines_files_and_tcp() {
        // The machine the suite runs on has Landlock ABI 7 (docs/security.md); a kernel
        // without it is a fact to see, not a pass.
        assert_eq!(support(), Support::Full);
        assert_eq!(shortfall(Support::Full), None);
    }

    #[test]
    fn a_confined_thread_writes_only_beneath_its_write_folders() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("run");
        let outside = dir.path().join("elsewhere");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("kept.txt"), "mine").unwrap();
        let rules = Rules {
            write: vec![inside.clone()],
            ..Rules::default()
        };
        let (wrote, refused, read) = confined(&rules, || {
            (
                std::fs::write(inside.join("a.txt"), "box").is_ok(),
                std::fs::write(outside.join("b.txt"), "box").map_err(|e| e.kind()),
                std::fs::read(outside.join("kept.txt")).map_err(|e| e.kind()),
            )
        });
        assert!(wrote);
        assert_eq!(refused, Err(ErrorKind::PermissionDenied));
        assert_eq!(read, Err(ErrorKind::PermissionDenied));
        assert!(!outside.join("b.txt").exists());
        // The test's own thread is not confined.
        assert_eq!(std::fs::read(outside.join("kept.txt")).unwrap(), b"mine");
    }

    #[test]
    fn a_confined_thread_connects_only_to_its_ports_and_binds_ephemeral_ones() {
        let open = TcpListener::bind("127.0.0.1:0").unwrap();
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let open_port = open.local_addr().unwrap().port();
        let closed_port = closed.local_addr().unwrap().port();
        let rules = Rules {
            connect: Some(vec![open_port]),
            bind: Some(vec![0]),
            ..Rules::default()
        };
        let (to_open, to_closed, ephemeral) = confined(&rules, || {
            (
                TcpStream::connect(("127.0.0.1", open_port)).is_ok(),
                TcpStream::connect(("127.0.0.1", closed_port)).map_err(|e| e.kind()),
                TcpListener::bind("127.0.0.1:0").is_ok(),
            )
        });
        assert!(to_open);
        assert_eq!(to_closed.err(), Some(ErrorKind::PermissionDenied));
        assert!(ephemeral);
    }

    #[test]
    fn a_confined_thread_starts_no_program_without_run() {
        let rules = Rules {
            read: vec!["/".into()],
            ..Rules::default()
        };
        let started = confined(&rules, || {
            std::process::Command::new("/bin/true")
                .status()
                .map_err(|e| e.kind())
        });
        assert_eq!(started.err(), Some(ErrorKind::PermissionDenied));
        let rules = Rules { run: true, ..rules };
        let started = confined(&rules, || std::process::Command::new("/bin/true").status());
        assert!(started.unwrap().success());
    }

    #[test]
    fn a_program_is_confined_from_its_start_and_may_be_started_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x.txt");
        let rules = Rules {
            read: vec!["/".into()],
            execute: vec!["/usr/bin/touch".into()],
            ..Rules::default()
        };
        let layer = Layer::new(&rules).unwrap();
        let mut touch = std::process::Command::new("/usr/bin/touch");
        touch.arg(&target);
        layer.confine_program(&mut touch).unwrap();
        // Started (its file may be), then refused the write; this thread stays free.
        assert_eq!(touch.status().unwrap().code(), Some(1));
        assert!(!target.exists());
        let mut sh = std::process::Command::new("/bin/sh");
        sh.args(["-c", "true"]);
        layer.confine_program(&mut sh).unwrap();
        assert_eq!(
            sh.status().map_err(|e| e.kind()).err(),
            Some(ErrorKind::PermissionDenied)
        );
        std::fs::write(&target, "x").unwrap();
    }

    #[test]
    fn the_helper_does_what_a_confined_thread_may_not() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("choreo's.txt");
        start_helper();
        let (refused, helped) = confined(&Rules::default(), || {
            let refused = std::fs::write(&target, "x").map_err(|e| e.kind());
            let to = target.clone();
            (refused, helped(move || std::fs::write(&to, "x").is_ok()))
        });
        assert_eq!(refused, Err(ErrorKind::PermissionDenied));
        assert!(helped);
        assert!(target.exists());
    }

    #[test]
    fn a_thread_started_by_a_confined_one_is_confined_and_knows_it() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::default();
        let target = dir.path().join("x.txt");
        let (knows, refused) = confined(&rules, || {
            let confined = this_thread_confined();
            std::thread::scope(|s| {
                s.spawn(|| {
                    inherit(confined);
                    (
                        this_thread_confined(),
                        std::fs::write(&target, "x").map_err(|e| e.kind()),
                    )
                })
                .join()
                .unwrap()
            })
        });
        assert!(knows);
        assert_eq!(refused, Err(ErrorKind::PermissionDenied));
    }
}

// Every platform's: what a run does on each kernel.
#[cfg(test)]
mod verdicts {
    use super::*;

    #[test]
    fn a_kernel_that_cannot_confine_is_said_once_or_refused_under_require() {
        assert_eq!(verdict(Support::Full, true), Verdict::Confined);
        assert_eq!(verdict(Support::Full, false), Verdict::Confined);
        let Verdict::Said(said) = verdict(Support::None, false) else {
            panic!("not said");
        };
        // The platform's own words: Linux's kernel without Landlock, or a system without it.
        let expected = if cfg!(target_os = "linux") {
            "notice: this kernel cannot confine"
        } else {
            "notice: this system has no Landlock"
        };
        assert!(said.starts_with(expected), "{said}");
        assert!(said.ends_with("`--sandbox=require` refuses to run on such a machine"));
        let Verdict::Refused(refused) = verdict(Support::FilesOnly, true) else {
            panic!("not refused");
        };
        assert!(refused.contains("not its network"), "{refused}");
        assert!(refused.ends_with("(--sandbox=require)"), "{refused}");
    }
}
