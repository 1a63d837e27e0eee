//! Piecewise cubic Bezier curves over any abscissa (frames in a timeline, seconds in an
//! ALMotion order): knots with resolved handles, and their evaluation (motion.md §6.1).

/// How a handle shapes its side of a segment (motion.md §5). The numbers are ALMotion's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interp {
    /// The segment holds the left key's value until the next key.
    Constant = 0,
    /// A straight line: the handle has length zero.
    Linear = 1,
    /// An explicit handle.
    Bezier = 2,
    /// A handle computed from the neighbouring keys (the 1/3 rule, §6.3).
    BezierAuto = 3,
}

impl Interp {
    /// The interpolation an XAR `interpType` or a `.qianim` `editor:interpType` names,
    /// compatibility spellings included (`piecewise constant`, `none`, `bezier sym`,
    /// `bezier smooth`, `bezier harsh`, `bezier auto`, `bezier_auto`); None for another.
    pub fn from_name(name: &str) -> Option<Interp> {
        match name.trim() {
            "constant" | "piecewise constant" => Some(Interp::Constant),
            "linear" | "none" => Some(Interp::Linear),
            "bezier" | "bezier sym" | "bezier smooth" | "bezier harsh" => Some(Interp::Bezier),
            "bezier auto" | "bezier_auto" => Some(Interp::BezierAuto),
            _ => None,
        }
    }

    /// The interpolation ALMotion's numeric handle type means; None outside 0..=3.
    pub fn from_number(n: i64) -> Option<Interp> {
        match n {
            0 => Some(Interp::Constant),
            1 => Some(Interp::Linear),
            2 => Some(Interp::Bezier),
            3 => Some(Interp::BezierAuto),
            _ => None,
        }
    }
}

/// A handle: its kind, and its offsets from the key (abscissa, ordinate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Handle {
    /// How it was made (a constant handle holds the segment flat).
    pub interp: Interp,
    /// Abscissa offset: ≤ 0 on a left handle, ≥ 0 on a right one.
    pub dx: f64,
    /// Ordinate offset.
    pub dy: f64,
}

impl Handle {
    /// A handle of kind `interp` at offsets (`dx`, `dy`).
    pub const fn new(interp: Interp, dx: f64, dy: f64) -> Handle {
        Handle { interp, dx, dy }
    }

    /// A zero-length handle (linear).
    pub const LINEAR: Handle = Handle::new(Interp::Linear, 0.0, 0.0);
}

/// A key with both handles resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knot {
    /// Abscissa (frame or second).
    pub x: f64,
    /// Value.
    pub y: f64,
    /// Handle towards the previous knot.
    pub left: Handle,
    /// Handle towards the next knot.
    pub right: Handle,
}

/// Knots in increasing abscissa: the curve through them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spline {
    knots: Vec<Knot>,
}

impl Spline {
    /// The curve through `knots`, which must be in strictly increasing abscissa (the
    /// builders in this crate make them so; others are sorted here, later duplicates
    /// dropped, and non-finite ones left out).
    pub fn new(mut knots: Vec<Knot>) -> Spline {
        knots.retain(|k| {
            [k.x, k.y, k.left.dx, k.left.dy, k.right.dx, k.right.dy]
                .iter()
                .all(|v| v.is_finite())
        });
        if !knots.windows(2).all(|w| w[0].x < w[1].x) {
            knots.sort_by(|a, b| a.x.total_cmp(&b.x));
            knots.dedup_by(|later, first| later.x == first.x);
        }
        Spline { knots }
    }

    /// Its knots.
    pub fn knots(&self) -> &[Knot] {
        &self.knots
    }

    /// [`Spline::eval`] at rising `x`s, each segment found from the last one on: a
    /// sampling walks the knots once instead of searching them at every sample. The same
    /// values (an `x` below the last one is searched for).
    pub fn rising(&self) -> impl FnMut(f64) -> Option<f64> + '_ {
        // The first knot after the last `x`.
        let mut after = 0;
        move |x| {
            let (first, last) = (self.knots.first()?, self.knots.last()?);
            if x <= first.x || x.is_nan() {
                return Some(first.y);
            }
            if x >= last.x {
                return Some(last.y);
            }
            if after == 0 || self.knots[after - 1].x > x {
                after = self.knots.partition_point(|k| k.x <= x);
            }
            while self.knots.get(after).is_some_and(|k| k.x <= x) {
                after += 1;
            }
            let (k0, k1) = (&self.knots[after - 1], &self.knots[after]);
            Some(segment(k0, k1, x))
        }
    }

    /// The value at `x`: the first knot's before it, the last one's after it.
    pub fn eval(&self, x: f64) -> Option<f64> {
        let (first, last) = (self.knots.first()?, self.knots.last()?);
        if x <= first.x || x.is_nan() {
            return Some(first.y);
        }
        if x >= last.x {
            return Some(last.y);
        }
        // The segment [k0, k1] with k0.x ≤ x < k1.x.
        let i = self.knots.partition_point(|k| k.x <= x);
        let (k0, k1) = (&self.knots[i - 1], &self.knots[i]);
        Some(segment(k0, k1, x))
    }
}

/// The value at `x` on the segment from `k0` to `k1` (`k0.x ≤ x ≤ k1.x`, `k0.x < k1.x`).
/// Handles pointing out of the segment are clamped into it (motion.md §6.1's ranges), so
/// the abscissa never turns back and the value is unique.
pub fn segment(k0: &Knot, k1: &Knot, x: f64) -> f64 {
    if k0.right.interp == Interp::Constant || k1.left.interp == Interp::Constant {
        return if x >= k1.x { k1.y } else { k0.y };
    }
    let delta = k1.x - k0.x;
    let (a0, o0) = shrink(k0.right.dx, k0.right.dy, delta);
    let (a3, o3) = shrink(-k1.left.dx, k1.left.dy, delta);
    let (x1, x2) = (a0, delta - a3);
    let (y0, y1, y2, y3) = (k0.y, k0.y + o0, k1.y + o3, k1.y);
    let s = solve_monotone(x1, x2, delta, x - k0.x);
    bezier(y0, y1, y2, y3, s)
}

/// A handle of abscissa length `a` (made non-negative) and ordinate `o`, shrunk to at most
/// `delta` long keeping its direction (the qianim migration's rule, motion.md §6.1).
pub(crate) fn shrink(a: f64, o: f64, delta: f64) -> (f64, f64) {
    let a = a.max(0.0);
    if a > delta {
        (delta, o * delta / a)
    } else {
        (a, o)
    }
}

/// The cubic Bezier with control values `p0..p3` at parameter `s`.
pub fn bezier(p0: f64, p1: f64, p2: f64, p3: f64, s: f64) -> f64 {
    let t = 1.0 - s;
    t * t * t * p0 + 3.0 * t * t * s * p1 + 3.0 * t * s * s * p2 + s * s * s * p3
}

/// The parameter `s` ∈ [0, 1] where the abscissa `x(s)`, a Bezier from 0 through control
/// abscissas `x1`, `x2` to `delta` (0 ≤ x1, x2 ≤ delta: never decreasing), equals `x`.
/// Newton steps kept inside a shrinking bracket, bisection when a step leaves it.
fn solve_monotone(x1: f64, x2: f64, delta: f64, x: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let mut s = (x / delta).clamp(0.0, 1.0);
    let tolerance = delta * 1e-13;
    for _ in 0..64 {
        let f = bezier(0.0, x1, x2, delta, s) - x;
        if f.abs() <= tolerance {
            return s;
        }
        if f < 0.0 {
            lo = s;
        } else {
            hi = s;
        }
        let t = 1.0 - s;
        let slope = 3.0 * (t * t * x1 + 2.0 * t * s * (x2 - x1) + s * s * (delta - x2));
        let newton = s - f / slope;
        s = if slope > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knot(x: f64, y: f64, left: (f64, f64), right: (f64, f64)) -> Knot {
        Knot {
            x,
            y,
            left: Handle::new(Interp::Bezier, left.0, left.1),
            right: Handle::new(Interp::Bezier, right.0, right.1),
        }
    }

    #[test]
    fn linear_handles_trace_the_chord() {
        let a = Knot {
            x: 0.0,
            y: 1.0,
            left: Handle::LINEAR,
            right: Handle::LINEAR,
        };
        let b = Knot {
            x: 10.0,
            y: 3.0,
            ..a
        };
        for i in 0..=20 {
            let x = f64::from(i) * 0.5;
            assert!((segment(&a, &b, x) - (1.0 + 0.2 * x)).abs() < 1e-12);
        }
    }

    #[test]
    fn a_constant_handle_holds_the_left_value() {
        let a = Knot {
            x: 0.0,
            y: 1.0,
            left: Handle::LINEAR,
            right: Handle::new(Interp::Constant, 0.0, 0.0),
        };
        let b = Knot {
            x: 4.0,
            y: 5.0,
            left: Handle::LINEAR,
            right: Handle::LINEAR,
        };
        let s = Spline::new(vec![a, b]);
        assert_eq!(s.eval(3.999), Some(1.0));
        assert_eq!(s.eval(4.0), Some(5.0));
    }

    #[test]
    fn explicit_handles_give_the_hand_computed_point() {
        // P0 = (0, 0), P1 = (3, 6), P2 = (6, 6), P3 = (9, 0): x(s) = 9s exactly (the
        // abscissas are evenly spaced), so at x = 4.5, s = 0.5 and
        // y = 3·0.25·0.5·6 + 3·0.5·0.25·6 = 4.5.
        let a = knot(0.0, 0.0, (0.0, 0.0), (3.0, 6.0));
        let b = knot(9.0, 0.0, (-3.0, 6.0), (0.0, 0.0));
        assert!((segment(&a, &b, 4.5) - 4.5).abs() < 1e-12);
        // At x = 3 (s = 1/3): y = 3·(4/9)(1/3)·6 + 3·(2/3)(1/9)·6 = 8/3 + 4/3 = 4.
        assert!((segment(&a, &b, 3.0) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn uneven_handles_are_solved_for_the_abscissa() {
        let a = knot(0.0, 0.0, (0.0, 0.0), (8.0, 1.0));
        let b = knot(10.0, 2.0, (-0.5, -1.0), (0.0, 0.0));
        let mut last = f64::NEG_INFINITY;
        for i in 0..=1000 {
            let x = f64::from(i) * 0.01;
            let s = solve_monotone(8.0, 9.5, 10.0, x);
            assert!((bezier(0.0, 8.0, 9.5, 10.0, s) - x).abs() < 1e-9);
            assert!(s >= last);
            last = s;
            let _ = segment(&a, &b, x);
        }
    }

    #[test]
    fn handles_out_of_range_are_clamped_not_trusted() {
        // A right handle 20 long over a 10-frame segment, pointing backwards on the left:
        // both come back into range, and the curve stays a function of x.
        let a = knot(0.0, 0.0, (0.0, 0.0), (20.0, 4.0));
        let b = knot(10.0, 2.0, (3.0, 0.0), (0.0, 0.0));
        for i in 0..=100 {
            let y = segment(&a, &b, f64::from(i) * 0.1);
            assert!(y.is_finite());
        }
        assert!((segment(&a, &b, 10.0) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_spline_is_flat_outside_its_knots_and_sorted() {
        let s = Spline::new(vec![
            knot(5.0, 2.0, (0.0, 0.0), (0.0, 0.0)),
            knot(1.0, 1.0, (0.0, 0.0), (0.0, 0.0)),
            knot(5.0, 9.0, (0.0, 0.0), (0.0, 0.0)),
            knot(f64::NAN, 9.0, (0.0, 0.0), (0.0, 0.0)),
        ]);
        assert_eq!(s.knots().len(), 2);
        assert_eq!(s.eval(0.0), Some(1.0));
        assert_eq!(s.eval(7.0), Some(2.0));
        assert_eq!(Spline::default().eval(1.0), None);
    }

    #[test]
    fn rising_samples_are_the_values_at_each_x_even_when_x_goes_back() {
        let s = Spline::new(vec![
            knot(0.0, 0.0, (0.0, 0.0), (1.0, 2.0)),
            knot(3.0, 1.0, (-0.5, 0.2), (0.2, -1.0)),
            knot(4.0, -2.0, (-0.3, 0.0), (2.0, 0.5)),
            knot(9.0, 0.5, (-1.0, 0.0), (0.0, 0.0)),
        ]);
        let xs = [
            -1.0,
            0.0,
            0.5,
            3.0,
            3.0,
            3.9,
            4.0,
            8.0,
            2.0,
            2.5,
            9.0,
            12.0,
            1.0,
            f64::NAN,
        ];
        let mut at = s.rising();
        for x in xs {
            assert_eq!(
                at(x).map(f64::to_bits),
                s.eval(x).map(f64::to_bits),
                "at {x}"
            );
        }
        // The hand-computed chord points hold too: the knots themselves.
        let mut at = s.rising();
        assert_eq!(
            [at(0.0), at(3.0), at(4.0), at(9.0)],
            [Some(0.0), Some(1.0), Some(-2.0), Some(0.5)]
        );
        assert_eq!(Spline::default().rising()(1.0), None);
    }
}
