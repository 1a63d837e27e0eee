//! Balance over time: every [`STEP`] the centre of mass (static balance, what NAOqi's fall
//! manager watches) and the zero-moment point of the cart-table model (the CoM's height and
//! acceleration: `zmp = com - z / g * com''`) against the support polygon. The robot falls
//! when its CoM leaves the polygon, or when the ZMP stays out of it for [`HOLD`] (a
//! short excursion only rocks the robot on an edge of its feet: **inference**, see
//! docs/motion.md "The body").

use std::collections::VecDeque;

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
    /// The ZMP's (of the previous step: it needs the next CoM), when known.
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

/// Follows the robot's balance step by step.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    /// The last three (time, stance) checked.
    recent: VecDeque<(f64, Stance)>,
    com: Out,
    zmp: Out,
}

impl Balance {
    /// Nothing seen yet.
    pub fn new() -> Balance {
        Balance::default()
    }

    /// Takes the stance at `time` (s, every [`STEP`]); the fall it shows, if any (its time:
    /// when the CoM or the ZMP left the polygon). A robot that does not stand on its
    /// supports (see [`Stance::standing`]) is not judged.
    pub fn step(&mut self, time: f64, stance: Stance) -> (Check, Option<Fall>) {
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
        if self.recent.len() > 3 {
            self.recent.pop_front();
        }
        if self.recent.len() == 3 {
            let ((t0, a), (t1, b), (t2, c)) = (&self.recent[0], &self.recent[1], &self.recent[2]);
            let (h0, h1) = (t1 - t0, t2 - t1);
            if h0 > 0.0 && h1 > 0.0 {
                let acc = |i: usize| {
                    2.0 * ((c.com[i] - b.com[i]) / h1 - (b.com[i] - a.com[i]) / h0) / (h0 + h1)
                };
                let z = b.com[2];
                let zmp = [b.com[0] - z / G * acc(0), b.com[1] - z / G * acc(1)];
                let m = b.margin(zmp);
                check.zmp = Some(m);
                check.zmp_at = Some(zmp);
                let zmp_fall = self.zmp.step(*t1, m, zmp, b, Cause::Zmp);
                if fall.is_none() {
                    fall = zmp_fall;
                }
            }
        }
        (check, fall)
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
