//! `.qianim` v2: the XML animation format NAOqi 2.9 and QiSDK apps play (libalmath's
//! `almath/scenegraph/qianim.h`), written from a timeline's curves and read back into
//! [`Curve`]s. Bytes and strings only: no file is opened here.
//!
//! ```xml
//! <?xml version="1.0" encoding="utf-8"?>
//! <Animation typeVersion="2.0" xmlns:editor="http://www.aldebaran.com/animation/editor">
//!   <ActuatorCurve actuator="HeadYaw" mute="0" fps="25" unit="degree">
//!     <Key frame="0" value="-13.6">
//!       <Tangent side="right" abscissaParam="13" ordinateParam="0" editor:interpType="bezier_auto"/>
//!     </Key>
//!     <Key frame="39" value="-1.05">
//!       <Tangent side="left" abscissaParam="-13" ordinateParam="-0" editor:interpType="bezier_auto"/>
//!     </Key>
//!   </ActuatorCurve>
//! </Animation>
//! ```
//!
//! # What libalmath requires, and so what [`write()`] always writes
//!
//! libalmath's check of a v2 document (`Animation::check_all`) reads, and throws without:
//! - `Animation typeVersion="2.0"` (`check_version`); the curves are the `ActuatorCurve`
//!   children of `Animation` itself (v1's `ActuatorList` is gone);
//! - on every `ActuatorCurve`: `actuator`, an integer `fps` > 0 (fps is per curve in v2),
//!   and `unit`, one of the words `degree`, `radian`, `dimensionless`, `meter` (a numeric
//!   XAR unit, or none, is refused); `mute` may be absent (false);
//! - on every `Key`: an integer `frame` ≥ 0 and a `value`; frames strictly increasing;
//! - for every two consecutive keys, the **right `Tangent` of the first and the left
//!   `Tangent` of the second**, each with `side`, `abscissaParam` and `ordinateParam`
//!   (`apply_cubic_bezier`). A key without them is what made the labs' draft converter's
//!   files fail with "uninitialized optional" (the missing tangent is a `boost::optional`
//!   read without a value), and what every key of a XAR file is for Bezier-auto;
//! - a right abscissa in `[0, Δ]` and a left one in `[−Δ, 0]`, `Δ` the segment's length in
//!   frames (`check_cubic_bezier`).
//!
//! The exterior handles (left of the first key, right of the last) belong to no segment and
//! are not required. `editor:interpType` (namespace [`EDITOR_NAMESPACE`]) is the editor's
//! memory of how a handle was made; the player only uses the two offsets.
//!
//! # Choices
//!
//! - **Frames.** `.qianim` frames count from 0 where XAR's count from 1: XAR frame `f` is
//!   file frame `f − 1` ([`FRAME_SHIFT`]), as libalmath's XAR migration does, so that a
//!   timeline started at frame 1 (every 2.x timeline) plays its first frame at time 0. A key
//!   before XAR frame 1 has no file frame: [`WriteError::Frame`] (no surveyed key is there).
//!   A 1.x timeline that starts at frame 0 therefore plays one frame earlier than in
//!   Choregraphe (40 ms at 25 fps), all of it: the shift libalmath's migration makes too.
//!   A `.qianim` has no start or end frame: every key is written, even those after an
//!   explicit `end_frame` that the timeline never plays ([`Warning::PastEnd`]).
//! - **Units.** Values are written as they are stored, in the unit that says so
//!   ([`Unit::of`]): `degree` for joints, `dimensionless` for `LHand`/`RHand` (hands are
//!   never degrees, motion.md §4). Reading converts `radian` joint curves to degrees (values
//!   and ordinates, never abscissas); any other unit that does not fit the actuator (a hand
//!   in degrees, a joint in `meter`) is [`ReadError::UnitMismatch`].
//! - **Handles.** Bezier-auto sides are written `bezier_auto` with their offsets resolved by
//!   the 1/3 rule ([`crate::curve::auto_handles`], the first and last keys flat, as
//!   libalmath's migration does, where Choregraphe resolved the first key against the
//!   robot's posture at run time: motion.md §6.4); linear sides `linear` with offsets
//!   `(0, 0)`; explicit handles `bezier` with their offsets, shortened into their segment
//!   when they leave it (direction kept, the migration's and our player's rule:
//!   [`Warning::HandleClamped`]). Exterior handles are written when explicit or linear,
//!   left out when auto.
//! - **Constant** segments (a constant right side, or a constant left side of the next
//!   key) do not exist in v2 (the migration throws). They are written as a **hold**: linear
//!   handles and an extra key with the same value one frame before the next key (when the
//!   segment is longer than one frame), so the curve equals the constant one at every whole
//!   frame and ramps during the last frame instead of jumping at its end
//!   ([`Warning::ConstantHeld`]). Read back, they are linear keys.
//! - **Reading is lenient where the meaning is settled, strict elsewhere.** A missing
//!   tangent is Bezier-auto (the XAR rule, motion.md §5; libalmath would refuse the file);
//!   a tangent is read back as auto when it says `bezier_auto` and its offsets are the
//!   1/3 rule's (so the robot plays the same), as linear when it says `linear` with offsets
//!   `(0, 0)`, and otherwise as an explicit Bezier handle with its offsets, which are what
//!   the robot plays. Everything libalmath checks is checked, and anything else in the
//!   document (labels, editor attributes) is passed over.

use std::fmt;

use choreo_xar::model::{ActuatorCurve, BoxDef, Timeline};
use choreo_xar::project_files::{XmlDocument, XmlElement, XmlNode, XmlStyle};
use choreo_xar::{Real, TextPosition};

use crate::curve::{Curve, Key, Side, Warning, auto_handles};
use crate::spline::{Interp, shrink};

/// The one `typeVersion` read and written.
pub const VERSION: &str = "2.0";

/// The namespace of the editor's attributes (`editor:interpType`).
pub const EDITOR_NAMESPACE: &str = "http://www.aldebaran.com/animation/editor";

/// XAR frame `f` is `.qianim` frame `f − FRAME_SHIFT` (XAR counts from 1, `.qianim` from 0).
pub const FRAME_SHIFT: i32 = 1;

/// The XML declaration written first.
const DECLARATION: &str = r#"<?xml version="1.0" encoding="utf-8"?>"#;

/// A byte-order mark, which the XML reader skips (positions count after it).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How near a `bezier_auto` tangent's offsets must be to the 1/3 rule's to be read as auto:
/// relative, loose enough for the 32-bit floats libalmath writes.
const AUTO_TOLERANCE: f64 = 1e-4;

/// The unit of a curve's values and tangent ordinates (`ActuatorCurve unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Joint angles as Choregraphe stores them.
    Degree,
    /// Joint angles as ALMotion takes them.
    Radian,
    /// A ratio: the hands' opening.
    Dimensionless,
    /// Lengths.
    Meter,
}

impl Unit {
    /// The attribute value.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Degree => "degree",
            Unit::Radian => "radian",
            Unit::Dimensionless => "dimensionless",
            Unit::Meter => "meter",
        }
    }

    /// The unit an attribute value names; None for another word (or a number).
    pub fn from_name(name: &str) -> Option<Unit> {
        match name {
            "degree" => Some(Unit::Degree),
            "radian" => Some(Unit::Radian),
            "dimensionless" => Some(Unit::Dimensionless),
            "meter" => Some(Unit::Meter),
            _ => None,
        }
    }

    /// The unit a [`Curve`] of `actuator` holds its values in, and so the one written:
    /// `dimensionless` for `LHand`/`RHand`, `degree` for every other actuator (motion.md §4).
    pub fn of(actuator: &str) -> Unit {
        if choreo_robot::is_hand(actuator) {
            Unit::Dimensionless
        } else {
            Unit::Degree
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `ActuatorCurve`: a curve with its own clock, maybe muted.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// The curve, in XAR frames and its stored unit ([`Unit::of`]).
    pub curve: Curve,
    /// Frames per second (v2 gives every curve its own).
    pub fps: i32,
    /// Not played (`mute="1"`).
    pub mute: bool,
}

/// A `.qianim` document: its curves in document order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Animation {
    /// The curves.
    pub tracks: Vec<Track>,
}

impl Animation {
    /// `curves`, unmuted, all at `fps`.
    pub fn new(fps: i32, curves: impl IntoIterator<Item = Curve>) -> Animation {
        Animation {
            tracks: curves
                .into_iter()
                .map(|curve| Track {
                    curve,
                    fps,
                    mute: false,
                })
                .collect(),
        }
    }

    /// The animation of a timeline, with what was mended in its curves (by actuator); None
    /// unless it is a motion timeline: fps > 0 and an `ActuatorList` with at least one
    /// playable curve (unmuted, keyed). Every keyed curve is kept, muted ones as muted
    /// tracks (as libalmath's migration keeps them), in file order; keys are as
    /// [`Curve::from_xar`] reads them (long handles are reported by [`write()`], which
    /// shortens them). Keys after an explicit `end_frame`, which the timeline never plays,
    /// are kept too (a `.qianim` has no end frame), with [`Warning::PastEnd`].
    pub fn from_timeline(timeline: &Timeline) -> Option<(Animation, Vec<(String, Warning)>)> {
        let list = timeline.actuator_list.as_ref()?;
        let fps = timeline.fps();
        if fps <= 0 {
            return None;
        }
        let mut tracks = Vec::new();
        let mut warnings = Vec::new();
        for c in &list.curves {
            let mute = c.mute == Some(true);
            let unmuted;
            let source = if mute {
                unmuted = ActuatorCurve {
                    mute: None,
                    ..c.clone()
                };
                &unmuted
            } else {
                c
            };
            let (curve, found) = Curve::from_xar(source);
            warnings.extend(
                found
                    .into_iter()
                    .filter(|w| !matches!(w, Warning::HandleClamped(_)))
                    .map(|w| (c.actuator.clone(), w)),
            );
            let Some(curve) = curve else { continue };
            let end = timeline.end_frame();
            let past = curve.keys().iter().filter(|k| k.frame > end).count();
            if end >= 1 && past > 0 && !mute {
                let w = Warning::PastEnd { end, keys: past };
                warnings.push((c.actuator.clone(), w));
            }
            tracks.push(Track { curve, fps, mute });
        }
        let playable = tracks.iter().any(|t| !t.mute);
        playable.then_some((Animation { tracks }, warnings))
    }

    /// The fps every track shares; None when there is no track or they differ.
    pub fn fps(&self) -> Option<i32> {
        let first = self.tracks.first()?.fps;
        self.tracks.iter().all(|t| t.fps == first).then_some(first)
    }

    /// The curves played (muted tracks left out).
    pub fn curves(&self) -> impl Iterator<Item = &Curve> {
        self.tracks.iter().filter(|t| !t.mute).map(|t| &t.curve)
    }
}

/// The animation of one box's motion timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxAnimation {
    /// The box's path from the root box, names joined by `/` (`root/Tai Chi Chuan`).
    pub path: String,
    /// Its timeline's curves ([`Animation::from_timeline`]).
    pub animation: Animation,
    /// What was mended in them, by actuator.
    pub warnings: Vec<(String, Warning)>,
}

/// Every motion timeline in the box tree under `root` (`root` included), parents before
/// children, in file order: the boxes whose timeline [`Animation::from_timeline`] accepts.
pub fn box_animations(root: &BoxDef) -> Vec<BoxAnimation> {
    fn visit(b: &BoxDef, parent: Option<&str>, out: &mut Vec<BoxAnimation>) {
        let path = match parent {
            Some(p) => format!("{p}/{}", b.name),
            None => b.name.clone(),
        };
        if let Some((animation, warnings)) = b.timeline.as_ref().and_then(Animation::from_timeline)
        {
            out.push(BoxAnimation {
                path: path.clone(),
                animation,
                warnings,
            });
        }
        for d in b.diagrams() {
            for child in &d.boxes {
                visit(child, Some(&path), out);
            }
        }
    }
    let mut out = Vec::new();
    visit(root, None, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A written document and what had to change to write it (by actuator).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The `.qianim` text (UTF-8).
    pub text: String,
    /// Constant segments held ([`Warning::ConstantHeld`]), handles shortened
    /// ([`Warning::HandleClamped`]).
    pub warnings: Vec<(String, Warning)>,
}

/// Why an animation cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// A track's fps is not positive (libalmath requires fps > 0).
    #[error("{actuator}: fps {fps}: a .qianim curve needs a positive fps")]
    Fps {
        /// The curve's actuator.
        actuator: String,
        /// The fps.
        fps: i32,
    },
    /// A key before XAR frame 1: `.qianim` frames start at 0 (= XAR frame 1).
    #[error(
        "{actuator}: key at frame {frame}: .qianim frames start at XAR frame 1, written as frame 0"
    )]
    Frame {
        /// The curve's actuator.
        actuator: String,
        /// The key's (XAR) frame.
        frame: i32,
    },
    /// A value or handle offset that is not a finite number.
    #[error("{actuator}: key at frame {frame}: a value or handle offset is not a finite number")]
    NotFinite {
        /// The curve's actuator.
        actuator: String,
        /// The key's (XAR) frame.
        frame: i32,
    },
}

/// How a written handle was made (`editor:interpType`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Made {
    Linear,
    Bezier,
    Auto,
}

impl Made {
    fn name(self) -> &'static str {
        match self {
            Made::Linear => "linear",
            Made::Bezier => "bezier",
            Made::Auto => "bezier_auto",
        }
    }
}

/// A handle as written: how it was made, its offsets (frames, the curve's unit).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FileHandle {
    made: Made,
    abscissa: f64,
    ordinate: f64,
}

const LINEAR: FileHandle = FileHandle {
    made: Made::Linear,
    abscissa: 0.0,
    ordinate: 0.0,
};

/// A key as written: file frame, value, the handles the file holds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FileKey {
    frame: i32,
    value: f64,
    left: Option<FileHandle>,
    right: Option<FileHandle>,
}

/// Writes `animation` as a `.qianim` v2 document with every attribute and tangent libalmath
/// requires (see the module's documentation).
pub fn write(animation: &Animation) -> Result<Written, WriteError> {
    let mut root = XmlElement::new("Animation");
    root.attributes = vec![
        attribute("typeVersion", VERSION),
        attribute("xmlns:editor", EDITOR_NAMESPACE),
    ];
    let mut warnings = Vec::new();
    for track in &animation.tracks {
        let actuator = &track.curve.actuator;
        if track.fps <= 0 {
            return Err(WriteError::Fps {
                actuator: actuator.clone(),
                fps: track.fps,
            });
        }
        let (keys, found) = file_keys(&track.curve)?;
        warnings.extend(found.into_iter().map(|w| (actuator.clone(), w)));
        let mut curve = XmlElement::new("ActuatorCurve");
        curve.attributes = vec![
            attribute("actuator", actuator),
            attribute("mute", if track.mute { "1" } else { "0" }),
            attribute("fps", &track.fps.to_string()),
            attribute("unit", Unit::of(actuator).name()),
        ];
        curve.children = keys
            .iter()
            .map(|k| XmlNode::Element(key_element(k)))
            .collect();
        root.children.push(XmlNode::Element(curve));
    }
    let document = XmlDocument {
        declaration: Some(DECLARATION.to_string()),
        prolog: Vec::new(),
        root,
        epilog: None,
        style: XmlStyle {
            indent: "  ".to_string(),
            space_before_slash: false,
        },
    };
    Ok(Written {
        text: document.to_xml(),
        warnings,
    })
}

fn attribute(name: &str, value: &str) -> (String, String) {
    (name.to_string(), value.to_string())
}

/// A number as written: as Choregraphe spells it in XAR files ([`Real`]: the shortest digits
/// that read back exactly, `4.82967e-06` for small ones), which boost's stream extraction
/// reads as well as ours.
fn number(v: f64) -> String {
    Real(v).to_string()
}

fn key_element(k: &FileKey) -> XmlElement {
    let mut key = XmlElement::new("Key");
    key.attributes = vec![
        attribute("frame", &k.frame.to_string()),
        attribute("value", &number(k.value)),
    ];
    for (side, handle) in [("left", k.left), ("right", k.right)] {
        let Some(h) = handle else { continue };
        let mut tangent = XmlElement::new("Tangent");
        tangent.attributes = vec![
            attribute("side", side),
            attribute("abscissaParam", &number(h.abscissa)),
            attribute("ordinateParam", &number(h.ordinate)),
            attribute("editor:interpType", h.made.name()),
        ];
        key.children.push(XmlNode::Element(tangent));
    }
    key
}

/// Whether the segment from `k0` to `k1` is constant (either side says so).
fn held(k0: &Key, k1: &Key) -> bool {
    k0.right == Side::Constant || k1.left == Side::Constant
}

/// The keys of `curve` as the file holds them: frames shifted, every segment's two handles
/// resolved, constant segments held (see the module's documentation).
fn file_keys(curve: &Curve) -> Result<(Vec<FileKey>, Vec<Warning>), WriteError> {
    let keys = curve.keys();
    for k in keys {
        let error = |frame| (curve.actuator.clone(), frame);
        if k.frame < FRAME_SHIFT {
            let (actuator, frame) = error(k.frame);
            return Err(WriteError::Frame { actuator, frame });
        }
        let finite = |s: Side| match s {
            Side::Bezier(a, o) => a.is_finite() && o.is_finite(),
            _ => true,
        };
        if !(k.value.is_finite() && finite(k.left) && finite(k.right)) {
            let (actuator, frame) = error(k.frame);
            return Err(WriteError::NotFinite { actuator, frame });
        }
    }
    let point = |k: &Key| (f64::from(k.frame), k.value);
    let mut out = Vec::with_capacity(keys.len());
    let mut warnings = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| keys.get(p));
        let next = keys.get(i + 1);
        let (auto_left, auto_right) = auto_handles(prev.map(point), point(k), next.map(point));
        let mut clamped = false;
        let mut inside = |side, auto, neighbour: &Key, sign: f64| {
            let (handle, shortened) = interior(side, auto, (k.frame - neighbour.frame).abs(), sign);
            clamped |= shortened;
            handle
        };
        let left = match prev {
            None => exterior(k.left),
            Some(p) if held(p, k) => Some(LINEAR),
            Some(p) => Some(inside(k.left, auto_left, p, -1.0)),
        };
        let right = match next {
            None => exterior(k.right),
            Some(n) if held(k, n) => Some(LINEAR),
            Some(n) => Some(inside(k.right, auto_right, n, 1.0)),
        };
        if clamped {
            warnings.push(Warning::HandleClamped(k.frame));
        }
        out.push(FileKey {
            frame: k.frame - FRAME_SHIFT,
            value: k.value,
            left,
            right,
        });
        if let Some(n) = next.filter(|n| held(k, n)) {
            warnings.push(Warning::ConstantHeld(k.frame));
            if n.frame - k.frame >= 2 {
                out.push(FileKey {
                    frame: n.frame - 1 - FRAME_SHIFT,
                    value: k.value,
                    left: Some(LINEAR),
                    right: Some(LINEAR),
                });
            }
        }
    }
    Ok((out, warnings))
}

/// The handle written for `side` inside a segment `length` frames long, on the left
/// (`sign` −1) or the right (+1) of its key, `auto` its Bezier-auto offsets; and whether an
/// explicit handle had to be shortened into the segment.
fn interior(side: Side, auto: (f64, f64), length: i32, sign: f64) -> (FileHandle, bool) {
    match side {
        Side::Auto => (
            FileHandle {
                made: Made::Auto,
                abscissa: auto.0,
                ordinate: auto.1,
            },
            false,
        ),
        Side::Linear | Side::Constant => (LINEAR, false),
        Side::Bezier(a, o) => {
            let (reach, rise) = shrink(sign * a, o, f64::from(length));
            let (a2, o2) = (sign * reach, rise);
            let shortened = a2 != a || o2 != o;
            let (abscissa, ordinate) = if shortened { (a2, o2) } else { (a, o) };
            let handle = FileHandle {
                made: Made::Bezier,
                abscissa,
                ordinate,
            };
            (handle, shortened)
        }
    }
}

/// The handle written for an exterior `side` (no segment): explicit and linear ones kept,
/// auto and constant ones left out.
fn exterior(side: Side) -> Option<FileHandle> {
    match side {
        Side::Auto | Side::Constant => None,
        Side::Linear => Some(LINEAR),
        Side::Bezier(abscissa, ordinate) => Some(FileHandle {
            made: Made::Bezier,
            abscissa,
            ordinate,
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Where in a document: file, line and column (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file name given to [`read()`].
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Why a document is not a `.qianim` v2 animation; each names the place and element.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// Not well-formed XML: not UTF-8, truncated, a syntax error (the XML reader's
    /// diagnostic, with file, line and column).
    #[error(transparent)]
    Xml(#[from] choreo_xar::Error),
    /// The root element is not `Animation`.
    #[error("{at}: the root element is <{found}>, not <Animation>")]
    NotAnimation {
        /// Where.
        at: Place,
        /// The root's name.
        found: String,
    },
    /// `typeVersion` is absent or not `2.0`.
    #[error("{at}: <Animation typeVersion={found:?}>: only .qianim version 2.0 is read")]
    Version {
        /// Where.
        at: Place,
        /// What it says, if anything.
        found: Option<String>,
    },
    /// A required attribute is absent.
    #[error("{at}: <{element}> has no {attribute} attribute")]
    MissingAttribute {
        /// Where.
        at: Place,
        /// The element.
        element: &'static str,
        /// The attribute.
        attribute: &'static str,
    },
    /// An attribute's value is not what it must be.
    #[error("{at}: <{element} {attribute}={value:?}>: expected {expected}")]
    BadValue {
        /// Where.
        at: Place,
        /// The element.
        element: &'static str,
        /// The attribute.
        attribute: &'static str,
        /// What it says.
        value: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A unit the actuator cannot have (a hand in degrees, a joint in meters).
    #[error("{at}: <ActuatorCurve actuator={actuator:?} unit=\"{unit}\">: {expected}")]
    UnitMismatch {
        /// Where.
        at: Place,
        /// The curve's actuator.
        actuator: String,
        /// Its unit.
        unit: Unit,
        /// What it must be.
        expected: &'static str,
    },
    /// A key whose frame does not come after the previous key's.
    #[error(
        "{at}: <Key frame=\"{frame}\"> of {actuator} does not come after the key at frame {previous}"
    )]
    KeyOrder {
        /// Where.
        at: Place,
        /// The curve's actuator.
        actuator: String,
        /// Its frame (as in the file).
        frame: i32,
        /// The previous key's frame.
        previous: i32,
    },
    /// Two tangents on one side of a key.
    #[error("{at}: a second {side} <Tangent> on the key at frame {frame} of {actuator}")]
    DuplicateTangent {
        /// Where (the second tangent).
        at: Place,
        /// The curve's actuator.
        actuator: String,
        /// The key's frame (as in the file).
        frame: i32,
        /// `left` or `right`.
        side: &'static str,
    },
    /// A tangent whose abscissa leaves its segment (libalmath's `check_cubic_bezier`).
    #[error(
        "{at}: the {side} <Tangent abscissaParam=\"{abscissa}\"> of the key at frame {frame} of {actuator} leaves its {length}-frame segment"
    )]
    HandleRange {
        /// Where (the tangent).
        at: Place,
        /// The curve's actuator.
        actuator: String,
        /// The key's frame (as in the file).
        frame: i32,
        /// `left` or `right`.
        side: &'static str,
        /// The abscissa.
        abscissa: f64,
        /// The segment's length in frames.
        length: i32,
    },
}

/// Reads a `.qianim` v2 document (`file` names it in errors). Frames come back as XAR
/// frames, values in the unit [`Unit::of`] the actuator (radian joint curves converted to
/// degrees); see the module's documentation for what is checked.
pub fn read(file: &str, bytes: &[u8]) -> Result<Animation, ReadError> {
    let document = XmlDocument::parse(file, bytes)?;
    // The reader has checked the text; positions count after a byte-order mark, as its do.
    let text = std::str::from_utf8(bytes.strip_prefix(BOM).unwrap_or(bytes)).unwrap_or("");
    let reader = Reader { file, text };
    let root = &document.root;
    if root.name != "Animation" {
        return Err(ReadError::NotAnimation {
            at: reader.place(root),
            found: root.name.clone(),
        });
    }
    let version = root.attribute("typeVersion");
    if version != Some(VERSION) {
        return Err(ReadError::Version {
            at: reader.place(root),
            found: version.map(str::to_string),
        });
    }
    let tracks = root
        .elements()
        .filter(|e| e.name == "ActuatorCurve")
        .map(|e| reader.track(e))
        .collect::<Result<_, _>>()?;
    Ok(Animation { tracks })
}

/// A tangent as read (offsets in the curve's stored unit).
#[derive(Debug, Clone, Copy)]
struct ReadTangent {
    made: Option<Interp>,
    abscissa: f64,
    ordinate: f64,
    offset: usize,
}

/// A key as read (file frame, stored unit).
#[derive(Debug, Clone, Copy)]
struct ReadKey {
    frame: i32,
    value: f64,
    left: Option<ReadTangent>,
    right: Option<ReadTangent>,
}

/// The document's text and name, for places.
struct Reader<'a> {
    file: &'a str,
    text: &'a str,
}

impl Reader<'_> {
    fn place(&self, el: &XmlElement) -> Place {
        self.place_at(el.offset())
    }

    fn place_at(&self, offset: usize) -> Place {
        let p = TextPosition::of_offset(self.text, offset);
        Place {
            file: self.file.to_string(),
            line: p.line,
            column: p.column,
        }
    }

    fn required<'e>(
        &self,
        el: &'e XmlElement,
        element: &'static str,
        attribute: &'static str,
    ) -> Result<&'e str, ReadError> {
        el.attribute(attribute)
            .ok_or_else(|| ReadError::MissingAttribute {
                at: self.place(el),
                element,
                attribute,
            })
    }

    fn bad(
        &self,
        el: &XmlElement,
        element: &'static str,
        attribute: &'static str,
        value: &str,
        expected: &'static str,
    ) -> ReadError {
        ReadError::BadValue {
            at: self.place(el),
            element,
            attribute,
            value: value.to_string(),
            expected,
        }
    }

    /// A required integer attribute, at least `min`.
    fn int(
        &self,
        el: &XmlElement,
        element: &'static str,
        attribute: &'static str,
        min: i32,
        expected: &'static str,
    ) -> Result<i32, ReadError> {
        let text = self.required(el, element, attribute)?;
        text.trim()
            .parse::<i32>()
            .ok()
            .filter(|v| *v >= min)
            .ok_or_else(|| self.bad(el, element, attribute, text, expected))
    }

    /// A required finite number attribute.
    fn float(
        &self,
        el: &XmlElement,
        element: &'static str,
        attribute: &'static str,
    ) -> Result<f64, ReadError> {
        let text = self.required(el, element, attribute)?;
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.bad(el, element, attribute, text, "a finite number"))
    }

    fn track(&self, el: &XmlElement) -> Result<Track, ReadError> {
        const CURVE: &str = "ActuatorCurve";
        let actuator = self.required(el, CURVE, "actuator")?.to_string();
        let fps = self.int(el, CURVE, "fps", 1, "a positive integer")?;
        let mute = match el.attribute("mute").map(str::trim) {
            None | Some("0" | "false") => false,
            Some("1" | "true") => true,
            Some(other) => return Err(self.bad(el, CURVE, "mute", other, "0, 1, true or false")),
        };
        let unit_text = self.required(el, CURVE, "unit")?;
        let unit = Unit::from_name(unit_text.trim()).ok_or_else(|| {
            self.bad(
                el,
                CURVE,
                "unit",
                unit_text,
                "degree, radian, dimensionless or meter",
            )
        })?;
        let mismatch = |expected| ReadError::UnitMismatch {
            at: self.place(el),
            actuator: actuator.clone(),
            unit,
            expected,
        };
        // The factor from the file's unit to the stored one (Unit::of).
        let factor = match (Unit::of(&actuator), unit) {
            (Unit::Dimensionless, Unit::Dimensionless) | (Unit::Degree, Unit::Degree) => 1.0,
            (Unit::Degree, Unit::Radian) => 180.0 / std::f64::consts::PI,
            (Unit::Dimensionless, _) => {
                return Err(mismatch("a hand's opening is dimensionless"));
            }
            _ => return Err(mismatch("a joint angle is in degree or radian")),
        };
        let mut keys: Vec<ReadKey> = Vec::new();
        for k in el.elements().filter(|e| e.name == "Key") {
            let key = self.key(k, &actuator, factor)?;
            if let Some(last) = keys.last()
                && key.frame <= last.frame
            {
                return Err(ReadError::KeyOrder {
                    at: self.place(k),
                    actuator,
                    frame: key.frame,
                    previous: last.frame,
                });
            }
            keys.push(key);
        }
        self.check_ranges(&keys, &actuator)?;
        Ok(Track {
            curve: Curve::new(&actuator, curve_keys(&keys)),
            fps,
            mute,
        })
    }

    fn key(&self, el: &XmlElement, actuator: &str, factor: f64) -> Result<ReadKey, ReadError> {
        const KEY: &str = "Key";
        let frame = self.int(el, KEY, "frame", 0, "a non-negative integer")?;
        if frame.checked_add(FRAME_SHIFT).is_none() {
            let text = frame.to_string();
            return Err(self.bad(el, KEY, "frame", &text, "a smaller frame"));
        }
        let value = self.float(el, KEY, "value")? * factor;
        let mut key = ReadKey {
            frame,
            value,
            left: None,
            right: None,
        };
        for t in el.elements().filter(|e| e.name == "Tangent") {
            const TANGENT: &str = "Tangent";
            let side_text = self.required(t, TANGENT, "side")?;
            let (side, slot) = match side_text.trim() {
                "left" => ("left", &mut key.left),
                "right" => ("right", &mut key.right),
                _ => return Err(self.bad(t, TANGENT, "side", side_text, "left or right")),
            };
            let abscissa = self.float(t, TANGENT, "abscissaParam")?;
            let ordinate = self.float(t, TANGENT, "ordinateParam")? * factor;
            let made = t
                .attributes
                .iter()
                .find(|(name, _)| name == "interpType" || name.ends_with(":interpType"))
                .and_then(|(_, v)| Interp::from_name(v));
            if slot.is_some() {
                return Err(ReadError::DuplicateTangent {
                    at: self.place(t),
                    actuator: actuator.to_string(),
                    frame,
                    side,
                });
            }
            *slot = Some(ReadTangent {
                made,
                abscissa,
                ordinate,
                offset: t.offset(),
            });
        }
        Ok(key)
    }

    /// libalmath's `check_cubic_bezier`: in every segment, the right abscissa of its first
    /// key in `[0, Δ]`, the left one of its second in `[−Δ, 0]`.
    fn check_ranges(&self, keys: &[ReadKey], actuator: &str) -> Result<(), ReadError> {
        for pair in keys.windows(2) {
            let [k0, k1] = pair else { continue };
            let length = k1.frame - k0.frame;
            let delta = f64::from(length);
            let sides = [
                (k0, "right", k0.right, 0.0..=delta),
                (k1, "left", k1.left, -delta..=0.0),
            ];
            for (key, side, tangent, allowed) in sides {
                let Some(t) = tangent.filter(|t| !allowed.contains(&t.abscissa)) else {
                    continue;
                };
                return Err(ReadError::HandleRange {
                    at: self.place_at(t.offset),
                    actuator: actuator.to_string(),
                    frame: key.frame,
                    side,
                    abscissa: t.abscissa,
                    length,
                });
            }
        }
        Ok(())
    }
}

/// The keys of a curve from the keys read (sorted, ranges checked): XAR frames, and each
/// side's meaning (see the module's documentation).
fn curve_keys(keys: &[ReadKey]) -> Vec<Key> {
    let point = |k: &ReadKey| (f64::from(k.frame), k.value);
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            let prev = i.checked_sub(1).and_then(|p| keys.get(p)).map(point);
            let next = keys.get(i + 1).map(point);
            let (auto_left, auto_right) = auto_handles(prev, point(k), next);
            Key {
                frame: k.frame + FRAME_SHIFT,
                value: k.value,
                left: side_of(k.left, auto_left),
                right: side_of(k.right, auto_right),
            }
        })
        .collect()
}

/// What a tangent read means, given the side's Bezier-auto offsets.
fn side_of(tangent: Option<ReadTangent>, auto: (f64, f64)) -> Side {
    let Some(t) = tangent else {
        return Side::Auto;
    };
    let near = |a: f64, b: f64| (a - b).abs() <= AUTO_TOLERANCE * (1.0 + b.abs());
    match t.made {
        Some(Interp::BezierAuto) if near(t.abscissa, auto.0) && near(t.ordinate, auto.1) => {
            Side::Auto
        }
        Some(Interp::Linear) if t.abscissa == 0.0 && t.ordinate == 0.0 => Side::Linear,
        _ => Side::Bezier(t.abscissa, t.ordinate),
    }
}
