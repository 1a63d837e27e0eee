//! `choreo run` end to end: the examples on the simulated robot, live output, report, trace,
//! parameters, scenarios, exit codes, and a graceful stop on a real SIGINT.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;

use choreo_testkit::xar_text;
use support::cli::{choreo, lifecycle, text, trace_events, workspace};

/// Each of `boxes` made, loaded, unloaded and destroyed exactly once, and no other box.
fn once_each(boxes: &[&str]) -> BTreeMap<String, [usize; 4]> {
    boxes.iter().map(|b| (b.to_string(), [1; 4])).collect()
}

#[test]
fn hello_runs_on_the_simulated_robot_and_shows_what_it_does() {
    let o = choreo(&["run", "examples/hello", "--fast"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains("says \"Hello! I am running in choreo.\""),
        "{err}"
    );
    assert!(err.contains("moves HeadPitch"), "{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    assert!(out.contains("ALTextToSpeech"), "{out}");
    assert!(out.contains("errors         0"), "{out}");
}

#[test]
fn the_trace_is_written_as_json_lines_and_every_box_is_destroyed() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let o = choreo(&[
        "run",
        "examples/dance",
        "--fast",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let events = trace_events(&trace);
    let count = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    assert!(count("new") > 5);
    assert_eq!(count("new"), count("del"));
    assert!(count("kf_on") >= 5, "both layers switch keyframes");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "behavior" && e["what"] == "end")
    );
}

#[test]
fn a_parameter_set_on_the_command_line_is_used() {
    let o = choreo(&[
        "run",
        "examples/hello",
        "--fast",
        "--param",
        "Say Hello/Text=Bonjour",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("says \"Bonjour\""), "{err}");
    let o = choreo(&["run", "examples/hello", "--fast", "--param", "Nope/Text=x"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_interactive_example_answers_the_touch_of_its_scenario() {
    let o = choreo(&[
        "run",
        "examples/interactive",
        "--fast",
        "--events",
        "examples/interactive/touch.yaml",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        err.contains("says \"Hello! You touched my head.\""),
        "{err}"
    );
    // Without the scenario nobody touches the head: nothing more can happen (exit 5).
    let o = choreo(&["run", "examples/interactive", "--fast"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(5), "{out}");
    assert!(
        out.contains("outcome        stopped: waiting for an event nobody sent\n  waiting for    ALMemory event FrontTactilTouched\n"),
        "{out}"
    );
}

/// A behavior whose one box raises in onStart.
const FAILING: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Oops" id="1"><script language="4"><content><![CDATA[class MyClass(GeneratedClass):
    def onInput_onStart(self):
        x = 1
        raise ValueError("no luck")
]]></content></script>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
</Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>
"#;

#[test]
fn an_error_in_box_code_names_the_box_and_line_and_strict_stops_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("failing.xar");
    std::fs::write(&file, FAILING).unwrap();
    let o = choreo(&["run", file.to_str().unwrap(), "--fast", "--strict"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}\n{err}");
    assert!(err.contains("root/Oops"), "{err}");
    assert!(err.contains("no luck"), "{err}");
    assert!(
        err.contains("line 4"),
        "the script line of the raise:\n{err}"
    );
    assert!(out.contains("errors         1"), "{out}");
    // Without --strict the error is reported and the run goes on until nothing is left.
    let o = choreo(&["run", file.to_str().unwrap(), "--fast"]);
    assert_eq!(o.status.code(), Some(5), "{:?}", text(&o));
}

/// A box whose thread writes `Tick` = 1, 2, 3... every 0.4 s of behavior time, while the
/// box itself ends the behavior at 1.0 s: ticks 1 and 2 (0.4 s, 0.8 s) are the run's; tick 3
/// would come at 1.2 s, from a thread the end woke, after the run.
const TICKER_SCRIPT: &str = r#"import threading
import time

class MyClass(GeneratedClass):
    def onLoad(self):
        self.memory = ALProxy("ALMemory")

    def onInput_onStart(self):
        threading.Thread(target=self.tick).start()
        time.sleep(1.0)
        self.onStopped()

    def tick(self):
        for n in range(1, 6):
            time.sleep(0.4)
            self.memory.insertData("Tick", n)
"#;

#[test]
fn what_box_code_does_after_the_end_is_not_shown_as_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ticker.xar");
    let script =
        format!(r#"<script language="4"><content><![CDATA[{TICKER_SCRIPT}]]></content></script>"#);
    let ticker = xar_text::boxed("Ticker", 1, &script, "");
    let links = format!(
        "{}{}",
        xar_text::link(0, 2, 1, 2),
        xar_text::link(1, 4, 0, 4)
    );
    std::fs::write(&file, xar_text::behavior(&format!("{ticker}{links}"))).unwrap();
    // The thread's third write races the command's end: several runs, the same lines.
    for _ in 0..5 {
        let o = choreo(&["run", file.to_str().unwrap(), "--fast"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        assert!(
            err.contains("0.40s  ALMemory Tick = 1, 2 ×2 until 0.80s\n"),
            "{err}"
        );
        assert!(!err.contains("Tick = 1, 2, 3"), "{err}");
    }
}

#[test]
fn load_errors_have_their_exit_codes() {
    assert_eq!(choreo(&["run", "no/such/file.xar"]).status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.xar");
    std::fs::write(&file, "<ChoregrapheProject><Box").unwrap();
    assert_eq!(
        choreo(&["run", file.to_str().unwrap()]).status.code(),
        Some(4)
    );
}

#[test]
fn a_timeout_in_real_time_stops_the_behavior_with_exit_5() {
    let started = Instant::now();
    let o = choreo(&["run", "examples/dance", "--timeout", "1"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(5), "{out}");
    assert!(out.contains("stopped: timeout"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn sigint_stops_the_behavior_cleanly_with_exit_130() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    // The dance takes about 8 s of real time; interrupt it once it has started (the trace
    // says so: it is written as the run goes), however long a busy machine takes to load it.
    let child = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["run", "examples/dance", "--trace", trace.to_str().unwrap()])
        .current_dir(workspace())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while !std::fs::read_to_string(&trace).is_ok_and(|t| t.contains(r#""what":"start"}"#)) {
        assert!(
            std::time::Instant::now() < deadline,
            "the dance did not start in 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{out}\n{err}");
    assert!(out.contains("stopped: interrupted"), "{out}");
    // Everything was unloaded and destroyed (R4): each onLoad has its onUnload, each new
    // its del, and the stop came before the end of the dance.
    let events = trace_events(&trace);
    let calls = |hook: &str| {
        events
            .iter()
            .filter(|e| e["event"] == "call" && e["hook"] == hook)
            .count()
    };
    assert!(calls("onLoad") > 0);
    assert_eq!(calls("onLoad"), calls("onUnload"), "{out}");
    let count = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    assert_eq!(count("new"), count("del"));
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "behavior" && e["what"] == "stop")
    );
}

/// A loop of links through two script-less flow-diagram boxes, in virtual and real time:
/// stopped by `--timeout` (exit 5) at exactly the limit in virtual time, every box unloaded
/// and destroyed.
#[test]
fn a_loop_of_links_ends_at_the_timeout_with_a_clean_unload() {
    let dir = tempfile::tempdir().unwrap();
    for fast in [true, false] {
        let trace = dir.path().join(format!("loop-{fast}.jsonl"));
        let mut args = vec![
            "run",
            "crates/choreo/tests/fixtures/loop.xar",
            "--timeout",
            "1",
            "-q",
            "--trace",
            trace.to_str().unwrap(),
        ];
        if fast {
            args.push("--fast");
        }
        let o = choreo(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(5), "stdout:\n{out}\nstderr:\n{err}");
        assert!(out.contains("outcome        stopped: timeout"), "{out}");
        if fast {
            assert!(out.contains("duration       1.00 s behavior time"), "{out}");
        }
        let events = trace_events(&trace);
        let count = |event: &str, hook: Option<&str>| {
            events
                .iter()
                .filter(|e| e["event"] == event && hook.is_none_or(|h| e["hook"] == h))
                .count()
        };
        assert_eq!(lifecycle(&events), once_each(&["root", "root/A", "root/B"]));
        assert!(count("deliver", None) > 1000, "the loop ran");
    }
}

/// The engine's fault suite (`choreo-engine/tests/faults.rs`) for a loop through Python
/// boxes, which that crate cannot load: two Python boxes whose `onInput_onStart` fires
/// `onStopped`, each `onStopped` linked to the other's `onStart` (`python_loop.xar`), and
/// the same with a script-less box in place of B (`python_scriptless_loop.xar`: its diagram
/// passes `onStart` to `onStopped`). Under `--fast`, virtual time stands still while the
/// loop runs until a link of the loop is reported loud (each once at most), then time goes
/// on beside the loop up to the timeout; in real time, the timeout stops it. Either way: exit 5, every
/// box unloaded and destroyed once, within a real-time bound.
#[test]
fn a_loop_of_links_through_python_boxes_ends_at_the_timeout_with_a_clean_unload() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 2] = [
        ("python_loop", &["A.onStart", "B.onStart"]),
        (
            "python_scriptless_loop",
            &["A.onStart", "B.onStart", "(parent).onStopped"],
        ),
    ];
    for (name, loud) in cases {
        for fast in [true, false] {
            let file = format!("crates/choreo/tests/fixtures/{name}.xar");
            let trace = dir.path().join(format!("{name}-{fast}.jsonl"));
            // `--timeout` bounds the load too: with every core busy, starting the box host
            // and constructing the boxes took more than a second of real time.
            let timeout = "5";
            let mut args = vec![
                "run",
                &file,
                "--timeout",
                timeout,
                "--trace",
                trace.to_str().unwrap(),
            ];
            if fast {
                args.push("--fast");
            }
            let started = Instant::now();
            let o = choreo(&args);
            let took = started.elapsed();
            let (out, err) = text(&o);
            let case = format!("{name} (fast: {fast})");
            assert_eq!(
                o.status.code(),
                Some(5),
                "{case}\nstdout:\n{out}\nstderr:\n{err}"
            );
            assert!(
                out.contains("outcome        stopped: timeout"),
                "{case}: {out}"
            );
            assert!(out.contains("errors         0"), "{case}: {out}");
            // The loop ends: virtual time goes on beside it once a link has carried 10,000
            // signals in a behavior second and 20,000 more steps have passed (counted, not
            // timed). Each hop is a hand-off between threads, whose real time grows with
            // the machine's load: the bound is a hang's, with the margin of a loaded machine.
            assert!(
                took < Duration::from_secs(120),
                "{case}: took {took:?} of real time"
            );
            let events = trace_events(&trace);
            assert_eq!(
                lifecycle(&events),
                once_each(&["root", "root/A", "root/B"]),
                "{case}"
            );
            let starts = events
                .iter()
                .filter(|e| e["event"] == "call" && e["hook"] == "onInput_onStart")
                .count();
            // The loop went round many times. In virtual time the count of steps before time
            // moves on decides how many; in real time the machine's speed and load do (744 in
            // 1 s on a loaded 2-core machine, 86 with both cores kept busy besides), so there
            // the bound only says that it went round and on.
            let least = if fast { 100 } else { 3 };
            assert!(starts > least, "{case}: the loop ran ({starts} starts)");
            let warned = |what: &str| {
                events
                    .iter()
                    .filter(|e| {
                        e["event"] == "log"
                            && e["message"].as_str().is_some_and(|m| m.contains(what))
                    })
                    .count()
            };
            // Each loud link is reported once at most. Under `--fast` at least one link of
            // the loop is: time stands still until one is (which one, and whether the
            // others are before time jumps to the timeout, depends on the machine's speed).
            // In real time the loop may stay under the threshold on a slow machine.
            let mut on_loop = 0;
            for target in loud {
                let n = warned(&format!("the link to {target} carries more than"));
                assert!(n <= 1, "{case}: {n} loud-link warnings for {target}\n{err}");
                on_loop += n;
            }
            assert!(!fast || on_loop >= 1, "{case}: no loud-link warning\n{err}");
            assert_eq!(
                warned("carries more than"),
                on_loop,
                "{case}: a loud-link warning for a link outside the loop\n{err}"
            );
            if fast {
                assert!(
                    out.contains("duration       5.00 s behavior time"),
                    "{case}: {out}"
                );
                assert_eq!(warned("virtual time goes on beside them"), 1, "{case}");
                assert!(
                    err.contains(" carries more than "),
                    "{case}: the warning is shown: {err}"
                );
            }
        }
    }
}

/// Python box code that sleeps at module level, and sleeps and calls the robot in
/// `__init__` and `onLoad`: under `--fast` the clock moves while boxes are constructed (no
/// hang), and the run's behavior time counts every second of it; a `--timeout` shorter than
/// the load ends it with the timeout code, in virtual and in real time.
#[test]
fn box_code_that_sleeps_or_calls_the_robot_while_loading_follows_the_clock() {
    let file = "crates/choreo/tests/fixtures/sleepy_load.xar";
    let started = Instant::now();
    let o = choreo(&["run", file, "--fast", "--timeout", "60"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("outcome        finished"), "{out}");
    // 1 s at module level, the first say, 0.5 s, 0.25 s, the second say (0.4 s).
    assert!(out.contains("duration       2.86 s behavior time"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(20));
    for fast in [true, false] {
        let mut args = vec!["run", file, "--timeout", "0.5"];
        if fast {
            args.push("--fast");
        }
        let started = Instant::now();
        let o = choreo(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(5), "stdout:\n{out}\nstderr:\n{err}");
        assert!(
            err.contains("the time limit (500ms) passed while the boxes were being constructed")
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}

/// `--strict` stops at the failing hook in virtual time: a box raises at 5.3 s while another
/// keeps talking; 50 runs while two other processes keep both cores busy all stop at 5.30 s
/// and exit 3 (the stop is decided by the engine when the hook returns, not by a poll).
#[test]
fn strict_stops_at_the_same_virtual_time_in_50_runs_under_load() {
    let _hogs = support::Hogs::start(2);
    // The whole report but its real time is the same in every run.
    let report = |out: &str| -> String {
        out.lines()
            .map(|l| l.split(", ").next().unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut first: Option<String> = None;
    for run in 0..50 {
        let o = choreo(&[
            "run",
            "crates/choreo/tests/fixtures/raises_at_5_3.xar",
            "--fast",
            "--strict",
            "-q",
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(3), "run {run}:\n{out}\n{err}");
        assert!(
            out.contains("outcome        stopped at the first error in box code (--strict)"),
            "run {run}: {out}"
        );
        assert!(
            out.contains("duration       5.30 s behavior time"),
            "run {run}: {out}"
        );
        assert!(
            out.contains(
                "root/Sound line 6 (onInput_onStart): RuntimeError: the sound file is missing"
            ),
            "run {run}: {out}"
        );
        match &first {
            None => first = Some(report(&out)),
            Some(f) => assert_eq!(&report(&out), f, "run {run}"),
        }
    }
}
