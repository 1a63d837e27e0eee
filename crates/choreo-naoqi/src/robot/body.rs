//! The robot's body as the simulated robot keeps it: every joint's path over time (clamped
//! to the model's limits when read), every joint's stiffness, whether it is awake, and the
//! base's position in the world frame. ALMotion and the modules that move the robot command
//! it; the snapshot and ALMemory's device keys read it. Part of the core because every
//! module that moves or reads the body shares this one.

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_motion::command::{BezierKey, trajectory};
use choreo_motion::spline::{Handle, Knot, Spline};
use choreo_robot::Model;

use crate::robot::trajectory::{Trajectory, after};

/// The keys of one joint in a motion command, times in seconds from the command.
#[derive(Debug, Clone)]
pub(crate) enum Keys {
    /// `(time, angle)` joined by straight lines, from where the joint is.
    Linear(Vec<(f64, f64)>),
    /// An `angleInterpolationBezier` order's keys, handles as given (choreo-motion's
    /// trajectory: from where the joint is, the first key's handle as sent).
    Bezier(Vec<f64>, Vec<BezierKey>),
}

impl Keys {
    /// When the last key is reached, in seconds from the command.
    pub fn seconds(&self) -> f64 {
        match self {
            Keys::Linear(k) => k.last().map_or(0.0, |k| k.0),
            Keys::Bezier(t, _) => t.last().copied().unwrap_or(0.0),
        }
    }

    /// The path from `start`, in seconds from the command.
    fn path(&self, start: f64) -> Spline {
        match self {
            Keys::Linear(keys) => {
                let knot = |x: f64, y: f64| Knot {
                    x,
                    y,
                    left: Handle::LINEAR,
                    right: Handle::LINEAR,
                };
                // Keys at time 0 take effect at once.
                let first = keys.iter().rposition(|k| k.0 <= 0.0);
                let head = first.map_or(start, |i| keys[i].1);
                let later = keys[first.map_or(0, |i| i + 1)..].iter();
                Spline::new(
                    std::iter::once(knot(0.0, head))
                        .chain(later.map(|&(t, v)| knot(t, v)))
                        .collect(),
                )
            }
            Keys::Bezier(times, keys) => trajectory(times, keys, start),
        }
    }
}

/// One motion command: keys per joint index.
pub(crate) type Moves = Vec<(usize, Keys)>;

/// Where a joint is over time: a path (seconds) from an origin.
#[derive(Debug, Clone)]
struct JointPath {
    origin: Time,
    path: Spline,
}

impl JointPath {
    /// A joint that stays at `value`.
    fn still(origin: Time, value: f64) -> JointPath {
        JointPath {
            origin,
            path: Keys::Linear(Vec::new()).path(value),
        }
    }

    /// The (unclamped) value at `t`.
    fn at(&self, t: Time) -> f64 {
        let x = t.0.saturating_sub(self.origin.0) as f64 / 1e9;
        self.path.eval(x).unwrap_or(0.0)
    }

    /// When it stops moving, seconds from the origin.
    fn end(&self) -> f64 {
        self.path.knots().last().map_or(0.0, |k| k.x)
    }
}

/// Below this stiffness a joint does not follow commands.
const LIMP: f64 = 0.01;

/// Sat on the floor: the thighs raised beyond this over the torso (mean hip pitch, rad;
/// NAO's Sit posture has -0.87, its lying ones about 0)...
const SAT_HIPS: f64 = -1.2;
/// ... and the knees bent beyond this (rad; Sit has 1.05, lying about 0).
const SAT_KNEES: f64 = 0.9;

/// The body: joints, stiffness, the base.
pub(crate) struct Body {
    /// Per joint: its path, unclamped (read through [`Body::angle`], which clamps).
    angles: Vec<JointPath>,
    stiffness: Vec<Trajectory<1>>,
    /// Awake (wakeUp) or resting (rest).
    pub awake: bool,
    /// Where the base goes when moved to a place: x, y, θ in the world frame.
    pub pose: Trajectory<3>,
    /// Walking at a velocity (move, moveToward): since when, from where, body-frame velocity.
    pub velocity: Option<(Time, [f64; 3], [f64; 3])>,
    pub settings: BTreeMap<String, Value>,
    /// On the floor since a time, its torso lying as this posture family says (`LyingBack`,
    /// `LyingBelly`): laid there, or fallen. What the robot's inertial unit tells; the
    /// joints alone cannot (the fall manager's `down`): a robot laid on its back has a
    /// standing robot's legs until it moves them.
    pub floor: Option<(&'static str, Time)>,
}

impl Body {
    /// Awake, stiff, with its joints at `start` (the model's standing posture: ALRobotPosture
    /// knows it), at the origin.
    pub fn new(model: Model, start: &[f64]) -> Body {
        Body {
            angles: model
                .joints()
                .iter()
                .enumerate()
                .map(|(i, _)| JointPath::still(Time(0), start.get(i).copied().unwrap_or(0.0)))
                .collect(),
            stiffness: model
                .joints()
                .iter()
                .map(|_| Trajectory::still([1.0]))
                .collect(),
            awake: true,
            pose: Trajectory::still([0.0; 3]),
            velocity: None,
            settings: BTreeMap::new(),
            floor: None,
        }
    }

    /// Angle of joint `i` at `t`, within its limits (NAO's head pitch and ankle rolls: those
    /// the head yaw and the ankle pitches give at `t`).
    pub fn angle(&self, model: Model, i: usize, t: Time) -> f64 {
        let dof = model.dof(i);
        let Some(path) = self.angles.get(dof) else {
            return 0.0;
        };
        let by = model
            .coupled_to(dof)
            .map_or(0.0, |c| self.angle(model, c, t));
        model.clamp(dof, path.at(t), by)
    }

    /// Every joint's angle at `t`, in the model's order.
    pub fn angles(&self, model: Model, t: Time) -> Vec<f64> {
        (0..model.joints().len())
            .map(|i| self.angle(model, i, t))
            .collect()
    }

    /// When the joints stop moving: the end of the last motion commanded on any of them.
    pub fn settled_at(&self) -> Time {
        self.angles
            .iter()
            .map(|p| after(p.origin, p.end()))
            .max()
            .unwrap_or(Time(0))
    }

    /// The posture family the robot lies in at `now` ([`Body::floor`]), unless its joints
    /// have moved since and come to rest with its torso upright again ([`Body::upright`]).
    pub fn lying(&self, model: Model, now: Time) -> Option<&'static str> {
        let (lying, since) = self.floor?;
        let settled = self.settled_at();
        let up = since < settled && settled <= now && self.upright(model, now);
        (!up).then_some(lying)
    }

    /// Whether joints at rest hold the torso upright: in a Standing, Crouching or Sitting
    /// posture, or sat on the floor with the thighs raised high and the knees bent (where
    /// the stock 1.x Sit Down's BackToSitDown ends: hips -1.54, knees 1.41 rad), which no
    /// robot lying down holds.
    fn upright(&self, model: Model, now: Time) -> bool {
        let angles = self.angles(model, now);
        if matches!(
            model.family_of(&angles),
            Some("Standing" | "Crouching" | "Sitting")
        ) {
            return true;
        }
        let mean = |names: [&str; 2]| {
            let found: Vec<f64> = names
                .iter()
                .filter_map(|n| angles.get(model.joint_index(n)?).copied())
                .collect();
            (found.len() == 2).then(|| (found[0] + found[1]) / 2.0)
        };
        match (
            mean(["LHipPitch", "RHipPitch"]),
            mean(["LKneePitch", "RKneePitch"]),
        ) {
            (Some(hips), Some(knees)) => hips < SAT_HIPS && knees > SAT_KNEES,
            _ => false,
        }
    }

    /// Forgets the floor once the joints rest on the feet: called as a new motion starts,
    /// which would otherwise hide that the robot got up (the stock 1.x Sit Down's
    /// BellyToCrouch ends at rest in a crouch, then its CrouchToSitDown sits the robot down:
    /// sitting, it no longer lies on its belly).
    fn leave_floor(&mut self, model: Model, now: Time) {
        if self.floor.is_some() && self.lying(model, now).is_none() {
            self.floor = None;
        }
    }

    /// Stiffness of joint `i` at `t`.
    pub fn stiffness(&self, model: Model, i: usize, t: Time) -> f64 {
        self.stiffness.get(model.dof(i)).map_or(0.0, |p| p.at(t)[0])
    }

    /// Moves joints along `moves` from where they are at `now` (values are clamped to the
    /// limits when read), no faster than their motors can (a key asked too fast is reached
    /// late); joints without stiffness stay. Returns the joints that move, and when the last
    /// of them arrives (seconds from `now`).
    pub fn command(
        &mut self,
        model: Model,
        now: Time,
        moves: &[(usize, Keys)],
    ) -> (Vec<usize>, f64) {
        self.leave_floor(model, now);
        let mut moved = Vec::new();
        let mut arrival: f64 = 0.0;
        for (i, keys) in moves {
            let dof = model.dof(*i);
            if self.stiffness(model, dof, now) < LIMP || moved.contains(&dof) {
                continue;
            }
            let start = self.angle(model, dof, now);
            let by = model
                .coupled_to(dof)
                .map_or(0.0, |c| self.angle(model, c, now));
            let path = within_speed(model, dof, keys.path(start), by);
            arrival = arrival.max(path.knots().last().map_or(0.0, |k| k.x));
            if let Some(slot) = self.angles.get_mut(dof) {
                *slot = JointPath { origin: now, path };
                moved.push(dof);
            }
        }
        (moved, arrival)
    }

    /// Joints `joints` go from `now` through `samples` instead (one row a motion cycle of
    /// `step` s, a value per joint; the first row where they are now), straight between
    /// them: the way self-collision avoidance lets an arm go.
    pub fn follow(
        &mut self,
        model: Model,
        joints: &[usize],
        now: Time,
        step: f64,
        samples: &[Vec<f64>],
    ) {
        self.leave_floor(model, now);
        for (c, &i) in joints.iter().enumerate() {
            let knots = samples
                .iter()
                .enumerate()
                .filter_map(|(k, row)| {
                    Some(Knot {
                        x: k as f64 * step,
                        y: *row.get(c)?,
                        left: Handle::LINEAR,
                        right: Handle::LINEAR,
                    })
                })
                .collect();
            if let Some(p) = self.angles.get_mut(model.dof(i)) {
                *p = JointPath {
                    origin: now,
                    path: Spline::new(knots),
                };
            }
        }
    }

    /// Stops joints where they are.
    pub fn freeze(&mut self, model: Model, joints: &[usize], now: Time) {
        for &i in joints {
            let here = self.angle(model, i, now);
            if let Some(p) = self.angles.get_mut(i) {
                *p = JointPath::still(now, here);
            }
        }
    }

    /// Sets stiffness keys for joints.
    pub fn stiffen(&mut self, model: Model, now: Time, keys: &[(usize, Vec<(Time, f64)>)]) {
        for (i, keys) in keys {
            if let Some(p) = self.stiffness.get_mut(model.dof(*i)) {
                p.command(now, keys.iter().map(|&(t, v)| (t, [v.clamp(0.0, 1.0)])));
            }
        }
    }

    /// Position of the base at `t`: x, y (m), θ (rad) in the world frame.
    pub fn position(&self, t: Time) -> [f64; 3] {
        match self.velocity {
            Some((t0, from, v)) => integrate(from, v, (t.0.saturating_sub(t0.0)) as f64 / 1e9),
            None => self.pose.at(t),
        }
    }

    /// Stops the base where it is.
    pub fn halt(&mut self, now: Time) -> [f64; 3] {
        let here = self.position(now);
        self.velocity = None;
        self.pose = Trajectory::still(here);
        here
    }
}

/// `path` as joint `i`'s motor follows it: unchanged where it never asks more than the
/// motor's maximum speed; else sampled every motion cycle, followed at that speed (clamped
/// to the joint's limits, as the robot reads them), and held on to the end until it arrives.
fn within_speed(model: Model, i: usize, path: Spline, by: f64) -> Spline {
    let Some(joint) = model.joints().get(i) else {
        return path;
    };
    let step = choreo_body::balance::STEP;
    let end = path.knots().last().map_or(0.0, |k| k.x);
    let n = (end / step).ceil() as usize + 1;
    let at = |k: usize| {
        let v = path.eval(k as f64 * step).unwrap_or(0.0);
        model.clamp(i, v, by)
    };
    let wanted: Vec<f64> = (0..n).map(at).collect();
    let mut followed = choreo_body::speed::follow(&wanted, step, joint.max_speed);
    if followed
        .iter()
        .zip(&wanted)
        .all(|(f, w)| (f - w).abs() < 1e-9)
    {
        return path;
    }
    // Late: on at top speed toward the last value until it is there (the last knot when it
    // gets there, between two cycles).
    let last = wanted.last().copied().unwrap_or(0.0);
    let mut times: Vec<f64> = (0..followed.len()).map(|k| k as f64 * step).collect();
    let mut here = followed.last().copied().unwrap_or(last);
    let mut t = times.last().copied().unwrap_or(0.0);
    while (here - last).abs() > 1e-12 {
        let go = (last - here).abs().min(joint.max_speed * step);
        t += go / joint.max_speed;
        here += go * (last - here).signum();
        followed.push(here);
        times.push(t);
    }
    let knot = |x: f64, y: f64| Knot {
        x,
        y,
        left: Handle::LINEAR,
        right: Handle::LINEAR,
    };
    Spline::new(
        times
            .iter()
            .zip(&followed)
            .map(|(&x, &y)| knot(x, y))
            .collect(),
    )
}

/// Where a body moving at body-frame velocity `v` (vx, vy, ω) from `p` is after `t` s.
fn integrate(p: [f64; 3], v: [f64; 3], t: f64) -> [f64; 3] {
    let [x0, y0, th0] = p;
    let [vx, vy, w] = v;
    let th = th0 + w * t;
    if w.abs() < 1e-9 {
        let (s, c) = th0.sin_cos();
        return [x0 + (vx * c - vy * s) * t, y0 + (vx * s + vy * c) * t, th];
    }
    let (ds, dc) = (th.sin() - th0.sin(), th.cos() - th0.cos());
    [
        x0 + (vx * ds + vy * dc) / w,
        y0 + (-vx * dc + vy * ds) / w,
        th,
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn walking_in_a_circle_comes_back() {
        let p = integrate([0.0; 3], [0.1, 0.0, 0.5], 2.0 * std::f64::consts::PI / 0.5);
        assert!(p[0].abs() < 1e-9 && p[1].abs() < 1e-9, "{p:?}");
        let q = integrate(
            [1.0, 0.0, std::f64::consts::FRAC_PI_2],
            [0.1, 0.0, 0.0],
            10.0,
        );
        assert!(
            (q[0] - 1.0).abs() < 1e-9 && (q[1] - 1.0).abs() < 1e-9,
            "{q:?}"
        );
    }
}
