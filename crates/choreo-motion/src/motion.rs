//! The motion of one timeline: its playable curves, its clock and range, the robot it is
//! for; the orders a play sends (motion.md §7) and the joint values at any frame.

use choreo_robot::Model;
use choreo_xar::model::Timeline;

use crate::command::{BezierCommand, BezierKey};
use crate::curve::{Curve, Warning};
use crate::spline::Handle;

/// How far beyond a joint limit a key may be without a [`Warning::Clamped`]: the limits are
/// given to 4 decimals in radians, and the editor writes keys at its own limits in degrees
/// (NAO's wrist yaw at 104.5° = 1.82387 rad against 1.8238; a knee at −5.29° = −0.09233
/// against −0.0923). Found by tests/payload.rs: with a 1e-9 threshold, 314 of the corpus's
/// 1,691 clamp warnings were such roundings (worst excess under 1e-4 rad, 0.006°).
pub const LIMIT_ROUNDING: f64 = 1e-4;

/// A timeline's motion, ready to play on a `robot`.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// Frames per second (> 0).
    pub fps: i32,
    /// The robot the orders are for (its joints and limits).
    pub robot: Model,
    /// The model the file is made for ([`Model::detect`]), if it tells.
    pub made_for: Option<Model>,
    /// The first frame played (`start_frame`).
    pub start: i32,
    /// An explicit end frame (`end_frame` ≥ 1): the motion is cut there.
    pub end: Option<i32>,
    /// The curves played, in file order (muted, keyless and unknown joints left out; the
    /// follower `RHipYawPitch` too when `LHipYawPitch` has a curve).
    pub curves: Vec<Curve>,
    /// What was mended or left out, with the joint it concerns.
    pub warnings: Vec<(String, Warning)>,
}

impl Motion {
    /// The motion of `timeline` for `robot`; None when it has no playable curve or no clock
    /// (fps ≤ 0: motion.md §1, never divided by).
    pub fn from_timeline(timeline: &Timeline, robot: Model) -> Option<Motion> {
        let list = timeline.actuator_list.as_ref()?;
        let fps = timeline.fps();
        if fps <= 0 {
            return None;
        }
        let made_for = Model::detect(
            list.model.as_deref(),
            list.curves.iter().map(|c| c.actuator.as_str()),
        );
        let mut warnings = Vec::new();
        let mut curves = Vec::new();
        for c in &list.curves {
            let (curve, found) = Curve::from_xar(c);
            warnings.extend(found.into_iter().map(|w| (c.actuator.clone(), w)));
            let Some(curve) = curve else { continue };
            if robot.joint_index(&curve.actuator).is_none() {
                warnings.push((
                    curve.actuator.clone(),
                    Warning::UnknownJoint(curve.actuator.clone()),
                ));
                continue;
            }
            curves.push(curve);
        }
        let leader = curves.iter().any(|c| c.actuator == "LHipYawPitch");
        if leader && robot == Model::Nao {
            curves.retain(|c| {
                let follower = c.actuator == "RHipYawPitch";
                if follower {
                    warnings.push((c.actuator.clone(), Warning::Follower));
                }
                !follower
            });
        }
        if curves.is_empty() {
            return None;
        }
        let mut motion = Motion {
            fps,
            robot,
            made_for,
            start: timeline.start_frame(),
            end: Some(timeline.end_frame()).filter(|e| *e >= 1),
            curves,
            warnings,
        };
        let clamped = motion.clamped();
        motion.warnings.extend(clamped);
        Some(motion)
    }

    /// The last key frame over every curve played (what `end_frame = -1` means).
    pub fn last_key_frame(&self) -> i32 {
        self.curves.iter().map(Curve::last_frame).max().unwrap_or(0)
    }

    /// The order a play sends from frame `from` (motion.md §7.1), the joints at `posture`
    /// (ALMotion units, by name; a joint it does not know starts at its first key): per
    /// curve, the keys at or after `from`, up to the end frame and the first key past it
    /// (the segment crossing the end is played until the timeline finishes and kills the
    /// order, as the reference does), times `(f − from) / fps`, handles in seconds and
    /// radians, the first key's auto handles resolved against the posture (§6.4), values
    /// clamped to the joint's static limits (NAO's head pitch: its widest range; the robot
    /// narrows it with the yaw). Empty when no key is left, and from the end frame on (the
    /// timeline finishes there without sending: §2.2, step 3 before step 4).
    pub fn command_from(&self, from: i32, posture: &dyn Fn(&str) -> Option<f64>) -> BezierCommand {
        let fps = f64::from(self.fps);
        let mut command = BezierCommand::default();
        // From the end frame on, no segment crosses the end: the "first key past it" would be
        // a key after the end played on its own (found by tests/analytic.rs, end frame 5 and
        // a play from frame 15 sent the key at 20).
        if self.end.is_some_and(|end| from >= end) {
            return command;
        }
        for curve in &self.curves {
            let keys = curve.keys();
            let first = keys.partition_point(|k| k.frame < from);
            let Some(head) = keys.get(first) else {
                continue;
            };
            let at = posture(&curve.actuator).unwrap_or(head.value * curve.scale);
            let Some(spline) = curve.spline_from(from, at) else {
                continue;
            };
            let limit = self.end.map_or(usize::MAX, |end| {
                keys[first..].partition_point(|k| k.frame <= end) + 1
            });
            let joint = self.robot.joint_index(&curve.actuator).unwrap_or(0);
            let (mut times, mut values) = (Vec::new(), Vec::new());
            // The virtual key of the posture (when no key sits on `from`) is not sent.
            let skip = usize::from(head.frame > from);
            for knot in spline.knots().iter().skip(skip).take(limit) {
                times.push((knot.x - f64::from(from)) / fps);
                let per_second = |h: Handle| Handle {
                    dx: h.dx / fps,
                    ..h
                };
                values.push(BezierKey {
                    value: self.robot.clamp(joint, knot.y, 0.0),
                    left: per_second(knot.left),
                    right: per_second(knot.right),
                });
            }
            if times.is_empty() {
                continue;
            }
            command.names.push(curve.actuator.clone());
            command.times.push(times);
            command.keys.push(values);
        }
        command
    }

    /// Every curve's value at `frame` (ALMotion units, clamped as [`Motion::command_from`] does), each curve alone from its
    /// first key (the editor's view): what a goTo while stopped moves the joints to
    /// (motion.md §7.3), and what plots and samples show.
    pub fn values_at(&self, frame: f64) -> Vec<(&str, f64)> {
        self.curves
            .iter()
            .filter_map(|c| {
                let v = c.spline().eval(frame)?;
                let joint = self.robot.joint_index(&c.actuator)?;
                Some((c.actuator.as_str(), self.robot.clamp(joint, v, 0.0)))
            })
            .collect()
    }

    /// The key values beyond the joints' limits (static limits; NAO's head pitch: its widest
    /// range, the one at yaw 0) by more than [`LIMIT_ROUNDING`], per joint: how many, the
    /// furthest. (Values within it are clamped too, without a word.)
    fn clamped(&self) -> Vec<(String, Warning)> {
        let mut out = Vec::new();
        for c in &self.curves {
            let Some(joint) = self.robot.joint_index(&c.actuator) else {
                continue;
            };
            let (mut n, mut worst, mut excess) = (0, 0.0, 0.0);
            for k in c.keys() {
                let v = k.value * c.scale;
                let e = (v - self.robot.clamp(joint, v, 0.0)).abs();
                if e > LIMIT_ROUNDING {
                    n += 1;
                    if e > excess {
                        (excess, worst) = (e, v);
                    }
                }
            }
            if n > 0 {
                out.push((
                    c.actuator.clone(),
                    Warning::Clamped {
                        joint: c.actuator.clone(),
                        keys: n,
                        worst,
                    },
                ));
            }
        }
        out
    }
}
