//! ALNavigation: its moves go like ALMotion's (`navigateTo` and `moveAlong` are walks that
//! return True on arrival); the security distance is kept.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::services::motion::almotion::serve;
use crate::services::motion::walks::{stop_base, trajectory_of, walk};

/// Serves ALNavigation: its moves go like ALMotion's (navigateTo and moveAlong are walks
/// that return True on arrival).
pub(crate) fn serve_navigation(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
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
