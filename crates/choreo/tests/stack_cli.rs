//! `choreo stack check` and `choreo stack tree` on a folder of JSON definitions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::cli::{choreo, text};

/// A stack folder: a priority dispatcher over a queue and a wait, an anonymous behavior.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "main.json",
            r#"{
  // Reacts to a touch; otherwise idles.
  "behaviorID": "Main",
  "behaviorClass": "DispatcherStrictPriority",
  "linkScope": true,
  "behaviors": ["React", "Idle"],
  "anonymousBehaviors": [ { "behaviorName": "Pause", "behaviorClass": "Wait", "seconds": 1 } ]
}"#,
        ),
        (
            "react.json",
            r#"{ "behaviorID": "React", "behaviorClass": "DispatcherQueue", "behaviors": ["Idle", "Short"],
  "wantsToBeActivatedCondition": { "conditionType": "InputSeen", "name": "Touch" } }"#,
        ),
        (
            "idle.json",
            r#"{ "behaviorID": "Idle", "behaviorClass": "Wait", "seconds": 100 }"#,
        ),
        (
            "short.json",
            r#"{ "behaviorID": "Short", "behaviorClass": "Wait", "seconds": 0.5 }"#,
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn check_reports_the_stack_and_what_the_base_cannot_reach() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let o = choreo(&["stack", "check", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        out,
        format!(
            "{d}: 5 behaviors (1 anonymous), base Main, 4 reachable from it\nwarning: @Pause is not reachable from the base\n"
        )
    );
}

#[test]
fn tree_prints_the_delegation_tree_from_the_base() {
    let dir = folder();
    let o = choreo(&["stack", "tree", dir.path().to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        out,
        "Main (DispatcherStrictPriority, linked: React, Idle)\n  React (DispatcherQueue)\n    Idle (Wait)\n    Short (Wait)\n  Idle (see above)\n"
    );
}

#[test]
fn a_wrong_definition_exits_1_naming_file_line_and_key_and_a_missing_folder_4() {
    let dir = folder();
    std::fs::write(
        dir.path().join("short.json"),
        "{ \"behaviorID\": \"Short\",\n  \"behaviorClass\": \"Wait\",\n  \"secs\": 1 }",
    )
    .unwrap();
    let o = choreo(&["stack", "check", dir.path().to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        err,
        format!(
            "error: {}/short.json:3: unknown key \"secs\" for a Wait\n",
            dir.path().display()
        )
    );
    let o = choreo(&["stack", "tree", "/nonexistent/stack"]);
    assert_eq!(o.status.code(), Some(4));
    // A cycle is named.
    let dir = folder();
    std::fs::write(
        dir.path().join("short.json"),
        r#"{ "behaviorID": "Short", "behaviorClass": "DispatcherQueue", "behaviors": ["React"] }"#,
    )
    .unwrap();
    let o = choreo(&[
        "stack",
        "check",
        dir.path().to_str().unwrap(),
        "--base",
        "Main",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.ends_with("a delegation cycle: React → Short → React\n"),
        "{err}"
    );
}
