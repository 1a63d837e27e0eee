//! Grouping boxes into a flow-diagram box and ungrouping it (`group.rs`): the models expected
//! worked out by hand on a small behavior, the refusals with their reasons, and Group then
//! Ungroup giving back real behaviors of the corpus.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::model::{Extras, InputNature, OutputNature, PortType};

/// A box with a script, its ports as Choregraphe numbers them: onLoad 1, onStart 2, onStop 3,
/// onStopped 4; its element's lines at `indent`.
fn script_box(indent: &str, name: &str, id: i32, x: i32, y: i32) -> String {
    format!(
        r#"{indent}<Box name="{name}" id="{id}" localization="8" tooltip="" x="{x}" y="{y}">
{indent}    <bitmap>media/images/box/box-python-script.png</bitmap>
{indent}    <script language="4">
{indent}        <content>
{indent}            <![CDATA[class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.onStopped()
]]>
</content>
{indent}    </script>
{indent}    <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
{indent}    <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="Starts {name}" id="2" />
{indent}    <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
{indent}    <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
{indent}</Box>
"#
    )
}

/// `<Link>` from `from`.`from_port` to `to`.`to_port`, at `indent`.
fn link_line(indent: &str, from: i32, from_port: i32, to: i32, to_port: i32) -> String {
    format!(
        "{indent}<Link inputowner=\"{to}\" indexofinput=\"{to_port}\" outputowner=\"{from}\" indexofoutput=\"{from_port}\" />\n"
    )
}

/// The root diagram: A (1) -> B (2) -> C (3), root.onStart -> A, C -> root.onStopped; and
/// Holder (4), a flow-diagram box started by root.onStart, holding P (1) -> Q (2) -> R (3)
/// linked to its onStart and onStopped the same way.
fn fixture() -> String {
    let d = " ".repeat(24);
    let h = " ".repeat(40);
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
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
"#,
    );
    s += &script_box(&d, "A", 1, 100, 50);
    s += &script_box(&d, "B", 2, 250, 40);
    s += &script_box(&d, "C", 3, 400, 60);
    s += &format!(
        r#"{d}<Box name="Holder" id="4" localization="8" tooltip="" x="100" y="200">
{d}    <bitmap>media/images/box/box-diagram.png</bitmap>
{d}    <script language="4">
{d}        <content>
{d}            <![CDATA[]]>
</content>
{d}    </script>
{d}    <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
{d}    <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
{d}    <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
{d}    <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
{d}    <Timeline enable="0">
{d}        <BehaviorLayer name="behavior_layer1">
{d}            <BehaviorKeyframe name="keyframe1" index="1">
{d}                <Diagram>
"#
    );
    s += &script_box(&h, "P", 1, 50, 10);
    s += &script_box(&h, "Q", 2, 150, 20);
    s += &script_box(&h, "R", 3, 250, 30);
    for (from, fp, to, tp) in [(0, 2, 1, 2), (1, 4, 2, 2), (2, 4, 3, 2), (3, 4, 0, 4)] {
        s += &link_line(&h, from, fp, to, tp);
    }
    s += &format!(
        "{d}                </Diagram>\n{d}            </BehaviorKeyframe>\n{d}        </BehaviorLayer>\n{d}    </Timeline>\n{d}</Box>\n"
    );
    for (from, fp, to, tp) in [
        (0, 2, 1, 2),
        (1, 4, 2, 2),
        (2, 4, 3, 2),
        (3, 4, 0, 4),
        (0, 2, 4, 2),
    ] {
        s += &link_line(&d, from, fp, to, tp);
    }
    s += r#"                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#;
    s
}

fn open() -> Document {
    Document::open("group.xar", fixture().as_bytes()).unwrap()
}

fn step(id: i32) -> Step {
    Step {
        layer: 0,
        keyframe: 0,
        id,
    }
}

fn diagram_of(owner: &[i32]) -> DiagramRef {
    DiagramRef {
        owner: BoxRef(owner.iter().map(|&i| step(i)).collect()),
        layer: 0,
        keyframe: 0,
    }
}

fn group(diagram: DiagramRef, boxes: &[i32], name: &str) -> Edit {
    Edit::Group {
        diagram,
        boxes: boxes.to_vec(),
        name: name.to_string(),
    }
}

fn ungroup(path: &[i32]) -> Edit {
    Edit::Ungroup {
        at: BoxRef(path.iter().map(|&i| step(i)).collect()),
    }
}

/// The links of a diagram as (from, from_port, to, to_port), sorted.
fn links_of(d: &Diagram) -> Vec<(i32, i32, i32, i32)> {
    let mut v: Vec<_> = d
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
    v.sort_unstable();
    v
}

/// `xar` with the diagram at layer `l`, keyframe `k` of the box at `path` normalized: its
/// boxes by id, its links as a sorted set, the order of its children forgotten.
fn normalized(xar: &XarFile, path: &[Step], l: usize, k: usize) -> XarFile {
    let mut xar = xar.clone();
    let mut b = &mut xar.root_box;
    for s in path {
        let d = b.timeline.as_mut().unwrap().layers[s.layer].keyframes[s.keyframe]
            .diagram
            .as_mut()
            .unwrap();
        b = d.boxes.iter_mut().find(|x| x.id == s.id).unwrap();
    }
    let d = b.timeline.as_mut().unwrap().layers[l].keyframes[k]
        .diagram
        .as_mut()
        .unwrap();
    d.boxes.sort_by_key(|b| b.id);
    for link in &mut d.links {
        link.extras = Extras::default();
    }
    d.links.sort_by_key(|l| {
        (
            l.output_owner,
            l.index_of_output,
            l.input_owner,
            l.index_of_input,
        )
    });
    d.links.dedup();
    d.extras = Extras::default();
    xar
}

/// Applies `edit`, checks that its inverse gives the bytes back, and keeps it.
fn apply_undoably(doc: &mut Document, edit: &Edit) -> Patch {
    let before = doc.bytes().to_vec();
    let patch = doc.apply(edit).unwrap();
    let mut undone = doc.clone();
    undone.apply_patch(&patch.inverse()).unwrap();
    assert_eq!(undone.bytes(), before.as_slice(), "{edit:?} undone");
    patch
}

#[test]
fn grouping_two_linked_boxes_gives_one_box_with_the_ports_its_border_needs() {
    let mut doc = open();
    let original = doc.xar().clone();
    let a_text = doc.box_text(&BoxRef(vec![step(1)])).unwrap();
    apply_undoably(&mut doc, &group(diagram_of(&[]), &[1, 2], "A & B"));
    let root = doc.diagram(&diagram_of(&[])).unwrap();
    let ids: Vec<i32> = root.boxes.iter().map(|b| b.id).collect();
    assert_eq!(
        ids,
        [5, 3, 4],
        "the group box where A was, C and Holder kept"
    );
    let g = root.box_by_id(5).unwrap();
    assert_eq!(g.name, "A & B");
    assert_eq!((g.x, g.y), (Some(100), Some(40)), "the smallest x and y");
    assert_eq!(g.bitmaps, ["media/images/box/box-diagram.png"]);
    assert_eq!(g.code(), "");
    let inputs: Vec<_> = g
        .inputs
        .iter()
        .map(|i| (i.name.as_str(), i.id, i.nature, i.port_type, i.is_inner()))
        .collect();
    assert_eq!(
        inputs,
        [
            ("onLoad", 1, InputNature::OnLoad, PortType::Bang, true),
            ("onStart", 2, InputNature::OnStart, PortType::Bang, false),
        ]
    );
    assert_eq!(g.inputs[1].tooltip.as_deref(), Some("Starts A"));
    let outputs: Vec<_> = g
        .outputs
        .iter()
        .map(|o| (o.name.as_str(), o.id, o.nature))
        .collect();
    assert_eq!(outputs, [("onStopped", 3, OutputNature::Stopped)]);
    // root.onStart reaches the group's onStart; its onStopped starts C.
    assert_eq!(
        links_of(root),
        [(0, 2, 4, 2), (0, 2, 5, 2), (3, 4, 0, 4), (5, 3, 3, 2)]
    );
    let inner = g.diagrams().next().unwrap();
    let before = original.root_box.diagrams().next().unwrap();
    assert_eq!(inner.boxes[0], before.boxes[0], "A as it was");
    assert_eq!(inner.boxes[1], before.boxes[1], "B as it was");
    assert_eq!(links_of(inner), [(0, 2, 1, 2), (1, 4, 2, 2), (2, 4, 0, 3)]);
    // A's element is inside, as written.
    let text = String::from_utf8(doc.bytes().to_vec()).unwrap();
    assert!(text.contains(a_text.as_str()));
    apply_undoably(&mut doc, &ungroup(&[5]));
    assert_eq!(
        normalized(doc.xar(), &[], 0, 0),
        normalized(&original, &[], 0, 0)
    );
}

#[test]
fn boxes_apart_get_a_port_each_named_once() {
    let mut doc = open();
    let original = doc.xar().clone();
    apply_undoably(&mut doc, &group(diagram_of(&[]), &[3, 1], "AC"));
    let root = doc.diagram(&diagram_of(&[])).unwrap();
    let g = root.box_by_id(5).unwrap();
    let names: Vec<_> = g
        .inputs
        .iter()
        .map(|p| (p.name.as_str(), p.id))
        .chain(g.outputs.iter().map(|p| (p.name.as_str(), p.id)))
        .collect();
    assert_eq!(
        names,
        [
            ("onLoad", 1),
            ("onStart", 2),
            ("onStart_2", 3),
            ("onStopped", 4),
            ("onStopped_2", 5)
        ]
    );
    // Through the group: root.onStart -> A, A -> B, B -> C, C -> root.onStopped.
    assert_eq!(
        links_of(root),
        [
            (0, 2, 4, 2),
            (0, 2, 5, 2),
            (2, 4, 5, 3),
            (5, 4, 2, 2),
            (5, 5, 0, 4)
        ]
    );
    let inner = g.diagrams().next().unwrap();
    assert_eq!(
        links_of(inner),
        [(0, 2, 1, 2), (0, 3, 3, 2), (1, 4, 0, 4), (3, 4, 0, 5)]
    );
    apply_undoably(&mut doc, &ungroup(&[5]));
    assert_eq!(
        normalized(doc.xar(), &[], 0, 0),
        normalized(&original, &[], 0, 0)
    );
}

#[test]
fn boxes_of_a_nested_diagram_are_grouped_in_it() {
    let mut doc = open();
    let original = doc.xar().clone();
    apply_undoably(&mut doc, &group(diagram_of(&[4]), &[2, 3], "QR"));
    let holder = doc.diagram(&diagram_of(&[4])).unwrap();
    assert_eq!(links_of(holder), [(0, 2, 1, 2), (1, 4, 4, 2), (4, 3, 0, 4)]);
    let g = holder.box_by_id(4).unwrap();
    assert_eq!((g.x, g.y), (Some(150), Some(20)));
    let inner = g.diagrams().next().unwrap();
    assert_eq!(links_of(inner), [(0, 2, 2, 2), (2, 4, 3, 2), (3, 4, 0, 3)]);
    // The root diagram's other boxes and links are untouched.
    let (root, before) = (
        doc.diagram(&diagram_of(&[])).unwrap(),
        original.root_box.diagrams().next().unwrap(),
    );
    assert_eq!(root.boxes[..3], before.boxes[..3]);
    assert_eq!(links_of(root), links_of(before));
    apply_undoably(&mut doc, &ungroup(&[4, 4]));
    assert_eq!(
        normalized(doc.xar(), &[step(4)], 0, 0),
        normalized(&original, &[step(4)], 0, 0)
    );
}

#[test]
fn ungrouping_a_diagram_box_puts_its_boxes_in_its_place() {
    let mut doc = open();
    let patch = apply_undoably(&mut doc, &ungroup(&[4]));
    let root = doc.diagram(&diagram_of(&[])).unwrap();
    // P, Q, R: ids 1 to 3 are A's, B's and C's, so the next free ones (Holder's 4 is free
    // once it is gone); where Holder was.
    let placed: Vec<_> = root
        .boxes
        .iter()
        .map(|b| (b.name.as_str(), b.id, b.x, b.y))
        .collect();
    assert_eq!(
        placed,
        [
            ("A", 1, Some(100), Some(50)),
            ("B", 2, Some(250), Some(40)),
            ("C", 3, Some(400), Some(60)),
            ("P", 4, Some(100), Some(200)),
            ("Q", 5, Some(200), Some(210)),
            ("R", 6, Some(300), Some(220)),
        ]
    );
    assert_eq!(
        links_of(root),
        [
            (0, 2, 1, 2),
            (0, 2, 4, 2),
            (1, 4, 2, 2),
            (2, 4, 3, 2),
            (3, 4, 0, 4),
            (4, 4, 5, 2),
            (5, 4, 6, 2)
        ]
    );
    // Only the start tag of a box moved changes.
    let p = &patch.splices[0].inserted;
    assert!(p.starts_with(r#"<Box name="P" id="4" localization="8" tooltip="" x="100" y="200">"#));
    let q_at = p.find(r#"<Box name="Q""#).unwrap();
    let p_rest = &p[p.find('\n').unwrap()..q_at];
    let original = fixture();
    assert!(original.contains(p_rest.trim_end()), "{p_rest}");
}

#[test]
fn links_through_a_pass_through_are_joined() {
    let mut doc = open();
    // Inside Holder, onStart straight to onStopped; outside, Holder's onStopped starts C.
    let through = LinkRef {
        from: 0,
        from_port: 2,
        to: 0,
        to_port: 4,
    };
    doc.apply(&Edit::Link {
        diagram: diagram_of(&[4]),
        link: through,
    })
    .unwrap();
    let to_c = LinkRef {
        from: 4,
        from_port: 4,
        to: 3,
        to_port: 2,
    };
    doc.apply(&Edit::Link {
        diagram: diagram_of(&[]),
        link: to_c,
    })
    .unwrap();
    apply_undoably(&mut doc, &ungroup(&[4]));
    let links = links_of(doc.diagram(&diagram_of(&[])).unwrap());
    // root.onStart -> (Holder) -> C.onStart, and R -> (Holder) -> C.onStart, each once;
    // Holder's onStopped reached nothing else, so R's link to it goes.
    for l in [(0, 2, 3, 2), (6, 4, 3, 2)] {
        assert!(links.contains(&l), "{l:?} in {links:?}");
    }
    assert!(!links.iter().any(|l| l.2 == 0 && l.0 == 6), "{links:?}");
    let mut unique = links.clone();
    unique.dedup();
    assert_eq!(unique, links);
}

#[test]
fn a_link_into_a_grouped_on_stop_goes_through_an_on_event_input() {
    let mut doc = open();
    let stop_c = LinkRef {
        from: 1,
        from_port: 4,
        to: 3,
        to_port: 3,
    };
    doc.apply(&Edit::Link {
        diagram: diagram_of(&[]),
        link: stop_c,
    })
    .unwrap();
    let original = doc.xar().clone();
    apply_undoably(&mut doc, &group(diagram_of(&[]), &[3], "C"));
    let g = doc.diagram(&diagram_of(&[])).unwrap().box_by_id(5).unwrap();
    let stop = g.inputs.iter().find(|i| i.name == "onStop").unwrap();
    assert_eq!(stop.nature, InputNature::OnEvent);
    apply_undoably(&mut doc, &ungroup(&[5]));
    assert_eq!(
        normalized(doc.xar(), &[], 0, 0),
        normalized(&original, &[], 0, 0)
    );
}

/// `edit` is refused (`Refused` or `NotFound` as `not_found` says) with a message holding
/// `why`, and the document is unchanged.
fn assert_refused(doc: &mut Document, edit: &Edit, not_found: bool, why: &str) {
    let before = doc.bytes().to_vec();
    match doc.apply(edit) {
        Err(EditError::NotFound(m)) if not_found => assert!(m.contains(why), "{m}"),
        Err(EditError::Refused(m)) if !not_found => assert!(m.contains(why), "{m}"),
        other => panic!("{edit:?}: {other:?}"),
    }
    assert_eq!(doc.bytes(), before.as_slice());
}

#[test]
fn groups_choregraphe_would_not_make_are_refused_with_the_reason() {
    let mut doc = open();
    let root = || diagram_of(&[]);
    assert_refused(
        &mut doc,
        &group(root(), &[], "G"),
        false,
        "at least one box",
    );
    assert_refused(
        &mut doc,
        &group(root(), &[1, 9], "G"),
        true,
        "no box with id 9",
    );
    assert_refused(
        &mut doc,
        &group(root(), &[1, 2, 1], "G"),
        false,
        "named twice",
    );
    assert_refused(
        &mut doc,
        &group(root(), &[1], " "),
        false,
        "cannot be empty",
    );
    assert_refused(
        &mut doc,
        &group(diagram_of(&[1]), &[1], "G"),
        true,
        "no diagram",
    );
}

#[test]
fn ungrouping_what_would_lose_something_is_refused_with_the_reason() {
    let mut doc = open();
    assert_refused(&mut doc, &ungroup(&[]), false, "root box");
    assert_refused(
        &mut doc,
        &ungroup(&[1]),
        false,
        "A cannot be ungrouped: it is not a flow-diagram box (it has no timeline)",
    );
    assert_refused(&mut doc, &ungroup(&[9]), true, "no box with id 9");
    // A link stopping Holder would stop every box inside it.
    doc.apply(&Edit::Link {
        diagram: diagram_of(&[]),
        link: LinkRef {
            from: 1,
            from_port: 4,
            to: 4,
            to_port: 3,
        },
    })
    .unwrap();
    assert_refused(&mut doc, &ungroup(&[4]), false, "its input onStop (onStop)");
    // A script (Holder's is the one indented so), a parameter, an onLoad feeding a box inside.
    let cdata = |code: &str| format!("{}<![CDATA[{code}]]>", " ".repeat(36));
    let with_script = fixture().replacen(&cdata(""), &cdata("pass\n"), 1);
    let mut doc = Document::open("s.xar", with_script.as_bytes()).unwrap();
    assert_refused(&mut doc, &ungroup(&[4]), false, "its script would be lost");
    let parameter = r#"<Parameter name="Speed" inherits_from_parent="0" content_type="1" value="1" default_value="1" tooltip="" id="5" />"#;
    let with_parameter = fixture().replacen(
        r#"tooltip="" id="4" />
                            <Timeline"#,
        &format!(
            "tooltip=\"\" id=\"4\" />\n{}{parameter}\n                            <Timeline",
            " ".repeat(28)
        ),
        1,
    );
    let mut doc = Document::open("p.xar", with_parameter.as_bytes()).unwrap();
    assert_refused(&mut doc, &ungroup(&[4]), false, "its parameters (Speed)");
    // Holder's first link (inside it comes first): its onLoad starts P.
    let on_load = fixture().replacen(
        r#"<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2" />"#,
        r#"<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="1" />"#,
        1,
    );
    let mut doc = Document::open("l.xar", on_load.as_bytes()).unwrap();
    assert_refused(
        &mut doc,
        &ungroup(&[4]),
        false,
        "its input onLoad (onLoad) fires by itself",
    );
}

#[test]
fn a_group_whose_links_break_choregraphes_rules_is_refused() {
    // An input of a grouped box that is only visible inside it, linked from outside (as a
    // file may hold it): the group box's copy is inner too, which no link reaches.
    let root_link = |to_port: i32| {
        format!(
            "\n{}<Link inputowner=\"2\" indexofinput=\"{to_port}\" outputowner=\"1\" indexofoutput=\"4\" />",
            " ".repeat(24)
        )
    };
    let text = fixture().replacen(&root_link(2), &root_link(1), 1);
    let mut doc = Document::open("r.xar", text.as_bytes()).unwrap();
    assert_refused(
        &mut doc,
        &group(diagram_of(&[]), &[2], "B"),
        false,
        "only visible inside",
    );
}

/// The first diagram of the root with three boxes A -> B and B or A linked to a third: its
/// layer, keyframe and the three ids.
fn linked_trio(xar: &XarFile) -> Option<(usize, usize, [i32; 3])> {
    let timeline = xar.root_box.timeline.as_ref()?;
    for (l, layer) in timeline.layers.iter().enumerate() {
        for (k, keyframe) in layer.keyframes.iter().enumerate() {
            let Some(d) = &keyframe.diagram else { continue };
            let between: Vec<_> = d
                .links
                .iter()
                .filter(|x| x.output_owner != 0 && x.input_owner != 0)
                .filter(|x| x.output_owner != x.input_owner)
                .collect();
            for first in &between {
                let (a, b) = (first.output_owner, first.input_owner);
                let third = between.iter().find_map(|x| {
                    let ends = [x.output_owner, x.input_owner];
                    let other = ends.iter().find(|&&e| e != a && e != b)?;
                    (ends.contains(&a) || ends.contains(&b)).then_some(*other)
                });
                let known = |id| d.box_by_id(id).is_some();
                if let Some(c) = third.filter(|&c| known(a) && known(b) && known(c)) {
                    return Some((l, k, [a, b, c]));
                }
            }
        }
    }
    None
}

#[test]
fn group_then_ungroup_gives_corpus_behaviors_back() {
    let Some(dir) = choreo_testkit::corpus("the group and ungroup round trips on the corpus")
    else {
        return;
    };
    let files = choreo_testkit::files_under(&dir, &|p| {
        p.file_name().is_some_and(|n| n == "behavior.xar")
    });
    let (mut done, mut refused) = (0, Vec::new());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let Ok(mut doc) = Document::open(&f.display().to_string(), &bytes) else {
            continue;
        };
        let Some((l, k, boxes)) = linked_trio(doc.xar()) else {
            continue;
        };
        let original = doc.xar().clone();
        let diagram = DiagramRef {
            owner: BoxRef::default(),
            layer: l,
            keyframe: k,
        };
        let id = doc
            .diagram(&diagram)
            .unwrap()
            .boxes
            .iter()
            .map(|b| b.id)
            .max()
            .unwrap()
            + 1;
        let edit = group(diagram, &boxes, "Group");
        match doc.apply(&edit) {
            Ok(patch) => {
                let mut undone = doc.clone();
                undone.apply_patch(&patch.inverse()).unwrap();
                assert_eq!(undone.bytes(), bytes.as_slice(), "{}", f.display());
            }
            Err(e) => {
                refused.push(format!("{}: {e}", f.display()));
                continue;
            }
        }
        let at = BoxRef(vec![Step {
            layer: l,
            keyframe: k,
            id,
        }]);
        let ungrouped = apply_undoably(&mut doc, &Edit::Ungroup { at });
        assert!(!ungrouped.splices.is_empty());
        assert!(
            normalized(doc.xar(), &[], l, k) == normalized(&original, &[], l, k),
            "{}: grouped {boxes:?} and ungrouped, the model differs",
            f.display()
        );
        done += 1;
        if done == 8 {
            break;
        }
    }
    assert!(
        done >= 3,
        "only {done} corpus behaviors grouped and ungrouped; refused: {refused:#?}"
    );
}

#[test]
fn corpus_flow_diagram_boxes_are_ungrouped_in_place_and_back() {
    let Some(dir) = choreo_testkit::corpus("ungrouping the corpus's flow-diagram boxes") else {
        return;
    };
    let files = choreo_testkit::files_under(&dir, &|p| {
        p.file_name().is_some_and(|n| n == "behavior.xar")
    });
    let mut done = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let Ok(doc) = Document::open(&f.display().to_string(), &bytes) else {
            continue;
        };
        let Ok(d) = doc.diagram(&diagram_of(&[])) else {
            continue;
        };
        for b in &d.boxes {
            let Some(inner) = b.diagrams().next() else {
                continue;
            };
            let mut edited = doc.clone();
            let at = BoxRef(vec![step(b.id)]);
            let Ok(patch) = edited.apply(&Edit::Ungroup { at }) else {
                continue;
            };
            let after = edited.diagram(&diagram_of(&[])).unwrap();
            assert_eq!(after.boxes.len(), d.boxes.len() - 1 + inner.boxes.len());
            assert!(after.box_by_id(b.id).is_none_or(|x| x.name != b.name));
            let mut undone = edited.clone();
            undone.apply_patch(&patch.inverse()).unwrap();
            assert_eq!(undone.bytes(), bytes.as_slice(), "{}", f.display());
            done += 1;
            break;
        }
        if done == 5 {
            break;
        }
    }
    assert!(done >= 3, "only {done} corpus flow-diagram boxes ungrouped");
}
