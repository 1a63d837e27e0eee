//! A session on a copy of examples/hello: what the file holds after each edit, undo and
//! redo, and that it is never written over another program's change.
#![allow(clippy::unwrap_used)]

use super::*;
use choreo_xar::edit::{BoxRef, Step};

const HELLO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/hello/behavior.xar"
);

/// A copy of examples/hello in a folder of its own, opened; and its first box's ref.
fn session() -> (tempfile::TempDir, Session, BoxRef) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("behavior.xar");
    std::fs::copy(HELLO, &path).unwrap();
    let session = Session::open(&path).unwrap();
    let first = session
        .document()
        .xar()
        .root_box
        .diagrams()
        .next()
        .unwrap()
        .boxes[0]
        .id;
    let at = BoxRef(vec![Step {
        layer: 0,
        keyframe: 0,
        id: first,
    }]);
    (dir, session, at)
}

fn on_disk(session: &Session) -> Vec<u8> {
    std::fs::read(session.path()).unwrap()
}

fn rename(at: &BoxRef, name: &str) -> Edit {
    Edit::Rename {
        at: at.clone(),
        name: name.to_string(),
    }
}

#[test]
fn each_edit_undo_and_redo_is_in_the_file_when_it_returns() {
    let (_dir, mut s, at) = session();
    let original = std::fs::read(HELLO).unwrap();
    s.apply(&rename(&at, "Greeting")).unwrap();
    let edited = on_disk(&s);
    assert_eq!(edited, s.document().bytes());
    assert!(String::from_utf8_lossy(&edited).contains("name=\"Greeting\""));
    assert_eq!(s.history(), (true, false));
    s.undo().unwrap();
    assert_eq!(on_disk(&s), original);
    assert_eq!(s.history(), (false, true));
    s.redo().unwrap();
    assert_eq!(on_disk(&s), edited);
    assert!(matches!(s.redo(), Err(SessionError::NothingToRedo)));
    s.undo().unwrap();
    assert!(matches!(s.undo(), Err(SessionError::NothingToUndo)));
    assert_eq!(on_disk(&s), original);
    // No file is left beside it.
    let names: Vec<_> = std::fs::read_dir(s.path().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["behavior.xar"]);
}

#[test]
fn a_file_changed_by_another_program_is_never_written_over() {
    let (_dir, mut s, at) = session();
    s.apply(&rename(&at, "Mine")).unwrap();
    let theirs = String::from_utf8(on_disk(&s))
        .unwrap()
        .replace("name=\"Mine\"", "name=\"Theirs\"");
    std::fs::write(s.path(), &theirs).unwrap();
    assert!(s.changed_on_disk().unwrap());
    for refused in [s.apply(&rename(&at, "Again")), s.undo()] {
        assert!(
            matches!(refused, Err(SessionError::ChangedOnDisk { .. })),
            "{refused:?}"
        );
        assert_eq!(on_disk(&s), theirs.as_bytes());
    }
    s.reload().unwrap();
    assert_eq!(s.document().bytes(), theirs.as_bytes());
    assert_eq!(s.history(), (false, false));
    s.apply(&rename(&at, "After")).unwrap();
    assert!(String::from_utf8_lossy(&on_disk(&s)).contains("name=\"After\""));
}

#[test]
fn a_refused_edit_or_a_failed_write_leaves_the_file_and_the_document_as_they_were() {
    let (_dir, mut s, at) = session();
    let original = on_disk(&s);
    let refused = s.apply(&rename(&at, ""));
    assert!(matches!(refused, Err(SessionError::Edit(_))), "{refused:?}");
    assert_eq!(on_disk(&s), original);
    // A folder where the new bytes would be written first: the write fails (for root too).
    let blocker = s.path().with_file_name(".behavior.xar.choreo-edit");
    std::fs::create_dir(&blocker).unwrap();
    let failed = s.apply(&rename(&at, "Unwritten"));
    assert!(
        matches!(failed, Err(SessionError::Write { .. })),
        "{failed:?}"
    );
    assert_eq!(s.document().bytes(), original.as_slice());
    assert_eq!(on_disk(&s), original);
    assert_eq!(s.history(), (false, false));
    std::fs::remove_dir(&blocker).unwrap();
    s.apply(&rename(&at, "Written")).unwrap();
    assert!(String::from_utf8_lossy(&on_disk(&s)).contains("name=\"Written\""));
}
