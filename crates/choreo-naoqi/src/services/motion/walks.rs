//! ALMotion's walks: to a place (`moveTo`, its overloads, `moveAlong`'s trajectories), at a
//! velocity (`move`, `moveToward`), stopped; the base's position and velocity in the world
//! frame; the gait configurations and where the feet are. `moveTo` lasts max(distance / v,
//! |θ| / ω) + [`WALK_START_STOP_SECONDS`] (NAO v = 0.1 m/s, ω = 0.5 rad/s; Pepper 0.35 m/s,
//! 1 rad/s) or the time given.

use choreo_engine::Value;
use choreo_robot::Model;

use crate::robot::args::{Args, number};
use crate::robot::core::{Plan, Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::tasks::Claim;
use crate::robot::trajectory::after;
use crate::services::motion::orders::floats_value;

/// Time added to every moveTo for starting and stopping (§5).
pub const WALK_START_STOP_SECONDS: f64 = 0.5;

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
fn gait(a: &Args<'_>, which: &str) -> Result<Value, CallError> {
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

/// moveTo's overloads: `(x, y, θ)`, `(x, y, θ, time)`, `(x, y, θ, config)`,
/// `(x, y, θ, time, config)`, `(controlPoints)`, `(controlPoints, config)`. Returns the
/// target (robot frame), the path length and the time if given.
fn move_target(a: &Args<'_>) -> Result<([f64; 3], f64, Option<f64>), CallError> {
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
pub(crate) fn trajectory_of(v: &Value) -> Option<([f64; 3], f64, f64)> {
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

/// NAO's hips either side of the torso, m (the NAO links page: HipOffsetY).
const HIP_OFFSET_Y: f64 = 0.050;

/// Serves ALMotion's walks; `NotServed` for another method.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
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
        "getMoveConfig" | "getFootGaitConfig" => {
            let which = if a.len() > 0 { a.str(0)? } else { "Default" };
            Reply::Now(gait(a, which)?)
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
        _ => Reply::NotServed,
    })
}
