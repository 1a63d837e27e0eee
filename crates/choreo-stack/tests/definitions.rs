//! Behaviors defined in JSON: the dispatchers, conditions and `Wait`, run; every mistake in a
//! definition located.

use crate::support;

use std::path::Path;

use choreo_stack::definitions::definition::load_dir;
use choreo_stack::{Classes, LoadError, Options, Runner, Tick};

/// A folder holding `files` (name, text).
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn load(dir: &Path, base: Option<&str>) -> Result<Runner, LoadError> {
    let defs = load_dir(dir)?;
    Classes::builtin().build(
        &defs,
        base,
        Options {
            keep_trace: true,
            ..Options::default()
        },
    )
}

fn run(r: &mut Runner, n: usize) {
    for _ in 0..n {
        if r.tick().unwrap() == Tick::Finished {
            break;
        }
    }
}

/// The top of the stack, by name.
fn top(r: &Runner) -> String {
    r.stack()
        .last()
        .map(|b| r.names()[b.index()].clone())
        .unwrap_or_default()
}

const PRIORITY: &[(&str, &str)] = &[
    (
        "Main.json",
        r#"{
  // A touch interrupts whatever runs; otherwise, idle.
  "behaviorID": "Main",
  "behaviorClass": "DispatcherStrictPriority",
  "linkScope": true,
  "behaviors": ["React", "Idle"]
}"#,
    ),
    (
        "react.json",
        r#"{
  "behaviorID": "React",
  "behaviorClass": "Wait",
  "seconds": 0.3,
  "wantsToBeActivatedCondition": { "conditionType": "InputSeen", "name": "Touch" }
}"#,
    ),
    (
        "idle.json",
        r#"{ "behaviorID": "Idle", "behaviorClass": "Wait", "seconds": 100 }"#,
    ),
];

#[test]
fn a_priority_dispatcher_preempts_on_an_input_and_comes_back() {
    let dir = folder(PRIORITY);
    let mut r = load(dir.path(), None).unwrap();
    run(&mut r, 3);
    assert_eq!(top(&r), "Idle");
    r.inbox().post("Touch", choreo_engine::Value::Int(1));
    run(&mut r, 1);
    assert_eq!(top(&r), "React");
    // 0.3 s at 60 ms a tick: ended within 6 ticks; then idle again.
    run(&mut r, 7);
    assert_eq!(top(&r), "Idle");
    support::assert_clean(&r);
}

#[test]
fn queue_rerun_and_random_run_their_children_as_said() {
    let dir = folder(&[
        (
            "q.json",
            r#"{ "behaviorID": "Q", "behaviorClass": "DispatcherQueue",
                 "behaviors": ["A", "Never", "R"] }"#,
        ),
        (
            "a.json",
            r#"{ "behaviorID": "A", "behaviorClass": "Wait", "seconds": 0.06 }"#,
        ),
        (
            "never.json",
            r#"{ "behaviorID": "Never", "behaviorClass": "Wait",
                 "wantsToBeActivatedCondition": { "conditionType": "False" } }"#,
        ),
        (
            "r.json",
            r#"{ "behaviorID": "R", "behaviorClass": "DispatcherRerun", "delegateID": "Pick", "numRuns": 2 }"#,
        ),
        (
            "pick.json",
            r#"{ "behaviorID": "Pick", "behaviorClass": "DispatcherRandom", "seed": 7,
                 "behaviors": [ { "behavior": "X", "weight": 1 }, { "behavior": "Y", "weight": 3 } ] }"#,
        ),
        (
            "x.json",
            r#"{ "behaviorID": "X", "behaviorClass": "Wait", "seconds": 0 }"#,
        ),
        (
            "y.json",
            r#"{ "behaviorID": "Y", "behaviorClass": "Wait", "seconds": 0 }"#,
        ),
    ]);
    let mut r = load(dir.path(), None).unwrap();
    run(&mut r, 60);
    assert!(r.is_finished(), "{:#?}", support::lines(&r, false));
    let all = support::lines(&r, false);
    let pushed: Vec<&str> = all
        .iter()
        .filter_map(|l| l.split_once(" push(").map(|(_, b)| b.trim_end_matches(')')))
        .collect();
    // The queue: A, then (Never does not want) R, which runs Pick twice, which picks X or Y
    // once each time; then everything ends.
    assert_eq!(pushed[..3], ["Q", "A", "R"], "{all:#?}");
    assert_eq!(
        pushed.iter().filter(|b| **b == "Pick").count(),
        2,
        "{pushed:?}"
    );
    let picks = pushed.iter().filter(|b| **b == "X" || **b == "Y").count();
    assert_eq!(picks, 2, "{pushed:?}");
    assert!(!pushed.contains(&"Never"));
    support::assert_clean(&r);
    // The same seed, the same picks.
    let mut again = load(dir.path(), None).unwrap();
    run(&mut again, 60);
    assert_eq!(support::lines(&again, false), all);
}

#[test]
fn a_pass_through_runs_its_delegate_again_whenever_it_wants() {
    // As the original's dispatchers do: with no delegate, it delegates again.
    let dir = folder(&[
        (
            "p.json",
            r#"{ "behaviorID": "P", "behaviorClass": "DispatcherPassThrough", "delegateID": "W" }"#,
        ),
        (
            "w.json",
            r#"{ "behaviorID": "W", "behaviorClass": "Wait", "seconds": 0.1 }"#,
        ),
    ]);
    let mut r = load(dir.path(), None).unwrap();
    run(&mut r, 20);
    let all = support::lines(&r, false);
    let runs = all.iter().filter(|l| l.ends_with("push(W)")).count();
    assert!(runs >= 5, "{all:#?}");
    assert!(!r.is_finished());
    support::assert_clean(&r);
}

#[test]
fn conditions_open_and_close_with_their_owner() {
    let dir = folder(&[
        (
            "main.json",
            r#"{ "behaviorID": "Main", "behaviorClass": "DispatcherStrictPriority",
                 "behaviors": ["Later", "Idle"] }"#,
        ),
        (
            "idle.json",
            r#"{ "behaviorID": "Idle", "behaviorClass": "Wait", "seconds": 100 }"#,
        ),
        (
            "later.json",
            r#"{ "behaviorID": "Later", "behaviorClass": "Wait", "seconds": 100,
                 "wantsToBeActivatedCondition": { "conditionType": "Compound",
                    "and": [ { "conditionType": "Timer", "seconds": 0.5 },
                             { "conditionType": "Compound", "not": { "conditionType": "False" } } ] },
                 "wantsToCancelSelfCondition": { "conditionType": "Timer", "seconds": 0.2 } }"#,
        ),
    ]);
    let mut r = load(dir.path(), Some("Main")).unwrap();
    run(&mut r, 20);
    let all = support::lines(&r, false);
    let first = all
        .iter()
        .find(|l| l.ends_with("activated(Later)"))
        .unwrap_or_else(|| panic!("{all:#?}"));
    // In scope at tick 1 (t = 60 ms); wants from 0.5 s later: tick 10 (600 ms ≥ 560 ms).
    assert!(first.starts_with("10 "), "{first}");
    let cancel = all
        .iter()
        .find(|l| l.ends_with("cancel_self(Later) = ok"))
        .unwrap();
    assert!(cancel.starts_with("14 "), "{cancel}");
    support::assert_clean(&r);
}

fn error_of(files: &[(&str, &str)], base: Option<&str>) -> String {
    let dir = folder(files);
    match load(dir.path(), base) {
        Ok(_) => panic!("loaded"),
        // Windows names the file `DIR\a.json`: one spelling for the assertions.
        Err(e) => e
            .to_string()
            .replace(&dir.path().display().to_string(), "DIR")
            .replace("DIR\\", "DIR/"),
    }
}

#[test]
fn mistakes_are_located_by_file_line_and_key() {
    assert_eq!(
        error_of(
            &[(
                "a.json",
                "{\n  \"behaviorID\": \"A\",\n  \"behaviorClass\": \"Wait\",\n  \"secnds\": 2\n}"
            )],
            None
        ),
        "DIR/a.json:4: unknown key \"secnds\" for a Wait"
    );
    assert_eq!(
        error_of(
            &[(
                "a.json",
                r#"{ "behaviorID": "B", "behaviorClass": "Wait" }"#
            )],
            None
        ),
        "DIR/a.json:1: behaviorID \"B\" does not match the file name (expected \"a\", lower-cased)"
    );
    let unknown = error_of(
        &[(
            "a.json",
            r#"{ "behaviorID": "A", "behaviorClass": "Dance" }"#,
        )],
        None,
    );
    assert!(
        unknown.starts_with("DIR/a.json:1: unknown behaviorClass \"Dance\" (known: "),
        "{unknown}"
    );
    assert_eq!(
        error_of(
            &[("a.json", "{ \"behaviorID\": \"A\",\n  \"behaviorClass\": }")],
            None
        ),
        "DIR/a.json:2: not JSON: expected value at line 2 column 20"
    );
    assert_eq!(
        error_of(
            &[(
                "a.json",
                r#"{ "behaviorID": "A", "behaviorClass": "DispatcherQueue", "behaviors": ["Nobody"] }"#
            )],
            None
        ),
        "behavior \"A\" names \"Nobody\" as a delegate, and no behavior has that id"
    );
    let cond = error_of(
        &[(
            "a.json",
            r#"{ "behaviorID": "A", "behaviorClass": "Wait",
  "wantsToBeActivatedCondition": { "conditionType": "Timer", "second": 1 } }"#,
        )],
        None,
    );
    assert_eq!(
        cond,
        "DIR/a.json:2: wantsToBeActivatedCondition: unknown key \"second\" in a Timer condition"
    );
    let roots = error_of(
        &[
            (
                "a.json",
                r#"{ "behaviorID": "A", "behaviorClass": "Wait" }"#,
            ),
            (
                "b.json",
                r#"{ "behaviorID": "B", "behaviorClass": "Wait" }"#,
            ),
        ],
        None,
    );
    assert_eq!(
        roots,
        "name the base behavior: several behaviors are no other's delegate: A, B"
    );
    // Nested too deep: refused, not recursed into.
    let mut deep = String::from(r#"{ "conditionType": "True" }"#);
    for _ in 0..20 {
        deep = format!(r#"{{ "conditionType": "Compound", "not": {deep} }}"#);
    }
    let text = format!(
        r#"{{ "behaviorID": "A", "behaviorClass": "Wait", "wantsToBeActivatedCondition": {deep} }}"#
    );
    let e = error_of(&[("a.json", &text)], None);
    assert!(e.ends_with("conditions nested more than 8 deep"), "{e}");
}

#[test]
fn a_random_dispatcher_may_go_on_choosing_when_told_not_to_stop_after_one() {
    // Bug 11 of the original: DispatcherRandom always cancelled itself after one child.
    let files = |one_shot: bool| {
        folder(&[
            (
                "pick.json",
                &format!(
                    r#"{{ "behaviorID": "Pick", "behaviorClass": "DispatcherRandom", "seed": 3,
                         "oneShot": {one_shot}, "behaviors": ["X", "Y"] }}"#
                ),
            ),
            (
                "x.json",
                r#"{ "behaviorID": "X", "behaviorClass": "Wait", "seconds": 0 }"#,
            ),
            (
                "y.json",
                r#"{ "behaviorID": "Y", "behaviorClass": "Wait", "seconds": 0 }"#,
            ),
        ])
    };
    // Without oneShot it picks again each time its child ended: one pick a tick here (the
    // children end at their first update), both children among them.
    for (one_shot, picks) in [(true, 1), (false, 10)] {
        let dir = files(one_shot);
        let mut r = load(dir.path(), None).unwrap();
        run(&mut r, 10);
        let all = support::lines(&r, false);
        let n = all
            .iter()
            .filter(|l| l.ends_with("push(X)") || l.ends_with("push(Y)"))
            .count();
        assert_eq!(n, picks, "oneShot {one_shot}: {all:#?}");
        if !one_shot {
            assert!(all.iter().any(|l| l.ends_with("push(X)")));
            assert!(all.iter().any(|l| l.ends_with("push(Y)")));
        }
        support::assert_clean(&r);
    }
}
