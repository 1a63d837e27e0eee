//! choreo-motion: the motion curves of Choregraphe timelines, played as the reference
//! runtime plays them (docs/motion.md). A pure library: no I/O, no robot.
//!
//! - [`spline`]: piecewise cubic Bezier curves and their evaluation (any abscissa);
//! - [`curve`]: one `ActuatorCurve` in frames and ALMotion units, handles resolved
//!   (explicit, linear, constant, Bezier-auto with the 1/3 rule), from any frame and posture;
//! - [`motion`]: a timeline's playable curves for a robot model, the
//!   `angleInterpolationBezier` order a play sends from a frame, values at a frame and
//!   samples at many; the motion timelines of a behavior, by box path;
//! - [`command`]: that order, and the trajectory it makes a joint follow (what the
//!   simulated robot plays).
//! - [`qianim`]: the `.qianim` v2 animation format of NAOqi 2.9 / QiSDK, written from a
//!   timeline's curves and read back.
//!
//! What a robot is (joints, limits, which model a file is for) is `choreo_robot`'s.
//!
//! ```
//! use choreo_motion::curve::{Curve, Key, Side};
//! let key = |frame, value| Key { frame, value, left: Side::Auto, right: Side::Auto };
//! let c = Curve::new("HeadYaw", vec![key(1, 0.0), key(26, 90.0)]);
//! let half = c.spline().eval(13.5).unwrap_or(f64::NAN);
//! assert!((half - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
//! ```

pub mod command;
pub mod curve;
pub mod motion;
pub mod qianim;
pub mod spline;

pub use command::{BezierCommand, BezierKey};
pub use curve::{Curve, Warning};
pub use motion::Motion;
pub use spline::{Handle, Interp, Knot, Spline};
