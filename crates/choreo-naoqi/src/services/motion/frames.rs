//! What ALMotion tells of the body: the joints' limits and names, a summary, the robot's
//! hardware configuration, and where the torso is in ALMotion's frames (torso, world,
//! robot), its height from the legs' pitch.

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::Model;

use crate::robot::args::Args;
use crate::robot::body::Body;
use crate::robot::error::CallError;
use crate::robot::sim::{Reply, Sim};
use crate::services::core::world::Transform;
use crate::services::motion::orders::{floats_value, joints};

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

/// Serves what ALMotion tells of the body; `NotServed` for another method.
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
        "getRobotConfig" => Reply::Now(robot_config(model)),
        "getTransform" => {
            let (name, frame) = (a.str(0)?, a.int(1)?);
            a.bool(2)?;
            if name != "Torso" {
                return Err(CallError::Failed(format!(
                    "{}: the simulated robot knows where its torso is, not {name:?} (no \
                     forward kinematics)",
                    a.name
                )));
            }
            let t = torso_in(sim, frame)
                .ok_or_else(|| a.bad(1, "a frame: 0 (torso), 1 (world) or 2 (robot)"))?;
            let (r, p) = (t.r, t.t);
            let matrix = (0..3).flat_map(move |i| [r[i][0], r[i][1], r[i][2], p[i]]);
            Reply::Now(floats_value(matrix.chain([0.0, 0.0, 0.0, 1.0])))
        }
        _ => Reply::NotServed,
    })
}
