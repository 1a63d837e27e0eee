//! ALServiceManager: the services installed on the robot, started and stopped by name.
//! None is installed in simulation except the modules the simulated robot serves, which
//! run from the start; a service a script starts is kept as running (so that a behavior
//! that starts its own service and stops it again goes its usual way), and reported.

use std::collections::BTreeSet;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::error::CallError;
use crate::robot::sim::{Reply, Sim};
use crate::robot::table::{Op, Service};

/// ALServiceManager as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALServiceManager",
    methods: &[
        ("startService", Op::Own),
        ("stopService", Op::Own),
        ("restartService", Op::Own),
        ("isServiceRunning", Op::Own),
        ("services", Op::Own),
        ("stopAllServices", Op::Own),
    ],
    own,
    extractor: None,
};

/// Services started by scripts.
#[derive(Default)]
struct Started(BTreeSet<String>);

fn running(sim: &Sim, name: &str) -> bool {
    sim.has_service(name) || sim.kept("ALServiceManager", |s: &mut Started| s.0.contains(name))
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "startService" | "restartService" => {
            let name = a.str(0)?.to_string();
            sim.notice("ALServiceManager", format!("{method}({name:?})"));
            sim.kept("ALServiceManager", |s: &mut Started| s.0.insert(name));
            Value::Bool(true)
        }
        "stopService" => {
            let name = a.str(0)?;
            sim.notice("ALServiceManager", format!("stopService({name:?})"));
            Value::Bool(sim.kept("ALServiceManager", |s: &mut Started| s.0.remove(name)))
        }
        "isServiceRunning" => Value::Bool(running(sim, a.str(0)?)),
        "services" => Value::List(sim.kept("ALServiceManager", |s: &mut Started| {
            s.0.iter()
                .map(|n| {
                    Value::Map(vec![
                        (Value::from("name"), Value::from(n.as_str())),
                        (Value::from("running"), Value::Bool(true)),
                    ])
                })
                .collect()
        })),
        "stopAllServices" => {
            sim.kept("ALServiceManager", |s: &mut Started| s.0.clear());
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
