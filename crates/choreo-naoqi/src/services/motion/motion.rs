//! ALMotion (and ALNavigation's moves): joint angles and stiffness over time, clamped to
//! the model's limits, the base's position in the world frame, walking.
//!
//! Timing (naoqi-services.md §5): interpolations last their last key time;
//! `angleInterpolationWithSpeed` lasts max over joints of |Δθ| / (fraction × max speed), all
//! joints arriving together; `setAngles`/`changeAngles` return at once and each joint moves
//! at fraction × its max speed; `moveTo` lasts max(distance / v, |θ| / ω) + 0.5 s (NAO
//! v = 0.1 m/s, ω = 0.5 rad/s; Pepper 0.35 m/s, 1 rad/s) or the time given; `wakeUp`/`rest`
//! take [`WAKE_SECONDS`] (none when already there); `openHand`/`closeHand` 1 s.
//!
//! Joints move along straight lines between keys; Bezier handles shape the curve on a real
//! robot but not here (timing and key values are exact). A joint whose stiffness is 0 does
//! not move, as on the robot. A newer command on a joint stops the older task holding it
//! (B4); a stopped motion leaves the joints where they had got to (B3).

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::args::{Args, number};
use crate::robot::body::{Body, Keys, Moves};
use crate::robot::observe::RobotEvent;
use crate::robot::sim::Plan;
use crate::robot::sim::{Reply, Sim};
use crate::robot::tasks::Claim;
use crate::robot::trajectory::after;
use crate::services::core::world::Transform;
use crate::services::motion::posture;
use choreo_motion::command::BezierKey;
use choreo_motion::spline::{Handle, Interp};
use choreo_robot::Model;
/// How long wakeUp and rest take when the robot has to move (§5: about 2–3 s).
pub const WAKE_SECONDS: f64 = 2.5;
/// Time added to every moveTo for starting and stopping (§5).
pub const WALK_START_STOP_SECONDS: f64 = 0.5;
/// How long openHand and closeHand take.
pub const HAND_SECONDS: f64 = 1.0;

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

/// The walk's foot gait configurations (`getFootGaitConfig`, `getMoveConfig`): the
/// default, the largest and the smallest values accepted.
const GAIT: &[(&str, [f64; 7])] = &[
    ("Default", [0.04, 0.14, 0.349, 1.0, 0.02, 0.0, 0.0]),
    ("Max", [0.08, 0.16, 0.524, 1.0, 0.04, 0.122, 0.122]),
    ("Min", [0.001, 0.101, 0.001, 0.0, 0.005, -0.122, -0.122]),
];

/// The names of a gait configuration's values.
const GAIT_NAMES: [&str; 7] = [
    "MaxStepX",
    "MaxStepY",
    "MaxStepTheta",
    "MaxStepFrequency",
    "StepHeight",
    "TorsoWx",
    "TorsoWy",
];

/// A gait configuration as `[[name, value], ...]`.
fn gait(a: &Args<'_>, which: &str) -> Result<Value, String> {
    let (_, values) = GAIT
        .iter()
        .find(|(n, _)| *n == which)
        .ok_or_else(|| a.bad(0, "\"Default\", \"Max\" or \"Min\""))?;
    Ok(Value::List(
        GAIT_NAMES
            .iter()
            .zip(values)
            .map(|(k, v)| Value::List(vec![Value::from(*k), Value::Float(*v)]))
            .collect(),
    ))
}

/// The joint indices named by argument `i` (joints or chains).
fn joints(sim: &Sim, a: &Args<'_>, i: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for name in a.names(i)? {
        let found = sim.model.resolve(&name).ok_or_else(|| {
            format!(
                "{}: unknown joint or chain {name:?} on {}",
                a.name,
                sim.model.name()
            )
        })?;
        out.extend(found);
    }
    Ok(out)
}

/// Argument `i` given per joint: one number for all, or a list with one item (a number or
/// a list of numbers) per joint.
fn per_joint(a: &Args<'_>, i: usize, n: usize) -> Result<Vec<Vec<f64>>, String> {
    if n == 1 {
        // One joint: its list bare (`[0.1, 0.2]`), or in a list of one (`[[0.1, 0.2]]`, as a
        // caller that builds every order alike sends it).
        if let Ok([Value::List(xs) | Value::Tuple(xs)]) = a.list(i) {
            return xs
                .iter()
                .map(|x| key_value(x).ok_or_else(|| a.bad(i, "numbers")))
                .collect::<Result<Vec<f64>, String>>()
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
fn check_times(a: &Args<'_>, values: usize, times: &[f64]) -> Result<(), String> {
    if values != times.len() || values == 0 {
        return Err(format!(
            "{}: each joint needs as many times as angles (got {values} angles, {} times)",
            a.name,
            times.len()
        ));
    }
    if times.windows(2).any(|w| w[1] <= w[0]) || times.first().is_some_and(|t| *t < 0.0) {
        return Err(format!(
            "{}: times must be positive and strictly increasing, got {times:?}",
            a.name
        ));
    }
    Ok(())
}

/// Keys `(now + time, value)` of one joint, checking the times.
fn keys(
    a: &Args<'_>,
    now: Time,
    values: &[f64],
    times: &[f64],
) -> Result<Vec<(Time, f64)>, String> {
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
fn control_points(a: &Args<'_>, i: usize, n: usize) -> Result<Vec<Vec<BezierKey>>, String> {
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
    let end = after(now, seconds);
    let moved = sim.state().body.command(sim.model, now, &moves);
    announce(sim, method, &moved, end, now);
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
) -> Result<Moves, String> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(format!(
            "{}: speed fraction {fraction} is not in ]0, 1]",
            a.name
        ));
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

/// A walk to `target` (robot frame at the start), along a path `length` metres long.
pub(crate) fn walk(
    sim: &Sim,
    method: &str,
    target: [f64; 3],
    length: f64,
    seconds: Option<f64>,
) -> Plan {
    let now = sim.now();
    sim.stop_claiming(&Claim::Base);
    let (v, w) = sim.model.base_speed();
    let seconds =
        seconds.unwrap_or_else(|| (length / v).max(target[2].abs() / w) + WALK_START_STOP_SECONDS);
    let end = after(now, seconds);
    let goal = {
        let mut state = sim.state();
        let [x0, y0, th0] = state.body.halt(now);
        if !state.body.awake {
            drop(state);
            return Plan::until(now).returning(Value::Bool(false));
        }
        let (s, c) = th0.sin_cos();
        let goal = [
            x0 + c * target[0] - s * target[1],
            y0 + s * target[0] + c * target[1],
            th0 + target[2],
        ];
        state.body.pose.command(now, [(end, goal)]);
        goal
    };
    sim.observe(RobotEvent::MoveStarted {
        method: method.to_string(),
        target: Some(goal),
    });
    Plan::until(end)
        .claim(Claim::Base)
        .returning(Value::Bool(true))
        .stopped_returns(Value::Bool(false))
        .at(end, |sim: &Sim| {
            let position = sim.state().body.position(sim.now());
            sim.observe(RobotEvent::Moved { position });
        })
        .on_stop(|sim: &Sim| {
            let now = sim.now();
            let position = sim.state().body.halt(now);
            sim.observe(RobotEvent::Moved { position });
        })
}

/// Stops the base: walks in progress, and walking at a velocity.
pub(crate) fn stop_base(sim: &Sim) {
    sim.stop_claiming(&Claim::Base);
    let now = sim.now();
    let was_moving = sim.state().body.velocity.is_some();
    let position = sim.state().body.halt(now);
    if was_moving {
        sim.observe(RobotEvent::Moved { position });
    }
}

/// Walks at body-frame velocity `v` (clamped to the model's speeds); zero stops.
fn set_velocity(sim: &Sim, method: &str, v: [f64; 3]) {
    sim.stop_claiming(&Claim::Base);
    let now = sim.now();
    let (vmax, wmax) = sim.model.base_speed();
    let v = [
        v[0].clamp(-vmax, vmax),
        v[1].clamp(-vmax, vmax),
        v[2].clamp(-wmax, wmax),
    ];
    let mut state = sim.state();
    let here = state.body.halt(now);
    if v == [0.0; 3] || !state.body.awake {
        drop(state);
        sim.observe(RobotEvent::Moved { position: here });
        return;
    }
    state.body.velocity = Some((now, here, v));
    drop(state);
    sim.observe(RobotEvent::MoveStarted {
        method: method.to_string(),
        target: None,
    });
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
    let target = posture::angles(model, posture).unwrap_or_default();
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

/// Numbers as a list value.
pub(crate) fn floats_value(v: impl IntoIterator<Item = f64>) -> Value {
    Value::List(v.into_iter().map(Value::Float).collect())
}

/// Serves ALMotion.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
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
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
        "wakeUp" => {
            let standing = posture::wake_posture(model);
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
        "moveTo" => {
            let (target, length, seconds) = move_target(a)?;
            Reply::Timed(
                walk(sim, method, target, length, seconds)
                    .returning(Value::None)
                    .stopped_returns(Value::None),
            )
        }
        "move" | "moveToward" => {
            let v = [a.f64(0)?, a.f64(1)?, a.f64(2)?];
            let v = if method == "moveToward" {
                let (vmax, wmax) = model.base_speed();
                [
                    v[0].clamp(-1.0, 1.0) * vmax,
                    v[1].clamp(-1.0, 1.0) * vmax,
                    v[2].clamp(-1.0, 1.0) * wmax,
                ]
            } else {
                v
            };
            set_velocity(sim, method, v);
            Reply::Now(Value::None)
        }
        "stopMove" | "killMove" | "killWalk" => {
            stop_base(sim);
            Reply::Now(Value::None)
        }
        "moveInit" => Reply::Now(Value::None),
        "waitUntilMoveIsFinished" => {
            for task in sim.tasks.claiming(&Claim::Base) {
                sim.drive(&task, None);
            }
            Reply::Now(Value::None)
        }
        "moveIsActive" => Reply::Now(Value::Bool(
            sim.state().body.velocity.is_some() || !sim.tasks.claiming(&Claim::Base).is_empty(),
        )),
        "getRobotPosition" => Reply::Now(floats_value(sim.state().body.position(now))),
        "getRobotVelocity" => Reply::Now(floats_value(
            sim.state().body.velocity.map_or([0.0; 3], |(_, _, v)| v),
        )),
        "killAll" => {
            sim.stop_all("ALMotion", &[]);
            sim.stop_all("ALRobotPosture", &[]);
            stop_base(sim);
            Reply::Now(Value::None)
        }
        "killTasksUsingResources" => {
            let js: Vec<usize> = joints(sim, a, 0)?
                .into_iter()
                .map(|i| model.dof(i))
                .collect();
            sim.stop_claiming(&Claim::Joints(js));
            Reply::Now(Value::None)
        }
        "areResourcesAvailable" => {
            let js: Vec<usize> = joints(sim, a, 0)?
                .into_iter()
                .map(|i| model.dof(i))
                .collect();
            Reply::Now(Value::Bool(
                sim.tasks.claiming(&Claim::Joints(js)).is_empty(),
            ))
        }
        "getLimits" => {
            let js = joints(sim, a, 0)?;
            Reply::Now(Value::List(
                js.iter()
                    .map(|&i| {
                        let j = model.joints()[i];
                        floats_value([j.min, j.max, j.max_speed, 0.0])
                    })
                    .collect(),
            ))
        }
        "getJointNames" | "getBodyNames" => {
            let name = a.str(0)?;
            if method == "getBodyNames" && name == "Chains" {
                return Ok(Reply::Now(Value::List(
                    model.chains().iter().map(|c| Value::from(*c)).collect(),
                )));
            }
            let js = joints(sim, a, 0)?;
            Reply::Now(Value::List(
                js.iter()
                    .map(|&i| Value::from(model.joints()[i].name))
                    .collect(),
            ))
        }
        "getSummary" => {
            let state = sim.state();
            let lines: Vec<String> = model
                .joints()
                .iter()
                .enumerate()
                .map(|(i, j)| {
                    format!(
                        "{:<16}{:>10.3}{:>8.2}",
                        j.name,
                        state.body.angle(model, i, now),
                        state.body.stiffness(model, i, now)
                    )
                })
                .collect();
            Reply::Now(Value::String(format!(
                "---------------------- Model\n{}\n",
                lines.join("\n")
            )))
        }
        "getMoveConfig" | "getFootGaitConfig" => {
            let which = if a.len() > 0 { a.str(0)? } else { "Default" };
            Reply::Now(gait(a, which)?)
        }
        "setBreathConfig" => {
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
            Reply::Now(Value::None)
        }
        "getBreathConfig" => {
            let state = sim.state();
            Reply::Now(Value::List(
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
            ))
        }
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
        "setWalkArmsEnable" => {
            let (left, right) = (a.bool(0)?, a.bool(1)?);
            let mut state = sim.state();
            state
                .body
                .settings
                .insert("WalkArmsEnabled".into(), Value::Bool(left && right));
            Reply::Now(Value::None)
        }
        "getWalkArmsEnable" => {
            let on = sim
                .state()
                .body
                .settings
                .get("WalkArmsEnabled")
                .cloned()
                .unwrap_or(Value::Bool(true));
            Reply::Now(Value::List(vec![on.clone(), on]))
        }
        "setMotionConfig" => Reply::Now(Value::None),
        "getRobotConfig" => Reply::Now(robot_config(model)),
        "getTransform" => {
            let (name, frame) = (a.str(0)?, a.int(1)?);
            a.bool(2)?;
            if name != "Torso" {
                return Err(format!(
                    "{}: the simulated robot knows where its torso is, not {name:?} (no \
                     forward kinematics)",
                    a.name
                ));
            }
            let t = torso_in(sim, frame)
                .ok_or_else(|| a.bad(1, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
            let (r, p) = (t.r, t.t);
            let matrix = (0..3).flat_map(move |i| [r[i][0], r[i][1], r[i][2], p[i]]);
            Reply::Now(floats_value(matrix.chain([0.0, 0.0, 0.0, 1.0])))
        }
        "getFootSteps" => {
            // Where the feet are (under the hips, either side of the base); the steps
            // planned ahead are not simulated.
            let feet = match model {
                Model::Nao => {
                    let [x, y, th] = sim.state().body.position(now);
                    let (s, c) = th.sin_cos();
                    [HIP_OFFSET_Y, -HIP_OFFSET_Y]
                        .iter()
                        .map(|side| floats_value([x - s * side, y + c * side, th]))
                        .collect()
                }
                Model::Pepper => Vec::new(),
            };
            Reply::Now(Value::List(vec![
                Value::List(feet),
                Value::List(Vec::new()),
                Value::List(Vec::new()),
            ]))
        }
        "isCollision" => {
            match a.str(0)? {
                "Arms" | "LArm" | "RArm" => {}
                _ => return Err(a.bad(0, "\"Arms\", \"LArm\" or \"RArm\"")),
            }
            // Nothing touches the simulated robot.
            Reply::Now(Value::from("none"))
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

/// Interpolates the stiffness of joints `js` along their keys (`values` at `times`, per
/// joint); a task until the last key.
fn stiffen_over(
    sim: &Sim,
    a: &Args<'_>,
    js: &[usize],
    values: &[Vec<f64>],
    times: &[Vec<f64>],
) -> Result<Reply, String> {
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

/// ALMotion's frames.
pub(crate) const FRAME_TORSO: i64 = 0;
pub(crate) const FRAME_WORLD: i64 = 1;
pub(crate) const FRAME_ROBOT: i64 = 2;

/// Where the torso is now in ALMotion's frame `frame` (torso, world or robot: the robot
/// frame on the ground under the torso, the world frame where the base started); None for
/// another number.
pub(crate) fn torso_in(sim: &Sim, frame: i64) -> Option<Transform> {
    let now = sim.now();
    let (height, [x, y, th]) = {
        let state = sim.state();
        (
            torso_height(sim.model, &state.body, now),
            state.body.position(now),
        )
    };
    match frame {
        FRAME_TORSO => Some(Transform::identity()),
        FRAME_ROBOT => Some(Transform::at([0.0, 0.0, height])),
        FRAME_WORLD => Some(Transform::of([x, y, height, 0.0, 0.0, th])),
        _ => None,
    }
}

/// NAO's hips either side of the torso, m (the NAO links page: HipOffsetY).
const HIP_OFFSET_Y: f64 = 0.050;

/// The lengths that set the torso's height, m (the links pages of NAO and Pepper): NAO's
/// foot height, tibia, thigh and hip offset; Pepper's wheel radius, tibia, thigh and hip
/// offset.
const NAO_LEG: [f64; 4] = [0.045_19, 0.1029, 0.100, 0.085];
const PEPPER_LEG: [f64; 4] = [0.070, 0.264, 0.268, 0.079];

/// The torso's height above the ground at `now`, m, from the legs' pitch (feet flat; NAO's
/// left leg, the right one mirrors it; Pepper's tibia upright **(inference)**).
fn torso_height(model: Model, body: &Body, now: Time) -> f64 {
    let angle = |name: &str| {
        model
            .joint_index(name)
            .map_or(0.0, |i| body.angle(model, i, now))
    };
    match model {
        Model::Nao => {
            let [foot, tibia, thigh, hip] = NAO_LEG;
            let ankle = angle("LAnklePitch");
            let knee = ankle + angle("LKneePitch");
            let torso = knee + angle("LHipPitch");
            foot + tibia * ankle.cos() + thigh * knee.cos() + hip * torso.cos()
        }
        Model::Pepper => {
            let [wheel, tibia, thigh, hip] = PEPPER_LEG;
            let knee = angle("KneePitch");
            let torso = knee + angle("HipPitch");
            wheel + tibia + thigh * knee.cos() + hip * torso.cos()
        }
    }
}

/// `getRobotConfig()`: the hardware's names and values, in the order of NAOqi's example
/// (Model Type, Head Version, Body Version, Laser, Legs, Arms, Extended Arms, Hands, Arm
/// Version, Number of Legs, Number of Arms, Number of Hands), for a NAO V5 (H25) and a
/// Pepper (**inference**: its model name).
fn robot_config(model: Model) -> Value {
    const NAMES: [&str; 12] = [
        "Model Type",
        "Head Version",
        "Body Version",
        "Laser",
        "Legs",
        "Arms",
        "Extended Arms",
        "Hands",
        "Arm Version",
        "Number of Legs",
        "Number of Arms",
        "Number of Hands",
    ];
    let (name, version, legs) = match model {
        Model::Nao => ("naoH25", "VERSION_50", true),
        Model::Pepper => ("juliette", "VERSION_18", false),
    };
    let values = vec![
        Value::from(name),
        Value::from(version),
        Value::from(version),
        Value::Bool(false),
        Value::Bool(legs),
        Value::Bool(true),
        Value::Bool(true),
        Value::Bool(true),
        Value::from(version),
        Value::Int(if legs { 2 } else { 0 }),
        Value::Int(2),
        Value::Int(2),
    ];
    Value::List(vec![
        Value::List(NAMES.iter().map(|n| Value::from(*n)).collect()),
        Value::List(values),
    ])
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

/// moveTo's overloads: `(x, y, θ)`, `(x, y, θ, time)`, `(x, y, θ, config)`,
/// `(x, y, θ, time, config)`, `(controlPoints)`, `(controlPoints, config)`. Returns the
/// target (robot frame), the path length and the time if given.
fn move_target(a: &Args<'_>) -> Result<([f64; 3], f64, Option<f64>), String> {
    if let Some(Value::List(points)) = a.values.first() {
        let mut at = [0.0f64; 3];
        let mut length = 0.0;
        for p in points {
            let xs: Vec<f64> = match p {
                Value::List(xs) | Value::Tuple(xs) => xs.iter().filter_map(number).collect(),
                _ => Vec::new(),
            };
            let [x, y, th] = xs[..] else {
                return Err(a.bad(0, "a list of [x, y, theta] points"));
            };
            length += (x - at[0]).hypot(y - at[1]);
            at = [x, y, th];
        }
        return Ok((at, length, None));
    }
    let target = [a.f64(0)?, a.f64(1)?, a.f64(2)?];
    let seconds = a.values.get(3).and_then(number);
    if seconds.is_some_and(|s| s <= 0.0) {
        return Err(a.bad(3, "a positive time"));
    }
    Ok((target, target[0].hypot(target[1]), seconds))
}

/// A planar pose `(x, y, θ)` reached from `from` by moving `by` in `from`'s frame.
fn compose(from: [f64; 3], by: [f64; 3]) -> [f64; 3] {
    let (s, c) = from[2].sin_cos();
    [
        from[0] + c * by[0] - s * by[1],
        from[1] + s * by[0] + c * by[1],
        from[2] + by[2],
    ]
}

/// A trajectory of `moveAlong` (the format Choregraphe writes in `.pmt` files), as where it
/// ends (robot frame at the start), its length and its duration:
/// `["Holonomic", ["Line", [x, y]], θ, time]`,
/// `["Holonomic", ["Circle", [cx, cy], angle], θ, time]` (an arc of `angle` rad about the
/// centre, counterclockwise when positive), and `["Composed", trajectory, ...]` (one after
/// the other, each from where the previous ended).
fn trajectory_of(v: &Value) -> Option<([f64; 3], f64, f64)> {
    let (Value::List(items) | Value::Tuple(items)) = v else {
        return None;
    };
    let floats = |v: &Value| -> Option<Vec<f64>> {
        match v {
            Value::List(xs) | Value::Tuple(xs) => xs.iter().map(number).collect(),
            _ => None,
        }
    };
    match items.first() {
        Some(Value::String(kind)) if kind == "Composed" && items.len() > 1 => items[1..]
            .iter()
            .try_fold(([0.0; 3], 0.0, 0.0), |(at, l, t), part| {
                let (by, length, seconds) = trajectory_of(part)?;
                Some((compose(at, by), l + length, t + seconds))
            }),
        Some(Value::String(kind)) if kind == "Holonomic" => {
            let [_, Value::List(path) | Value::Tuple(path), th, t] = &items[..] else {
                return None;
            };
            let (th, t) = (number(th)?, number(t)?);
            let (x, y, length) = match &path[..] {
                [Value::String(l), xy] if l == "Line" => match floats(xy)?[..] {
                    [x, y] => (x, y, x.hypot(y)),
                    _ => return None,
                },
                [Value::String(c), centre, angle] if c == "Circle" => {
                    let (angle, [cx, cy]) =
                        (number(angle)?, <[f64; 2]>::try_from(floats(centre)?).ok()?);
                    // The start (the origin) turned by `angle` about the centre.
                    let (s, c) = angle.sin_cos();
                    let (dx, dy) = (-cx, -cy);
                    (
                        cx + c * dx - s * dy,
                        cy + s * dx + c * dy,
                        cx.hypot(cy) * angle.abs(),
                    )
                }
                _ => return None,
            };
            (t >= 0.0).then_some(([x, y, th], length, t))
        }
        _ => None,
    }
}

/// Serves ALNavigation: its moves go like ALMotion's (navigateTo and moveAlong are walks
/// that return True on arrival).
pub(crate) fn serve_navigation(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    Ok(match method {
        "navigateTo" => {
            let theta = match a.values.get(2) {
                Some(v) => number(v).unwrap_or(0.0),
                None => 0.0,
            };
            let target = [a.f64(0)?, a.f64(1)?, theta];
            Reply::Timed(walk(sim, method, target, target[0].hypot(target[1]), None))
        }
        "moveAlong" => {
            let (target, length, seconds) =
                a.values.first().and_then(trajectory_of).ok_or_else(|| {
                    a.bad(
                        0,
                        "a trajectory: [\"Holonomic\", [\"Line\", [x, y]], theta, time], \
                         [\"Holonomic\", [\"Circle\", [cx, cy], angle], theta, time] or \
                         [\"Composed\", trajectory, ...]",
                    )
                })?;
            let seconds = (seconds > 0.0).then_some(seconds);
            Reply::Timed(walk(sim, method, target, length, seconds))
        }
        "moveTo" | "move" | "moveToward" | "stopMove" => {
            let args = Args::new("ALMotion", method, a.values);
            serve(sim, method, &args)?
        }
        "stopNavigation" | "stopNavigateTo" => {
            stop_base(sim);
            Reply::Now(Value::None)
        }
        "setSecurityDistance" => {
            let d = a.f64(0)?;
            sim.state()
                .body
                .settings
                .insert("SecurityDistance".into(), Value::Float(d));
            Reply::Now(Value::None)
        }
        "getSecurityDistance" => Reply::Now(
            sim.state()
                .body
                .settings
                .get("SecurityDistance")
                .cloned()
                .unwrap_or(Value::Float(0.4)),
        ),
        _ => Reply::NotServed,
    })
}
