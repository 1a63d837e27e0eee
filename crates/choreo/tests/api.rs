//! The Rust API (`choreo::Project`, `Setup`, `Run`) as a program drives it: runs to their
//! end, the world answered from code, parameters, timelines, the simulated robot's state,
//! the trace as an iterator, and every kind of mistake a caller can make, as typed errors.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo::{Clock, Ending, Error, Outcome, Project, Setup, Step, Value};
use choreo_engine::EngineError;

/// Long enough for any of these runs in virtual time on a loaded machine.
const WAIT: Duration = Duration::from_secs(60);

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn fast(path: &Path) -> choreo::Run {
    Setup::open(path)
        .unwrap()
        .clock(Clock::Virtual)
        .load()
        .unwrap()
}

#[test]
fn a_behavior_runs_to_its_end_and_the_robot_did_what_it_says() {
    let run = fast(&example("hello"));
    run.start().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);
    assert_eq!(run.said().unwrap(), ["Hello! I am running in choreo."]);
    let state = run.robot_state().unwrap();
    assert!(state.awake);
    // The nod ends where it began: the head looks ahead again.
    let joints = run.joints().unwrap();
    assert!(joints["HeadPitch"].abs() < 0.05, "{joints:?}");
    assert_eq!(joints.len(), 26, "NAO's joints");
    assert!(run.now() > Duration::from_secs(2), "{:?}", run.now());
    assert_eq!(run.behavior_name(), "hello");
}

#[test]
fn the_world_is_answered_from_code_an_event_raised_or_an_input_stimulated() {
    // An ALMemory event raised, as the head sensor would.
    let run = fast(&example("interactive"));
    run.start().unwrap();
    assert_eq!(run.wait(WAIT).unwrap(), Outcome::Idle);
    assert_eq!(run.awaited(), ["FrontTactilTouched"]);
    run.raise_event("FrontTactilTouched", 1.0).unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);
    assert_eq!(
        run.said().unwrap(),
        ["Touch my head, please.", "Hello! You touched my head."]
    );
    assert_eq!(
        run.memory("FrontTactilTouched").unwrap(),
        Value::Float(1.0),
        "the key keeps the value raised"
    );

    // The same from a scenario file.
    let run = Setup::open(example("interactive"))
        .unwrap()
        .clock(Clock::Virtual)
        .scenario_file(example("interactive/touch.yaml"))
        .load()
        .unwrap();
    run.start().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);

    // Nobody answers: the run is stopped idle, and says what it waited for.
    let run = fast(&example("interactive"));
    run.start().unwrap();
    assert_eq!(
        run.wait_end(WAIT).unwrap(),
        Ending::Idle {
            awaiting: vec!["FrontTactilTouched".to_string()]
        }
    );
}

#[test]
fn outputs_are_observed_and_events_iterate_to_the_end() {
    let run = fast(&example("hello"));
    let fired = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&fired);
    run.on_output("root/Say Hello", "onStopped", move |v| {
        seen.lock().unwrap().push(v.clone())
    })
    .unwrap();
    let events = run.events();
    run.start().unwrap();
    // The iterator ends by itself once the run is over and every event is given.
    let all: Vec<choreo::Event> = events.collect();
    assert_eq!(*fired.lock().unwrap(), [Value::None]);
    let said: Vec<&str> = all
        .iter()
        .filter_map(|e| match &e.step {
            Step::Said { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["Hello! I am running in choreo."]);
    let seqs: Vec<u64> = all.iter().map(|e| e.seq).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "in order, none lost"
    );
    assert!(
        all.iter()
            .any(|e| matches!(&e.step, Step::Behavior { what } if what == "end"))
    );
}

#[test]
fn parameters_are_read_and_set_typed_or_from_text() {
    let run = Setup::open(example("hello"))
        .unwrap()
        .clock(Clock::Virtual)
        .param("Say Hello", "Text", "Set before the start.")
        .load()
        .unwrap();
    assert_eq!(
        run.parameter("Say Hello", "Text").unwrap(),
        Value::from("Set before the start.")
    );
    run.set_parameter_text("root/Say Hello", "Text", "From a text.")
        .unwrap();
    assert_eq!(
        run.parameter("root/Say Hello", "Text").unwrap(),
        Value::from("From a text.")
    );
    run.set_parameter("Say Hello", "Text", "Typed.").unwrap();
    run.start().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);
    assert_eq!(run.said().unwrap(), ["Typed."]);
}

#[test]
fn a_timeline_is_paused_moved_and_played_from_code() {
    let run = fast(&fixture("nod.xar"));
    let events = run.events();
    run.start().unwrap();
    let timeline = run.timeline("Nod").unwrap();
    timeline.pause().unwrap();
    // Paused, nothing moves: virtual time has nothing left to do.
    assert_eq!(run.wait(WAIT).unwrap(), Outcome::Idle);
    timeline.go_to_frame(9).unwrap();
    timeline.play().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);
    let frames: Vec<i64> = events
        .filter(|e| e.path == "root/Nod")
        .filter_map(|e| match e.step {
            Step::Frame { frame } => Some(frame),
            _ => None,
        })
        .collect();
    // Paused at its first frame, moved to 9, played on from there to its last key (11):
    // frames 2 to 9 never played.
    assert_eq!(frames, [1, 10, 11]);
}

#[test]
fn strict_mode_and_the_time_limit_end_a_run_so() {
    let run = Setup::open(fixture("raises_at_5_3.xar"))
        .unwrap()
        .clock(Clock::Virtual)
        .strict(true)
        .load()
        .unwrap();
    run.start().unwrap();
    match run.wait_end(WAIT).unwrap() {
        Ending::Failed { path, message, .. } => {
            assert_eq!(path, "root/Sound");
            assert!(message.contains("line 6"), "{message}");
        }
        other => panic!("{other:?}"),
    }

    let run = Setup::open(fixture("loop.xar"))
        .unwrap()
        .clock(Clock::Virtual)
        .time_limit(Duration::from_secs(1))
        .load()
        .unwrap();
    run.start().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::TimeLimit);
}

#[test]
fn mistakes_are_typed_errors_that_name_what_is_wrong() {
    let missing = example("no such behavior");
    assert!(matches!(Setup::open(&missing), Err(Error::NotFound { path }) if path == missing));

    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.xar");
    std::fs::write(&garbage, "<ChoregrapheProject><Box").unwrap();
    let e = Setup::open(&garbage).err().unwrap();
    assert!(matches!(e, Error::Unreadable { .. }), "{e:?}");
    assert!(e.to_string().contains("garbage.xar:1:"), "{e}");

    let project = Project::open(example("hello")).unwrap();
    assert_eq!(project.behaviors(), ["hello"]);
    let e = project.behavior(Some("dance")).err().unwrap();
    assert!(
        e.to_string()
            .ends_with("no behavior \"dance\" (it has: hello)"),
        "{e}"
    );

    let e = project.behavior(None).unwrap().language("Klingon").load();
    assert!(matches!(e, Err(Error::NoLanguage { .. })));

    let run = fast(&example("hello"));
    let engine = |r: choreo::Result<()>| match r {
        Err(Error::Engine(e)) => e,
        other => panic!("{other:?}"),
    };
    assert!(matches!(
        engine(run.stimulate("Say Goodbye", "onStart", ())),
        EngineError::NoBox { path } if path == "root/Say Goodbye"
    ));
    assert!(matches!(
        engine(run.stimulate("Say Hello", "onGo", ())),
        EngineError::NoInput { input, .. } if input == "onGo"
    ));
    assert!(matches!(
        engine(run.on_output("Say Hello", "onDone", |_| ()).map(|_| ())),
        EngineError::NoOutput { .. }
    ));
    assert!(matches!(
        engine(run.parameter("Say Hello", "Volume").map(|_| ())),
        EngineError::NoParameter { .. }
    ));
    assert!(matches!(
        engine(run.timeline("Say Hello").map(|_| ())),
        EngineError::NoTimeline { .. }
    ));
    run.close();
    assert!(matches!(run.start(), Err(Error::Closed)));
    assert!(matches!(
        run.stimulate("Say Hello", "onStart", ()),
        Err(Error::Closed)
    ));
}

#[test]
fn a_box_that_cannot_be_constructed_fails_the_load_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let xar = std::fs::read_to_string(example("hello/behavior.xar")).unwrap();
    let broken = xar.replacen(
        "<![CDATA[class MyClass(GeneratedClass):",
        "<![CDATA[raise ValueError(\"no robot today\")\nclass MyClass(GeneratedClass):",
        1,
    );
    assert_ne!(broken, xar);
    let file = dir.path().join("behavior.xar");
    std::fs::write(&file, broken).unwrap();
    match Setup::open(&file).unwrap().load() {
        Err(Error::Load { path, source }) => {
            assert_eq!(path, file);
            let text = source.to_string();
            assert!(text.starts_with("root/Wake Up: cannot construct"), "{text}");
            assert!(text.contains("ValueError: no robot today"), "{text}");
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn a_real_robot_that_cannot_be_reached_is_an_error_naming_its_url() {
    // Nothing listens on port 1.
    let e = Setup::open(example("hello"))
        .unwrap()
        .robot_url("tcp://127.0.0.1:1")
        .load()
        .err()
        .unwrap();
    assert!(
        matches!(&e, Error::Robot { url, .. } if url == "tcp://127.0.0.1:1"),
        "{e:?}"
    );
    // What only the simulated robot has is refused for a real one.
    let e = Setup::open(example("hello"))
        .unwrap()
        .clock(Clock::Virtual)
        .robot_url("tcp://127.0.0.1:1")
        .load()
        .err()
        .unwrap();
    assert!(
        matches!(
            e,
            Error::NotSimulated {
                what: "virtual time"
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_dropped_run_frees_its_engine() {
    let run = fast(&example("hello"));
    run.start().unwrap();
    assert_eq!(run.wait_end(WAIT).unwrap(), Ending::Finished);
    let engine = Arc::downgrade(run.engine());
    let robot = run.simulated_robot().unwrap().clone();
    drop(run);
    assert!(engine.upgrade().is_none(), "the engine outlived its run");
    // The robot a caller kept still works, and no longer feeds the dropped run.
    robot.raise_event("FrontTactilTouched", Value::Float(1.0));
}
