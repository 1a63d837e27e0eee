//! Each box of the `structure` message names its place in the file (`ref`), as
//! `choreo_xar::edit` finds boxes: checked on every XAR file of the corpus against the model
//! and the file's own text.

use choreo_engine::graph::Graph;
use choreo_xar::BoxDef;
use choreo_xar::edit::{BoxRef, Document, Step};
use serde_json::Value;

/// The box of `root` at `steps`, through the model.
fn box_at<'a>(root: &'a BoxDef, steps: &[Step]) -> Option<&'a BoxDef> {
    let mut def = root;
    for s in steps {
        def = def
            .timeline
            .as_ref()?
            .layers
            .get(s.layer)?
            .keyframes
            .get(s.keyframe)?
            .diagram
            .as_ref()?
            .box_by_id(s.id)?;
    }
    Some(def)
}

fn steps(place: &Value) -> Vec<Step> {
    place
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Step {
            layer: s[0].as_u64().unwrap() as usize,
            keyframe: s[1].as_u64().unwrap() as usize,
            id: s[2].as_i64().unwrap() as i32,
        })
        .collect()
}

#[test]
fn every_box_names_its_place_in_the_file() {
    let Some(corpus) = choreo_testkit::corpus("the places of the corpus's boxes") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "xar"));
    let (mut boxes, mut unreadable, mut failures) = (0, 0, Vec::new());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let name = f.display().to_string();
        let (Ok(xar), Ok(doc)) = (
            choreo_xar::read_xar(&name, &bytes),
            Document::open(&name, &bytes),
        ) else {
            unreadable += 1;
            continue;
        };
        let graph = Graph::new(&xar.value);
        let structure = choreo_monitor::structure::structure(&graph, &[], None);
        for b in structure["boxes"].as_array().unwrap() {
            let place = steps(&b["ref"]);
            boxes += 1;
            match box_at(&xar.value.root_box, &place) {
                Some(def) if def.name == b["name"].as_str().unwrap() => {}
                other => failures.push(format!(
                    "{name}: {}: the model has {:?} there",
                    b["path"],
                    other.map(|d| &d.name)
                )),
            }
            if let Err(e) = doc.box_text(&BoxRef(place)) {
                failures.push(format!("{name}: {}: {e}", b["path"]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus's one merge-conflict file has no model to place boxes in.
    assert_eq!(unreadable, 1, "files that do not read");
    assert!(
        boxes > 4_000,
        "the corpus has thousands of boxes, found {boxes}"
    );
    println!("{} files, {boxes} boxes placed", files.len());
}
