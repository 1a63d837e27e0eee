//! How the robot stands: which of its supports touch the ground, the support polygon they
//! make, and where the torso and the centre of mass are above it ([`Stance::of`]: a rigid
//! body resting on the face of its supports' hull under its centre of mass; a point within
//! [`CONTACT`] of the floor touches it). NAO stands on its soles, Pepper on its wheels.

use std::sync::OnceLock;

use choreo_robot::Model;

use crate::kinematics::{Frames, indices};
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
/// (between NAO's feet; one foot's centre on one leg).
#[derive(Debug, Clone, PartialEq)]
pub struct Stance {
    /// FRAME_TORSO in the ground frame.
    pub torso: Pose,
    /// The supports touching the floor (`LFoot`, `RFoot`, `Base`).
    pub on_ground: Vec<&'static str>,
    /// The support polygon: the convex hull of the touching points, counter-clockwise.
    pub polygon: Vec<[f64; 2]>,
    /// The centre of mass.
    pub com: [f64; 3],
    /// Whether it stands on its supports: no other part of the body is below their floor
    /// (NAOqi's fall manager works only then).
    pub standing: bool,
    /// Per support touching the floor, where its own floor frame (its frame moved to its
    /// centre) is in the ground frame: a foot that stays flat is a frame fixed in the world,
    /// in which the CoM's motion is measured (the ground frame moves when a foot lifts).
    pub feet: Vec<(&'static str, Pose)>,
    /// The supports flat on the floor (every point of theirs touching): a foot touching by a
    /// toe or an edge only may still turn.
    pub flat: Vec<&'static str>,
    /// The three support points (indices in the body's supports) whose plane is the floor.
    pub face: Option<[usize; 3]>,
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
        let points: Vec<[f64; 3]> = supports
            .iter()
            .zip(at)
            .map(|(s, &i)| frames.frame_at(i).apply(s.point))
            .collect();
        // Up and forward as the supports' frames see them (their mean z and x axes; x of
        // those touching the floor, once known).
        let axis = |column: usize, names: Option<&[&str]>| {
            let mut sum = [0.0; 3];
            for (s, &i) in supports.iter().zip(at) {
                if names.is_some_and(|n| !n.contains(&s.name)) {
                    continue;
                }
                let r = frames.frame_at(i).r;
                for (k, v) in sum.iter_mut().enumerate() {
                    *v += r[k][column];
                }
            }
            sum
        };
        let (up, ahead) = (unit(axis(2, None)), axis(0, None));
        // Each point's own support's up: a floor must lie nearly flat under one of them.
        let ups: Vec<[f64; 3]> = at
            .iter()
            .map(|&i| {
                let r = frames.frame_at(i).r;
                [r[0][2], r[1][2], r[2][2]]
            })
            .collect();
        let floor_of = |triple: [usize; 3], ahead: [f64; 3]| face(&points, &ups, triple, up, ahead);
        let com = frames.com();
        let judge = |triple: [usize; 3]| -> Option<f64> {
            let floor = floor_of(triple, ahead)?;
            let touching: Vec<[f64; 2]> = points
                .iter()
                .filter_map(|p| {
                    let q = floor.apply(*p);
                    (q[2] < CONTACT).then_some([q[0], q[1]])
                })
                .collect();
            let c = floor.apply(com);
            Some(margin(&hull(touching), [c[0], c[1]]))
        };
        let better =
            |best: &Option<(f64, [usize; 3])>, m: f64| best.is_none_or(|(b, _)| m > b + 1e-12);
        // Flat on one support: the first three points of each; or where it stood.
        let mut best: Option<(f64, [usize; 3])> = None;
        if let Some(triple) = before.and_then(|b| b.face)
            && let Some(m) = judge(triple)
            && m >= 0.0
        {
            best = Some((m, triple));
        }
        // While the face it stood on holds the CoM, it stays on it: no other face is tried.
        let held = best.is_some();
        let mut seen: Vec<&str> = Vec::new();
        for (i, s) in supports.iter().enumerate() {
            if held {
                break;
            }
            if seen.contains(&s.name) {
                continue;
            }
            seen.push(s.name);
            let own: Vec<usize> = (i..supports.len())
                .filter(|&j| supports[j].name == s.name)
                .collect();
            if let [a, b, c, ..] = own[..]
                && best.is_none_or(|(_, t)| t != [a, b, c])
                && let Some(m) = judge([a, b, c])
                && m >= 0.0
                && better(&best, m)
            {
                best = Some((m, [a, b, c]));
            }
        }
        if best.is_none() {
            let n = points.len();
            for i in 0..n {
                for j in i + 1..n {
                    for k in j + 1..n {
                        if let Some(m) = judge([i, j, k])
                            && better(&best, m)
                        {
                            best = Some((m, [i, j, k]));
                        }
                    }
                }
            }
        }
        let floor = best.and_then(|(_, triple)| {
            let rough = floor_of(triple, ahead)?;
            // Forward along the supports that touch.
            let names: Vec<&str> = supports
                .iter()
                .zip(&points)
                .filter(|(_, p)| rough.apply(**p)[2] < CONTACT)
                .map(|(s, _)| s.name)
                .collect();
            floor_of(triple, axis(0, Some(&names)))
        });
        match floor {
            Some(floor) => Stance {
                face: best.map(|(_, t)| t),
                ..Stance::on(frames, &floor)
            },
            None => {
                let first = supports.first().map_or("", |s| s.name);
                Stance::on(frames, &floor_under(frames, first))
            }
        }
    }

    /// The stance with `floor` (FRAME_TORSO to a frame whose z = 0 is the floor).
    fn on(frames: &Frames, floor: &Pose) -> Stance {
        let model = frames.model();
        let supports = model.body().supports();
        let mut on_ground = Vec::new();
        let mut touching = Vec::new();
        for (s, &i) in supports.iter().zip(&indices(model).supports) {
            let p = floor.apply(frames.frame_at(i).apply(s.point));
            if p[2] < CONTACT {
                touching.push((s.name, [p[0], p[1]]));
                if !on_ground.contains(&s.name) {
                    on_ground.push(s.name);
                }
            }
        }
        // The origin: the mean of the touching supports' centres (between the feet).
        let mut middle = [0.0; 2];
        for name in &on_ground {
            let points: Vec<[f64; 2]> = touching
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, p)| *p)
                .collect();
            let n = (points.len() * on_ground.len()) as f64;
            for p in points {
                middle[0] += p[0] / n;
                middle[1] += p[1] / n;
            }
        }
        let torso = Pose::at([-middle[0], -middle[1], 0.0]).then(floor);
        let polygon = hull(
            touching
                .iter()
                .map(|(_, p)| [p[0] - middle[0], p[1] - middle[1]])
                .collect(),
        );
        let standing = stands(frames, &torso);
        let flat = |name: &str| {
            let all = supports.iter().filter(|s| s.name == name).count();
            touching.iter().filter(|(n, _)| *n == name).count() == all
        };
        let feet = on_ground
            .iter()
            .map(|name| (*name, torso.then(&floor_under(frames, name).inverse())))
            .collect();
        let flat = on_ground
            .iter()
            .copied()
            .filter(|name| flat(name))
            .collect();
        Stance {
            torso,
            on_ground,
            polygon,
            com: torso.apply(frames.com()),
            standing,
            feet,
            flat,
            face: None,
        }
    }

    /// This stance with the joints at `frames`, the legs unchanged: the same floor and
    /// supports, the centre of mass and the touch points where they are now.
    pub fn moved(&self, frames: &Frames) -> Stance {
        Stance {
            com: self.torso.apply(frames.com()),
            standing: stands(frames, &self.torso),
            ..self.clone()
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
        let (_, foot) = self.feet.iter().find(|(n, _)| *n == name)?;
        Some(foot.inverse().apply(self.com))
    }

    /// How far the point `p` (ground x, y) is inside the support polygon (m; negative:
    /// outside, by that distance).
    pub fn margin(&self, p: [f64; 2]) -> f64 {
        margin(&self.polygon, p)
    }
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

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = dot(v, v).sqrt();
    if n > 0.0 {
        v.map(|x| x / n)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// FRAME_TORSO to the floor under support `name` flat on it: the support's frame, moved to
/// the support's centre.
fn floor_under(frames: &Frames, name: &str) -> Pose {
    let points: Vec<_> = frames
        .model()
        .body()
        .supports()
        .iter()
        .filter(|s| s.name == name)
        .collect();
    let n = points.len().max(1) as f64;
    let mut centre = [0.0; 3];
    for p in &points {
        for (c, v) in centre.iter_mut().zip(p.point) {
            *c += v / n;
        }
    }
    let frame = frames.frame(points.first().and_then(|p| p.joint));
    Pose {
        r: frame.r,
        t: frame.apply(centre),
    }
    .inverse()
}

/// Whether the robot at `frames`, its floor at `torso`, stands on its supports: its legs
/// nearer a standing posture than a sitting one, no touch point below the floor.
fn stands(frames: &Frames, torso: &Pose) -> bool {
    let model = frames.model();
    on_its_legs(frames)
        && model
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
    static NAO: OnceLock<Legs> = OnceLock::new();
    static PEPPER: OnceLock<Legs> = OnceLock::new();
    let cell = match model {
        Model::Nao => &NAO,
        Model::Pepper => &PEPPER,
    };
    cell.get_or_init(|| {
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
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut lower: Vec<[f64; 2]> = Vec::new();
    for &p in &points {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<[f64; 2]> = Vec::new();
    for &p in points.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// How far `p` is inside the convex polygon `polygon` (counter-clockwise): the distance to
/// its nearest edge, negative outside. A polygon of fewer than 3 points has no inside.
pub fn margin(polygon: &[[f64; 2]], p: [f64; 2]) -> f64 {
    let n = polygon.len();
    if n == 0 {
        return f64::NEG_INFINITY;
    }
    let mut inside = n >= 3;
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
        nearest = nearest.min((dx * dx + dy * dy).sqrt());
    }
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
}
