//! `choreo run` of projects whose behaviors run others with ALBehaviorManager: the fixture
//! `tests/fixtures/nested` (main runs greet and broken, and asks for a name the robot does
//! not have) in virtual and real time, and the Graduation Ceremony project of the corpus.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support;

use support::cli::{choreo, text, trace_events};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nested/nested.pml")
}

/// Seconds of the first event of `path` with `event` (and `method`, for robot calls).
fn time_of(events: &[serde_json::Value], path: &str, event: &str, method: Option<&str>) -> f64 {
    let e = events
        .iter()
        .find(|e| {
            e["path"] == path && e["event"] == event && method.is_none_or(|m| e["method"] == m)
        })
        .unwrap_or_else(|| panic!("no {event} of {path} {method:?} in the trace"));
    e["time_ns"].as_f64().unwrap() / 1e9
}

/// Runs the fixture with `--trace`; the output and the trace.
fn run_fixture(extra: &[&str]) -> (Output, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let fixture = fixture();
    let mut args = vec![
        "run",
        fixture.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = choreo(&args);
    let events = trace_events(&trace);
    (o, events)
}

#[test]
fn a_behavior_runs_its_siblings_and_waits_for_them_in_virtual_time() {
    let (o, events) = run_fixture(&["--fast"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    // The nested behavior that fails is reported, under its behavior's name.
    assert!(out.contains("errors         1"), "{out}");
    assert!(
        out.contains("broken:root/Oops line 3 (onInput_onStart): ValueError: boom"),
        "{out}"
    );
    // The names a robot gives the project's behaviors; the one played runs; an unknown
    // name raises RuntimeError.
    assert!(
        err.contains("installed: .lastUploadedChoregrapheBehavior/broken, .lastUploadedChoregrapheBehavior/greet, .lastUploadedChoregrapheBehavior/main, nested-fixture/broken, nested-fixture/greet, nested-fixture/main"),
        "{err}"
    );
    assert!(
        err.contains("running: .lastUploadedChoregrapheBehavior/main"),
        "{err}"
    );
    assert!(
        err.contains(
            "refused: ALBehaviorManager.runBehavior: behavior \"nested-fixture/nope\" is not installed"
        ),
        "{err}"
    );
    assert!(err.contains("says \"Hello from greet\""), "{err}");
    // Behavior time is one: greet's say, then its sleep of 0.5 s, then runBehavior returns
    // in main at greet's end; broken sleeps 0.5 s more, and main ends with it.
    let said = time_of(
        &events,
        "greet:root/Greet",
        "robot_return",
        Some("ALTextToSpeech.say"),
    );
    assert!(said > 0.5, "a say takes time: {said}");
    let greet_end = events
        .iter()
        .find(|e| e["path"] == "greet:" && e["what"] == "end")
        .expect("greet ends")["time_ns"]
        .as_f64()
        .unwrap()
        / 1e9;
    assert!(
        (greet_end - (said + 0.5)).abs() < 1e-6,
        "greet ended at {greet_end}"
    );
    let ran = time_of(
        &events,
        "root/Run Greet",
        "robot_return",
        Some("ALBehaviorManager.runBehavior"),
    );
    assert!(
        (ran - (said + 0.5)).abs() < 1e-6,
        "runBehavior returned at {ran}, said at {said}"
    );
    let end = events
        .iter()
        .find(|e| e["path"] == "" && e["what"] == "end")
        .expect("the run ends");
    assert!((end["time_ns"].as_f64().unwrap() / 1e9 - (ran + 0.5)).abs() < 1e-6);
    // Every box of every behavior is made and destroyed once.
    for path in ["greet:root/Greet", "broken:root/Oops", "root/Run Greet"] {
        let count = |what: &str| {
            events
                .iter()
                .filter(|e| e["path"] == path && e["event"] == what)
                .count()
        };
        assert_eq!((count("new"), count("del")), (1, 1), "{path}");
    }
    // The same trace every time.
    let (_, again) = run_fixture(&["--fast"]);
    assert_eq!(again, events);
}

#[test]
fn a_nested_behavior_that_fails_stops_a_strict_run() {
    let (o, _) = run_fixture(&["--fast", "--strict"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("root/Run Broken line 3 (onInput_onStart): RuntimeError: ALBehaviorManager.runBehavior: behavior \"nested-fixture/broken\" failed: root/Oops (onInput_onStart): ValueError: boom"),
        "{out}"
    );
}

/// The fixture with `Run Broken` starting `broken` (`startBehavior`, nobody waits for it)
/// and firing its output 2 s later, copied into `dir`; its `.pml`.
fn fixture_starting_broken(dir: &Path) -> PathBuf {
    let from = fixture().parent().unwrap().to_path_buf();
    let to = dir.join("nested");
    for part in ["main", "greet", "broken"] {
        std::fs::create_dir_all(to.join(part)).unwrap();
        let xar = std::fs::read_to_string(from.join(part).join("behavior.xar")).unwrap();
        let xar = if part == "main" {
            let run = "ALProxy(\"ALBehaviorManager\").runBehavior(\"nested-fixture/broken\")";
            assert!(xar.contains(run));
            xar.replace(
                run,
                "ALProxy(\"ALBehaviorManager\").startBehavior(\"nested-fixture/broken\")\n        \
                 import time\n        time.sleep(2)",
            )
        } else {
            xar
        };
        std::fs::write(to.join(part).join("behavior.xar"), xar).unwrap();
    }
    for file in ["manifest.xml", "nested.pml"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
    to.join("nested.pml")
}

#[test]
fn a_started_behavior_that_fails_stops_a_strict_run_and_not_a_lenient_one() {
    // broken fails at 1.54 s; main's box sleeps on to 3.54 s before the run's end.
    let dir = tempfile::tempdir().unwrap();
    let pml = fixture_starting_broken(dir.path());
    let pml = pml.to_str().unwrap();
    let error = "broken:root/Oops line 3 (onInput_onStart): ValueError: boom";
    let o = choreo(&["run", pml, "--fast", "--strict"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("outcome        stopped at the first error in box code (--strict)"),
        "{out}"
    );
    assert!(out.contains(error), "{out}");
    assert!(out.contains("duration       1.54 s behavior time"), "{out}");
    assert!(
        err.contains(
            "info: broken:root/Oops failed in a behavior nobody waits for: the run stops (strict)"
        ),
        "{err}"
    );
    let o = choreo(&["run", pml, "--fast"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    assert!(out.contains("duration       3.54 s behavior time"), "{out}");
    assert!(out.contains(error), "{out}");
}

#[test]
fn nested_behaviors_run_in_real_time() {
    let started = std::time::Instant::now();
    let (o, events) = run_fixture(&[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    // A say, then 0.5 s in greet and 0.5 s in broken: about 2 s of real time.
    assert!(
        started.elapsed().as_secs_f64() > 1.5,
        "{:?}",
        started.elapsed()
    );
    let ran = time_of(
        &events,
        "root/Run Greet",
        "robot_return",
        Some("ALBehaviorManager.runBehavior"),
    );
    let said = time_of(
        &events,
        "greet:root/Greet",
        "robot_return",
        Some("ALTextToSpeech.say"),
    );
    assert!(
        ran >= said + 0.5,
        "runBehavior returned at {ran}, said at {said}"
    );
}

#[test]
fn the_graduation_ceremony_runs_its_selfie_behavior_nested() {
    let Some(corpus) = choreo_testkit::corpus("the Graduation Ceremony's nested behaviors") else {
        return;
    };
    let pml =
        corpus.join("WAUT6__commencement-ceremony-2024-usek-choregraphe/Graduation Ceremony.pml");
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let o = choreo(&[
        "run",
        pml.to_str().unwrap(),
        "--behavior",
        "selfie_looped",
        "--fast",
        "--timeout",
        "60",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    // selfie_looped runs `.lastUploadedChoregrapheBehavior/selfie_raw_behavior`, whose
    // dialog waits for someone to speak: the run ends idle, every box unloaded.
    assert!(
        out.contains("errors         0"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        out.contains("root/Selfie Behavior waits for ALBehaviorManager.runBehavior to return"),
        "{out}"
    );
    assert!(
        err.contains("selfie_raw_behavior:root/Take Picture Web View"),
        "{err}"
    );
    let events = trace_events(&trace);
    let shorts: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["path"].as_str().unwrap(),
                e["event"].as_str().unwrap()
            )
        })
        .collect();
    let position = |line: &str| {
        shorts
            .iter()
            .position(|s| s == line)
            .unwrap_or_else(|| panic!("{line:?} not in the trace"))
    };
    // The stop of the run stops the nested behavior (the Run Behavior box's onUnload calls
    // stopBehavior) before the run destroys its boxes.
    assert!(position("selfie_raw_behavior:root new") < position("selfie_raw_behavior: behavior"));
    assert!(position("selfie_raw_behavior:root del") < position("root/Selfie Behavior del"));
}
