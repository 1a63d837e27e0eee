//! ALBehaviorManager and ALFrameManager.
//!
//! Nothing is installed unless configured ([`crate::SimRobot::install_behavior`]):
//! unknown behaviors are not installed, and running one raises RuntimeError (§3.11).
//! Installed behaviors are recorded as started and stopped; they do not run (nested runs
//! belong to the engine). ALFrameManager's behavior and timeline calls (getBehaviorPath,
//! get/setTimelineFps, exitBehavior...) need the engine's knowledge of the behavior, so the
//! engine or the script host answers them; the robot serves only `onPythonError`.

use std::collections::BTreeSet;

use choreo_engine::Value;

use crate::args::Args;
use crate::sim::{Reply, Sim};

/// Installed and running behaviors.
#[derive(Default)]
pub(crate) struct Manager {
    installed: BTreeSet<String>,
    running: BTreeSet<String>,
}

impl Manager {
    /// Makes `name` installed.
    pub fn install(&mut self, name: &str) {
        self.installed.insert(name.to_string());
    }
}

fn names(set: &BTreeSet<String>) -> Value {
    Value::List(set.iter().map(|n| Value::from(n.as_str())).collect())
}

/// Serves ALBehaviorManager and ALFrameManager.
pub(crate) fn serve(sim: &Sim, service: &str, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    if service != "ALBehaviorManager" {
        if method != "onPythonError" {
            return Ok(Reply::NotServed);
        }
        let parts: Vec<String> = a.values.iter().map(ToString::to_string).collect();
        sim.script_error(parts.join(": "));
        return Ok(Reply::Now(Value::None));
    }
    let mut state = sim.state();
    let m = &mut state.behaviors;
    let value = match method {
        "runBehavior" | "startBehavior" | "preloadBehavior" => {
            let name = a.str(0)?;
            let installed = m.installed.contains(name);
            if method == "preloadBehavior" {
                Value::Bool(installed)
            } else if !installed {
                return Err(format!("{}: behavior {name:?} is not installed", a.name));
            } else {
                if method == "startBehavior" {
                    m.running.insert(name.to_string());
                }
                Value::None
            }
        }
        "stopBehavior" => {
            m.running.remove(a.str(0)?);
            Value::None
        }
        "stopAllBehaviors" => {
            m.running.clear();
            Value::None
        }
        "isBehaviorRunning" => Value::Bool(m.running.contains(a.str(0)?)),
        "isBehaviorInstalled" | "isBehaviorPresent" | "isBehaviorLoaded" => {
            Value::Bool(m.installed.contains(a.str(0)?))
        }
        "getInstalledBehaviors" | "getBehaviorNames" | "getLoadedBehaviors" => names(&m.installed),
        "getRunningBehaviors" => names(&m.running),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
