//! `choreo run`'s output and report as a person reads them: repeated lines folded (`-v`
//! shows them all, `-q` only errors), exceptions summarized with their box and line, errors
//! boxes log counted apart, what an idle run waits for, and scenario stubs.

use crate::support;

use std::path::PathBuf;

use support::cli::{choreo, stderr, stdout};

/// A behavior whose one box, `root/Box`, runs `script` (line 1 is `class MyClass...`) when
/// the behavior starts.
fn behavior(script: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Box" id="1"><script language="4"><content><![CDATA[{script}]]></content></script>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
</Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>
"#
    )
}

/// `files` (name, text) written in a fresh folder; the folder (kept alive) and their paths.
fn write(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let paths = files
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    (dir, paths)
}

/// `choreo run FILE --fast ARGS...`: exit code, stdout, stderr.
fn run(file: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["run", file.to_str().unwrap(), "--fast", "--timeout", "60"];
    all.extend_from_slice(args);
    let o = choreo(&all);
    (o.status.code(), stdout(&o), stderr(&o))
}

const BLINK: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        leds = ALProxy("ALLeds")
        for i in range(8):
            leds.fadeRGB("FaceLeds", 0xff0000 if i % 2 == 0 else 0x000000, 0.5)
        ALProxy("ALTextToSpeech").say("done")
        self.onStopped()
"#;

#[test]
fn an_led_blink_folds_into_one_line_and_verbose_shows_every_call() {
    let (_dir, files) = write(&[("blink.xar", &behavior(BLINK))]);
    let (code, out, err) = run(&files[0], &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let leds: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("LEDs FaceLeds"))
        .collect();
    assert_eq!(
        leds,
        ["    0.00s  LEDs FaceLeds -> #ff0000 (0.5 s), #000000 (0.5 s) ×8 until 3.50s"],
        "{err}"
    );
    // The folded line comes before what followed the blink.
    let said = err.find("says \"done\"").expect("the robot speaks");
    assert!(err.find("LEDs FaceLeds").unwrap() < said, "{err}");
    assert!(out.contains("ALLeds                   8"), "{out}");

    let (code, _, err) = run(&files[0], &["-v"]);
    assert_eq!(code, Some(0), "{err}");
    let leds = err
        .lines()
        .filter(|l| l.contains("LEDs FaceLeds ->"))
        .count();
    assert_eq!(leds, 8, "-v shows every call:\n{err}");
    assert!(!err.contains('×'), "{err}");

    let (code, out, err) = run(&files[0], &["-q"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "", "-q: only errors, and there are none");
    assert!(out.contains("outcome        finished"), "{out}");
}

const BOOM: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        x = 1
        raise ValueError("boom")
"#;

#[test]
fn the_report_shows_the_exception_with_its_box_and_line() {
    let (_dir, files) = write(&[("boom.xar", &behavior(BOOM))]);
    let (code, out, err) = run(&files[0], &[]);
    assert_eq!(code, Some(5), "{out}\n{err}");
    assert!(
        out.contains(
            "  errors         1\n    root/Box line 4 (onInput_onStart): ValueError: boom\n"
        ),
        "{out}"
    );
    assert!(!out.contains("Traceback"), "{out}");
    assert!(
        err.contains("error in root/Box line 4 (onInput_onStart): ValueError: boom"),
        "{err}"
    );
    assert!(
        !err.contains("Traceback"),
        "the live line is the summary:\n{err}"
    );
    // -v adds the whole traceback under it; -q keeps the error line.
    let (_, _, err) = run(&files[0], &["-v"]);
    assert!(err.contains("Traceback (most recent call last):"), "{err}");
    assert!(err.contains("raise ValueError(\"boom\")"), "{err}");
    let (_, _, err) = run(&files[0], &["-q"]);
    assert!(err.contains("ValueError: boom"), "{err}");
    assert!(!err.contains("running "), "{err}");
}

const LOGS: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.logger.warning("low battery")
        self.logger.error("no ball in sight")
        self.logger.error("no ball in sight")
        ALProxy("ALTextToSpeech").say("still here")
        self.onStopped()
"#;

#[test]
fn errors_boxes_log_are_counted_apart_from_exceptions() {
    let (_dir, files) = write(&[("logs.xar", &behavior(LOGS))]);
    let (code, out, err) = run(&files[0], &[]);
    assert_eq!(
        code,
        Some(0),
        "logging an error does not stop a run:\n{out}\n{err}"
    );
    assert!(out.contains("  errors         0\n"), "{out}");
    assert!(
        out.contains("  logged errors  2\n    root/Box: no ball in sight (×2)\n"),
        "{out}"
    );
    assert!(err.contains("warning root/Box: low battery"), "{err}");
    // -q: the logged errors, not the warning nor what the robot does.
    let (_, _, err) = run(&files[0], &["-q"]);
    assert!(err.contains("error root/Box: no ball in sight ×2"), "{err}");
    assert!(
        !err.contains("low battery") && !err.contains("says"),
        "{err}"
    );
}

const WAITS: &str = r#"class MyClass(GeneratedClass):
    def onLoad(self):
        self.memory = ALProxy("ALMemory")
    def onInput_onStart(self):
        self.memory.subscribeToEvent("MyApp/Go", self.getName(), "onGo")
    def onGo(self, key, value, message):
        self.onStopped()
"#;

#[test]
fn an_idle_run_says_which_event_it_waits_for_and_a_scenario_sends_it() {
    let (_dir, files) = write(&[
        ("waits.xar", &behavior(WAITS)),
        (
            "go.yaml",
            "events:\n  - at: 2\n    raise_event: {key: MyApp/Go, value: 1}\n",
        ),
    ]);
    let (code, out, err) = run(&files[0], &[]);
    assert_eq!(code, Some(5), "{out}\n{err}");
    assert!(
        out.contains(
            "  outcome        stopped: waiting for an event nobody sent\n  waiting for    ALMemory event MyApp/Go\n"
        ),
        "{out}"
    );
    let (code, out, err) = run(&files[0], &["--events", files[1].to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("outcome        finished"), "{out}");
}

const ASKS_FOO: &str = r#"class MyClass(GeneratedClass):
    def onInput_onStart(self):
        v = ALProxy("ALFoo").bar(1, "x")
        self.logger.info("got %s" % (v,))
        self.onStopped()
"#;

#[test]
fn a_scenario_stub_answers_a_call_the_simulated_robot_lacks() {
    let (_dir, files) = write(&[
        ("foo.xar", &behavior(ASKS_FOO)),
        (
            "stub.yaml",
            "events:\n  - on_call: ALFoo.bar\n    args: [1, x]\n    reply: [1, 2]\n",
        ),
        ("bad.yaml", "events:\n  - at: 1\n    reply: [1, 2]\n"),
    ]);
    let (code, out, err) = run(&files[0], &["--events", files[1].to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("stub: ALFoo.bar(1, \"x\") -> [1, 2]"), "{err}");
    assert!(err.contains("info root/Box: got [1, 2]"), "{err}");
    assert!(out.contains("  stubbed        1\n    ALFoo.bar"), "{out}");
    assert!(out.contains("  errors         0"), "{out}");
    // Without it the robot has no ALFoo: the box's exception says so.
    let (code, out, _) = run(&files[0], &[]);
    assert_eq!(code, Some(5), "{out}");
    assert!(
        out.contains("root/Box line 3 (onInput_onStart): RuntimeError: ALProxy::ALProxy Can't find service: ALFoo"),
        "{out}"
    );
    // A stub on a timed entry is refused with the file and line.
    let (code, _, err) = run(&files[0], &["--events", files[2].to_str().unwrap()]);
    assert_eq!(code, Some(4), "{err}");
    assert!(
        err.contains("bad.yaml:2:3: events: `reply` answers a call: it needs `on_call"),
        "{err}"
    );
}
