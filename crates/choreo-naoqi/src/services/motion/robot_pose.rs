//! ALRobotPose: the posture the robot is in, as the stock 1.x Stand Up and Sit Down boxes
//! read it (`getActualPoseAndTime`, then a switch on the name).
//!
//! The pose is read from the joints as the robot reads it, from the legs (arms and head may
//! be anywhere): Stand, Crouch, Sit or Unknown from the hip and knee pitch (thresholds
//! below), Belly and Back when the body lies on the floor (laid there or fallen: the robot
//! tells it from the torso's orientation, until it is back on its feet) or its joints are in
//! ALRobotPosture's LyingBelly or LyingBack. Knee, Frog, Left, Right and HeadBack are never
//! seen: the simulated robot falls only onto its back or belly, and no posture of the
//! library is one of them. The time in the pose counts from when the joints stopped (the
//! end of the last motion commanded): 0 while they move. The ALMemory event
//! `robotPoseChanged` (the pose's name) is raised when a read finds a pose other than
//! the last one reported (the robot raises it by itself once a new pose has held 500 ms).

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::Model;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};
use crate::services::motion::posture;

/// ALRobotPose as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALRobotPose",
    methods: &[
        ("getActualPoseAndTime", Op::Own),
        ("getPoseNames", Op::Answer(Const::Strs(POSES))),
    ],
    own,
    extractor: None,
};

/// The poses ALRobotPose recognizes, in the order `robotPose` indexes them.
const POSES: &[&str] = &[
    "Unknown", "Stand", "Sit", "Crouch", "Knee", "Frog", "Back", "Belly", "Left", "Right",
    "HeadBack",
];

/// The mean angle at `now` of the joints named (those the model has), if any.
fn mean(sim: &Sim, body: &crate::robot::body::Body, now: Time, names: &[&str]) -> Option<f64> {
    let found: Vec<f64> = names
        .iter()
        .filter_map(|n| sim.model.joint_index(n))
        .map(|i| body.angle(sim.model, i, now))
        .collect();
    (!found.is_empty()).then(|| found.iter().sum::<f64>() / found.len() as f64)
}

/// The pose at `now`: lying when the body lies on the floor ([`crate::robot::body::Body::lying`]: a robot tells
/// it from the torso's orientation) or its joints are in a lying posture, else from the
/// legs' hip, knee and ankle pitch.
fn classify(sim: &Sim, body: &crate::robot::body::Body, now: Time) -> &'static str {
    let lying = body
        .lying(sim.model, now)
        .unwrap_or_else(|| posture::current(sim.model, body, now));
    match lying {
        "LyingBelly" => return "Belly",
        "LyingBack" => return "Back",
        _ => {}
    }
    let hip = mean(sim, body, now, &["LHipPitch", "RHipPitch", "HipPitch"]);
    let knee = mean(sim, body, now, &["LKneePitch", "RKneePitch", "KneePitch"]);
    let (Some(hip), Some(knee)) = (hip, knee) else {
        return "Unknown";
    };
    let ankle = mean(sim, body, now, &["LAnklePitch", "RAnklePitch"]).unwrap_or(0.0);
    match sim.model {
        // NAO: the knees bent deep is a crouch, and so are knees bent beyond standing over
        // ankles flexed as on the feet (a squat: where the stock 1.x Stand Up's SitToCrouch
        // ends, hips -0.69, knees 1.60, ankles -0.76 rad, before its CrouchToStand: the box
        // reads "Crouch" there on a robot, or it could not get a sitting robot up); thighs
        // raised with the knees less bent, a sit; hips and knees near straight, standing.
        Model::Nao if knee >= CROUCH_KNEE => "Crouch",
        Model::Nao if knee >= STAND_KNEE && ankle <= SQUAT_ANKLE => "Crouch",
        Model::Nao if hip <= SIT_HIP => "Sit",
        Model::Nao if knee < STAND_KNEE => "Stand",
        Model::Nao => "Unknown",
        // Pepper has no knees to sit on: leaning forward at the hip is its crouch.
        Model::Pepper if hip <= SIT_HIP => "Crouch",
        Model::Pepper => "Stand",
    }
}

/// Whether the robot stands on its feet at `now` (standing or crouching): what its foot force
/// sensors feel.
pub(crate) fn on_feet(sim: &Sim, body: &crate::robot::body::Body, now: Time) -> bool {
    matches!(classify(sim, body, now), "Stand" | "Crouch")
}

/// NAO's knee pitch (rad) from which it crouches.
const CROUCH_KNEE: f64 = 1.6;
/// Hip pitch (rad) at or below which NAO sits (with knees under [`CROUCH_KNEE`]).
const SIT_HIP: f64 = -0.65;
/// NAO's ankle pitch (rad) at or below which, knees bent beyond [`STAND_KNEE`], it squats
/// on its feet: between StandInit's -0.35 and the squat's -0.76 (Crouch: -1.19; Sit: +0.26).
const SQUAT_ANKLE: f64 = -0.5;
/// NAO's knee pitch (rad) under which, hips above [`SIT_HIP`], it stands.
const STAND_KNEE: f64 = 1.2;

/// The last pose reported.
#[derive(Default)]
struct Reported(Option<&'static str>);

/// The pose now and the seconds spent in it.
pub(crate) fn actual(sim: &Sim) -> (&'static str, f64) {
    let now = sim.now();
    let state = sim.state();
    let settled = state.body.settled_at();
    if settled > now {
        return ("Unknown", 0.0);
    }
    let pose = classify(sim, &state.body, now);
    (pose, (now.0 - settled.0) as f64 / 1e9)
}

fn own(sim: &Sim, method: &str, _: &Args<'_>) -> Result<Reply, CallError> {
    if method != "getActualPoseAndTime" {
        return Ok(Reply::NotServed);
    }
    let (pose, since) = actual(sim);
    let changed = sim.kept("ALRobotPose", |last: &mut Reported| {
        let changed = last.0 != Some(pose);
        last.0 = Some(pose);
        changed
    });
    if changed {
        sim.raise("robotPoseChanged", Value::from(pose));
    }
    Ok(Reply::Now(Value::List(vec![
        Value::from(pose),
        Value::Float(since),
    ])))
}
