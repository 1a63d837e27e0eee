//! ALMotion's stiffness and rest: `wakeUp` and `rest` (to the standing posture, stiff, or to
//! Crouch, limp, in [`WAKE_SECONDS`]; none when already there), stiffness set or
//! interpolated per joint (a joint without stiffness does not follow orders, as on the
//! robot), and NAO's battery saver when sitting.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Plan, Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::services::motion::orders::{floats_value, joints, keys, per_joint};
use crate::services::motion::posture::{self, to_posture};

/// How long wakeUp and rest take when the robot has to move (§5: about 2–3 s).
pub const WAKE_SECONDS: f64 = 2.5;

/// Interpolates the stiffness of joints `js` along their keys (`values` at `times`, per
/// joint); a task until the last key.
fn stiffen_over(
    sim: &Sim,
    a: &Args<'_>,
    js: &[usize],
    values: &[Vec<f64>],
    times: &[Vec<f64>],
) -> Result<Reply, CallError> {
    let now = sim.now();
    let mut all = Vec::new();
    for ((&i, v), t) in js.iter().zip(values).zip(times) {
        all.push((i, keys(a, now, v, t)?));
    }
    let end = all
        .iter()
        .filter_map(|(_, k)| k.last().map(|k| k.0))
        .max()
        .unwrap_or(now);
    sim.state().body.stiffen(sim.model, now, &all);
    stiffness_event(sim, js, values);
    Ok(Reply::Timed(Plan::until(end)))
}

fn stiffness_event(sim: &Sim, js: &[usize], values: &[Vec<f64>]) {
    sim.observe(RobotEvent::StiffnessChanged {
        joints: js
            .iter()
            .filter_map(|&i| sim.model.joints().get(i).map(|j| j.name.to_string()))
            .collect(),
        stiffness: values.last().and_then(|v| v.last()).copied().unwrap_or(0.0),
    });
}

/// Serves ALMotion's stiffness, wake and rest; `NotServed` for another method.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
        "wakeUp" => {
            let standing = model.wake_posture();
            let there = {
                let state = sim.state();
                state.body.awake && posture::current(model, &state.body, now) == standing
            };
            Reply::Timed(to_posture(
                sim,
                method,
                standing,
                if there { 0.0 } else { WAKE_SECONDS },
                Some(true),
            ))
        }
        "rest" => {
            let awake = sim.state().body.awake;
            Reply::Timed(to_posture(
                sim,
                method,
                "Crouch",
                if awake { WAKE_SECONDS } else { 0.0 },
                Some(false),
            ))
        }
        "robotIsWakeUp" => Reply::Now(Value::Bool(sim.state().body.awake)),
        "setStiffnesses" => {
            let js = joints(sim, a, 0)?;
            let values = per_joint(a, 1, js.len())?;
            let keys: Vec<_> = js
                .iter()
                .zip(&values)
                .map(|(&i, v)| (i, vec![(now, v.first().copied().unwrap_or(0.0))]))
                .collect();
            sim.state().body.stiffen(model, now, &keys);
            stiffness_event(sim, &js, &values);
            Reply::Now(Value::None)
        }
        "stiffnessInterpolation" => {
            let js = joints(sim, a, 0)?;
            let (values, times) = (per_joint(a, 1, js.len())?, per_joint(a, 2, js.len())?);
            stiffen_over(sim, a, &js, &values, &times)?
        }
        // NAOqi 1.x: (chain, stiffness, duration, interpolation type), blocking until the
        // stiffness is reached (linear or smooth, the same end).
        "gotoChainStiffness" => {
            let js = joints(sim, a, 0)?;
            let (stiffness, seconds) = (a.f64(1)?, a.f64(2)?);
            a.int(3)?;
            stiffen_over(
                sim,
                a,
                &js,
                &vec![vec![stiffness]; js.len()],
                &vec![vec![seconds]; js.len()],
            )?
        }
        "getStiffnesses" => {
            let js = joints(sim, a, 0)?;
            let state = sim.state();
            Reply::Now(floats_value(
                js.iter().map(|&i| state.body.stiffness(model, i, now)),
            ))
        }
        "_relaxMotorsWhenSitting" => {
            // NAO's battery saver: sitting, the legs need no stiffness.
            let (pose, _) = crate::services::motion::robot_pose::actual(sim);
            if pose == "Sit" {
                let legs: Vec<usize> = ["LLeg", "RLeg"]
                    .iter()
                    .filter_map(|c| model.resolve(c))
                    .flatten()
                    .collect();
                let keys: Vec<_> = legs.iter().map(|&i| (i, vec![(now, 0.0)])).collect();
                sim.state().body.stiffen(model, now, &keys);
            }
            Reply::Now(Value::None)
        }
        _ => Reply::NotServed,
    })
}
