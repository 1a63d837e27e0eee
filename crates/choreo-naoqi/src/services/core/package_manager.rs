//! PackageManager: the packages installed on the robot (the 2.1 and 2.8 pages
//! `naoqi/core/packagemanager-api.html`). The simulated robot has the packages whose
//! behaviors it runs (ALBehaviorManager's `<package>/<behavior>` names: the project's uuid,
//! and `.lastUploadedChoregrapheBehavior` when it was played), installed where PackageManager
//! installs them (`/home/nao/.local/share/PackageManager/apps/<uuid>`, choreo-robot's
//! `paths`). Installing or removing packages is not done: the robot's packages are the run's.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};
use crate::services::core::behaviors::Manager;

/// PackageManager as served.
pub(crate) const SERVICE: Service = Service {
    name: "PackageManager",
    methods: &[
        ("hasPackage", Op::Own),
        ("packages", Op::Own),
        ("packages2", Op::Own),
        ("package", Op::Own),
        ("package2", Op::Own),
        ("getPackages", Op::Own),
        ("getPackage", Op::Own),
    ],
    own,
    extractor: None,
};

/// The uuids of the packages installed, in order.
fn installed(sim: &Sim) -> Vec<String> {
    let mut uuids: Vec<String> = sim
        .state()
        .part::<Manager>()
        .installed()
        .into_iter()
        .filter_map(|n| n.split_once('/').map(|(p, _)| p.to_string()))
        .collect();
    uuids.dedup();
    uuids
}

/// A package as PackageManager describes it (`qi::PackageInfo`'s fields the simulated robot
/// knows: its uuid and where it is installed).
fn info(uuid: &str) -> Value {
    Value::Map(vec![
        (Value::from("uuid"), Value::from(uuid)),
        (
            Value::from("path"),
            Value::from(format!("/{}/{uuid}", choreo_robot::paths::APPS)),
        ),
    ])
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "hasPackage" => {
            let uuid = a.str(0)?;
            Value::Bool(installed(sim).iter().any(|u| u == uuid))
        }
        "packages" | "packages2" | "getPackages" => {
            Value::List(installed(sim).iter().map(|u| info(u)).collect())
        }
        "package" | "package2" | "getPackage" => {
            let uuid = a.str(0)?;
            if !installed(sim).iter().any(|u| u == uuid) {
                return Err(CallError::Failed(format!(
                    "{}: no package has the uuid {uuid:?}",
                    a.name
                )));
            }
            info(uuid)
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
