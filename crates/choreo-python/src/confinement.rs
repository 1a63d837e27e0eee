//! What box code of a run may reach (docs/security.md): the user's `--allow-*` flags
//! ([`Allowed`]) and the run's folders, made one [`Confinement`] that judges each path, host
//! and program box code asks for, and keeps what it refused for the report; and the same
//! rules (wider by what the interpreter's native code reads) for the kernel, which confines
//! each thread of the run as it first enters box code ([`Confinement::confine_this_thread`]).

use std::path::{Path, PathBuf};

use choreo_base::path::resolved;
use std::sync::{Arc, Mutex, OnceLock};

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
pub struct Confinement {
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    allowed: Allowed,
    /// The first [`REFUSALS_KEPT`] refusals, and how many came after.
    refused: Mutex<(Vec<String>, usize)>,
    /// The kernel's layer, made at the first thread's entry (Python's folders are known
    /// then); `None` when the kernel cannot confine, or the layer could not be made (or, in
    /// the box host, is the whole process's already).
    kernel: OnceLock<Option<choreo_sandbox::landlock::Layer>>,
    /// Where a refusal goes instead of [`Confinement::refused`]: the box host hands each
    /// to choreo's process, which writes the report.
    forward: Option<Box<dyn Fn(String) + Send + Sync>>,
}

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Confinement")
            .field("read", &self.read)
            .field("write", &self.write)
            .field("allowed", &self.allowed)
            .finish_non_exhaustive()
    }
}

/// The refusals a run keeps for its report: a box refused in a loop costs the run no more.
const REFUSALS_KEPT: usize = 1000;

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

/// What the interpreter's native code reads besides what box code may (the kernel's layer
/// only; Python's own hooks do not see these reads): shared libraries a C extension loads,
/// and the name service's and TLS's configuration.
const NATIVE_READS: &[&str] = &[
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
    "/etc/ssl",
    "/usr/share/ca-certificates",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/host.conf",
    "/etc/services",
    "/etc/protocols",
];

/// What the programs box code starts read, with `--allow-run`: the system's programs and
/// their configuration (they run under the same rules as box code).
const PROGRAM_READS: &[&str] = &["/bin", "/sbin", "/usr", "/etc"];

/// Python's own folders (`sys.prefix`, `sys.path`...), given once by the shim at set-up.
static PYTHON_FOLDERS: OnceLock<Vec<PathBuf>> = OnceLock::new();

impl Confinement {
    /// The confinement of a run whose own folders are `run` (written and read), whose
    /// project is read from `project`, with `allowed` more.
    pub fn new(run: &[PathBuf], project: &[PathBuf], allowed: Allowed) -> Confinement {
        // What box code's calls ask of choreo itself (a service's connection, a program)
        // is done by a thread started now, on the set-up's thread, outside the confinement.
        choreo_sandbox::landlock::start_helper();
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
            refused: Mutex::new((Vec::new(), 0)),
            kernel: OnceLock::new(),
            forward: None,
        }
    }

    /// What box code may read and write (resolved), and what the flags allowed: what the
    /// box host is started with ([`Confinement::in_box_host`]).
    pub fn parts(&self) -> (&[PathBuf], &[PathBuf], &Allowed) {
        (&self.read, &self.write, &self.allowed)
    }

    /// The box host's copy of a run's confinement ([`Confinement::parts`]): it judges box
    /// code's calls at their line, hands each refusal to `forward`, and confines no thread
    /// (the kernel confines the whole process: [`Confinement::kernel_rules`]).
    pub fn in_box_host(
        read: Vec<PathBuf>,
        write: Vec<PathBuf>,
        allowed: Allowed,
        forward: Box<dyn Fn(String) + Send + Sync>,
    ) -> Confinement {
        Confinement {
            read,
            write,
            allowed,
            refused: Mutex::new((Vec::new(), 0)),
            kernel: OnceLock::from(None),
            forward: Some(forward),
        }
    }

    /// Confines the calling thread in the kernel with this run's rules, for the rest of its
    /// life (once per thread; a thread box code starts inherits it). Called at every entry
    /// into box code: after the first, one thread-local read.
    pub(crate) fn confine_this_thread(&self) {
        if choreo_sandbox::landlock::this_thread_confined() {
            return;
        }
        let layer = self.kernel.get_or_init(|| {
            if choreo_sandbox::landlock::support() == choreo_sandbox::landlock::Support::None {
                return None;
            }
            choreo_sandbox::landlock::Layer::new(&self.kernel_rules())
                .map_err(|e| self.note_kernel_failure(&e))
                .ok()
        });
        if let Some(layer) = layer
            && let Err(e) = layer.confine_this_thread()
        {
            self.note_kernel_failure(&e);
        }
    }

    /// The kernel's layer for a program of a package service (the package's code too, in a
    /// process of its own): box code's rules, with `reads` more (the package, the copies
    /// of its Python, PyPI's qi), `program` to start, and TCP to the robot's and the
    /// package's services' `ports`, listening on `listen`. `None` when the kernel cannot
    /// confine (or the layer could not be made: said in the report).
    pub fn program_layer(
        &self,
        reads: &[PathBuf],
        program: &Path,
        ports: &[u16],
        listen: u16,
    ) -> Option<choreo_sandbox::landlock::Layer> {
        if choreo_sandbox::landlock::support() == choreo_sandbox::landlock::Support::None {
            return None;
        }
        let mut rules = self.kernel_rules();
        rules.read.extend(reads.iter().cloned());
        rules.execute.push(resolved(program));
        if let Some(connect) = &mut rules.connect {
            connect.extend_from_slice(ports);
        }
        if let Some(bind) = &mut rules.bind {
            bind.push(listen);
        }
        choreo_sandbox::landlock::Layer::new(&rules)
            .map_err(|e| self.note_kernel_failure(&e))
            .ok()
    }

    /// A failure of the kernel's layer: a line in the report (box code was still judged in
    /// Python), once.
    fn note_kernel_failure(&self, e: &choreo_sandbox::landlock::Error) {
        let text = format!("(the kernel could not confine a thread of box code: {e})");
        let (kept, _) = &mut *choreo_base::lock(&self.refused);
        if !kept.contains(&text) {
            kept.push(text);
        }
    }

    /// The rules for the kernel: what box code may read and write, what the interpreter's
    /// native code reads, and the network as `--allow-net` says, by port (the kernel knows
    /// no host: a host's ports are all of them).
    pub fn kernel_rules(&self) -> choreo_sandbox::landlock::Rules {
        let python = PYTHON_FOLDERS.get().map_or(&[][..], Vec::as_slice);
        let mut read: Vec<PathBuf> = self
            .read
            .iter()
            .chain(python)
            .cloned()
            .chain(NATIVE_READS.iter().map(PathBuf::from))
            .collect();
        if self.allowed.run {
            read.extend(PROGRAM_READS.iter().map(PathBuf::from));
        }
        let (connect, bind) = match &self.allowed.net {
            // Refused: nothing, but an ephemeral port to listen on (as the hooks allow).
            None => (Some(Vec::new()), Some(vec![0])),
            Some(hosts) => {
                let ports: Option<Vec<u16>> = hosts
                    .iter()
                    .map(|h| h.rsplit_once(':').and_then(|(_, p)| p.parse().ok()))
                    .collect();
                (ports.filter(|p| !p.is_empty()), None)
            }
        };
        choreo_sandbox::landlock::Rules {
            read,
            write: self.write.clone(),
            connect,
            bind,
            run: self.allowed.run,
            execute: Vec::new(),
            scope_signals: false,
        }
    }

    /// What box code was refused, in order: `write /tmp/x.txt (root/Box line 4;
    /// --allow-write /tmp)`, then how many more past those kept ([`is_count`]).
    pub fn refused(&self) -> Vec<String> {
        let (kept, more) = &*choreo_base::lock(&self.refused);
        let mut all = kept.clone();
        if *more > 0 {
            all.push(format!("{MORE_PREFIX}{more}{MORE_SUFFIX}"));
        }
        all
    }

    /// Keeps a refusal for the report (past [`REFUSALS_KEPT`], counts it).
    pub fn note_refusal(&self, text: String) {
        if let Some(forward) = &self.forward {
            forward(text);
            return;
        }
        let (kept, more) = &mut *choreo_base::lock(&self.refused);
        if kept.len() < REFUSALS_KEPT {
            kept.push(text);
        } else {
            *more += 1;
        }
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
            // A name looked up: allowed when a host the flag names is that name, on any
            // port (`--allow-net=example.org:80` looks `example.org` up).
            "resolve" => match &self.allowed.net {
                Some(hosts) if hosts.is_empty() => None,
                Some(hosts) if hosts.iter().any(|h| host_of(h) == target) => None,
                _ => Some(format!("--allow-net={target}")),
            },
            // A socket of a kind the box host's kernel rules never allow (a Unix socket:
            // seccomp), named where it is made. Elsewhere its connection is judged.
            "socket" => self.forward.is_some().then(|| "--no-sandbox".to_string()),
            _ => (!self.allowed.run).then(|| "--allow-run".to_string()),
        }
    }
}

/// Whether `target` (`host:port`) is one of `hosts` (`host:port`, or `host` for any port).
fn net_allowed(hosts: &[String], target: &str) -> bool {
    let host = host_of(target);
    hosts.iter().any(|h| h == target || h == host)
}

/// The host of `host:port` (or `host`).
fn host_of(target: &str) -> &str {
    target.rsplit_once(':').map_or(target, |(h, _)| h)
}

/// Whether `path` is one of `roots` or inside one.
fn under(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

thread_local! {
    /// The confinement of the project code that is no box's running on this thread (a
    /// dialog's `%script`, a stack's Python behavior): `crate::project_code`.
    static JUDGING: std::cell::RefCell<Option<Arc<Confinement>>> =
        const { std::cell::RefCell::new(None) };
}

/// The confinement of the project code that is no box's on this thread, if any.
pub(crate) fn judging_here() -> Option<Arc<Confinement>> {
    JUDGING.with(|j| j.borrow().clone())
}

/// This thread runs project code that is no box's under `confinement` (its whole life).
pub(crate) fn judge_here(confinement: &Arc<Confinement>) {
    JUDGING.with(|j| *j.borrow_mut() = Some(Arc::clone(confinement)));
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

/// How [`Confinement::refused`] words the count of refusals past those kept.
const MORE_PREFIX: &str = "and ";
const MORE_SUFFIX: &str = " more refusals";

/// Whether a line of [`Confinement::refused`] is the count of refusals past those kept.
pub fn is_count(line: &str) -> bool {
    line.strip_prefix(MORE_PREFIX)
        .and_then(|l| l.strip_suffix(MORE_SUFFIX))
        .is_some_and(|n| n.parse::<u64>().is_ok())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn a_path_is_judged_where_it_really_is() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, run.join("link")).unwrap();
        let c = Confinement::new(std::slice::from_ref(&run), &[], Allowed::default());
        assert_eq!(
            c.check("write", &run.join("new/file.txt").to_string_lossy()),
            None
        );
        // Through a link, and through `..`: outside.
        let through_link = run.join("link/file.txt");
        assert!(c.check("write", &through_link.to_string_lossy()).is_some());
        let up = format!("{}/../outside/file.txt", run.display());
        let flag = c.check("write", &up).unwrap_or_default();
        assert!(flag.ends_with("outside"), "{flag}");
    }

    #[test]
    fn hosts_are_allowed_by_host_and_port_or_host_alone() {
        let hosts = ["10.0.0.2:8080".to_string(), "example.org".to_string()];
        assert!(net_allowed(&hosts, "10.0.0.2:8080"));
        assert!(!net_allowed(&hosts, "10.0.0.2:80"));
        assert!(net_allowed(&hosts, "example.org:443"));
        let c = Confinement::new(&[], &[], Allowed::default());
        assert_eq!(
            c.check("connect", "10.0.0.2:80").as_deref(),
            Some("--allow-net=10.0.0.2:80")
        );
        assert_eq!(
            c.check("run", "the program ['ls']").as_deref(),
            Some("--allow-run")
        );
    }

    #[test]
    fn a_unix_socket_is_refused_where_it_is_made_in_the_box_host_only() {
        let host =
            Confinement::in_box_host(Vec::new(), Vec::new(), Allowed::default(), Box::new(drop));
        assert_eq!(
            host.check("socket", "a Unix socket").as_deref(),
            Some("--no-sandbox")
        );
        // On choreo's threads the kernel allows one: its connection is judged instead.
        let threads = Confinement::new(&[], &[], Allowed::default());
        assert_eq!(threads.check("socket", "a Unix socket"), None);
    }

    #[test]
    fn a_name_is_looked_up_when_a_host_the_flag_names_is_that_name() {
        let hosts = vec!["example.org:443".to_string(), "10.0.0.2".to_string()];
        let allowed = |net| Allowed {
            net,
            ..Allowed::default()
        };
        let c = Confinement::new(&[], &[], allowed(Some(hosts)));
        assert_eq!(c.check("resolve", "example.org"), None);
        assert_eq!(
            c.check("resolve", "example.com").as_deref(),
            Some("--allow-net=example.com")
        );
        let c = Confinement::new(&[], &[], allowed(Some(Vec::new())));
        assert_eq!(c.check("resolve", "example.com"), None);
        let c = Confinement::new(&[], &[], allowed(None));
        assert_eq!(
            c.check("resolve", "example.org").as_deref(),
            Some("--allow-net=example.org")
        );
    }

    #[test]
    fn refusals_past_the_kept_ones_are_counted() {
        let c = Confinement::new(&[], &[], Allowed::default());
        for i in 0..REFUSALS_KEPT + 5 {
            c.note_refusal(format!("read /x{i}"));
        }
        let all = c.refused();
        assert_eq!(all.len(), REFUSALS_KEPT + 1);
        assert_eq!(all.last().map(String::as_str), Some("and 5 more refusals"));
        assert!(all.last().is_some_and(|l| is_count(l)));
        assert!(!is_count(&all[0]));
    }
}
