//! A motion timeline judged without running it: from a start posture, the joints follow the
//! order the timeline sends (choreo-motion's `command_from`, as a play does), at no more than
//! their motors' speed, every [`STEP`]; at each step the robot's balance and its arms'
//! contacts with its body are checked. What `choreo check --body`, `choreo motion --body`
//! and `choreo plot --body` report.

use choreo_motion::motion::{Motion, made_for, timelines};
use choreo_robot::Model;

use crate::balance::{Balance, Fall, STEP};
use crate::collision::contacts;
use crate::kinematics::Frames;
use crate::pose::Pose;
use crate::speed::follow;
use crate::stance::Stance;
use std::collections::HashMap;
use std::rc::Rc;

/// A key is reported late past this much (s): one frame at 25 fps.
pub const LATE: f64 = 0.04;

/// How long the check goes on after the last key (s): a fall comes once the motion stops.
const SETTLE: f64 = 0.3;

/// What a check found.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The robot falls.
    Fall {
        /// The fall.
        fall: Fall,
        /// The timeline's frame then.
        frame: f64,
        /// What it stood on (`feet`, `left foot`, `base`).
        support: String,
    },
    /// A key the motor cannot reach in time.
    Late {
        /// The joint.
        joint: String,
        /// The key's frame.
        frame: f64,
        /// How late, s: what is left to go at the key's time, at the motor's top speed.
        by: f64,
    },
    /// An arm meets the body.
    Collision {
        /// The arm's shape (`LArm.ForeArm`).
        arm: String,
        /// The body's (`Torso`).
        body: String,
        /// The first frame it does.
        frame: f64,
        /// The deepest it goes, m.
        depth: f64,
    },
}

impl Finding {
    /// The timeline frame it is at.
    pub fn frame(&self) -> f64 {
        match self {
            Finding::Fall { frame, .. }
            | Finding::Late { frame, .. }
            | Finding::Collision { frame, .. } => *frame,
        }
    }

    /// One line saying what and where (`falls backwards at 12.40 s (frame 310): ...`).
    pub fn describe(&self, fps: f64, start: i32) -> String {
        let at = |frame: f64| {
            format!(
                "{:.2} s (frame {})",
                (frame - f64::from(start)) / fps,
                frame.round()
            )
        };
        match self {
            Finding::Fall {
                fall,
                frame,
                support,
            } => format!(
                "falls {} at {}: {}",
                fall.direction.words(),
                at(*frame),
                fall.describe(support)
            ),
            Finding::Late { joint, frame, by } => {
                format!("{joint} reaches its key at {} {:.2} s late", at(*frame), by)
            }
            Finding::Collision {
                arm,
                body,
                frame,
                depth,
            } => format!(
                "{arm} meets the {body} at {} ({:.1} cm deep)",
                at(*frame),
                depth * 100.0
            ),
        }
    }
}

/// The CoM and ZMP over time, for a plot: on the floor, in the ground frame of the start
/// (followed through a foot that stays flat when the supports change; see `ground_moved`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Path {
    /// Seconds from the start.
    pub times: Vec<f64>,
    /// The CoM on the floor (ground x, y); None when not standing.
    pub com: Vec<Option<[f64; 2]>>,
    /// The ZMP, when known.
    pub zmp: Vec<Option<[f64; 2]>>,
    /// The support polygon at the start.
    pub polygon: Vec<[f64; 2]>,
    /// The support polygon at the last step judged: the fall's, if it falls; the step it
    /// sat, knelt or lay down at, if it did.
    pub last_polygon: Vec<[f64; 2]>,
}

/// How the ground frame moved from `before` to `now` (now's frame placed in before's): the
/// ground's origin lies amid the supports touching the floor, so it moves when a foot lifts
/// or lands; a foot on the floor in both stays where it is in the world (one flat in both
/// best), and ties the two frames. None on the floor in both: taken as unmoved.
fn ground_moved(before: &Stance, now: &Stance) -> Pose {
    let tie = |flat: bool| {
        now.feet.iter().find_map(|(name, here)| {
            if flat && !(now.flat.contains(name) && before.flat.contains(name)) {
                return None;
            }
            let (_, there) = before.feet.iter().find(|(n, _)| n == name)?;
            let moved = there.then(&here.inverse());
            // On the floor: a turn about the vertical and a slide, nothing else.
            Some(Pose::at([moved.t[0], moved.t[1], 0.0]).then(&Pose::turn(
                [0.0, 0.0, 1.0],
                moved.r[1][0].atan2(moved.r[0][0]),
            )))
        })
    };
    tie(true).or_else(|| tie(false)).unwrap_or(Pose::IDENTITY)
}

/// A timeline judged from one start pose.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The library postures it starts from (several when the timeline sets every joint
    /// they differ in: one judgement for all).
    pub postures: Vec<&'static str>,
    /// What was found, in time order (a fall ends the check).
    pub findings: Vec<Finding>,
    /// The balance over time.
    pub path: Path,
}

/// Judges `motion` played from `posture` (a posture of the library; None for one the model
/// does not have), the joints it animates where its first frame puts them (the robot is
/// where its author left it: a dance's first pose is reached before the dance). Balance is
/// judged while the robot stands on its supports: from the start if it does, and not after
/// it sits, kneels or lies (what follows needs contact physics the model does not have).
pub fn check(motion: &Motion, posture: &'static str) -> Option<Report> {
    let start = start_pose(motion, posture)?;
    Some(judge(motion, vec![posture], &start, &mut Asked::default()))
}

/// Judges `motion` from every start posture of [`start_postures`], once per distinct start
/// pose.
pub fn check_all(motion: &Motion) -> Vec<Report> {
    let mut reports: Vec<(Vec<f64>, Report)> = Vec::new();
    let mut asked = Asked::default();
    for posture in start_postures(motion.robot) {
        let Some(start) = start_pose(motion, posture) else {
            continue;
        };
        if let Some((_, report)) = reports
            .iter_mut()
            .find(|(pose, _)| pose.iter().zip(&start).all(|(a, b)| (a - b).abs() < 1e-9))
        {
            report.postures.push(posture);
            continue;
        }
        let report = judge(motion, vec![posture], &start, &mut asked);
        reports.push((start, report));
    }
    reports.into_iter().map(|(_, r)| r).collect()
}

/// The joints at the start: `posture`'s, those `motion` animates where its first frame puts
/// them.
fn start_pose(motion: &Motion, posture: &str) -> Option<Vec<f64>> {
    let model = motion.robot;
    let mut start = model.posture(posture)?;
    for (name, value) in motion.values_at(f64::from(motion.start)) {
        if let Some(i) = model.joint_index(name) {
            start[i] = value;
        }
    }
    Some(start)
}

/// The paths a motion's curves ask of their joints, by curve, the joint's start angle (its
/// bits) and the number of steps: a curve's order depends on nothing else, so the start
/// postures of one motion share them (an animated joint starts where the motion's first
/// frame puts it, whatever the posture; 60 % of the corpus's paths are found here).
#[derive(Default)]
struct Asked(HashMap<(usize, u64, usize), Rc<[f64]>>);

/// An arm's shape and the body's it meets: ((arm, shape), body).
type Touch = ((&'static str, &'static str), &'static str);

/// Each joint's path every [`STEP`] as its motor follows the order `command` from `start`
/// (`steps` of them), and the keys it reaches late.
fn followed(
    motion: &Motion,
    command: &choreo_motion::command::BezierCommand,
    start: &[f64],
    steps: usize,
    cache: &mut Asked,
) -> (Vec<Vec<f64>>, Vec<Finding>) {
    let model = motion.robot;
    let joints = model.joints();
    let index = |name: &str| model.joint_index(name);
    let fps = f64::from(motion.fps.max(1));
    let frame_of = |t: f64| f64::from(motion.start) + t * fps;
    // Each joint's path, asked and followed.
    let mut paths: Vec<Vec<f64>> = start.iter().map(|&a| vec![a; steps]).collect();
    let mut asked: Vec<Option<(usize, Rc<[f64]>)>> = vec![None; joints.len()];
    for (c, name) in command.names.iter().enumerate() {
        let Some(i) = index(name) else {
            continue;
        };
        let raw = match cache.0.get(&(c, start[i].to_bits(), steps)) {
            Some(raw) => Rc::clone(raw),
            None => {
                let Some(spline) = command.trajectory(c, start[i]) else {
                    continue;
                };
                let mut at = spline.rising();
                let raw: Rc<[f64]> = (0..steps)
                    .map(|k| at(k as f64 * STEP).unwrap_or(start[i]))
                    .collect();
                cache
                    .0
                    .insert((c, start[i].to_bits(), steps), Rc::clone(&raw));
                raw
            }
        };
        if let Some(slot) = asked.get_mut(i) {
            *slot = Some((c, raw));
        }
    }
    // Within limits in ALMotion's order: the joint that bounds another (head yaw, ankle
    // pitch) comes before it, so its wanted path is there to bound it.
    let mut wanted_paths: Vec<Vec<f64>> = paths.clone();
    let mut findings = Vec::new();
    for (i, slot) in asked.into_iter().enumerate() {
        let Some((c, raw)) = slot else {
            continue;
        };
        let coupled = model.coupled_to(i);
        let by = |k: usize| coupled.map_or(0.0, |j| wanted_paths[j][k.min(steps - 1)]);
        // A joint no other bounds has the same limits all along: found once.
        let wanted: Vec<f64> = match coupled {
            None => {
                let (lo, hi) = model.limits(i, 0.0);
                raw.iter().map(|v| v.clamp(lo, hi)).collect()
            }
            Some(_) => raw
                .iter()
                .enumerate()
                .map(|(k, &v)| model.clamp(i, v, by(k)))
                .collect(),
        };
        let followed = follow(&wanted, STEP, joints[i].max_speed);
        for (&t, key) in command.times[c].iter().zip(&command.keys[c]) {
            let k = ((t / STEP).round() as usize).min(steps - 1);
            let late = (model.clamp(i, key.value, by(k)) - followed[k]).abs() / joints[i].max_speed;
            if late > LATE {
                findings.push(Finding::Late {
                    joint: command.names[c].clone(),
                    frame: frame_of(t),
                    by: late,
                });
            }
        }
        wanted_paths[i] = wanted;
        paths[i] = followed;
    }
    (paths, findings)
}

/// The balance of a timeline being judged: how it stands at each step while it stands on
/// its supports, and where on the floor of the start.
struct Standing {
    balance: Balance,
    /// Whether it still stands (never again once it sits, kneels or lies).
    standing: bool,
    /// The stance of the last step judged.
    last: Option<Rc<Stance>>,
    /// The ground frame of the moment in that of the start (see `ground_moved`).
    to_start: Pose,
    legs: &'static [usize],
    /// The legs' angles at the last step judged.
    leg_angles: Vec<f64>,
}

impl Standing {
    fn new(model: Model) -> Standing {
        let legs = crate::stance::leg_joints(model);
        Standing {
            balance: Balance::new(),
            standing: true,
            last: None,
            to_start: Pose::IDENTITY,
            legs,
            leg_angles: Vec::with_capacity(legs.len()),
        }
    }

    /// `p` on the floor of the start.
    fn on_start(&self, p: [f64; 2]) -> [f64; 2] {
        let q = self.to_start.apply([p[0], p[1], 0.0]);
        [q[0], q[1]]
    }

    /// Step `k` (at `t`) with the joints at `frames` (`still`: where they were at the last
    /// step): its CoM and ZMP on the floor of the start added to `path` (None once the robot
    /// no longer stands), and its fall, with what it stood on.
    fn step(
        &mut self,
        (k, t): (usize, f64),
        frames: &Frames,
        still: bool,
        path: &mut Path,
    ) -> Option<(Fall, &'static str)> {
        if !self.standing {
            path.com.push(None);
            path.zmp.push(None);
            return None;
        }
        let angles = frames.angles();
        // Legs that did not move stand where they stood: only the CoM moved.
        let legs_still = self.last.is_some()
            && self
                .legs
                .iter()
                .zip(&self.leg_angles)
                .all(|(&i, a)| angles[i] == *a);
        self.leg_angles.clear();
        self.leg_angles.extend(self.legs.iter().map(|&i| angles[i]));
        let stance = match &self.last {
            // Nothing moved: the same stance.
            Some(before) if still => Rc::clone(before),
            Some(before) if legs_still => Rc::new(before.moved(frames)),
            Some(before) => {
                let stance = Stance::near(frames, Some(before));
                self.to_start = self.to_start.then(&ground_moved(before, &stance));
                Rc::new(stance)
            }
            None => Rc::new(Stance::of(frames)),
        };
        self.last = Some(Rc::clone(&stance));
        if k == 0 {
            path.polygon = stance.polygon.clone();
            // A first pose that would not stand (its CoM outside its feet) is not where a
            // standing robot starts: the timeline starts sitting or lying.
            self.standing = stance.margin([stance.com[0], stance.com[1]]) > 0.0;
        }
        self.standing &= stance.standing;
        if !self.standing {
            path.com.push(None);
            path.zmp.push(None);
            return None;
        }
        let support = stance.support_words();
        let com = [stance.com[0], stance.com[1]];
        let (check, fall) = self.balance.step(t, Rc::clone(&stance));
        path.com.push(Some(self.on_start(com)));
        path.zmp.push(check.zmp_at.map(|z| self.on_start(z)));
        fall.map(|fall| (fall, support))
    }
}

/// Judges `motion` from the joints at `start`. Balance is judged while the robot stands;
/// once it sits, kneels or lies, only the arms are (the stance is no longer computed).
fn judge(motion: &Motion, postures: Vec<&'static str>, start: &[f64], cache: &mut Asked) -> Report {
    let model = motion.robot;
    let index = |name: &str| model.joint_index(name);
    let command = motion.command_from(motion.start, &|name| index(name).map(|i| start[i]));
    let fps = f64::from(motion.fps.max(1));
    let frame_of = |t: f64| f64::from(motion.start) + t * fps;
    let steps = ((command.duration() + SETTLE) / STEP).ceil() as usize + 1;
    let (paths, mut findings) = followed(motion, &command, start, steps, cache);
    let mut standing = Standing::new(model);
    let mut path = Path::default();
    path.times.reserve(steps);
    path.com.reserve(steps);
    path.zmp.reserve(steps);
    let movers = crate::collision::movers(model);
    // Buffers kept across steps: a step allocates nothing it does not keep.
    let mut angles: Vec<f64> = start.to_vec();
    let mut touching: Vec<Touch> = Vec::new();
    let mut now: Vec<Touch> = Vec::new();
    let mut frames = Frames::new(model, &angles);
    for k in 0..steps {
        let t = k as f64 * STEP;
        for (a, p) in angles.iter_mut().zip(&paths) {
            *a = p[k];
        }
        // Only the joints that moved since the last step are computed again.
        frames.move_to(&angles);
        path.times.push(t);
        let moved = |i: usize| k == 0 || paths[i][k] != paths[i][k - 1];
        let still = !(0..paths.len()).any(moved);
        let fall = standing.step((k, t), &frames, still, &mut path);
        // The arms and the body where they were: the same contacts.
        let shapes_still = k > 0 && !movers.iter().any(|&i| moved(i));
        now.clear();
        let found = if shapes_still {
            Vec::new()
        } else {
            contacts(&frames, None)
        };
        if shapes_still {
            now.extend_from_slice(&touching);
        }
        for contact in found {
            let key = (contact.arm, contact.body);
            if !touching.contains(&key) {
                findings.push(Finding::Collision {
                    arm: format!("{}.{}", key.0.0, key.0.1),
                    body: key.1.to_string(),
                    frame: frame_of(t),
                    depth: contact.depth,
                });
            } else if let Some(Finding::Collision { depth, .. }) =
                findings.iter_mut().rev().find(|f| {
                    matches!(f, Finding::Collision { arm, body, .. }
                        if *arm == format!("{}.{}", key.0.0, key.0.1) && body == key.1)
                })
            {
                *depth = depth.max(contact.depth);
            }
            now.push(key);
        }
        std::mem::swap(&mut touching, &mut now);
        if let Some((fall, support)) = fall {
            findings.push(Finding::Fall {
                frame: frame_of(fall.time),
                fall,
                support: support.to_string(),
            });
            break;
        }
    }
    if let Some(stance) = &standing.last {
        path.last_polygon = stance
            .polygon
            .iter()
            .map(|&p| standing.on_start(p))
            .collect();
    }
    findings.sort_by(|a, b| a.frame().total_cmp(&b.frame()));
    Report {
        postures,
        findings,
        path,
    }
}

/// Every motion timeline of a behavior (its box path), as a motion for the robot its
/// curves are made for (NAO when they do not tell); timelines without curves left out.
pub fn motions_of(root: &choreo_xar::model::BoxDef) -> Vec<(String, Motion)> {
    timelines(root)
        .into_iter()
        .filter_map(|(path, timeline)| {
            let robot = timeline
                .actuator_list
                .as_ref()
                .and_then(made_for)
                .unwrap_or(Model::Nao);
            let motion = Motion::from_timeline(timeline, robot)?;
            (!motion.curves.is_empty()).then_some((path, motion))
        })
        .collect()
}

/// The postures a timeline is judged from: those of the library a behavior starts in
/// standing (the fall manager works only then).
pub fn start_postures(model: Model) -> Vec<&'static str> {
    model
        .postures()
        .into_iter()
        .filter(|p| matches!(p.family, "Standing" | "Crouching"))
        .map(|p| p.name)
        .collect()
}
