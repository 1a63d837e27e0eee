//! The palette's boxes: the basic ones are read as Choregraphe writes boxes and each goes
//! into examples/hello as one box more; Choregraphe 2.1's stock library (in the corpus) is
//! offered whole, each box under its folder's name.
#![allow(clippy::unwrap_used)]

use super::*;
use choreo_xar::edit::{BoxRef, DiagramRef, Document, Edit};

const HELLO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/hello/behavior.xar"
);

/// `key` of `library` added to examples/hello's root diagram: the box the file then holds.
fn added(library: &Library, key: &str) -> choreo_xar::model::BoxDef {
    let mut d = Document::open("hello", &std::fs::read(HELLO).unwrap()).unwrap();
    let edit = Edit::Add {
        diagram: DiagramRef {
            owner: BoxRef::default(),
            layer: 0,
            keyframe: 0,
        },
        text: library.get(key).unwrap().text.clone(),
        x: 40,
        y: 200,
    };
    d.apply(&edit).unwrap();
    let boxes = &d.xar().root_box.diagrams().next().unwrap().boxes;
    assert_eq!(boxes.len(), 4, "{key}");
    boxes[3].clone()
}

#[test]
fn each_basic_box_is_a_box_choregraphe_would_read() {
    let library = Library::basic();
    let message = library.message();
    let names: Vec<&str> = message["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Python Script",
            "Say",
            "Wait",
            "Timeline",
            "Diagram",
            "Dialog"
        ]
    );
    for b in message["boxes"].as_array().unwrap() {
        let key = b["key"].as_str().unwrap();
        let def = added(&library, key);
        assert_eq!(def.name, b["name"]);
        assert_eq!((def.id, def.x, def.y), (4, Some(40), Some(200)));
        // Every basic box starts, stops and says when it is done, as Choregraphe's do.
        let natures: Vec<&str> = def.inputs.iter().map(|p| p.nature.name()).collect();
        assert_eq!(natures, ["onLoad", "onStart", "onStop"], "{key}");
        assert_eq!(def.outputs[0].nature.name(), "stopping", "{key}");
    }
    let wait = added(&library, "basic/wait");
    let timeout = wait.parameter("Timeout (s)").unwrap();
    assert_eq!((timeout.min, timeout.max), (Some(0.0), Some(5000.0)));
    assert!(added(&library, "basic/diagram").diagrams().next().is_some());
    assert_eq!(
        added(&library, "basic/dialog").dialog_file.as_deref(),
        Some("dialog/dialog.dlg")
    );
    let timeline = added(&library, "basic/timeline").timeline.unwrap();
    assert_eq!((timeline.fps, timeline.enable), (Some(25), Some(true)));
}

#[test]
fn choregraphes_stock_library_is_offered_box_by_box() {
    let Some(corpus) = choreo_testkit::corpus("Choregraphe's stock box library") else {
        return;
    };
    let mut library = Library::basic();
    let count = library.add(&corpus.join(choreo_testkit::LIBRARY)).unwrap();
    assert!(count > 100, "{count} boxes");
    let message = library.message();
    let wait = message["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| {
            b["name"] == "Wait" && b["group"].as_str().unwrap().ends_with("Flow Control/Time")
        })
        .unwrap_or_else(|| panic!("no Wait under Flow Control/Time: {message}"));
    let def = added(&library, wait["key"].as_str().unwrap());
    assert!(def.parameter("Timeout (s)").is_some());
    // Its box.xar names it `root`: added, it is named as the library shows it.
    assert_eq!(def.name, "Wait");
    assert!(
        library
            .add(
                std::path::Path::new(HELLO)
                    .parent()
                    .unwrap()
                    .join("nothing-here")
                    .as_path()
            )
            .is_err()
    );
}
