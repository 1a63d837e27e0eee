//! How the robot stands: which of its supports touch the ground, the support polygon they
//! make, and where the torso and the centre of mass are above it. NAO stands on the sole
//! that leaves the other foot highest (a foot flat on the floor; the other touches where its
//! corners come within [`CONTACT`] of the floor); Pepper on its three wheels.

use crate::kinematics::Frames;
use crate::pose::Pose;

/// A support point this close to the floor (m) touches it.
pub const CONTACT: f64 = 0.005;

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
}

impl Stance {
    /// How the robot whose joints are at `frames` stands.
    pub fn of(frames: &Frames) -> Stance {
        let supports = frames.model().body().supports();
        let mut names: Vec<&'static str> = Vec::new();
        for s in supports {
            if !names.contains(&s.name) {
                names.push(s.name);
            }
        }
        let ground_of = |name: &str| -> Pose {
            let points: Vec<_> = supports.iter().filter(|s| s.name == name).collect();
            let n = points.len().max(1) as f64;
            let mut centre = [0.0; 3];
            for p in &points {
                for (c, v) in centre.iter_mut().zip(p.point) {
                    *c += v / n;
                }
            }
            let joint = points.first().and_then(|p| p.joint);
            let frame = frames.frame(joint);
            // The support's own frame, moved to its centre: its inverse maps the torso's
            // points onto the floor.
            Pose {
                r: frame.r,
                t: frame.apply(centre),
            }
            .inverse()
        };
        let height = |ground: &Pose, name: &str| -> f64 {
            supports
                .iter()
                .filter(|s| s.name != name)
                .map(|s| ground.apply(frames.point(s.joint, s.point))[2])
                .fold(f64::INFINITY, f64::min)
        };
        // The support that leaves the others highest stands flat (the first on a tie).
        let mut best: Option<(f64, Pose)> = None;
        for name in &names {
            let ground = ground_of(name);
            let h = height(&ground, name);
            if best.as_ref().is_none_or(|(b, _)| h > *b + 1e-12) {
                best = Some((h, ground));
            }
        }
        let floor = best.map_or(Pose::IDENTITY, |(_, g)| g);
        let mut on_ground = Vec::new();
        let mut touching = Vec::new();
        for s in supports {
            let p = floor.apply(frames.point(s.joint, s.point));
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
        let torso = Pose::at([-middle[0], -middle[1], 0.0]).then(&floor);
        let polygon = hull(
            touching
                .iter()
                .map(|(_, p)| [p[0] - middle[0], p[1] - middle[1]])
                .collect(),
        );
        Stance {
            torso,
            on_ground,
            polygon,
            com: torso.apply(frames.com()),
        }
    }

    /// How far the point `p` (ground x, y) is inside the support polygon (m; negative:
    /// outside, by that distance).
    pub fn margin(&self, p: [f64; 2]) -> f64 {
        margin(&self.polygon, p)
    }
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
