//! Balance over time: every [`STEP`] the centre of mass (static balance, what NAOqi's fall
//! manager watches) and the zero-moment point of the cart-table model (the CoM's height and
//! acceleration: `zmp = com - z / g * com''`) against the support polygon. The robot falls
//! when its CoM stays out of the polygon for [`HOLD`], or when a ZMP outside it rocks the
//! robot on an edge of its feet (`Rocking`) until its CoM is above that edge: a short,
//! shallow excursion only lifts a heel for a moment (see docs/motion.md "The body").

use std::collections::VecDeque;
use std::rc::Rc;

use crate::stance::Stance;

/// The period of balance checks, s (NAOqi's motion cycle: 10 ms on NAO V5/V6 and Pepper).
pub const STEP: f64 = 0.01;
/// How long the CoM or the ZMP may stay outside the polygon before the robot tips over, s.
pub const HOLD: f64 = 0.1;
/// Gravity, m/s².
pub const G: f64 = 9.81;

/// Which way a robot falls (from the polygon's centre toward where the CoM or ZMP left it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Forwards: it ends lying on its belly.
    Forwards,
    /// Backwards: on its back.
    Backwards,
    /// To its left.
    Left,
    /// To its right.
    Right,
}

impl Direction {
    /// "forwards", "backwards", "to the left", "to the right".
    pub fn words(self) -> &'static str {
        match self {
            Direction::Forwards => "forwards",
            Direction::Backwards => "backwards",
            Direction::Left => "to the left",
            Direction::Right => "to the right",
        }
    }

    /// The posture ALRobotPosture names once the robot lies: `LyingBelly` after a fall
    /// forwards, `LyingBack` otherwise (NAOqi's fall manager has these two for a NAO).
    pub fn lying(self) -> &'static str {
        match self {
            Direction::Forwards => "LyingBelly",
            _ => "LyingBack",
        }
    }
}

/// What left the support polygon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The centre of mass.
    Com,
    /// The zero-moment point.
    Zmp,
}

/// A fall.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fall {
    /// When it began: when the CoM or ZMP left the polygon (s from the first sample).
    pub time: f64,
    /// Which way.
    pub direction: Direction,
    /// What left the polygon.
    pub cause: Cause,
    /// How far outside the polygon, m.
    pub by: f64,
}

impl Fall {
    /// "the centre of mass left the feet behind the heels by 2.1 cm".
    pub fn describe(&self, support: &str) -> String {
        let what = match self.cause {
            Cause::Com => "the centre of mass",
            Cause::Zmp => "the zero-moment point",
        };
        let edge = match self.direction {
            Direction::Forwards => "ahead of the toes",
            Direction::Backwards => "behind the heels",
            Direction::Left => "on the left",
            Direction::Right => "on the right",
        };
        format!(
            "{what} left the {support} {edge} by {:.1} cm",
            self.by * 100.0
        )
    }
}

/// One balance check, at a step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Check {
    /// The CoM's margin in the polygon, m (negative: outside; NaN: not standing).
    pub com: f64,
    /// The ZMP's over the last [`HOLD`], once that much is seen.
    pub zmp: Option<f64>,
    /// The ZMP, ground x and y.
    pub zmp_at: Option<[f64; 2]>,
}

/// Where a point has been outside the polygon since, and the deepest it went.
#[derive(Debug, Clone, Copy, Default)]
struct Out {
    since: Option<f64>,
    depth: f64,
}

impl Out {
    /// Takes the point's margin at `time`; the fall once it has been out for [`HOLD`].
    fn step(
        &mut self,
        time: f64,
        margin: f64,
        at: [f64; 2],
        s: &Stance,
        cause: Cause,
    ) -> Option<Fall> {
        if margin >= 0.0 {
            *self = Out::default();
            return None;
        }
        let since = *self.since.get_or_insert(time);
        self.depth = self.depth.max(-margin);
        (time - since >= HOLD - 1e-9).then(|| Fall {
            time: since,
            direction: direction(s, at),
            cause,
            by: self.depth,
        })
    }
}

/// The robot tipped on the edge of its support polygon that the ZMP crossed: a rigid body
/// pivoting on that edge, its mass at the CoM's height `h` above it, linearised for small
/// tilts θ. The push beyond the edge (the ZMP `δ` outside) and gravity once tilted (the CoM
/// rising toward the edge by `h·θ`) give `θ'' = (g/h)·θ + (g/h²)·δ`, where `δ` is negative
/// while the ZMP is back inside: the sole lands flat again when θ returns to 0. It falls when
/// `h·θ` reaches the CoM's distance inside that edge (beyond it, nothing brings it back).
#[derive(Debug, Clone, Copy, Default)]
struct Rocking {
    /// The tilt, rad, and its rate, rad/s.
    tilt: f64,
    rate: f64,
    /// When the tilt began, and the ZMP's deepest excursion since.
    since: Option<f64>,
    depth: f64,
}

impl Rocking {
    /// Takes the ZMP's `outside` distance (m, negative inside) at `time`, `dt` after the last
    /// step, with the CoM `h` above the floor and `inside` the edge; the fall's start and the
    /// ZMP's depth once the CoM is above the edge.
    fn step(
        &mut self,
        time: f64,
        dt: f64,
        outside: f64,
        h: f64,
        inside: f64,
    ) -> Option<(f64, f64)> {
        if self.since.is_none() && outside <= 0.0 {
            return None;
        }
        let since = *self.since.get_or_insert(time);
        self.depth = self.depth.max(outside);
        (self.tilt, self.rate) = pivot((self.tilt, self.rate), dt, outside, h);
        if self.tilt <= 0.0 {
            *self = Rocking::default();
            return None;
        }
        (h * self.tilt >= inside).then_some((since, self.depth))
    }
}

/// A rigid body pivoting on an edge, its mass `h` above it, `outside` (m) beyond the edge
/// when upright (negative: inside), linearised for small tilts: `θ'' = (g/h)·θ +
/// (g/h²)·outside`. The (tilt, rate) `dt` after `(tilt, rate)`, solved exactly over the step
/// with `outside` held: about the tilt where gravity and the push balance (θ = −outside/h),
/// the tilt grows as cosh and sinh of t·√(g/h).
pub(crate) fn pivot((tilt, rate): (f64, f64), dt: f64, outside: f64, h: f64) -> (f64, f64) {
    let h = h.max(1e-3);
    let k = (G / h).sqrt();
    let (c, s) = ((k * dt).cosh(), (k * dt).sinh());
    let balanced = -outside / h;
    let u = tilt - balanced;
    (balanced + u * c + rate / k * s, u * k * s + rate * c)
}

/// Follows the robot's balance step by step.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    /// The (time, stance) of the last [`HOLD`] and one step (shared with the caller, who
    /// keeps the last one: no copy a step).
    recent: VecDeque<(f64, Rc<Stance>)>,
    /// The CoM over the window, on the foot flat throughout (kept: no allocation a step).
    coms: Vec<[f64; 3]>,
    com: Out,
    rocking: Rocking,
}

impl Balance {
    /// Nothing seen yet.
    pub fn new() -> Balance {
        Balance::default()
    }

    /// Takes the stance at `time` (s, every [`STEP`]); the fall it shows, if any (its time:
    /// when the CoM left the polygon, or the middle of the [`HOLD`] over which the ZMP went
    /// out and began to tip the robot). A robot that does not stand on its supports (see
    /// [`Stance::standing`]) is not judged.
    ///
    /// The ZMP is the cart-table model's over the last [`HOLD`]: the CoM's mean position
    /// less its height over g times its mean acceleration (its change of velocity over the
    /// window). A mean, because a motor that starts or stops at full speed changes its
    /// velocity within one step, and that spike's ZMP, metres away, lasts no time: what
    /// tips the robot is the push over a while.
    pub fn step(&mut self, time: f64, stance: impl Into<Rc<Stance>>) -> (Check, Option<Fall>) {
        let stance: Rc<Stance> = stance.into();
        if !stance.standing {
            *self = Balance::default();
            let check = Check {
                com: f64::NAN,
                ..Check::default()
            };
            return (check, None);
        }
        let at = [stance.com[0], stance.com[1]];
        let com = stance.margin(at);
        let mut check = Check {
            com,
            zmp: None,
            zmp_at: None,
        };
        let mut fall = self.com.step(time, com, at, &stance, Cause::Com);
        self.recent.push_back((time, stance));
        while self
            .recent
            .front()
            .is_some_and(|(t, _)| time - t > HOLD + STEP / 2.0)
        {
            self.recent.pop_front();
        }
        let Some((zmp, last)) = self.zmp() else {
            self.rocking = Rocking::default();
            return (check, fall);
        };
        let m = last.margin(zmp);
        check.zmp = Some(m);
        check.zmp_at = Some(zmp);
        // A window's mean is its middle's value: the push out began then.
        let middle = self.recent[self.recent.len() / 2].0;
        let inside = inside_edge(&last.polygon, zmp, at);
        let (height, way) = (last.com[2], direction(&last, zmp));
        let dt = self
            .recent
            .len()
            .checked_sub(2)
            .map_or(STEP, |i| time - self.recent[i].0);
        let tipped = self.rocking.step(middle, dt, -m, height, inside);
        if let Some((since, depth)) = tipped
            && fall.is_none()
        {
            fall = Some(Fall {
                time: since,
                direction: way,
                cause: Cause::Zmp,
                by: depth,
            });
        }
        (check, fall)
    }
}

impl Balance {
    /// How far the ZMP has rocked the robot on an edge of its feet (rad) and how fast
    /// (rad/s): where a [`crate::Tip`] takes it on once it falls (0 for a fall of its CoM).
    pub fn tipping(&self) -> (f64, f64) {
        (self.rocking.tilt, self.rocking.rate)
    }

    /// The ZMP over the window (ground x, y of its last stance) and that stance, once the
    /// window spans [`HOLD`] and a support stayed flat on the floor throughout (measured in its frame).
    fn zmp(&mut self) -> Option<([f64; 2], Rc<Stance>)> {
        let n = self.recent.len();
        let (t0, first) = self.recent.front()?;
        let (t_end, last) = self.recent.back()?;
        let span = t_end - t0;
        if n < 3 || span < HOLD - 1e-9 {
            return None;
        }
        let foot = first.flat.iter().find(|f| {
            self.recent
                .iter()
                .all(|(_, s)| s.flat.iter().any(|g| crate::stance::same(g, f)))
        })?;
        self.coms.clear();
        for (_, s) in &self.recent {
            self.coms.push(s.com_on(foot)?);
        }
        let (coms, recent) = (&self.coms, &self.recent);
        let velocity =
            |a: usize, i: usize| (coms[a + 1][i] - coms[a][i]) / (recent[a + 1].0 - recent[a].0);
        let mean = |i: usize| coms.iter().map(|c| c[i]).sum::<f64>() / n as f64;
        let z = mean(2);
        let on_foot = [0, 1].map(|i| {
            let acc = (velocity(n - 2, i) - velocity(0, i)) / span;
            mean(i) - z / G * acc
        });
        let (_, pose) = last
            .feet
            .iter()
            .find(|(f, _)| crate::stance::same(f, foot))?;
        let p = pose.apply([on_foot[0], on_foot[1], 0.0]);
        Some(([p[0], p[1]], Rc::clone(last)))
    }
}

/// How far `p` is inside the line of the edge of `polygon` (counter-clockwise) that `out`
/// is furthest beyond (negative: beyond it too); with `out` inside, `p`'s margin.
fn inside_edge(polygon: &[[f64; 2]], out: [f64; 2], p: [f64; 2]) -> f64 {
    let n = polygon.len();
    let beyond = |i: usize, q: [f64; 2]| {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let len = ex.hypot(ey);
        (len > 0.0).then(|| (ex * (q[1] - a[1]) - ey * (q[0] - a[0])) / len)
    };
    let edge = (0..n)
        .filter_map(|i| Some((i, beyond(i, out)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match edge {
        Some((i, d)) if d < 0.0 => beyond(i, p).unwrap_or(f64::NEG_INFINITY),
        _ => crate::stance::margin(polygon, p),
    }
}

/// Which way `p`, outside the polygon of `s`, lies from the polygon's centre.
fn direction(s: &Stance, p: [f64; 2]) -> Direction {
    let n = s.polygon.len().max(1) as f64;
    let cx = s.polygon.iter().map(|q| q[0]).sum::<f64>() / n;
    let cy = s.polygon.iter().map(|q| q[1]).sum::<f64>() / n;
    let (dx, dy) = (p[0] - cx, p[1] - cy);
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 {
            Direction::Forwards
        } else {
            Direction::Backwards
        }
    } else if dy >= 0.0 {
        Direction::Left
    } else {
        Direction::Right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes `outside` (m) for `seconds`, then `after` for as long, the CoM `inside` the
    /// edge, 0.26 m up (NAO standing): the fall's start, if any, and the tilt at the push's
    /// end.
    fn rock(outside: f64, after: f64, seconds: f64, inside: f64) -> (Option<f64>, f64) {
        let mut r = Rocking::default();
        let (mut pushed, steps) = (0.0, (seconds / STEP).round() as usize);
        for k in 0..4 * steps {
            let push = if k < steps { outside } else { after };
            if let Some((since, _)) = r.step(k as f64 * STEP, STEP, push, 0.26, inside) {
                return (Some(since), r.tilt);
            }
            if k + 1 == steps {
                pushed = r.tilt;
            }
        }
        (None, pushed)
    }

    #[test]
    fn a_push_past_the_toes_tilts_the_robot_as_an_inverted_pendulum_does() {
        // θ'' = (g/h)θ + gδ/h², from rest: θ(t) = (δ/h)(cosh(t·√(g/h)) − 1); for δ = 1 mm,
        // h = 0.26 m, t = 0.1 s: √(g/h) = 6.142, cosh(0.6142) = 1.1947, θ = 7.49e-4 rad.
        let (fell, tilt) = rock(0.001, -0.01, 0.1, 1.0);
        assert_eq!(fell, None);
        assert!((tilt - 7.49e-4).abs() < 0.1 * 7.49e-4, "{tilt}");
    }

    #[test]
    fn a_short_shallow_push_lifts_a_heel_and_a_com_at_the_edge_goes_over() {
        // 7.5e-4 rad lifts the CoM 0.26 × 7.5e-4 = 0.2 mm toward the edge: 2 cm inside, the
        // sole lands again; 0.1 mm inside, it is over.
        assert_eq!(rock(0.001, -0.01, 0.1, 0.02).0, None);
        assert_eq!(rock(0.001, -0.01, 0.1, 0.0001).0, Some(0.0));
    }
}
