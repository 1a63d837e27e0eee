//! A motion timeline judged without running it: from a start posture, the joints follow the
//! order the timeline sends (choreo-motion's `command_from`, as a play does), at no more than
//! their motors' speed, every [`STEP`]; at each step the robot's balance and its arms'
//! contacts with its body are checked. What `choreo check --body`, `choreo motion --body`
//! and `choreo plot --body` report.

use choreo_motion::motion::{Motion, made_for, timelines};
use choreo_robot::Model;

use crate::balance::{Balance, Fall, STEP};
use crate::collision::contacts;
use crate::floor::Floor;
use crate::kinematics::Frames;
use crate::pose::Pose;
use crate::speed::follow;
use crate::stance::Stance;
use crate::tip::{Tip, Tipped};
use std::collections::HashMap;
use std::rc::Rc;

/// A key is reported late past this much (s): one frame at 25 fps.
pub const LATE: f64 = 0.04;

/// How long the check goes on after the last key (s): a fall comes once the motion stops.
const SETTLE: f64 = 0.3;

/// Every how many steps a robot down on the floor is settled again, and may rise: every
/// 40 ms, a frame at 25 fps (the floor's model is quasi-static: a finer step tells nothing
/// more, and the floor's settling costs as much as a stance).
const DOWN_STEPS: usize = 4;

/// The knee bend (rad) a robot lying must pass to draw its feet under it and rise: a right
/// angle (every getting-up motion of Choregraphe's library goes past 95°; 66 of the
/// corpus's 547 timelines reach it).
pub const FOLDED: f64 = std::f64::consts::FRAC_PI_2;

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
    /// A getting-up motion the model cannot follow: it ends standing, yet from no start does
    /// the body get onto its feet (docs/motion.md, what the body model is not). Said of the
    /// starts it leaves down without a fall, the lying ones too, so that a check's silence
    /// never passes for "it gets up".
    StaysDown {
        /// The timeline's last frame, where it means the robot to stand.
        frame: f64,
    },
}

impl Finding {
    /// The timeline frame it is at.
    pub fn frame(&self) -> f64 {
        match self {
            Finding::Fall { frame, .. }
            | Finding::Late { frame, .. }
            | Finding::Collision { frame, .. }
            | Finding::StaysDown { frame } => *frame,
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
            Finding::StaysDown { frame } => format!(
                "a getting-up motion the body model cannot follow: its pose at {} stands, \
                 but the model leaves the robot on the floor (docs/motion.md, what the body \
                 model is not)",
                at(*frame)
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

/// Where a judged timeline starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// On its feet (a Standing or Crouching posture of the library).
    Standing,
    /// Lying on its back (LyingBack: where a fall backwards leaves it), whatever its joints
    /// say: a T-pose on the back is a standing robot's pose too.
    LyingBack,
    /// Lying on its belly (LyingBelly).
    LyingBelly,
}

impl Start {
    /// The start of a library posture: its family's.
    pub fn of(model: Model, posture: &str) -> Start {
        let family = model
            .postures()
            .into_iter()
            .find(|p| p.name == posture)
            .map(|p| p.family);
        match family {
            Some("LyingBack") => Start::LyingBack,
            Some("LyingBelly") => Start::LyingBelly,
            _ => Start::Standing,
        }
    }
}

/// A timeline judged from one start pose.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The library postures it starts from (several when the timeline sets every joint
    /// they differ in: one judgement for all).
    pub postures: Vec<&'static str>,
    /// Where it starts.
    pub start: Start,
    /// When (s) the robot first rose onto its feet from the floor (from a lying start, or
    /// after it sat, knelt or leant on its hands): a getting-up motion's moment.
    pub got_up: Option<f64>,
    /// What was found, in time order (a fall ends the check).
    pub findings: Vec<Finding>,
    /// The balance over time.
    pub path: Path,
}

/// Judges `motion` played from `posture` (a posture of the library; None for one the model
/// does not have), the joints it animates where its first frame puts them (the robot is
/// where its author left it: a dance's first pose is reached before the dance). Balance is
/// judged while the robot stands on its feet: from the start if it does (a lying posture's
/// start never does), and again once it rises onto them from the floor, where it rests as
/// [`Floor`] says while it sits, kneels, leans on its hands or lies.
pub fn check(motion: &Motion, posture: &'static str) -> Option<Report> {
    let start = start_pose(motion, posture)?;
    let from = Start::of(motion.robot, posture);
    judge(
        motion,
        vec![(vec![posture], from)],
        &start,
        &mut Asked::default(),
    )
    .pop()
}

/// Judges `motion` from every start posture of [`start_postures`], once per distinct start
/// pose and [`Start`]. A lying start is reported only when the robot gets up from it: a
/// timeline that never does (a dance) is one for a standing robot. One that never bends a
/// knee past [`FOLDED`] cannot (a robot lying rises by drawing its feet under it), and is
/// not judged lying at all.
pub fn check_all(motion: &Motion) -> Vec<Report> {
    let model = motion.robot;
    let folds_legs = motion.curves.iter().any(|c| {
        c.actuator.ends_with("KneePitch") && c.keys().iter().any(|k| k.value * c.scale >= FOLDED)
    });
    // The distinct start poses, with the starts from each.
    type Starts = Vec<(Vec<&'static str>, Start)>;
    let mut poses: Vec<(Vec<f64>, Starts)> = Vec::new();
    for posture in start_postures(model) {
        let from = Start::of(model, posture);
        if from != Start::Standing && !folds_legs {
            continue;
        }
        let Some(start) = start_pose(motion, posture) else {
            continue;
        };
        let starts = match poses
            .iter_mut()
            .find(|(pose, _)| pose.iter().zip(&start).all(|(a, b)| (a - b).abs() < 1e-9))
        {
            Some((_, starts)) => starts,
            None => {
                poses.push((start, Vec::new()));
                let Some((_, starts)) = poses.last_mut() else {
                    continue;
                };
                starts
            }
        };
        match starts.iter_mut().find(|(_, f)| *f == from) {
            Some((postures, _)) => postures.push(posture),
            None => starts.push((vec![posture], from)),
        }
    }
    let mut asked = Asked::default();
    let mut reports: Vec<Report> = poses
        .into_iter()
        .flat_map(|(pose, starts)| judge(motion, starts, &pose, &mut asked))
        .collect();
    // A motion that ends standing but that the model never brings onto its feet from
    // any start: said of each start it leaves down without a fall (of a lying one only
    // when no standing start played it on its feet: then it is a getting-up motion).
    if folds_legs && reports.iter().all(|r| r.got_up.is_none()) && ends_standing(motion) {
        let on_feet_at_end = |r: &Report| r.path.com.last().is_some_and(Option::is_some);
        let fell = |r: &Report| r.findings.iter().any(|f| matches!(f, Finding::Fall { .. }));
        let played_standing = reports
            .iter()
            .any(|r| r.start == Start::Standing && on_feet_at_end(r));
        let frame = f64::from(motion.end_frame());
        for r in &mut reports {
            if !fell(r) && !on_feet_at_end(r) && (r.start == Start::Standing || !played_standing) {
                r.findings.push(Finding::StaysDown { frame });
            }
        }
    }
    let said = |r: &Report| {
        r.findings
            .iter()
            .any(|f| matches!(f, Finding::StaysDown { .. }))
    };
    reports.retain(|r| r.start == Start::Standing || r.got_up.is_some() || said(r));
    reports
}

/// Whether the pose of `motion`'s last frame (StandInit's for what it does not animate)
/// stands: on its feet, its CoM above them.
fn ends_standing(motion: &Motion) -> bool {
    let Some(pose) = pose_at(motion, "StandInit", f64::from(motion.end_frame())) else {
        return false;
    };
    let stance = Stance::of(&Frames::new(motion.robot, &pose));
    stance.standing && stance.margin([stance.com[0], stance.com[1]]) > 0.0
}

/// The joints at the start: `posture`'s, those `motion` animates where its first frame puts
/// them.
fn start_pose(motion: &Motion, posture: &str) -> Option<Vec<f64>> {
    pose_at(motion, posture, f64::from(motion.start))
}

/// `posture`'s joints, those `motion` animates where `frame` puts them.
fn pose_at(motion: &Motion, posture: &str, frame: f64) -> Option<Vec<f64>> {
    let model = motion.robot;
    let mut pose = model.posture(posture)?;
    for (name, value) in motion.values_at(frame) {
        if let Some(i) = model.joint_index(name) {
            pose[i] = value;
        }
    }
    Some(pose)
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

/// `p` (ground x, y of a moment) on the floor of the start, `to_start` the moment's ground
/// frame in the start's.
fn on_floor(to_start: &Pose, p: [f64; 2]) -> [f64; 2] {
    let q = to_start.apply([p[0], p[1], 0.0]);
    [q[0], q[1]]
}

/// Where the robot is, for its balance.
#[derive(Debug, Clone, PartialEq)]
enum Place {
    /// On its feet: its balance is judged.
    Feet,
    /// On the floor (sitting, kneeling, on its hands, lying), resting as [`Floor`] says: not
    /// judged until it rests on its soles alone, its legs standing and its CoM above its feet.
    Down(Floor),
    /// Lying from the start, the floor's up this (FRAME_TORSO): laid down at the first step.
    Lying([f64; 3]),
    /// Tipping over an edge of its feet since the balance said it falls (with what it stood
    /// on): it falls unless a limb or the pelvis catches it ([`Tip`]).
    Tipping(Tip, &'static str),
}

/// The balance of a timeline being judged: how it stands at each step while it stands on
/// its supports, and where on the floor of the start.
struct Standing {
    balance: Balance,
    place: Place,
    /// When it first rose onto its feet from the floor.
    got_up: Option<f64>,
    /// The stance of the last step.
    last: Option<Rc<Stance>>,
    /// The stance of the last step on its feet, and `to_start` then.
    on_feet: Option<(Rc<Stance>, Pose)>,
    /// The ground frame of the moment in that of the start (see `ground_moved`).
    to_start: Pose,
    legs: &'static [usize],
    /// The legs' angles at the last step.
    leg_angles: Vec<f64>,
}

impl Standing {
    fn new(model: Model, start: Start) -> Standing {
        let legs = crate::stance::leg_joints(model);
        Standing {
            balance: Balance::new(),
            place: match start {
                Start::Standing => Place::Feet,
                // On the back, the torso's back is on the floor: up is its x.
                Start::LyingBack => Place::Lying([1.0, 0.0, 0.0]),
                Start::LyingBelly => Place::Lying([-1.0, 0.0, 0.0]),
            },
            got_up: None,
            last: None,
            on_feet: None,
            to_start: Pose::IDENTITY,
            legs,
            leg_angles: Vec::with_capacity(legs.len()),
        }
    }

    /// `p` on the floor of the start.
    fn on_start(&self, p: [f64; 2]) -> [f64; 2] {
        on_floor(&self.to_start, p)
    }

    /// Step `k` (at `t`) with the joints at `frames` (`still`: where they were at the last
    /// step): its CoM and ZMP on the floor of the start added to `path` (None while the robot
    /// is not on its feet), and its fall, with what it stood on.
    fn step(
        &mut self,
        (k, t): (usize, f64),
        frames: &Frames,
        still: bool,
        path: &mut Path,
    ) -> Option<(Fall, &'static str)> {
        // Down, the floor carries it, settled every [`DOWN_STEPS`] steps; its stance on its feet
        // matters only once it rests on its soles alone.
        if let Place::Down(floor) = &mut self.place {
            if k % DOWN_STEPS == 0 {
                floor.settle(frames);
            }
            if !floor.on_soles || k % DOWN_STEPS != 0 {
                self.last = None;
                path.com.push(None);
                path.zmp.push(None);
                return None;
            }
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
        }
        if let Place::Tipping(tip, support) = &mut self.place {
            path.com.push(None);
            path.zmp.push(None);
            return match tip.step(STEP, frames, &stance)? {
                Tipped::Fell => Some((tip.fall, *support)),
                Tipped::Caught => {
                    self.place = Place::Down(Floor::new(frames, floor_up(&stance)));
                    None
                }
            };
        }
        let com = [stance.com[0], stance.com[1]];
        let stands = stance.standing && stance.margin(com) > 0.0;
        // Down it goes when it sits, kneels or leans on its hands; a first pose that would
        // not stand (its CoM outside its feet) is not where a standing robot starts.
        let down = match &self.place {
            Place::Lying(up) => Some(*up),
            Place::Feet if !stance.standing || (k == 0 && !stands) => Some(floor_up(&stance)),
            _ => None,
        };
        if let Some(up) = down {
            self.place = Place::Down(Floor::new(frames, up));
        }
        if let Place::Down(floor) = &self.place
            && floor.on_soles
            && stands
        {
            // Up on its feet: what tipped it before says nothing of how it stands now.
            self.balance = Balance::new();
            self.got_up.get_or_insert(t);
            self.place = Place::Feet;
        }
        if self.place != Place::Feet {
            path.com.push(None);
            path.zmp.push(None);
            return None;
        }
        self.on_feet = Some((Rc::clone(&stance), self.to_start));
        let support = stance.support_words();
        let (check, fall) = self.balance.step(t, Rc::clone(&stance));
        path.com.push(Some(self.on_start(com)));
        path.zmp.push(check.zmp_at.map(|z| self.on_start(z)));
        if let Some(fall) = fall {
            self.place = Place::Tipping(Tip::new(fall, self.balance.tipping()), support);
        }
        None
    }

    /// The fall of a robot still tipping when the judgement ends: nothing caught it.
    fn tipping(&self) -> Option<(Fall, &'static str)> {
        match &self.place {
            Place::Tipping(tip, support) => Some((tip.fall, support)),
            _ => None,
        }
    }
}

/// The floor's up in FRAME_TORSO, as the robot stands in `stance`.
fn floor_up(stance: &Stance) -> [f64; 3] {
    let r = stance.torso.r;
    [r[2][0], r[2][1], r[2][2]]
}

/// Judges `motion` from the joints at `start`, once for each of `starts` (its postures, and
/// how the robot starts): the joints, their paths and the arms' contacts are the same for
/// all; where the robot stands and whether it falls are each start's. Balance is judged
/// while the robot stands on its feet; while it sits, kneels or lies, only the arms are.
fn judge(
    motion: &Motion,
    starts: Vec<(Vec<&'static str>, Start)>,
    start: &[f64],
    cache: &mut Asked,
) -> Vec<Report> {
    let model = motion.robot;
    let index = |name: &str| model.joint_index(name);
    let command = motion.command_from(motion.start, &|name| index(name).map(|i| start[i]));
    let fps = f64::from(motion.fps.max(1));
    let frame_of = |t: f64| f64::from(motion.start) + t * fps;
    let steps = ((command.duration() + SETTLE) / STEP).ceil() as usize + 1;
    let (paths, late) = followed(motion, &command, start, steps, cache);
    // Each start's balance, path and, once it fell, its report.
    let mut judging: Vec<(Standing, Path, Option<Report>)> = starts
        .iter()
        .map(|(_, from)| {
            let mut path = Path::default();
            path.times.reserve(steps);
            path.com.reserve(steps);
            path.zmp.reserve(steps);
            (Standing::new(model, *from), path, None)
        })
        .collect();
    // What a start found: the late keys, the collisions so far, and its fall if it fell.
    let findings_with = |collisions: &[Finding], fall: Option<(Fall, &str)>| {
        let mut findings = late.clone();
        findings.extend(collisions.iter().cloned());
        findings.extend(fall.map(|(fall, support)| Finding::Fall {
            frame: frame_of(fall.time),
            fall,
            support: support.to_string(),
        }));
        findings
    };
    let movers = crate::collision::movers(model);
    // Buffers kept across steps: a step allocates nothing it does not keep.
    let mut angles: Vec<f64> = start.to_vec();
    let mut collisions: Vec<Finding> = Vec::new();
    let mut touching: Vec<Touch> = Vec::new();
    let mut now: Vec<Touch> = Vec::new();
    let mut frames = Frames::new(model, &angles);
    for k in 0..steps {
        if judging.iter().all(|(_, _, done)| done.is_some()) {
            break;
        }
        let t = k as f64 * STEP;
        for (a, p) in angles.iter_mut().zip(&paths) {
            *a = p[k];
        }
        // Only the joints that moved since the last step are computed again.
        frames.move_to(&angles);
        let moved = |i: usize| k == 0 || paths[i][k] != paths[i][k - 1];
        let still = !(0..paths.len()).any(moved);
        // The arms and the body where they were: the same contacts.
        let shapes_still = k > 0 && !movers.iter().any(|&i| moved(i));
        record_contacts(
            &frames,
            shapes_still,
            frame_of(t),
            &mut touching,
            &mut now,
            &mut collisions,
        );
        for ((standing, path, done), from) in judging.iter_mut().zip(&starts) {
            if done.is_some() {
                continue;
            }
            path.times.push(t);
            if let Some(fall) = standing.step((k, t), &frames, still, path) {
                let findings = findings_with(&collisions, Some(fall));
                *done = Some(report_of(from, standing, std::mem::take(path), findings));
            }
        }
    }
    judging
        .into_iter()
        .zip(&starts)
        .map(|((standing, path, done), from)| {
            done.unwrap_or_else(|| {
                // Still tipping at the end: nothing caught it.
                let findings = findings_with(&collisions, standing.tipping());
                report_of(from, &standing, path, findings)
            })
        })
        .collect()
}

/// A start's report: its findings in frame order, and the support polygon it ended on.
fn report_of(
    (postures, from): &(Vec<&'static str>, Start),
    standing: &Standing,
    mut path: Path,
    mut findings: Vec<Finding>,
) -> Report {
    if let Some((stance, to_start)) = &standing.on_feet {
        path.last_polygon = stance
            .polygon
            .iter()
            .map(|&p| on_floor(to_start, p))
            .collect();
    }
    findings.sort_by(|a, b| a.frame().total_cmp(&b.frame()));
    Report {
        postures: postures.clone(),
        start: *from,
        got_up: standing.got_up,
        findings,
        path,
    }
}

/// The contacts between the arms and the body at this step (the last step's when no arm
/// moved, `shapes_still`): a new one is a collision found at `frame`; one that goes on
/// deepens its collision.
fn record_contacts(
    frames: &Frames,
    shapes_still: bool,
    frame: f64,
    touching: &mut Vec<Touch>,
    now: &mut Vec<Touch>,
    collisions: &mut Vec<Finding>,
) {
    now.clear();
    let found = if shapes_still {
        Vec::new()
    } else {
        contacts(frames, None)
    };
    if shapes_still {
        now.extend_from_slice(touching);
    }
    for contact in found {
        let key = (contact.arm, contact.body);
        if !touching.contains(&key) {
            collisions.push(Finding::Collision {
                arm: format!("{}.{}", key.0.0, key.0.1),
                body: key.1.to_string(),
                frame,
                depth: contact.depth,
            });
        } else if let Some(Finding::Collision { depth, .. }) =
            collisions.iter_mut().rev().find(|f| {
                matches!(f, Finding::Collision { arm, body, .. }
                    if *arm == format!("{}.{}", key.0.0, key.0.1) && body == key.1)
            })
        {
            *depth = depth.max(contact.depth);
        }
        now.push(key);
    }
    std::mem::swap(touching, now);
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
/// standing (the fall manager works only then), and the lying ones a fall leaves the robot
/// in, which getting-up motions start from.
pub fn start_postures(model: Model) -> Vec<&'static str> {
    model
        .postures()
        .into_iter()
        .filter(|p| matches!(p.family, "Standing" | "Crouching") || p.family.starts_with("Lying"))
        .map(|p| p.name)
        .collect()
}
