//! ALSystem: the robot's name, its NAOqi version, its time zone; shutdown and reboot.
//!
//! `robotName()` is the name `setRobotName(name)` gave (True; False for a name a host
//! cannot have: empty, or other than letters, digits and hyphens **(inference)**), else
//! [`ROBOT_NAME`]; ALMemory's `Device/DeviceList/ChestBoard/BodyNickName` follows.
//! `systemVersion()` is the NAOqi version the robot runs (`Sim::naoqi_release`: NAO 2.8.5.10,
//! the NAO V6 system; Pepper 2.5.10.7), as every module's `version()` says.
//! `timezone()` is what `setTimezone` set (True), UTC before **(inference)**. `shutdown()`
//! and `reboot()` are shown and not done: the simulated robot stays on.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};

const NAME: &str = "ALSystem";

/// ALSystem as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("robotName", Op::Own),
        ("setRobotName", Op::Own),
        ("systemVersion", Op::Own),
        ("timezone", Op::Own),
        ("setTimezone", Op::Own),
        ("shutdown", Op::Own),
        ("reboot", Op::Own),
    ],
    own,
    extractor: None,
};

/// The simulated robot's name until a script renames it.
pub(crate) const ROBOT_NAME: &str = "choreo-sim";

/// The robot's time zone until set **(inference)**.
const TIMEZONE: &str = "UTC";

/// The robot's name now.
pub(crate) fn robot_name(sim: &Sim) -> String {
    match sim.setting(NAME, "RobotName") {
        Some(Value::String(name)) => name,
        _ => ROBOT_NAME.to_string(),
    }
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "robotName" => Value::String(robot_name(sim)),
        "setRobotName" => {
            let name = a.str(0)?;
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if valid {
                sim.notice(NAME, format!("robot name {name}"));
                sim.set_setting(NAME, "RobotName", Value::from(name));
            }
            Value::Bool(valid)
        }
        "systemVersion" => Value::from(sim.naoqi_release()),
        "timezone" => match sim.setting(NAME, "Timezone") {
            Some(tz) => tz,
            None => Value::from(TIMEZONE),
        },
        "setTimezone" => {
            let tz = a.str(0)?;
            sim.notice(NAME, format!("time zone {tz}"));
            sim.set_setting(NAME, "Timezone", Value::from(tz));
            Value::Bool(true)
        }
        "shutdown" | "reboot" => {
            sim.notice(
                NAME,
                format!("{method} asked (not done: the simulated robot stays on)"),
            );
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
