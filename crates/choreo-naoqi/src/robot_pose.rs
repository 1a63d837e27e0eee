//! ALRobotPose: the posture the robot is in, as the stock 1.x Stand Up and Sit Down boxes
//! read it (`getActualPoseAndTime`, then a switch on the name).
//!
//! The pose is the simulated posture (`posture.rs`, read from the joints) in ALRobotPose's
//! vocabulary: Stand (StandInit, Stand, StandZero), Crouch, Sit (Sit, SitRelax), Belly
//! (LyingBelly), Back (LyingBack), else Unknown. The time in the pose counts from when the
//! joints stopped (the end of the last motion commanded): 0 while they move. The ALMemory
//! event `robotPoseChanged` (the pose's name) is raised when a read finds a pose other than
//! the last one reported (the robot raises it by itself once a new pose has held 500 ms).

use choreo_engine::Value;

use crate::args::Args;
use crate::kept::{Const, Op, Service};
use crate::posture;
use crate::sim::{Reply, Sim};

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

/// The pose of a posture of `posture.rs`.
fn pose_of(posture: &str) -> &'static str {
    match posture {
        "StandInit" | "Stand" | "StandZero" => "Stand",
        "Crouch" => "Crouch",
        "Sit" | "SitRelax" => "Sit",
        "LyingBelly" => "Belly",
        "LyingBack" => "Back",
        _ => "Unknown",
    }
}

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
    let pose = pose_of(posture::current(sim.model, &state.body, now));
    (pose, (now.0 - settled.0) as f64 / 1e9)
}

fn own(sim: &Sim, method: &str, _: &Args<'_>) -> Result<Reply, String> {
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
