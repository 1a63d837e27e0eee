//! A robot tipping over an edge of its feet, followed until it is over. Once the balance
//! says the robot falls (its CoM or its ZMP carried it over an edge of the support polygon),
//! the body pivots on that edge as a rigid body, as [`crate::balance`] rocks it, while its
//! joints go on as commanded. If a hand, an elbow, a knee or the pelvis (the touch points
//! of `data/body.txt` that catch) meets the floor before the body has turned [`MAX_TILT`],
//! it catches the robot: it leans on its hands, kneels or sits down, and has not fallen (a
//! frog crouch that puts its hands on the floor tips onto them). Else it falls, from the
//! moment the balance said.

use crate::balance::{Direction, Fall, pivot};
use crate::kinematics::{Frames, indices};
use crate::stance::{MAX_TILT, Stance};

/// How a tip ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tipped {
    /// A limb or the pelvis met the floor first: the robot rests on it.
    Caught,
    /// It turned past [`MAX_TILT`] with nothing to catch it: the fall is real.
    Fell,
}

/// A tip being followed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tip {
    /// The fall the balance saw begin.
    pub fall: Fall,
    /// The body's turn about the edge (rad) and its rate (rad/s).
    tilt: f64,
    rate: f64,
}

impl Tip {
    /// The tip of `fall`, the body already turned `tilt` (rad) at `rate` (rad/s) about the
    /// edge (the balance's rocking, [`crate::Balance::tipping`]).
    pub fn new(fall: Fall, (tilt, rate): (f64, f64)) -> Tip {
        Tip { fall, tilt, rate }
    }

    /// Takes the robot `dt` (s) after the last step: its joints at `frames`, `stance` how
    /// it would stand on its feet. The body turns about the edge of `stance`'s polygon, on
    /// the side it falls to, that its CoM is furthest beyond, pushed by how far beyond; how
    /// it ends, once it does (never on a polygon without an edge: the fall is then said
    /// when the judgement ends).
    pub fn step(&mut self, dt: f64, frames: &Frames, stance: &Stance) -> Option<Tipped> {
        let toward = match self.fall.direction {
            Direction::Forwards => [1.0, 0.0],
            Direction::Backwards => [-1.0, 0.0],
            Direction::Left => [0.0, 1.0],
            Direction::Right => [0.0, -1.0],
        };
        let com = [stance.com[0], stance.com[1]];
        let (outside, at, normal) = edge_beyond(&stance.polygon, com, toward)?;
        (self.tilt, self.rate) = pivot((self.tilt, self.rate), dt, outside, stance.com[2]);
        if self.tilt < 0.0 {
            // Back on its soles at the edge, the CoM still at it: it stays there (a CoM
            // that left the feet is a fall unless something catches it).
            (self.tilt, self.rate) = (0.0, 0.0);
        }
        // Turned by θ toward the normal, a point `a` up and `b` beyond the edge is
        // `a cos θ − b sin θ` above the floor.
        let (sin, cos) = self.tilt.sin_cos();
        let model = frames.model();
        let caught = model
            .body()
            .touches()
            .iter()
            .zip(&indices(model).touches)
            .filter(|(t, _)| t.catches)
            .any(|(t, &i)| {
                let p = stance.torso.apply(frames.frame_at(i).apply(t.point));
                let beyond = (p[0] - at[0]) * normal[0] + (p[1] - at[1]) * normal[1];
                p[2] * cos - beyond * sin <= 0.0
            });
        if caught {
            return Some(Tipped::Caught);
        }
        (self.tilt >= MAX_TILT).then_some(Tipped::Fell)
    }
}

/// The edge of `polygon` (counter-clockwise) facing `toward` (its outward normal within
/// 90° of it; any edge if none does) that `p` is furthest beyond: how far (m, negative
/// inside), a point of it, and its outward normal. None for a polygon without an edge.
/// The fall's direction picks the side: a ZMP that tipped the robot over its toes may leave
/// its CoM nearer a side edge.
fn edge_beyond(
    polygon: &[[f64; 2]],
    p: [f64; 2],
    toward: [f64; 2],
) -> Option<(f64, [f64; 2], [f64; 2])> {
    furthest(polygon, p, Some(toward)).or_else(|| furthest(polygon, p, None))
}

/// [`edge_beyond`] among the edges whose outward normal lies within 90° of `toward` (all
/// edges for None).
fn furthest(
    polygon: &[[f64; 2]],
    p: [f64; 2],
    toward: Option<[f64; 2]>,
) -> Option<(f64, [f64; 2], [f64; 2])> {
    let n = polygon.len();
    let mut best: Option<(f64, [f64; 2], [f64; 2])> = None;
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let len = ex.hypot(ey);
        if len <= 0.0 {
            continue;
        }
        // Counter-clockwise, outside is to the right of each edge.
        let normal = [ey / len, -ex / len];
        if toward.is_some_and(|d| normal[0] * d[0] + normal[1] * d[1] <= 0.0) {
            continue;
        }
        let out = (p[0] - a[0]) * normal[0] + (p[1] - a[1]) * normal[1];
        if best.is_none_or(|(o, _, _)| out > o) {
            best = Some((out, a, normal));
        }
    }
    best
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_edge_a_point_is_furthest_beyond_is_the_one_it_crossed() {
        // A 0.2 × 0.1 rectangle, counter-clockwise; a point 0.03 past its front edge.
        let square = [[-0.1, -0.05], [0.1, -0.05], [0.1, 0.05], [-0.1, 0.05]];
        let ahead = [1.0, 0.0];
        let (out, at, normal) = edge_beyond(&square, [0.13, 0.01], ahead).unwrap();
        assert!((out - 0.03).abs() < 1e-12);
        assert_eq!(at, [0.1, -0.05]);
        assert!((normal[0] - 1.0).abs() < 1e-12 && normal[1].abs() < 1e-12);
        // Inside, 0.01 from the left edge and 0.02 from the front: falling forwards, the
        // front (facing ahead; the left edge's normal is square to it), 0.02 inside.
        let (out, _, normal) = edge_beyond(&square, [0.08, 0.04], ahead).unwrap();
        assert!((out + 0.02).abs() < 1e-12 && (normal[0] - 1.0).abs() < 1e-12);
        // Falling to the left, the left edge, 0.01 inside.
        let (out, _, normal) = edge_beyond(&square, [0.08, 0.04], [0.0, 1.0]).unwrap();
        assert!((out + 0.01).abs() < 1e-12 && (normal[1] - 1.0).abs() < 1e-12);
        assert_eq!(edge_beyond(&[[0.0, 0.0]], [1.0, 0.0], ahead), None);
    }
}
