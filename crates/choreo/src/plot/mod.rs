//! See a motion, as `choreo plot` draws it. Every joint's curve over time, one panel per joint group
//! (head, arms, hands, legs: the robot's chains, hands apart since they are opening
//! ratios), as PNG or SVG (by the output's extension).
//!
//! - From a behavior (anything `choreo run` takes): each motion timeline is one section of
//!   the one image, sections stacked in box order, each titled with its box path and fps;
//!   frames along x (seconds on the top axis), keys marked. Curves are sampled four times a
//!   frame, or twice per pixel column when that is fewer points. Under the curves of a
//!   timeline that moves a standing robot's legs (or makes it fall), its balance seen from
//!   above (`choreo check --body`'s judgement from StandInit): the support polygon, the
//!   paths of the centre of mass and the zero-moment point, and where it falls.
//! - From a trace (`--trace run.jsonl`): the `joints` events `choreo run --trace` records,
//!   each joint over behavior time, in one section.
//!
//! Text needs a font: one is read at run time (`CHOREO_PLOT_FONT`, else DejaVu Sans or the
//! first TrueType file under the system font folders). Without one the plot is drawn all
//! the same, with no text, and stderr says so.

mod balance;
mod draw;
mod error;
mod figure;
mod font;
mod found;

pub use draw::{Format, draw};
pub use error::PlotError;
pub use figure::{Figure, from_motion, from_trace};
pub use font::register as register_font;
pub use found::{Found, Located, NoMotion, qianim, timelines_of};
