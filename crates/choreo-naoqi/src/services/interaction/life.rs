//! ALAutonomousLife: the robot's life state, the focused activity, the autonomous abilities
//! and the safeguards (doc.aldebaran.com 2-1 and 2-8, "ALAutonomousLife" and its
//! "Advanced" page).
//!
//! The state is disabled from boot (a robot driven from Choregraphe with its life off:
//! nothing moves by itself). `setState` takes solitary, disabled and safeguard; interactive
//! is entered by focusing an interactive activity, not set, and a change from interactive to
//! solitary fails, as documented; an unknown state raises. A change raises
//! `AutonomousLife/State` with the new state. Entering disabled or safeguard stops the
//! focused activity (`stopAll`) and the autonomous abilities; entering solitary starts them
//! (ALBasicAwareness enabled, its parameters reset). The robot's body is not woken or rested
//! by the change.
//!
//! `switchFocus(activity)` starts the activity through ALBehaviorManager (an activity it has
//! not installed raises, as on the robot), stopping the one focused before;
//! `focusedActivity()` names it while ALBehaviorManager runs it; `stopFocus()` stops it;
//! each change raises `AutonomousLife/FocusedActivity`. ALBehaviorManager runs a project's
//! behavior as a nested run when the layer that builds runs installed a launcher
//! (`behaviors.rs`); else it records the activity as started and stopped.
//! `getFocusHistory`, `getStateHistory` (`[[name, seconds], ...]`, newest last) and
//! `getLifeTime` (seconds) follow.
//!
//! Autonomous abilities (AutonomousBlinking, BackgroundMovement, BasicAwareness,
//! ListeningMovement, SpeakingMovement): `setAutonomousAbilityEnabled` sets the module's
//! own switch where the simulated robot has the module (ALBasicAwareness's, ALAutonomousBlinking's),
//! so the two agree; `getAutonomousAbilitiesStatus()` is `[[name, enabled, running], ...]`.
//! Safeguards (RobotPushed, RobotFell, RobotMoved, CriticalDiagnosis, CriticalTemperature)
//! are on unless set, and back on when the focused activity stops; another name raises.
//! The robot's offset from the floor (0 m) and the launchpad's monitoring are kept.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

const NAME: &str = "ALAutonomousLife";

/// ALAutonomousLife as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("setState", Op::Own),
        ("getState", Op::Own),
        ("focusedActivity", Op::Own),
        ("switchFocus", Op::Own),
        ("stopFocus", Op::Own),
        ("stopAll", Op::Own),
        ("getFocusHistory", Op::Own),
        ("getStateHistory", Op::Own),
        ("getLifeTime", Op::Own),
        ("setAutonomousAbilityEnabled", Op::Own),
        ("getAutonomousAbilityEnabled", Op::Own),
        ("getAutonomousAbilitiesStatus", Op::Own),
        ("setSafeguardEnabled", Op::Own),
        ("isSafeguardEnabled", Op::Own),
        (
            "setRobotOffsetFromFloor",
            Op::Set("RobotOffsetFromFloor", Const::None),
        ),
        (
            "getRobotOffsetFromFloor",
            Op::Get("RobotOffsetFromFloor", Const::Float(0.0)),
        ),
        (
            "startMonitoringLaunchpadConditions",
            Op::Put("MonitoringLaunchpadConditions", Const::Bool(true)),
        ),
        (
            "stopMonitoringLaunchpadConditions",
            Op::Put("MonitoringLaunchpadConditions", Const::Bool(false)),
        ),
        (
            "isMonitoringLaunchpadConditions",
            Op::Get("MonitoringLaunchpadConditions", Const::Bool(false)),
        ),
    ],
    own,
    extractor: None,
};

/// The life states.
const STATES: &[&str] = &["solitary", "interactive", "disabled", "safeguard"];

/// The state from boot.
pub(crate) const BOOT_STATE: &str = "disabled";

/// The state's key.
pub(crate) const STATE_KEY: &str = "AutonomousLife/State";

/// The focused activity's key.
pub(crate) const FOCUS_KEY: &str = "AutonomousLife/FocusedActivity";

/// The autonomous abilities.
const ABILITIES: &[&str] = &[
    "AutonomousBlinking",
    "BackgroundMovement",
    "BasicAwareness",
    "ListeningMovement",
    "SpeakingMovement",
];

/// The safeguards.
const SAFEGUARDS: &[&str] = &[
    "RobotPushed",
    "RobotFell",
    "RobotMoved",
    "CriticalDiagnosis",
    "CriticalTemperature",
];

/// What it keeps.
#[derive(Default)]
struct Life {
    /// The state, once changed (the boot state before).
    state: Option<String>,
    focus: String,
    focus_history: Vec<(String, f64)>,
    state_history: Vec<(String, f64)>,
    /// The abilities the simulated robot has no module for, when set.
    abilities: BTreeMap<String, bool>,
    /// The safeguards turned off.
    off: Vec<String>,
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Life) -> R) -> R {
    sim.kept(NAME, f)
}

/// `[[name, seconds], ...]`, the last `n` (all if `None`).
fn history(items: &[(String, f64)], n: Option<usize>) -> Value {
    let skip = n.map_or(0, |n| items.len().saturating_sub(n));
    Value::List(
        items[skip..]
            .iter()
            .map(|(name, t)| Value::List(vec![Value::from(name.as_str()), Value::Float(*t)]))
            .collect(),
    )
}

/// Whether ability `name` is on.
fn ability(sim: &Sim, name: &str) -> bool {
    match name {
        "BasicAwareness" => crate::services::interaction::awareness::enabled(sim),
        "AutonomousBlinking" => !matches!(
            sim.setting("ALAutonomousBlinking", "Enabled"),
            Some(Value::Bool(false))
        ),
        _ => with(sim, |l| l.abilities.get(name).copied()).unwrap_or(false),
    }
}

/// Turns ability `name` on or off, in its module when the robot has it.
fn set_ability(sim: &Sim, name: &str, on: bool) {
    match name {
        "BasicAwareness" => crate::services::interaction::awareness::set_enabled(sim, on),
        "AutonomousBlinking" => {
            sim.set_setting("ALAutonomousBlinking", "Enabled", Value::Bool(on));
        }
        _ => {
            with(sim, |l| l.abilities.insert(name.to_string(), on));
        }
    }
}

fn state(sim: &Sim) -> String {
    with(sim, |l| l.state.clone()).unwrap_or_else(|| BOOT_STATE.to_string())
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let now = sim.now().as_secs_f64();
    let value = match method {
        "getState" => Value::String(state(sim)),
        "setState" => {
            set_state(sim, a, now)?;
            Value::None
        }
        "focusedActivity" => {
            let focus = with(sim, |l| l.focus.clone());
            let running = !focus.is_empty() && behavior_running(sim, &focus);
            Value::from(if running { focus.as_str() } else { "" })
        }
        "switchFocus" => {
            let activity = a.str(0)?;
            stop_focus(sim)?;
            behavior(sim, "startBehavior", activity)?;
            with(sim, |l| {
                l.focus = activity.to_string();
                l.focus_history.push((activity.to_string(), now));
            });
            sim.notice(NAME, format!("focuses {activity}"));
            sim.raise(FOCUS_KEY, Value::from(activity));
            Value::None
        }
        "stopFocus" | "stopAll" => {
            stop_focus(sim)?;
            Value::None
        }
        "getFocusHistory" | "getStateHistory" => {
            let n = if a.len() > 0 {
                Some(usize::try_from(a.int(0)?).map_err(|_| a.bad(0, "a count ≥ 0"))?)
            } else {
                None
            };
            with(sim, |l| {
                history(
                    if method == "getFocusHistory" {
                        &l.focus_history
                    } else {
                        &l.state_history
                    },
                    n,
                )
            })
        }
        "getLifeTime" => Value::Int(now as i64),
        "setAutonomousAbilityEnabled" => {
            let name = a.one_of(0, "an autonomous ability", ABILITIES)?;
            let on = a.bool(1)?;
            set_ability(sim, name, on);
            sim.notice(NAME, format!("{name} {}", if on { "on" } else { "off" }));
            Value::None
        }
        "getAutonomousAbilityEnabled" => Value::Bool(ability(
            sim,
            a.one_of(0, "an autonomous ability", ABILITIES)?,
        )),
        "getAutonomousAbilitiesStatus" => abilities_status(sim),
        "setSafeguardEnabled" => {
            let name = a.one_of(0, "a safeguard", SAFEGUARDS)?;
            let on = a.bool(1)?;
            with(sim, |l| {
                l.off.retain(|s| s != name);
                if !on {
                    l.off.push(name.to_string());
                }
            });
            sim.notice(
                NAME,
                format!("safeguard {name} {}", if on { "on" } else { "off" }),
            );
            Value::None
        }
        "isSafeguardEnabled" => {
            let name = a.one_of(0, "a safeguard", SAFEGUARDS)?;
            Value::Bool(with(sim, |l| !l.off.iter().any(|s| s == name)))
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// `setState`: the states a program may ask for, from the states it may leave.
fn set_state(sim: &Sim, a: &Args<'_>, now: f64) -> Result<(), CallError> {
    let to = a.one_of(0, "a life state", STATES)?;
    let from = state(sim);
    if to == "interactive" {
        return Err(CallError::Failed(format!(
            "{}: the interactive state is entered by focusing an interactive activity",
            a.name
        )));
    }
    if from == "interactive" && to == "solitary" {
        return Err(CallError::Failed(format!(
            "{}: a manual change from interactive to solitary fails",
            a.name
        )));
    }
    if from != to {
        enter(sim, to, now);
    }
    Ok(())
}

/// `getAutonomousAbilitiesStatus`: each ability, whether it is on, and whether it runs.
fn abilities_status(sim: &Sim) -> Value {
    Value::List(
        ABILITIES
            .iter()
            .map(|name| {
                let on = ability(sim, name);
                let running = on
                    && (*name != "BasicAwareness"
                        || crate::services::interaction::awareness::running(sim));
                Value::List(vec![
                    Value::from(*name),
                    Value::Bool(on),
                    Value::Bool(running),
                ])
            })
            .collect(),
    )
}

/// Enters state `to` (`now`: seconds of behavior time).
fn enter(sim: &Sim, to: &str, now: f64) {
    with(sim, |l| {
        l.state = Some(to.to_string());
        l.state_history.push((to.to_string(), now));
    });
    sim.notice(NAME, format!("state {to}"));
    let lively = to == "solitary";
    if !lively {
        // Entering disabled or safeguard stops the focused activity (stopAll); failing to
        // stop a behavior nobody runs changes nothing.
        let _ = stop_focus(sim);
    } else {
        crate::services::interaction::awareness::reset(sim);
    }
    for name in ABILITIES {
        set_ability(sim, name, lively);
    }
    sim.raise(STATE_KEY, Value::from(to));
}

/// Stops the focused activity, if any: the safeguards come back on.
fn stop_focus(sim: &Sim) -> Result<(), CallError> {
    let focus = with(sim, |l| {
        l.off.clear();
        std::mem::take(&mut l.focus)
    });
    if focus.is_empty() {
        return Ok(());
    }
    behavior(sim, "stopBehavior", &focus)?;
    sim.notice(NAME, format!("stops focusing {focus}"));
    sim.raise(FOCUS_KEY, Value::from(""));
    Ok(())
}

/// Whether ALBehaviorManager runs behavior `name`.
fn behavior_running(sim: &Sim, name: &str) -> bool {
    let args = [Value::from(name)];
    let a = Args::new("ALBehaviorManager", "isBehaviorRunning", &args);
    matches!(
        crate::services::core::behaviors::serve(sim, "isBehaviorRunning", &a),
        Ok(Reply::Now(Value::Bool(true)))
    )
}

/// Asks ALBehaviorManager to `method(name)` (start or stop it), as a call of the robot's.
fn behavior(sim: &Sim, method: &str, name: &str) -> Result<Value, CallError> {
    sim.call("ALBehaviorManager", method, vec![Value::from(name)])
        .map_err(|e| CallError::Failed(format!("{NAME}: {e}")))
}
