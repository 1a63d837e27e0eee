//! Projects kept in a `.crg` and in choreo's readable folder, edited in their working copy
//! and written back: `choreo diff` of the behavior before and after shows exactly the
//! edit, a readable folder changes in the one file the edit concerns, nothing is written
//! without a change, and never over another program's change.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use choreo_xar::edit::{BoxRef, Edit, Step};
use choreo_xar::source::load_path;

use crate::{Kept, KeptError, Session};

const HELLO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/hello");

/// `examples/hello` converted by `choreo convert`'s code to the form of `to`.
fn kept_as(to: &Path) {
    let project = load_path(Path::new(HELLO)).unwrap();
    if to.extension().is_some_and(|e| e == "crg") {
        let packed = project.packed();
        let bytes = choreo_xar::project::Container::Crg
            .pack("hello.crg", "hello", None, &packed.files)
            .unwrap()
            .unwrap();
        std::fs::write(to, bytes).unwrap();
    } else {
        for (path, bytes) in project.readable("hello").unwrap() {
            let file = to.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
    }
}

/// Renames Say Hello (id 2 of the root diagram) in the working copy, as the page does.
fn rename_say_hello(kept: &Kept) {
    let file = kept.working().join("behavior.xar");
    let mut session = Session::open(&file).unwrap();
    let at = BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: 2,
    }]);
    session
        .apply(&Edit::Rename {
            at,
            name: "Greet".into(),
        })
        .unwrap();
}

/// The one difference `choreo diff` finds between the behavior of `before` and `after`.
fn only_difference(before: &Path, after: &Path) -> String {
    let (a, b) = (load_path(before).unwrap(), load_path(after).unwrap());
    let found = choreo_xar::diff::diff(
        &a.behaviors[0].xar,
        &b.behaviors[0].xar,
        choreo_xar::diff::DiffOptions::default(),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    format!("{} {}", found[0].path, found[0].what)
}

#[test]
fn a_crg_is_packed_again_after_an_edit_and_never_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let crg = dir.path().join("hello.crg");
    kept_as(&crg);
    let original = dir.path().join("original.crg");
    std::fs::copy(&crg, &original).unwrap();
    let mut kept = Kept::open(&crg, &load_path(&crg).unwrap()).unwrap();
    kept.write_back().unwrap();
    assert_eq!(
        std::fs::read(&crg).unwrap(),
        std::fs::read(&original).unwrap()
    );
    rename_say_hello(&kept);
    kept.write_back().unwrap();
    let difference = only_difference(&original, &crg);
    assert_eq!(
        difference,
        "root/Say Hello name: \"Say Hello\" -> \"Greet\""
    );
    // The archive's control text (Choregraphe's) as it was.
    let control = |p: &Path| load_path(p).unwrap().control;
    assert_eq!(control(&crg), control(&original));
    // Changed by another program: not written over.
    std::fs::copy(&original, &crg).unwrap();
    let file = kept.working().join("behavior.xar");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("Greet", "Hi");
    std::fs::write(&file, text).unwrap();
    assert!(matches!(
        kept.write_back(),
        Err(KeptError::ChangedOnDisk(_))
    ));
    assert_eq!(
        std::fs::read(&crg).unwrap(),
        std::fs::read(&original).unwrap()
    );
}

#[test]
fn a_readable_folder_changes_in_the_one_file_an_edit_concerns() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("hello");
    kept_as(&folder);
    let before = choreo_xar::source::read_dir_tree(&folder).unwrap();
    let mut kept = Kept::open(&folder, &load_path(&folder).unwrap()).unwrap();
    rename_say_hello(&kept);
    kept.write_back().unwrap();
    let after = choreo_xar::source::read_dir_tree(&folder).unwrap();
    let changed: Vec<&String> = after
        .keys()
        .chain(before.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    // The split format keeps a box in a folder named after it, and its links name it
    // (docs/split-format.md): renamed, its folder moves (its files as they were) and its
    // links' lines name it anew; nothing else changes.
    let mut changed: Vec<&str> = changed.iter().map(|p| p.as_str()).collect();
    changed.sort_unstable();
    changed.dedup();
    let moved = [
        "behavior/02-Greet/box.toml",
        "behavior/02-Greet/script.py",
        "behavior/02-Say_Hello/box.toml",
        "behavior/02-Say_Hello/script.py",
        "behavior/links.txt",
    ];
    assert_eq!(changed, moved);
    let text = |t: &choreo_xar::FileTree, p: &str| String::from_utf8(t[p].clone()).unwrap();
    assert_eq!(
        text(&after, "behavior/02-Greet/script.py"),
        text(&before, "behavior/02-Say_Hello/script.py")
    );
    assert_eq!(
        text(&after, "behavior/links.txt"),
        text(&before, "behavior/links.txt").replace("\"Say Hello\"", "Greet")
    );
}
