//! Self-collision, as NAOqi's self-collision avoidance models it: the body as spheres and
//! capsules (`choreo_robot::body::Shape`), two shapes colliding when the distance between
//! their segments is less than the sum of their radii. The protected chains are the arms
//! (`LArm`, `RArm`), checked against the `Body` group.

use choreo_robot::Model;

use crate::kinematics::Frames;

/// An arm's shape inside the body's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The arm's shape (`LArm.ForeArm`).
    pub arm: (&'static str, &'static str),
    /// The body's (`Body.Torso`).
    pub body: &'static str,
    /// How deep, m (the radii's sum less the segments' distance).
    pub depth: f64,
}

/// The joints that move some shape in FRAME_TORSO (each shape's joint and those above it,
/// and the motors that drive them): while none of them moves, [`contacts`] stay the same.
pub fn movers(model: Model) -> &'static [usize] {
    static NAO: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    static PEPPER: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    let cell = match model {
        Model::Nao => &NAO,
        Model::Pepper => &PEPPER,
    };
    cell.get_or_init(|| {
        let chain = model.chain();
        let mut out: Vec<usize> = Vec::new();
        for shape in model.body().shapes() {
            let mut joint = shape.joint;
            // Up the chain to the torso (a chain has no loop: at most every joint once).
            for _ in 0..model.joints().len() {
                let Some(name) = joint else { break };
                if let Some(i) = model.joint_index(name) {
                    for j in [i, model.dof(i)] {
                        if !out.contains(&j) {
                            out.push(j);
                        }
                    }
                }
                joint = chain.link(name).and_then(|l| l.parent);
            }
        }
        out.sort_unstable();
        out
    })
}

/// The arms' shapes that enter the body's, for the joints at `frames`; `chain`: only that
/// arm (`LArm`, `RArm`), or both.
pub fn contacts(frames: &Frames, chain: Option<&str>) -> Vec<Contact> {
    let shapes = frames.model().body().shapes();
    let at = &crate::kinematics::indices(frames.model()).shapes;
    let placed: Vec<Segment> = shapes
        .iter()
        .zip(at)
        .map(|(s, &i)| {
            let f = frames.frame_at(i);
            (f.apply(s.ends[0]), f.apply(s.ends[1]))
        })
        .collect();
    let mut found = Vec::new();
    for (a, arm) in shapes.iter().enumerate() {
        if arm.group == "Body" || chain.is_some_and(|c| c != arm.group) {
            continue;
        }
        for (b, body) in shapes.iter().enumerate().filter(|(_, s)| s.group == "Body") {
            let (a, b) = (placed[a], placed[b]);
            let reach = arm.radius + body.radius;
            if apart(a, b, reach) {
                continue;
            }
            let depth = reach - segment_distance(a, b);
            if depth > 0.0 {
                found.push(Contact {
                    arm: (arm.group, arm.name),
                    body: body.name,
                    depth,
                });
            }
        }
    }
    found
}

type Segment = ([f64; 3], [f64; 3]);

/// Whether segments `a` and `b` are surely more than `reach` apart, told cheaply: every
/// point of a segment is within half its length of its middle, so the segments are at
/// least the middles' distance less both half lengths apart (1 nm kept for rounding).
fn apart(a: Segment, b: Segment, reach: f64) -> bool {
    let middle = |(p, q): Segment| {
        [
            (p[0] + q[0]) / 2.0,
            (p[1] + q[1]) / 2.0,
            (p[2] + q[2]) / 2.0,
        ]
    };
    let half = |(p, q): Segment| dot(sub(q, p), sub(q, p)).sqrt() / 2.0;
    let between = sub(middle(a), middle(b));
    let bound = half(a) + half(b) + reach + 1e-9;
    dot(between, between) > bound * bound
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The distance between two segments (the closest points of each, clamped to the
/// segments; a point is a segment of length 0).
pub fn segment_distance(a: Segment, b: Segment) -> f64 {
    let (c1, c2, _) = closest(a, b);
    dot(sub(c1, c2), sub(c1, c2)).sqrt()
}

/// The closest points of two segments (on `a`, on `b`), and where the first lies along `a`
/// (0 at its start, 1 at its end).
fn closest((p1, q1): Segment, (p2, q2): Segment) -> ([f64; 3], [f64; 3], f64) {
    let (d1, d2, r) = (sub(q1, p1), sub(q2, p2), sub(p1, p2));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    const EPS: f64 = 1e-12;
    let (s, t) = if a <= EPS && e <= EPS {
        (0.0, 0.0)
    } else if a <= EPS {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = dot(d1, r);
        if e <= EPS {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let mut s = if denom > EPS {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    let c1 = [p1[0] + d1[0] * s, p1[1] + d1[1] * s, p1[2] + d1[2] * s];
    let c2 = [p2[0] + d2[0] * t, p2[1] + d2[1] * t, p2[2] + d2[2] * t];
    (c1, c2, s)
}

/// How near (m) an arm's shape may come to the body's before its motion toward it is held
/// to the gap: NAOqi's page does not say (**inference**: a little more than an arm moves in
/// one 10 ms cycle at full speed).
pub const WATCH: f64 = 0.03;

/// One motion cycle of the arm whose joints are `arm` (`LArm`'s or `RArm`'s), as NAOqi's
/// self-collision avoidance takes it (its page: the difference between the desired state
/// and the next one minimised, under a linear inequality constraint): from every joint at
/// `here`, the arm's joints go as near to `wanted`'s as they can while no arm shape's
/// point nearest the body moves toward it by more than the gap between them (each pair
/// nearer than [`WATCH`]; the point's motion from the arm's Jacobian, by finite
/// differences). The arm's next angles, in `arm`'s order, within the joints' limits.
pub fn avoid_step(arm: &[usize], frames: &Frames, wanted: &[f64]) -> Vec<f64> {
    let (model, here) = (frames.model(), frames.angles());
    let desired: Vec<f64> = arm
        .iter()
        .map(|&j| wanted.get(j).copied().unwrap_or(0.0) - here.get(j).copied().unwrap_or(0.0))
        .collect();
    let shapes = model.body().shapes();
    let at = &crate::kinematics::indices(model).shapes;
    let segment = |frames: &Frames, k: usize| {
        let f = frames.frame_at(at[k]);
        (f.apply(shapes[k].ends[0]), f.apply(shapes[k].ends[1]))
    };
    // The Jacobian's frames (the arm's alone computed again), only once a pair is near
    // (most steps have none).
    let mut moved_by: Vec<Frames> = Vec::new();
    let nudged = |j: usize| {
        let mut nudged = here.to_vec();
        if let Some(v) = nudged.get_mut(j) {
            *v += NUDGE;
        }
        frames.moved(&nudged)
    };
    // Each constraint: a · Δ ≥ -gap.
    let mut constraints: Vec<(Vec<f64>, f64)> = Vec::new();
    let group = arm
        .first()
        .and_then(|&j| model.joints().get(j))
        .map_or("", |j| {
            if j.name.starts_with('L') {
                "LArm"
            } else {
                "RArm"
            }
        });
    for (a, shape) in shapes.iter().enumerate().filter(|(_, s)| s.group == group) {
        let mine = segment(frames, a);
        for (b, body) in shapes.iter().enumerate().filter(|(_, s)| s.group == "Body") {
            let (c1, c2, s) = closest(mine, segment(frames, b));
            let d = dot(sub(c1, c2), sub(c1, c2)).sqrt();
            let gap = d - shape.radius - body.radius;
            if gap > WATCH || d < 1e-9 {
                continue;
            }
            let n = sub(c1, c2).map(|v| v / d);
            if moved_by.is_empty() {
                moved_by = arm.iter().map(|&j| nudged(j)).collect();
            }
            let row = moved_by
                .iter()
                .map(|f| {
                    let (p, q) = segment(f, a);
                    let moved = [0, 1, 2].map(|i| p[i] + (q[i] - p[i]) * s);
                    dot(n, sub(moved, c1)) / NUDGE
                })
                .collect();
            constraints.push((row, gap.max(0.0)));
        }
    }
    // The nearest step within every constraint: projections onto each half-space in turn,
    // a few sweeps (exact for one constraint).
    let mut step = desired;
    for _ in 0..SWEEPS {
        for (row, gap) in &constraints {
            let along: f64 = row.iter().zip(&step).map(|(a, d)| a * d).sum();
            let norm: f64 = row.iter().map(|a| a * a).sum();
            if along < -gap && norm > 1e-12 {
                let push = (-gap - along) / norm;
                for (d, a) in step.iter_mut().zip(row) {
                    *d += push * a;
                }
            }
        }
    }
    arm.iter()
        .zip(&step)
        .map(|(&j, d)| {
            let v = here.get(j).copied().unwrap_or(0.0) + d;
            model.clamp(j, v, 0.0)
        })
        .collect()
}

/// The finite difference of the arm's Jacobian, rad.
const NUDGE: f64 = 1e-5;

/// Passes over the constraints of one cycle.
const SWEEPS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_between_segments_and_points() {
        let x = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        // Crossing above at 0.5: 0.2 apart.
        assert!((segment_distance(x, ([0.5, -1.0, 0.2], [0.5, 1.0, 0.2])) - 0.2).abs() < 1e-12);
        // A point beyond the end: the distance to the end.
        let p = [2.0, 0.0, 0.0];
        assert!((segment_distance(x, (p, p)) - 1.0).abs() < 1e-12);
        // Parallel, side by side.
        assert!((segment_distance(x, ([0.2, 0.3, 0.0], [0.8, 0.3, 0.0])) - 0.3).abs() < 1e-12);
    }
}
