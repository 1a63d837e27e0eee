//! Balance over time: every [`STEP`] the centre of mass (static balance, what NAOqi's fall
//! manager watches) and the zero-moment point of the cart-table model (the CoM's height and
//! acceleration: `zmp = com - z / g * com''`) against the support polygon. The robot falls
//! when its CoM leaves the polygon, or when the ZMP stays out of it for [`HOLD`] (a
//! short excursion only rocks the robot on an edge of its feet: **inference**, see
//! docs/motion.md "The body").

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

/// Follows the robot's balance step by step.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    /// The (time, stance) of the last [`HOLD`] and one step (shared with the caller, who
    /// keeps the last one: no copy a step).
    recent: VecDeque<(f64, Rc<Stance>)>,
    com: Out,
}

impl Balance {
    /// Nothing seen yet.
    pub fn new() -> Balance {
        Balance::default()
    }

    /// Takes the stance at `time` (s, every [`STEP`]); the fall it shows, if any (its time:
    /// when the CoM left the polygon, or the middle of the [`HOLD`] over which the ZMP was
    /// out). A robot that does not stand on its supports (see [`Stance::standing`]) is not
    /// judged.
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
        if let Some((zmp, last)) = self.zmp() {
            let m = last.margin(zmp);
            check.zmp = Some(m);
            check.zmp_at = Some(zmp);
            if m < 0.0 && fall.is_none() {
                // A window's mean is its middle's value: the push out began then.
                let middle = self.recent[self.recent.len() / 2].0;
                fall = Some(Fall {
                    time: middle,
                    direction: direction(last, zmp),
                    cause: Cause::Zmp,
                    by: -m,
                });
            }
        }
        (check, fall)
    }
}

impl Balance {
    /// The ZMP over the window (ground x, y of its last stance) and that stance, once the
    /// window spans [`HOLD`] and a support stayed flat on the floor throughout (measured in its frame).
    fn zmp(&self) -> Option<([f64; 2], &Stance)> {
        let n = self.recent.len();
        let (t0, first) = self.recent.front()?;
        let (t_end, last) = self.recent.back()?;
        let span = t_end - t0;
        if n < 3 || span < HOLD - 1e-9 {
            return None;
        }
        let foot = first
            .flat
            .iter()
            .find(|f| self.recent.iter().all(|(_, s)| s.flat.contains(f)))?;
        let coms: Vec<[f64; 3]> = self
            .recent
            .iter()
            .filter_map(|(_, s)| s.com_on(foot))
            .collect();
        let times: Vec<f64> = self.recent.iter().map(|(t, _)| *t).collect();
        let velocity =
            |a: usize, i: usize| (coms[a + 1][i] - coms[a][i]) / (times[a + 1] - times[a]);
        let mean = |i: usize| coms.iter().map(|c| c[i]).sum::<f64>() / n as f64;
        let z = mean(2);
        let on_foot = [0, 1].map(|i| {
            let acc = (velocity(n - 2, i) - velocity(0, i)) / span;
            mean(i) - z / G * acc
        });
        let (_, pose) = last.feet.iter().find(|(f, _)| f == foot)?;
        let p = pose.apply([on_foot[0], on_foot[1], 0.0]);
        Some(([p[0], p[1]], last))
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
