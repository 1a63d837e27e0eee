//! The motion of one timeline: its playable curves, its clock and range, the robot it is
//! for; the orders a play sends (motion.md §7) and the joint values at any frame.

use choreo_robot::Model;
use choreo_xar::model::{ActuatorList, BoxDef, Timeline};

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

/// What is played, to the bit (the warnings left out: they change nothing played), so that
/// a tool judging many motions can judge each once. By bits: `0.0` and `-0.0` keys, equal
/// as numbers, hash apart.
impl std::hash::Hash for Motion {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.fps.hash(state);
        self.robot.hash(state);
        self.made_for.hash(state);
        self.start.hash(state);
        self.end.hash(state);
        self.curves.hash(state);
    }
}

/// The model a timeline's curves are made for ([`Model::detect`] on its actuator list: the
/// joints it names, else its `model` hint); None when they do not tell.
pub fn made_for(list: &ActuatorList) -> Option<Model> {
    Model::detect(
        list.model.as_deref(),
        list.curves.iter().map(|c| c.actuator.as_str()),
    )
}

/// Every box at or under `root` whose timeline has an actuator list, with its box path as
/// the engine's graph and trace name it (box names joined by `/`: `root/Tai Chi Chuan`),
/// parents first. Boxes of every keyframe are listed (two boxes may share a path).
pub fn timelines(root: &BoxDef) -> Vec<(String, &Timeline)> {
    fn visit<'a>(b: &'a BoxDef, prefix: &str, out: &mut Vec<(String, &'a Timeline)>) {
        let path = if prefix.is_empty() {
            b.name.clone()
        } else {
            format!("{prefix}/{}", b.name)
        };
        if let Some(t) = b.timeline.as_ref().filter(|t| t.actuator_list.is_some()) {
            out.push((path.clone(), t));
        }
        for d in b.diagrams() {
            for child in &d.boxes {
                visit(child, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    visit(root, "", &mut out);
    out
}

impl Motion {
    /// The motion of `timeline` for `robot`; None when it has no playable curve or no clock
    /// (fps ≤ 0: motion.md §1, never divided by).
    pub fn from_timeline(timeline: &Timeline, robot: Model) -> Option<Motion> {
        Motion::from_list(
            timeline.actuator_list.as_ref()?,
            timeline.fps(),
            timeline.start_frame(),
            timeline.end_frame(),
            robot,
        )
    }

    /// The motion of a timeline's `ActuatorList` at `fps`, from `start`, with its
    /// `end_frame` (−1 or 0: the last key); see [`Motion::from_timeline`].
    pub fn from_list(
        list: &ActuatorList,
        fps: i32,
        start: i32,
        end_frame: i32,
        robot: Model,
    ) -> Option<Motion> {
        let mut warnings = Vec::new();
        let mut curves = Vec::new();
        for c in &list.curves {
            let (curve, found) = Curve::from_xar(c);
            warnings.extend(found.into_iter().map(|w| (c.actuator.clone(), w)));
            curves.extend(curve);
        }
        let mut motion = Motion::from_curves(curves, fps, start, end_frame, robot)?;
        motion.made_for = made_for(list);
        warnings.append(&mut motion.warnings);
        motion.warnings = warnings;
        Some(motion)
    }

    /// The motion of playable `curves` (from an `ActuatorList`, or a `.qianim` animation):
    /// joints `robot` lacks are left out, and `RHipYawPitch` when `LHipYawPitch` leads it;
    /// None when no curve is left or fps ≤ 0. `made_for` is told by the joints alone.
    pub fn from_curves(
        curves: Vec<Curve>,
        fps: i32,
        start: i32,
        end_frame: i32,
        robot: Model,
    ) -> Option<Motion> {
        if fps <= 0 {
            return None;
        }
        let made_for = Model::from_joints(curves.iter().map(|c| c.actuator.as_str()));
        let mut warnings = Vec::new();
        let mut curves: Vec<Curve> = curves
            .into_iter()
            .filter(|curve| {
                let known = robot.joint_index(&curve.actuator).is_some();
                if !known {
                    warnings.push((
                        curve.actuator.clone(),
                        Warning::UnknownJoint(curve.actuator.clone()),
                    ));
                }
                known
            })
            .collect();
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
            start,
            end: Some(end_frame).filter(|e| *e >= 1),
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
    /// radians, the first key's auto handles resolved against the posture (§6.4). Values
    /// are sent as the file has them, as the reference sends them: the robot clamps the
    /// trajectory to the joint limits (ALMotion does, and so does the simulated robot), and
    /// [`Motion::warnings`] says which keys lie beyond them. Empty when no key is left, and
    /// from the end frame on (the timeline finishes there without sending: §2.2, step 3
    /// before step 4).
    pub fn command_from(&self, from: i32, posture: &dyn Fn(&str) -> Option<f64>) -> BezierCommand {
        self.command_at(from, self.fps, posture)
    }

    /// [`Motion::command_from`] at another frame rate (a script changed it: `setFPS`).
    pub fn command_at(
        &self,
        from: i32,
        fps: i32,
        posture: &dyn Fn(&str) -> Option<f64>,
    ) -> BezierCommand {
        let mut command = BezierCommand::default();
        if fps <= 0 {
            return command;
        }
        let fps = f64::from(fps);
        for curve in &self.curves {
            let sent = self.sent_keys(curve, from);
            let Some(head) = sent.first() else {
                continue;
            };
            let at = posture(&curve.actuator).unwrap_or(head.value * curve.scale);
            let Some(spline) = curve.spline_from(from, at) else {
                continue;
            };
            // The virtual key of the posture (when no key sits on `from`) is not sent.
            let skip = usize::from(head.frame > from);
            let per_second = |h: Handle| Handle {
                dx: h.dx / fps,
                ..h
            };
            let (times, keys): (Vec<f64>, Vec<BezierKey>) = spline
                .knots()
                .iter()
                .skip(skip)
                .take(sent.len())
                .map(|knot| {
                    let key = BezierKey {
                        value: knot.y,
                        left: per_second(knot.left),
                        right: per_second(knot.right),
                    };
                    ((knot.x - f64::from(from)) / fps, key)
                })
                .unzip();
            command.names.push(curve.actuator.clone());
            command.times.push(times);
            command.keys.push(keys);
        }
        command
    }

    /// What an order from `from` at `fps` moves, and for how long, without building it:
    /// the joints [`Motion::command_at`] names and its duration (for traces and reports).
    pub fn extent_from(&self, from: i32, fps: i32) -> (Vec<String>, f64) {
        let mut joints = Vec::new();
        let mut last = from;
        for curve in &self.curves {
            if let Some(k) = self.sent_keys(curve, from).last() {
                joints.push(curve.actuator.clone());
                last = last.max(k.frame);
            }
        }
        let seconds = if fps > 0 {
            f64::from(last - from) / f64::from(fps)
        } else {
            0.0
        };
        (joints, seconds)
    }

    /// The keys of `curve` an order from `from` carries: those at or after `from`, up to the
    /// end frame and the first key past it.
    fn sent_keys<'c>(&self, curve: &'c Curve, from: i32) -> &'c [crate::curve::Key] {
        let keys = curve.keys();
        // From the end frame on, no segment crosses the end: the "first key past it" would
        // be a key after the end played on its own (found by tests/analytic.rs: end frame 5
        // and a play from frame 15 sent the key at 20).
        if self.end.is_some_and(|end| from >= end) {
            return &[];
        }
        let rest = &keys[keys.partition_point(|k| k.frame < from)..];
        match self.end {
            Some(end) => {
                let within = rest.partition_point(|k| k.frame <= end);
                &rest[..(within + 1).min(rest.len())]
            }
            None => rest,
        }
    }

    /// Every curve's value at `frame` (ALMotion units, clamped to the joint's static limits:
    /// NAO's head pitch, its widest range), each curve alone from its
    /// first key (the editor's view): what a goTo while stopped moves the joints to
    /// (motion.md §7.3), and what plots and samples show.
    pub fn values_at(&self, frame: f64) -> Vec<(&str, f64)> {
        self.samples(&[frame])
            .into_iter()
            .filter_map(|(joint, values)| Some((joint, *values.first()?)))
            .collect()
    }

    /// Every curve sampled at each of `frames` (any frames, fractional ones included), in
    /// curve order: its joint and one value per frame, as [`Motion::values_at`] gives them
    /// (each curve's spline built once, however many frames).
    pub fn samples(&self, frames: &[f64]) -> Vec<(&str, Vec<f64>)> {
        self.curves
            .iter()
            .filter_map(|c| {
                let joint = self.robot.joint_index(&c.actuator)?;
                let spline = c.spline();
                let values = frames
                    .iter()
                    .map(|f| Some(self.robot.clamp(joint, spline.eval(*f)?, 0.0)))
                    .collect::<Option<Vec<f64>>>()?;
                Some((c.actuator.as_str(), values))
            })
            .collect()
    }

    /// The last frame played: the explicit end frame, else the last key frame.
    pub fn end_frame(&self) -> i32 {
        self.end.unwrap_or_else(|| self.last_key_frame())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A root holding box `A` with a 10 fps timeline: HeadPitch from 0° at frame 1 to −20°
    /// at frame 11 (linear handles), and LHand held at 0.5 by one key.
    const XAR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xar_version="3"><Box name="root" id="-1"><Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="A" id="1"><Timeline enable="1" fps="10" start_frame="1" end_frame="-1"><ActuatorList model="Nao">
<ActuatorCurve name="value" actuator="HeadPitch" mute="0" unit="0">
<Key frame="1" value="0"><Tangent side="right" interpType="linear" abscissaParam="0" ordinateParam="0"/></Key>
<Key frame="11" value="-20"><Tangent side="left" interpType="linear" abscissaParam="0" ordinateParam="0"/></Key>
</ActuatorCurve>
<ActuatorCurve name="value" actuator="LHand" mute="0" unit="1"><Key frame="3" value="0.5"/></ActuatorCurve>
</ActuatorList></Timeline></Box>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#;

    #[test]
    fn timelines_are_found_by_path_and_sampled_like_values_at() {
        let x = choreo_xar::read_xar("t.xar", XAR.as_bytes())
            .map(|r| r.value)
            .unwrap_or_else(|e| panic!("{e}"));
        let found = timelines(&x.root_box);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["root/A"]);
        let Some(m) = Motion::from_timeline(found[0].1, Model::Nao) else {
            panic!("no motion");
        };
        assert_eq!(
            found[0].1.actuator_list.as_ref().and_then(made_for),
            Some(Model::Nao)
        );
        assert_eq!((m.start, m.end_frame()), (1, 11));
        let frames = [0.0, 1.0, 3.5, 11.0, 20.0];
        let samples = m.samples(&frames);
        assert_eq!(samples.len(), 2);
        let (joint, pitch) = &samples[0];
        assert_eq!(*joint, "HeadPitch");
        let degrees = std::f64::consts::PI / 180.0;
        // Linear: −20°·(f − 1)/10 inside the keys, flat outside.
        let expected = [0.0, 0.0, -5.0 * degrees, -20.0 * degrees, -20.0 * degrees];
        for (got, want) in pitch.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{got} != {want}");
        }
        assert_eq!(samples[1], ("LHand", vec![0.5; 5]));
        for (i, f) in frames.iter().enumerate() {
            let at = m.values_at(*f);
            assert_eq!(at, [("HeadPitch", pitch[i]), ("LHand", 0.5)]);
        }
    }
}
