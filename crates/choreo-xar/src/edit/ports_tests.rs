//! A box's fields changed as Choregraphe's Edit box dialog changes them, on the fixture of
//! `tests.rs` (Say: inputs 1–4, outputs 5–6, parameters 7–8; Wait; root.onStart → Say →
//! root.onStopped): ids, places in the file, links that go with a port, and the refusals of
//! "Box - Inputs/outputs" and "Box - Optional components" (module doc of `ports.rs`).
#![allow(clippy::unwrap_used)]

use super::tests::XAR;
use super::*;
use crate::model::{ContentType, InputNature, OutputNature, PortType};

fn say() -> BoxRef {
    BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 1,
    }])
}

fn made(change: BoxFieldEdit) -> Document {
    let mut doc = Document::open("fixture.xar", XAR.as_bytes()).unwrap();
    let patch = doc.apply(&Edit::BoxFields { at: say(), change }).unwrap();
    let mut undone = doc.clone();
    undone.apply_patch(&patch.inverse()).unwrap();
    assert_eq!(undone.bytes(), XAR.as_bytes());
    doc
}

fn refusal(change: BoxFieldEdit) -> String {
    let mut doc = Document::open("fixture.xar", XAR.as_bytes()).unwrap();
    let e = doc
        .apply(&Edit::BoxFields { at: say(), change })
        .unwrap_err();
    assert_eq!(doc.bytes(), XAR.as_bytes());
    e.to_string()
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
