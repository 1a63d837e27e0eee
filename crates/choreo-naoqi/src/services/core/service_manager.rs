//! ALServiceManager: the services the installed packages declare (`<services>` of a
//! manifest), started and stopped by name (the 2.8 pages `naoqi/core/servicemanager.html`
//! and `servicemanager-api.html`: a service is `<package uuid>.<name>`, or `<name>` alone
//! for compatibility).
//!
//! The programs run where the layer that builds runs puts them ([`ServiceHost`], installed
//! with [`crate::SimRobot::set_service_host`], as ALBehaviorManager's launcher is): it runs
//! each one's `execStart` connected to this robot over qi, and the services they register
//! answer box code's calls ([`crate::robot::calls`]). Without a host, or for a name no
//! package declares, a service a script starts is kept as running and reported (nothing
//! runs: docs/box-environment.md, "Package services").

use std::collections::BTreeSet;
use std::sync::Arc;

use choreo_engine::{MemorySink, RobotError, SubscriptionId, Value};

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

/// ALServiceManager as served (2.8's `start`/`stop`/`restart` and the deprecated
/// `startService`/`stopService`/`restartService`).
pub(crate) const SERVICE: Service = Service {
    name: "ALServiceManager",
    methods: &[
        ("startService", Op::Own),
        ("stopService", Op::Own),
        ("restartService", Op::Own),
        ("start", Op::Own),
        ("stop", Op::Own),
        ("restart", Op::Own),
        ("isServiceRunning", Op::Own),
        ("services", Op::Own),
        ("service", Op::Own),
        ("stopAllServices", Op::Own),
    ],
    own,
    extractor: None,
};

/// A declared service as ServiceManager describes it (`qi::ServiceProcessInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceProcess {
    /// `<package uuid>.<name>`.
    pub name: String,
    /// The command line.
    pub exec_start: String,
    /// Started with the robot.
    pub autorun: bool,
    /// The package's uuid.
    pub package_uuid: String,
    /// Whether its program runs.
    pub running: bool,
}

impl ServiceProcess {
    fn to_value(&self) -> Value {
        Value::Map(vec![
            (Value::from("running"), Value::Bool(self.running)),
            (Value::from("name"), Value::from(self.name.as_str())),
            (
                Value::from("execStart"),
                Value::from(self.exec_start.as_str()),
            ),
            (Value::from("autorun"), Value::Bool(self.autorun)),
            (
                Value::from("packageUuid"),
                Value::from(self.package_uuid.as_str()),
            ),
        ])
    }
}

/// Where package services run: their programs, and the services those register.
pub trait ServiceHost: Send + Sync {
    /// The services the packages declare.
    fn services(&self) -> Vec<ServiceProcess>;

    /// The declared service `name` (`uuid.name` or `name`), resolved to its full name.
    fn resolve(&self, name: &str) -> Option<String>;

    /// Starts service `full` (a name [`ServiceHost::resolve`] gave); false if it runs
    /// already. Returns once its program registered a service, ended, or a bound passed.
    fn start(&self, full: &str) -> Result<bool, ProgramError>;

    /// Stops service `full` (SIGTERM, then SIGKILL after NAOqi's 15 s); false if it did
    /// not run.
    fn stop(&self, full: &str) -> Result<bool, ProgramError>;

    /// Whether a program registered service `module` (a qi service, not a package
    /// service's name).
    fn has_module(&self, module: &str) -> bool;

    /// Calls `method` of `module`, a service a program registered.
    fn call(&self, module: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError>;

    /// Delivers signal `signal` of `module`, a service a program registered, to `sink` as
    /// [`choreo_engine::Robot::connect_signal`] does, until [`ServiceHost::disconnect`].
    fn connect_signal(
        &self,
        module: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError>;

    /// Ends link `id` (no effect if there is none).
    fn disconnect(&self, id: SubscriptionId);
}

/// Why a package service's program could not be started or stopped, in the host's words
/// (they name the program and the cause).
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// Its program could not be launched (its files, its command, the process).
    #[error("{0}")]
    Launch(String),
    /// Its process could not be signalled.
    #[error("{0}")]
    Signal(String),
}

/// Services started by scripts that no package declares (or with no host).
#[derive(Default)]
struct Started(BTreeSet<String>);

/// The host, if the layer above installed one.
#[derive(Default)]
pub(crate) struct Host(pub(crate) Option<Arc<dyn ServiceHost>>);

pub(crate) fn host(sim: &Sim) -> Option<Arc<dyn ServiceHost>> {
    sim.kept("ALServiceManager", |h: &mut Host| h.0.clone())
}

fn running(sim: &Sim, name: &str) -> bool {
    if let Some(host) = host(sim)
        && let Some(full) = host.resolve(name)
    {
        return host.services().iter().any(|s| s.name == full && s.running);
    }
    sim.has_service(name) || sim.kept("ALServiceManager", |s: &mut Started| s.0.contains(name))
}

/// `qi::ServiceEventReason`, the second argument of `serviceStarted` and `serviceStopped`
/// (`servicemanager_structs.h` of the 2.8 documentation).
pub const PROCESS_START_REQUEST: i64 = 0;
/// A stop asked for (`stop`, `stopService`, the run's end).
pub const PROCESS_STOP_REQUEST: i64 = 1;
/// The program ended by itself.
pub const PROCESS_CRASHED: i64 = 3;

/// A start or a stop of `name` by the host, if a package of the run declares it: `act` on
/// its full name, then `signal` with `reason` when it did something ("Send signal
/// serviceStarted if service is successfully launched"). `None`: no package declares it.
fn by_host(
    sim: &Sim,
    name: &str,
    method: &str,
    act: impl FnOnce(&dyn ServiceHost, &str) -> Result<bool, ProgramError>,
    (signal, reason): (&str, i64),
) -> Option<Result<bool, CallError>> {
    let host = host(sim)?;
    let full = host.resolve(name)?;
    // A program started and awaited (up to the host's own bound), or stopped, in real time:
    // the box code waiting is at work, not stalled.
    let at_work = sim.time().ok().map(|t| t.at_work());
    let done = act(host.as_ref(), &full);
    drop(at_work);
    Some(match done {
        Ok(true) => {
            let args = vec![Value::from(full.as_str()), Value::Int(reason)];
            sim.emit("ALServiceManager", signal, args);
            Ok(true)
        }
        Ok(false) => Ok(false),
        Err(e) => Err(CallError::Failed(format!(
            "ALServiceManager.{method}: {full}: {e}"
        ))),
    })
}

fn start(sim: &Sim, name: &str, method: &str) -> Result<bool, CallError> {
    let signal = ("serviceStarted", PROCESS_START_REQUEST);
    if let Some(done) = by_host(sim, name, method, |h, full| h.start(full), signal) {
        return done;
    }
    sim.notice(
        "ALServiceManager",
        format!(
            "{method}({name:?}): no package of the run declares it; kept as running, nothing runs"
        ),
    );
    Ok(sim.kept("ALServiceManager", |s: &mut Started| {
        s.0.insert(name.to_string())
    }))
}

fn stop(sim: &Sim, name: &str, method: &str) -> Result<bool, CallError> {
    let signal = ("serviceStopped", PROCESS_STOP_REQUEST);
    if let Some(done) = by_host(sim, name, method, |h, full| h.stop(full), signal) {
        return done;
    }
    sim.notice("ALServiceManager", format!("{method}({name:?})"));
    Ok(sim.kept("ALServiceManager", |s: &mut Started| s.0.remove(name)))
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let declared = || host(sim).map(|h| h.services()).unwrap_or_default();
    let value = match method {
        "startService" | "start" => {
            let ok = start(sim, a.str(0)?, method)?;
            if method == "start" {
                Value::None
            } else {
                Value::Bool(ok)
            }
        }
        "stopService" | "stop" => {
            let ok = stop(sim, a.str(0)?, method)?;
            if method == "stop" {
                Value::None
            } else {
                Value::Bool(ok)
            }
        }
        // "In fact, call stop and start."
        "restartService" | "restart" => {
            let name = a.str(0)?;
            stop(sim, name, method)?;
            let ok = start(sim, name, method)?;
            if method == "restart" {
                Value::None
            } else {
                Value::Bool(ok)
            }
        }
        "isServiceRunning" => Value::Bool(running(sim, a.str(0)?)),
        "services" => {
            let mut all: Vec<Value> = declared().iter().map(ServiceProcess::to_value).collect();
            all.extend(sim.kept("ALServiceManager", |s: &mut Started| {
                s.0.iter()
                    .map(|n| {
                        ServiceProcess {
                            name: n.clone(),
                            exec_start: String::new(),
                            autorun: false,
                            package_uuid: String::new(),
                            running: true,
                        }
                        .to_value()
                    })
                    .collect::<Vec<_>>()
            }));
            Value::List(all)
        }
        "service" => {
            let name = a.str(0)?;
            let full = host(sim).and_then(|h| h.resolve(name));
            declared()
                .into_iter()
                .find(|s| Some(&s.name) == full.as_ref())
                .map(|s| s.to_value())
                .ok_or_else(|| {
                    CallError::Failed(format!("ALServiceManager.service: no service {name:?}"))
                })?
        }
        "stopAllServices" => {
            for s in declared().into_iter().filter(|s| s.running) {
                stop(sim, &s.name, method)?;
            }
            sim.kept("ALServiceManager", |s: &mut Started| s.0.clear());
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
