//! `.qianim` v2: writing, reading back, the hand-written golden file, and malformed input.

use crate::support;

use choreo_motion::curve::{Curve, Key, Side, Warning};
use choreo_motion::qianim::{self, Animation, ReadError, Track, Unit, WriteError};
use choreo_xar::project_files::{XmlDocument, XmlElement};
use proptest::prelude::*;

const GOLDEN: &str = include_str!("fixtures/golden.qianim");

fn key(frame: i32, value: f64, left: Side, right: Side) -> Key {
    Key {
        frame,
        value,
        left,
        right,
    }
}

fn auto(frame: i32, value: f64) -> Key {
    key(frame, value, Side::Auto, Side::Auto)
}

/// Writes and reads back, checking that libalmath's rules hold for what was written.
fn round_trip(a: &Animation) -> Animation {
    let written = qianim::write(a).expect("writes");
    if let Err(e) = support::libalmath_accepts(&written.text) {
        panic!("libalmath would refuse it: {e}\n{}", written.text);
    }
    qianim::read("out.qianim", written.text.as_bytes()).expect("reads back")
}

#[test]
fn hand_made_curves_round_trip_exactly() {
    let head = Curve::new(
        "HeadYaw",
        vec![
            key(1, -13.6256, Side::Bezier(-2.0, 1.5), Side::Auto),
            key(40, -1.0571, Side::Auto, Side::Bezier(0.0, 7.25)),
            key(41, 4.82967e-06, Side::Linear, Side::Linear),
            key(
                305,
                -3.78175,
                Side::Bezier(-264.0, 0.1),
                Side::Bezier(12.0, -3.0),
            ),
        ],
    );
    let hand = Curve::new(
        "RHand",
        vec![
            auto(3, 0.25),
            key(9, 0.98, Side::Linear, Side::Auto),
            auto(70, 0.02),
        ],
    );
    let single = Curve::new("LKneePitch", vec![auto(12, 21.6979)]);
    let empty = Curve::new("HipRoll", vec![]);
    let animation = Animation {
        tracks: vec![
            Track {
                curve: head,
                fps: 25,
                mute: false,
            },
            Track {
                curve: hand,
                fps: 15,
                mute: false,
            },
            Track {
                curve: single,
                fps: 25,
                mute: true,
            },
            Track {
                curve: empty,
                fps: 5,
                mute: false,
            },
        ],
    };
    let back = round_trip(&animation);
    assert_eq!(back, animation);
    assert_eq!(back.fps(), None, "the tracks have their own fps");
    assert_eq!(back.curves().count(), 3, "the muted track is not played");
}

#[test]
fn units_are_degree_for_joints_and_dimensionless_for_hands() {
    assert_eq!(Unit::of("HeadYaw"), Unit::Degree);
    assert_eq!(Unit::of("LHand"), Unit::Dimensionless);
    assert_eq!(Unit::of("RHand"), Unit::Dimensionless);
    let a = Animation::new(
        25,
        [
            Curve::new("LHand", vec![auto(1, 0.5)]),
            Curve::new("LElbowRoll", vec![auto(1, -30.0)]),
        ],
    );
    let text = qianim::write(&a).unwrap().text;
    assert!(
        text.contains(r#"actuator="LHand" mute="0" fps="25" unit="dimensionless""#),
        "{text}"
    );
    assert!(
        text.contains(r#"actuator="LElbowRoll" mute="0" fps="25" unit="degree""#),
        "{text}"
    );
    // Values as stored: the hand is not scaled, the joint stays in degrees.
    assert!(text.contains(r#"<Key frame="0" value="0.5"/>"#), "{text}");
    assert!(text.contains(r#"<Key frame="0" value="-30"/>"#), "{text}");
}

/// The curves the golden file was written from.
fn golden_source() -> Animation {
    Animation {
        tracks: vec![
            Track {
                curve: Curve::new(
                    "HeadYaw",
                    vec![
                        auto(1, 0.0),
                        key(11, 30.0, Side::Auto, Side::Bezier(2.0, 5.0)),
                        key(21, 10.0, Side::Linear, Side::Auto),
                        key(31, -20.0, Side::Auto, Side::Linear),
                    ],
                ),
                fps: 25,
                mute: false,
            },
            Track {
                curve: Curve::new("LHand", vec![auto(5, 0.2), auto(15, 0.9)]),
                fps: 25,
                mute: false,
            },
            Track {
                curve: Curve::new(
                    "HeadPitch",
                    vec![key(1, 0.0, Side::Auto, Side::Constant), auto(6, 10.0)],
                ),
                fps: 25,
                mute: false,
            },
            Track {
                curve: Curve::new("LShoulderPitch", vec![auto(1, 80.0)]),
                fps: 10,
                mute: true,
            },
        ],
    }
}

/// Compares two elements: name, attribute set (numbers as numbers), child elements in order
/// (comments and layout ignored); the first difference, with the path to it.
fn same_element(want: &XmlElement, got: &XmlElement, path: &str) -> Result<(), String> {
    let path = format!("{path}/{}", want.name);
    if want.name != got.name {
        return Err(format!("{path}: <{}> written instead", got.name));
    }
    let names = |e: &XmlElement| {
        let mut n: Vec<String> = e.attributes.iter().map(|(k, _)| k.clone()).collect();
        n.sort();
        n
    };
    if names(want) != names(got) {
        return Err(format!(
            "{path}: attributes {:?}, written {:?}",
            names(want),
            names(got)
        ));
    }
    for (name, w) in &want.attributes {
        let g = got.attribute(name).unwrap_or_default();
        let equal = match (w.parse::<f64>(), g.parse::<f64>()) {
            (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * (1.0 + x.abs()),
            _ => w == g,
        };
        if !equal {
            return Err(format!("{path} {name}: want {w:?}, written {g:?}"));
        }
    }
    let (wc, gc): (Vec<_>, Vec<_>) = (want.elements().collect(), got.elements().collect());
    if wc.len() != gc.len() {
        return Err(format!(
            "{path}: {} children, written {}",
            wc.len(),
            gc.len()
        ));
    }
    for (w, g) in wc.iter().zip(&gc) {
        same_element(w, g, &path)?;
    }
    Ok(())
}

#[test]
fn the_writer_writes_the_golden_file() {
    let written = qianim::write(&golden_source()).unwrap();
    let want = XmlDocument::parse("golden.qianim", GOLDEN.as_bytes()).unwrap();
    let got = XmlDocument::parse("written.qianim", written.text.as_bytes()).unwrap();
    if let Err(e) = same_element(&want.root, &got.root, "") {
        panic!("{e}\nwritten:\n{}", written.text);
    }
    assert!(
        written
            .text
            .starts_with(r#"<?xml version="1.0" encoding="utf-8"?>"#)
    );
    assert_eq!(
        written.warnings,
        vec![("HeadPitch".to_string(), Warning::ConstantHeld(1))]
    );
    support::libalmath_accepts(GOLDEN).unwrap();
    support::libalmath_accepts(&written.text).unwrap();
    // The comparison itself sees a change.
    let changed = written.text.replacen("bezier_auto", "bezier auto", 1);
    let changed = XmlDocument::parse("changed.qianim", changed.as_bytes()).unwrap();
    assert!(same_element(&want.root, &changed.root, "").is_err());
}

#[test]
fn the_golden_file_reads_back_as_its_source() {
    let read = qianim::read("golden.qianim", GOLDEN.as_bytes()).unwrap();
    let source = golden_source();
    assert_eq!(read.tracks.len(), source.tracks.len());
    for (r, s) in read.tracks.iter().zip(&source.tracks) {
        assert_eq!((r.fps, r.mute), (s.fps, s.mute), "{}", s.curve.actuator);
        if s.curve.actuator == "HeadPitch" {
            // The constant segment comes back as its hold: linear keys at 1, 5 and 6, equal
            // to the constant curve at every whole frame.
            let frames: Vec<i32> = r.curve.keys().iter().map(|k| k.frame).collect();
            assert_eq!(frames, [1, 5, 6]);
            assert_eq!(r.curve.keys()[1].left, Side::Linear);
            for frame in 0..=8 {
                let f = f64::from(frame);
                assert_eq!(
                    r.curve.spline().eval(f),
                    s.curve.spline().eval(f),
                    "frame {frame}"
                );
            }
        } else {
            assert_eq!(r.curve, s.curve);
        }
    }
}

#[test]
fn constant_segments_are_held_and_equal_at_every_whole_frame() {
    let curve = Curve::new(
        "LShoulderRoll",
        vec![
            key(1, 10.0, Side::Auto, Side::Constant),
            key(8, 40.0, Side::Constant, Side::Auto),
            // a one-frame constant segment: no room for a hold key
            key(9, 20.0, Side::Auto, Side::Constant),
            key(10, 5.0, Side::Auto, Side::Auto),
            auto(30, 15.0),
        ],
    );
    let a = Animation::new(25, [curve.clone()]);
    let written = qianim::write(&a).unwrap();
    let held: Vec<i32> = written
        .warnings
        .iter()
        .filter_map(|(_, w)| match w {
            Warning::ConstantHeld(f) => Some(*f),
            _ => None,
        })
        .collect();
    assert_eq!(held, [1, 9]);
    let back = round_trip(&a);
    let again = &back.tracks[0].curve;
    let frames: Vec<i32> = again.keys().iter().map(|k| k.frame).collect();
    assert_eq!(frames, [1, 7, 8, 9, 10, 30]);
    for frame in 0..=31 {
        let f = f64::from(frame);
        let (want, got) = (curve.spline().eval(f), again.spline().eval(f));
        let (want, got) = (want.unwrap(), got.unwrap());
        assert!((want - got).abs() < 1e-12, "frame {frame}: {want} {got}");
    }
    // Between whole frames the hold ramps where the constant curve jumps.
    assert!(
        support::differing_frames(&curve, again, 1e-9)
            .iter()
            .all(|f| (7.0..8.0).contains(f) || (9.0..10.0).contains(f))
    );
}

#[test]
fn handles_longer_than_their_segment_are_shortened_as_the_player_does() {
    let curve = Curve::new(
        "HeadYaw",
        vec![
            key(1, 0.0, Side::Auto, Side::Bezier(20.0, 8.0)),
            key(11, 10.0, Side::Bezier(3.0, -1.0), Side::Auto),
        ],
    );
    let written = qianim::write(&Animation::new(25, [curve.clone()])).unwrap();
    assert_eq!(
        written.warnings,
        vec![
            ("HeadYaw".to_string(), Warning::HandleClamped(1)),
            ("HeadYaw".to_string(), Warning::HandleClamped(11)),
        ]
    );
    support::libalmath_accepts(&written.text).unwrap();
    let back = qianim::read("x", written.text.as_bytes()).unwrap();
    let again = &back.tracks[0].curve;
    assert_eq!(again.keys()[0].right, Side::Bezier(10.0, 4.0));
    assert_eq!(again.keys()[1].left, Side::Bezier(0.0, -1.0));
    assert!(support::differing_frames(&curve, again, 1e-9).is_empty());
}

#[test]
fn what_cannot_be_written_is_an_error() {
    let a = Animation::new(0, [Curve::new("HeadYaw", vec![auto(1, 0.0)])]);
    assert!(matches!(
        qianim::write(&a),
        Err(WriteError::Fps { fps: 0, .. })
    ));
    let a = Animation::new(
        25,
        [Curve::new("HeadYaw", vec![auto(0, 0.0), auto(5, 1.0)])],
    );
    assert!(matches!(
        qianim::write(&a),
        Err(WriteError::Frame { frame: 0, .. })
    ));
    let a = Animation::new(25, [Curve::new("HeadYaw", vec![auto(1, f64::NAN)])]);
    assert!(matches!(
        qianim::write(&a),
        Err(WriteError::NotFinite { frame: 1, .. })
    ));
    let a = Animation::new(
        25,
        [Curve::new(
            "HeadYaw",
            vec![
                key(1, 0.0, Side::Auto, Side::Bezier(f64::INFINITY, 0.0)),
                auto(3, 1.0),
            ],
        )],
    );
    assert!(matches!(
        qianim::write(&a),
        Err(WriteError::NotFinite { frame: 1, .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Reading other writers' files

fn doc(curves: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<Animation typeVersion=\"2.0\" xmlns:editor=\"{}\">\n{curves}</Animation>\n",
        qianim::EDITOR_NAMESPACE
    )
}

fn read(text: &str) -> Result<Animation, ReadError> {
    qianim::read("in.qianim", text.as_bytes())
}

#[test]
fn float32_auto_tangents_read_as_auto_and_others_as_their_offsets() {
    // Offsets as a 32-bit writer prints them (a third of 16 frames is 5.33333349).
    let text = doc(r#"<ActuatorCurve actuator="HeadYaw" fps="25" unit="degree">
  <Key frame="3" value="10"><Tangent side="right" abscissaParam="5.33333349" ordinateParam="0" editor:interpType="bezier_auto"/></Key>
  <Key frame="19" value="20">
    <Tangent side="left" abscissaParam="-5.33333349" ordinateParam="-0" editor:interpType="bezier_auto"/>
    <Tangent side="right" abscissaParam="4" ordinateParam="0" editor:interpType="bezier_auto"/>
  </Key>
  <Key frame="31" value="20">
    <Tangent side="left" abscissaParam="0" ordinateParam="1" editor:interpType="linear"/>
    <Tangent side="right" abscissaParam="2" ordinateParam="1"/>
  </Key>
  <Key frame="40" value="0">
    <Tangent side="left" abscissaParam="-1" ordinateParam="2" editor:interpType="bezier"/>
  </Key>
</ActuatorCurve>
"#);
    let a = read(&text).unwrap();
    let keys = a.tracks[0].curve.keys();
    assert!(!a.tracks[0].mute, "mute absent: false");
    assert_eq!(keys[0].frame, 4, "file frame 3 is XAR frame 4");
    assert_eq!((keys[0].left, keys[0].right), (Side::Auto, Side::Auto));
    assert_eq!(keys[1].left, Side::Auto);
    // (4, 0) is the 1/3 rule's here: the next key is level with this one (flat handle).
    assert_eq!(keys[1].right, Side::Auto);
    assert_eq!(keys[2].left, Side::Bezier(0.0, 1.0));
    assert_eq!(
        keys[2].right,
        Side::Bezier(2.0, 1.0),
        "no interpType: its offsets"
    );
    assert_eq!(keys[3].left, Side::Bezier(-1.0, 2.0));
    assert_eq!(keys[3].right, Side::Auto, "an absent exterior tangent");
    // A bezier_auto label on offsets that are not the rule's: the offsets are played.
    let text = doc(r#"<ActuatorCurve actuator="HeadYaw" fps="25" unit="degree">
  <Key frame="0" value="0"><Tangent side="right" abscissaParam="2" ordinateParam="3" editor:interpType="bezier_auto"/></Key>
  <Key frame="9" value="10"/>
</ActuatorCurve>
"#);
    let a = read(&text).unwrap();
    assert_eq!(a.tracks[0].curve.keys()[0].right, Side::Bezier(2.0, 3.0));
    // A missing interior tangent (libalmath's "uninitialized optional") is auto.
    assert_eq!(a.tracks[0].curve.keys()[1].left, Side::Auto);
}

#[test]
fn radian_joint_curves_are_read_in_degrees() {
    let text = doc(
        r#"<ActuatorCurve actuator="HeadYaw" mute="false" fps="10" unit="radian">
  <Key frame="0" value="1.5707963267948966"><Tangent side="right" abscissaParam="1" ordinateParam="0.5"/></Key>
  <Key frame="10" value="0"/>
</ActuatorCurve>
"#,
    );
    let a = read(&text).unwrap();
    let k = a.tracks[0].curve.keys()[0];
    assert!((k.value - 90.0).abs() < 1e-12);
    let Side::Bezier(dx, dy) = k.right else {
        panic!("{:?}", k.right)
    };
    assert_eq!(dx, 1.0, "abscissas are frames, never converted");
    assert!((dy - 0.5 * 180.0 / std::f64::consts::PI).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Malformed documents

#[test]
fn every_truncation_of_a_document_is_an_error_never_a_panic() {
    let text = qianim::write(&golden_source()).unwrap().text;
    let end = text.trim_end().len();
    let mut cuts = 0;
    for cut in (0..end).filter(|c| text.is_char_boundary(*c)) {
        match qianim::read("cut.qianim", &text.as_bytes()[..cut]) {
            Err(ReadError::Xml(_)) => cuts += 1,
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    assert!(cuts > 1000, "{cuts}");
    assert!(read(&text[..end]).is_ok());
}

/// Where the first occurrence of `needle` in the golden file's elements (past its leading
/// comment) starts.
fn golden_find(needle: &str) -> usize {
    let body = GOLDEN.find("<Animation ").unwrap();
    body + GOLDEN[body..]
        .find(needle)
        .unwrap_or_else(|| panic!("{needle}"))
}

/// The golden file with the first `from` of its elements replaced by `to`, read.
fn golden_with(from: &str, to: &str) -> Result<Animation, ReadError> {
    let at = golden_find(from);
    let text = format!("{}{to}{}", &GOLDEN[..at], &GOLDEN[at + from.len()..]);
    read(&text)
}

/// The line of the golden file where `needle` first occurs in its elements.
fn golden_line(needle: &str) -> u32 {
    u32::try_from(GOLDEN[..golden_find(needle)].matches('\n').count() + 1).unwrap()
}

#[test]
fn missing_attributes_are_named_with_their_line() {
    for (from, to, element, attribute) in [
        (r#"actuator="HeadYaw" "#, "", "ActuatorCurve", "actuator"),
        (
            r#"fps="25" unit="degree""#,
            r#"unit="degree""#,
            "ActuatorCurve",
            "fps",
        ),
        (r#" unit="dimensionless""#, "", "ActuatorCurve", "unit"),
        (r#"frame="10" "#, "", "Key", "frame"),
        (
            r#"<Key frame="4" value="0.2">"#,
            r#"<Key frame="4">"#,
            "Key",
            "value",
        ),
        (
            r#"side="right" abscissaParam="2""#,
            r#"abscissaParam="2""#,
            "Tangent",
            "side",
        ),
        (r#"abscissaParam="2" "#, "", "Tangent", "abscissaParam"),
        (r#"ordinateParam="5" "#, "", "Tangent", "ordinateParam"),
    ] {
        let line = golden_line(from);
        match golden_with(from, to) {
            Err(ReadError::MissingAttribute {
                at,
                element: e,
                attribute: a,
            }) => {
                assert_eq!((e, a), (element, attribute), "{from}");
                assert_eq!(at.file, "in.qianim");
                assert_eq!(at.line, line, "{from}");
            }
            other => panic!("{from}: {other:?}"),
        }
    }
}

#[test]
fn values_that_are_not_numbers_are_bad_values() {
    for (from, to, attribute) in [
        (r#"fps="25""#, r#"fps="fast""#, "fps"),
        (r#"fps="25""#, r#"fps="0""#, "fps"),
        (r#"fps="25""#, r#"fps="25.0""#, "fps"),
        (r#"frame="10""#, r#"frame="1.5""#, "frame"),
        (r#"frame="10""#, r#"frame="-1""#, "frame"),
        (r#"value="30""#, r#"value="thirty""#, "value"),
        (r#"value="30""#, r#"value="nan""#, "value"),
        (r#"value="30""#, r#"value="inf""#, "value"),
        (
            r#"abscissaParam="2""#,
            r#"abscissaParam="two""#,
            "abscissaParam",
        ),
        (
            r#"ordinateParam="5""#,
            r#"ordinateParam="""#,
            "ordinateParam",
        ),
        (
            r#"side="right" abscissaParam="2""#,
            r#"side="up" abscissaParam="2""#,
            "side",
        ),
        (r#"mute="1""#, r#"mute="maybe""#, "mute"),
        (r#"unit="degree""#, r#"unit="0""#, "unit"),
    ] {
        match golden_with(from, to) {
            Err(ReadError::BadValue {
                attribute: a,
                value,
                ..
            }) => {
                assert_eq!(a, attribute, "{to}");
                assert!(to.contains(&format!("{a}=\"{value}\"")), "{to}: {value}");
            }
            other => panic!("{to}: {other:?}"),
        }
    }
}

#[test]
fn documents_libalmath_refuses_are_typed_errors() {
    assert!(matches!(
        golden_with(r#"typeVersion="2.0""#, r#"typeVersion="1.0""#),
        Err(ReadError::Version { found: Some(v), .. }) if v == "1.0"
    ));
    assert!(matches!(
        golden_with(r#"typeVersion="2.0" "#, ""),
        Err(ReadError::Version { found: None, .. })
    ));
    assert!(matches!(
        read("<ChoregrapheProject/>"),
        Err(ReadError::NotAnimation { found, .. }) if found == "ChoregrapheProject"
    ));
    assert!(matches!(
        golden_with(r#"unit="dimensionless""#, r#"unit="degree""#),
        Err(ReadError::UnitMismatch { unit: Unit::Degree, actuator, .. }) if actuator == "LHand"
    ));
    assert!(matches!(
        golden_with(
            r#"actuator="HeadYaw" mute="0" fps="25" unit="degree""#,
            r#"actuator="HeadYaw" mute="0" fps="25" unit="meter""#
        ),
        Err(ReadError::UnitMismatch {
            unit: Unit::Meter,
            ..
        })
    ));
    assert!(matches!(
        golden_with(
            r#"<Key frame="20" value="10">"#,
            r#"<Key frame="10" value="10">"#
        ),
        Err(ReadError::KeyOrder {
            frame: 10,
            previous: 10,
            ..
        })
    ));
    assert!(matches!(
        golden_with(
            r#"<Tangent side="right" abscissaParam="2" ordinateParam="5" editor:interpType="bezier"/>"#,
            r#"<Tangent side="right" abscissaParam="11" ordinateParam="5" editor:interpType="bezier"/>"#
        ),
        Err(ReadError::HandleRange {
            side: "right",
            frame: 10,
            length: 10,
            ..
        })
    ));
    assert!(matches!(
        golden_with(
            r#"<Tangent side="left" abscissaParam="0" ordinateParam="0" editor:interpType="linear"/>"#,
            r#"<Tangent side="left" abscissaParam="0.5" ordinateParam="0" editor:interpType="linear"/>"#
        ),
        Err(ReadError::HandleRange {
            side: "left",
            frame: 20,
            ..
        })
    ));
    assert!(matches!(
        golden_with(
            r#"<Tangent side="right" abscissaParam="2" ordinateParam="5" editor:interpType="bezier"/>"#,
            r#"<Tangent side="right" abscissaParam="2" ordinateParam="5"/><Tangent side="right" abscissaParam="1" ordinateParam="5"/>"#
        ),
        Err(ReadError::DuplicateTangent {
            side: "right",
            frame: 10,
            ..
        })
    ));
    assert!(matches!(read("not xml at all"), Err(ReadError::Xml(_))));
    assert!(matches!(
        qianim::read("x", b"\xff\xfe<A"),
        Err(ReadError::Xml(_))
    ));
    assert!(matches!(read(""), Err(ReadError::Xml(_))));
    // Messages name the file, line and element.
    let e = golden_with(r#"value="30""#, r#"value="thirty""#).unwrap_err();
    let line = golden_line(r#"value="30""#);
    assert_eq!(
        e.to_string(),
        format!("in.qianim:{line}:5: <Key value=\"thirty\">: expected a finite number")
    );
}

// ---------------------------------------------------------------------------------------------
// Any curve

/// A side of a key `reach` frames from its neighbour on that side (0: none): auto, linear,
/// or an explicit handle inside the segment.
fn side(reach: i32, sign: f64) -> impl Strategy<Value = Side> {
    let reach = f64::from(reach.max(1));
    prop_oneof![
        Just(Side::Auto),
        Just(Side::Linear),
        (0.0..=1.0f64, -50.0..50.0f64).prop_map(move |(t, o)| Side::Bezier(sign * t * reach, o)),
    ]
}

fn curve() -> impl Strategy<Value = Curve> {
    (
        prop::sample::select(vec!["HeadYaw", "LHand", "RElbowRoll", "KneePitch"]),
        prop::collection::vec((1..40i32, -120.0..120.0f64), 0..12),
    )
        .prop_flat_map(|(actuator, steps)| {
            let mut frame = 0;
            let frames: Vec<(i32, i32, f64)> = steps
                .iter()
                .map(|(step, v)| {
                    let gap = *step;
                    frame += gap;
                    (frame, gap, *v)
                })
                .collect();
            let next_gaps: Vec<i32> = frames
                .iter()
                .skip(1)
                .map(|(_, g, _)| *g)
                .chain(std::iter::once(0))
                .collect();
            let keys: Vec<_> = frames
                .iter()
                .zip(next_gaps)
                .map(|(&(f, gap, v), next)| {
                    (side(gap, -1.0), side(next, 1.0))
                        .prop_map(move |(left, right)| key(f, v, left, right))
                })
                .collect();
            keys.prop_map(move |keys| Curve::new(actuator, keys))
        })
}

proptest! {
    #[test]
    fn any_curve_without_constant_sides_round_trips(curves in prop::collection::vec(curve(), 1..4), fps in 1..60i32) {
        let a = Animation::new(fps, curves);
        let written = qianim::write(&a).unwrap();
        prop_assert!(written.warnings.is_empty(), "{:?}", written.warnings);
        prop_assert_eq!(support::libalmath_accepts(&written.text), Ok(()));
        let back = qianim::read("p.qianim", written.text.as_bytes()).unwrap();
        prop_assert_eq!(back, a);
    }
}

// ---------------------------------------------------------------------------------------------
// From a timeline

fn xar_curve(actuator: &str, mute: bool, frames: &[i32]) -> choreo_xar::model::ActuatorCurve {
    choreo_xar::model::ActuatorCurve {
        actuator: actuator.to_string(),
        mute: Some(mute),
        keys: frames
            .iter()
            .map(|&frame| choreo_xar::model::Key {
                frame,
                value: f64::from(frame),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn timeline(
    fps: i32,
    end: i32,
    curves: Vec<choreo_xar::model::ActuatorCurve>,
) -> choreo_xar::model::Timeline {
    choreo_xar::model::Timeline {
        enable: Some(true),
        fps: Some(fps),
        start_frame: Some(1),
        end_frame: Some(end),
        actuator_list: Some(choreo_xar::model::ActuatorList {
            curves,
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_motion_timeline_keeps_its_muted_curves_and_tells_of_keys_past_its_end() {
    let t = timeline(
        15,
        10,
        vec![
            xar_curve("HeadYaw", false, &[1, 5, 20, 30]),
            xar_curve("HeadPitch", true, &[1, 40]),
            xar_curve("LHand", false, &[]),
        ],
    );
    let (a, warnings) = Animation::from_timeline(&t).unwrap();
    let summary: Vec<(&str, i32, bool)> = a
        .tracks
        .iter()
        .map(|t| (t.curve.actuator.as_str(), t.fps, t.mute))
        .collect();
    assert_eq!(summary, [("HeadYaw", 15, false), ("HeadPitch", 15, true)]);
    assert_eq!(
        warnings,
        [("HeadYaw".to_string(), Warning::PastEnd { end: 10, keys: 2 })]
    );
    // Every key is written all the same.
    let back = round_trip(&a);
    assert_eq!(back.tracks[0].curve.keys().len(), 4);
    // Not motion timelines: no clock, only muted or keyless curves, no curves at all.
    assert!(
        Animation::from_timeline(&timeline(0, -1, vec![xar_curve("HeadYaw", false, &[1])]))
            .is_none()
    );
    assert!(
        Animation::from_timeline(&timeline(25, -1, vec![xar_curve("HeadYaw", true, &[1])]))
            .is_none()
    );
    assert!(
        Animation::from_timeline(&timeline(25, -1, vec![xar_curve("HeadYaw", false, &[])]))
            .is_none()
    );
    let holder = choreo_xar::model::Timeline::default();
    assert!(Animation::from_timeline(&holder).is_none());
    // With end_frame -1 every key plays: no warning.
    let (_, warnings) = Animation::from_timeline(&timeline(
        25,
        -1,
        vec![xar_curve("HeadYaw", false, &[1, 90])],
    ))
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}
