//! The page's JSON read against examples/hello (ids and port ids read off its text: Wake Up
//! is box 1, Say Hello 2, Nod 3; each has onLoad 1, onStart 2, onStop 3, onStopped 4, and
//! Say Hello's Text parameter is 5), and an editor answering commands without a page.
#![allow(clippy::unwrap_used)]

use super::*;
use choreo_xar::edit::{
    BoxRef, DiagramRef, Document, Edit, Interpolation, LinkRef, Step, TimelineEdit,
};
use serde_json::json;

const HELLO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/hello/behavior.xar"
);

/// `v` read as an edit of `d` (basic boxes; NAO).
fn edit(d: &Document, v: &serde_json::Value) -> Result<Edit, wire::WireError> {
    let library = Library::basic();
    let at = wire::Context {
        document: d,
        library: &library,
        robot: choreo_robot::Model::Nao,
    };
    wire::edit(&at, v)
}

fn hello() -> Document {
    Document::open("hello", &std::fs::read(HELLO).unwrap()).unwrap()
}

fn at(id: i32) -> BoxRef {
    BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id,
    }])
}

fn root_diagram() -> DiagramRef {
    DiagramRef {
        owner: BoxRef::default(),
        layer: 0,
        keyframe: 0,
    }
}

#[test]
fn each_kind_of_edit_is_read_with_its_names_resolved() {
    let d = hello();
    let diagram = json!({"owner": [], "layer": 0, "keyframe": 0});
    let cases = [
        (
            json!({"kind": "move", "box": [[0, 0, 3]], "x": 400.4, "y": 75}),
            Edit::Move {
                at: at(3),
                x: 400,
                y: 75,
            },
        ),
        (
            json!({"kind": "rename", "box": [[0, 0, 2]], "name": "Greet"}),
            Edit::Rename {
                at: at(2),
                name: "Greet".into(),
            },
        ),
        (
            json!({"kind": "parameter", "box": [[0, 0, 2]], "parameter": "Text", "value": "Hi"}),
            Edit::SetParameter {
                at: at(2),
                parameter: "Text".into(),
                value: "Hi".into(),
            },
        ),
        (
            json!({"kind": "parameter", "box": [[0, 0, 2]], "parameter": "Text", "value": true}),
            Edit::SetParameter {
                at: at(2),
                parameter: "Text".into(),
                value: "1".into(),
            },
        ),
        (
            json!({"kind": "script", "box": [[0, 0, 1]], "text": "pass"}),
            Edit::SetScript {
                at: at(1),
                text: "pass".into(),
            },
        ),
        (
            json!({"kind": "delete", "box": [[0, 0, 3]]}),
            Edit::Delete { at: at(3) },
        ),
        (
            json!({"kind": "add", "diagram": diagram, "text": "<Box/>", "x": 1, "y": 2}),
            Edit::Add {
                diagram: root_diagram(),
                text: "<Box/>".into(),
                x: 1,
                y: 2,
            },
        ),
    ];
    for (v, want) in cases {
        assert_eq!(edit(&d, &v).unwrap(), want, "{v}");
    }
    // A copy is the box's text as the file has it.
    let copy = json!({"kind": "add", "diagram": diagram, "copy": [[0, 0, 3]], "x": 0, "y": 0});
    let Edit::Add { text, .. } = edit(&d, &copy).unwrap() else {
        panic!("not an add");
    };
    assert!(text.starts_with("<Box name=\"Nod\" id=\"3\"") && text.ends_with("</Box>"));
}

#[test]
fn links_are_named_by_their_ports_names_and_resolved_to_the_files_ids() {
    let d = hello();
    let diagram = json!({"owner": [], "layer": 0, "keyframe": 0});
    let cases = [
        (
            json!({"kind": "link", "diagram": diagram, "from": {"box": 1, "port": "onStopped"},
                   "to": {"box": 3, "port": "onStart"}}),
            Edit::Link {
                diagram: root_diagram(),
                link: lr(1, 4, 3, 2),
            },
        ),
        (
            // From the owner's onStart (the root's port 2) to its onStopped (port 4).
            json!({"kind": "unlink", "diagram": diagram, "from": {"box": null, "port": "onStart"},
                   "to": {"box": null, "port": "onStopped", "kind": "output"}}),
            Edit::Unlink {
                diagram: root_diagram(),
                link: lr(0, 2, 0, 4),
            },
        ),
        (
            json!({"kind": "link", "diagram": diagram, "from": {"box": 1, "port": "onStopped"},
                   "to": {"box": 2, "port": "Text", "kind": "parameter"}}),
            Edit::Link {
                diagram: root_diagram(),
                link: lr(1, 4, 2, 5),
            },
        ),
    ];
    for (v, want) in cases {
        assert_eq!(edit(&d, &v).unwrap(), want, "{v}");
    }
}

/// A link as the file writes it.
fn lr(from: i32, from_port: i32, to: i32, to_port: i32) -> LinkRef {
    LinkRef {
        from,
        from_port,
        to,
        to_port,
    }
}

#[test]
fn malformed_edits_and_missing_names_are_refused_with_why() {
    let d = hello();
    let diagram = json!({"owner": [], "layer": 0, "keyframe": 0});
    let cases = [
        (json!({}), "kind"),
        (json!({"kind": "fly"}), "fly"),
        (
            json!({"kind": "move", "box": [[0, 0, 3]], "x": "far", "y": 0}),
            "x is a number",
        ),
        (
            json!({"kind": "move", "box": [[0, 0]], "x": 0, "y": 0}),
            "[layer, keyframe, id]",
        ),
        (json!({"kind": "move", "box": "Nod", "x": 0, "y": 0}), "ref"),
        (
            json!({"kind": "move", "box": [[0, 0, 3]], "x": 1e12, "y": 0}),
            "x is a number",
        ),
        (
            json!({"kind": "parameter", "box": [[0, 0, 2]], "parameter": "Text", "value": null}),
            "value",
        ),
        (
            json!({"kind": "link", "diagram": diagram, "from": {"box": 1, "port": "nope"},
                   "to": {"box": 3, "port": "onStart"}}),
            "no port \"nope\"",
        ),
        (
            // An output is not where a link arrives, nor an input where it leaves.
            json!({"kind": "link", "diagram": diagram, "from": {"box": 1, "port": "onStart"},
                   "to": {"box": 3, "port": "onStopped"}}),
            "no port \"onStart\"",
        ),
        (
            json!({"kind": "link", "diagram": diagram, "from": {"box": 9, "port": "onStopped"},
                   "to": {"box": 3, "port": "onStart"}}),
            "no box with id 9",
        ),
        (
            json!({"kind": "add", "diagram": diagram, "x": 0, "y": 0}),
            "text, copy or library",
        ),
    ];
    for (v, why) in cases {
        let e = edit(&d, &v).unwrap_err().to_string();
        assert!(e.contains(why), "{v}: {e}");
    }
}

#[test]
fn a_box_is_inspected_with_the_fields_choregraphe_shows() {
    let d = hello();
    let say = wire::inspect(&d, &at(2)).unwrap();
    assert_eq!(say["name"], "Say Hello");
    assert_eq!(say["ref"], json!([[0, 0, 2]]));
    let text = &say["parameters"][0];
    assert_eq!(text["name"], "Text");
    assert_eq!(text["type"], "text");
    assert_eq!(text["value"], "Hello! I am running in choreo.");
    assert_eq!(text["default"], "Hello");
    assert_eq!(
        say["inputs"][1],
        json!({"name": "onStart", "type": "bang", "nature": "onStart", "tooltip": "Says the text."})
    );
    assert!(
        say["text"]
            .as_str()
            .unwrap()
            .starts_with("<Box name=\"Say Hello\"")
    );
    assert!(wire::inspect(&d, &at(7)).is_err());
}

#[test]
fn an_editor_answers_each_command_and_the_file_follows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("behavior.xar");
    std::fs::copy(HELLO, &path).unwrap();
    let original = std::fs::read(&path).unwrap();
    let monitor = std::sync::Arc::new(
        choreo_monitor::Monitor::start(
            &choreo_engine::graph::Graph::new(hello().xar()),
            choreo_monitor::MonitorOptions {
                edit: true,
                ..choreo_monitor::MonitorOptions::default()
            },
        )
        .unwrap(),
    );
    let mut editor = Editor::new(Session::open(&path).unwrap(), Library::basic(), monitor);
    let move_nod = json!({"kind": "move", "box": [[0, 0, 3]], "x": 500, "y": 90});
    editor.handle(choreo_monitor::Command::Edit(move_nod));
    let moved = std::fs::read_to_string(&path).unwrap();
    assert!(moved.contains(r#"tooltip="Nods the head." x="500" y="90""#));
    assert_eq!(editor.session().history(), (true, false));
    // Refused: the file and the history as they were.
    editor.handle(choreo_monitor::Command::Edit(
        json!({"kind": "delete", "box": [[0, 0, 8]]}),
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), moved);
    assert_eq!(editor.session().history(), (true, false));
    editor.handle(choreo_monitor::Command::Undo);
    assert_eq!(std::fs::read(&path).unwrap(), original);
    assert_eq!(editor.session().history(), (false, true));
}

const NOD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../choreo/tests/fixtures/nod.xar"
);

#[test]
fn a_timeline_is_shown_and_changed_in_radians_its_file_in_degrees() {
    let d = Document::open("nod", &std::fs::read(NOD).unwrap()).unwrap();
    // nod.xar: Nod (id 1) at 10 fps, HeadYaw 0° at 1 and 90° at 11, LHand 0.2 at 1 (a ratio).
    let nod = wire::inspect(&d, &at(1)).unwrap();
    let t = &nod["timeline"];
    assert_eq!(
        (t["fps"].as_i64(), t["start"].as_i64(), t["end"].as_i64()),
        (Some(10), Some(1), Some(-1))
    );
    let yaw = &t["curves"][0];
    assert_eq!(yaw["actuator"], "HeadYaw");
    let ninety = yaw["keys"][1]["value"].as_f64().unwrap();
    assert!(
        (ninety - std::f64::consts::FRAC_PI_2).abs() < 1e-12,
        "{ninety}"
    );
    assert_eq!(t["curves"][2]["keys"][0]["value"], 0.2);
    assert_eq!(t["curves"][3]["mute"], true);
    // A flow diagram box has no timeline to show.
    let hello = wire::inspect(&hello(), &at(1)).unwrap();
    assert!(hello["timeline"].is_null());

    // 0.5 rad is 28.6479° (0.5 · 180/π), stored in HeadYaw's degrees; a hand's ratio as it is.
    let v = json!({"kind": "timeline", "box": [[0, 0, 1]], "change": {"op": "keys", "frame": 6,
        "joints": {"HeadYaw": 0.5, "LHand": 0.5}}});
    let Edit::Timeline {
        change: TimelineEdit::SetKeys { frame, keys, robot },
        ..
    } = edit(&d, &v).unwrap()
    else {
        panic!("not a SetKeys");
    };
    assert_eq!((frame, robot), (6, choreo_robot::Model::Nao));
    let yaw = keys.iter().find(|(j, _)| j == "HeadYaw").unwrap().1;
    assert!((yaw - 28.647_889_756).abs() < 1e-6, "{yaw}");
    assert_eq!(keys.iter().find(|(j, _)| j == "LHand").unwrap().1, 0.5);

    let v = json!({"kind": "timeline", "box": [[0, 0, 1]], "change": {"op": "interpolation",
        "actuator": "HeadYaw", "frame": 11, "side": "left", "how": "bezier", "abscissa": -3, "ordinate": 0.1}});
    let Edit::Timeline {
        change: TimelineEdit::SetInterpolation { how, .. },
        ..
    } = edit(&d, &v).unwrap()
    else {
        panic!("not a SetInterpolation");
    };
    let Interpolation::Bezier { abscissa, ordinate } = how else {
        panic!("{how:?}")
    };
    assert_eq!(abscissa, -3.0);
    assert!((ordinate - 5.729_577_951).abs() < 1e-6, "{ordinate}");
    for (change, why) in [
        (json!({"op": "fly"}), "no timeline change"),
        (
            json!({"op": "keys", "frame": 2, "joints": {"HeadYaw": "far"}}),
            "HeadYaw: not a number",
        ),
        (
            json!({"op": "interpolation", "actuator": "HeadYaw", "frame": 1, "side": "up", "how": "auto"}),
            "left or right",
        ),
    ] {
        let v = json!({"kind": "timeline", "box": [[0, 0, 1]], "change": change});
        let e = edit(&d, &v).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn a_boxs_fields_are_changed_in_the_pages_words() {
    use choreo_xar::edit::{BoxFieldEdit, NewPort};
    use choreo_xar::model::{OutputNature, PortType};
    let d = hello();
    let v = json!({"kind": "port_add", "box": [[0, 0, 3]], "port": {"kind": "output", "name": "done",
        "type": "bang", "nature": "punctual", "tooltip": "Nodded."}});
    let want = Edit::BoxFields {
        at: at(3),
        change: BoxFieldEdit::AddPort(NewPort::Output {
            name: "done".into(),
            port_type: PortType::Bang,
            nature: OutputNature::Punctual,
            tooltip: "Nodded.".into(),
        }),
    };
    assert_eq!(edit(&d, &v).unwrap(), want);
    let v = json!({"kind": "port_add", "box": [[0, 0, 3]], "port": {"kind": "output", "name": "x",
        "type": "bang", "nature": "sometimes"}});
    let e = edit(&d, &v).unwrap_err().to_string();
    assert!(
        e.contains("an output's nature is one of undefined, stopping, punctual, recurrent"),
        "{e}"
    );
    let v = json!({"kind": "resource_remove", "box": [[0, 0, 3]], "name": "Head"});
    assert_eq!(
        edit(&d, &v).unwrap(),
        Edit::BoxFields {
            at: at(3),
            change: BoxFieldEdit::RemoveResource {
                name: "Head".into()
            }
        }
    );
}

#[test]
fn a_box_played_alone_is_started_and_stopped_by_the_root_of_a_new_behavior() {
    // examples/hello's Say Hello (id 2): onStart is its input 2, onStopped its output 4; the
    // new behavior's root has onStart 2 and onStopped 4 (Choregraphe's empty behavior).
    let bytes = crate::play::box_alone(&hello(), &at(2)).unwrap();
    let xar = choreo_xar::read_xar("alone", &bytes).unwrap().value;
    let d = xar.root_box.diagrams().next().unwrap();
    let names: Vec<&str> = d.boxes.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Say Hello"]);
    let id = d.boxes[0].id;
    let links: Vec<(i32, i32, i32, i32)> = d
        .links
        .iter()
        .map(|l| {
            (
                l.output_owner,
                l.index_of_output,
                l.input_owner,
                l.index_of_input,
            )
        })
        .collect();
    assert_eq!(links, [(0, 2, id, 2), (id, 4, 0, 4)]);
    // Its parameter and script as in the behavior.
    let original = hello();
    let say = original.box_def(&at(2)).unwrap();
    assert_eq!(d.boxes[0].parameters, say.parameters);
    assert_eq!(d.boxes[0].code(), say.code());
}

/// Choregraphe 2.1's Animated Say keeps its text where its Say does: in the Localized Text
/// inside it ("you must open the box to enter the text", says its tooltip). Inspected, the
/// box lists that panel with its texts, and a Switch Case lists its table (2.1 library).
#[test]
fn the_stock_animated_say_and_switch_case_show_their_panels() {
    let Some(library) = choreo_testkit::library("the stock Animated Say box") else {
        return;
    };
    let read = |path: &str| {
        let bytes = std::fs::read(library.join(path)).unwrap();
        wire::inspect(&Document::open(path, &bytes).unwrap(), &BoxRef::default()).unwrap()
    };
    let say = read("standard/Audio/Voice/Animated Say/behavior.xar");
    let panels = say["plugin_texts"].as_array().unwrap();
    assert_eq!(panels.len(), 1, "{panels:?}");
    assert_eq!(panels[0]["name"], "Localized Text");
    assert_eq!(panels[0]["box"], json!([[0, 0, 5]]));
    let english = panels[0]["texts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["field"] == "english")
        .unwrap();
    assert!(!english["text"].as_str().unwrap().is_empty(), "{english}");

    let switch = read("standard/Flow Control/Switch Case/box.xar");
    assert_eq!(
        switch["plugin_texts"][0]["tables"],
        json!([{"table": "keywords", "rows": ["\"Hello\"", "5"]}])
    );
}
