//! Stock boxes of Choregraphe 2.1's library (in the shared corpus) load and run on the
//! simulated NAO with their Python scripts, in virtual time, and do what they are for:
//! checked on the trace (outputs, their values and times, robot calls) and on the robot's
//! state (what it said, its posture, position, LEDs, memory, sounds).

use crate::support;

use std::path::PathBuf;

use choreo_engine::{Outcome, Robot, Value};
use choreo_testkit::library;
use support::{Run, assert_secs};

/// The stock box at `rel` (inside the library), or None after a NOTICE.
fn stock(rel: &str) -> Option<PathBuf> {
    let file = library(&format!("stock box test of {rel}"))?.join(rel);
    assert!(
        file.is_file(),
        "{} is missing from the library",
        file.display()
    );
    Some(file)
}

/// The text a stock `Localized Text` box (inside `file`) gives for English: what the
/// Say-like boxes are configured to say.
fn english_sentence(file: &std::path::Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find("\"English\" : \"")
        .expect("a Localized Text box with an English sentence");
    let rest = &text[at + "\"English\" : \"".len()..];
    rest[..rest.find('"').unwrap()].trim().to_string()
}

/// `^start(...)`-style tags and `\RSPD=..\` control sequences removed: what is heard.
fn heard(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(['^', '\\']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = if tail.starts_with('^') {
            tail.find(')').map_or(tail.len(), |j| j + 1)
        } else {
            tail[1..].find('\\').map_or(tail.len(), |j| j + 2)
        };
        rest = &tail[end..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of a string value.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => panic!("not a string: {other:?}"),
    }
}

fn ok(run: &Run) {
    let errors = run.errors();
    assert!(errors.is_empty(), "errors in box code: {errors:#?}");
    let unsupported = run.robot.stats().unsupported;
    assert!(unsupported.is_empty(), "unsupported calls: {unsupported:?}");
}

#[test]
fn say_says_the_sentence_of_its_localized_text_and_stops_when_done() {
    let Some(file) = stock("standard/Audio/Voice/Say/behavior.xar") else {
        return;
    };
    let sentence = english_sentence(&file);
    assert!(!sentence.is_empty());
    let run = Run::file(&file, None, 60.0);
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let says = run.calls("ALTextToSpeech.say");
    assert_eq!(says.len(), 1, "{}", run.dump());
    let said = text(&says[0].1[0]);
    assert_eq!(heard(&said), heard(&sentence));
    // Speed and voice shaping parameters go into the text as tags.
    assert!(
        said.contains("RSPD=100") && said.contains("VCT=100"),
        "{said}"
    );
    let snap = run.robot.snapshot();
    assert_eq!(snap.spoken.len(), 1);
    assert_eq!(heard(&snap.spoken[0]), heard(&sentence));
    // The box stops when the speech ends, not before: say blocks for the speech's duration.
    let stopped = run.outputs("root", "onStopped");
    assert_eq!(stopped.len(), 1);
    assert!(stopped[0].0 > 0.1, "stopped at {} s", stopped[0].0);
    assert!(snap.speaking.is_none());
}

#[test]
fn say_text_says_the_text_it_receives_at_the_speed_it_is_given() {
    let Some(file) = stock("advanced/Audio/Voice/Say Text/box.xar") else {
        return;
    };
    let run = Run::nested(&file, None, 60.0);
    // The parameters are inherited from the parent in the library; its parent here has none.
    run.param("root/Box", "Speed (%)", "150");
    run.param("root/Box", "Voice shaping (%)", "120");
    assert_eq!(run.start(), Outcome::Idle);
    let short = "Hi.";
    let long = "The quick brown fox jumps over the lazy dog, twice, and then once more.";
    for t in [short, long] {
        let out = run.stimulate("root/Box", "onStart", Value::from(t));
        assert_eq!(out, Outcome::Idle, "{}", run.dump());
    }
    ok(&run);
    let says = run.calls("ALTextToSpeech.say");
    assert_eq!(says.len(), 2, "{}", run.dump());
    for ((_, args), t) in says.iter().zip([short, long]) {
        let said = text(&args[0]);
        assert!(
            said.contains("RSPD=150") && said.contains("VCT=120"),
            "{said}"
        );
        assert_eq!(heard(&said), t);
    }
    assert_eq!(
        run.robot
            .snapshot()
            .spoken
            .iter()
            .map(|s| heard(s))
            .collect::<Vec<_>>(),
        [short, long]
    );
    // A longer text takes longer to say: the second stop comes later after its start.
    let stops = run.outputs("root/Box", "onStopped");
    assert_eq!(stops.len(), 2);
    let first = stops[0].0 - says[0].0;
    let second = stops[1].0 - says[1].0;
    assert!(first > 0.0 && second > 3.0 * first, "{first} s, {second} s");
}

#[test]
fn animated_say_says_its_sentence_with_body_language() {
    let Some(file) = stock("standard/Audio/Voice/Animated Say/behavior.xar") else {
        return;
    };
    let sentence = english_sentence(&file);
    let run = Run::file(&file, None, 60.0);
    run.param("root", "Body language mode", "random");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let says = run.calls("ALAnimatedSpeech.say");
    assert_eq!(says.len(), 1, "{}", run.dump());
    let (_, args) = &says[0];
    assert_eq!(heard(&text(&args[0])), heard(&sentence));
    assert!(
        args[1].to_string().contains("random"),
        "the body language mode is passed: {args:?}"
    );
    let snap = run.robot.snapshot();
    assert_eq!(
        snap.spoken.iter().map(|s| heard(s)).collect::<Vec<_>>(),
        [heard(&sentence)]
    );
    assert!(run.outputs("root", "onStopped")[0].0 > 0.1);
}

#[test]
fn wait_fires_after_its_timeout_in_virtual_time() {
    let Some(file) = stock("standard/Flow Control/Time/Wait/box.xar") else {
        return;
    };
    for timeout in [2.5, 17.0] {
        let run = Run::file(&file, None, 60.0);
        run.param("root", "Timeout (s)", &timeout.to_string());
        let real = std::time::Instant::now();
        assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
        ok(&run);
        let fired = run.outputs("root", "timerOutput");
        assert_eq!(fired.len(), 1, "{}", run.dump());
        assert_secs(fired[0].0, timeout, "timerOutput");
        assert!(
            real.elapsed().as_secs_f64() < timeout / 2.0,
            "virtual time: no real wait"
        );
    }
}

#[test]
fn timer_fires_repeatedly_with_its_period_until_stopped() {
    let Some(file) = stock("standard/Flow Control/Time/Timer/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 3.2);
    run.param("root", "Period (s)", "0.25");
    assert_eq!(run.start(), Outcome::TimeLimit, "{}", run.dump());
    ok(&run);
    let ticks: Vec<f64> = run
        .outputs("root", "timerOutput")
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    // qi.PeriodicTask.start(True): at once, then every period.
    assert!(ticks.len() >= 13, "{ticks:?}");
    for (i, t) in ticks.iter().enumerate().take(13) {
        assert_secs(*t, 0.25 * i as f64, "tick");
    }
    // Its onStop input stops it: onStopped, and no tick after.
    assert_eq!(
        run.stimulate("root", "onStop", Value::None),
        Outcome::Finished,
        "{}",
        run.dump()
    );
    let stopped = run.outputs("root", "onStopped");
    assert_eq!(stopped.len(), 1);
    let last = run.outputs("root", "timerOutput").last().unwrap().0;
    assert!(last <= stopped[0].0, "a tick at {last} s after the stop");
}

#[test]
fn set_leds_fades_the_group_to_its_intensity() {
    let Some(file) = stock("standard/LEDs/Fade/Set LEDs/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.param("root", "LEDs group", "FaceLeds");
    run.param("root", "Intensity (%)", "25");
    run.param("root", "Duration (s)", "2");
    let before = run.robot.snapshot();
    let face = |s: &choreo_naoqi::Snapshot| {
        let eye = |name: &str| {
            s.leds
                .iter()
                .find(|(g, _)| g == name)
                .map(|(_, c)| *c)
                .unwrap_or_else(|| panic!("no {name} in {:?}", s.leds))
        };
        let (l, r) = (eye("LeftFaceLeds"), eye("RightFaceLeds"));
        assert_eq!(l, r, "both eyes");
        l
    };
    assert_eq!(face(&before), [1.0, 1.0, 1.0], "eyes start white");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    assert_eq!(run.calls("ALLeds.fade").len(), 1);
    // fade blocks for its duration; the box is ready after it, with the colour reached.
    assert_secs(run.outputs("root", "onReady")[0].0, 2.0, "onReady");
    let after = face(&run.robot.snapshot());
    for c in after {
        assert!((c - 0.25).abs() < 1e-6, "{after:?}");
    }
}

#[test]
fn eye_leds_set_the_eyes_to_the_colour_of_its_colour_edit() {
    let Some(file) = stock("standard/LEDs/Fade/Eye LEDs/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.param("root", "Side", "Left");
    run.param("root", "Duration (s)", "0.5");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    // The Color Edit box gives [0, 81, 255]; Eyes LEDs packs it as 0xRRGGBB for fadeRGB.
    let colour = run.outputs("root/Color Edit", "onStopped");
    let Value::List(rgb) = &colour[0].1 else {
        panic!("{colour:?}")
    };
    let rgb: Vec<f64> = rgb
        .iter()
        .map(|v| match v {
            Value::Int(i) => *i as f64 / 255.0,
            other => panic!("{other:?}"),
        })
        .collect();
    let calls = run.calls("ALLeds.fadeRGB");
    assert_eq!(calls.len(), 1, "{}", run.dump());
    assert_eq!(calls[0].1[0], Value::from("LeftFaceLeds"));
    assert_secs(run.outputs("root", "onDone")[0].0, 0.5, "onDone");
    let snap = run.robot.snapshot();
    let group = |name: &str| {
        snap.leds
            .iter()
            .find(|(g, _)| g == name)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| panic!("no group {name} in {:?}", snap.leds))
    };
    let left = group("LeftFaceLeds");
    for (got, want) in left.iter().zip(&rgb) {
        assert!(
            (got - want).abs() < 0.01,
            "left eye {left:?}, expected {rgb:?}"
        );
    }
    assert_eq!(
        group("RightFaceLeds"),
        [1.0, 1.0, 1.0],
        "the right eye is untouched"
    );
}

#[test]
fn single_eye_led_fades_the_led_at_its_angle_named_with_python_2_division() {
    let Some(file) = stock("standard/LEDs/Fade/Single Eye LED/box.xar") else {
        return;
    };
    // The LED is "FaceLed" + side + str((45 - angle) % 360 / 45): an int in Python 2 (in
    // Python 3 `FaceLedLeft7.0`, no such LED).
    for (side, angle, led) in [
        ("Left", "0", "FaceLedLeft1"),
        ("Left", "90", "FaceLedLeft7"),
        ("Right", "315", "FaceLedRight2"),
    ] {
        let run = Run::file(&file, None, 60.0);
        run.param("root", "Side", side);
        run.param("root", "Angle (degrees)", angle);
        assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
        ok(&run);
        let calls = run.calls("ALLeds.fadeRGB");
        assert_eq!(calls.len(), 1, "{}", run.dump());
        assert_eq!(calls[0].1[0], Value::from(led), "{side} {angle}");
        assert_eq!(run.outputs("root", "onDone").len(), 1, "{}", run.dump());
    }
}

fn posture_box(rel: &str, posture: &str) {
    let Some(file) = stock(rel) else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    assert_ne!(run.robot.snapshot().posture, posture);
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let calls = run.calls("ALRobotPosture.goToPosture");
    assert_eq!(calls.len(), 1, "{}", run.dump());
    assert_eq!(calls[0].1[0], Value::from(posture));
    let success = run.outputs("root", "success");
    assert_eq!(success.len(), 1, "{}", run.dump());
    assert!(success[0].0 > 0.5, "a posture change takes time");
    assert_eq!(run.robot.snapshot().posture, posture);
}

#[test]
fn stand_up_reaches_the_stand_posture() {
    posture_box("standard/Motions/Stand Up/behavior.xar", "Stand");
}

#[test]
fn sit_down_reaches_the_sit_posture() {
    posture_box("standard/Motions/Sit Down/behavior.xar", "Sit");
}

/// Runs a box of Choregraphe 1.x's posture boxes (the 2.1 library's deprecated ones) from
/// each `(posture, pose, motion)`: laid or set there (a scenario's `posture`), ALRobotPose
/// reads `pose` first, the box plays its timeline `motion` for that pose, and it ends in
/// `reached` ("success" with it), without a fall on the way: what the box is for, on a robot.
fn old_posture_box(rel: &str, cases: &[(&str, &str, &str)], reached: &str) {
    let Some(file) = stock(rel) else {
        return;
    };
    for &(posture, pose, motion) in cases {
        let scenario = format!("events: []\nposture: {posture}\n");
        let run = Run::file(&file, Some(&scenario), 60.0);
        assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
        ok(&run);
        let events: Vec<String> = run.events().iter().map(|e| e.short()).collect();
        let played = events
            .iter()
            .any(|l| l.contains(&format!("{motion} motion send")));
        assert!(played, "{posture}: {motion} not played\n{}", run.dump());
        let fell: Vec<&String> = events.iter().filter(|l| l.contains(" fell ")).collect();
        assert!(fell.is_empty(), "{posture}: {fell:?}");
        let success = run.outputs("root", "success");
        assert_eq!(success.len(), 1, "{posture}: {}", run.dump());
        assert_eq!(success[0].1, Value::from(reached), "{posture}");
        let read: Vec<Value> = run
            .events()
            .iter()
            .filter_map(|e| match &e.step {
                choreo_engine::trace::Step::RobotReturn {
                    method,
                    value: Some(Value::List(v)),
                    ..
                } if method == "ALRobotPose.getActualPoseAndTime" => v.first().cloned(),
                _ => None,
            })
            .collect();
        assert_eq!(read.first(), Some(&Value::from(pose)), "{posture}");
    }
}

/// The old Stand Up gets a robot up from its back, its belly and sitting (from sitting, its
/// SitToCrouch ends in a squat ALRobotPose must call "Crouch" for its CrouchToStand to
/// follow).
#[test]
fn the_old_stand_up_gets_a_robot_up_from_its_back_its_belly_and_sitting() {
    old_posture_box(
        "deprecated/Motions/Stand Up/behavior.xar",
        &[
            ("LyingBack", "Back", "BackToStand"),
            ("LyingBelly", "Belly", "BellyToStand"),
            ("Sit", "Sit", "SitToCrouch"),
        ],
        "Stand",
    );
}

/// The old Sit Down sits a robot down from its back (BackToSitDown: sat up, it no longer
/// lies, though its joints are in no posture of the library), from its belly (BellyToCrouch
/// at rest in a crouch, then CrouchToSitDown: sitting, it no longer lies on its belly) and
/// from a crouch.
#[test]
fn the_old_sit_down_sits_a_robot_down_from_its_back_its_belly_and_a_crouch() {
    old_posture_box(
        "deprecated/Motions/Sit Down/behavior.xar",
        &[
            ("LyingBack", "Back", "BackToSitDown"),
            ("LyingBelly", "Belly", "BellyToCrouch"),
            ("Crouch", "Crouch", "CrouchToSitDown"),
        ],
        "Sit",
    );
}

#[test]
fn goto_posture_reaches_the_posture_it_names() {
    let Some(file) = stock("advanced/Motions/Goto Posture/box.xar") else {
        return;
    };
    for posture in ["Sit", "Crouch", "LyingBack"] {
        let run = Run::file(&file, None, 60.0);
        run.param("root", "Name", posture);
        run.param("root", "Speed (%)", "50");
        assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
        ok(&run);
        let calls = run.calls("ALRobotPosture.goToPosture");
        assert_eq!(calls[0].1, [Value::from(posture), Value::Float(0.5)]);
        assert_eq!(run.outputs("root", "success").len(), 1, "{}", run.dump());
        assert!(run.outputs("root", "success")[0].0 > 0.5);
        assert_eq!(run.robot.snapshot().posture, posture);
    }
}

#[test]
fn move_to_moves_the_robot_by_its_parameters() {
    let Some(file) = stock("standard/Motions/Move To/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.param("root", "Distance X (m)", "0.6");
    run.param("root", "Distance Y (m)", "-0.2");
    run.param("root", "Theta (deg)", "90");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let arrived = run.outputs("root", "onArrivedAtDestination");
    assert_eq!(arrived.len(), 1, "{}", run.dump());
    // 0.6 m at NAO's walking speed takes seconds.
    assert!(arrived[0].0 > 2.0, "arrived at {} s", arrived[0].0);
    let [x, y, theta] = run.robot.snapshot().position;
    assert!((x - 0.6).abs() < 0.01, "x {x}");
    assert!((y + 0.2).abs() < 0.01, "y {y}");
    assert!(
        (theta - std::f64::consts::FRAC_PI_2).abs() < 0.03,
        "θ {theta}"
    );
    assert!(run.outputs("root", "onStoppedBeforeArriving").is_empty());
}

#[test]
fn tactile_head_fires_the_output_of_the_sensor_a_scenario_touches() {
    let Some(file) = stock("standard/Sensing/Tactile Head/box.xar") else {
        return;
    };
    let scenario = "events:\n  - at: 1.5\n    touch: FrontTactilTouched\n  - at: 4\n    touch: {sensor: RearTactilTouched, hold: 1}\n";
    let run = Run::file(&file, Some(scenario), 60.0);
    assert_eq!(run.start(), Outcome::Idle, "{}", run.dump());
    ok(&run);
    let front = run.outputs("root", "frontTouched");
    let rear = run.outputs("root", "rearTouched");
    assert_eq!(front.len(), 1, "{}", run.dump());
    assert_eq!(rear.len(), 1, "{}", run.dump());
    assert_secs(front[0].0, 1.5, "frontTouched");
    assert_secs(rear[0].0, 4.0, "rearTouched (the press, not the release)");
    assert!(run.outputs("root", "middleTouched").is_empty());
    // Its onStop stops it.
    assert_eq!(
        run.stimulate("root", "onStop", Value::None),
        Outcome::Finished
    );
}

#[test]
fn speech_reco_fires_word_recognized_with_the_word_a_scenario_recognizes() {
    let Some(file) = stock("standard/Audio/Voice/Speech Reco%2e/box.xar") else {
        return;
    };
    let scenario = "events:
  - on_call: ALSpeechRecognition.setVocabulary
    delay: 2
    recognize: {word: apple, confidence: 0.7}
  - on_call: ALSpeechRecognition.setVocabulary
    delay: 3
    recognize: {word: pear, confidence: 0.1}
";
    let run = Run::file(&file, Some(scenario), 60.0);
    run.param("root", "Word list", "apple;pear;plum");
    assert_eq!(run.start(), Outcome::Idle, "{}", run.dump());
    ok(&run);
    let vocabulary = run.calls("ALSpeechRecognition.setVocabulary");
    assert_eq!(vocabulary.len(), 1, "{}", run.dump());
    assert_eq!(
        vocabulary[0].1[0],
        Value::List(vec!["apple".into(), "pear".into(), "plum".into()])
    );
    let words = run.outputs("root", "wordRecognized");
    assert_eq!(words.len(), 1, "{}", run.dump());
    assert_eq!(words[0].1, Value::from("apple"));
    assert_secs(words[0].0, 2.0, "wordRecognized");
    // Under the confidence threshold (30 %): onNothing.
    let nothing = run.outputs("root", "onNothing");
    assert_eq!(nothing.len(), 1, "{}", run.dump());
    assert_secs(nothing[0].0, 3.0, "onNothing");
    assert_eq!(
        run.stimulate("root", "onStop", Value::None),
        Outcome::Finished
    );
    // The recognition context pushed at the start is popped at the stop.
    assert_eq!(run.calls("ALSpeechRecognition.pushContexts").len(), 1);
    let pops = run.calls("ALSpeechRecognition.popContexts");
    assert_eq!(pops.len(), 1, "{}", run.dump());
    assert_secs(pops[0].0, 3.0, "popContexts");
}

/// The stock Choice box asking "Do you like chocolate?" (yes / no), with `scenario`.
fn choice(scenario: &str) -> Option<Run> {
    let file = stock("standard/Audio/Voice/Choice/behavior.xar")?;
    Some(Run::file(&file, Some(scenario), 120.0))
}

/// [`choice`] run to its end, which must be a clean finish.
fn choice_finished(scenario: &str) -> Option<Run> {
    let run = choice(scenario)?;
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    Some(run)
}

/// What the robot said, in order.
fn spoken(run: &Run) -> Vec<String> {
    run.robot.snapshot().spoken
}

#[test]
fn choice_asks_its_question_listens_and_gives_the_answer_heard() {
    // The answer comes half a second after the robot starts listening.
    let Some(run) = choice_finished(
        "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    recognize: {word: 'yes', confidence: 0.9}
",
    ) else {
        return;
    };
    let said = spoken(&run);
    assert!(said[0].contains("chocolate"), "asks first: {said:?}");
    // "Repeat validated choice" is on: the robot repeats the answer.
    assert_eq!(said.last().map(String::as_str), Some("yes"), "{said:?}");
    let answer = run.outputs("root", "answer");
    assert_eq!(answer.len(), 1, "{}", run.dump());
    assert_eq!(answer[0].1, Value::from("yes"));
    // It listened for the table's words and the three commands, then stopped listening.
    let vocabulary = run.calls("ALSpeechRecognition.setVocabulary");
    assert_eq!(
        vocabulary[0].1[0],
        Value::List(
            ["yes", "no", "help", "repeat", "exit"]
                .map(Value::from)
                .to_vec()
        )
    );
    assert_eq!(run.calls("ALSpeechRecognition.subscribe").len(), 1);
    assert_eq!(run.calls("ALSpeechRecognition.unsubscribe").len(), 1);
    // Eyes blue while listening, white again after.
    let fades = run.calls("ALLeds.fadeRGB");
    let colours: Vec<&Value> = fades.iter().map(|(_, a)| &a[1]).collect();
    assert_eq!(
        colours,
        [&Value::Int(0x0000FF), &Value::Int(0xFFFFFF)],
        "{}",
        run.dump()
    );
    let snap = run.robot.snapshot();
    for eye in ["LeftFaceLeds", "RightFaceLeds"] {
        let colour = snap.leds.iter().find(|(n, _)| n == eye).map(|(_, c)| *c);
        assert_eq!(colour, Some([1.0, 1.0, 1.0]), "{eye}");
    }
}

#[test]
fn choice_repeats_its_question_on_silence_then_gives_up_with_timeout() {
    let Some(run) = choice_finished("events: []\n") else {
        return;
    };
    // "Maximum number of repetition when no reply" is 3: asked three times, 6 s each.
    let said = spoken(&run);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(said.iter().all(|s| s.contains("chocolate")), "{said:?}");
    let listens = run.calls("ALSpeechRecognition.subscribe");
    assert_eq!(listens.len(), 3);
    let stopped = run.outputs("root", "onStopped");
    assert_eq!(stopped.len(), 1, "{}", run.dump());
    assert_eq!(stopped[0].1, Value::from("timeout"));
    assert_secs(
        stopped[0].0 - listens[2].0,
        6.0,
        "the last listen's timeout",
    );
    assert!(run.outputs("root", "answer").is_empty());
}

#[test]
fn choice_says_it_did_not_understand_lists_the_choices_and_listens_again() {
    let Some(run) = choice_finished(
        "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    recognize: {word: 'banana', confidence: 0.9}
  - on_call: ALTextToSpeech.say
    contains: You can say
    delay: 0.5
    recognize: {word: 'no', confidence: 0.9}
",
    ) else {
        return;
    };
    let said = spoken(&run);
    assert_eq!(
        &said[1..],
        [
            "Sorry, I did not understand.",
            "You can say: yes or no.",
            "no"
        ],
        "{said:?}"
    );
    assert_eq!(run.outputs("root", "answer")[0].1, Value::from("no"));
    // The not-understood animation of the stock timeline played (frame 70).
    let frames: Vec<String> = run
        .events()
        .into_iter()
        .filter_map(|e| match e.step {
            choreo_engine::trace::Step::KfOn { keyframe, .. } => Some(keyframe),
            _ => None,
        })
        .collect();
    assert!(
        frames.iter().any(|k| k == "armsNotUnderstood0"),
        "{frames:?}"
    );
}

#[test]
fn choice_confirms_an_answer_heard_with_little_confidence() {
    // 0.25 is above "Minimum threshold to understand" (0.2), under "to be sure" (0.3).
    let Some(run) = choice_finished(
        "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    recognize: {word: 'no', confidence: 0.25}
  - on_call: ALTextToSpeech.say
    contains: Did you say
    delay: 0.5
    recognize: {word: 'yes', confidence: 0.9}
",
    ) else {
        return;
    };
    let said = spoken(&run);
    assert_eq!(&said[1..], ["Did you say no?", "no"], "{said:?}");
    // The confirmation listens for yes and no only.
    let vocabulary = run.calls("ALSpeechRecognition.setVocabulary");
    assert_eq!(
        vocabulary[1].1[0],
        Value::List(vec![Value::from("yes"), Value::from("no")])
    );
    assert_eq!(run.outputs("root", "answer")[0].1, Value::from("no"));
}

#[test]
fn choice_exits_on_the_exit_command_and_on_its_stop_input() {
    let Some(run) = choice_finished(
        "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 1
    recognize: {word: 'exit', confidence: 0.8}
",
    ) else {
        return;
    };
    let stopped = run.outputs("root", "onStopped");
    assert_eq!(stopped[0].1, Value::from("wordRecognised"));

    // onStop while the robot listens (time held at 3 s): `other` says "onStop", the
    // listening ends.
    let file = stock("standard/Audio/Voice/Choice/behavior.xar").unwrap();
    let run = Run::file(&file, None, 3.0);
    assert_eq!(run.start(), Outcome::TimeLimit, "{}", run.dump());
    assert_eq!(run.calls("ALSpeechRecognition.subscribe").len(), 1);
    assert_eq!(
        run.stimulate("root/Choice", "onStop", Value::None),
        Outcome::Finished,
        "{}",
        run.dump()
    );
    ok(&run);
    let other = run.outputs("root/Choice", "other");
    assert_eq!(other.len(), 1, "{}", run.dump());
    assert_eq!(other[0].1, Value::from("onStop"));
    assert_eq!(
        run.calls("ALSpeechRecognition.subscribe").len(),
        run.calls("ALSpeechRecognition.unsubscribe").len(),
        "{}",
        run.dump()
    );
}

#[test]
fn choice_can_be_answered_with_the_head() {
    // A touch while listening opens the menu: the robot explains it and says the first
    // choice; front goes to the next one, middle chooses it.
    let Some(run) = choice_finished(
        "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    touch: RearTactilTouched
  - on_call: ALTextToSpeech.say
    contains: 'yes'
    delay: 0.5
    touch: FrontTactilTouched
  - on_call: ALTextToSpeech.say
    contains: 'no'
    delay: 0.5
    touch: MiddleTactilTouched
",
    ) else {
        return;
    };
    let said = spoken(&run);
    assert!(said[1].contains("with my head"), "{said:?}");
    assert_eq!(&said[2..], ["yes", "no", "no"], "{said:?}");
    assert_eq!(run.outputs("root", "answer")[0].1, Value::from("no"));
}

/// A behavior whose "Setup" box gives a Choice box (written as the editor writes it, with
/// no code) its choices on choicesList, then its question; `other` stops the root.
const CHOICES_LIST_BEHAVIOR: &str = r#"<ChoregrapheProject xar_version="3">
<Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="0" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Setup" id="1">
<script language="4"><content><![CDATA[import time
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.choices(["", ["red", " crimson."], "blue"])
        time.sleep(0.1)
        self.question("Which colour?")
]]></content></script>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="1"/>
<Output name="choices" type="0" type_size="1" nature="2" inner="0" id="2"/>
<Output name="question" type="3" type_size="1" nature="2" inner="0" id="3"/>
</Box>
<Box name="Choice" id="2" plugin="ui_choice_plugin">
<script language="4"><content> <!-- This is generated at runtime, plugin magic --> </content></script>
<pluginContent><english><keyword>yes</keyword><keyword>no</keyword><keyword></keyword></english><language>english</language></pluginContent>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="0" type_size="1" nature="2" inner="0" id="2"/>
<Input name="choicesList" type="0" type_size="1" nature="1" inner="0" id="3"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="4"/>
<Output name="other" type="0" type_size="1" nature="1" inner="0" id="5"/>
<Output name="output_1" type="0" type_size="1" nature="2" inner="0" id="6"/>
<Output name="output_2" type="0" type_size="1" nature="2" inner="0" id="7"/>
</Box>
<Link inputowner="1" indexofinput="1" outputowner="0" indexofoutput="2"/>
<Link inputowner="2" indexofinput="3" outputowner="1" indexofoutput="2"/>
<Link inputowner="2" indexofinput="2" outputowner="1" indexofoutput="3"/>
<Link inputowner="0" indexofinput="4" outputowner="2" indexofoutput="5"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>
</Box>
</ChoregrapheProject>"#;

#[test]
fn choice_takes_its_choices_from_choices_list_and_gives_their_number() {
    let scenario = "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    recognize: {word: 'crimson', confidence: 0.9}
";
    let x = choreo_xar::read_xar("choices.xar", CHOICES_LIST_BEHAVIOR.as_bytes())
        .unwrap()
        .value;
    let run = Run::load(&x, std::path::Path::new("."), Some(scenario), 60.0).unwrap();
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let words = Value::List(
        ["red", "crimson", "blue", "help", "repeat", "exit"]
            .map(Value::from)
            .to_vec(),
    );
    let vocabulary = run.calls("ALSpeechRecognition.setVocabulary");
    assert_eq!(vocabulary[0].1[0], words, "{}", run.dump());
    // The choice's place in the list (the empty first one counts), the robot repeats what
    // it heard.
    assert_eq!(
        run.outputs("root", "onStopped")[0].1,
        Value::Int(1),
        "{}",
        run.dump()
    );
    assert_eq!(spoken(&run), ["Which colour?", "crimson"]);
}

#[test]
fn a_choice_box_with_an_unreadable_table_fails_the_load_naming_the_box() {
    let text =
        CHOICES_LIST_BEHAVIOR.replace("<keyword>yes</keyword>", "<keyword>y&bogus;s</keyword>");
    let x = choreo_xar::read_xar("choices.xar", text.as_bytes())
        .unwrap()
        .value;
    let Err(e) = Run::load(&x, std::path::Path::new("."), None, 60.0) else {
        panic!("loads");
    };
    assert!(e.contains("root/Choice"), "{e}");
    assert!(e.contains("table of answers is unreadable"), "{e}");
}

#[test]
fn choice_light_asks_and_answers_without_animations() {
    let Some(file) = stock("advanced/Audio/Voice/Choice (light)/behavior.xar") else {
        return;
    };
    let scenario = "events:
  - on_call: ALSpeechRecognition.subscribe
    delay: 0.5
    recognize: {word: 'no', confidence: 0.9}
";
    let run = Run::file(&file, Some(scenario), 60.0);
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    assert!(spoken(&run)[0].contains("chocolate"));
    assert_eq!(run.outputs("root", "answer")[0].1, Value::from("no"));
}

#[test]
fn switch_case_routes_a_value_to_the_matching_output() {
    let Some(file) = stock("standard/Flow Control/Switch Case/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.start();
    let cases: [(Value, &str); 6] = [
        (Value::from("Hello"), "output_1"),
        (Value::Int(5), "output_2"),
        (Value::from("5.0"), "output_2"),
        (Value::Float(5.0), "output_2"),
        (Value::from("hello"), "onDefault"),
        (Value::Int(6), "onDefault"),
    ];
    for (value, _) in &cases {
        run.stimulate("root", "onStart", value.clone());
    }
    ok(&run);
    let fired: Vec<(String, Value)> = run
        .events()
        .into_iter()
        .filter_map(|e| match e.step {
            choreo_engine::trace::Step::Out { port, value } if e.path == "root" => {
                Some((port, value))
            }
            _ => None,
        })
        .collect();
    let ports: Vec<&str> = fired.iter().map(|(p, _)| p.as_str()).collect();
    let want: Vec<&str> = cases.iter().map(|(_, p)| *p).collect();
    assert_eq!(ports, want, "{}", run.dump());
    // The value goes out with it, converted the way the box compares (5.0 -> 5).
    assert_eq!(fired[0].1, Value::from("Hello"));
    for (_, v) in &fired[1..4] {
        assert_eq!(*v, Value::Int(5));
    }
}

#[test]
fn counter_counts_from_initial_to_final_value_by_its_step_then_starts_over() {
    let Some(file) = stock("standard/Flow Control/Counter/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.param("root", "Initial value", "2");
    run.param("root", "Step value", "3");
    run.param("root", "Final value", "10");
    run.start();
    for _ in 0..5 {
        run.stimulate("root", "onNext", Value::None);
    }
    ok(&run);
    let values: Vec<Value> = run
        .outputs("root", "currentValue")
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    // 2, 5, 8; then 11 > 10: reinitialized (no value); then 2 again.
    assert_eq!(
        values,
        [Value::Int(2), Value::Int(5), Value::Int(8), Value::Int(2)],
        "{}",
        run.dump()
    );
    assert_eq!(run.outputs("root", "onReinitialized").len(), 1);
    run.stimulate("root", "onInit", Value::None);
    run.stimulate("root", "onNext", Value::None);
    assert_eq!(
        run.outputs("root", "currentValue").last().unwrap().1,
        Value::Int(2)
    );
    assert_eq!(run.outputs("root", "onReinitialized").len(), 2);
}

#[test]
fn if_compares_its_input_with_the_value_by_the_operator() {
    let Some(file) = stock("standard/Flow Control/If/box.xar") else {
        return;
    };
    let cases: [(&str, &str, Value, bool); 7] = [
        ("=", "3", Value::Int(3), true),
        ("=", "3", Value::Float(3.5), false),
        (">", "3", Value::from("10"), true),
        ("<", "3", Value::Int(10), false),
        ("< or =", "abc", Value::from("abc"), true),
        ("≠", "0", Value::Int(0), false),
        ("≠", "0", Value::from("x"), true),
    ];
    for (op, with, value, then) in cases {
        let run = Run::file(&file, None, 60.0);
        run.param("root", "Condition operator", op);
        run.param("root", "Value to compare", with);
        run.start();
        run.stimulate("root", "onData", value.clone());
        ok(&run);
        let (yes, no) = (
            run.outputs("root", "output_then").len(),
            run.outputs("root", "output_else").len(),
        );
        assert_eq!(
            (yes, no),
            if then { (1, 0) } else { (0, 1) },
            "{value} {op} {with}"
        );
    }
}

#[test]
fn only_once_lets_the_first_signal_through() {
    let Some(file) = stock("standard/Flow Control/Only Once/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.start();
    for _ in 0..4 {
        run.stimulate("root", "onSignal", Value::None);
    }
    ok(&run);
    assert_eq!(run.outputs("root", "firstTime").len(), 1, "{}", run.dump());
    let signals = run
        .events()
        .iter()
        .filter(|e| e.short() == "root call onInput_onSignal")
        .count();
    assert_eq!(signals, 4);
}

/// A WAV file of `seconds` of silence (8 kHz, 8 bits, mono).
fn wav(seconds: f64) -> Vec<u8> {
    let n = (8000.0 * seconds) as u32;
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + n).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&1u16.to_le_bytes()); // mono
    b.extend_from_slice(&8000u32.to_le_bytes());
    b.extend_from_slice(&8000u32.to_le_bytes()); // byte rate
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&8u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&n.to_le_bytes());
    b.resize(b.len() + n as usize, 128);
    b
}

#[test]
fn play_sound_plays_its_attached_file_to_the_end() {
    let Some(file) = stock("standard/Audio/Sound/Play Sound/behavior.xar") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sounds")).unwrap();
    std::fs::write(dir.path().join("sounds/beep.wav"), wav(2.5)).unwrap();
    let project = choreo_xar::source::load_path(&file).unwrap();
    let run = Run::load(&project.behaviors[0].xar, dir.path(), None, 60.0).unwrap();
    run.param("root", "File name", "/sounds/beep.wav");
    run.param("root", "Volume (%)", "40");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    let plays = run.calls("ALAudioPlayer.playFileFromPosition");
    assert_eq!(plays.len(), 1, "{}", run.dump());
    let path = plays[0].1[0].to_string();
    assert!(
        path.trim_matches('"')
            .ends_with(&format!("{}/sounds/beep.wav", dir.path().display())),
        "the file attached to the behavior: {path}"
    );
    assert_eq!(plays[0].1[2], Value::Float(0.4));
    // The box stops when the sound ends.
    assert_secs(run.outputs("root", "onStopped")[0].0, 2.5, "onStopped");
    assert!(run.robot.snapshot().sounds.is_empty());
}

#[test]
fn insert_data_get_data_and_raise_event_use_the_robot_memory() {
    let (Some(insert), Some(get), Some(raise)) = (
        stock("advanced/Memory/Insert Data/box.xar"),
        stock("advanced/Memory/Get Data/box.xar"),
        stock("advanced/Memory/Raise Event/box.xar"),
    ) else {
        return;
    };
    let run = Run::nested(&insert, None, 60.0);
    run.param("root/Box", "key", "Test/Answer");
    assert_eq!(run.start(), Outcome::Idle);
    let value = Value::List(vec![Value::Int(42), Value::from("life")]);
    assert_eq!(
        run.stimulate("root/Box", "onStart", value.clone()),
        Outcome::Idle,
        "{}",
        run.dump()
    );
    ok(&run);
    assert_eq!(run.robot.snapshot().memory.get("Test/Answer"), Some(&value));
    assert_eq!(run.outputs("root/Box", "onStopped")[0].1, value);

    let run = Run::nested(&raise, None, 60.0);
    run.param("root/Box", "key", "Test/Event");
    assert_eq!(run.start(), Outcome::Idle);
    assert_eq!(
        run.stimulate("root/Box", "onStart", Value::Float(2.5)),
        Outcome::Idle
    );
    ok(&run);
    assert_eq!(run.calls("ALMemory.raiseEvent").len(), 1);
    assert_eq!(
        run.robot.snapshot().memory.get("Test/Event"),
        Some(&Value::Float(2.5))
    );

    // Get Data reads what a scenario put in memory.
    let scenario = "events:\n  - at: 0\n    insert_data: {key: Test/Name, value: Nao}\n";
    let run = Run::file(&get, Some(scenario), 60.0);
    run.param("root", "key", "Test/Name");
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    assert_eq!(run.outputs("root", "onStopped")[0].1, Value::from("Nao"));
}

/// A deprecated 1.x posture box (Stand Up, Sit Down): it asks ALRobotPose where the robot
/// is, plays the timelines that lead to `pose` and checks again, until ALRobotPose says
/// `pose`; its `success` output fires.
fn pose_box(rel: &str, pose: &str) {
    let Some(file) = stock(rel) else {
        return;
    };
    let run = Run::file(&file, None, 120.0);
    assert_eq!(run.start(), Outcome::Finished, "{}", run.dump());
    ok(&run);
    assert!(!run.calls("ALRobotPose.getActualPoseAndTime").is_empty());
    assert_eq!(run.outputs("root", "success").len(), 1, "{}", run.dump());
    assert!(run.outputs("root", "failure").is_empty(), "{}", run.dump());
    let now = run
        .robot
        .call("ALRobotPose", "getActualPoseAndTime", vec![])
        .unwrap();
    let Value::List(now) = now else { panic!() };
    assert_eq!(now[0], Value::from(pose));
}

#[test]
fn deprecated_sit_down_asks_robot_pose_and_sits() {
    pose_box("deprecated/Motions/Sit Down/behavior.xar", "Sit");
}

#[test]
fn deprecated_stand_up_asks_robot_pose_and_stays_standing() {
    pose_box("deprecated/Motions/Stand Up/behavior.xar", "Stand");
}

#[test]
fn represent_object_stores_the_object_with_its_position_and_display() {
    let Some(file) = stock("standard/World Representation/Represent Object/box.xar") else {
        return;
    };
    let run = Run::file(&file, None, 60.0);
    run.start();
    ok(&run);
    let wr = |m: &str, args: Vec<Value>| run.robot.call("ALWorldRepresentation", m, args);
    let Ok(Value::List(names)) = wr("getObjectNames", vec![]) else {
        panic!("{}", run.dump())
    };
    assert_eq!(names.len(), 1, "{}", run.dump());
    let name = names[0].clone();
    assert_eq!(
        wr("getObjectParentName", vec![name.clone()]),
        Ok(Value::from("World"))
    );
    let Ok(Value::List(attributes)) = wr("getObjectAttributes", vec![name]) else {
        panic!()
    };
    // The 7 display fields the World Rep Manager sends, in the category's Display record.
    let Value::List(display) = &attributes[0] else {
        panic!()
    };
    assert_eq!(display[0], Value::from("Display"));
    let Value::List(fields) = &display[1] else {
        panic!()
    };
    assert_eq!(fields.len(), 7, "{}", run.dump());
    assert_eq!(run.calls("ALWorldRepresentation.updateAttribute").len(), 7);
}
