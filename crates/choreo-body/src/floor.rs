//! The robot down on the floor (sitting, kneeling, on its hands, lying): a rigid body
//! resting on a flat floor on the points of its body (its soles' corners and the touch
//! points of `data/body.txt`), quasi-statically. At each step the floor, as it was, is
//! brought up to the body's lowest point; the body then tips about what touches, toward its
//! centre of mass, until that rests above the polygon of what touches (a point, then an
//! edge, then a face): as a body on a table settles when it moves slowly. It is on its
//! feet again once it rests on its soles alone. No dynamics: a body on the floor moving
//! slowly enough for its weight to settle at every step is what a getting-up motion does,
//! and a fall does not (the model follows the robot after a fall no more than before).

use crate::kinematics::{Frames, indices};
use crate::stance::{CONTACT, cross, dot, hull_into, margin, sub, unit};

/// Points this near the lowest (m) touch the floor with it, to rounding.
const ON: f64 = 1e-7;

/// The most turns one settling takes (a point, an edge, a face: three, each further one a
/// roll over an edge): a bound against rounding that never reaches it.
const TURNS: usize = 16;

/// The robot resting on the floor.
#[derive(Debug, Clone, PartialEq)]
pub struct Floor {
    /// The floor's up in FRAME_TORSO.
    pub up: [f64; 3],
    /// Whether every point within [`CONTACT`] of the floor is a support's (a sole's corner).
    pub on_soles: bool,
    /// Its points in FRAME_TORSO, supports first (kept, as the buffers below: a step
    /// allocates nothing).
    points: Vec<[f64; 3]>,
    flat: Vec<[f64; 2]>,
    polygon: Vec<[f64; 2]>,
}

impl Floor {
    /// The robot at `frames` laid on a floor whose up (FRAME_TORSO) is `up`, and settled.
    pub fn new(frames: &Frames, up: [f64; 3]) -> Floor {
        let mut floor = Floor {
            up: unit(up),
            on_soles: false,
            points: Vec::new(),
            flat: Vec::new(),
            polygon: Vec::new(),
        };
        floor.settle(frames);
        floor
    }

    /// Rests the robot at `frames` on the floor as it was, tipping it until it is still.
    pub fn settle(&mut self, frames: &Frames) {
        let model = frames.model();
        let body = model.body();
        let at = indices(model);
        self.points.clear();
        for (s, &i) in body.supports().iter().zip(&at.supports) {
            self.points.push(frames.frame_at(i).apply(s.point));
        }
        for (s, &i) in body.touches().iter().zip(&at.touches) {
            self.points.push(frames.frame_at(i).apply(s.point));
        }
        let com = frames.com();
        for _ in 0..TURNS {
            let Some((pivot, toward)) = self.tip(com) else {
                break;
            };
            // Turned by θ toward the CoM, the floor's up is `up cos θ − toward sin θ`; a
            // point at height a and b ahead of the pivot (toward the CoM) meets the floor at
            // θ = atan2(a, b). The first that does is the next support.
            let first = self
                .points
                .iter()
                .filter_map(|p| {
                    let d = sub(*p, pivot);
                    let (a, b) = (dot(d, self.up), dot(d, toward));
                    (b > ON).then(|| a.max(0.0).atan2(b))
                })
                .filter(|&angle| angle > 0.0)
                .min_by(f64::total_cmp);
            let Some(angle) = first else {
                break;
            };
            let (s, c) = angle.sin_cos();
            self.up = unit([0, 1, 2].map(|i| self.up[i] * c - toward[i] * s));
        }
        let supports = body.supports().len();
        let low = self.lowest();
        self.on_soles = self
            .points
            .iter()
            .enumerate()
            .all(|(m, p)| m < supports || dot(*p, self.up) - low >= CONTACT);
    }

    /// The points touching the floor as last settled, within [`CONTACT`] (their names in
    /// `data/body.txt`: `LFoot` for a corner of the left sole, `LBack`, `Face`, ...).
    pub fn touching(&self, frames: &Frames) -> Vec<&'static str> {
        let body = frames.model().body();
        let low = self.lowest();
        let mut out: Vec<&'static str> = body
            .supports()
            .iter()
            .chain(body.touches())
            .zip(&self.points)
            .filter(|(_, p)| dot(**p, self.up) - low < CONTACT)
            .map(|(s, _)| s.name)
            .collect();
        out.dedup();
        out
    }

    /// The height of the lowest point along the floor's up.
    fn lowest(&self) -> f64 {
        self.points
            .iter()
            .map(|p| dot(*p, self.up))
            .fold(f64::INFINITY, f64::min)
    }

    /// Where the body tips, if it does: a point of the axis it turns about (on the floor),
    /// and the direction along the floor toward its CoM, square to that axis. None when the
    /// CoM is above the polygon of the points within [`CONTACT`] of the floor.
    fn tip(&mut self, com: [f64; 3]) -> Option<([f64; 3], [f64; 3])> {
        let up = self.up;
        let low = self.lowest();
        // The floor's own axes, to measure on it.
        let x = unit(cross(
            up,
            if up[2].abs() < 0.9 {
                [0.0, 0.0, 1.0]
            } else {
                [1.0, 0.0, 0.0]
            },
        ));
        let y = cross(up, x);
        let flat = |p: [f64; 3]| [dot(p, x), dot(p, y)];
        let c = flat(com);
        // The polygon of the points within `near` of the floor, on it.
        let polygon_within = |floor: &mut Floor, near: f64| {
            floor.flat.clear();
            floor.flat.extend(
                floor
                    .points
                    .iter()
                    .filter(|p| dot(**p, up) - low < near)
                    .map(|p| flat(*p)),
            );
            hull_into(&mut floor.flat, &mut floor.polygon);
        };
        polygon_within(self, CONTACT);
        if margin(&self.polygon, c) >= 0.0 {
            return None;
        }
        // It tips about what touches exactly, where it is nearest the CoM: an edge of their
        // polygon the CoM is beyond (its foot on the edge), else a corner.
        polygon_within(self, ON);
        let on_floor = |q: [f64; 2]| {
            let mut p = [0.0; 3];
            for i in 0..3 {
                p[i] = q[0] * x[i] + q[1] * y[i] + low * up[i];
            }
            p
        };
        let along = |v: [f64; 2]| [0, 1, 2].map(|i| v[0] * x[i] + v[1] * y[i]);
        let n = self.polygon.len();
        let mut best: Option<(f64, [f64; 2], [f64; 2])> = None;
        for i in 0..n {
            let (a, b) = (self.polygon[i], self.polygon[(i + 1) % n]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len2 = ex * ex + ey * ey;
            if len2 <= 0.0 {
                continue;
            }
            let s = ((c[0] - a[0]) * ex + (c[1] - a[1]) * ey) / len2;
            // Counter-clockwise: outside is to the edge's right (for two points, either).
            let out = (ex * (c[1] - a[1]) - ey * (c[0] - a[0])) / len2.sqrt();
            if !(0.0..=1.0).contains(&s) || (n > 2 && out > 0.0) {
                continue;
            }
            let foot = [a[0] + s * ex, a[1] + s * ey];
            let d = (c[0] - foot[0]).hypot(c[1] - foot[1]);
            if best.as_ref().is_none_or(|(b, _, _)| d < *b) && d > 0.0 {
                best = Some((d, foot, [c[0] - foot[0], c[1] - foot[1]]));
            }
        }
        let (foot, toward) = match best {
            Some((_, foot, toward)) => (foot, toward),
            None => {
                let corner = self.polygon.iter().copied().min_by(|p, q| {
                    let d = |r: &[f64; 2]| (r[0] - c[0]).hypot(r[1] - c[1]);
                    d(p).total_cmp(&d(q))
                })?;
                (corner, [c[0] - corner[0], c[1] - corner[1]])
            }
        };
        Some((on_floor(foot), unit(along(toward))))
    }
}
