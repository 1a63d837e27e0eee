//! `ALMotion.angleInterpolationBezier(names, times, keys)`: the one order a playing
//! timeline sends (motion.md §7.1), and the trajectory such an order makes a joint follow.

use crate::spline::{Handle, Interp, Knot, Spline};

/// One key of an order: a value with its two handles, in seconds and ALMotion units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BezierKey {
    /// The value (radians; a hand's opening ratio).
    pub value: f64,
    /// Towards the previous key: `[type, dt ≤ 0, dv]`.
    pub left: Handle,
    /// Towards the next key: `[type, dt ≥ 0, dv]`.
    pub right: Handle,
}

/// The arguments of one `angleInterpolationBezier` call: per joint, its key times (seconds
/// from the call, increasing) and keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BezierCommand {
    /// Joint names.
    pub names: Vec<String>,
    /// Per joint, the times of its keys.
    pub times: Vec<Vec<f64>>,
    /// Per joint, its keys.
    pub keys: Vec<Vec<BezierKey>>,
}

impl BezierCommand {
    /// Whether it moves no joint (ALMotion rejects such an order: it is never sent).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// How long it lasts: its last key time.
    pub fn duration(&self) -> f64 {
        self.times
            .iter()
            .filter_map(|t| t.last().copied())
            .fold(0.0, f64::max)
    }

    /// The trajectory joint `i` follows when the order starts with the joint at `start`.
    pub fn trajectory(&self, i: usize, start: f64) -> Option<Spline> {
        Some(trajectory(self.times.get(i)?, self.keys.get(i)?, start))
    }
}

/// The trajectory of a joint given keys at `times` (seconds from the order) when it is at
/// `start` at time 0: ALMotion starts every interpolation from the current position. A
/// first key after time 0 is reached from a virtual key (0, `start`) whose handle is flat and
/// a third of the way long, like any end key's (motion.md §6.3, §6.4); a first key at time 0
/// is an immediate target. Handles of type 0 hold the segment; the others are used as given.
pub fn trajectory(times: &[f64], keys: &[BezierKey], start: f64) -> Spline {
    let mut knots = Vec::with_capacity(keys.len() + 1);
    let first = times.first().copied().unwrap_or(0.0);
    if first > 0.0 {
        knots.push(Knot {
            x: 0.0,
            y: start,
            left: Handle::LINEAR,
            right: Handle::new(Interp::BezierAuto, first / 3.0, 0.0),
        });
    }
    knots.extend(times.iter().zip(keys).map(|(t, k)| Knot {
        x: *t,
        y: k.value,
        left: k.left,
        right: k.right,
    }));
    Spline::new(knots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trajectory_starts_where_the_joint_is() {
        let key = BezierKey {
            value: 1.0,
            left: Handle::new(Interp::BezierAuto, -1.0 / 3.0, 0.0),
            right: Handle::new(Interp::BezierAuto, 0.0, 0.0),
        };
        let s = trajectory(&[1.0], &[key], 0.5);
        assert_eq!(s.eval(0.0), Some(0.5));
        assert_eq!(s.eval(1.0), Some(1.0));
        // Flat handles at both ends of a symmetric segment: the middle is halfway.
        assert!((s.eval(0.5).unwrap_or(f64::NAN) - 0.75).abs() < 1e-9);
        let immediate = trajectory(&[0.0, 1.0], &[key, key], 0.5);
        assert_eq!(immediate.eval(0.0), Some(1.0));
    }
}
