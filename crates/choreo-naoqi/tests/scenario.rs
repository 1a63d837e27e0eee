//! Scenarios: every trigger kind and action, and validation errors.

use crate::support;

use std::sync::Arc;

use choreo_engine::{NativeHost, Outcome, Robot, Value};
use choreo_naoqi::{Action, Model, Scenario, SimRobot};
use support::{assert_in_order, behavior, boxed, link, log, run_box, s, secs};

fn scenario(text: &str) -> Scenario {
    Scenario::from_str(text, "test.yaml").unwrap()
}

/// Records every update of `keys` with its behavior time.
fn watch(robot: &SimRobot, keys: &[&str]) -> Arc<std::sync::Mutex<Vec<(String, Value, f64)>>> {
    let seen = log();
    for (i, key) in keys.iter().enumerate() {
        let (seen, probe) = (seen.clone(), robot.clone());
        robot
            .subscribe(
                key,
                1000 + i as u64,
                Arc::new(move |k, v| {
                    seen.lock()
                        .unwrap()
                        .push((k.to_string(), v, probe.snapshot().time))
                }),
            )
            .unwrap();
    }
    seen
}

/// A scenario's `chance` is read as draw number → outcome, for the run to set.
#[test]
fn a_scenario_sets_draws_by_their_number() {
    let read =
        scenario("events: []\nchance:\n  - {draw: 3, outcome: 0}\n  - {draw: 1, outcome: 8}\n");
    assert_eq!(
        read.chance,
        std::collections::BTreeMap::from([(1, 8), (3, 0)])
    );
    assert!(scenario("events: []\n").chance.is_empty());
}

/// A scenario's `face` is the face of the person the robot sees: ALFaceCharacteristics
/// writes its properties as alfacecharacteristics-api.html gives them (gender "either 0 for
/// female or 1 for male"; expression scores in the order neutral, happy, surprised, angry,
/// sad, summing to 1; [value, confidence] pairs); without one, a woman at rest. A value
/// the page does not give is refused at its line.
#[test]
fn a_scenario_gives_the_person_seen_a_face() {
    let analyzed = |text: &str| {
        let robot = SimRobot::new(Model::Pepper).with_scenario(scenario(text));
        let call = |m: &str, args: Vec<Value>| robot.call("ALMemory", m, args);
        call(
            "insertData",
            vec![
                s("PeoplePerception/PeopleList"),
                Value::List(vec![Value::Int(4)]),
            ],
        )
        .unwrap();
        let analyze = robot.call(
            "ALFaceCharacteristics",
            "analyzeFaceCharacteristics",
            vec![Value::Int(4)],
        );
        assert_eq!(analyze, Ok(Value::Bool(true)));
        let get = |name: &str| {
            call(
                "getData",
                vec![s(&format!("PeoplePerception/Person/4/{name}"))],
            )
            .unwrap()
        };
        (
            get("GenderProperties"),
            get("ExpressionProperties"),
            get("SmileProperties"),
        )
    };
    let floats = |xs: &[f64]| Value::List(xs.iter().map(|x| Value::Float(*x)).collect());
    let (gender, expression, smile) = analyzed("events: []\n");
    assert_eq!(gender, floats(&[0.0, 0.9]));
    assert_eq!(expression, floats(&[1.0, 0.0, 0.0, 0.0, 0.0]));
    assert_eq!(smile, floats(&[0.0, 0.9]));
    let (gender, expression, smile) =
        analyzed("events: []\nface: {gender: male, expression: surprised}\n");
    assert_eq!(gender, floats(&[1.0, 0.9]));
    assert_eq!(expression, floats(&[0.0, 0.0, 1.0, 0.0, 0.0]));
    assert_eq!(smile, floats(&[0.0, 0.9]));
    let (_, expression, smile) = analyzed("events: []\nface: {expression: happy}\n");
    assert_eq!(expression, floats(&[0.0, 1.0, 0.0, 0.0, 0.0]));
    assert_eq!(smile, floats(&[0.8, 0.9]), "a happy face smiles");
    let refused = Scenario::from_str("events: []\nface:\n  gender: robot\n", "f.yaml")
        .unwrap_err()
        .to_string();
    assert!(refused.starts_with("f.yaml:3:"), "{refused}");
    assert!(
        refused.contains("female") && refused.contains("male"),
        "{refused}"
    );
}

#[test]
fn timed_entries_happen_at_their_time() {
    let robot = SimRobot::new(Model::Nao).with_scenario(scenario(
        "events:\n  - at: 1.5\n    touch: FrontTactilTouched\n  - at: 0.5\n    touch: {sensor: RearTactilTouched, hold: 1}\n",
    ));
    let seen = watch(&robot, &["FrontTactilTouched", "RearTactilTouched"]);
    let (outcome, _) = run_box(&robot, |ctx| {
        ctx.sleep(std::time::Duration::from_secs(3));
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let seen: Vec<(String, Value, f64)> = seen.lock().unwrap().clone();
    let expected = [
        ("RearTactilTouched", 1.0, 0.5),
        ("FrontTactilTouched", 1.0, 1.5),
        ("RearTactilTouched", 0.0, 1.5),
        ("FrontTactilTouched", 0.0, 1.7),
    ];
    assert_eq!(seen.len(), expected.len(), "{seen:?}");
    for ((key, value, at), (k, v, t)) in seen.iter().zip(expected) {
        assert_eq!((key.as_str(), value), (k, &Value::Float(v)));
        assert!((at - t).abs() < 1e-9, "{key} at {at}, expected {t}");
    }
}

#[test]
fn a_touch_reaches_a_memory_input() {
    // Box A has a memory input on FrontTactilTouched linked to B.onStart inside (P3); the
    // touch comes when the box Caller's say ends.
    let robot = SimRobot::new(Model::Nao).with_scenario(scenario(
        "events:\n  - on_call: ALTextToSpeech.say\n    touch: FrontTactilTouched\n",
    ));
    let memory = r#"<Input name="touched" type="0" type_size="1" nature="4" stm_value_name="FrontTactilTouched" inner="1" id="5"/>"#;
    let inner = format!("{}{}", boxed("B", 1, "", ""), link(0, 5, 1, 2));
    let xml = behavior(&format!(
        "{}{}{}{}",
        boxed("A", 1, memory, &inner),
        boxed("Caller", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2)
    ));
    let host = NativeHost::new().with("Caller", |hook, ctx| {
        if matches!(hook, choreo_engine::Hook::Input { name, .. } if name == "onStart") {
            ctx.call_robot("ALTextToSpeech", "say", vec![s("Touch my head.")])?;
        }
        Ok(())
    });
    let (outcome, trace) = support::run_xml(&robot, &xml, host);
    assert_eq!(outcome, Outcome::Idle, "{trace:#?}");
    assert_in_order(
        &trace,
        &[
            "root/Caller svc ALTextToSpeech.say(\"Touch my head.\")",
            "root/A in touched 1",
            "root/A/B in onStart 1",
            "root/A in touched 0",
        ],
    );
}

#[test]
fn on_call_entries_answer_a_question_after_it_is_said() {
    let robot = SimRobot::new(Model::Nao).with_scenario(scenario(
        r#"
description: the user answers yes
events:
  - on_call: ALTextToSpeech.say
    contains: "your name"
    delay: 0.5
    recognize: {word: "Pepper", confidence: 0.8}
  - on_call: ALTextToSpeech.say
    when: start
    raise_event: {key: Started, value: [1, "a"]}
  - on_call: ALMemory.insertData
    repeat: true
    insert_data: {key: Copied, value: 2.5}
"#,
    ));
    let seen = watch(&robot, &["WordRecognized", "Started"]);
    let copies = watch(&robot, &["Copied"]);
    let (outcome, _) = run_box(&robot, |ctx| {
        ctx.call_robot("ALTextToSpeech", "say", vec![s("Hello.")])?;
        ctx.call_robot("ALTextToSpeech", "say", vec![s("What is your name?")])?;
        let t = secs(ctx);
        ctx.sleep(std::time::Duration::from_secs(1));
        for _ in 0..2 {
            ctx.call_robot("ALMemory", "insertData", vec![s("X"), Value::Int(1)])?;
        }
        assert!(t > 0.0);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let seen = seen.lock().unwrap();
    // "Started" once, at the first say's start (not repeated); the word after the question.
    assert_eq!(seen[0].0, "Started");
    assert_eq!(seen[0].1, Value::List(vec![Value::Int(1), s("a")]));
    assert!(seen[0].2.abs() < 1e-9);
    let (key, value, at) = &seen[1];
    assert_eq!(key, "WordRecognized");
    assert_eq!(*value, Value::List(vec![s("Pepper"), Value::Float(0.8)]));
    let question_end = 0.4f64.max(6.0 * 0.065 + 0.3) + 18.0 * 0.065 + 0.3;
    assert!(
        (at - (question_end + 0.5)).abs() < 1e-6,
        "{at} vs {question_end}"
    );
    assert_eq!(seen.len(), 2);
    assert_eq!(
        copies.lock().unwrap().len(),
        2,
        "repeat: every matching call"
    );
}

#[test]
fn recognize_also_feeds_a_running_dialog() {
    let robot = SimRobot::new(Model::Pepper);
    let seen = watch(&robot, &["Dialog/LastInput"]);
    robot.inject(&Action::Recognize {
        word: "hello".into(),
        confidence: 0.6,
    });
    assert!(seen.lock().unwrap().is_empty());
    robot.call("ALDialog", "subscribe", vec![s("me")]).unwrap();
    robot.inject(&Action::Recognize {
        word: "hello".into(),
        confidence: 0.6,
    });
    assert_eq!(seen.lock().unwrap()[0].1, s("hello"));
    assert_eq!(
        robot.call("ALMemory", "getData", vec![s("WordRecognized")]),
        Ok(Value::List(vec![s("hello"), Value::Float(0.6)]))
    );
}

/// ALSpeechRecognition's page: `SpeechDetected` is raised with "True if a voice activity
/// is detected" — while recognition runs (someone subscribed), before what it heard.
#[test]
fn a_voice_is_detected_before_its_word_while_recognition_runs() {
    let robot = SimRobot::new(Model::Nao);
    let seen = watch(&robot, &["SpeechDetected", "WordRecognized"]);
    let hear = |robot: &SimRobot| {
        robot.inject(&Action::Recognize {
            word: "yes".into(),
            confidence: 0.9,
        })
    };
    hear(&robot);
    let keys = || -> Vec<String> { seen.lock().unwrap().iter().map(|e| e.0.clone()).collect() };
    assert_eq!(keys(), ["WordRecognized"], "not running: no voice detected");
    robot
        .call("ALSpeechRecognition", "subscribe", vec![s("Reco")])
        .unwrap();
    hear(&robot);
    assert_eq!(
        keys(),
        ["WordRecognized", "SpeechDetected", "WordRecognized"]
    );
    assert_eq!(seen.lock().unwrap()[1].1, Value::Bool(true));
}

#[test]
fn json_scenarios_and_insert_data_at_a_time() {
    let text = r#"{"events": [{"at": 0.25, "insert_data": {"key": "Battery", "value": 0.5}}]}"#;
    let robot =
        SimRobot::new(Model::Nao).with_scenario(Scenario::from_str(text, "w.json").unwrap());
    let (outcome, _) = run_box(&robot, |ctx| {
        ctx.sleep(std::time::Duration::from_secs(1));
        let v = ctx.call_robot("ALMemory", "getData", vec![s("Battery")])?;
        if v != Value::Float(0.5) {
            return Err(format!("got {v}").into());
        }
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(robot.stats().failed.len(), 0);
}

#[test]
fn scenario_files_load_from_disk() {
    let path = std::env::temp_dir().join(format!("choreo-scenario-{}.yaml", std::process::id()));
    std::fs::write(
        &path,
        "events:\n  - at: 2\n    raise_event: {key: FaceDetected, value: []}\n",
    )
    .unwrap();
    let sc = Scenario::from_path(&path).unwrap();
    assert_eq!(sc.entries.len(), 1);
    std::fs::remove_file(&path).unwrap();
    let err = Scenario::from_path(&path).unwrap_err().to_string();
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn validation_errors_name_the_file_line_and_problem() {
    let cases = [
        (
            "events:\n  - at: 1\n    on_call: ALTextToSpeech.say\n    touch: FrontTactilTouched\n",
            "both `at` and `on_call`",
        ),
        (
            "events:\n  - touch: FrontTactilTouched\n",
            "needs `at: <seconds>` or `on_call",
        ),
        ("events:\n  - at: 1\n", "needs an action"),
        (
            "events:\n  - at: 1\n    touch: Nose\n",
            "unknown sensor \"Nose\"",
        ),
        (
            "events:\n  - at: -1\n    touch: FrontTactilTouched\n",
            "`at` must be a number of seconds",
        ),
        (
            "events:\n  - on_call: say\n    touch: FrontTactilTouched\n",
            "\"Module.method\"",
        ),
        (
            "events:\n  - at: 1\n    contains: x\n    touch: FrontTactilTouched\n",
            "`contains` only applies",
        ),
        (
            "events:\n  - at: 1\n    touch: FrontTactilTouched\n    recognize: {word: yes}\n",
            "several actions",
        ),
        (
            "events:\n  - at: 1\n    recognize: {word: yes, confidence: 3}\n",
            "confidence",
        ),
        (
            "events:\n  - at: 1\n    tuch: FrontTactilTouched\n",
            "unknown field `tuch`",
        ),
        ("evnts: []\n", "unknown field `evnts`"),
        (
            "events: []\nchance:\n  - {draw: 0, outcome: 1}\n",
            "numbered from 1",
        ),
        (
            "events: []\nchance:\n  - {draw: 2, outcome: 1}\n  - {draw: 2, outcome: 3}\n",
            "draw 2 is set twice",
        ),
    ];
    for (text, expected) in cases {
        let err = Scenario::from_str(text, "world.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("world.yaml:"), "{err}");
        assert!(err.contains(expected), "expected {expected:?} in: {err}");
        // The file as a whole is at fault in these.
        if !["unknown field `evnts`", "draw 2 is set twice"].contains(&expected) {
            // The line of the offending entry (2) or inside it.
            let line: usize = err.split(':').nth(1).unwrap().parse().unwrap_or(0);
            assert!(line >= 2, "no line in {err}");
        }
    }
    let err = Scenario::from_str("{\"events\": [{\"at\": 1}]}", "w.json")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("w.json:1:"), "{err}");
    assert!(err.contains("needs an action"), "{err}");
}

#[test]
fn a_touch_by_hand_releases_by_itself() {
    let robot = SimRobot::new(Model::Nao);
    let seen = watch(&robot, &["MiddleTactilTouched"]);
    let probe = robot.clone();
    let (outcome, _) = run_box(&robot, move |ctx| {
        probe.inject(&Action::Touch {
            sensor: "MiddleTactilTouched".into(),
            hold: 0.5,
        });
        ctx.sleep(std::time::Duration::from_secs(1));
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.iter().map(|e| e.1.clone()).collect::<Vec<_>>(),
        vec![Value::Float(1.0), Value::Float(0.0)]
    );
    assert!((seen[1].2 - 0.5).abs() < 1e-9);
}

/// One action performed now (a page's Talk tab): the scenario's own fields, checked as a
/// file's are; a trigger or a reply has no place there.
#[test]
fn an_action_given_alone_is_read_as_a_scenario_entry_s() {
    use choreo_naoqi::scenario::action_now;
    let heard = action_now(&serde_json::json!({"recognize": {"word": "hello"}})).unwrap();
    assert!(
        matches!(&heard, Action::Recognize { word, confidence } if word == "hello" && *confidence == 1.0),
        "{heard:?}"
    );
    let touch = action_now(&serde_json::json!({"touch": "FrontTactilTouched"})).unwrap();
    assert!(matches!(&touch, Action::Touch { sensor, .. } if sensor == "FrontTactilTouched"));
    for bad in [
        serde_json::json!({"touch": "Nose"}),
        serde_json::json!({"recognize": {"word": " "}}),
        serde_json::json!({"at": 1.0, "touch": "FrontTactilTouched"}),
        serde_json::json!({"reply": 3}),
        serde_json::json!({"sing": "la"}),
        serde_json::json!({}),
    ] {
        assert!(action_now(&bad).is_err(), "{bad}");
    }
    // A world event by its key, raised with its documented value (the Talk tab's face).
    let face = choreo_naoqi::scenario::world_action(&serde_json::json!({"event": "FaceDetected"}))
        .unwrap();
    assert!(
        matches!(&face, Action::RaiseEvent { key, value: Value::List(v) } if key == "FaceDetected" && !v.is_empty()),
        "{face:?}"
    );
    assert!(
        choreo_naoqi::scenario::world_action(&serde_json::json!({"event": "Sneezed"})).is_err()
    );
}
