//! ALMotion's fall manager (NAOqi's "Fall manager" page): it "looks at the support polygon
//! and the Center Of Mass"; when the robot would fall it raises `ALMotion/RobotIsFalling`,
//! protects itself and cuts the stiffness, and raises `robotHasFallen` once down. Here each
//! order on the joints is followed through, every motion cycle, with choreo-body's balance
//! (the CoM and the cart-table ZMP against the support polygon): where the robot would
//! fall, a background task makes it fall then. A later order replaces the prediction. A
//! robot whose hands, knees or pelvis meet the floor as it tips (choreo-body's [`Tip`]) has
//! leant on them, not fallen: no fall then.
//!
//! Only a standing robot falls this way (its posture family Standing or Crouching when the
//! order comes, as the reflex works only then). A robot on the floor (laid there, or
//! fallen: [`down`]) is back on its feet once its joints come to rest in a Standing or
//! Crouching posture; on its way up it is not judged here (`choreo check --body` judges a
//! getting-up timeline from a lying start), as a stock Stand Up gets a robot up. It falls
//! whether or not the fall manager is on (`setFallManagerEnabled`): disabled, it falls
//! without protection, no event raised and its stiffness kept. Down, its joints take the lying posture of its fall's direction
//! (`LyingBelly` forwards, `LyingBack` otherwise) over [`FALL_SECONDS`].

use std::rc::Rc;

use choreo_body::balance::{Balance, STEP};
use choreo_body::{Fall, Frames, Stance, Tip, Tipped};
use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::body::Keys;
use crate::robot::core::{Plan, Sim};
use crate::robot::observe::RobotEvent;
use crate::robot::tasks::Claim;
use crate::robot::trajectory::after;

/// How long a fall takes, from the CoM leaving the feet to lying on the floor (s;
/// **inference**: a 0.5 m robot tipping from upright).
pub const FALL_SECONDS: f64 = 0.8;

/// How long after its joints stop moving the robot is still watched (s): a fall comes
/// once the motion is over.
const SETTLE: f64 = 0.3;

/// The name of the fall manager's own task (not a NAOqi method: never called).
const TASK: &str = "_fallManager";

/// Follows the joints from now until they settle; if the robot would fall, a task makes it
/// fall then (replacing any earlier prediction).
pub(crate) fn watch(sim: &Sim) {
    sim.stop_all("ALMotion", &[TASK]);
    let now = sim.now();
    if down(sim, now).is_some() {
        return;
    }
    let angles = sim.state().body.angles(sim.model, now);
    if !matches!(sim.model.family_of(&angles), Some("Standing" | "Crouching")) {
        return;
    }
    let Some((at, fall, support)) = predict(sim, now) else {
        return;
    };
    let down = after(at, FALL_SECONDS);
    let plan = Plan::until(down)
        .at(at, move |sim: &Sim| begin(sim, &fall, &support))
        .at(down, move |sim: &Sim| end(sim, fall.direction.lying()));
    let task = sim.start_task("ALMotion", TASK, &[], plan);
    let _ = sim.drive_in_background("choreo-fall-manager", task, |_, _| {});
}

/// The posture family the robot lies in on the floor at `now` (`LyingBack`, `LyingBelly`),
/// if it does: laid or fallen there, and not yet at rest on its feet since (its joints
/// settled in a Standing or Crouching posture, which ends it).
pub(crate) fn down(sim: &Sim, now: Time) -> Option<&'static str> {
    let mut state = sim.state();
    let lying = state.body.lying(sim.model, now);
    if lying.is_none() {
        state.body.floor = None;
    }
    lying
}

/// When and how the robot falls if its joints go on as commanded, from `now`.
fn predict(sim: &Sim, now: Time) -> Option<(Time, Fall, String)> {
    let (model, settled) = (sim.model, sim.state().body.settled_at());
    let span = settled.0.saturating_sub(now.0) as f64 / 1e9 + SETTLE;
    let steps = (span / STEP).ceil() as usize + 1;
    let mut balance = Balance::new();
    let mut before: Option<Rc<Stance>> = None;
    let mut frames: Option<Frames> = None;
    let legs = choreo_body::stance::leg_joints(model);
    let mut tipping: Option<(Tip, &str)> = None;
    for k in 0..steps {
        let t = after(now, k as f64 * STEP);
        let angles = sim.state().body.angles(model, t);
        // Only the joints that moved are computed again (in place); legs that did not move
        // stand where they stood (only the CoM moved), as `choreo check --body` judges it.
        let (frames, legs_still) = match &mut frames {
            Some(f) => {
                let legs_still = legs
                    .iter()
                    .all(|&i| f.angles().get(i) == angles.get(model.dof(i)));
                f.move_to(&angles);
                (&*f, legs_still)
            }
            None => (&*frames.insert(Frames::new(model, &angles)), false),
        };
        let stance = Rc::new(match &before {
            Some(b) if legs_still => b.moved(frames),
            _ => Stance::near(frames, before.as_deref()),
        });
        // Tipping, it falls unless a limb or the pelvis meets the floor first; one below
        // the floor of its feet has (the robot no longer stands on them).
        if let Some((tip, support)) = &mut tipping {
            match (stance.standing, tip.step(STEP, frames, &stance)) {
                (false, _) | (_, Some(Tipped::Caught)) => return None,
                (_, Some(Tipped::Fell)) => {
                    return Some((after(now, tip.fall.time), tip.fall, support.to_string()));
                }
                (true, None) => {
                    before = Some(stance);
                    continue;
                }
            }
        }
        if !stance.standing {
            return None;
        }
        let support = stance.support_words();
        before = Some(Rc::clone(&stance));
        if let (_, Some(fall)) = balance.step(k as f64 * STEP, stance) {
            tipping = Some((Tip::new(fall, balance.tipping()), support));
        }
    }
    // Still tipping when the joints have settled: nothing caught it.
    tipping.map(|(tip, support)| (after(now, tip.fall.time), tip.fall, support.to_string()))
}

/// Whether the fall manager is on (`setFallManagerEnabled`, on by default).
fn enabled(sim: &Sim) -> bool {
    sim.state()
        .body
        .settings
        .get("FallManagerEnabled")
        .is_none_or(|v| *v != Value::Bool(false))
}

/// The fall begins: said, raised, every order on the joints stopped, the body on its way
/// to the floor.
fn begin(sim: &Sim, fall: &Fall, support: &str) {
    let model = sim.model;
    let now = sim.now();
    sim.observe(RobotEvent::Fell {
        direction: fall.direction.words().to_string(),
        text: format!(
            "{} fell {} at {:.2} s: {}",
            model.name(),
            fall.direction.words(),
            now.0 as f64 / 1e9,
            fall.describe(support)
        ),
    });
    let protect = enabled(sim);
    if protect {
        sim.raise("ALMotion/RobotIsFalling", Value::Bool(true));
    }
    sim.raise("ALMotion/RobotIsStand", Value::Bool(false));
    let all: Vec<usize> = (0..model.joints().len()).map(|i| model.dof(i)).collect();
    sim.stop_claiming(&Claim::Joints(all));
    let Some(lying) = model.posture(fall.direction.lying()) else {
        return;
    };
    let moves: Vec<(usize, Keys)> = lying
        .iter()
        .enumerate()
        .map(|(i, &a)| (i, Keys::Linear(vec![(FALL_SECONDS, a)])))
        .collect();
    sim.state().body.command(model, now, &moves);
}

/// Down, lying in posture family `lying`: the stiffness cut (the fall manager's),
/// `robotHasFallen` raised, the posture said.
fn end(sim: &Sim, lying_on: &'static str) {
    let model = sim.model;
    let now = sim.now();
    let angles = sim.state().body.angles(model, now);
    let lying = model.posture_of(&angles).unwrap_or("Unknown");
    sim.state().body.floor = Some((lying_on, now));
    if enabled(sim) {
        let off: Vec<(usize, Vec<(Time, f64)>)> = (0..model.joints().len())
            .map(|i| (i, vec![(now, 0.0)]))
            .collect();
        sim.state().body.stiffen(model, now, &off);
        sim.raise("robotHasFallen", Value::Bool(true));
    }
    sim.observe(RobotEvent::PostureChanged {
        posture: lying.to_string(),
    });
}
