//! Where the head and the arms point, for the modules that turn them toward something
//! (ALTracker, the 1.x trackers, ALBasicAwareness): the top camera's pose from the head's
//! joints, and the joint angles that aim the head or a straight arm at a point of
//! FRAME_TORSO (the body's geometry is choreo-robot's: `Model::neck`, `top_camera`,
//! `shoulder`). The moves go through ALMotion, so they take its time and its limits.

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::services::core::world::Transform;

/// The top camera's pose in FRAME_TORSO now: the neck, turned by HeadYaw and HeadPitch.
pub(crate) fn camera(sim: &Sim) -> Transform {
    let model = sim.model;
    let now = sim.now();
    let [yaw, pitch] = {
        let state = sim.state();
        ["HeadYaw", "HeadPitch"].map(|name| {
            model
                .joint_index(name)
                .map_or(0.0, |i| state.body.angle(model, i, now))
        })
    };
    let [x, y, z] = model.neck();
    Transform::of([x, y, z, 0.0, pitch, yaw]).then(&Transform::at(model.top_camera()))
}

/// HeadYaw and HeadPitch that face point `p` of FRAME_TORSO from the neck.
fn head_angles(sim: &Sim, p: [f64; 3]) -> [f64; 2] {
    let n = sim.model.neck();
    let d = [p[0] - n[0], p[1] - n[1], p[2] - n[2]];
    [d[1].atan2(d[0]), (-d[2]).atan2(d[0].hypot(d[1]))]
}

/// The shoulder and elbow angles of a straight `arm` ("LArm" or "RArm") pointing at `p`.
fn arm_angles(sim: &Sim, arm: &str, p: [f64; 3]) -> Vec<(String, f64)> {
    let side = if arm == "LArm" { "L" } else { "R" };
    let mut s = sim.model.shoulder();
    if side == "R" {
        s[1] = -s[1];
    }
    let d = [p[0] - s[0], p[1] - s[1], p[2] - s[2]];
    let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt().max(1e-9);
    // A straight arm: ShoulderPitch about y, then ShoulderRoll about z, the elbow open.
    let roll = (d[1] / length).clamp(-1.0, 1.0).asin();
    let pitch = (-d[2]).atan2(d[0]);
    vec![
        (format!("{side}ShoulderPitch"), pitch),
        (format!("{side}ShoulderRoll"), roll),
        (format!("{side}ElbowRoll"), 0.0),
    ]
}

/// The arm that points at `p` for `effector` ("LArm", "RArm", or "Arms": the one on the
/// point's side).
pub(crate) fn arm_for(effector: &str, p: [f64; 3]) -> &'static str {
    match effector {
        "LArm" => "LArm",
        "RArm" => "RArm",
        _ if p[1] >= 0.0 => "LArm",
        _ => "RArm",
    }
}

/// Moves `joints` at `fraction` of their speed: a task until they arrive when `wait`
/// (`angleInterpolationWithSpeed`), else at once (`setAngles`).
fn move_joints(
    sim: &Sim,
    joints: Vec<(String, f64)>,
    fraction: f64,
    wait: bool,
) -> Result<Reply, CallError> {
    let method = if wait {
        "angleInterpolationWithSpeed"
    } else {
        "setAngles"
    };
    let (names, angles): (Vec<Value>, Vec<Value>) = joints
        .into_iter()
        .map(|(n, x)| (Value::String(n), Value::Float(x)))
        .unzip();
    let args = [
        Value::List(names),
        Value::List(angles),
        Value::Float(fraction),
    ];
    crate::services::motion::almotion::serve(sim, method, &Args::new("ALMotion", method, &args))
}

/// Turns the head toward point `p` of FRAME_TORSO (see [`move_joints`] for `wait`).
pub(crate) fn look(sim: &Sim, p: [f64; 3], fraction: f64, wait: bool) -> Result<Reply, CallError> {
    let [yaw, pitch] = head_angles(sim, p);
    let joints = vec![("HeadYaw".into(), yaw), ("HeadPitch".into(), pitch)];
    move_joints(sim, joints, fraction, wait)
}

/// Points `arm` at point `p` of FRAME_TORSO (see [`move_joints`] for `wait`).
pub(crate) fn point(
    sim: &Sim,
    arm: &str,
    p: [f64; 3],
    fraction: f64,
    wait: bool,
) -> Result<Reply, CallError> {
    move_joints(sim, arm_angles(sim, arm, p), fraction, wait)
}
