//! `choreo stack check` and `choreo stack tree` on a folder of JSON definitions.

use crate::support;

use support::cli::{STACK_EXAMPLE, choreo, text};

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

/// The `push` events of a stack trace file, by behavior name.
fn pushes(trace: &std::path::Path) -> Vec<String> {
    support::cli::trace_events(trace)
        .iter()
        .filter(|e| e["event"] == "push")
        .map(|e| e["b"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_example_stack_says_hello_dances_on_a_touch_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("stack.jsonl");
    let mut args = STACK_EXAMPLE.to_vec();
    args.extend(["--trace", trace.to_str().unwrap()]);
    let o = choreo(&args);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        pushes(&trace),
        ["Main", "Hello", "WaitForTouch", "Dance", "WaitForTouch"],
        "{err}"
    );
    // The Choregraphe behaviors ran on the simulated robot, in the stack's time.
    assert!(
        err.contains("says \"Hello! I am running in choreo.\""),
        "{err}"
    );
    assert!(err.contains("says \"Thank you!\""), "{err}");
    // Virtual time never waited out the 2 s a run gives the others at one instant: a
    // nested run's control thread, counted again by a command its own hook posted, once
    // made its dispatch wait for itself.
    assert!(!err.contains("still busy"), "{err}");
    assert!(!err.contains("neither returned"), "{err}");
    assert!(
        err.contains("stack: Main > Dance (delegated by Main)"),
        "{err}"
    );
    // Why the dispatcher chose it.
    assert!(
        err.contains(
            "Main: chose Dance: the first of [Dance, Hello, WaitForTouch] that wants to run"
        ),
        "{err}"
    );
    assert!(err.contains("stack finished (the stack emptied)"), "{err}");
    // The trace: a header naming the robot, then the stack's events (a tick, their
    // behaviors named) and, between them, the played behaviors' (a path, no tick).
    let events = support::cli::trace_events(&trace);
    assert_eq!(events[0]["event"], "run");
    assert_eq!(events[0]["model"], "nao");
    let (stack, engines): (Vec<_>, Vec<_>) = events[1..].iter().partition(|e| e["path"].is_null());
    assert!(
        stack
            .iter()
            .all(|e| e["tick"].is_u64() && e["seq"].is_u64())
    );
    assert!(
        stack
            .iter()
            .any(|e| e["event"] == "delegate" && e["from"] == "Main" && e["to"] == "Dance")
    );
    assert!(
        engines
            .iter()
            .all(|e| e["tick"].is_null() && e["seq"].is_u64())
    );
    assert!(
        engines
            .iter()
            .any(|e| e["path"] == "" && e["event"] == "said" && e["text"] == "Thank you!"),
        "what the robot said is in the trace"
    );
    assert!(
        engines.iter().any(|e| e["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("Dance:root/"))),
        "the dance's boxes are in the trace"
    );
}

#[test]
fn a_timeout_cancels_the_stack_top_down_and_exits_5() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("stack.jsonl");
    let o = choreo(&[
        "stack",
        "run",
        "examples/stack",
        "--fast",
        "--timeout",
        "6",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(5), "{err}");
    assert!(err.contains("stopped at the time limit"), "{err}");
    let pops: Vec<String> = support::cli::trace_events(&trace)
        .iter()
        .filter(|e| e["event"] == "deactivated")
        .map(|e| e["b"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(pops, ["Hello", "WaitForTouch", "Main"], "{err}");
}

#[test]
fn ctrl_c_cancels_the_stack_top_down_and_exits_130() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["stack", "run", "examples/stack"])
        .current_dir(support::cli::workspace())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Real time: the greeting plays for about 4 s; interrupt during it, once the stack runs
    // (the handler is set before the run starts).
    use std::io::BufRead as _;
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut err = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        err.push_str(&line);
        err.push('\n');
        if line.contains("stack: Main > Hello") {
            break;
        }
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    for line in lines {
        err.push_str(&line.unwrap());
        err.push('\n');
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted (the stack cancelled top-down)"),
        "{err}"
    );
    assert!(err.contains("stack: empty (popped Main)"), "{err}");
}

#[test]
fn a_priority_dispatcher_picks_between_two_corpus_behaviors_on_a_head_touch() {
    let Some(library) = choreo_testkit::library("a stack of two stock animations") else {
        return;
    };
    let animations = library.join("standard/Motions/Animations");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "main.json",
        r#"{ "behaviorID": "Main", "behaviorClass": "DispatcherStrictPriority", "linkScope": true,
             "behaviors": ["Wipe", "Hello", "Idle"] }"#
            .into(),
    );
    write(
        "wipe.json",
        format!(
            r#"{{ "behaviorID": "Wipe", "behaviorClass": "PlayChoregraphe", "path": {:?},
                 "wantsToBeActivatedCondition": {{ "conditionType": "InputSeen", "name": "FrontTactilTouched", "value": 1 }} }}"#,
            animations.join("Wipe Forehead").display().to_string()
        ),
    );
    write(
        "hello.json",
        format!(
            r#"{{ "behaviorID": "Hello", "behaviorClass": "PlayChoregraphe", "path": {:?},
                 "wantsToBeActivatedCondition": {{ "conditionType": "Compound",
                    "not": {{ "conditionType": "BehaviorFinished", "behavior": "Hello" }} }} }}"#,
            animations.join("Hello").display().to_string()
        ),
    );
    write(
        "idle.json",
        r#"{ "behaviorID": "Idle", "behaviorClass": "Wait", "seconds": 5,
             "wantsToBeActivatedCondition": { "conditionType": "Compound",
                "not": { "conditionType": "BehaviorFinished", "behavior": "Idle" } } }"#
            .into(),
    );
    // Touched during the greeting: the higher-priority Wipe Forehead interrupts it.
    write(
        "touch.yaml",
        "events:\n  - at: 2.0\n    touch: FrontTactilTouched\n".into(),
    );
    let trace = dir.path().join("stack.jsonl");
    let d = dir.path().to_str().unwrap();
    let o = choreo(&[
        "stack",
        "run",
        d,
        "--fast",
        "--events",
        &format!("{d}/touch.yaml"),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // Hello is interrupted (not finished), so it plays again after the wipe.
    assert_eq!(
        pushes(&trace),
        ["Main", "Hello", "Wipe", "Hello", "Idle"],
        "{err}"
    );
}

#[test]
fn robot_leaves_run_their_calls_as_actions_to_their_end() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "main.json",
        r#"{ "behaviorID": "Main", "behaviorClass": "DispatcherQueue",
             "behaviors": ["Speak", "Sit", "Wave", "Leds"] }"#,
    );
    write(
        "speak.json",
        r#"{ "behaviorID": "Speak", "behaviorClass": "Say", "text": "Hello from the stack" }"#,
    );
    write(
        "sit.json",
        r#"{ "behaviorID": "Sit", "behaviorClass": "Posture", "posture": "Sit", "speed": 0.5 }"#,
    );
    write(
        "wave.json",
        r#"{ "behaviorID": "Wave", "behaviorClass": "Animation",
             "animation": "animations/Stand/Gestures/Hey_1" }"#,
    );
    write(
        "leds.json",
        r#"{ "behaviorID": "Leds", "behaviorClass": "RobotCall", "service": "ALLeds",
             "method": "fadeRGB", "args": ["FaceLeds", 255, 1.0] }"#,
    );
    let trace = dir.path().join("stack.jsonl");
    let o = choreo(&[
        "stack",
        "run",
        dir.path().to_str().unwrap(),
        "--fast",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let done: Vec<(String, String)> = support::cli::trace_events(&trace)
        .iter()
        .filter(|e| e["event"] == "action_done")
        .map(|e| {
            (
                e["tag"].as_str().unwrap().to_string(),
                e["result"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        done,
        [
            ("ALTextToSpeech.say".to_string(), "\"Success\"".to_string()),
            (
                "ALRobotPosture.goToPosture".to_string(),
                "\"Success\"".to_string()
            ),
            (
                "ALAnimationPlayer.run".to_string(),
                "\"Success\"".to_string()
            ),
            ("ALLeds.fadeRGB".to_string(), "\"Success\"".to_string()),
        ],
        "{err}"
    );
    assert!(err.contains("says \"Hello from the stack\""), "{err}");
    // The say took its time: asked at tick 1, done about 1.3 s (22 ticks) later.
    let events = support::cli::trace_events(&trace);
    let tick = |event: &str| {
        events
            .iter()
            .find(|e| e["event"] == event && e["result"] != serde_json::Value::Null)
            .map(|e| e["tick"].as_u64().unwrap())
            .unwrap()
    };
    assert!(
        tick("action_done") >= tick("delegate_action") + 15,
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "delegate_action" && e["result"] == "ok")
    );
}

#[test]
fn a_python_behavior_runs_in_a_stack_and_its_mistakes_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "greeter.py",
        r#"
class Greeter:
    """Says hello once, then ends."""
    always_delegates = False

    def __init__(self, text="Hello"):
        self.text = text
        self.started = False

    def wants_to_be_activated(self, cx):
        return not self.started

    def on_activated(self, cx):
        self.started = True
        battery = cx.call("ALBattery", "getBatteryCharge")
        cx.log("battery at %d%%" % battery)
        cx.run("ALTextToSpeech", "say", self.text, callback=1)

    def on_delegation_done(self, cx, token, done):
        cx.log("said it: %s" % done[0])
        cx.cancel_self()
"#,
    );
    write(
        "main.json",
        r#"{ "behaviorID": "Main", "behaviorClass": "DispatcherQueue", "behaviors": ["Greet"] }"#,
    );
    write(
        "greet.json",
        r#"{ "behaviorID": "Greet", "behaviorClass": "Python", "file": "greeter.py",
             "class": "Greeter", "params": { "text": "Hello from Python" } }"#,
    );
    let d = dir.path().to_str().unwrap();
    let o = choreo(&["stack", "run", d, "--fast"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("says \"Hello from Python\""), "{err}");
    assert!(err.contains("Greet: battery at "), "{err}");
    assert!(err.contains("Greet: said it: success"), "{err}");
    // A class that is not in the file: located at the definition.
    write(
        "greet.json",
        r#"{ "behaviorID": "Greet", "behaviorClass": "Python", "file": "greeter.py",
             "class": "Nobody" }"#,
    );
    let o = choreo(&["stack", "check", d]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("greet.json:1: file: "), "{err}");
    assert!(err.contains("no class \"Nobody\" in it"), "{err}");
}

#[test]
fn a_played_behaviors_errors_are_shown_live() {
    // One leaf playing a behavior whose Sound box raises at 5.3 s (a missing sound file).
    let dir = tempfile::tempdir().unwrap();
    let behavior = support::cli::workspace().join("crates/choreo/tests/fixtures/raises_at_5_3.xar");
    let leaf = serde_json::json!({
        "behaviorID": "Play", "behaviorClass": "PlayChoregraphe",
        "path": behavior.to_str().unwrap(),
    });
    std::fs::write(dir.path().join("play.json"), leaf.to_string()).unwrap();
    let o = choreo(&[
        "stack",
        "run",
        dir.path().to_str().unwrap(),
        "--fast",
        "--timeout",
        "30",
    ]);
    let (_, err) = text(&o);
    assert!(
        err.contains(
            "error in Play:root/Sound line 6 (onInput_onStart): RuntimeError: the sound file is \
             missing"
        ),
        "{err}"
    );
}
