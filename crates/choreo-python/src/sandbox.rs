//! The box code side of the sandbox (docs/security.md): what box code may reach — files,
//! the network, other programs — judged where box code asks (CPython's audit hooks, so that
//! a refusal is an exception at the box's line, naming the flag that allows it); and what
//! box code does to its own process, told to the supervising parent (`choreo_sandbox::supervisor`) before it happens
//! — `os._exit` and a signal to its own process, with the box and line — and where a fatal
//! error dumps every thread's stack (Python's `faulthandler`), so that the parent can say
//! which box crashed the process.

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::PyPermissionError;
use pyo3::prelude::*;

use crate::box_state::current_state;

/// The supervising parent, as box code's shims reach it.
struct Supervisor {
    /// Where `faulthandler` writes (a pipe the parent reads).
    fault_fd: i32,
    /// Hands a note to the parent.
    note: Box<dyn Fn(&str) + Send + Sync>,
}

static SUPERVISOR: OnceLock<Supervisor> = OnceLock::new();

/// Says that this process has a supervising parent: `fault_fd` takes a fatal error's dump,
/// `note` tells the parent what box code is about to do to the process. Called once, before
/// the interpreter is set up (later calls change nothing).
pub fn supervised_by(fault_fd: i32, note: impl Fn(&str) + Send + Sync + 'static) {
    let _ = SUPERVISOR.set(Supervisor {
        fault_fd,
        note: Box::new(note),
    });
}

/// Turns `faulthandler` on towards the parent's pipe, when there is a parent (the runtime's
/// set-up).
pub(crate) fn enable_fault_dump(py: Python<'_>) -> PyResult<()> {
    if let Some(s) = SUPERVISOR.get() {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("file", s.fault_fd)?;
        kwargs.set_item("all_threads", true)?;
        py.import("faulthandler")?
            .getattr("enable")?
            .call((), Some(&kwargs))?;
    }
    Ok(())
}

/// `_choreo.note_process_end(text)`: what box code is about to do to the process (`root/Box
/// line 4 (onInput_onStart): os._exit(0)`), for the parent; nothing without one.
#[pyfunction]
pub(crate) fn note_process_end(text: &str) {
    if let Some(s) = SUPERVISOR.get() {
        (s.note)(text);
    }
}

/// What box code of a run may reach beyond its own folders (the command line's `--allow-*`
/// flags; docs/security.md). The default allows nothing more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowed {
    /// Folders or files box code may read besides its project, the run's folders and the
    /// Python it runs on (`--allow-read`).
    pub read: Vec<PathBuf>,
    /// Folders or files box code may write besides the run's folders (`--allow-write`).
    pub write: Vec<PathBuf>,
    /// The network: `None` refuses it; `Some` of nothing allows every host; else the
    /// `host:port` or `host` box code may connect to (`--allow-net`).
    pub net: Option<Vec<String>>,
    /// Box code may start programs and send signals to other processes (`--allow-run`).
    pub run: bool,
}

/// A run's confinement of box code: what it may reach, and what it was refused.
#[derive(Debug)]
pub struct Confinement {
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    allowed: Allowed,
    refused: Mutex<Vec<String>>,
}

/// Files every box code may read: the time zone, the system's random source, locales.
const SYSTEM_READS: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
    "/etc/localtime",
    "/usr/share/zoneinfo",
    "/usr/lib/locale",
    "/usr/share/locale",
];

/// Python's own folders (`sys.prefix`, `sys.path`...), given once by the shim at set-up.
static PYTHON_FOLDERS: OnceLock<Vec<PathBuf>> = OnceLock::new();

impl Confinement {
    /// The confinement of a run whose own folders are `run` (written and read), whose
    /// project is read from `project`, with `allowed` more.
    pub fn new(run: &[PathBuf], project: &[PathBuf], allowed: Allowed) -> Confinement {
        let mut write: Vec<PathBuf> = run.iter().chain(&allowed.write).map(|p| resolved(p)).collect();
        write.push(PathBuf::from("/dev/null"));
        let read = project
            .iter()
            .chain(&allowed.read)
            .map(|p| resolved(p))
            .chain(SYSTEM_READS.iter().map(PathBuf::from))
            .collect();
        Confinement {
            read,
            write,
            allowed,
            refused: Mutex::new(Vec::new()),
        }
    }

    /// What box code was refused, in order: `write /tmp/x.txt (root/Box line 4;
    /// --allow-write /tmp)`.
    pub fn refused(&self) -> Vec<String> {
        choreo_base::lock(&self.refused).clone()
    }

    /// Why `kind` of `target` is refused (the flag that allows it), or `None` when allowed.
    fn check(&self, kind: &str, target: &str) -> Option<String> {
        match kind {
            "read" => {
                let path = resolved(Path::new(target));
                let python = PYTHON_FOLDERS.get().map_or(&[][..], Vec::as_slice);
                let ok = [&self.read, &self.write, python]
                    .iter()
                    .any(|roots| under(&path, roots));
                let named = if Path::new(target).is_absolute() {
                    Path::new(target)
                } else {
                    &path
                };
                (!ok).then(|| format!("--allow-read {}", named.display()))
            }
            "write" => {
                let path = resolved(Path::new(target));
                (!under(&path, &self.write)).then(|| {
                    let folder = path.parent().unwrap_or(&path);
                    format!("--allow-write {}", folder.display())
                })
            }
            "connect" => match &self.allowed.net {
                Some(hosts) if hosts.is_empty() => None,
                Some(hosts) if net_allowed(hosts, target) => None,
                _ => Some(format!("--allow-net={target}")),
            },
            _ => (!self.allowed.run).then(|| "--allow-run".to_string()),
        }
    }
}

/// Whether `target` (`host:port`) is one of `hosts` (`host:port`, or `host` for any port).
fn net_allowed(hosts: &[String], target: &str) -> bool {
    let host = target.rsplit_once(':').map_or(target, |(h, _)| h);
    hosts.iter().any(|h| h == target || h == host)
}

/// `path` absolute, its links followed as far as it exists, `.` and `..` gone: where it
/// really is, so that a link inside the run's folders to a file outside is judged by the
/// file.
fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    // The longest part that exists, its links followed; the rest taken as written.
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(p) => out.push(p),
                    _ => {}
                }
            }
            return out;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Whether `path` is one of `roots` or inside one.
fn under(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

/// `_choreo.python_folders(folders)`: Python's own folders box code reads (the shim gives
/// `sys.prefix`, `sys.base_prefix`, `sys.exec_prefix` and `sys.path`'s folders at set-up).
#[pyfunction]
pub(crate) fn python_folders(folders: Vec<String>) {
    let _ = PYTHON_FOLDERS.set(
        folders
            .iter()
            .filter(|f| !f.is_empty())
            .map(|f| resolved(Path::new(f)))
            .collect(),
    );
}

/// `_choreo.confined(kind, target, where)`: raises `PermissionError` when the current box's
/// run refuses `kind` (`read`, `write`, `connect`, `run`) of `target` (a path, `host:port`,
/// a program), and notes the refusal for the report; outside box code, or in a run without
/// confinement, does nothing.
#[pyfunction]
pub(crate) fn confined(kind: &str, target: &str, at: &str) -> PyResult<()> {
    let Some(state) = current_state() else {
        return Ok(());
    };
    let Some(confinement) = &state.run.options.confinement else {
        return Ok(());
    };
    let Some(flag) = confinement.check(kind, target) else {
        return Ok(());
    };
    let what = match kind {
        "read" => "reading",
        "write" => "writing",
        "connect" => "connecting to",
        _ => "starting",
    };
    choreo_base::lock(&confinement.refused).push(format!("{kind} {target} ({at}; {flag})"));
    let errno = if kind == "run" { 1 } else { 13 };
    Err(PyPermissionError::new_err((
        errno,
        format!("choreo's sandbox refused {what} {target} ({flag} allows it)"),
    )))
}
