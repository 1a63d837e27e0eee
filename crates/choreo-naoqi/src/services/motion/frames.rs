//! What ALMotion tells of the body: the joints' limits and names, a summary, the robot's
//! hardware configuration, and where the torso is in ALMotion's frames (torso, world,
//! robot), its height from the legs' pitch.

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::Model;

use choreo_body::{Frames, Pose, Stance};

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::services::core::world::Transform;
use crate::services::motion::orders::{floats_value, joints};

/// ALMotion's frames.
pub(crate) const FRAME_TORSO: i64 = 0;
pub(crate) const FRAME_WORLD: i64 = 1;
pub(crate) const FRAME_ROBOT: i64 = 2;

/// The joints' angles at `now`, in the model's order (hands: openings).
pub(crate) fn angles_at(sim: &Sim, now: Time) -> Vec<f64> {
    let state = sim.state();
    (0..sim.model.joints().len())
        .map(|i| state.body.angle(sim.model, i, now))
        .collect()
}

/// The body now: every joint's frame, and how it stands.
fn body_now(sim: &Sim) -> (Frames, Stance) {
    let frames = Frames::new(sim.model, &angles_at(sim, sim.now()));
    let stance = Stance::of(&frames);
    (frames, stance)
}

/// FRAME_TORSO in ALMotion's frame `frame` for a robot standing as `stance` (the robot
/// frame on the floor between the feet, x forward; the world frame where the base started);
/// None for another number.
fn torso_to(sim: &Sim, stance: &Stance, frame: i64) -> Option<Pose> {
    match frame {
        FRAME_TORSO => Some(Pose::IDENTITY),
        FRAME_ROBOT => Some(stance.torso),
        FRAME_WORLD => {
            let [x, y, th] = sim.state().body.position(sim.now());
            Some(
                Pose::at([x, y, 0.0])
                    .then(&Pose::turn([0.0, 0.0, 1.0], th))
                    .then(&stance.torso),
            )
        }
        _ => None,
    }
}

/// Where the torso is now in ALMotion's frame `frame` (torso, world or robot: the robot
/// frame on the ground between the feet, the world frame where the base started); None
/// for another number.
pub(crate) fn torso_in(sim: &Sim, frame: i64) -> Option<Transform> {
    let (_, stance) = body_now(sim);
    torso_to(sim, &stance, frame).map(|p| Transform { r: p.r, t: p.t })
}

/// An effector or a joint, in FRAME_TORSO: "Torso"; a chain's effector as NAO's "Effector
/// & Chain definitions" page places it ("Head" at the neck joint, an arm's inside the hand,
/// a leg's below the ankle by FootHeight; Pepper's "Leg" at its base); any joint's frame.
fn effector(frames: &Frames, name: &str) -> Option<Pose> {
    let model = frames.model();
    let chain = model.chain();
    let end = |joint: &str, point: &str| {
        let offset = chain.end(point)?.offset;
        Some(frames.frame(Some(joint)).then(&Pose::at(offset)))
    };
    match name {
        "Torso" => Some(Pose::IDENTITY),
        "Head" => Some(frames.frame(Some("HeadPitch"))),
        "LArm" => Some(frames.frame(Some("LHand"))),
        "RArm" => Some(frames.frame(Some("RHand"))),
        "LLeg" if model == Model::Nao => end("LAnkleRoll", "LSole"),
        "RLeg" if model == Model::Nao => end("RAnkleRoll", "RSole"),
        "Leg" if model == Model::Pepper => end("KneePitch", "Base"),
        joint => model.joint_index(joint).map(|i| frames.joint(i)),
    }
}

/// The masses `name` names: "Body", "Joints" or "Com" (all), a chain's links, or the link a
/// joint moves; the torso's for "Torso".
fn masses_of(model: Model, name: &str) -> Option<Vec<Option<&'static str>>> {
    let all = || model.body().masses().iter().map(|m| m.joint).collect();
    Some(match name {
        "Body" | "Joints" | "Com" => all(),
        "Torso" => vec![None],
        _ => {
            let joints = model.resolve(name)?;
            joints
                .iter()
                .map(|&i| Some(model.joints()[i].name))
                .collect()
        }
    })
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

/// Serves what ALMotion tells of the body: its model here, where its parts are in
/// [`serve_frames`]; `NotServed` for another method.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    let now = sim.now();
    Ok(match method {
        "getLimits" => {
            let js = joints(sim, a, 0)?;
            Reply::Now(Value::List(
                js.iter()
                    .map(|&i| {
                        let j = model.joints()[i];
                        floats_value([j.min, j.max, j.max_speed, j.max_torque])
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
        "getRobotConfig" => Reply::Now(robot_config(model)),
        "getMotionCycleTime" => Reply::Now(Value::Int(MOTION_CYCLE_MS)),
        _ => return serve_frames(sim, method, a),
    })
}

/// Serves where the body's parts are: transforms, positions, the centre of mass, masses
/// and the support polygon; `NotServed` for another method.
fn serve_frames(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let model = sim.model;
    Ok(match method {
        "getTransform" | "getPosition" => {
            let (name, frame) = (a.str(0)?, a.int(1)?);
            a.bool(2)?;
            let (frames, stance) = body_now(sim);
            let item = effector(&frames, name).ok_or_else(|| {
                a.bad(
                    0,
                    "a chain (Head, LArm, ...), \"Torso\" or a joint of the robot",
                )
            })?;
            let base = torso_to(sim, &stance, frame)
                .ok_or_else(|| a.bad(1, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
            let pose = base.then(&item);
            Reply::Now(if method == "getTransform" {
                floats_value(pose.matrix())
            } else {
                floats_value(pose.six())
            })
        }
        "getCOM" => {
            let (name, frame) = (a.str(0)?, a.int(1)?);
            a.bool(2)?;
            let keep = masses_of(model, name)
                .ok_or_else(|| a.bad(0, "\"Body\", a chain or a joint of the robot"))?;
            let (frames, stance) = body_now(sim);
            let base = torso_to(sim, &stance, frame)
                .ok_or_else(|| a.bad(1, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
            let com = frames.com_of(|joint| keep.contains(&joint));
            Reply::Now(floats_value(base.apply(com)))
        }
        "getMass" => {
            let keep = masses_of(model, a.str(0)?)
                .ok_or_else(|| a.bad(0, "\"Body\", a chain or a joint of the robot"))?;
            let kg: f64 = model
                .body()
                .masses()
                .iter()
                .filter(|m| keep.contains(&m.joint))
                .map(|m| m.kg)
                .sum();
            Reply::Now(Value::Float(kg))
        }
        "getSupportPolygon" => {
            let frame = a.int(0)?;
            a.bool(1)?;
            if frame != FRAME_WORLD && frame != FRAME_ROBOT {
                return Err(a.bad(0, "a frame: 1 (world) or 2 (robot)"));
            }
            let (_, stance) = body_now(sim);
            // The polygon is in the robot frame (the ground frame); the world's adds the base.
            let to = torso_to(sim, &stance, frame).unwrap_or(Pose::IDENTITY);
            let ground_to = to.then(&stance.torso.inverse());
            Reply::Now(Value::List(
                stance
                    .polygon
                    .iter()
                    .map(|p| {
                        let q = ground_to.apply([p[0], p[1], 0.0]);
                        floats_value([q[0], q[1]])
                    })
                    .collect(),
            ))
        }
        _ => Reply::NotServed,
    })
}

/// ALMotion's cycle, ms (`getMotionCycleTime`): NAO V5/V6 and Pepper compute motion every
/// 10 ms, the period the body's balance is checked at.
const MOTION_CYCLE_MS: i64 = 10;
