//! Each edit on a small behavior laid out as Choregraphe 2.8 writes one: what the model reads
//! back, and that the bytes outside the edit stay.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::diff::{DiffOptions, diff};

/// A root diagram with a Say box (a String and an Int parameter), a Wait box, and links
/// root.onStart -> Say.onStart -> root.onStopped. Port ids as Choregraphe numbers them.
pub(super) const XAR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="Root box" x="0" y="0">
        <bitmap>media/images/box/root.png</bitmap>
        <script language="4">
            <content>
                <![CDATA[]]>
</content>
        </script>
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
        <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram>
                        <Box name="Say" id="1" localization="8" tooltip="" x="120" y="45">
                            <script language="4">
                                <content>
                                    <![CDATA[class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.onStopped()
]]>
</content>
                            </script>
                            <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
                            <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
                            <Input name="count" type="2" type_size="1" nature="1" inner="0" tooltip="" id="4" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="5" />
                            <Output name="said" type="3" type_size="1" nature="2" inner="0" tooltip="" id="6" />
                            <Parameter name="Text" inherits_from_parent="0" content_type="3" value="Hello &amp; welcome" default_value="" custom_choice="0" tooltip="" id="7" />
                            <Parameter name="Speed (%)" inherits_from_parent="0" content_type="1" value="100" default_value="100" min="50" max="200" tooltip="" id="8" />
                        </Box>
                        <Box name="Wait" id="2" localization="8" tooltip="" x="300" y="45">
                            <script language="4">
                                <content>
                                    <![CDATA[]]>
</content>
                            </script>
                            <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
                        </Box>
                        <Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2" />
                        <Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="5" />
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#;

fn open() -> Document {
    Document::open("fixture.xar", XAR.as_bytes()).unwrap()
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

/// What `edit` changes, as `choreo diff --editor` says it, and the text's changed lines.
fn change(edit: &Edit) -> (Vec<String>, Vec<(String, String)>) {
    let mut doc = open();
    let before = doc.xar().clone();
    doc.apply(edit).unwrap();
    let differences = diff(&before, doc.xar(), DiffOptions { editor: true })
        .iter()
        .map(ToString::to_string)
        .collect();
    let after = String::from_utf8(doc.bytes().to_vec()).unwrap();
    (differences, changed_lines(XAR, &after))
}

/// The lines of `a` and `b` that differ, paired (a line only one has pairs with "").
pub(super) fn changed_lines(a: &str, b: &str) -> Vec<(String, String)> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    (0..a.len().max(b.len()))
        .map(|i| {
            let line = |l: &[&str]| l.get(i).map_or(String::new(), |s| s.trim().to_string());
            (line(a), line(b))
        })
        .collect()
}

#[test]
fn a_document_saved_without_an_edit_is_its_own_bytes() {
    assert_eq!(open().bytes(), XAR.as_bytes());
}

#[test]
fn moving_a_box_changes_its_position_and_nothing_else() {
    let (differences, lines) = change(&Edit::Move {
        at: at(1),
        x: 140,
        y: -5,
    });
    assert_eq!(
        differences,
        ["root/Say: position: (Some(120), Some(45)) -> (Some(140), Some(-5))"]
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0].1,
        r#"<Box name="Say" id="1" localization="8" tooltip="" x="140" y="-5">"#
    );
}

#[test]
fn a_position_the_file_did_not_have_is_added_after_the_other_attributes() {
    let text = XAR.replace(r#" x="300" y="45""#, "");
    let mut doc = Document::open("f.xar", text.as_bytes()).unwrap();
    doc.apply(&Edit::Move {
        at: at(2),
        x: 1,
        y: 2,
    })
    .unwrap();
    assert_eq!(
        doc.bytes(),
        XAR.replace(r#" x="300" y="45""#, r#" x="1" y="2""#)
            .as_bytes()
    );
}

#[test]
fn renaming_a_box_keeps_its_id_and_links() {
    let (differences, lines) = change(&Edit::Rename {
        at: at(1),
        name: "Say \"hi\" <now>".to_string(),
    });
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0]
            .1
            .contains(r#"name="Say &quot;hi&quot; &lt;now&gt;""#),
        "{lines:?}"
    );
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert!(
        differences[0].starts_with("root/Say: name:"),
        "{differences:?}"
    );
    assert!(differences[0].contains("<now>"), "{differences:?}");
    let mut doc = open();
    let refused = doc.apply(&Edit::Rename {
        at: at(1),
        name: "a/b".to_string(),
    });
    assert!(matches!(refused, Err(EditError::Refused(_))), "{refused:?}");
    assert_eq!(doc.bytes(), XAR.as_bytes());
}

#[test]
fn a_parameter_takes_values_its_type_and_bounds_allow() {
    let (differences, lines) = change(&Edit::SetParameter {
        at: at(1),
        parameter: "Speed (%)".to_string(),
        value: "150".to_string(),
    });
    assert_eq!(lines.len(), 1);
    assert!(lines[0].1.contains(r#"value="150""#));
    assert_eq!(differences.len(), 1, "{differences:?}");
    let (_, lines) = change(&Edit::SetParameter {
        at: at(1),
        parameter: "Text".to_string(),
        value: "Bye & \"thanks\"".to_string(),
    });
    assert!(
        lines[0]
            .1
            .contains(r#"value="Bye &amp; &quot;thanks&quot;""#),
        "{lines:?}"
    );
    let mut doc = open();
    for (parameter, value) in [
        ("Speed (%)", "201"),
        ("Speed (%)", "fast"),
        ("Speed (%)", "1.5"),
    ] {
        let refused = doc.apply(&Edit::SetParameter {
            at: at(1),
            parameter: parameter.to_string(),
            value: value.to_string(),
        });
        assert!(
            matches!(refused, Err(EditError::Refused(_))),
            "{value}: {refused:?}"
        );
    }
    let missing = doc.apply(&Edit::SetParameter {
        at: at(1),
        parameter: "Volume".to_string(),
        value: "1".to_string(),
    });
    assert!(
        matches!(missing, Err(EditError::NotFound(_))),
        "{missing:?}"
    );
    assert_eq!(doc.bytes(), XAR.as_bytes());
}

#[test]
fn a_script_is_replaced_inside_its_cdata() {
    let code =
        "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        x = 'a]]>b'\n";
    let mut doc = open();
    doc.apply(&Edit::SetScript {
        at: at(1),
        text: code.to_string(),
    })
    .unwrap();
    let say = &doc.xar().root_box.diagrams().next().unwrap().boxes[0];
    assert_eq!(say.code(), code);
    let differences = diff(
        &open().xar().clone(),
        doc.xar(),
        DiffOptions { editor: true },
    );
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(differences[0].path, "root/Say");
}

#[test]
fn a_link_is_added_on_a_line_of_its_own_as_the_others() {
    let link = LinkRef {
        from: 1,
        from_port: 5,
        to: 2,
        to_port: 2,
    };
    let (differences, lines) = change(&Edit::Link {
        diagram: root_diagram(),
        link,
    });
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(
        lines,
        [(
            String::new(),
            r#"<Link inputowner="2" indexofinput="2" outputowner="1" indexofoutput="5" />"#
                .to_string()
        )]
    );
    let mut doc = open();
    doc.apply(&Edit::Link {
        diagram: root_diagram(),
        link,
    })
    .unwrap();
    let text = String::from_utf8(doc.bytes().to_vec()).unwrap();
    assert!(text.contains(
        "indexofoutput=\"5\" />\n                        <Link inputowner=\"2\" indexofinput=\"2\""
    ));
}

/// Choregraphe's rules, from box_input_output.html (see `links.rs`): each refused link
/// says why.
#[test]
fn links_choregraphe_refuses_are_refused_with_the_reason() {
    let refusals = [
        // A String output into a Number input: not understandable by it.
        (
            LinkRef {
                from: 1,
                from_port: 6,
                to: 1,
                to_port: 4,
            },
            "takes a number, which a string output",
        ),
        // A Bang carries no number.
        (
            LinkRef {
                from: 1,
                from_port: 5,
                to: 1,
                to_port: 4,
            },
            "takes a number, which a bang output",
        ),
        // onLoad is only visible inside the box's own diagram.
        (
            LinkRef {
                from: 1,
                from_port: 5,
                to: 2,
                to_port: 1,
            },
            "only visible inside",
        ),
        // The owner's onStop input is not visible inside its diagram.
        (
            LinkRef {
                from: 0,
                from_port: 3,
                to: 2,
                to_port: 2,
            },
            "not visible inside",
        ),
        // A link leaves a box by an output, not an input.
        (
            LinkRef {
                from: 1,
                from_port: 2,
                to: 2,
                to_port: 2,
            },
            "by an output",
        ),
        // The same link twice.
        (
            LinkRef {
                from: 0,
                from_port: 2,
                to: 1,
                to_port: 2,
            },
            "already has",
        ),
        // A box the diagram does not have.
        (
            LinkRef {
                from: 9,
                from_port: 1,
                to: 2,
                to_port: 2,
            },
            "no box with id 9",
        ),
    ];
    let mut doc = open();
    for (link, why) in refusals {
        match doc.apply(&Edit::Link {
            diagram: root_diagram(),
            link,
        }) {
            Err(EditError::Refused(text)) => assert!(text.contains(why), "{link:?}: {text}"),
            other => panic!("{link:?}: {other:?}"),
        }
    }
    assert_eq!(doc.bytes(), XAR.as_bytes());
    // Any signal into a Bang input; a String into a Dynamic one would be taken too.
    doc.apply(&Edit::Link {
        diagram: root_diagram(),
        link: LinkRef {
            from: 1,
            from_port: 6,
            to: 2,
            to_port: 2,
        },
    })
    .unwrap();
}

#[test]
fn unlinking_removes_the_links_line() {
    let (differences, lines) = change(&Edit::Unlink {
        diagram: root_diagram(),
        link: LinkRef {
            from: 1,
            from_port: 5,
            to: 0,
            to_port: 4,
        },
    });
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(
        lines,
        [(
            r#"<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="5" />"#
                .to_string(),
            String::new()
        )]
    );
}

#[test]
fn deleting_a_box_removes_it_and_its_links() {
    let mut doc = open();
    doc.apply(&Edit::Delete { at: at(1) }).unwrap();
    let diagram = doc.xar().root_box.diagrams().next().unwrap();
    assert_eq!(diagram.boxes.len(), 1);
    assert_eq!(diagram.boxes[0].name, "Wait");
    assert!(diagram.links.is_empty());
    let text = String::from_utf8(doc.bytes().to_vec()).unwrap();
    assert!(text.contains("<Diagram>\n                        <Box name=\"Wait\""));
    assert!(text.contains("</Box>\n                    </Diagram>"));
    let refused = doc.apply(&Edit::Delete {
        at: BoxRef::default(),
    });
    assert!(matches!(refused, Err(EditError::Refused(_))));
}

#[test]
fn every_edit_is_undone_by_its_inverse() {
    let edits = [
        Edit::Move {
            at: at(2),
            x: 7,
            y: 8,
        },
        Edit::Rename {
            at: at(2),
            name: "Pause".to_string(),
        },
        Edit::SetScript {
            at: at(2),
            text: "pass\n".to_string(),
        },
        Edit::Link {
            diagram: root_diagram(),
            link: LinkRef {
                from: 1,
                from_port: 5,
                to: 2,
                to_port: 2,
            },
        },
        Edit::Delete { at: at(1) },
    ];
    let mut doc = open();
    let mut patches = Vec::new();
    for edit in &edits {
        patches.push(doc.apply(edit).unwrap());
    }
    for patch in patches.iter().rev() {
        doc.apply_patch(&patch.inverse()).unwrap();
    }
    assert_eq!(doc.bytes(), XAR.as_bytes());
}

#[test]
fn a_copied_box_is_added_under_a_free_id_at_its_place() {
    let mut doc = open();
    let text = doc.box_text(&at(1)).unwrap();
    assert!(text.starts_with("<Box name=\"Say\" id=\"1\"") && text.ends_with("</Box>"));
    let before = doc.xar().clone();
    doc.apply(&Edit::Add {
        diagram: root_diagram(),
        text,
        x: 500,
        y: 90,
    })
    .unwrap();
    let differences: Vec<String> = diff(&before, doc.xar(), DiffOptions { editor: true })
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(differences, ["root: box \"Say\" (id 3) added"]);
    let diagram = doc.xar().root_box.diagrams().next().unwrap();
    let copy = diagram.box_by_id(3).unwrap();
    assert_eq!((copy.x, copy.y), (Some(500), Some(90)));
    assert_eq!(copy.code(), diagram.box_by_id(1).unwrap().code());
    // After the last box, on a line of its own, the links still after it.
    let text = String::from_utf8(doc.bytes().to_vec()).unwrap();
    assert!(text.contains("</Box>\n                        <Box name=\"Say\" id=\"3\""));
    assert!(text.find("id=\"3\"").unwrap() < text.find("<Link").unwrap());
}

#[test]
fn only_one_box_element_is_added() {
    let mut doc = open();
    for text in [
        "<Link inputowner=\"1\" />",
        "<Box name=\"a\" id=\"1\"/><Box/>",
        "not xml <",
    ] {
        let refused = doc.apply(&Edit::Add {
            diagram: root_diagram(),
            text: text.to_string(),
            x: 0,
            y: 0,
        });
        assert!(
            matches!(refused, Err(EditError::Refused(_))),
            "{text}: {refused:?}"
        );
    }
    assert_eq!(doc.bytes(), XAR.as_bytes());
}
