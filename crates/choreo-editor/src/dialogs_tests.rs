//! examples/dialog's topic read through the in-process language server: the problems of the
//! text as typed, completions, a rule tried; and saves undone and redone.
#![allow(clippy::unwrap_used)]

use super::dialogs::{Topics, topics_of};

const DIALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dialog");

#[test]
fn a_topic_as_typed_is_checked_completed_and_tried_by_the_language_server() {
    let dialog = std::path::Path::new(DIALOG);
    let topics_found = topics_of(dialog, "greet/greet.dlg", dialog).unwrap();
    // A .dlg outside the project is not opened.
    let refused =
        topics_of(dialog, "greet/greet.dlg", &dialog.join("greet/elsewhere")).unwrap_err();
    assert!(refused.contains("outside the project"), "{refused}");
    let languages: Vec<&str> = topics_found.iter().map(|(l, _, _)| l.as_str()).collect();
    assert_eq!(languages, ["enu", "frf"]);
    let (_, path, text) = &topics_found[0];
    let mut topics = Topics::default();
    topics.opened(path, text);
    assert!(topics.problems(path, text).unwrap().is_empty());
    // `choreo check`'s error for a pattern not closed, at its line (the last) and column.
    let typed = format!("{text}\nu:(how are you");
    let found = topics.problems(path, &typed).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["line"], typed.lines().count());
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("expected ')'"),
        "{found:?}"
    );
    let typed = format!("{text}\nu:(how are you) I am fine.\nu:(~");
    let line = typed.lines().count() as u64;
    let offered = topics.complete(path, &typed, line, 5).unwrap();
    assert!(
        offered
            .iter()
            .any(|i| i["label"].as_str().unwrap().contains("hello")),
        "{offered:?}"
    );
    // Tried on the topic as typed, the rule finished.
    let typed = format!("{text}\nu:(how are you) I am fine.");
    let answer = topics
        .try_rule(path, &typed, line - 1, "how are you")
        .unwrap();
    assert!(answer.contains("I am fine."), "{answer}");
}

#[test]
fn a_topic_is_saved_undone_and_redone_and_never_over_another_programs_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t_enu.top");
    let text = "topic: ~t()\nlanguage: enu\nu:(hi) hello\n";
    std::fs::write(&path, text).unwrap();
    let mut topics = Topics::default();
    topics.opened(&path, text);
    let typed = format!("{text}u:(bye) goodbye\n");
    topics.save(&path, &typed).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), typed);
    topics.undo(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    topics.redo(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), typed);
    // Another program writes it: the next save is refused, the file left as it wrote it.
    std::fs::write(&path, "topic: ~other()\n").unwrap();
    let refused = topics.save(&path, text).unwrap_err();
    assert!(
        matches!(refused, crate::SessionError::ChangedOnDisk { .. }),
        "{refused}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "topic: ~other()\n");
    // A file not opened here is not written.
    assert!(topics.save(&dir.path().join("x.top"), text).is_err());
}
