//! ALRobotPosture: named postures (joint angles per model), the current posture read from
//! the joints, and goToPosture.
//!
//! Timing (docs/simulated-robot.md, Durations, an inference to check on a robot): 0 s when already in the
//! posture, else (2 s + 2 s × min(1, largest joint change / π)) / maxSpeedFraction, at most
//! 10 s. The postures' angles are choreo-robot's (`Model::postures`).

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::args::Args;
use crate::robot::body::Body;
use crate::robot::body::{Keys, Moves};
use crate::robot::core::{Plan, Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::trajectory::after;
use crate::services::motion::orders::motion_plan;
use choreo_robot::Model;

/// The longest posture change, in seconds.
pub const MAX_SECONDS: f64 = 10.0;

fn table(model: Model) -> Vec<(&'static str, &'static str, &'static [f64])> {
    model
        .postures()
        .iter()
        .map(|p| (p.name, p.family, p.degrees))
        .collect()
}

/// The angles of `posture` (radians, hands as ratios), clamped to the joint limits.
pub fn angles(model: Model, posture: &str) -> Option<Vec<f64>> {
    model.posture(posture)
}

/// The posture the joints are in at `now`, or "Unknown".
pub fn current(model: Model, body: &Body, now: Time) -> &'static str {
    model
        .posture_of(&body.angles(model, now))
        .unwrap_or("Unknown")
}

/// The posture family the robot is in at `now`, read from the joints other than the head's
/// and the arms' (a gesture does not change it, as on the robot), or "Unknown".
pub fn current_family(model: Model, body: &Body, now: Time) -> &'static str {
    model
        .family_of(&body.angles(model, now))
        .unwrap_or("Unknown")
}

/// Serves ALRobotPosture.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
        "goToPosture" | "applyPosture" => {
            let name = a.str(0)?;
            let speed = a.f64_or(1, 1.0)?;
            if !(speed > 0.0 && speed <= 1.0) {
                return Err(a.bad(1, "a speed fraction in ]0, 1]"));
            }
            let Some((name, _, _)) = table(model).into_iter().find(|(n, _, _)| *n == name) else {
                return Err(CallError::Failed(format!(
                    "{}: posture {name:?} does not exist on {} (postures: {})",
                    a.name,
                    model.name(),
                    table(model)
                        .iter()
                        .map(|p| p.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            };
            let target = angles(model, name).unwrap_or_default();
            let (there, largest) = {
                let state = sim.state();
                let largest = target
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (state.body.angle(model, i, now) - t).abs())
                    .fold(0.0, f64::max);
                (current(model, &state.body, now) == name, largest)
            };
            let seconds = if there {
                0.0
            } else {
                ((2.0 + 2.0 * (largest / std::f64::consts::PI).min(1.0)) / speed).min(MAX_SECONDS)
            };
            Reply::Timed(to_posture(sim, method, name, seconds, None))
        }
        "stopMove" => {
            sim.stop_all("ALRobotPosture", &[]);
            Reply::Now(Value::None)
        }
        "setMaxTryNumber" => {
            a.int(0)?;
            Reply::Now(Value::None)
        }
        "getPosture" => Reply::Now(Value::from(current(model, &sim.state().body, now))),
        "getPostureList" => Reply::Now(Value::List(
            table(model).iter().map(|p| Value::from(p.0)).collect(),
        )),
        "getPostureFamily" => {
            Reply::Now(Value::from(current_family(model, &sim.state().body, now)))
        }
        "getPostureFamilyList" => {
            let mut families: Vec<&str> = table(model).iter().map(|p| p.1).collect();
            families.dedup();
            Reply::Now(Value::List(families.into_iter().map(Value::from).collect()))
        }
        _ => Reply::NotServed,
    })
}

/// Goes to the angles of `posture` in `seconds` (stiffening first when `wake`), a task that
/// claims every joint: wakeUp, rest, goToPosture.
pub(crate) fn to_posture(
    sim: &Sim,
    method: &str,
    posture: &'static str,
    seconds: f64,
    wake: Option<bool>,
) -> Plan {
    let now = sim.now();
    let model = sim.model;
    let all: Vec<usize> = (0..model.joints().len()).collect();
    if wake == Some(true) {
        let mut state = sim.state();
        state.body.awake = true;
        state.body.stiffen(
            model,
            now,
            &all.iter()
                .map(|&i| (i, vec![(now, 1.0)]))
                .collect::<Vec<_>>(),
        );
    }
    let target = angles(model, posture).unwrap_or_default();
    let end = after(now, seconds);
    let moves: Moves = all
        .iter()
        .filter_map(|&i| {
            target
                .get(i)
                .map(|&v| (i, Keys::Linear(vec![(seconds, v)])))
        })
        .collect();
    let plan = motion_plan(sim, method, moves);
    let plan = plan
        .returning(Value::Bool(true))
        .stopped_returns(Value::Bool(false))
        .at(end, move |sim: &Sim| {
            if wake == Some(false) {
                let now = sim.now();
                let mut state = sim.state();
                state.body.awake = false;
                let keys: Vec<_> = all.iter().map(|&i| (i, vec![(now, 0.0)])).collect();
                state.body.stiffen(sim.model, now, &keys);
            }
            sim.observe(RobotEvent::PostureChanged {
                posture: posture.to_string(),
            });
        });
    if wake.is_some() {
        sim.observe(RobotEvent::StiffnessChanged {
            joints: vec!["Body".into()],
            stiffness: if wake == Some(true) { 1.0 } else { 0.0 },
        });
    }
    plan
}
