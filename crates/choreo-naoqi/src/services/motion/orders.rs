//! ALMotion's joint orders: reading them from a call's arguments (joints or chains, keys
//! per joint, Bezier control points, times), planning them as tasks that claim their joints
//! (B4: the newest order wins; B3: a stopped one leaves the joints where they got to), and
//! the methods that give them (`angleInterpolation...`, `setAngles`, `changeAngles`,
//! `getAngles`, `openHand`, `closeHand`).
//!
//! Timing (docs/simulated-robot.md, Durations): interpolations last their last key time;
//! `angleInterpolationWithSpeed` lasts max over joints of |Δθ| / (fraction × max speed), all
//! joints arriving together; `setAngles`/`changeAngles` return at once and each joint moves
//! at fraction × its max speed; `openHand`/`closeHand` take [`HAND_SECONDS`]. Joints move
//! along straight lines between keys; Bezier handles shape the curve on a real robot but not
//! here (timing and key values are exact).

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_motion::command::BezierKey;
use choreo_motion::spline::{Handle, Interp};

use crate::robot::args::{Args, number};
use crate::robot::body::{Keys, Moves};
use crate::robot::core::{Plan, Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::tasks::Claim;
use crate::robot::trajectory::after;

/// How long openHand and closeHand take.
pub const HAND_SECONDS: f64 = 1.0;

/// The joint indices named by argument `i` (joints or chains).
pub(crate) fn joints(sim: &Sim, a: &Args<'_>, i: usize) -> Result<Vec<usize>, CallError> {
    let mut out = Vec::new();
    for name in a.names(i)? {
        let found = sim.model.resolve(&name).ok_or_else(|| {
            CallError::Failed(format!(
                "{}: unknown joint or chain {name:?} on {}",
                a.name,
                sim.model.name()
            ))
        })?;
        out.extend(found);
    }
    Ok(out)
}

/// Argument `i` given per joint: one number for all, or a list with one item (a number or
/// a list of numbers) per joint.
pub(crate) fn per_joint(a: &Args<'_>, i: usize, n: usize) -> Result<Vec<Vec<f64>>, CallError> {
    if n == 1 {
        // One joint: its list bare (`[0.1, 0.2]`), or in a list of one (`[[0.1, 0.2]]`, as a
        // caller that builds every order alike sends it).
        if let Ok([Value::List(xs) | Value::Tuple(xs)]) = a.list(i) {
            return xs
                .iter()
                .map(|x| key_value(x).ok_or_else(|| a.bad(i, "numbers")))
                .collect::<Result<Vec<f64>, CallError>>()
                .map(|v| vec![v]);
        }
        return Ok(vec![a.floats(i)?]);
    }
    if let Some(x) = a.values.get(i).and_then(number) {
        return Ok(vec![vec![x]; n]);
    }
    let items = a.list(i)?;
    if items.len() != n {
        return Err(a.bad(i, &format!("one value or list per joint ({n} joints)")));
    }
    items
        .iter()
        .map(|item| match item {
            Value::List(xs) | Value::Tuple(xs) => xs
                .iter()
                .map(|x| key_value(x).ok_or_else(|| a.bad(i, "numbers")))
                .collect(),
            x => number(x)
                .map(|x| vec![x])
                .ok_or_else(|| a.bad(i, "numbers")),
        })
        .collect()
}

/// A key's value: a number, or a Bezier control point `[angle, handle, handle]`.
fn key_value(v: &Value) -> Option<f64> {
    match v {
        Value::List(xs) | Value::Tuple(xs) => xs.first().and_then(number),
        x => number(x),
    }
}

/// Checks one joint's key times against its `values` keys: as many, increasing, none
/// negative.
fn check_times(a: &Args<'_>, values: usize, times: &[f64]) -> Result<(), CallError> {
    if values != times.len() || values == 0 {
        return Err(CallError::Failed(format!(
            "{}: each joint needs as many times as angles (got {values} angles, {} times)",
            a.name,
            times.len()
        )));
    }
    if times.windows(2).any(|w| w[1] <= w[0]) || times.first().is_some_and(|t| *t < 0.0) {
        return Err(CallError::Failed(format!(
            "{}: times must be positive and strictly increasing, got {times:?}",
            a.name
        )));
    }
    Ok(())
}

/// Keys `(now + time, value)` of one joint, checking the times.
pub(crate) fn keys(
    a: &Args<'_>,
    now: Time,
    values: &[f64],
    times: &[f64],
) -> Result<Vec<(Time, f64)>, CallError> {
    check_times(a, values.len(), times)?;
    Ok(values
        .iter()
        .zip(times)
        .map(|(&v, &t)| (after(now, t), v))
        .collect())
}

/// A Bezier control point `[value, [type, dt, dv], [type, dt, dv]]` (a bare number: a key
/// with zero-length handles).
fn control_point(v: &Value) -> Option<BezierKey> {
    let handle = |h: Option<&Value>| -> Option<Handle> {
        match h {
            None => Some(Handle::LINEAR),
            Some(Value::List(xs) | Value::Tuple(xs)) => {
                let kind = xs.first().and_then(number)?;
                let interp = Interp::from_number(kind as i64).unwrap_or(Interp::Bezier);
                let dx = xs.get(1).and_then(number)?;
                let dy = xs.get(2).and_then(number)?;
                Some(Handle::new(interp, dx, dy))
            }
            Some(_) => None,
        }
    };
    match v {
        Value::List(xs) | Value::Tuple(xs) => Some(BezierKey {
            value: xs.first().and_then(number)?,
            left: handle(xs.get(1))?,
            right: handle(xs.get(2))?,
        }),
        x => number(x).map(|value| BezierKey {
            value,
            left: Handle::LINEAR,
            right: Handle::LINEAR,
        }),
    }
}

/// Argument `i` of `angleInterpolationBezier`: per joint, its control points (for one
/// joint, the list of its control points may come bare).
fn control_points(a: &Args<'_>, i: usize, n: usize) -> Result<Vec<Vec<BezierKey>>, CallError> {
    let items = a.list(i)?;
    let is_point = |v: &Value| match v {
        Value::List(xs) | Value::Tuple(xs) => xs.first().and_then(number).is_some(),
        x => number(x).is_some(),
    };
    let per_joint: Vec<&[Value]> = if n == 1 && items.first().is_some_and(is_point) {
        vec![items]
    } else {
        items
            .iter()
            .map(|item| match item {
                Value::List(xs) | Value::Tuple(xs) => Ok(&xs[..]),
                _ => Err(a.bad(i, "a list of control points per joint")),
            })
            .collect::<Result<_, _>>()?
    };
    if per_joint.len() != n {
        return Err(a.bad(
            i,
            &format!("a list of control points per joint ({n} joints)"),
        ));
    }
    per_joint
        .iter()
        .map(|points| {
            points
                .iter()
                .map(|p| {
                    control_point(p).ok_or_else(|| {
                        a.bad(i, "control points [value, [type, dt, dv], [type, dt, dv]]")
                    })
                })
                .collect()
        })
        .collect()
}

/// A motion task over `moves`: claims the joints (stopping older tasks on them), moves
/// them, and freezes them if stopped; `method` names it to the observer.
pub(crate) fn motion_plan(sim: &Sim, method: &str, moves: Moves) -> Plan {
    let now = sim.now();
    let claim: Vec<usize> = moves.iter().map(|(i, _)| sim.model.dof(*i)).collect();
    sim.stop_claiming(&Claim::Joints(claim.clone()));
    let seconds = moves.iter().map(|(_, k)| k.seconds()).fold(0.0, f64::max);
    let (moved, arrival) = sim.state().body.command(sim.model, now, &moves);
    crate::services::motion::self_collision::guard(sim, &moved);
    // A joint asked more than its motor's speed arrives late, and the order lasts till then.
    let end = after(now, seconds.max(arrival));
    announce(sim, method, &moved, end, now);
    crate::services::motion::fall_manager::watch(sim);
    Plan::until(end)
        .claim(Claim::Joints(claim))
        .on_stop(move |sim: &Sim| {
            let now = sim.now();
            sim.state().body.freeze(sim.model, &moved, now);
        })
}

fn announce(sim: &Sim, method: &str, joints: &[usize], end: Time, now: Time) {
    sim.observe(RobotEvent::MotionStarted {
        method: method.to_string(),
        joints: joints
            .iter()
            .filter_map(|&i| sim.model.joints().get(i).map(|j| j.name.to_string()))
            .collect(),
        duration: end.0.saturating_sub(now.0) as f64 / 1e9,
    });
}

/// Moves joints to targets at `fraction` of their max speed: each on its own time
/// (`setAngles`) or all arriving together (`angleInterpolationWithSpeed`).
fn at_speed(
    sim: &Sim,
    a: &Args<'_>,
    targets: &[(usize, f64)],
    fraction: f64,
    together: bool,
) -> Result<Moves, CallError> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(CallError::Failed(format!(
            "{}: speed fraction {fraction} is not in ]0, 1]",
            a.name
        )));
    }
    let now = sim.now();
    let model = sim.model;
    let state = sim.state();
    let seconds: Vec<f64> = targets
        .iter()
        .map(|&(i, target)| {
            let joint = model.joints()[i];
            let (lo, hi) = (joint.min, joint.max);
            let delta = (target.clamp(lo, hi) - state.body.angle(model, i, now)).abs();
            delta / (fraction * joint.max_speed)
        })
        .collect();
    let longest = seconds.iter().copied().fold(0.0, f64::max);
    Ok(targets
        .iter()
        .zip(&seconds)
        .map(|(&(i, target), &s)| {
            (
                i,
                Keys::Linear(vec![(if together { longest } else { s }, target)]),
            )
        })
        .collect())
}

/// Numbers as a list value.
pub(crate) fn floats_value(v: impl IntoIterator<Item = f64>) -> Value {
    Value::List(v.into_iter().map(Value::Float).collect())
}

/// Serves ALMotion's joint orders; `NotServed` for another method.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
        "angleInterpolation" => {
            let js = joints(sim, a, 0)?;
            let (values, times) = (per_joint(a, 1, js.len())?, per_joint(a, 2, js.len())?);
            let absolute = a.bool(3)?;
            let mut moves = Vec::new();
            for ((&i, v), t) in js.iter().zip(&values).zip(&times) {
                check_times(a, v.len(), t)?;
                let base = if absolute {
                    0.0
                } else {
                    sim.state().body.angle(model, i, now)
                };
                let keys = t.iter().zip(v).map(|(&t, &x)| (t, x + base)).collect();
                moves.push((i, Keys::Linear(keys)));
            }
            Reply::Timed(motion_plan(sim, method, moves))
        }
        "angleInterpolationBezier" => {
            let js = joints(sim, a, 0)?;
            let times = per_joint(a, 1, js.len())?;
            let points = control_points(a, 2, js.len())?;
            let mut moves = Vec::new();
            for ((&i, p), t) in js.iter().zip(points).zip(times) {
                check_times(a, p.len(), &t)?;
                moves.push((i, Keys::Bezier(t, p)));
            }
            Reply::Timed(motion_plan(sim, method, moves))
        }
        "angleInterpolationWithSpeed" => {
            let js = joints(sim, a, 0)?;
            let values = per_joint(a, 1, js.len())?;
            let targets: Vec<(usize, f64)> = js
                .iter()
                .zip(&values)
                .map(|(&i, v)| (i, v.first().copied().unwrap_or(0.0)))
                .collect();
            let moves = at_speed(sim, a, &targets, a.f64(2)?, true)?;
            Reply::Timed(motion_plan(sim, method, moves))
        }
        "setAngles" | "changeAngles" => {
            let js = joints(sim, a, 0)?;
            let values = per_joint(a, 1, js.len())?;
            let targets: Vec<(usize, f64)> = {
                let state = sim.state();
                js.iter()
                    .zip(&values)
                    .map(|(&i, v)| {
                        let x = v.first().copied().unwrap_or(0.0);
                        let base = if method == "changeAngles" {
                            state.body.angle(model, i, now)
                        } else {
                            0.0
                        };
                        (i, x + base)
                    })
                    .collect()
            };
            let moves = at_speed(sim, a, &targets, a.f64(2)?, false)?;
            // Returns at once (no task), but still stops older tasks on its joints (B4).
            drop(motion_plan(sim, method, moves));
            Reply::Now(Value::None)
        }
        "getAngles" => {
            let js = joints(sim, a, 0)?;
            let state = sim.state();
            Reply::Now(floats_value(
                js.iter().map(|&i| state.body.angle(model, i, now)),
            ))
        }
        "openHand" | "closeHand" => {
            let hand = a.str(0)?;
            let i = match hand {
                "LHand" | "RHand" => model.joint_index(hand),
                _ => None,
            }
            .ok_or_else(|| a.bad(0, "\"LHand\" or \"RHand\""))?;
            let target = if method == "openHand" { 1.0 } else { 0.0 };
            Reply::Timed(motion_plan(
                sim,
                method,
                vec![(i, Keys::Linear(vec![(HAND_SECONDS, target)]))],
            ))
        }
        _ => Reply::NotServed,
    })
}
