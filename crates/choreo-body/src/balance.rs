//! Balance over time: every [`STEP`] the centre of mass (static balance, what NAOqi's fall
//! manager watches) and the zero-moment point of the cart-table model (the CoM's height and
//! acceleration: `zmp = com - z / g * com''`) against the support polygon. The robot falls
//! when its CoM leaves the polygon, or when the ZMP stays out of it for [`ZMP_HOLD`] (a
//! short excursion only rocks the robot on an edge of its feet: **inference**, see
//! docs/motion.md "The body").

use std::collections::VecDeque;

use crate::stance::Stance;

/// The period of balance checks, s (NAOqi's motion cycle: 10 ms on NAO V5/V6 and Pepper).
pub const STEP: f64 = 0.01;
/// How long the ZMP may stay outside the polygon before the robot tips over, s.
pub const ZMP_HOLD: f64 = 0.1;
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
    /// The zero-moment point, for [`ZMP_HOLD`].
    Zmp,
}

/// A fall.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fall {
    /// When, s from the first sample.
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Check {
    /// The CoM's margin in the polygon, m (negative: outside).
    pub com: f64,
    /// The ZMP's (of the previous step: it needs the next CoM), when known.
    pub zmp: Option<f64>,
    /// The ZMP, ground x and y.
    pub zmp_at: Option<[f64; 2]>,
}

/// Follows the robot's balance step by step.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    /// The last three (time, stance) checked.
    recent: VecDeque<(f64, Stance)>,
    /// Since when the ZMP has been outside the polygon.
    zmp_out_since: Option<f64>,
}

impl Balance {
    /// Nothing seen yet.
    pub fn new() -> Balance {
        Balance::default()
    }

    /// Takes the stance at `time` (s, every [`STEP`]); the fall it shows, if any.
    pub fn step(&mut self, time: f64, stance: Stance) -> (Check, Option<Fall>) {
        let com = stance.margin([stance.com[0], stance.com[1]]);
        let mut check = Check {
            com,
            zmp: None,
            zmp_at: None,
        };
        let fall_of = |s: &Stance, p: [f64; 2], by: f64, cause: Cause, time: f64| Fall {
            time,
            direction: direction(s, p),
            cause,
            by: -by,
        };
        if com < 0.0 {
            let fall = fall_of(
                &stance,
                [stance.com[0], stance.com[1]],
                com,
                Cause::Com,
                time,
            );
            self.recent.push_back((time, stance));
            return (check, Some(fall));
        }
        self.recent.push_back((time, stance));
        if self.recent.len() > 3 {
            self.recent.pop_front();
        }
        let mut fall = None;
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
                if m < 0.0 {
                    let since = *self.zmp_out_since.get_or_insert(*t1);
                    if t1 - since >= ZMP_HOLD - 1e-9 {
                        fall = Some(fall_of(b, zmp, m, Cause::Zmp, *t1));
                    }
                } else {
                    self.zmp_out_since = None;
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
