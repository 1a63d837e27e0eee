//! What box code of a run may reach (docs/security.md): the user's `--allow-*` flags
//! ([`Allowed`]) and the run's folders, made one [`Confinement`] that judges each path, host
//! and program box code asks for, and keeps what it refused for the report.

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

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
        let mut write: Vec<PathBuf> = run
            .iter()
            .chain(&allowed.write)
            .map(|p| resolved(p))
            .collect();
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

    /// Keeps a refusal for the report.
    pub(crate) fn note_refusal(&self, text: String) {
        choreo_base::lock(&self.refused).push(text);
    }

    /// Why `kind` of `target` is refused (the flag that allows it), or `None` when allowed.
    pub(crate) fn check(&self, kind: &str, target: &str) -> Option<String> {
        match kind {
            "read" => {
                let path = resolved(Path::new(target));
                let python = PYTHON_FOLDERS.get().map_or(&[][..], Vec::as_slice);
                let ok = [&self.read, &self.write, python]
                    .iter()
                    .any(|roots| under(&path, roots));
                // Where it really is: a link's target.
                (!ok).then(|| format!("--allow-read {}", path.display()))
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

/// Keeps Python's own folders (the first call's), which every run's box code reads.
pub(crate) fn set_python_folders(folders: &[String]) {
    let _ = PYTHON_FOLDERS.set(
        folders
            .iter()
            .filter(|f| !f.is_empty())
            .map(|f| resolved(Path::new(f)))
            .collect(),
    );
}
