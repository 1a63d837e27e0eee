//! What confines the box host's process on Linux: namespaces of its own, then hard bounds,
//! its other descriptors closed, no capability, the seccomp filter, and Landlock with the
//! run's rules (docs/security.md, The box host).

use super::control::Start;
use crate::confinement::Confinement;

/// The largest file box code may write (`RLIMIT_FSIZE`): a recording, a log, with room;
/// a loop that writes without end stops there with `EFBIG`.
const FILE_SIZE: u64 = 4 << 30;

/// The threads and processes box code may have at once in its namespace (`RLIMIT_NPROC`):
/// box code's 256 threads, the lanes, what `--allow-run` starts. Only inside a user
/// namespace of its own, where the count is box code's alone.
const PROCESSES: u64 = 1024;

/// Why the box host could not be confined: it does not serve.
#[derive(Debug, thiserror::Error)]
pub(super) enum WallError {
    #[error("cannot take namespaces of its own: {0}")]
    Isolation(String),
    #[error("cannot confine the process: {0}")]
    Confine(String),
}

/// Takes namespaces of its own (user, PID, IPC, and network unless `net`); while the
/// process has one thread. Why it has none, when the kernel would not.
pub(super) fn isolate(net: bool) -> Result<Option<String>, WallError> {
    match choreo_sandbox::isolation::isolate(net) {
        Ok(choreo_sandbox::isolation::Isolation::Namespaced) => Ok(None),
        Ok(choreo_sandbox::isolation::Isolation::Unavailable(why)) => Ok(Some(why)),
        Err(e) => Err(WallError::Isolation(e.to_string())),
    }
}

/// Confines the whole process (it has one thread): the bounds, the descriptors, the
/// capabilities and the seccomp filter, then Landlock with the run's rules and signals
/// scoped to the process. What Landlock could not do, said; the rest must hold.
pub(super) fn confine(
    start: &Start,
    confinement: &Confinement,
    namespaced: bool,
    keep: &[i32],
) -> Result<Option<String>, WallError> {
    use choreo_sandbox::seccomp::Net;
    let net = match &start.allowed.net {
        // A network namespace of its own has no network to reach: IP sockets may be made
        // (Python's hooks then judge each connection at its line, with the flag that
        // allows it), and reach nothing. Without one, none may be made.
        None if namespaced => Net::Any,
        None => Net::None,
        Some(hosts) if hosts.is_empty() => Net::Any,
        Some(_) => Net::Hosts,
    };
    let filter = choreo_sandbox::seccomp::filter(&choreo_sandbox::seccomp::Syscalls {
        net,
        run: start.allowed.run,
        own_pid: std::process::id() as i32,
    })
    .map_err(|e| WallError::Confine(e.to_string()))?;
    let bounds = choreo_sandbox::process::Bounds {
        memory: start.memory,
        open_files: start.open_files,
        file_size: Some(FILE_SIZE),
        processes: namespaced.then_some(PROCESSES),
    };
    choreo_sandbox::process::confine(&bounds, keep, &filter)
        .map_err(|e| WallError::Confine(e.to_string()))?;
    // Landlock last: the steps above read `/proc/self`, which its rules do not grant. Its
    // ruleset's descriptor is closed once the process is confined.
    let mut rules = confinement.kernel_rules();
    rules.scope_signals = true;
    let no_landlock = match choreo_sandbox::landlock::Layer::new(&rules)
        .and_then(|layer| layer.confine_this_thread())
    {
        Ok(true) => None,
        Ok(false) => Some("the kernel has none".to_string()),
        Err(e) => Some(e.to_string()),
    };
    Ok(no_landlock)
}
