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

use super::channel::Control;
use super::control::{Ready, Record};
use super::message::VERSION;
use super::served::{Served, serve_control};
use crate::confinement::Confinement;

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
    #[error("no control channel: not started by choreo")]
    NoSocket,
    #[error("{0}")]
    Control(#[from] super::control::ControlError),
    #[error("choreo's side sent {0}, not the {1}")]
    Unexpected(String, &'static str),
    #[error("choreo's side began it {0} the network and started its run {1} it")]
    Network(&'static str, &'static str),
    #[error("choreo's side speaks version {0}, this box host {VERSION}")]
    Version(u32),
    #[error(transparent)]
    Walls(#[from] super::walls::WallError),
    #[error("cannot set the interpreter up: {0}")]
    Python(String),
}

fn run() -> Result<(), HostError> {
    let control = Control::inherited().ok_or(HostError::NoSocket)?;
    let begin = match control.recv()? {
        Some((Record::Begin(begin), _)) => begin,
        other => return Err(HostError::Unexpected(said(other), "beginning")),
    };
    if begin.version != VERSION {
        return Err(HostError::Version(begin.version));
    }
    let no_namespaces = if begin.isolate {
        super::walls::isolate(begin.net)?
    } else {
        Some("not asked".to_string())
    };
    // The load's scripts may import a package the cache lacks before any box exists: choreo's
    // process installs it, asked over the lane.
    crate::packages::install_elsewhere(super::served::install_without_a_box);
    let control = Arc::new(control);
    let note = Arc::clone(&control);
    crate::sandbox::supervised_by(2, move |text| {
        let _ = note.send(&Record::Note(text.to_string()));
    });
    Python::attach(|py| crate::runtime::runtime(py).map(drop)).map_err(HostError::Python)?;
    let start = match control.recv()? {
        Some((Record::Start(start), _)) => start,
        other => return Err(HostError::Unexpected(said(other), "start")),
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
            let _ = forward.send(&Record::Refused(text));
        }),
    ));
    let no_landlock = super::walls::confine(
        &start,
        &confinement,
        no_namespaces.is_none(),
        &control.kept_descriptors(),
    )?;
    control.send(&Record::Ready(Ready {
        version: VERSION,
        no_namespaces,
        no_landlock,
    }))?;
    let served = Served::new(Arc::clone(&control), confinement);
    serve_control(&served);
    Ok(())
}

/// What a control record received out of turn was, for the error.
fn said(received: Option<(Record, Option<super::channel::Ends>)>) -> String {
    match received {
        Some((record, _)) => format!("{record:?}"),
        None => "nothing (it closed)".to_string(),
    }
}
