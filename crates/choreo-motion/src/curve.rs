//! One `ActuatorCurve` of a timeline: its keys in frames and radians (motion.md §3, §4), and
//! its handles resolved into a [`Spline`] (§5, §6), from any frame and posture.

use std::fmt;

use choreo_xar::model::{ActuatorCurve, TangentSide};

use crate::spline::{Handle, Interp, Knot, Spline};

/// Degrees to radians: a joint curve's scale (§4).
const DEGREES: f64 = std::f64::consts::PI / 180.0;
/// The 1/3 rule of Bezier-auto handles (§6.3).
const ALPHA: f64 = 1.0 / 3.0;

/// The factor from a curve's stored values to ALMotion's units (motion.md §4): hands are
/// opening ratios whatever `unit` says (Choregraphe decides by the name, and so do we);
/// every other joint is in degrees, whatever `unit` says (`-1`, absent, `0`, and the
/// `1` no joint curve has).
pub fn scale(actuator: &str) -> f64 {
    if choreo_robot::is_hand(actuator) {
        1.0
    } else {
        DEGREES
    }
}

/// Something in a curve that was mended, or left out, to play it.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Keys out of frame order: sorted.
    Unsorted,
    /// Two keys on one frame: the first kept.
    SameFrame(i32),
    /// An `interpType` this crate does not know: the handle is Bezier-auto.
    UnknownInterp(String),
    /// A Bezier handle longer than its segment, or pointing the wrong way: brought back
    /// within the segment, its direction kept (motion.md §6.1).
    HandleClamped(i32),
    /// A joint the robot does not have: its curve is not played.
    UnknownJoint(String),
    /// Key values beyond the joint's limits, clamped: how many, and the worst one (in
    /// ALMotion units).
    Clamped {
        /// The joint.
        joint: String,
        /// How many key values were clamped.
        keys: usize,
        /// The value furthest out.
        worst: f64,
    },
    /// `RHipYawPitch` follows `LHipYawPitch` (one motor): its own curve is not sent.
    Follower,
    /// The segment from the key at this frame is constant, which `.qianim` cannot say: it
    /// was written as a hold (a key with the same value one frame before the next key) and
    /// linear handles, equal to the constant segment at every whole frame.
    ConstantHeld(i32),
    /// Keys after the timeline's explicit end frame, which the timeline never plays: kept
    /// where a file has no end frame to cut them (`.qianim`).
    PastEnd {
        /// The timeline's `end_frame`.
        end: i32,
        /// How many keys lie after it.
        keys: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Unsorted => write!(f, "keys out of frame order (sorted)"),
            Warning::SameFrame(frame) => {
                write!(f, "two keys on frame {frame} (the first one kept)")
            }
            Warning::UnknownInterp(name) => {
                write!(f, "unknown interpType {name:?} (played as bezier auto)")
            }
            Warning::HandleClamped(frame) => write!(
                f,
                "the Bezier handle of the key at frame {frame} leaves its segment (shortened)"
            ),
            Warning::UnknownJoint(name) => {
                write!(f, "the robot has no joint {name:?} (curve not played)")
            }
            Warning::Clamped { joint, keys, worst } => write!(
                f,
                "{keys} key(s) of {joint} beyond its limits, clamped (furthest: {worst:.4})"
            ),
            Warning::Follower => write!(
                f,
                "RHipYawPitch follows LHipYawPitch (one motor): its curve is not sent"
            ),
            Warning::ConstantHeld(frame) => write!(
                f,
                "the constant segment from frame {frame} is written as a hold key one frame \
                 before the next key, then linear (.qianim has no constant handles)"
            ),
            Warning::PastEnd { end, keys } => write!(
                f,
                "{keys} key(s) after the timeline's end frame {end}, which Choregraphe never \
                 plays, are kept (.qianim has no end frame)"
            ),
        }
    }
}

/// How one side of a key was given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Side {
    /// No handle, or `bezier auto`: computed from the neighbours.
    Auto,
    /// Zero-length.
    Linear,
    /// Holds the segment flat.
    Constant,
    /// Explicit offsets, in frames and the curve's stored unit.
    Bezier(f64, f64),
}

/// A key as stored: frame, value (the curve's stored unit), its two sides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Frame.
    pub frame: i32,
    /// Stored value.
    pub value: f64,
    /// Towards the previous key.
    pub left: Side,
    /// Towards the next key.
    pub right: Side,
}

impl std::hash::Hash for Side {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        if let Side::Bezier(dx, dy) = self {
            dx.to_bits().hash(state);
            dy.to_bits().hash(state);
        }
    }
}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.frame.hash(state);
        self.value.to_bits().hash(state);
        self.left.hash(state);
        self.right.hash(state);
    }
}

/// What is played: the joint, its scale and keys, to the bit (see `Motion`'s hash).
impl std::hash::Hash for Curve {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.actuator.hash(state);
        self.scale.to_bits().hash(state);
        self.keys.hash(state);
    }
}

/// A playable curve: a joint, its scale, and its keys sorted by frame, one per frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The joint (`actuator`).
    pub actuator: String,
    /// Stored unit to ALMotion's ([`scale`]).
    pub scale: f64,
    keys: Vec<Key>,
}

impl Curve {
    /// The curve `c` plays, with what was mended; None for a muted or keyless curve (never
    /// sent: ALMotion rejects an empty order).
    pub fn from_xar(c: &ActuatorCurve) -> (Option<Curve>, Vec<Warning>) {
        let mut warnings = Vec::new();
        if c.mute == Some(true) || c.keys.is_empty() {
            return (None, warnings);
        }
        let mut keys: Vec<Key> = c
            .keys
            .iter()
            .filter(|k| k.value.is_finite())
            .map(|k| {
                let mut side = |which: TangentSide| -> Side {
                    let Some(t) = k.tangents.iter().find(|t| t.side == which) else {
                        return Side::Auto;
                    };
                    let name = t.interp_type.as_deref().unwrap_or("bezier");
                    match Interp::from_name(name) {
                        Some(Interp::Constant) => Side::Constant,
                        Some(Interp::Linear) => Side::Linear,
                        Some(Interp::Bezier)
                            if t.abscissa_param.is_finite() && t.ordinate_param.is_finite() =>
                        {
                            Side::Bezier(t.abscissa_param, t.ordinate_param)
                        }
                        Some(Interp::Bezier | Interp::BezierAuto) => Side::Auto,
                        None => {
                            warnings.push(Warning::UnknownInterp(name.to_string()));
                            Side::Auto
                        }
                    }
                };
                Key {
                    frame: k.frame,
                    value: k.value,
                    left: side(TangentSide::Left),
                    right: side(TangentSide::Right),
                }
            })
            .collect();
        if !keys.windows(2).all(|w| w[0].frame <= w[1].frame) {
            warnings.push(Warning::Unsorted);
            keys.sort_by_key(|k| k.frame);
        }
        let before = keys.len();
        let mut same = Vec::new();
        keys.dedup_by(|later, first| {
            let dup = later.frame == first.frame;
            if dup {
                same.push(later.frame);
            }
            dup
        });
        debug_assert_eq!(before - keys.len(), same.len());
        warnings.extend(same.into_iter().map(Warning::SameFrame));
        if keys.is_empty() {
            return (None, warnings);
        }
        let curve = Curve {
            actuator: c.actuator.clone(),
            scale: scale(&c.actuator),
            keys,
        };
        warnings.extend(curve.long_handles().map(Warning::HandleClamped));
        (Some(curve), warnings)
    }

    /// A curve of `keys` (sorted by frame, one per frame) for joint `actuator`.
    pub fn new(actuator: &str, mut keys: Vec<Key>) -> Curve {
        keys.sort_by_key(|k| k.frame);
        keys.dedup_by_key(|k| k.frame);
        Curve {
            actuator: actuator.to_string(),
            scale: scale(actuator),
            keys,
        }
    }

    /// Its keys, sorted by frame.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// The frames of keys whose explicit handle leaves its segment.
    fn long_handles(&self) -> impl Iterator<Item = i32> + '_ {
        self.keys.iter().enumerate().filter_map(|(i, k)| {
            let prev = i.checked_sub(1).and_then(|p| self.keys.get(p));
            let next = self.keys.get(i + 1);
            let left_bad = match (k.left, prev) {
                (Side::Bezier(a, _), Some(p)) => a > 0.0 || -a > f64::from(k.frame - p.frame),
                _ => false,
            };
            let right_bad = match (k.right, next) {
                (Side::Bezier(a, _), Some(n)) => a < 0.0 || a > f64::from(n.frame - k.frame),
                _ => false,
            };
            (left_bad || right_bad).then_some(k.frame)
        })
    }

    /// The first key frame.
    pub fn first_frame(&self) -> i32 {
        self.keys.first().map_or(0, |k| k.frame)
    }

    /// The last key frame.
    pub fn last_frame(&self) -> i32 {
        self.keys.last().map_or(0, |k| k.frame)
    }

    /// The whole curve in frames and ALMotion units, the first key resolved as an end key
    /// (the editor's view, and libalmath's).
    pub fn spline(&self) -> Spline {
        Spline::new(self.knots(&self.keys, None))
    }

    /// The curve as played from frame `from` with the joint at `posture` (ALMotion units):
    /// the keys at or after `from`, behind a virtual key (`from`, `posture`) against which
    /// the first one's auto handles are resolved (motion.md §6.4), unless a key sits on
    /// `from` (then it is the start: an immediate target). Frames stay frames. A posture that
    /// is not a number (NaN, infinite) is unknown: the joint starts at the first key. None
    /// when no key is left.
    pub fn spline_from(&self, from: i32, posture: f64) -> Option<Spline> {
        let first = self.keys.partition_point(|k| k.frame < from);
        let keys = &self.keys[first..];
        let head = keys.first()?;
        // A non-finite posture would make the virtual knot and the first key's auto handles
        // non-finite, and `Spline::new` would silently drop both: the curve would start at
        // the second key, and `Motion::command_from`, which skips the virtual knot by
        // position, would lose two keys.
        let posture = if posture.is_finite() {
            posture
        } else {
            head.value * self.scale
        };
        let start = (head.frame > from).then_some((from, posture));
        Some(Spline::new(self.knots(keys, start)))
    }

    /// Knots of `keys` scaled, handles resolved; with `start`, a virtual knot in front.
    fn knots(&self, keys: &[Key], start: Option<(i32, f64)>) -> Vec<Knot> {
        let scale = self.scale;
        // Every point in frames and ALMotion units; the virtual start first if any.
        let virtual_key = start.map(|(frame, value)| Key {
            frame,
            value: value / scale,
            left: Side::Linear,
            right: Side::Auto,
        });
        let all: Vec<Key> = virtual_key
            .into_iter()
            .chain(keys.iter().copied())
            .collect();
        let point = |k: &Key| (f64::from(k.frame), k.value * scale);
        (0..all.len())
            .map(|i| {
                let k = &all[i];
                let (x, y) = point(k);
                let prev = i.checked_sub(1).map(|p| point(&all[p]));
                let next = all.get(i + 1).map(point);
                let (auto_left, auto_right) = auto_handles(prev, (x, y), next);
                let resolve = |side: Side, auto: (f64, f64)| match side {
                    Side::Auto => Handle::new(Interp::BezierAuto, auto.0, auto.1),
                    Side::Linear => Handle::LINEAR,
                    Side::Constant => Handle::new(Interp::Constant, 0.0, 0.0),
                    Side::Bezier(a, o) => Handle::new(Interp::Bezier, a, o * scale),
                };
                Knot {
                    x,
                    y,
                    left: resolve(k.left, auto_left),
                    right: resolve(k.right, auto_right),
                }
            })
            .collect()
    }
}

/// The Bezier-auto handles of key `k` between `prev` and `next` (motion.md §6.3): one third
/// of each neighbouring interval long, sloped as the chord from `prev` to `next`, flat at
/// an extremum, shortened so that neither rises past its neighbour. An end key (no
/// neighbour on a side) is flat.
pub fn auto_handles(
    prev: Option<(f64, f64)>,
    k: (f64, f64),
    next: Option<(f64, f64)>,
) -> ((f64, f64), (f64, f64)) {
    let (dt1, dv1) = prev.map_or((0.0, 0.0), |p| (k.0 - p.0, k.1 - p.1));
    let (dt2, dv2) = next.map_or((0.0, 0.0), |n| (n.0 - k.0, n.1 - k.1));
    let mut beta = if dv1 * dv2 <= 0.0 || dt1 + dt2 <= 0.0 {
        0.0
    } else {
        (dv1 + dv2) / (dt1 + dt2)
    };
    let rise2 = (ALPHA * dt2 * beta).abs();
    if rise2 > dv2.abs() {
        beta *= dv2.abs() / rise2;
    }
    let rise1 = (ALPHA * dt1 * beta).abs();
    if rise1 > dv1.abs() {
        beta *= dv1.abs() / rise1;
    }
    (
        (-ALPHA * dt1, -ALPHA * beta * dt1),
        (ALPHA * dt2, ALPHA * beta * dt2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-3 && (a.1 - b.1).abs() < 1e-3
    }

    /// motion.md §6.3's worked examples, computed by hand there.
    #[test]
    fn auto_handles_match_the_worked_examples() {
        let (l, r) = auto_handles(Some((10.0, 0.0)), (20.0, 30.0), Some((25.0, 40.0)));
        assert!(close(l, (-3.333, -8.889)), "{l:?}");
        assert!(close(r, (1.667, 4.444)), "{r:?}");
        let (l, r) = auto_handles(Some((0.0, 0.0)), (10.0, 10.0), Some((40.0, 11.0)));
        assert!(close(l, (-3.333, -0.333)), "{l:?}");
        assert!(close(r, (10.0, 1.0)), "{r:?}");
        let (l, r) = auto_handles(Some((0.0, -13.63)), (39.0, -1.06), Some((304.0, -3.78)));
        assert!(close(l, (-13.0, 0.0)), "{l:?}");
        assert!(close(r, (88.333, 0.0)), "{r:?}");
    }

    #[test]
    fn end_keys_are_flat() {
        let (l, r) = auto_handles(None, (1.0, 5.0), Some((10.0, 20.0)));
        assert_eq!(l, (0.0, 0.0));
        assert!(close(r, (3.0, 0.0)));
        let (l, r) = auto_handles(Some((1.0, 5.0)), (10.0, 20.0), None);
        assert!(close(l, (-3.0, 0.0)));
        assert_eq!(r, (0.0, 0.0));
    }

    #[test]
    fn hands_are_never_degrees() {
        assert_eq!(scale("LHand"), 1.0);
        assert_eq!(scale("RHand"), 1.0);
        assert!((scale("HeadYaw") - DEGREES).abs() < 1e-15);
    }
}
