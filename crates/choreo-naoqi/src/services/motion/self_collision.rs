//! ALMotion's self-collision avoidance (NAOqi's "Self-collision avoidance" page): the body
//! as spheres and capsules (choreo-robot's data, choreo-body's test), the arms ("LArm",
//! "RArm") kept out of the rest of it, on by default, `setCollisionProtectionEnabled` to turn
//! it off per chain. NAOqi's solver looks for the nearest command that does not collide;
//! here an arm that an order would drive into the body stops short, one motion cycle
//! before the contact (the order's other joints go on): the simplest "nearest solution"
//! along the path. An arm already touching when the order comes is left to it.

use choreo_body::balance::STEP;
use choreo_body::{Frames, collision};
use choreo_engine::Value;

use crate::robot::sim::Sim;
use crate::robot::trajectory::after;

/// Whether protection is on for `chain` (`setCollisionProtectionEnabled`; on by default).
fn protected(sim: &Sim, chain: &str) -> bool {
    sim.state()
        .body
        .settings
        .get(&format!("CollisionProtectionEnabled/{chain}"))
        .is_none_or(|v| *v != Value::Bool(false))
}

/// After an order moving joints `moved`: each protected arm it moves that would meet the
/// body stops one cycle short.
pub(crate) fn guard(sim: &Sim, moved: &[usize]) {
    let model = sim.model;
    let now = sim.now();
    for chain in ["LArm", "RArm"] {
        let Some(joints) = model.resolve(chain) else {
            continue;
        };
        if !joints.iter().any(|j| moved.contains(&model.dof(*j))) || !protected(sim, chain) {
            continue;
        }
        let settled = sim.state().body.settled_at();
        let span = settled.0.saturating_sub(now.0) as f64 / 1e9;
        let steps = (span / STEP).ceil() as usize;
        for k in 0..=steps {
            let t = after(now, k as f64 * STEP);
            let angles = sim.state().body.angles(model, t);
            if collision::contacts(&Frames::new(model, &angles), Some(chain)).is_empty() {
                continue;
            }
            if k > 0 {
                let held = after(now, (k - 1) as f64 * STEP);
                sim.state().body.stop_at(model, &joints, held);
            }
            break;
        }
    }
}

/// `isCollision(chain)`: "collision" when the chain's shapes meet the body now, else
/// "none".
pub(crate) fn state(sim: &Sim, chain: &str) -> &'static str {
    let angles = sim.state().body.angles(sim.model, sim.now());
    let frames = Frames::new(sim.model, &angles);
    let chains: &[&str] = if chain == "Arms" {
        &["LArm", "RArm"]
    } else {
        &[chain][..]
    };
    if chains
        .iter()
        .any(|c| !collision::contacts(&frames, Some(c)).is_empty())
    {
        "collision"
    } else {
        "none"
    }
}
