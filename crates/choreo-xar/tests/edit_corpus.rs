//! Editing every XAR file of the corpus in place (`choreo_xar::edit`): each edit changes
//! what it says and nothing else (`diff` of before and after shows exactly it), its inverse
//! gives the file's bytes back, and every link the corpus's files hold passes Choregraphe's
//! rules as `edit` encodes them.

use crate::support;

use choreo_xar::diff::{DiffOptions, diff};
use choreo_xar::edit::{BoxRef, Document, Edit, LinkRef, Step, link_refusal};
use choreo_xar::{BoxDef, XarFile};

/// The first box of the root's first diagram that has boxes, with its step.
fn first_box(xar: &XarFile) -> Option<(Step, &BoxDef)> {
    let timeline = xar.root_box.timeline.as_ref()?;
    for (l, layer) in timeline.layers.iter().enumerate() {
        for (k, keyframe) in layer.keyframes.iter().enumerate() {
            if let Some(b) = keyframe.diagram.as_ref().and_then(|d| d.boxes.first()) {
                let step = Step {
                    layer: l,
                    keyframe: k,
                    id: b.id,
                };
                return Some((step, b));
            }
        }
    }
    None
}

/// Applies `edit`, checks what `diff` says of it with `says`, and undoes it.
fn edit_and_undo(
    doc: &mut Document,
    edit: &Edit,
    says: impl Fn(&[String]) -> Result<(), String>,
) -> Result<(), String> {
    let (before, bytes) = (doc.xar().clone(), doc.bytes().to_vec());
    let patch = doc.apply(edit).map_err(|e| format!("{edit:?}: {e}"))?;
    let differences: Vec<String> = diff(&before, doc.xar(), DiffOptions { editor: true })
        .iter()
        .map(ToString::to_string)
        .collect();
    says(&differences).map_err(|e| format!("{edit:?}: {e}: {differences:?}"))?;
    doc.apply_patch(&patch.inverse())
        .map_err(|e| format!("{edit:?} undone: {e}"))?;
    if doc.bytes() != bytes {
        return Err(format!("{edit:?}: undone, the bytes differ"));
    }
    Ok(())
}

fn exactly_one_about(what: &'static str) -> impl Fn(&[String]) -> Result<(), String> {
    move |d: &[String]| match d {
        [one] if one.contains(what) => Ok(()),
        _ => Err(format!("expected one difference about {what}")),
    }
}

#[test]
fn every_corpus_xar_is_edited_in_place_and_back() {
    let (mut edited, mut links, mut not_utf8) = (0, 0, 0);
    let Some(files) = support::check_corpus_xars(|name, bytes, _, failures| {
        let mut doc = match Document::open(name, bytes) {
            Ok(doc) => doc,
            Err(e) if e.to_string().contains("not UTF-8") => {
                not_utf8 += 1;
                return;
            }
            Err(e) => return failures.push(format!("{name}: open: {e}")),
        };
        if doc.bytes() != bytes {
            failures.push(format!("{name}: opened and saved, the bytes differ"));
        }
        // Every link the file holds is one Choregraphe's rules allow.
        doc.xar().root_box.walk(&mut |owner| {
            for d in owner.diagrams() {
                for (i, l) in d.links.iter().enumerate() {
                    let mut without = d.clone();
                    without.links.remove(i);
                    let link = LinkRef {
                        from: l.output_owner,
                        from_port: l.index_of_output,
                        to: l.input_owner,
                        to_port: l.index_of_input,
                    };
                    links += 1;
                    if let Some(why) = link_refusal(owner, &without, link) {
                        failures.push(format!("{name}: {}: a link of the file: {why}", owner.name));
                    }
                }
            }
        });
        let Some((step, b)) = first_box(doc.xar()) else {
            return;
        };
        let (x, y, has_script) = (b.x.unwrap_or(0), b.y.unwrap_or(0), b.script.is_some());
        let code = b.code().to_string();
        let at = BoxRef(vec![step]);
        let mut results = vec![
            edit_and_undo(
                &mut doc,
                &Edit::Move {
                    at: at.clone(),
                    x: x + 13,
                    y: y - 7,
                },
                exactly_one_about("position"),
            ),
            edit_and_undo(
                &mut doc,
                &Edit::Rename {
                    at: at.clone(),
                    name: "Renamed by the test".to_string(),
                },
                exactly_one_about("Renamed by the test"),
            ),
            edit_and_undo(&mut doc, &Edit::Delete { at: at.clone() }, |d| {
                if d.iter().any(|d| d.contains("removed")) {
                    Ok(())
                } else {
                    Err("expected the box removed".to_string())
                }
            }),
        ];
        if has_script {
            results.push(edit_and_undo(
                &mut doc,
                &Edit::SetScript {
                    at,
                    text: format!("{code}\n# edited\n"),
                },
                exactly_one_about("script"),
            ));
        }
        failures.extend(
            results
                .into_iter()
                .filter_map(Result::err)
                .map(|e| format!("{name}: {e}")),
        );
        edited += 1;
    }) else {
        return;
    };
    println!(
        "edit corpus: {files} XAR files, {edited} edited and undone, {links} links within Choregraphe's rules, {not_utf8} not UTF-8"
    );
}

/// Every box of a box library the corpus holds (Choregraphe's own among them), added to
/// examples/hello's diagram as a user adds one from a library: one box more, nothing else.
#[test]
fn every_library_box_of_the_corpus_is_added_to_a_behavior() {
    let hello_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hello/behavior.xar"
    );
    let hello = Document::open("hello", &std::fs::read(hello_path).unwrap()).unwrap();
    let Some(files) = support::corpus_files("box library files", 50, &|p| {
        p.file_name().is_some_and(|n| n == "box.xar")
    }) else {
        return;
    };
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let library = match Document::open(&name, &std::fs::read(f).unwrap()) {
            Ok(library) => library,
            Err(e) => {
                failures.push(format!("{name}: open: {e}"));
                continue;
            }
        };
        let text = library.box_text(&BoxRef::default()).unwrap();
        let mut doc = hello.clone();
        let diagram = choreo_xar::edit::DiagramRef {
            owner: BoxRef::default(),
            layer: 0,
            keyframe: 0,
        };
        match doc.apply(&Edit::Add {
            diagram,
            text,
            x: 40,
            y: 400,
        }) {
            Ok(_) => {
                let d = diff(hello.xar(), doc.xar(), DiffOptions { editor: true });
                if d.len() != 1 || !d[0].what.contains("added") {
                    failures.push(format!("{name}: {d:?}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    support::assert_no_failures(&failures);
    println!("library boxes: {} added to examples/hello", files.len());
}
