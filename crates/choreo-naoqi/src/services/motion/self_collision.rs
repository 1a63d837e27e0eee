//! ALMotion's self-collision avoidance (NAOqi's "Self-collision avoidance" page): the body
//! as spheres and capsules (choreo-robot's data, choreo-body's test), the arms ("LArm",
//! "RArm") kept out of the rest of it, on by default, `setCollisionProtectionEnabled` to turn
//! it off per chain. As the page says, every motion cycle the arm goes as near to where
//! the order wants it as it can without its shapes moving into the body's
//! (`choreo_body::collision::avoid_step`): it slides along the body, and where the target
//! is inside, it stays at the nearest place outside. An arm already touching when the order
//! comes is left to it.

use choreo_body::balance::STEP;
use choreo_body::{Frames, collision};
use choreo_engine::Value;

use crate::robot::core::Sim;
use crate::robot::trajectory::after;

/// Whether protection is on for `chain` (`setCollisionProtectionEnabled`; on by default).
fn protected(sim: &Sim, chain: &str) -> bool {
    sim.state()
        .body
        .settings
        .get(&format!("CollisionProtectionEnabled/{chain}"))
        .is_none_or(|v| *v != Value::Bool(false))
}

/// After an order moving joints `moved`: each protected arm it moves is followed cycle by
/// cycle to the order's end; where avoidance changed its way, the arm follows that instead.
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
        let mut here = sim.state().body.angles(model, now);
        let mut frames = Frames::new(model, &here);
        if !collision::contacts(&frames, Some(chain)).is_empty() {
            continue;
        }
        let settled = sim.state().body.settled_at();
        let span = settled.0.saturating_sub(now.0) as f64 / 1e9;
        let steps = (span / STEP).ceil() as usize;
        let mut samples = vec![joints.iter().map(|&j| here[j]).collect::<Vec<f64>>()];
        let mut changed = false;
        for k in 1..=steps {
            let wanted = sim.state().body.angles(model, after(now, k as f64 * STEP));
            // The rest of the body where the orders have it; the arm where it got to.
            let mut at = wanted.clone();
            for &j in &joints {
                at[j] = here[j];
            }
            frames.move_to(&at);
            let next = collision::avoid_step(&joints, &frames, &wanted);
            changed |= joints
                .iter()
                .zip(&next)
                .any(|(&j, v)| (wanted[j] - v).abs() > 1e-9);
            for (&j, v) in joints.iter().zip(&next) {
                at[j] = *v;
            }
            samples.push(next);
            here = at;
        }
        if changed {
            sim.state().body.follow(model, &joints, now, STEP, &samples);
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
