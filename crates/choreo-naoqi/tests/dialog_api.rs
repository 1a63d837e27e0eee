//! ALDialog on the simulated robot, one test per method of the NAOqi 2.8 ALDialog API page,
//! each against what the page says (most of them its own Python examples, the topic and
//! the "Execution" it shows). A box calls ALDialog in virtual time; what the robot says is
//! its speech record.

use crate::support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{BoxContext, Outcome, Robot as _, ScriptError, Value};
use choreo_naoqi::{Model, SimRobot};
use support::{f, i, list, run_box, s};

/// Calls `ALDialog.method(args)` from a box.
fn d(ctx: &BoxContext, method: &str, args: Vec<Value>) -> Result<Value, ScriptError> {
    Ok(ctx.call_robot("ALDialog", method, args)?)
}

/// `ALDialog.forceInput(text)`, then time for the answer to be said.
fn hear(ctx: &BoxContext, text: &str) -> Result<(), ScriptError> {
    d(ctx, "forceInput", vec![s(text)])?;
    ctx.sleep(Duration::from_secs(8));
    Ok(())
}

/// Waits for what the robot is saying.
fn pause(ctx: &BoxContext) {
    ctx.sleep(Duration::from_secs(8));
}

/// Runs `f` in a box of a fresh NAO; what the robot said (lower case).
fn session(
    f: impl Fn(&BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
) -> Vec<String> {
    let robot = SimRobot::new(Model::Nao);
    let (outcome, trace) = run_box(&robot, f);
    assert_eq!(outcome, Outcome::Finished, "{}", trace.join("\n"));
    said(&robot)
}

fn said(robot: &SimRobot) -> Vec<String> {
    robot
        .snapshot()
        .spoken
        .iter()
        .map(|t| t.to_lowercase())
        .collect()
}

/// A folder of topic files for one test, removed when the test ends.
struct Folder(tempfile::TempDir);

impl std::ops::Deref for Folder {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

fn folder(files: &[(&str, &str)]) -> Folder {
    let dir = tempfile::Builder::new()
        .prefix("choreo-dialog-api-")
        .tempdir()
        .unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    Folder(dir)
}

fn path(dir: &Path, name: &str) -> Value {
    s(&dir.join(name).display().to_string())
}

/// The API page's `aldialog_test_topic_file.top` (loadTopic, activateTopic, subscribe).
const MYTOPIC: &str = "topic: ~mytopic()\nlanguage: enu\nu: (Hello Nao how are you today) Hello human, I am fine thank you and you?\n";

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => items
            .iter()
            .map(|x| match x {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            })
            .collect(),
        other => panic!("not a list: {other}"),
    }
}

#[test]
fn load_topic_returns_its_name_and_unload_topic_forgets_it() {
    // The page's aldialog_loadTopic.py: "mytopic", ['mytopic'], [].
    let dir = folder(&[("load.top", MYTOPIC)]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session(move |ctx| {
        d(ctx, "setLanguage", vec![s("English")])?;
        let name = d(ctx, "loadTopic", vec![path(&dir, "load.top")])?;
        let loaded = d(ctx, "getLoadedTopics", vec![s("English")])?;
        d(ctx, "unloadTopic", vec![name.clone()])?;
        let after = d(ctx, "getLoadedTopics", vec![s("English")])?;
        log.lock().unwrap().extend([name, loaded, after]);
        // "If a topic's name passed to the method is wrong, a runtime error will be raised."
        assert!(d(ctx, "unloadTopic", vec![s("nosuchtopic")]).is_err());
        // "Any syntax errors in the topic file are thrown as exceptions."
        assert!(
            d(
                ctx,
                "loadTopicContent",
                vec![s("topic: ~t()\nu:([oops) x\n")]
            )
            .is_err()
        );
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], s("mytopic"));
    assert_eq!(strings(&seen[1]), ["mytopic"]);
    assert_eq!(strings(&seen[2]), Vec::<String>::new());
}

/// `_addDialogFromTopicBox(topic, folder)`, a private method the stock boxes of Choregraphe
/// 2.4-2.5 call (qi signature `(ss)s`: "Topic path and filename", "Root of the behavior",
/// returns the "Topic name"): the topic loads with its includes found in that folder, where
/// `loadTopic` finds them only next to the topic.
#[test]
fn add_dialog_from_topic_box_loads_a_topic_with_an_include_folder() {
    let dir = folder(&[(
        "drinks.top",
        "topic: ~drinks()\nlanguage: enu\nconcept:(drink) [tea coffee]\n",
    )]);
    std::fs::create_dir(dir.join("order")).unwrap();
    let topic = dir.join("order/order.top");
    std::fs::write(
        &topic,
        "topic: ~order()\nlanguage: enu\ninclude: drinks.top\nu:(_~drink please) here is your $1\n",
    )
    .unwrap();
    let topic = s(&topic.display().to_string());
    let root = s(&dir.display().to_string());
    let said = session(move |ctx| {
        d(ctx, "setLanguage", vec![s("English")])?;
        assert!(
            d(ctx, "loadTopic", vec![topic.clone()]).is_err(),
            "no include next to it"
        );
        let name = d(
            ctx,
            "_addDialogFromTopicBox",
            vec![topic.clone(), root.clone()],
        )?;
        assert_eq!(name, s("order"));
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("test")])?;
        hear(ctx, "coffee please")?;
        d(ctx, "unsubscribe", vec![s("test")])?;
        Ok(())
    });
    assert_eq!(said, ["here is your coffee"]);
}

#[test]
fn loaded_topics_are_kept_per_language_and_unloaded_in_all() {
    // The page's aldialog_getLoadedTopics.py, its execution line by line.
    let dir = folder(&[
        ("getloaded_1.top", MYTOPIC),
        (
            "getloaded_2.top",
            "topic: ~mytopic_2()\nlanguage: enu\nproposal: human, how was your day?\n",
        ),
        (
            "getloaded_frf.top",
            "topic: ~mytopic()\nlanguage: frf\nu: ({est-ce que} tu parles français) oui, bien sûr!\n",
        ),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session(move |ctx| {
        let look = |method: &str, language: Option<&str>| -> Result<(), ScriptError> {
            let args = language.map(s).into_iter().collect();
            log.lock().unwrap().push(strings(&d(ctx, method, args)?));
            Ok(())
        };
        d(ctx, "loadTopic", vec![path(&dir, "getloaded_1.top")])?;
        look("getLoadedTopics", Some("French"))?;
        look("getLoadedTopics", Some("English"))?;
        look("getAllLoadedTopics", None)?;
        d(ctx, "loadTopic", vec![path(&dir, "getloaded_2.top")])?;
        look("getLoadedTopics", Some("English"))?;
        look("getAllLoadedTopics", None)?;
        d(ctx, "loadTopic", vec![path(&dir, "getloaded_frf.top")])?;
        look("getLoadedTopics", Some("French"))?;
        look("getAllLoadedTopics", None)?;
        d(ctx, "unloadTopic", vec![s("mytopic")])?;
        look("getLoadedTopics", Some("French"))?;
        look("getLoadedTopics", Some("English"))?;
        look("getAllLoadedTopics", None)?;
        d(ctx, "unloadTopic", vec![s("mytopic_2")])?;
        look("getAllLoadedTopics", None)
    });
    let mut seen = seen.lock().unwrap().clone();
    for l in &mut seen {
        l.sort();
    }
    let v = |items: &[&str]| items.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        seen,
        [
            v(&[]),
            v(&["mytopic"]),
            v(&["mytopic"]),
            v(&["mytopic", "mytopic_2"]),
            v(&["mytopic", "mytopic_2"]),
            v(&["mytopic"]),
            v(&["mytopic", "mytopic", "mytopic_2"]),
            v(&[]),
            v(&["mytopic_2"]),
            v(&["mytopic_2"]),
            v(&[]),
        ]
    );
}

#[test]
fn load_topic_content_activate_deactivate_and_get_activated_topics() {
    // aldialog_loadTopicContent.py and aldialog_activateTopic.py.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session(move |ctx| {
        let content =
            "topic: ~mytopic()\nlanguage: enu\nproposal: hello\nu:(hi) nice to meet you\n";
        let name = d(ctx, "loadTopicContent", vec![s(content)])?;
        d(ctx, "activateTopic", vec![name.clone()])?;
        let active = d(ctx, "getActivatedTopics", vec![])?;
        d(ctx, "deactivateTopic", vec![name.clone()])?;
        let after = d(ctx, "getActivatedTopics", vec![])?;
        log.lock().unwrap().extend([name, active, after]);
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], s("mytopic"));
    assert_eq!(strings(&seen[1]), ["mytopic"]);
    assert!(strings(&seen[2]).is_empty());
}

#[test]
fn force_input_answers_without_a_subscriber_recognition_only_with_one() {
    // forceInput: "The Dialog Engine responds to a forceInput even in the absence of a
    // subscribe"; subscribe "Starts the dialog engine": what the robot hears is answered
    // only then.
    let robot = SimRobot::new(Model::Nao);
    let r2 = robot.clone();
    let (outcome, _) = run_box(&robot, move |ctx| {
        let name = d(ctx, "loadTopicContent", vec![s(MYTOPIC)])?;
        d(ctx, "activateTopic", vec![name])?;
        hear(ctx, "Hello Nao how are you today")?;
        r2.inject(&choreo_naoqi::Action::Recognize {
            word: "Hello Nao how are you today".into(),
            confidence: 0.9,
        });
        pause(ctx);
        d(ctx, "subscribe", vec![s("my_subscribe_test")])?;
        r2.inject(&choreo_naoqi::Action::Recognize {
            word: "Hello Nao how are you today".into(),
            confidence: 0.9,
        });
        pause(ctx);
        d(ctx, "unsubscribe", vec![s("my_subscribe_test")])?;
        let hello = || {
            r2.inject(&choreo_naoqi::Action::Recognize {
                word: "Hello Nao how are you today".into(),
                confidence: 0.9,
            })
        };
        hello();
        pause(ctx);
        // runDialog starts the dialog engine as a subscriber does; stopDialog stops it.
        d(ctx, "runDialog", vec![])?;
        hello();
        pause(ctx);
        d(ctx, "stopDialog", vec![])?;
        hello();
        pause(ctx);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        said(&robot),
        ["hello human, i am fine thank you and you?"; 3]
    );
}

#[test]
fn set_focus_and_force_output_say_the_focused_topic_s_proposals() {
    // aldialog_setFocus.py: "Human, how are you?", "What do you want to do?", nothing,
    // "Human, how was your day?", "Do you like robots?", nothing.
    let said = session(|ctx| {
        let a = d(
            ctx,
            "loadTopicContent",
            vec![s(
                "topic: ~mytopic()\nlanguage: enu\nproposal: human, how are you ?\nproposal: %dynamicTest What do you want to do ?\n",
            )],
        )?;
        let b = d(
            ctx,
            "loadTopicContent",
            vec![s(
                "topic: ~mytopic_2()\nlanguage: enu\nproposal: human, how was your day?\nproposal: Do you like robots?\n",
            )],
        )?;
        d(ctx, "activateTopic", vec![a])?;
        d(ctx, "activateTopic", vec![b])?;
        d(ctx, "subscribe", vec![s("my_setFocus_test")])?;
        for topic in ["mytopic", "mytopic_2"] {
            d(ctx, "setFocus", vec![s(topic)])?;
            for _ in 0..3 {
                d(ctx, "forceOutput", vec![])?;
                pause(ctx);
            }
        }
        // getFocus: "the currently focused topic's name".
        if d(ctx, "getFocus", vec![])? != s("mytopic_2") {
            return Err("getFocus".into());
        }
        // A topic not activated cannot have the focus.
        d(ctx, "deactivateTopic", vec![s("mytopic")])?;
        if d(ctx, "setFocus", vec![s("mytopic")]).is_ok() {
            return Err("focus on an inactive topic".into());
        }
        Ok(())
    });
    assert_eq!(
        said,
        [
            "human, how are you ?",
            "what do you want to do ?",
            "human, how was your day?",
            "do you like robots?"
        ]
    );
}

#[test]
fn deactivate_tag_blocks_rules_and_outputs_activate_tag_restores_them() {
    // aldialog_deactivateTag.py: its eight answers.
    let said = session(|ctx| {
        let topic = "topic: ~mytopic()\nlanguage: enu\n\
            u:(single-tagged rule %mytag_0) single-tagged rule test answer\n\
            u:(single-tagged output) %mytag_1 single-tagged output test answer\n\
            u:(double-tagged rule %mytag_2 %mytag_3) double-tagged rule test answer\n\
            u:(double-tagged output) %mytag_4 %mytag_5 double-tagged output test answer\n\
            u:(e:Dialog/SpeakFailure) I have matched a rule with an empty answer!\n\
            u:(e:Dialog/NotUnderstood) I haven't matched any rule!\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("my_deactivateTag_test")])?;
        for i in 0..6 {
            d(
                ctx,
                "activateTag",
                vec![s(&format!("mytag_{i}")), s("mytopic")],
            )?;
        }
        for (input, tag) in [
            ("single-tagged rule", "mytag_0"),
            ("single-tagged output", "mytag_1"),
            ("double-tagged rule", "mytag_3"),
            ("double-tagged output", "mytag_5"),
        ] {
            hear(ctx, input)?;
            d(ctx, "deactivateTag", vec![s(tag), s("mytopic")])?;
            hear(ctx, input)?;
        }
        // Back on: the rule answers again.
        d(ctx, "activateTag", vec![s("mytag_0"), s("mytopic")])?;
        hear(ctx, "single-tagged rule")?;
        Ok(())
    });
    assert_eq!(
        said,
        [
            "single-tagged rule test answer",
            "i haven't matched any rule!",
            "single-tagged output test answer",
            "i have matched a rule with an empty answer!",
            "double-tagged rule test answer",
            "i haven't matched any rule!",
            "double-tagged output test answer",
            "i have matched a rule with an empty answer!",
            "single-tagged rule test answer",
        ]
    );
}

#[test]
fn goto_tag_and_goto_topic_make_the_robot_speak_first() {
    // aldialog_gotoTag.py: "hello"; aldialog_gotoTopic.py: "hello", then "nice to meet you".
    let said = session(|ctx| {
        let a = d(
            ctx,
            "loadTopicContent",
            vec![s(
                "topic: ~mytopic()\nlanguage: enu\nproposal: %myTag hello\n",
            )],
        )?;
        d(ctx, "activateTopic", vec![a])?;
        d(ctx, "gotoTag", vec![s("myTag"), s("mytopic")])?;
        pause(ctx);
        if d(ctx, "gotoTag", vec![s("noSuchTag"), s("mytopic")]).is_ok() {
            return Err("gotoTag to a missing tag".into());
        }
        d(ctx, "unloadTopic", vec![s("mytopic")])?;
        let b = d(
            ctx,
            "loadTopicContent",
            vec![s(
                "topic: ~mytopic()\nlanguage: enu\nproposal: hello\nu1:(hi) nice to meet you\n",
            )],
        )?;
        d(ctx, "activateTopic", vec![b])?;
        d(ctx, "gotoTopic", vec![s("mytopic")])?;
        pause(ctx);
        hear(ctx, "hi")
    });
    assert_eq!(said, ["hello", "hello", "nice to meet you"]);
}

#[test]
fn set_concept_add_to_concept_get_concept_and_clear_concepts() {
    // aldialog_setConcept.py and aldialog_addToConcept.py.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, move |ctx| {
        let topic = "topic: ~mytopic()\nlanguage: enu\ndynamic: things_you_can_ride\nu:(I want to ride a _~things_you_can_ride) Of course you can ride a $1 ! I'm going with you !\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        let words = |w: &[&str]| list(w.iter().map(|x| s(x)).collect());
        d(
            ctx,
            "setConcept",
            vec![
                s("things_you_can_ride"),
                s("English"),
                words(&["bike", "dragon", "unicorn", "double-decker bus"]),
            ],
        )?;
        hear(ctx, "I want to ride a double-decker bus")?;
        hear(ctx, "I want to ride a dragon")?;
        log.lock().unwrap().push(d(
            ctx,
            "getConcept",
            vec![s("things_you_can_ride"), s("English")],
        )?);
        d(
            ctx,
            "addToConcept",
            vec![
                s("things_you_can_ride"),
                s("English"),
                words(&["horse", "motorcycle", "just anything"]),
            ],
        )?;
        log.lock().unwrap().push(d(
            ctx,
            "getConcept",
            vec![s("things_you_can_ride"), s("English")],
        )?);
        d(ctx, "clearConcepts", vec![])?;
        log.lock().unwrap().push(d(
            ctx,
            "getConcept",
            vec![s("things_you_can_ride"), s("enu")],
        )?);
        hear(ctx, "I want to ride a dragon")
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        said(&robot),
        [
            "of course you can ride a double-decker bus ! i'm going with you !",
            "of course you can ride a dragon ! i'm going with you !"
        ]
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        strings(&seen[0]),
        ["bike", "dragon", "unicorn", "double-decker bus"]
    );
    assert_eq!(
        strings(&seen[1]),
        [
            "horse",
            "motorcycle",
            "just anything",
            "bike",
            "dragon",
            "unicorn",
            "double-decker bus"
        ]
    );
    assert!(strings(&seen[2]).is_empty());
}

#[test]
fn set_delay_makes_an_event_count_longer_with_words() {
    // setDelay: "If an event is not blocking ... it has a limited validity, by default: 2
    // seconds"; -1: "infinite validity". A rule needing the touch and then words.
    let said = session(|ctx| {
        let topic = "topic: ~mytopic()\nlanguage: enu\nu:(e:FrontTactilTouched light this leg) ok I turn leds on\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("my_setDelay_test")])?;
        let touch = |ctx: &BoxContext| {
            ctx.call_robot(
                "ALMemory",
                "raiseEvent",
                vec![s("FrontTactilTouched"), i(1)],
            )
        };
        touch(ctx)?;
        ctx.sleep(Duration::from_secs(1));
        hear(ctx, "light this leg")?;
        touch(ctx)?;
        ctx.sleep(Duration::from_secs(3));
        hear(ctx, "light this leg")?;
        d(ctx, "setDelay", vec![s("FrontTactilTouched"), i(-1)])?;
        touch(ctx)?;
        ctx.sleep(Duration::from_secs(30));
        hear(ctx, "light this leg")
    });
    assert_eq!(said, ["ok i turn leds on", "ok i turn leds on"]);
}

#[test]
fn events_time_out_while_the_robot_speaks_unless_valid_longer_or_blocking() {
    // The page's setDelay and addBlockingEvent examples: touching the head while the robot
    // counts. Non-blocking: "it has a limited validity, by default: 2 seconds. If the robot
    // is currently saying a very long sentence, the event ... will time out, the robot will
    // not react"; with -1 "it will still react after having stopped speaking"; blocking: "it
    // will interrupt the robot's speech and the robot will react immediately".
    let robot = SimRobot::new(Model::Nao);
    let r2 = robot.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let counting = "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20.";
    let (outcome, _) = run_box(&robot, move |ctx| {
        let topic = format!(
            "topic: ~mytopic()\nlanguage: enu\n\
             u:([e:FrontTactilTouched e:MiddleTactilTouched e:RearTactilTouched]) You touched my head!\n\
             u:(start counting) {counting}\n"
        );
        let name = d(ctx, "loadTopicContent", vec![s(&topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("my_test")])?;
        let touch = |ctx: &BoxContext| {
            ctx.call_robot(
                "ALMemory",
                "raiseEvent",
                vec![s("MiddleTactilTouched"), i(1)],
            )
        };
        let case = |ctx: &BoxContext| -> Result<(), ScriptError> {
            d(ctx, "forceInput", vec![s("start counting")])?;
            ctx.sleep(Duration::from_millis(500));
            touch(ctx)?;
            ctx.sleep(Duration::from_millis(500));
            log.lock()
                .unwrap()
                .push(r2.snapshot().speaking.unwrap_or_default());
            ctx.sleep(Duration::from_secs(15));
            Ok(())
        };
        case(ctx)?;
        d(ctx, "setDelay", vec![s("MiddleTactilTouched"), i(-1)])?;
        case(ctx)?;
        d(ctx, "setDelay", vec![s("MiddleTactilTouched"), i(2000)])?;
        d(ctx, "addBlockingEvent", vec![s("MiddleTactilTouched")])?;
        case(ctx)?;
        d(ctx, "removeBlockingEvent", vec![s("MiddleTactilTouched")])?;
        case(ctx)
    });
    assert_eq!(outcome, Outcome::Finished);
    let counted = counting.to_lowercase();
    let touched = "you touched my head!";
    assert_eq!(
        said(&robot),
        [
            counted.as_str(),
            counted.as_str(),
            touched,
            counted.as_str(),
            touched,
            counted.as_str()
        ]
    );
    // Half a second after the touch: still counting, but for the blocking event.
    let speaking: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|t| t.to_lowercase())
        .collect();
    assert_eq!(
        speaking,
        [
            counted.as_str(),
            counted.as_str(),
            touched,
            counted.as_str()
        ]
    );
}

#[test]
fn set_language_chooses_the_topics_that_answer() {
    // "A topic can have the same name in different languages"; setLanguage: "the English
    // name of the language to set"; getLanguage returns it; resetLanguage: the robot's.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, move |ctx| {
        for (lang, answer) in [("enu", "hello human"), ("frf", "bonjour humain")] {
            let name = d(
                ctx,
                "loadTopicContent",
                vec![s(&format!(
                    "topic: ~greet()\nlanguage: {lang}\nu:(hello) {answer}\n"
                ))],
            )?;
            d(ctx, "activateTopic", vec![name])?;
        }
        hear(ctx, "hello")?;
        d(ctx, "setLanguage", vec![s("French")])?;
        log.lock().unwrap().push(d(ctx, "getLanguage", vec![])?);
        hear(ctx, "hello")?;
        d(ctx, "resetLanguage", vec![])?;
        log.lock().unwrap().push(d(ctx, "getLanguage", vec![])?);
        hear(ctx, "hello")?;
        if d(ctx, "setLanguage", vec![s("Klingon")]).is_ok() {
            return Err("Klingon".into());
        }
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        said(&robot),
        ["hello human", "bonjour humain", "hello human"]
    );
    assert_eq!(*seen.lock().unwrap(), [s("French"), s("English")]);
}

#[test]
fn run_topics_loads_activates_and_subscribes_stop_topics_undoes_it() {
    let dir = folder(&[("runtopics.top", MYTOPIC)]);
    let robot = SimRobot::new(Model::Nao);
    let r2 = robot.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let (outcome, _) = run_box(&robot, move |ctx| {
        let names = d(
            ctx,
            "runTopics",
            vec![list(vec![path(&dir, "runtopics.top")])],
        )?;
        log.lock().unwrap().push(names.clone());
        let hello = || {
            r2.inject(&choreo_naoqi::Action::Recognize {
                word: "Hello Nao how are you today".into(),
                confidence: 0.9,
            })
        };
        hello();
        pause(ctx);
        d(ctx, "stopTopics", vec![names])?;
        log.lock()
            .unwrap()
            .push(d(ctx, "getAllLoadedTopics", vec![])?);
        hello();
        pause(ctx);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(said(&robot), ["hello human, i am fine thank you and you?"]);
    let seen = seen.lock().unwrap();
    assert_eq!(strings(&seen[0]), ["mytopic"]);
    assert!(strings(&seen[1]).is_empty());
}

#[test]
fn say_speaks_a_tagged_sentence_without_touching_the_active_topics() {
    let dir = folder(&[(
        "say.top",
        "topic: ~other()\nlanguage: enu\nproposal: %greet good evening\nu:(hello) from the other topic\n",
    )]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let said = session(move |ctx| {
        d(ctx, "say", vec![path(&dir, "say.top"), s("greet")])?;
        pause(ctx);
        log.lock()
            .unwrap()
            .push(d(ctx, "getAllLoadedTopics", vec![])?);
        hear(ctx, "hello")
    });
    assert_eq!(said, ["good evening"]);
    assert!(strings(&seen.lock().unwrap()[0]).is_empty());
}

#[test]
fn sessions_and_user_data() {
    // openSession(id) focuses a user; ^getUserInfo reads that user's data; insertUserData,
    // getUserData, getUserList.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let said = session(move |ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nu:(who am I) ^first[\"you are ^getUserInfo(name)\" \"I do not know you\"]\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "insertUserData", vec![s("name"), s("Albert"), i(7)])?;
        log.lock()
            .unwrap()
            .push(d(ctx, "getUserData", vec![s("name"), i(7)])?);
        log.lock().unwrap().push(d(ctx, "getUserList", vec![])?);
        hear(ctx, "who am I")?;
        d(ctx, "openSession", vec![i(7)])?;
        hear(ctx, "who am I")?;
        d(ctx, "closeSession", vec![])?;
        hear(ctx, "who am I")
    });
    assert_eq!(
        said,
        ["i do not know you", "you are albert", "i do not know you"]
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], s("Albert"));
    assert_eq!(seen[1], list(vec![i(7)]));
}

#[test]
fn reset_all_makes_every_proposal_available_again() {
    // resetAll: "all proposals can be used again. Scopes (u1 rules) are closed."
    let said = session(|ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nproposal: how are you?\n  u1:(fine) good\nu:(fine) fine too\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "forceOutput", vec![])?;
        pause(ctx);
        d(ctx, "forceOutput", vec![])?;
        pause(ctx);
        d(ctx, "resetAll", vec![])?;
        hear(ctx, "fine")?;
        d(ctx, "forceOutput", vec![])?;
        pause(ctx);
        Ok(())
    });
    assert_eq!(said, ["how are you?", "fine too", "how are you?"]);
}

#[test]
fn set_variable_path_gives_a_topic_s_variable_and_event_another_key() {
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, |ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nu:(e:onStart) started $result=done\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(
            ctx,
            "setVariablePath",
            vec![name.clone(), s("onStart"), s("Box/onStart")],
        )?;
        d(
            ctx,
            "setVariablePath",
            vec![name.clone(), s("result"), s("Box/result")],
        )?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("t")])?;
        ctx.call_robot("ALMemory", "raiseEvent", vec![s("onStart"), i(1)])?;
        pause(ctx);
        ctx.call_robot("ALMemory", "raiseEvent", vec![s("Box/onStart"), i(1)])?;
        pause(ctx);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(said(&robot), ["started"]);
    assert_eq!(
        robot
            .call("ALMemory", "getData", vec![s("Box/result")])
            .unwrap(),
        s("done")
    );
}

#[test]
fn push_mode_adds_a_proposal_after_each_answer() {
    // startPush: "After an answer, the dialog engine will automatically say a proposal";
    // stopPush stops it.
    let said = session(|ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nproposal: shall we dance?\nproposal: shall we sing?\nu:(hello) hello\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "startPush", vec![])?;
        hear(ctx, "hello")?;
        d(ctx, "stopPush", vec![])?;
        hear(ctx, "hello")
    });
    assert_eq!(said, ["hello", "shall we dance?", "hello"]);
}

#[test]
fn confidence_thresholds_filter_what_the_robot_hears() {
    // setConfidenceThreshold: "Below this threshold value, the dialog engine ignores
    // results returned by the ASR (as if the robot did not hear anything)".
    let robot = SimRobot::new(Model::Nao);
    let r2 = robot.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let (outcome, _) = run_box(&robot, move |ctx| {
        let name = d(
            ctx,
            "loadTopicContent",
            vec![s("topic: ~t()\nlanguage: enu\nu:(hello) hi\n")],
        )?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("t")])?;
        let hello = |c: f64| {
            r2.inject(&choreo_naoqi::Action::Recognize {
                word: "hello".into(),
                confidence: c,
            })
        };
        hello(0.6);
        pause(ctx);
        d(
            ctx,
            "setConfidenceThreshold",
            vec![s("BNF"), f(0.7), s("English")],
        )?;
        log.lock().unwrap().push(d(
            ctx,
            "getConfidenceThreshold",
            vec![s("BNF"), s("English")],
        )?);
        hello(0.6);
        pause(ctx);
        let all = d(ctx, "getAllConfidenceThresholds", vec![])?;
        log.lock().unwrap().push(all);
        d(ctx, "removeAllLanguageThresholds", vec![])?;
        hello(0.6);
        pause(ctx);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(said(&robot), ["hi", "hi"]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], f(0.7));
    let Value::Map(grammars) = &seen[1] else {
        panic!("{}", seen[1]);
    };
    assert_eq!(grammars.len(), 3, "BNF, SLM and REMOTE");
}

#[test]
fn animated_speech_configuration_is_kept_and_compile_all_does_nothing() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session(move |ctx| {
        let config = list(vec![list(vec![s("bodyLanguageMode"), s("disabled")])]);
        d(ctx, "setAnimatedSpeechConfiguration", vec![config])?;
        log.lock()
            .unwrap()
            .push(d(ctx, "getAnimatedSpeechConfiguration", vec![])?);
        d(ctx, "compileAll", vec![])?;
        Ok(())
    });
    assert_eq!(
        seen.lock().unwrap()[0],
        list(vec![list(vec![s("bodyLanguageMode"), s("disabled")])])
    );
}

#[test]
fn events_say_what_was_heard_and_answered() {
    // Dialog/LastInput: "Contains the last human input"; Dialog/Answered: "Contains the last
    // answer"; qiChat's own events (Dialog/NotUnderstood) answer rules, not ALMemory
    // subscribers' doubles.
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, |ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nu:(hello) hello human\nu:(what did you say) I said $Dialog/Answered\nu:(e:Dialog/NotUnderstood) pardon?\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        hear(ctx, "hello")?;
        hear(ctx, "what did you say")?;
        hear(ctx, "blah")?;
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(
        said(&robot),
        ["hello human", "i said hello human", "pardon?"]
    );
    assert_eq!(
        robot
            .call("ALMemory", "getData", vec![s("Dialog/LastInput")])
            .unwrap(),
        s("blah")
    );
}

#[test]
fn user_data_lists_and_removal() {
    // getUserDataList(userID), removeUserData(userID): a user's data names, and forgetting
    // them.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session(move |ctx| {
        d(ctx, "insertUserData", vec![s("name"), s("Albert"), i(7)])?;
        d(ctx, "insertUserData", vec![s("age"), s("9"), i(7)])?;
        log.lock()
            .unwrap()
            .push(d(ctx, "getUserDataList", vec![i(7)])?);
        d(ctx, "removeUserData", vec![i(7)])?;
        log.lock()
            .unwrap()
            .push(d(ctx, "getUserDataList", vec![i(7)])?);
        log.lock().unwrap().push(d(ctx, "getUserList", vec![])?);
        Ok(())
    });
    let seen = seen.lock().unwrap();
    assert_eq!(strings(&seen[0]), ["age", "name"]);
    assert!(strings(&seen[1]).is_empty());
    assert!(strings(&seen[2]).is_empty());
}

#[test]
fn generate_sentences_writes_every_input_sentence() {
    // generateSentences(destination, topic, language): "Generates all possible input
    // sentences to a text file."
    let dir = folder(&[("sentences.top", "")]);
    let out = dir.join("sentences.txt");
    let target = out.display().to_string();
    session(move |ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nconcept:(drink) [tea coffee]\nu:({please} [hello hi] robot) hi\nu:(I want _~drink) ok\n  u1:(with milk) fine\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(
            ctx,
            "generateSentences",
            vec![s(&target), name, s("English")],
        )?;
        Ok(())
    });
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "hello robot",
            "hi robot",
            "please hello robot",
            "please hi robot",
            "I want tea",
            "I want coffee",
            "with milk"
        ]
    );
}

#[test]
fn a_fallback_service_answers_what_no_rule_matches() {
    // addFallback(language, serviceName): "The registered service must define a method
    // string findOutput(string language, string input) ... finOutput must return the robot
    // answer or an empty string for no answer." The service here is a scenario's stub.
    let scenario = choreo_naoqi::Scenario::from_str(
        "events:\n  - on_call: MyFallback.findOutput\n    reply: \"I heard you\"\n",
        "fallback.yaml",
    )
    .unwrap();
    let robot = SimRobot::new(Model::Nao).with_scenario(scenario);
    let (outcome, _) = run_box(&robot, |ctx| {
        let name = d(
            ctx,
            "loadTopicContent",
            vec![s("topic: ~t()\nlanguage: enu\nu:(hello) hi\n")],
        )?;
        d(ctx, "activateTopic", vec![name])?;
        hear(ctx, "blah blah")?;
        d(ctx, "addFallback", vec![s("English"), s("MyFallback")])?;
        hear(ctx, "hello")?;
        hear(ctx, "blah blah")?;
        d(ctx, "removeFallback", vec![s("English"), s("MyFallback")])?;
        hear(ctx, "blah blah")
    });
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(said(&robot), ["hi", "i heard you"]);
}

#[test]
fn silences_raise_qichat_s_no_one_speak_and_not_speaking_events() {
    // "Dialog/NotSpeaking10: Human hasn't said anything for 10 seconds" (the page's example:
    // `u:(e:Dialog/NotSpeaking10) are you still there?`); "Dialog/NoOneSpeak5: Nobody
    // (neither the robot nor the human) has spoken for 5 seconds".
    let said = session(|ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nu:(hello) hi there\n\
                     u:(e:Dialog/NotSpeaking10) are you still there?\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("t")])?;
        // 10 s of silence: asked once; 20 more: not again (the human still has not spoken).
        ctx.sleep(Duration::from_secs(30));
        hear(ctx, "hello")?;
        ctx.sleep(Duration::from_secs(10));
        d(ctx, "unsubscribe", vec![s("t")])?;
        Ok(())
    });
    assert_eq!(
        said,
        ["are you still there?", "hi there", "are you still there?"]
    );
    let said = session(|ctx| {
        let topic = "topic: ~t()\nlanguage: enu\nu:(e:Dialog/NoOneSpeak5) hello?\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("t")])?;
        // At 5 s, then 5 s after the robot's own "hello?" ended: twice in 13 s.
        ctx.sleep(Duration::from_secs(13));
        d(ctx, "unsubscribe", vec![s("t")])?;
        Ok(())
    });
    assert_eq!(said, ["hello?", "hello?"]);
}

#[test]
fn focus_changes_are_raised_with_the_topic_s_description() {
    // Dialog/Focus: "Raised when the dialog engine changes the currently focused topic";
    // Dialog/FocusDescription: "the topic's description".
    let robot = SimRobot::new(Model::Nao);
    let (outcome, _) = run_box(&robot, |ctx| {
        for (name, description) in [("cooking", "cook"), ("music", "songs")] {
            let topic = format!(
                "topic: ~{name}()\nlanguage: enu\ndescription: {description}\nu:(talk about {name}) ok\n"
            );
            let name = d(ctx, "loadTopicContent", vec![s(&topic)])?;
            d(ctx, "activateTopic", vec![name])?;
        }
        hear(ctx, "talk about music")
    });
    assert_eq!(outcome, Outcome::Finished);
    let get = |key: &str| robot.call("ALMemory", "getData", vec![s(key)]).unwrap();
    assert_eq!(get("Dialog/Focus"), s("music"));
    assert_eq!(get("Dialog/FocusDescription"), s("songs"));
}

#[test]
fn the_dialog_s_data_say_what_matched_and_what_the_robot_is() {
    // The ALDialog API page's "Data" and events: Dialog/MatchedTopic, MatchedLine,
    // MatchedInput ("When Dialog/LastAnswer is raised"), Dialog/CurrentString, Dialog/Tag
    // ("the tag's name"), Dialog/Scope (1 when a scope opens, 0 when it closes),
    // Dialog/IsStarted, Dialog/RobotModel ("nao" on nao), Dialog/Language/English (1), the
    // time data ($Dialog/Year in an output).
    let robot = SimRobot::new(Model::Nao);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let (outcome, _) = run_box(&robot, move |ctx| {
        let topic = "topic: ~greet()\nlanguage: enu\n\
                     u:(hello) %welcome hello human, how are you?\n  u1:(fine) good\n\
                     u:(what year is it) it is $Dialog/Year\n";
        let name = d(ctx, "loadTopicContent", vec![s(topic)])?;
        d(ctx, "activateTopic", vec![name])?;
        d(ctx, "subscribe", vec![s("t")])?;
        let get = |key: &str| ctx.call_robot("ALMemory", "getData", vec![s(key)]);
        log.lock().unwrap().push(get("Dialog/IsStarted")?);
        hear(ctx, "well hello")?;
        for key in [
            "Dialog/MatchedTopic",
            "Dialog/MatchedLine",
            "Dialog/MatchedInput",
            "Dialog/CurrentString",
            "Dialog/Tag",
            "Dialog/Scope",
        ] {
            log.lock().unwrap().push(get(key)?);
        }
        hear(ctx, "fine")?;
        log.lock().unwrap().push(get("Dialog/Scope")?);
        hear(ctx, "what year is it")?;
        d(ctx, "unsubscribe", vec![s("t")])?;
        log.lock().unwrap().push(get("Dialog/IsStarted")?);
        log.lock().unwrap().push(get("Dialog/RobotModel")?);
        log.lock().unwrap().push(get("Dialog/Language/English")?);
        Ok(())
    });
    assert_eq!(outcome, Outcome::Finished);
    let seen = seen.lock().unwrap();
    assert_eq!(
        *seen,
        [
            i(1),
            s("greet"),
            i(3),
            s("well hello"),
            s("well hello"),
            s("welcome"),
            i(1),
            i(0),
            i(0),
            s("nao"),
            i(1)
        ]
    );
    let said = said(&robot);
    let year = said[2].strip_prefix("it is ").unwrap();
    assert!(year.len() == 4 && year.starts_with("20"), "{said:?}");
}

/// What the robot says to "pick", eight times, with a topic whose answer is `^rand` of ten
/// words, on a run seeded with `seed`.
fn picks(seed: u64) -> Vec<String> {
    let robot = SimRobot::new(Model::Nao);
    let dir = folder(&[(
        &format!("rand_{seed}.top"),
        "topic: ~rand()\nlanguage: enu\nu:(pick) ^rand[one two three four five six seven eight nine ten]\n",
    )]);
    let file = dir.join(format!("rand_{seed}.top"));
    let f: support::BoxFn = Arc::new(move |ctx| {
        d(ctx, "setLanguage", vec![s("English")])?;
        let name = d(ctx, "loadTopic", vec![s(&file.display().to_string())])?;
        d(ctx, "activateTopic", vec![name])?;
        for _ in 0..8 {
            hear(ctx, "pick")?;
        }
        Ok(())
    });
    let (outcome, trace) = support::run_boxes_seeded(&robot, vec![("Box", f)], Some(seed));
    assert_eq!(outcome, Outcome::Finished, "{}", trace.join("\n"));
    said(&robot)
}

#[test]
fn rand_follows_the_run_s_seed() {
    // "^rand: randomly chooses one of the outputs" (the 2.8 syntax page): which one is the
    // run's seed's choice, so that a run is repeated from its report (`--seed`).
    let first = picks(7);
    assert_eq!(first.len(), 8, "{first:?}");
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    assert!(
        first.iter().all(|w| words.contains(&w.as_str())),
        "{first:?}"
    );
    assert_eq!(picks(7), first, "the same seed, the same choices");
    assert_ne!(picks(8), first, "another seed, other choices");
}
