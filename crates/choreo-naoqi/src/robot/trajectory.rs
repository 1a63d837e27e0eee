//! A value that moves over behavior time (a joint angle, a stiffness, an LED colour): keys
//! joined by straight lines, read at any instant. Commands replace the part after "now", so
//! a stop freezes the value where it had got to (B3) without stepping anything.

use choreo_engine::clock::Time;

/// Piecewise-linear keys `(time, value)`; constant before the first and after the last.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trajectory<const N: usize> {
    keys: Vec<(Time, [f64; N])>,
}

impl<const N: usize> Trajectory<N> {
    /// A value that does not move.
    pub fn still(value: [f64; N]) -> Self {
        Trajectory {
            keys: vec![(Time(0), value)],
        }
    }

    /// The value at `t`.
    pub fn at(&self, t: Time) -> [f64; N] {
        let Some(&(first_t, first)) = self.keys.first() else {
            return [0.0; N];
        };
        if t <= first_t {
            return first;
        }
        for pair in self.keys.windows(2) {
            let ((t0, v0), (t1, v1)) = (pair[0], pair[1]);
            if t <= t1 {
                let span = (t1.0 - t0.0) as f64;
                let s = if span > 0.0 {
                    (t.0 - t0.0) as f64 / span
                } else {
                    1.0
                };
                let mut out = [0.0; N];
                for i in 0..N {
                    out[i] = v0[i] + s * (v1[i] - v0[i]);
                }
                return out;
            }
        }
        self.keys.last().map_or(first, |&(_, v)| v)
    }

    /// From `now` on, moves from the current value through `keys` (increasing times); keys
    /// at or before `now` take effect at once.
    pub fn command(&mut self, now: Time, keys: impl IntoIterator<Item = (Time, [f64; N])>) {
        let mut start = (now, self.at(now));
        let mut later = Vec::new();
        for (t, v) in keys {
            if t <= now {
                start = (now, v);
            } else {
                later.push((t, v));
            }
        }
        self.keys = std::iter::once(start).chain(later).collect();
    }

    /// Stays where it is at `now`.
    pub fn freeze(&mut self, now: Time) {
        self.keys = vec![(now, self.at(now))];
    }
}

/// `now` plus `seconds` (negative or NaN counts as 0).
pub(crate) fn after(now: Time, seconds: f64) -> Time {
    let ns = if seconds.is_finite() && seconds > 0.0 {
        (seconds * 1e9).min(u64::MAX as f64) as u64
    } else {
        0
    };
    Time(now.0.saturating_add(ns))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_between_keys_and_freezes() {
        let mut t = Trajectory::still([0.0]);
        t.command(Time(0), [(after(Time(0), 1.0), [1.0])]);
        assert_eq!(t.at(after(Time(0), 0.5)), [0.5]);
        assert_eq!(t.at(after(Time(0), 2.0)), [1.0]);
        t.freeze(after(Time(0), 0.25));
        assert_eq!(t.at(after(Time(0), 5.0)), [0.25]);
        t.command(after(Time(0), 6.0), [(after(Time(0), 6.0), [2.0])]);
        assert_eq!(
            t.at(after(Time(0), 6.0)),
            [2.0],
            "a key at now applies at once"
        );
    }
}
