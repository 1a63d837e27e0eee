//! Every behavior of the corpus served as `choreo edit` serves it to a page that opens it
//! (the session, the structure, the problems, every box inspected as the Properties tab
//! asks), then left without an edit: the file is byte for byte what it was.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use super::*;
use choreo_monitor::{Command, Monitor, MonitorOptions};
use choreo_xar::edit::{BoxRef, Step};
use choreo_xar::model::BoxDef;
use serde_json::json;

const HELLO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/hello/behavior.xar"
);

/// Every box of `b` (itself included) by its ref, parents first; iterative, as the input
/// decides the depth.
fn refs(root: &BoxDef) -> Vec<BoxRef> {
    let mut out = Vec::new();
    let mut todo = vec![(root, BoxRef::default())];
    while let Some((b, at)) = todo.pop() {
        for (layer, l) in b.timeline.iter().flat_map(|t| t.layers.iter()).enumerate() {
            for (keyframe, k) in l.keyframes.iter().enumerate() {
                for inner in k.diagram.iter().flat_map(|d| d.boxes.iter()) {
                    let mut steps = at.0.clone();
                    steps.push(Step {
                        layer,
                        keyframe,
                        id: inner.id,
                    });
                    todo.push((inner, BoxRef(steps)));
                }
            }
        }
        out.push(at);
    }
    out
}

#[test]
fn every_corpus_behavior_opened_and_left_without_an_edit_is_byte_identical() {
    let Some(corpus) = choreo_testkit::corpus("the editor's corpus test") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "xar"));
    assert!(files.len() > 250, "{} XAR files", files.len());
    let monitor = Arc::new(
        Monitor::start(
            &choreo_engine::graph::Graph::new(
                &choreo_xar::read_xar("hello", &std::fs::read(HELLO).unwrap())
                    .unwrap()
                    .value,
            ),
            MonitorOptions {
                edit: true,
                ..MonitorOptions::default()
            },
        )
        .unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let (mut opened, mut boxes) = (0, 0);
    for f in &files {
        let copy = dir.path().join("behavior.xar");
        let original = std::fs::read(f).unwrap();
        std::fs::write(&copy, &original).unwrap();
        let modified = std::fs::metadata(&copy).unwrap().modified().unwrap();
        // A file the editor cannot take in place (not UTF-8, not a behavior) is refused
        // whole, and left alone too.
        if let Ok(session) = Session::open(&copy) {
            let all = refs(&session.document().xar().root_box);
            let mut editor = Editor::new(session, Library::basic(), Arc::clone(&monitor));
            editor.handle(Command::Editor(json!({"type": "problems"})));
            for at in &all {
                let v = json!({"type": "inspect", "box": wire::steps(at)});
                editor.handle(Command::Editor(v));
            }
            boxes += all.len();
            opened += 1;
        }
        assert_eq!(std::fs::read(&copy).unwrap(), original, "{}", f.display());
        assert_eq!(
            std::fs::metadata(&copy).unwrap().modified().unwrap(),
            modified
        );
    }
    assert!(opened > 250, "{opened} of {} opened", files.len());
    println!(
        "{opened} of {} XAR files opened, {boxes} boxes inspected, none written",
        files.len()
    );
}
