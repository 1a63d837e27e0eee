//! The motors' speed limits: a joint follows what it is asked, but never faster than its
//! motor's maximum speed (`choreo_robot::Joint::max_speed`, the URDFs' `velocity`), so a key
//! asked too fast is reached late. What the simulated joints do, and what `choreo check
//! --body` measures (how late each key is).

/// Follows `wanted` (one value every `dt` s from the first, which is where the joint
/// starts) at no more than `max_speed` units per second.
pub fn follow(wanted: &[f64], dt: f64, max_speed: f64) -> Vec<f64> {
    let step = max_speed * dt;
    let mut out = Vec::with_capacity(wanted.len());
    let mut here = match wanted.first() {
        Some(&first) => first,
        None => return out,
    };
    for &w in wanted {
        here += (w - here).clamp(-step, step);
        out.push(here);
    }
    out
}

/// When the followed path `actual` (every `dt` s) first comes within `tolerance` of `value`
/// at or after sample `from`: s after sample `from`; `None` if it never does.
pub fn reached(actual: &[f64], dt: f64, from: usize, value: f64, tolerance: f64) -> Option<f64> {
    actual
        .iter()
        .skip(from)
        .position(|a| (a - value).abs() <= tolerance)
        .map(|i| i as f64 * dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_climbed_at_the_maximum_speed() {
        // From 0 to 1 at once, at 10 units/s sampled every 10 ms: 0.1 per sample.
        let mut wanted = vec![0.0];
        wanted.extend(std::iter::repeat_n(1.0, 20));
        let got = follow(&wanted, 0.01, 10.0);
        assert!((got[5] - 0.5).abs() < 1e-12, "{got:?}");
        assert_eq!(reached(&got, 0.01, 1, 1.0, 1e-9), Some(0.09));
    }
}
