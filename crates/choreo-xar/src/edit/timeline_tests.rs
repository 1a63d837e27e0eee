//! Each timeline edit on a timeline box laid out as Choregraphe 2.8 writes one: what the
//! model reads back, the lines that change, that undoing gives the bytes back, and the
//! refusals the Timeline panel's rules make (module doc of `timeline.rs`, with the pages).
#![allow(clippy::unwrap_used)]

use super::*;
use crate::model::TangentSide;
use choreo_robot::Model;

/// A root diagram holding one timeline box (id 1, 25 fps, frames 1 to 40) with two behavior
/// layers (the first with keyframes at 1 and 20) and HeadYaw and LHand curves.
const XAR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="" x="0" y="0">
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram>
                        <Box name="Wave" id="1" localization="8" tooltip="" x="100" y="40">
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
                            <Timeline enable="1" fps="25" start_frame="1" end_frame="40" size="300">
                                <BehaviorLayer name="speech">
                                    <BehaviorKeyframe name="hello" index="1">
                                        <Diagram />
                                    </BehaviorKeyframe>
                                    <BehaviorKeyframe name="bye" index="20">
                                        <Diagram />
                                    </BehaviorKeyframe>
                                </BehaviorLayer>
                                <BehaviorLayer name="leds">
                                    <BehaviorKeyframe name="on" index="1">
                                        <Diagram />
                                    </BehaviorKeyframe>
                                </BehaviorLayer>
                                <ActuatorList model="nao">
                                    <ActuatorCurve name="value" actuator="HeadYaw" mute="0" unit="0">
                                        <Key frame="10" value="-20" />
                                        <Key frame="30" value="20">
                                            <Tangent side="left" interpType="bezier" abscissaParam="-6.66667" ordinateParam="0" />
                                        </Key>
                                    </ActuatorCurve>
                                    <ActuatorCurve name="value" actuator="LHand" mute="0" unit="1">
                                        <Key frame="10" value="0.2" />
                                    </ActuatorCurve>
                                </ActuatorList>
                            </Timeline>
                        </Box>
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#;

fn wave() -> BoxRef {
    BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 1,
    }])
}

/// `change` made: the document, its timeline as read back, and the lines that changed.
fn made(change: TimelineEdit) -> (Document, crate::model::Timeline, Vec<(String, String)>) {
    let mut doc = Document::open("wave.xar", XAR.as_bytes()).unwrap();
    let patch = doc.apply(&Edit::Timeline { at: wave(), change }).unwrap();
    let after = String::from_utf8(doc.bytes().to_vec()).unwrap();
    let lines = super::tests::changed_lines(XAR, &after);
    let t = doc.box_def(&wave()).unwrap().timeline.clone().unwrap();
    let mut undone = doc.clone();
    undone.apply_patch(&patch.inverse()).unwrap();
    assert_eq!(
        undone.bytes(),
        XAR.as_bytes(),
        "undo did not give the bytes back"
    );
    (doc, t, lines)
}

fn refusal(change: TimelineEdit) -> String {
    let mut doc = Document::open("wave.xar", XAR.as_bytes()).unwrap();
    let e = doc
        .apply(&Edit::Timeline { at: wave(), change })
        .unwrap_err();
    assert_eq!(doc.bytes(), XAR.as_bytes());
    e.to_string()
}

/// The lines an edit that only adds lines added (`lines`: the changed lines as
/// `changed_lines` pairs them): every line before it must be there after, in its order.
fn added(lines: &[(String, String)]) -> Vec<String> {
    let before: Vec<&String> = lines
        .iter()
        .map(|(a, _)| a)
        .filter(|l| !l.is_empty())
        .collect();
    let mut extra: Vec<String> = lines
        .iter()
        .map(|(_, b)| b.clone())
        .filter(|l| !l.is_empty())
        .collect();
    let mut from = 0;
    for b in before {
        let i = from
            + extra[from..]
                .iter()
                .position(|a| a == b)
                .unwrap_or_else(|| panic!("{b:?} is gone: {lines:?}"));
        extra.remove(i);
        from = i;
    }
    extra
}

fn keys(t: &crate::model::Timeline, joint: &str) -> Vec<(i32, f64)> {
    let list = t.actuator_list.as_ref().unwrap();
    let c = list.curves.iter().find(|c| c.actuator == joint).unwrap();
    c.keys.iter().map(|k| (k.frame, k.value)).collect()
}

#[test]
fn the_frame_rate_and_the_start_and_end_frames_are_set_in_place() {
    let (_, t, lines) = made(TimelineEdit::Frames {
        fps: Some(30),
        start: Some(5),
        end: Some(-1),
    });
    assert_eq!(
        (t.fps, t.start_frame, t.end_frame),
        (Some(30), Some(5), Some(-1))
    );
    assert_eq!(
        lines,
        [(
            r#"<Timeline enable="1" fps="25" start_frame="1" end_frame="40" size="300">"#.into(),
            r#"<Timeline enable="1" fps="30" start_frame="5" end_frame="-1" size="300">"#.into()
        )]
    );
    // "Framerate (FPS) ... the execution speed": 0 cannot play.
    assert!(
        refusal(TimelineEdit::Frames {
            fps: Some(0),
            start: None,
            end: None
        })
        .contains("1 frame a second")
    );
    // "Start frame is set to the Frame 0" by default: never before it.
    assert!(
        refusal(TimelineEdit::Frames {
            fps: None,
            start: Some(-2),
            end: None
        })
        .contains("0 or more")
    );
    assert!(
        refusal(TimelineEdit::Frames {
            fps: None,
            start: Some(50),
            end: None
        })
        .contains("before the start")
    );
}

#[test]
fn behavior_layers_are_added_renamed_and_deleted() {
    let (doc, t, lines) = made(TimelineEdit::AddLayer {
        name: "music".into(),
    });
    let names: Vec<&str> = t.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["speech", "leds", "music"]);
    assert_eq!(t.layers[2].keyframes[0].index, 1);
    assert!(t.layers[2].keyframes[0].diagram.is_some());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].1.starts_with(
        r#"<BehaviorLayer name="music"><BehaviorKeyframe name="keyframe1" index="1">"#
    ));
    // The new layer's diagram takes boxes, as any keyframe's.
    let inside = BoxRef(vec![
        wave().0[0],
        Step {
            layer: 2,
            keyframe: 0,
            id: 0,
        },
    ]);
    assert!(doc.box_def(&BoxRef(inside.0[..1].to_vec())).is_ok());

    let (_, t, _) = made(TimelineEdit::RenameLayer {
        layer: 1,
        name: "eyes".into(),
    });
    assert_eq!(t.layers[1].name, "eyes");
    let (_, t, _) = made(TimelineEdit::DeleteLayer { layer: 0 });
    assert_eq!(t.layers.len(), 1);
    assert_eq!(t.layers[0].name, "leds");
    assert!(
        refusal(TimelineEdit::AddLayer {
            name: "leds".into()
        })
        .contains("already")
    );
    assert!(
        refusal(TimelineEdit::RenameLayer {
            layer: 0,
            name: " ".into()
        })
        .contains("empty")
    );
    assert!(refusal(TimelineEdit::DeleteLayer { layer: 5 }).contains("no layer 5"));
}

#[test]
fn behavior_keyframes_are_added_in_frame_order_renamed_moved_and_deleted() {
    let (_, t, _) = made(TimelineEdit::AddKeyframe {
        layer: 0,
        name: "wave".into(),
        index: 10,
    });
    let order: Vec<(&str, i32)> = t.layers[0]
        .keyframes
        .iter()
        .map(|k| (k.name.as_str(), k.index))
        .collect();
    assert_eq!(order, [("hello", 1), ("wave", 10), ("bye", 20)]);

    let (_, t, lines) = made(TimelineEdit::SetKeyframe {
        layer: 0,
        keyframe: 1,
        name: Some("later".into()),
        index: Some(25),
    });
    assert_eq!(
        (
            t.layers[0].keyframes[1].name.as_str(),
            t.layers[0].keyframes[1].index
        ),
        ("later", 25)
    );
    assert_eq!(lines.len(), 1);
    // Moved past the other: the file keeps them in frame order, the diagram with it.
    let (_, t, _) = made(TimelineEdit::SetKeyframe {
        layer: 0,
        keyframe: 0,
        name: None,
        index: Some(25),
    });
    let order: Vec<(&str, i32)> = t.layers[0]
        .keyframes
        .iter()
        .map(|k| (k.name.as_str(), k.index))
        .collect();
    assert_eq!(order, [("bye", 20), ("hello", 25)]);

    let (_, t, _) = made(TimelineEdit::DeleteKeyframe {
        layer: 0,
        keyframe: 0,
    });
    assert_eq!(t.layers[0].keyframes.len(), 1);
    assert_eq!(t.layers[0].keyframes[0].name, "bye");
    // Keyframes of a layer run "sequentially": never two at one frame.
    assert!(
        refusal(TimelineEdit::AddKeyframe {
            layer: 0,
            name: "x".into(),
            index: 20
        })
        .contains("already has a keyframe at frame 20")
    );
    assert!(
        refusal(TimelineEdit::AddKeyframe {
            layer: 0,
            name: "x".into(),
            index: 0
        })
        .contains("frame 1 or more")
    );
    assert!(
        refusal(TimelineEdit::AddKeyframe {
            layer: 0,
            name: "bye".into(),
            index: 5
        })
        .contains("already a keyframe named")
    );
}

#[test]
fn motion_keys_are_stored_in_frame_order_and_a_key_there_takes_the_value() {
    let (_, t, lines) = made(TimelineEdit::SetKeys {
        frame: 20,
        keys: vec![("HeadYaw".into(), 15.5), ("LHand".into(), 0.75)],
        robot: Model::Nao,
    });
    assert_eq!(keys(&t, "HeadYaw"), [(10, -20.0), (20, 15.5), (30, 20.0)]);
    assert_eq!(keys(&t, "LHand"), [(10, 0.2), (20, 0.75)]);
    // Two lines added, every other line as it was. A new key is Automatic Bezier, "the
    // default mode for new keyframes": no Tangent.
    assert_eq!(
        added(&lines),
        [
            r#"<Key frame="20" value="15.5" />"#,
            r#"<Key frame="20" value="0.75" />"#
        ]
    );

    // At a frame that has a key: its value changes, its handle stays.
    let (_, t, lines) = made(TimelineEdit::SetKeys {
        frame: 30,
        keys: vec![("HeadYaw".into(), 10.0)],
        robot: Model::Nao,
    });
    assert_eq!(keys(&t, "HeadYaw"), [(10, -20.0), (30, 10.0)]);
    let head = t
        .actuator_list
        .as_ref()
        .unwrap()
        .curves
        .iter()
        .find(|c| c.actuator == "HeadYaw")
        .unwrap();
    assert_eq!(head.keys[1].tangents.len(), 1);
    assert_eq!(
        lines,
        [(
            r#"<Key frame="30" value="20">"#.into(),
            r#"<Key frame="30" value="10">"#.into()
        )]
    );

    // A joint without a curve gets one, in degrees (unit 0) or a hand's ratio (unit 1).
    let (_, t, _) = made(TimelineEdit::SetKeys {
        frame: 5,
        keys: vec![("RShoulderPitch".into(), -40.0), ("RHand".into(), 1.0)],
        robot: Model::Nao,
    });
    let list = t.actuator_list.as_ref().unwrap();
    let units: Vec<(&str, Option<i32>)> = list
        .curves
        .iter()
        .map(|c| (c.actuator.as_str(), c.unit))
        .collect();
    assert_eq!(
        units,
        [
            ("HeadYaw", Some(0)),
            ("LHand", Some(1)),
            ("RShoulderPitch", Some(0)),
            ("RHand", Some(1))
        ]
    );
    assert_eq!(keys(&t, "RShoulderPitch"), [(5, -40.0)]);
}

#[test]
fn a_motion_key_stays_within_the_joints_range_as_the_robot_keeps_it() {
    let set = |keys: Vec<(&str, f64)>| TimelineEdit::SetKeys {
        frame: 12,
        keys: keys.into_iter().map(|(j, v)| (j.to_string(), v)).collect(),
        robot: Model::Nao,
    };
    // NAO - Joints: HeadYaw -119.5° to 119.5° (2.0857 rad).
    assert!(
        refusal(set(vec![("HeadYaw", 125.0)]))
            .contains("HeadYaw 125.00° is outside its range on NAO, -119.50° to 119.50°")
    );
    // Its anti-collision table: at HeadYaw 1.527 rad (87.49°) HeadPitch goes up to 0.200 rad
    // (11.46°) only; at HeadYaw 0 up to 0.515 rad (29.5°).
    assert!(
        refusal(set(vec![("HeadYaw", 87.49), ("HeadPitch", 20.0)]))
            .contains("HeadPitch 20.00° is outside")
    );
    let (_, t, _) = made(set(vec![("HeadYaw", 0.0), ("HeadPitch", 20.0)]));
    assert_eq!(keys(&t, "HeadPitch"), [(12, 20.0)]);
    // A hand opens from 0 to 1.
    assert!(refusal(set(vec![("LHand", 1.5)])).contains("LHand 1.50 is outside"));
    assert!(refusal(set(vec![("Tail", 0.0)])).contains("no joint \"Tail\""));
    assert!(
        refusal(TimelineEdit::SetKeys {
            frame: 0,
            keys: vec![("HeadYaw".into(), 0.0)],
            robot: Model::Nao
        })
        .contains("frame 1 or more")
    );
    // Pepper has no legs' pitch: its joints are its own.
    assert!(
        refusal(TimelineEdit::SetKeys {
            frame: 3,
            keys: vec![("LKneePitch".into(), 0.0)],
            robot: Model::Pepper
        })
        .contains("no joint")
    );
}

#[test]
fn motion_keys_move_to_other_frames_and_are_removed() {
    let (_, t, lines) = made(TimelineEdit::MoveKey {
        actuator: "HeadYaw".into(),
        frame: 10,
        to: 15,
        value: Some(-25.0),
        robot: Model::Nao,
    });
    assert_eq!(keys(&t, "HeadYaw"), [(15, -25.0), (30, 20.0)]);
    assert_eq!(lines.len(), 1);
    // Past the next key: the file keeps the keys in frame order.
    let (_, t, _) = made(TimelineEdit::MoveKey {
        actuator: "HeadYaw".into(),
        frame: 10,
        to: 35,
        value: None,
        robot: Model::Nao,
    });
    assert_eq!(keys(&t, "HeadYaw"), [(30, 20.0), (35, -20.0)]);
    assert!(
        refusal(TimelineEdit::MoveKey {
            actuator: "HeadYaw".into(),
            frame: 10,
            to: 30,
            value: None,
            robot: Model::Nao
        })
        .contains("already has a key at frame 30")
    );
    assert!(
        refusal(TimelineEdit::MoveKey {
            actuator: "HeadYaw".into(),
            frame: 11,
            to: 12,
            value: None,
            robot: Model::Nao
        })
        .contains("no key at frame 11")
    );

    let (_, t, _) = made(TimelineEdit::DeleteKeys {
        frame: 10,
        actuators: vec!["HeadYaw".into(), "LHand".into()],
    });
    assert_eq!(keys(&t, "HeadYaw"), [(30, 20.0)]);
    assert!(keys(&t, "LHand").is_empty());
}

#[test]
fn a_keys_interpolation_is_set_side_by_side() {
    let set = |frame, side, how| TimelineEdit::SetInterpolation {
        actuator: "HeadYaw".into(),
        frame,
        side,
        how,
    };
    let tangents = |t: &crate::model::Timeline, frame: i32| {
        let c = t
            .actuator_list
            .as_ref()
            .unwrap()
            .curves
            .iter()
            .find(|c| c.actuator == "HeadYaw")
            .unwrap();
        let k = c.keys.iter().find(|k| k.frame == frame).unwrap();
        k.tangents
            .iter()
            .map(|t| {
                (
                    t.side,
                    t.interp_type.clone().unwrap_or_default(),
                    t.abscissa_param,
                    t.ordinate_param,
                )
            })
            .collect::<Vec<_>>()
    };
    let (_, t, _) = made(set(10, TangentSide::Right, Interpolation::Linear));
    assert_eq!(
        tangents(&t, 10),
        [(TangentSide::Right, "linear".to_string(), 0.0, 0.0)]
    );
    let (_, t, _) = made(set(10, TangentSide::Left, Interpolation::Constant));
    assert_eq!(
        tangents(&t, 10),
        [(TangentSide::Left, "constant".to_string(), 0.0, 0.0)]
    );
    let (_, t, lines) = made(set(
        30,
        TangentSide::Left,
        Interpolation::Bezier {
            abscissa: -4.0,
            ordinate: 2.5,
        },
    ));
    assert_eq!(
        tangents(&t, 30),
        [(TangentSide::Left, "bezier".to_string(), -4.0, 2.5)]
    );
    assert_eq!(lines.len(), 1);
    // Back to Automatic Bezier: the handle goes.
    let (_, t, _) = made(set(30, TangentSide::Left, Interpolation::Auto));
    assert!(tangents(&t, 30).is_empty());
    // A left handle points to the previous key.
    assert!(
        refusal(set(
            30,
            TangentSide::Left,
            Interpolation::Bezier {
                abscissa: 3.0,
                ordinate: 0.0
            }
        ))
        .contains("left handle")
    );
}

#[test]
fn a_flow_diagram_box_has_no_frames_to_edit() {
    let mut doc = Document::open("wave.xar", XAR.as_bytes()).unwrap();
    let e = doc
        .apply(&Edit::Timeline {
            at: BoxRef::default(),
            change: TimelineEdit::AddLayer { name: "x".into() },
        })
        .unwrap_err();
    assert!(e.to_string().contains("not a timeline box"), "{e}");
}
