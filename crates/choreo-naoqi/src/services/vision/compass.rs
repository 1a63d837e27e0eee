//! ALVisualCompass: walking with the camera as a compass. `moveTo(x, y, θ)` and
//! `moveStraightTo(x)` walk like ALMotion.moveTo (same timing, same position in the world
//! frame) and return True on arrival, False if stopped; `waitUntilTargetReached` waits for
//! the walk. The camera settings (a vision extractor's, `extractor.rs`) and the reference
//! image are kept (the simulated robot has no camera: the matching quality is perfect).

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Const, Op, Service};
use crate::robot::tasks::Claim;
use crate::services::motion::walks::walk;

/// ALVisualCompass as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALVisualCompass",
    methods: &[
        ("moveTo", Op::Own),
        ("moveStraightTo", Op::Own),
        ("waitUntilTargetReached", Op::Own),
        (
            "setCurrentImageAsReference",
            Op::Put("Reference", Const::Bool(true)),
        ),
        (
            "enableReferenceRefresh",
            Op::Set("ReferenceRefresh", Const::None),
        ),
        ("setParameter", Op::Own),
        ("getParameter", Op::Own),
    ],
    own,
    extractor: Some(Extractor::vision(&[
        "VisualCompass/Deviation",
        "VisualCompass/Match",
    ])),
};

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "moveTo" | "moveStraightTo" => {
            let target = if method == "moveTo" {
                [a.f64(0)?, a.f64(1)?, a.f64(2)?]
            } else {
                [a.f64(0)?, 0.0, 0.0]
            };
            Reply::Timed(walk(sim, method, target, target[0].hypot(target[1]), None))
        }
        "waitUntilTargetReached" => {
            for task in sim.tasks.claiming(&Claim::Base) {
                sim.drive(&task, None);
            }
            Reply::Now(Value::None)
        }
        _ => return crate::robot::table::parameter(sim, "ALVisualCompass", method, a),
    })
}
