//! How the robot stands: which of its supports touch the ground, the support polygon they
//! make, and where the torso and the centre of mass are above it ([`Stance::of`]: a rigid
//! body resting on the face of its supports' hull under its centre of mass; a point within
//! [`CONTACT`] of the floor touches it). NAO stands on its soles, Pepper on its wheels.

use std::rc::Rc;

use choreo_robot::Model;

use crate::kinematics::{Frames, indices};
use crate::per_model::PerModel;
use crate::pose::Pose;

/// A support point this close to the floor (m) counts in the support polygon: one the
/// robot rocks onto before it tips over (a sole's corner 1 cm up is 3.6° of rocking away on
/// a 16 cm foot; **inference**).
pub const CONTACT: f64 = 0.01;

/// A point of the body this far below the floor of the feet (m) means the robot does not
/// stand on them: it sits, kneels or leans on its hands.
pub const BELOW: f64 = 0.01;

/// The robot on the floor, in the ground frame: z up, x along the forward direction of the
/// support it stands flat on, the origin on the floor amid the touching supports' centres
/// (between NAO's feet; one foot's centre on one leg). What it rests on is its [`Ground`]
/// (read through it: `stance.polygon`), shared with the stances of the steps that move
/// only the arms, the head or the hip's CoM.
#[derive(Debug, Clone, PartialEq)]
pub struct Stance {
    ground: Rc<Ground>,
    /// The centre of mass.
    pub com: [f64; 3],
    /// Whether it stands on its supports: no other part of the body is below their floor
    /// (NAOqi's fall manager works only then).
    pub standing: bool,
    /// [`Stance::com_on`] of each of `feet`: the balance reads it for every stance of its
    /// window at every step.
    coms_on: Vec<[f64; 3]>,
}

/// What a stance rests on, which the legs decide.
#[derive(Debug, Clone, PartialEq)]
pub struct Ground {
    /// FRAME_TORSO in the ground frame.
    pub torso: Pose,
    /// The supports touching the floor (`LFoot`, `RFoot`, `Base`).
    pub on_ground: Vec<&'static str>,
    /// The support polygon: the convex hull of the touching points, counter-clockwise.
    pub polygon: Vec<[f64; 2]>,
    /// Per support touching the floor, where its own floor frame (its frame moved to its
    /// centre) is in the ground frame: a foot that stays flat is a frame fixed in the world,
    /// in which the CoM's motion is measured (the ground frame moves when a foot lifts).
    pub feet: Vec<(&'static str, Pose)>,
    /// The supports flat on the floor (every point of theirs touching): a foot touching by a
    /// toe or an edge only may still turn.
    pub flat: Vec<&'static str>,
    /// The three support points (indices in the body's supports) whose plane is the floor.
    pub face: Option<[usize; 3]>,
    /// Whether the legs are nearer a standing posture than a sitting one ([`on_its_legs`]).
    legs_stand: bool,
}

impl std::ops::Deref for Stance {
    type Target = Ground;

    fn deref(&self) -> &Ground {
        &self.ground
    }
}

impl Stance {
    /// How the robot whose joints are at `frames` stands: as a rigid body on a flat floor,
    /// it rests on a face of the convex hull of its support points (a plane through three
    /// of them with none below it), tilted at most [`MAX_TILT`] from its feet's up. Flat on
    /// one support (a foot, Pepper's base) if it can be and its centre of mass is above the
    /// polygon then (the one holding it best); else on the face that holds the CoM best (NAO
    /// rolls onto the foot under it; with its feet not in one plane, it leans on an edge).
    pub fn of(frames: &Frames) -> Stance {
        Stance::near(frames, None)
    }

    /// [`Stance::of`], trying first the face the robot stood on a moment ago (`before`'s):
    /// while it still holds the CoM, the robot stays on it, and the search is skipped.
    pub fn near(frames: &Frames, before: Option<&Stance>) -> Stance {
        let model = frames.model();
        let supports = model.body().supports();
        let at = &indices(model).supports;
        let groups = groups(model);
        let points: Vec<[f64; 3]> = supports
            .iter()
            .zip(at)
            .map(|(s, &i)| frames.frame_at(i).apply(s.point))
            .collect();
        // Up and forward as the supports' frames see them (their mean z and x axes; x of
        // those touching the floor, once known: `of` the groups marked).
        let axis =
            |column: usize, of: Option<&[bool]>| summed_axis(frames, at, &groups.of, column, of);
        let (up, ahead) = (unit(axis(2, None)), axis(0, None));
        // Each point's own support's up: a floor must lie nearly flat under one of them.
        let ups = support_ups(frames, at);
        let floor_of = |triple: [usize; 3], ahead: [f64; 3]| face(&points, &ups, triple, up, ahead);
        let com = frames.com();
        // Buffers of the judgement below, kept across the faces tried.
        let (mut touching, mut polygon) = (
            Vec::with_capacity(points.len()),
            Vec::with_capacity(points.len() + 1),
        );
        // A face's floor (its x along `ahead`) and how well it holds the CoM.
        let mut judge = |triple: [usize; 3]| -> Option<(f64, Pose)> {
            let floor = floor_of(triple, ahead)?;
            touching.clear();
            touching.extend(points.iter().filter_map(|p| {
                let q = floor.apply(*p);
                (q[2] < CONTACT).then_some([q[0], q[1]])
            }));
            hull_into(&mut touching, &mut polygon);
            let c = floor.apply(com);
            Some((margin(&polygon, [c[0], c[1]]), floor))
        };
        let better = |best: &Option<(f64, [usize; 3], Pose)>, m: f64| {
            best.as_ref().is_none_or(|(b, _, _)| m > b + 1e-12)
        };
        // Flat on one support: the first three points of each; or where it stood.
        let mut best: Option<(f64, [usize; 3], Pose)> = None;
        if let Some(triple) = before.and_then(|b| b.face)
            && let Some((m, floor)) = judge(triple)
            && m >= 0.0
        {
            best = Some((m, triple, floor));
        }
        // While the face it stood on holds the CoM, it stays on it: no other face is tried.
        if best.is_none() {
            for group in &groups.list {
                if let [a, b, c, ..] = group.members[..]
                    && best.as_ref().is_none_or(|(_, t, _)| *t != [a, b, c])
                    && let Some((m, floor)) = judge([a, b, c])
                    && m >= 0.0
                    && better(&best, m)
                {
                    best = Some((m, [a, b, c], floor));
                }
            }
        }
        if best.is_none() {
            let n = points.len();
            for i in 0..n {
                for j in i + 1..n {
                    for k in j + 1..n {
                        if let Some((m, floor)) = judge([i, j, k])
                            && better(&best, m)
                        {
                            best = Some((m, [i, j, k], floor));
                        }
                    }
                }
            }
        }
        let face = best.as_ref().map(|(_, t, _)| *t);
        let floor = best.and_then(|(_, triple, rough)| {
            // Forward along the supports that touch.
            let mut touch = vec![false; groups.list.len()];
            for (k, p) in points.iter().enumerate() {
                if rough.apply(*p)[2] < CONTACT {
                    touch[groups.of[k]] = true;
                }
            }
            floor_of(triple, axis(0, Some(&touch)))
        });
        match floor {
            Some(floor) => Stance::on(frames, &floor, com, face),
            None => {
                let floor = groups
                    .list
                    .first()
                    .map_or(Pose::IDENTITY, |g| floor_under(frames, g));
                Stance::on(frames, &floor, com, None)
            }
        }
    }

    /// The stance with `floor` (FRAME_TORSO to a frame whose z = 0 is the floor), the
    /// centre of mass at `com` (FRAME_TORSO), on the support points `face`.
    fn on(frames: &Frames, floor: &Pose, com: [f64; 3], face: Option<[usize; 3]>) -> Stance {
        let model = frames.model();
        let supports = model.body().supports();
        let groups = groups(model);
        // The touching points by group, and the groups touching in the order met.
        let mut on_ground: Vec<usize> = Vec::with_capacity(groups.list.len());
        let mut touching: Vec<(usize, [f64; 2])> = Vec::with_capacity(supports.len());
        for (k, (s, &i)) in supports.iter().zip(&indices(model).supports).enumerate() {
            let p = floor.apply(frames.frame_at(i).apply(s.point));
            if p[2] < CONTACT {
                let g = groups.of[k];
                touching.push((g, [p[0], p[1]]));
                if !on_ground.contains(&g) {
                    on_ground.push(g);
                }
            }
        }
        // The origin: the mean of the touching supports' centres (between the feet, as
        // FRAME_ROBOT is between ALMotion's leg effectors).
        let mut middle = [0.0; 2];
        let n = on_ground.len() as f64;
        for &g in &on_ground {
            let group = &groups.list[g];
            let p = floor.apply(frames.frame_at(group.joint).apply(group.centre));
            middle[0] += p[0] / n;
            middle[1] += p[1] / n;
        }
        let torso = Pose::at([-middle[0], -middle[1], 0.0]).then(floor);
        let polygon = hull(
            touching
                .iter()
                .map(|(_, p)| [p[0] - middle[0], p[1] - middle[1]])
                .collect(),
        );
        let legs_stand = on_its_legs(frames);
        let standing = legs_stand && above_floor(frames, &torso);
        let feet: Vec<(&'static str, Pose)> = on_ground
            .iter()
            .map(|&g| {
                let group = &groups.list[g];
                (
                    group.name,
                    torso.then(&floor_under(frames, group).inverse()),
                )
            })
            .collect();
        let flat = on_ground
            .iter()
            .filter(|&&g| {
                touching.iter().filter(|(h, _)| *h == g).count() == groups.list[g].members.len()
            })
            .map(|&g| groups.list[g].name)
            .collect();
        let com = torso.apply(com);
        Stance {
            coms_on: coms_on(&feet, com),
            com,
            standing,
            ground: Rc::new(Ground {
                torso,
                on_ground: on_ground.iter().map(|&g| groups.list[g].name).collect(),
                polygon,
                feet,
                flat,
                face,
                legs_stand,
            }),
        }
    }

    /// This stance with the joints at `frames`, the legs unchanged: the same floor and
    /// supports, the centre of mass and the touch points where they are now.
    pub fn moved(&self, frames: &Frames) -> Stance {
        let com = self.torso.apply(frames.com());
        Stance {
            com,
            standing: self.legs_stand && above_floor(frames, &self.torso),
            coms_on: coms_on(&self.feet, com),
            ground: Rc::clone(&self.ground),
        }
    }

    /// What it stands on, for a person: "feet", "left foot", "right foot", "base".
    pub fn support_words(&self) -> &'static str {
        match self.on_ground.as_slice() {
            ["LFoot"] => "left foot",
            ["RFoot"] => "right foot",
            ["Base"] => "base",
            _ => "feet",
        }
    }

    /// The CoM in the floor frame of support `name`, if it touches the floor.
    pub fn com_on(&self, name: &str) -> Option<[f64; 3]> {
        let i = self.feet.iter().position(|(n, _)| same(n, name))?;
        self.coms_on.get(i).copied()
    }

    /// How far the point `p` (ground x, y) is inside the support polygon (m; negative:
    /// outside, by that distance).
    pub fn margin(&self, p: [f64; 2]) -> f64 {
        margin(&self.polygon, p)
    }
}

/// Whether two supports' names are the same: the names a stance holds are the body's own
/// (`&'static`), so the same name is most often the same text, found without reading it.
pub fn same(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// How far a support point may sink below a face and it still be one (m): the soles' give.
pub const GIVE: f64 = 0.001;

/// The most a floor may be tilted from the up of the support it holds most nearly flat
/// (rad): past it, no sole lies on it, and it is no face the robot stands on. Measured
/// from one support, not from the feet's mean: NAO flat on its left foot with the right
/// one rolled onto its edge stands (Tai Chi Chuan's frame 74, where the feet lie 20° apart).
pub const MAX_TILT: f64 = 10.0 * std::f64::consts::PI / 180.0;

/// FRAME_TORSO to a floor through points `ijk` of `points` (torso frame), if it is a face
/// of their hull (no point below it) tilted at most [`MAX_TILT`] from the up (`ups`, per
/// point: its support's z axis) of one of the three's supports; the normal on the side of
/// `up` (the supports' mean); x along `ahead`.
fn face(
    points: &[[f64; 3]],
    ups: &[[f64; 3]],
    [i, j, k]: [usize; 3],
    up: [f64; 3],
    ahead: [f64; 3],
) -> Option<Pose> {
    let (a, b, c) = (points[i], points[j], points[k]);
    let mut normal = cross(sub(b, a), sub(c, a));
    let length = dot(normal, normal).sqrt();
    if length < 1e-9 {
        return None;
    }
    normal = normal.map(|v| v / length);
    if dot(normal, up) < 0.0 {
        normal = normal.map(|v| -v);
    }
    if [i, j, k]
        .iter()
        .all(|&p| dot(normal, ups[p]) < MAX_TILT.cos())
    {
        return None;
    }
    if points.iter().any(|p| dot(sub(*p, a), normal) < -GIVE) {
        return None;
    }
    let along = dot(ahead, normal);
    let x = unit(sub(ahead, normal.map(|v| v * along)));
    let y = cross(normal, x);
    let r = [x, y, normal];
    let t = r.map(|row| -dot(row, a));
    Some(Pose { r, t })
}

pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = dot(v, v).sqrt();
    if n > 0.0 {
        v.map(|x| x / n)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// The centre of mass `com` (ground frame) in each of `feet`'s floor frames.
fn coms_on(feet: &[(&'static str, Pose)], com: [f64; 3]) -> Vec<[f64; 3]> {
    feet.iter()
        .map(|(_, foot)| foot.inverse().apply(com))
        .collect()
}

/// Each support point's own up: the z axis of its support's frame.
fn support_ups(frames: &Frames, at: &[Option<usize>]) -> Vec<[f64; 3]> {
    at.iter()
        .map(|&i| {
            let r = frames.frame_at(i).r;
            [r[0][2], r[1][2], r[2][2]]
        })
        .collect()
}

/// The sum of column `column` (an axis) of the frames of the support points `at`, only
/// those whose group (`group_of`) `of` marks when given.
fn summed_axis(
    frames: &Frames,
    at: &[Option<usize>],
    group_of: &[usize],
    column: usize,
    of: Option<&[bool]>,
) -> [f64; 3] {
    let mut sum = [0.0; 3];
    for (k, &i) in at.iter().enumerate() {
        if of.is_some_and(|of| !of[group_of[k]]) {
            continue;
        }
        let r = frames.frame_at(i).r;
        for (c, v) in sum.iter_mut().enumerate() {
            *v += r[c][column];
        }
    }
    sum
}

/// A model's supports by name (a foot's corners), found once.
struct Groups {
    /// Each support, in the order of their first point.
    list: Vec<Group>,
    /// Per point of `Body::supports`, its support in `list`.
    of: Vec<usize>,
}

/// One support: its points, and the centre of its sole in its joint's frame.
struct Group {
    name: &'static str,
    /// Its points' indices in `Body::supports`, in order.
    members: Vec<usize>,
    /// The joint whose frame its first point is in.
    joint: Option<usize>,
    /// The point of its sole straight below its joint (at its points' mean height): where
    /// ALMotion puts a leg's effector (NAO: FootHeight below the ankle) and Pepper's
    /// footprint, which FRAME_ROBOT lies amid. Not the middle of its points: NAO's sole
    /// reaches further ahead of the ankle than behind it, and further out than in.
    centre: [f64; 3],
}

fn groups(model: Model) -> &'static Groups {
    static MADE: PerModel<Groups> = PerModel::new();
    MADE.get(model, || {
        let supports = model.body().supports();
        let mut list: Vec<Group> = Vec::new();
        let mut of = Vec::with_capacity(supports.len());
        for (k, s) in supports.iter().enumerate() {
            let g = match list.iter().position(|g| g.name == s.name) {
                Some(g) => g,
                None => {
                    list.push(Group {
                        name: s.name,
                        members: Vec::new(),
                        joint: indices(model).supports[k],
                        centre: [0.0; 3],
                    });
                    list.len() - 1
                }
            };
            list[g].members.push(k);
            of.push(g);
        }
        for group in &mut list {
            let n = group.members.len().max(1) as f64;
            for &k in &group.members {
                group.centre[2] += supports[k].point[2] / n;
            }
        }
        Groups { list, of }
    })
}

/// FRAME_TORSO to the floor under `support` flat on it: the support's frame, moved to the
/// support's centre.
fn floor_under(frames: &Frames, support: &Group) -> Pose {
    let frame = frames.frame_at(support.joint);
    Pose {
        r: frame.r,
        t: frame.apply(support.centre),
    }
    .inverse()
}

/// Whether no touch point of the robot at `frames`, its floor at `torso`, is below the
/// floor: with its legs standing ([`on_its_legs`]), it stands on its supports.
fn above_floor(frames: &Frames, torso: &Pose) -> bool {
    let model = frames.model();
    model
        .body()
        .touches()
        .iter()
        .zip(&indices(model).touches)
        .all(|(t, &i)| torso.apply(frames.frame_at(i).apply(t.point))[2] > -BELOW)
}

/// The joints of `model`'s legs ("LLeg", "RLeg", Pepper's "Leg").
pub fn leg_joints(model: Model) -> &'static [usize] {
    &legs(model).joints
}

/// The legs' joints of a model, and each library posture's leg angles with whether it
/// stands (Standing or Crouching family), found once.
struct Legs {
    joints: Vec<usize>,
    postures: Vec<(Vec<f64>, bool)>,
}

fn legs(model: Model) -> &'static Legs {
    static MADE: PerModel<Legs> = PerModel::new();
    MADE.get(model, || {
        let joints: Vec<usize> = ["LLeg", "RLeg", "Leg"]
            .iter()
            .filter_map(|c| model.resolve(c))
            .flatten()
            .collect();
        let postures = model
            .postures()
            .iter()
            .filter_map(|p| {
                let angles = model.posture(p.name)?;
                let standing = matches!(p.family, "Standing" | "Crouching");
                Some((joints.iter().map(|&i| angles[i]).collect(), standing))
            })
            .collect();
        Legs { joints, postures }
    })
}

/// Whether the legs are nearer a standing or crouching posture of the library than a
/// sitting or lying one (the Euclidean distance of their angles): sitting down is
/// not a fall, and the fall manager sleeps then. A tie stands (lying postures have the legs
/// of StandZero).
fn on_its_legs(frames: &Frames) -> bool {
    let legs = legs(frames.model());
    let mut best = (f64::INFINITY, true);
    for (angles, standing) in &legs.postures {
        let distance = legs
            .joints
            .iter()
            .zip(angles)
            .map(|(&i, a)| (a - frames.angles()[i]).powi(2))
            .sum::<f64>();
        if distance < best.0 - 1e-9 || (distance <= best.0 + 1e-9 && *standing) {
            best = (distance, *standing);
        }
    }
    best.1
}

/// The convex hull of `points`, counter-clockwise (Andrew's monotone chain).
pub fn hull(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(points.len() + 1);
    hull_into(&mut points, &mut out);
    out
}

/// [`hull`] of `points` (sorted in place) into `out`: the lower chain, then the upper one
/// on the same stack, from the rightmost point they share.
pub(crate) fn hull_into(points: &mut Vec<[f64; 2]>, out: &mut Vec<[f64; 2]>) {
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    out.clear();
    if points.len() < 3 {
        out.extend_from_slice(points);
        return;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let turns =
        |out: &[[f64; 2]], p: [f64; 2]| cross(out[out.len() - 2], out[out.len() - 1], p) <= 0.0;
    for &p in points.iter() {
        while out.len() >= 2 && turns(out, p) {
            out.pop();
        }
        out.push(p);
    }
    // The upper chain starts at the lower's last point (the rightmost), already there.
    let base = out.len();
    for &p in points.iter().rev().skip(1) {
        while out.len() > base && turns(out, p) {
            out.pop();
        }
        out.push(p);
    }
    // Its last point is the lower chain's first.
    out.pop();
}

/// How far `p` is inside the convex polygon `polygon` (counter-clockwise): the distance to
/// its nearest edge, negative outside. A polygon of fewer than 3 points has no inside.
pub fn margin(polygon: &[[f64; 2]], p: [f64; 2]) -> f64 {
    let n = polygon.len();
    if n == 0 {
        return f64::NEG_INFINITY;
    }
    let mut inside = n >= 3;
    // The squared distance to the nearest edge (its root taken once: the root of the least
    // is the least of the roots).
    let mut nearest = f64::INFINITY;
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let (px, py) = (p[0] - a[0], p[1] - a[1]);
        if ex * py - ey * px < 0.0 {
            inside = false;
        }
        let len2 = ex * ex + ey * ey;
        let s = if len2 > 0.0 {
            ((px * ex + py * ey) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (dx, dy) = (px - s * ex, py - s * ey);
        nearest = nearest.min(dx * dx + dy * dy);
    }
    let nearest = nearest.sqrt();
    if inside { nearest } else { -nearest }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_is_the_distance_to_the_nearest_edge() {
        let square = hull(vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
            [0.5, 0.5],
        ]);
        assert_eq!(square.len(), 4);
        assert!((margin(&square, [0.5, 0.2]) - 0.2).abs() < 1e-12);
        assert!((margin(&square, [1.3, 0.5]) + 0.3).abs() < 1e-12);
        assert!((margin(&square, [-0.3, -0.4]) + 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_hull_leaves_out_inner_and_edge_points_and_turns_left() {
        // A 2 m square with a point inside, points on three edges and a corner twice: the
        // hull is its four corners, counter-clockwise from the lowest of the leftmost.
        let points = vec![
            [2.0, 2.0],
            [1.0, 1.0],
            [1.0, 0.0],
            [0.0, 1.0],
            [2.0, 0.0],
            [0.0, 2.0],
            [0.0, 0.0],
            [2.0, 1.0],
            [2.0, 2.0],
        ];
        let corners = vec![[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        assert_eq!(hull(points), corners);
        assert_eq!(
            hull(vec![[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]),
            vec![[0.0, 0.0], [1.0, 0.0]]
        );
    }
}
