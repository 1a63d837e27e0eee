//! The `choreo` command end to end: exit codes, output, snapshots of `inspect`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;

use support::cli::{choreo, stderr, stdout, workspace};

const HELLO: &str = "examples/hello/behavior.xar";
const DANCE: &str = "examples/dance/behavior.xar";

#[test]
fn check_accepts_the_example() {
    let o = choreo(&["check", "examples/hello"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ok    examples/hello/behavior.xar"), "{out}");
    assert!(
        out.contains("checked 1 file(s): 1 ok, 0 with warnings, 0 with errors"),
        "{out}"
    );
}

#[test]
fn check_shows_file_line_column_and_the_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xar");
    let text = std::fs::read_to_string(workspace().join(DANCE))
        .unwrap()
        .replace("fps=\"25\"", "fps=\"fast\"");
    std::fs::write(&bad, text).unwrap();
    let o = choreo(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(
            "bad.xar:44:29: error: attribute fps=\"fast\" is not an integer (at root/Dance)"
        ),
        "{out}"
    );
    assert!(
        out.contains("44 |                             <Timeline enable=\"1\" fps=\"fast\""),
        "{out}"
    );
    assert!(
        out.contains("0 ok, 0 with warnings, 1 with errors"),
        "{out}"
    );
}

#[test]
fn check_json_gives_one_object_per_file_and_a_summary() {
    let o = choreo(&["check", "--json", HELLO]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["status"], "ok");
    assert_eq!(lines[1]["summary"]["files"], 1);
}

#[test]
fn check_reports_every_corpus_file_and_only_the_broken_ones_fail() {
    let Some(corpus) = choreo_testkit::corpus("choreo check of the corpus") else {
        return;
    };
    let o = choreo(&["check", "--json", corpus.to_str().unwrap()]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (files, summary) = lines.split_at(lines.len() - 1);
    println!("choreo check corpus: {}", summary[0]);
    assert!(
        files.len() > 500,
        "expected the corpus's ~600 files, got {}",
        files.len()
    );
    let failed: Vec<(&str, &serde_json::Value)> = files
        .iter()
        .filter(|f| f["status"] == "error")
        .map(|f| (f["file"].as_str().unwrap(), &f["diagnostics"][0]["kind"]))
        .collect();
    // The two broken files of the corpus: the XAR with git merge-conflict markers, and a
    // `.dlg` that holds a `.pml` cut off in its first element.
    assert_eq!(failed.len(), 2, "{failed:#?}");
    assert!(
        failed[0]
            .0
            .ends_with("behavior_without_feedback/behavior.xar"),
        "{failed:?}"
    );
    assert_eq!(failed[0].1, "MergeConflict");
    assert!(
        failed[1].0.ends_with("ExampleDialog/ExampleDialog.dlg"),
        "{failed:?}"
    );
    assert_eq!(failed[1].1, "Truncated");
    assert_eq!(summary[0]["summary"]["errors"], 2);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn inspect_shows_the_box_tree() {
    let o = choreo(&["inspect", HELLO]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("inspect_hello", stdout(&o));
}

#[test]
fn inspect_corpus_samples() {
    let Some(corpus) = choreo_testkit::corpus("choreo inspect of corpus samples") else {
        return;
    };
    let lib = choreo_testkit::LIBRARY;
    for (name, rel) in [
        (
            "inspect_stock_say",
            format!("{lib}/standard/Audio/Voice/Say/behavior.xar"),
        ),
        (
            "inspect_stock_tai_chi",
            format!("{lib}/standard/Motions/Dances/Tai Chi Chuan/behavior.xar"),
        ),
    ] {
        let path = corpus.join(&rel);
        let o = choreo(&["inspect", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{rel}: {}", stderr(&o));
        let text = stdout(&o).replace(&corpus.display().to_string(), "<corpus>");
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn convert_to_split_and_back_is_equal() {
    let dir = tempfile::tempdir().unwrap();
    let split = dir.path().join("hello");
    let back = dir.path().join("back.xar");
    let o = choreo(&["convert", HELLO, split.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(split.is_dir());
    let o = choreo(&["convert", split.to_str().unwrap(), back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = choreo(&["diff", "--editor", HELLO, back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).trim(), "equal");
    // The split folder is itself a valid input to diff and check.
    let o = choreo(&["diff", HELLO, split.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = choreo(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("split folder: behavior: 3 boxes, 4 links, 0 timelines"),
        "{out}"
    );
    assert!(out.contains("checked 2 file(s): 2 ok"), "{out}");
}

#[test]
fn convert_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.xar");
    std::fs::write(&out, "keep me").unwrap();
    let o = choreo(&["convert", HELLO, out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    let o = choreo(&["convert", "--force", HELLO, out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    // A folder that is not a split behavior is never replaced.
    let o = choreo(&["convert", "--force", HELLO, dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn diff_reports_changes_with_exit_code_one() {
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("changed.xar");
    let text = std::fs::read_to_string(workspace().join(DANCE))
        .unwrap()
        .replace(
            "<Key frame=\"1\" value=\"0\" />",
            "<Key frame=\"1\" value=\"20\" />",
        )
        .replace("value=\"Thank you!\"", "value=\"Bonjour\"");
    std::fs::write(&changed, text).unwrap();
    let o = choreo(&["diff", DANCE, changed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("root/Bow Out parameter \"Text\": value: \"Thank you!\" -> \"Bonjour\""),
        "{out}"
    );
    assert!(
        out.contains("root/Dance/Timeline curve HipRoll: keys changed (1 -> 1 keys, 1 differ)"),
        "{out}"
    );
    assert!(out.contains("2 difference(s)"), "{out}");
}

#[test]
fn exit_codes_for_missing_and_invalid_inputs() {
    let o = choreo(&["inspect", "no/such/file.xar"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xar");
    std::fs::write(&bad, "<ChoregrapheProject><Box name='root'").unwrap();
    let o = choreo(&["inspect", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    assert!(stderr(&o).contains("bad.xar:1:"), "{}", stderr(&o));
    let o = choreo(&["diff", HELLO, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    let o = choreo(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_documents_exit_codes() {
    let o = choreo(&["check", "--help"]);
    let out = stdout(&o);
    assert!(
        out.contains("Exit codes:") && out.contains("4    an input could not be read"),
        "{out}"
    );
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // `choreo check FOLDER | head -1`: the reader goes away after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["check", "examples", "crates/choreo-xar/tests"])
        .current_dir(workspace())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
}
