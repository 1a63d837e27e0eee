//! A box's fields changed as Choregraphe's Edit box dialog changes them, on the fixture of
//! `tests.rs` (Say: inputs 1–4, outputs 5–6, parameters 7–8; Wait; root.onStart → Say →
//! root.onStopped): ids, places in the file, links that go with a port or stay with a port
//! edited in place, only the attributes an edit changes rewritten, and the refusals of
//! "Box - Inputs/outputs" and "Box - Optional components" (module doc of `ports.rs`).
#![allow(clippy::unwrap_used)]

use super::tests::{XAR, changed_lines};
use super::*;
use crate::model::{ContentType, InputNature, OutputNature, PortRef, PortType};

fn say() -> BoxRef {
    BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 1,
    }])
}

fn fixture() -> Document {
    Document::open("fixture.xar", XAR.as_bytes()).unwrap()
}

/// `change` made to the box at `at` of `doc`: the document after; its undo gives `doc`'s
/// bytes back.
fn made_on(doc: &Document, at: BoxRef, change: BoxFieldEdit) -> Document {
    let mut after = doc.clone();
    let patch = after.apply(&Edit::BoxFields { at, change }).unwrap();
    let mut undone = after.clone();
    undone.apply_patch(&patch.inverse()).unwrap();
    assert_eq!(undone.bytes(), doc.bytes());
    after
}

/// Why `change` to the box at `at` of `doc` is refused (the document unchanged).
fn refused_on(doc: &Document, at: BoxRef, change: BoxFieldEdit) -> String {
    let mut after = doc.clone();
    let e = after.apply(&Edit::BoxFields { at, change }).unwrap_err();
    assert_eq!(after.bytes(), doc.bytes());
    e.to_string()
}

fn made(change: BoxFieldEdit) -> Document {
    made_on(&fixture(), say(), change)
}

fn refusal(change: BoxFieldEdit) -> String {
    refused_on(&fixture(), say(), change)
}

fn text(doc: &Document) -> String {
    String::from_utf8(doc.bytes().to_vec()).unwrap()
}

fn output(name: &str) -> BoxFieldEdit {
    BoxFieldEdit::AddPort(NewPort::Output {
        name: name.into(),
        port_type: PortType::Bang,
        nature: OutputNature::Punctual,
        tooltip: "Done.".into(),
    })
}

#[test]
fn ports_are_added_with_the_next_id_among_their_kind() {
    let doc = made(output("done"));
    let b = doc.box_def(&say()).unwrap();
    let done = b.outputs.iter().find(|p| p.name == "done").unwrap();
    // Ids 1–8 are taken by the ports and parameters: the next is 9.
    assert_eq!(
        (done.id, done.nature, done.port_type),
        (9, OutputNature::Punctual, PortType::Bang)
    );
    let text = String::from_utf8(doc.bytes().to_vec()).unwrap();
    let said = text.find(r#"<Output name="said""#).unwrap();
    let added = text.find(r#"<Output name="done""#).unwrap();
    let text_param = text.find(r#"<Parameter name="Text""#).unwrap();
    assert!(said < added && added < text_param, "not among the outputs");

    let doc = made(BoxFieldEdit::AddPort(NewPort::Input {
        name: "onLoadMore".into(),
        port_type: PortType::Bang,
        nature: InputNature::OnLoad,
        tooltip: String::new(),
    }));
    let input = doc
        .box_def(&say())
        .unwrap()
        .inputs
        .iter()
        .find(|p| p.name == "onLoadMore")
        .cloned()
        .unwrap();
    // onLoad inputs are "only visible within the diagram".
    assert!(input.is_inner());

    let doc = made(BoxFieldEdit::AddPort(NewPort::Parameter {
        name: "Volume (%)".into(),
        content_type: ContentType::Int,
        value: "80".into(),
        min: Some(0.0),
        max: Some(100.0),
        tooltip: String::new(),
    }));
    let p = doc
        .box_def(&say())
        .unwrap()
        .parameter("Volume (%)")
        .cloned()
        .unwrap();
    assert_eq!(
        (p.id, p.value.as_deref(), p.min, p.max),
        (9, Some("80"), Some(0.0), Some(100.0))
    );
}

#[test]
fn fields_choregraphe_would_refuse_are_refused() {
    assert!(refusal(output("said")).contains("already has a port named \"said\""));
    assert!(refusal(output("2fast")).contains("becomes Python"));
    assert!(refusal(output("has space")).contains("becomes Python"));
    let parameter = |name: &str, value: &str| {
        BoxFieldEdit::AddPort(NewPort::Parameter {
            name: name.into(),
            content_type: ContentType::Int,
            value: value.into(),
            min: Some(0.0),
            max: Some(10.0),
            tooltip: String::new(),
        })
    };
    assert!(refusal(parameter("Text", "1")).contains("unique for each box"));
    assert!(refusal(parameter("Level", "11")).contains("outside"));
    assert!(
        refusal(BoxFieldEdit::RemovePort {
            name: "nope".into(),
            kind: "input".into()
        })
        .contains("no input")
    );
}

#[test]
fn a_port_removed_takes_its_links() {
    // Say's onStart (2) is fed by root.onStart; its onStopped (5) ends the behavior.
    let doc = made(BoxFieldEdit::RemovePort {
        name: "onStopped".into(),
        kind: "output".into(),
    });
    let d = doc.xar().root_box.diagrams().next().unwrap();
    assert!(
        doc.box_def(&say())
            .unwrap()
            .outputs
            .iter()
            .all(|p| p.name != "onStopped")
    );
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
    assert_eq!(links, [(0, 2, 1, 2)]);
}

#[test]
fn resources_are_taken_and_given_up() {
    let doc = made(BoxFieldEdit::AddResource {
        name: "Speech".into(),
        lock: "Stop on demand".into(),
    });
    let r = &doc.box_def(&say()).unwrap().resources;
    assert_eq!(
        (r[0].name.as_str(), r[0].lock_type.as_str()),
        ("Speech", "Stop on demand")
    );
    let mut doc = doc;
    doc.apply(&Edit::BoxFields {
        at: say(),
        change: BoxFieldEdit::RemoveResource {
            name: "Speech".into(),
        },
    })
    .unwrap();
    assert_eq!(doc.bytes(), XAR.as_bytes());
}

/// Say's input `name` (of `kind`) given the fields of `port`.
fn change(name: &str, kind: &str, port: NewPort) -> BoxFieldEdit {
    BoxFieldEdit::ChangePort {
        name: name.into(),
        kind: kind.into(),
        port,
    }
}

fn bang_input(name: &str, nature: InputNature) -> NewPort {
    NewPort::Input {
        name: name.into(),
        port_type: PortType::Bang,
        nature,
        tooltip: String::new(),
    }
}

/// Say's `Speed (%)` (int, 100 in 50..200) with new fields: the default `value`.
fn speed(name: &str, content_type: ContentType, value: &str, bounds: (f64, f64)) -> BoxFieldEdit {
    change(
        "Speed (%)",
        "parameter",
        NewPort::Parameter {
            name: name.into(),
            content_type,
            value: value.into(),
            min: Some(bounds.0),
            max: Some(bounds.1),
            tooltip: String::new(),
        },
    )
}

#[test]
fn an_input_renamed_keeps_its_id_its_link_and_every_other_byte() {
    // Say's onStart (id 2) is fed by root.onStart: `<Link inputowner="1" indexofinput="2"
    // outputowner="0" indexofoutput="2" />`.
    let doc = made(change(
        "onStart",
        "input",
        bang_input("begin", InputNature::OnStart),
    ));
    let input = doc.box_def(&say()).unwrap().port(2);
    assert!(matches!(input, Some(PortRef::Input(i)) if i.name == "begin"));
    let d = doc.xar().root_box.diagrams().next().unwrap();
    assert!(d.links.iter().any(|l| (
        l.output_owner,
        l.index_of_output,
        l.input_owner,
        l.index_of_input
    ) == (0, 2, 1, 2)));
    // The second `<Input name="onStart"` is Say's (the first is root's): only its name
    // attribute's value changes.
    let tag = r#"<Input name=""#;
    let at = XAR
        .match_indices(r#"<Input name="onStart""#)
        .nth(1)
        .unwrap()
        .0
        + tag.len();
    let expected = format!("{}begin{}", &XAR[..at], &XAR[at + "onStart".len()..]);
    assert_eq!(text(&doc), expected);
}

#[test]
fn a_new_nature_sets_inner_as_a_new_port_has_it() {
    // count (id 4, Number, onEvent) becomes an ALMemory input: "only visible within the
    // diagram". It has no link.
    let doc = made(change(
        "count",
        "input",
        NewPort::Input {
            name: "count".into(),
            port_type: PortType::Number,
            nature: InputNature::Memory,
            tooltip: String::new(),
        },
    ));
    assert_eq!(
        changed_lines(XAR, &text(&doc)),
        [(
            r#"<Input name="count" type="2" type_size="1" nature="1" inner="0" tooltip="" id="4" />"#.to_string(),
            r#"<Input name="count" type="2" type_size="1" nature="4" inner="1" tooltip="" id="4" />"#.to_string()
        )]
    );
}

#[test]
fn a_change_that_would_break_a_link_is_refused_naming_it() {
    // Inside root's diagram, Say.onStopped (a bang) reaches root's output onStopped: root's
    // output may not take strings only.
    let root = BoxRef::default();
    let stopped = change(
        "onStopped",
        "output",
        NewPort::Output {
            name: "onStopped".into(),
            port_type: PortType::String,
            nature: OutputNature::Stopped,
            tooltip: String::new(),
        },
    );
    assert_eq!(
        refused_on(&fixture(), root, stopped),
        "the link Say.onStopped -> root.onStopped would break: root's output onStopped takes a \
         string, which a bang output does not send"
    );

    // Outside Say: said (a string) reaching Wait's new string input `text` (id 4) may not
    // become a bang; a number is still understood by a string input.
    let wait = BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 2,
    }]);
    let mut doc = made_on(
        &fixture(),
        wait,
        BoxFieldEdit::AddPort(NewPort::Input {
            name: "text".into(),
            port_type: PortType::String,
            nature: InputNature::OnEvent,
            tooltip: String::new(),
        }),
    );
    let diagram = DiagramRef {
        owner: BoxRef::default(),
        layer: 0,
        keyframe: 0,
    };
    let link = LinkRef {
        from: 1,
        from_port: 6,
        to: 2,
        to_port: 4,
    };
    doc.apply(&Edit::Link { diagram, link }).unwrap();
    let said = |port_type| {
        change(
            "said",
            "output",
            NewPort::Output {
                name: "said".into(),
                port_type,
                nature: OutputNature::Punctual,
                tooltip: String::new(),
            },
        )
    };
    assert_eq!(
        refused_on(&doc, say(), said(PortType::Bang)),
        "the link Say.said -> Wait.text would break: Wait's input text takes a string, which \
         a bang output does not send"
    );
    made_on(&doc, say(), said(PortType::Number));

    // An input fed from outside may not become one seen only inside.
    assert_eq!(
        refusal(change(
            "onStart",
            "input",
            bang_input("onStart", InputNature::OnLoad)
        )),
        "the link root.onStart -> Say.onStart would break: Say's input onStart is only \
         visible inside its own diagram"
    );
}

#[test]
fn a_port_changed_follows_the_rules_of_a_new_one() {
    let to = |name: &str| change("count", "input", bang_input(name, InputNature::OnEvent));
    assert!(refusal(to("onStop")).contains("already has a port named \"onStop\""));
    assert!(refusal(to("said")).contains("already has a port named \"said\""));
    assert!(refusal(to("a b")).contains("becomes Python"));
    // Its own name is no clash.
    made(to("count"));
    assert!(
        refusal(change(
            "count",
            "output",
            bang_input("count", InputNature::OnEvent)
        ))
        .contains("has no output \"count\"")
    );
    assert!(
        refusal(change(
            "count",
            "input",
            NewPort::Output {
                name: "count".into(),
                port_type: PortType::Number,
                nature: OutputNature::Punctual,
                tooltip: String::new(),
            }
        ))
        .contains("a port keeps its kind")
    );
    assert!(
        refusal(speed("Text", ContentType::Int, "100", (50.0, 200.0)))
            .contains("unique for each box")
    );
    // The default, too, within the new bounds.
    assert!(
        refusal(speed("Speed (%)", ContentType::Int, "300", (50.0, 200.0))).contains("outside")
    );
}

#[test]
fn a_parameters_max_below_its_value_is_refused() {
    // Speed (%) has the value 100: a max of 90 would leave it outside.
    assert_eq!(
        refusal(speed("Speed (%)", ContentType::Int, "80", (50.0, 90.0))),
        "Speed (%): its value stays, and 100 is outside 50..90: set a value the new fields \
         take first"
    );
    // Text's value ("Hello & welcome") is no integer.
    let text_to_int = change(
        "Text",
        "parameter",
        NewPort::Parameter {
            name: "Text".into(),
            content_type: ContentType::Int,
            value: "1".into(),
            min: None,
            max: None,
            tooltip: String::new(),
        },
    );
    assert!(refusal(text_to_int).contains("an integer, not \"Hello & welcome\""));
}

#[test]
fn a_parameter_keeps_its_value_through_a_new_type_or_name() {
    let line = r#"<Parameter name="Speed (%)" inherits_from_parent="0" content_type="1" value="100" default_value="100" min="50" max="200" tooltip="" id="8" />"#;
    // int -> double: 100 is a double; only content_type changes.
    let doc = made(speed(
        "Speed (%)",
        ContentType::Double,
        "100",
        (50.0, 200.0),
    ));
    assert_eq!(
        text(&doc),
        XAR.replace(
            line,
            &line.replace(r#"content_type="1""#, r#"content_type="2""#)
        )
    );
    let p = doc
        .box_def(&say())
        .unwrap()
        .parameter("Speed (%)")
        .cloned()
        .unwrap();
    assert_eq!(
        (p.content_type, p.value.as_deref(), p.id),
        (ContentType::Double, Some("100"), 8)
    );

    // A new name and default: the value (100) stays.
    let doc = made(speed("Rate", ContentType::Int, "120", (50.0, 200.0)));
    assert_eq!(
        text(&doc),
        XAR.replace(
            line,
            &line
                .replace(r#"name="Speed (%)""#, r#"name="Rate""#)
                .replace(r#"default_value="100""#, r#"default_value="120""#)
        )
    );
    let p = doc
        .box_def(&say())
        .unwrap()
        .parameter("Rate")
        .cloned()
        .unwrap();
    assert_eq!(
        (p.value.as_deref(), p.default_value.as_deref()),
        (Some("100"), Some("120"))
    );
}

#[test]
fn a_new_type_drops_the_fields_it_has_not() {
    // int -> string: min and max are the Integer's and the Float's only.
    let speed_line =
        r#"content_type="1" value="100" default_value="100" min="50" max="200" tooltip="""#;
    let doc = made(speed(
        "Speed (%)",
        ContentType::String,
        "100",
        (50.0, 200.0),
    ));
    assert_eq!(
        text(&doc),
        XAR.replace(
            speed_line,
            r#"content_type="3" value="100" default_value="100" tooltip="""#
        )
    );
    // And back to an int with bounds: they come after the other attributes.
    let back = made_on(
        &doc,
        say(),
        speed("Speed (%)", ContentType::Int, "100", (0.0, 300.0)),
    );
    assert_eq!(
        text(&back),
        XAR.replace(
            speed_line,
            r#"content_type="1" value="100" default_value="100" tooltip="""#
        )
        .replace(
            r#"tooltip="" id="8" />"#,
            r#"tooltip="" id="8" min="0" max="300" />"#
        )
    );
    // string -> attached file: custom_choice is the String's only.
    let doc = made(change(
        "Text",
        "parameter",
        NewPort::Parameter {
            name: "Text".into(),
            content_type: ContentType::File,
            value: String::new(),
            min: None,
            max: None,
            tooltip: String::new(),
        },
    ));
    assert_eq!(
        text(&doc),
        XAR.replace(
            r#"content_type="3" value="Hello &amp; welcome" default_value="" custom_choice="0" tooltip="""#,
            r#"content_type="4" value="Hello &amp; welcome" default_value="" tooltip="""#
        )
    );
}

#[test]
fn a_change_is_undone_byte_for_byte() {
    // Several attributes of one element at once (name, type, nature, inner, tooltip); a
    // parameter's attributes removed, and added at the end of its tag.
    let changes = [
        change(
            "count",
            "input",
            NewPort::Input {
                name: "level".into(),
                port_type: PortType::Dynamic,
                nature: InputNature::OnLoad,
                tooltip: "A <level> & more".into(),
            },
        ),
        speed("Speed", ContentType::String, "fast", (0.0, 0.0)),
    ];
    let mut after = fixture();
    for c in changes {
        let before = after.clone();
        let patch = after
            .apply(&Edit::BoxFields {
                at: say(),
                change: c,
            })
            .unwrap();
        let mut undone = after.clone();
        undone.apply_patch(&patch.inverse()).unwrap();
        assert_eq!(undone.bytes(), before.bytes());
        let mut redone = undone.clone();
        redone.apply_patch(&patch).unwrap();
        assert_eq!(redone.bytes(), after.bytes());
    }
    let b = after.box_def(&say()).unwrap();
    assert!(b.inputs.iter().any(|i| i.name == "level" && i.is_inner()));
    assert_eq!(b.parameter("Speed").unwrap().min, None);
}
