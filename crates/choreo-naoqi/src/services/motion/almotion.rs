//! ALMotion: joint angles and stiffness over time, clamped to the model's limits, the base's
//! position in the world frame, walking. Its methods by family, one file each: `stiffness`
//! (wake, rest, stiffness), `orders` (joint orders), `walks` (the base), `frames` (what it
//! tells of the body); here, the dispatch, the resources (tasks holding joints) and the
//! settings that are only kept.
//!
//! A newer command on a joint stops the older task holding it (B4); a stopped motion leaves
//! the joints where they had got to (B3).

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, ServeFn, Sim, first_served};
use crate::robot::error::CallError;
use crate::robot::tasks::Claim;
use crate::services::motion::orders::joints;
use crate::services::motion::walks::stop_base;
use crate::services::motion::{frames, orders, stiffness, walks};

/// State-only settings: `set<Name>` stores its last argument, `get<Name>` reads it.
const SETTINGS: &[(&str, bool)] = &[
    ("MoveArmsEnabled", true),
    ("WalkArmsEnabled", true),
    ("ExternalCollisionProtectionEnabled", true),
    ("FallManagerEnabled", true),
    ("BreathEnabled", false),
    ("IdlePostureEnabled", false),
    ("SmartStiffnessEnabled", true),
    ("PushRecoveryEnabled", true),
    ("DiagnosisEffectEnabled", true),
];

/// The breathing configuration at start (`getBreathConfig`).
const BREATH: &[(&str, f64)] = &[("Bpm", 12.0), ("Amplitude", 0.5)];

/// Serves ALMotion.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    // The walk API of NAOqi 1.x, kept by later versions as aliases of the move API.
    let method = match method {
        "walkTo" => "moveTo",
        "stopWalk" => "stopMove",
        "waitUntilWalkIsFinished" => "waitUntilMoveIsFinished",
        "walkIsActive" => "moveIsActive",
        other => other,
    };
    if method == "setWalkTargetVelocity" {
        // (x, y, θ, frequency): normalized velocities, like moveToward.
        a.f64(3)?;
        return serve(
            sim,
            "moveToward",
            &Args::new("ALMotion", "moveToward", &a.values[..3]),
        );
    }
    let families: [ServeFn; 5] = [
        stiffness::serve,
        orders::serve,
        walks::serve,
        frames::serve,
        resources_and_settings,
    ];
    first_served(&families, sim, method, a)
}

/// Serves ALMotion's resources (tasks on joints) and settings; `NotServed` for another method.
fn resources_and_settings(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "killAll" => {
            sim.stop_all("ALMotion", &[]);
            sim.stop_all("ALRobotPosture", &[]);
            stop_base(sim);
            Reply::Now(Value::None)
        }
        "killTasksUsingResources" => {
            sim.stop_claiming(&Claim::Joints(dofs(sim, a)?));
            Reply::Now(Value::None)
        }
        "areResourcesAvailable" => Reply::Now(Value::Bool(
            sim.tasks.claiming(&Claim::Joints(dofs(sim, a)?)).is_empty(),
        )),
        "setBreathConfig" | "getBreathConfig" => Reply::Now(breath(sim, method, a)?),
        "setCollisionProtectionEnabled" | "getCollisionProtectionEnabled" => {
            let chain = a.str(0)?;
            let chains: &[&str] = match chain {
                "Arms" => &["LArm", "RArm"],
                "LArm" | "RArm" => std::slice::from_ref(&chain),
                _ => return Err(a.bad(0, "\"Arms\", \"LArm\" or \"RArm\"")),
            };
            let key = |c: &str| format!("CollisionProtectionEnabled/{c}");
            let mut state = sim.state();
            if method.starts_with("set") {
                let on = a.bool(1)?;
                for c in chains {
                    state.body.settings.insert(key(c), Value::Bool(on));
                }
                // NAOqi answers whether the change was made (always, with no collision).
                Reply::Now(Value::Bool(true))
            } else {
                Reply::Now(Value::Bool(chains.iter().all(|c| {
                    state.body.settings.get(&key(c)) != Some(&Value::Bool(false))
                })))
            }
        }
        "setMotionConfig" => Reply::Now(Value::None),
        "isCollision" => {
            let chain = a.str(0)?;
            if !matches!(chain, "Arms" | "LArm" | "RArm") {
                return Err(a.bad(0, "\"Arms\", \"LArm\" or \"RArm\""));
            }
            Reply::Now(Value::from(crate::services::motion::self_collision::state(
                sim, chain,
            )))
        }
        // Choregraphe's 3D view of the collision model (private): the simulated robot has
        // no collision shapes and no pair of them in contact.
        "_getCollisionNames" | "_getCollisionDetection" => Reply::Now(Value::List(Vec::new())),
        _ => match crate::robot::table::bool_setting(
            &mut sim.state().body.settings,
            method,
            a,
            SETTINGS,
        ) {
            Some(result) => Reply::Now(result?),
            None => Reply::NotServed,
        },
    })
}

/// The joints (by their resource names) of argument 0, as the model's degrees of freedom.
fn dofs(sim: &Sim, a: &Args<'_>) -> Result<Vec<usize>, CallError> {
    Ok(joints(sim, a, 0)?
        .into_iter()
        .map(|i| sim.model.dof(i))
        .collect())
}

/// `setBreathConfig` or `getBreathConfig`.
fn breath(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Value, CallError> {
    if method == "getBreathConfig" {
        let state = sim.state();
        return Ok(Value::List(
            BREATH
                .iter()
                .map(|(name, default)| {
                    let v = state
                        .body
                        .settings
                        .get(&format!("Breath/{name}"))
                        .cloned()
                        .unwrap_or(Value::Float(*default));
                    Value::List(vec![Value::from(*name), v])
                })
                .collect(),
        ));
    }
    let config = crate::robot::table::pairs(a, 0)?;
    for (name, value) in &config {
        if !BREATH.iter().any(|(n, _)| n == name) || number(value).is_none() {
            return Err(a.bad(0, "[[\"Bpm\", bpm], [\"Amplitude\", 0..1]]"));
        }
    }
    let mut state = sim.state();
    for (name, value) in config {
        state.body.settings.insert(format!("Breath/{name}"), value);
    }
    Ok(Value::None)
}
