//! The box host's start: read what choreo begins it with, take namespaces of its own, set
//! the interpreter up, read its run's confinement, confine the whole process, say it is
//! ready, then serve.
//!
//! The order matters. Namespaces first (the process forks there, and only a process with one
//! thread may). The interpreter next, still unconfined and running only choreo's own code
//! (its standard library, the shims): the kernel's rules need its folders, and none of it
//! needs the run, so choreo may begin a box host before it knows the run (its files laid
//! out meanwhile). Then the run's rules, the rest of the confinement and Landlock, while the process still has one thread, so that every
//! thread it ever starts — lanes, box code's — inherits them (Landlock last of all: the
//! steps before it read `/proc/self`). Only then is a lane served,
//! and with it the first line of box code.

use std::sync::Arc;

use pyo3::prelude::*;

use super::control::{Control, Ready, Record};
use super::message::VERSION;
use super::served::{Served, serve_control};
use crate::confinement::Confinement;

/// The largest file box code may write (`RLIMIT_FSIZE`): a recording, a log, with room;
/// a loop that writes without end stops there with `EFBIG`.
const FILE_SIZE: u64 = 4 << 30;

/// The threads and processes box code may have at once in its namespace (`RLIMIT_NPROC`):
/// box code's 256 threads, the lanes, what `--allow-run` starts. Only inside a user
/// namespace of its own, where the count is box code's alone.
const PROCESSES: u64 = 1024;

/// Runs the box host when this program was started as one (its first argument is
/// `__box-host`): returns the exit code to end with; `None` when it was not.
pub fn serve_box_host() -> Option<i32> {
    let asked = std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == super::executable::BOX_HOST_ARGUMENT);
    asked.then(serve_box_host_here)
}

/// Runs the box host in this process, which choreo started as one (its control socket is
/// descriptor 3), whatever its arguments (a Python interpreter that imported choreo's
/// extension: the Python package's box host). Called without the interpreter lock held.
/// Returns the exit code to end with.
pub fn serve_box_host_here() -> i32 {
    match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("choreo box host: {e}");
            // The code choreo's side reads as "could not start".
            70
        }
    }
}

/// Why the box host could not start.
#[derive(Debug, thiserror::Error)]
enum HostError {
    #[error("no control socket (descriptor 3): not started by choreo")]
    NoSocket,
    #[error("{0}")]
    Control(#[from] super::control::ControlError),
    #[error("choreo's side sent {0}, not the {1}")]
    Unexpected(String, &'static str),
    #[error("choreo's side began it {0} the network and started its run {1} it")]
    Network(&'static str, &'static str),
    #[error("choreo's side speaks version {0}, this box host {VERSION}")]
    Version(u32),
    #[error("cannot take namespaces of its own: {0}")]
    Isolation(String),
    #[error("cannot set the interpreter up: {0}")]
    Python(String),
    #[error("cannot confine the process: {0}")]
    Confine(String),
}

fn run() -> Result<(), HostError> {
    let socket = choreo_sandbox::spawn::inherited_socket().ok_or(HostError::NoSocket)?;
    let control = Control::from_fd(socket);
    let begin = match control.recv()? {
        Some((Record::Begin(begin), _)) => begin,
        other => return Err(HostError::Unexpected(format!("{other:?}"), "beginning")),
    };
    if begin.version != VERSION {
        return Err(HostError::Version(begin.version));
    }
    let no_namespaces = if begin.isolate {
        match choreo_sandbox::isolation::isolate(begin.net) {
            Ok(choreo_sandbox::isolation::Isolation::Namespaced) => None,
            Ok(choreo_sandbox::isolation::Isolation::Unavailable(why)) => Some(why),
            Err(e) => return Err(HostError::Isolation(e.to_string())),
        }
    } else {
        Some("not asked".to_string())
    };
    // The load's scripts may import a package the cache lacks before any box exists: choreo's
    // process installs it, asked over the lane.
    crate::packages::install_elsewhere(super::served::install_without_a_box);
    let control = Arc::new(control);
    let note = Arc::clone(&control);
    crate::sandbox::supervised_by(2, move |text| {
        let _ = note.send(&Record::Note(text.to_string()), &[]);
    });
    Python::attach(|py| crate::runtime::runtime(py).map(drop)).map_err(HostError::Python)?;
    let start = match control.recv()? {
        Some((Record::Start(start), _)) => start,
        other => return Err(HostError::Unexpected(format!("{other:?}"), "start")),
    };
    if start.version != VERSION {
        return Err(HostError::Version(start.version));
    }
    // Its namespaces were taken for the network it was begun with: a run that allows
    // another is refused, not half-confined.
    if start.allowed.net.is_some() != begin.net {
        let said = |allowed| if allowed { "with" } else { "without" };
        return Err(HostError::Network(
            said(begin.net),
            said(start.allowed.net.is_some()),
        ));
    }
    let forward = Arc::clone(&control);
    let confinement = Arc::new(Confinement::in_box_host(
        start.read.clone(),
        start.write.clone(),
        start.allowed.clone(),
        Box::new(move |text| {
            let _ = forward.send(&Record::Refused(text), &[]);
        }),
    ));
    let no_landlock = confine(&start, &confinement, no_namespaces.is_none())?;
    control.send(
        &Record::Ready(Ready {
            version: VERSION,
            no_namespaces,
            no_landlock,
        }),
        &[],
    )?;
    let served = Served::new(Arc::clone(&control), confinement);
    serve_control(&served);
    Ok(())
}

/// Confines the whole process (it has one thread): the bounds, the descriptors, the
/// capabilities and the seccomp filter, then Landlock with the run's rules and signals
/// scoped to the process. What Landlock could not do, said; the rest must hold.
fn confine(
    start: &super::control::Start,
    confinement: &Confinement,
    namespaced: bool,
) -> Result<Option<String>, HostError> {
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
    .map_err(|e| HostError::Confine(e.to_string()))?;
    let bounds = choreo_sandbox::process::Bounds {
        memory: start.memory,
        open_files: start.open_files,
        file_size: Some(FILE_SIZE),
        processes: namespaced.then_some(PROCESSES),
    };
    choreo_sandbox::process::confine(&bounds, &[choreo_sandbox::spawn::SOCKET_FD], &filter)
        .map_err(|e| HostError::Confine(e.to_string()))?;
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
