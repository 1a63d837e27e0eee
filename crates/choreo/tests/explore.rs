//! `choreo explore`: every branch a person could take, tried from what the behavior
//! listens for; each fault with its shortest scenario, which `choreo run --events` replays.

use crate::support;

use support::cli::{choreo, text, workspace};

/// The quiz (fixtures/quiz.xar) asks three times, listening for "red", "green" or "blue";
/// a wrong answer ends it, and the third right one ("blue", "blue", "blue") raises. By
/// hand: the root path waits once; each of its four inputs (three words, and something
/// else said, which ALSpeechRecognition reports as "red" heard unsure) is a path; only "blue" waits again, twice more: 1 + 4 + 4 + 4 paths,
/// and the error at depth 3.
#[test]
fn explore_finds_the_error_behind_the_third_answer_and_its_scenario_replays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("explored");
    let quiz = "crates/choreo/tests/fixtures/quiz.xar";
    let o = choreo(&["explore", quiz, "--out", out.to_str().unwrap()]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("explore.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], 1);
    assert_eq!(json["paths"], 13, "{json:#}");
    assert_eq!(json["complete"], true);
    assert_eq!(
        (json["entered"].clone(), json["loaded"].clone()),
        (2.into(), 2.into())
    );
    let faults = json["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{json:#}");
    assert_eq!(faults[0]["kind"], "error");
    assert_eq!(faults[0]["path"], "root/Quiz");
    assert_eq!(
        faults[0]["text"],
        "ValueError: the third right answer breaks the quiz"
    );
    let said: Vec<&str> = faults[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["input"]["words"].as_str().unwrap())
        .collect();
    assert_eq!(said, ["blue", "blue", "blue"]);
    assert!(stdout.contains("after: say \"blue\""), "{stdout}");
    // The scenario replays to the same error, and to the same trace every time (the suite
    // also runs with every core busy).
    let scenario = out.join("fault-1.yaml");
    let replay = |trace: &std::path::Path| {
        let o = choreo(&[
            "run",
            quiz,
            "--fast",
            "--events",
            scenario.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ]);
        text(&o).0
    };
    let (first, second) = (dir.path().join("1.jsonl"), dir.path().join("2.jsonl"));
    let replayed = replay(&first);
    assert!(
        replayed.contains(
            "root/Quiz line 27 (onInput_onWord): ValueError: the third right answer breaks the quiz"
        ),
        "{replayed}"
    );
    replay(&second);
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        std::fs::read_to_string(&second).unwrap()
    );
    // The same exploration again: the same paths, the same findings.
    let again = choreo(&["explore", quiz, "--json"]);
    let second: serde_json::Value = serde_json::from_str(&text(&again).0).unwrap();
    for field in [
        "paths",
        "boxes",
        "faults",
        "rules_matched",
        "behavior_seconds",
    ] {
        assert_eq!(json[field], second[field], "{field}");
    }
}

/// With a horizon of 0.2 s the quiz's plain run ends while it still says its first question
/// (it listens from about 2.5 s on): only time passing (a child that waits ten minutes
/// more) reaches the answers. The fault is still found, and its scenario shrunk to the three
/// answers, whose times the run's horizon then covers.
#[test]
fn time_passing_reaches_what_a_short_horizon_cuts() {
    let o = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/quiz.xar",
        "--timeout",
        "0.2",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    let faults = json["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{json:#}");
    let inputs: Vec<String> = faults[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["input"].to_string())
        .collect();
    let blue = r#"{"kind":"say","words":"blue"}"#;
    assert_eq!(inputs, [blue, blue, blue], "{json:#}");
}

/// `choreo explore FIXTURE --out <dir>/explored`, which finds faults (exit 1): its JSON, the
/// folder it wrote, and its first fault of kind `error`.
fn explored_to_an_error(
    fixture: &str,
    dir: &std::path::Path,
) -> (serde_json::Value, std::path::PathBuf, serde_json::Value) {
    let out = dir.join("explored");
    let o = choreo(&["explore", fixture, "--out", out.to_str().unwrap()]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("explore.json")).unwrap()).unwrap();
    let error = json["faults"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "error")
        .cloned()
        .unwrap_or_else(|| panic!("no error found: {json:#}"));
    (json, out, error)
}

/// fixtures/dice.xar rolls two dice (`random.randint(1, 6)`, then `random.choice` of six
/// faces) and breaks on two sixes, which the run's seed never rolls. By hand: the root path
/// draws twice; each other face of each draw is a path (2 × 5); each path that set the first
/// draw tries the five other faces of the second (5 × 5); the paths that set the second
/// draw make no draw after it: 1 + 10 + 25 = 36, the error at depth 2, and its scenario's
/// `chance` replays it.
#[test]
fn explore_rolls_the_dice_the_seed_never_rolls() {
    let dir = tempfile::tempdir().unwrap();
    let dice = "crates/choreo/tests/fixtures/dice.xar";
    let (json, out, error) = explored_to_an_error(dice, dir.path());
    assert_eq!(json["paths"], 36, "{json:#}");
    assert_eq!(error["text"], "ValueError: two sixes break the game");
    let set: Vec<(u64, u64, u64)> = error["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["input"])
        .map(|i| {
            assert_eq!(i["kind"], "chance", "{i}");
            let n = |k: &str| i[k].as_u64().unwrap();
            (n("draw"), n("outcome"), n("of"))
        })
        .collect();
    assert_eq!(set, [(1, 5, 6), (2, 5, 6)]);
    let scenario = std::fs::read_to_string(out.join("fault-1.yaml")).unwrap();
    assert!(
        scenario.contains("chance:\n  - {draw: 1, outcome: 5}"),
        "{scenario}"
    );
    let replayed = choreo(&[
        "run",
        dice,
        "--fast",
        "--events",
        out.join("fault-1.yaml").to_str().unwrap(),
    ]);
    let (replayed, _) = text(&replayed);
    assert!(
        replayed.contains("ValueError: two sixes break the game"),
        "{replayed}"
    );
    // Without the scenario the seed rolls what it rolls: no error.
    let plain = choreo(&["run", dice, "--fast"]);
    assert!(!text(&plain).0.contains("two sixes"));
}

/// fixtures/get_up.xar asks ALRobotPose which pose the robot is in and breaks when it lies
/// on its belly. By hand: the plain path reads the pose (the robot starts in StandInit:
/// "Stand"); the same path is run from each other posture family of NAO's library (Crouch,
/// Sit, LyingBelly, LyingBack: ALRobotPosture's predefined postures), 5 paths; lying on its
/// belly, ALRobotPose says "Belly" (the robot tells lying from its torso's orientation), and
/// the scenario's `posture` replays it.
#[test]
fn explore_lays_the_robot_down_where_a_behavior_asks_its_pose() {
    let dir = tempfile::tempdir().unwrap();
    let get_up = "crates/choreo/tests/fixtures/get_up.xar";
    let (json, out, error) = explored_to_an_error(get_up, dir.path());
    assert_eq!(json["paths"], 5, "{json:#}");
    assert_eq!(error["text"], "RuntimeError: cannot get up from the belly");
    assert_eq!(
        error["steps"],
        serde_json::json!([{"at": 0.0, "input": {"kind": "posture", "name": "LyingBelly"}}])
    );
    let scenario = out.join("fault-1.yaml");
    let text_of = std::fs::read_to_string(&scenario).unwrap();
    assert!(text_of.contains("posture: \"LyingBelly\""), "{text_of}");
    let replayed = choreo(&[
        "run",
        get_up,
        "--fast",
        "--events",
        scenario.to_str().unwrap(),
    ]);
    assert!(text(&replayed).0.contains("cannot get up from the belly"));
    // Sat down, it gets up from "Sit"; a posture NAO does not have is refused, named.
    let sit = dir.path().join("sit.yaml");
    std::fs::write(&sit, "events: []\nposture: Sit\n").unwrap();
    let trace = dir.path().join("sit.jsonl");
    let o = choreo(&[
        "run",
        get_up,
        "--fast",
        "--events",
        sit.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(trace.contains(r#""message":"got up from Sit""#), "{trace}");
    std::fs::write(&sit, "events: []\nposture: Frog\n").unwrap();
    let o = choreo(&["run", get_up, "--fast", "--events", sit.to_str().unwrap()]);
    let (out_text, err_text) = text(&o);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        err_text.contains("posture: NAO has no posture \"Frog\" (its postures: StandInit, Stand"),
        "{out_text}{err_text}"
    );
}

/// fixtures/face.xar waits for a face (a memory input on `FaceDetected`), analyzes the
/// person's face and breaks on a sad one. By hand: the first path waits; the face shown is
/// a path; its box analyzed a face, so five more run it with each other face, one property
/// at a time (male; happy, surprised, angry, sad): 1 + 1 + 5 = 7, the error with the sad
/// face, and its scenario's `face` replays it; a happy face goes on.
#[test]
fn explore_shows_each_face_where_a_behavior_reads_one() {
    let dir = tempfile::tempdir().unwrap();
    let face = "crates/choreo/tests/fixtures/face.xar";
    let (json, out, error) = explored_to_an_error(face, dir.path());
    assert_eq!(json["paths"], 7, "{json:#}");
    assert_eq!(error["text"], "RuntimeError: the person is sad");
    let steps = error["steps"].as_array().unwrap();
    assert_eq!(
        steps[0],
        serde_json::json!({"at": 0.0, "input": {"kind": "face", "gender": "female", "expression": "sad"}})
    );
    assert_eq!(steps[1]["input"]["key"], "FaceDetected", "{error:#}");
    let scenario = out.join("fault-1.yaml");
    let text_of = std::fs::read_to_string(&scenario).unwrap();
    assert!(
        text_of.contains(r#"face: {"expression":"sad","gender":"female"}"#),
        "{text_of}"
    );
    let replayed = choreo(&[
        "run",
        face,
        "--fast",
        "--events",
        scenario.to_str().unwrap(),
    ]);
    assert!(text(&replayed).0.contains("the person is sad"));
    let happy = dir.path().join("happy.yaml");
    std::fs::write(&happy, text_of.replace("\"sad\"", "\"happy\"")).unwrap();
    let o = choreo(&["run", face, "--fast", "--events", happy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
}

/// examples/dialog's English topic (greet/greet_enu.top) has six user rules: `e:onStart`,
/// which answers when the box starts, and five a person can say ("hello", "my name is
/// ...", "what is my name", "dance", "goodbye"). Each is said on a path of its own.
#[test]
fn explore_answers_every_rule_of_a_dialog() {
    let setup = choreo::Project::open(workspace().join("examples/dialog"))
        .unwrap()
        .behavior(None)
        .unwrap();
    let found = choreo::explore::explore(&setup, &choreo::explore::Options::default()).unwrap();
    assert_eq!(found.rules_matched.len(), 6, "{}", found.summary());
    assert!(found.rules_unmatched.is_empty(), "{}", found.summary());
    assert!(found.faults.is_empty(), "{}", found.summary());
    assert!(found.complete);
}

/// A bound stops the search, and says so.
#[test]
fn explore_stops_at_its_bound_of_paths() {
    let o = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/quiz.xar",
        "--max-paths",
        "3",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    assert_eq!(json["paths"], 3);
    assert_eq!(json["complete"], false);
    assert_eq!(o.status.code(), Some(0));
}

/// A plain run of the quiz (one path) never says a wrong answer: the box after its
/// `onWrong` output is loaded and never entered, and the report names the box whose
/// output never fired.
#[test]
fn a_box_never_entered_says_why() {
    let o = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/quiz.xar",
        "--max-paths",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    let never = &json["boxes"][0]["never_entered"];
    assert_eq!(
        never,
        &serde_json::json!([{
            "path": "root/Sorry",
            "why": "root/Quiz was entered; its output onWrong never fired",
            "behind": null
        }]),
        "{json:#}"
    );
}

/// fixtures/unreached.xar: `Orphan` has no link into it; only the root's memory input
/// `MyApp/Go`, a key of the behavior's own that nothing raises, leads to `Waiter`, and
/// `After` is behind `Waiter`.
#[test]
fn a_box_no_link_reaches_and_one_behind_an_unproduced_key_say_so() {
    let o = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/unreached.xar",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    assert_eq!(
        json["boxes"][0]["never_entered"],
        serde_json::json!([
            {"path": "root/After", "why": "it waits for ALMemory MyApp/Go", "behind": "root/Waiter"},
            {"path": "root/Orphan", "why": "no link leads to it", "behind": null},
            {"path": "root/Waiter", "why": "it waits for ALMemory MyApp/Go", "behind": null}
        ]),
        "{json:#}"
    );
    assert_eq!(json["unproduced"], serde_json::json!(["MyApp/Go"]));
}

/// fixtures/stuck.xar: the root starts `Forgets`, which never fires `onStopped`, and nothing
/// is subscribed: the behavior can never end nor be moved. A hang, named by the box under way.
#[test]
fn a_behavior_nothing_can_move_any_more_is_a_hang() {
    let o = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/stuck.xar",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    assert_eq!(
        json["faults"],
        serde_json::json!([{
            "kind": "hang",
            "path": "root/Forgets",
            "text": "nothing can happen any more, and the behavior has not ended; under way: root/Forgets",
            "steps": []
        }])
    );
    // The quiz ends on each path (or waits for words): no hang there.
    let quiz = choreo(&["explore", "crates/choreo/tests/fixtures/quiz.xar", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text(&quiz).0).unwrap();
    assert!(
        json["faults"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["kind"] != "hang"),
        "{json:#}"
    );
}

/// fixtures/tablet: the root waits for `Lesson/Next`, which only the project's tablet page
/// (html/index.html) raises, with 2: explore reads the page and raises it so; the box
/// behind is entered and its check of the value holds (it raises on another value).
#[test]
fn a_key_the_projects_web_page_raises_is_raised_with_its_value() {
    let o = choreo(&["explore", "crates/choreo/tests/fixtures/tablet", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    assert_eq!(o.status.code(), Some(0), "{json:#}");
    assert_eq!(json["entered"], 1, "{json:#}");
    assert_eq!(json["loaded"], 1, "{json:#}");
    assert_eq!(json["unproduced"], serde_json::json!([]));
    assert_eq!(json["paths"], 2);
}

/// `--out` keeps a journal of the paths run; `--resume` goes on from it: the quiz explored
/// five paths, then resumed, ends where one exploration does (13 paths, the same fault),
/// no path run twice (each run is one line of the journal, after its header), a line an
/// interruption cut dropped. A journal of another behavior is refused.
#[test]
fn an_exploration_resumes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("explored");
    let out = out.to_str().unwrap();
    let quiz = "crates/choreo/tests/fixtures/quiz.xar";
    let report = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(&text(o).0).unwrap()
    };
    let first = choreo(&["explore", quiz, "--out", out, "--max-paths", "5", "--json"]);
    let first = report(&first);
    assert_eq!(
        (first["paths"].clone(), first["complete"].clone()),
        (5.into(), false.into())
    );
    let journal = std::path::Path::new(out).join("paths.jsonl");
    let lines = || std::fs::read_to_string(&journal).unwrap().lines().count();
    assert_eq!(lines(), 1 + 5);
    // An interruption cut the last line short: that path runs again, and the journal keeps
    // no cut line.
    let mut cut = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    std::io::Write::write_all(&mut cut, b"{\"steps\":[{\"at\":3.0").unwrap();
    drop(cut);

    let resumed = choreo(&["explore", quiz, "--out", out, "--resume", "--json"]);
    assert!(
        text(&resumed).1.contains("resuming: 5 paths run before"),
        "{}",
        text(&resumed).1
    );
    let resumed = report(&resumed);
    let whole = report(&choreo(&["explore", quiz, "--json"]));
    for field in ["paths", "complete", "boxes", "faults", "rules_matched"] {
        assert_eq!(resumed[field], whole[field], "{field}");
    }
    // Each path run once: no inputs twice in the journal (the 13 of the search, and the
    // fault's shrinking tries).
    let text_of = std::fs::read_to_string(&journal).unwrap();
    let steps: Vec<String> = text_of
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["steps"].to_string())
        .collect();
    let distinct: std::collections::BTreeSet<&String> = steps.iter().collect();
    assert_eq!(distinct.len(), steps.len(), "a path run again: {text_of}");
    assert!(steps.len() >= 13, "{}", steps.len());

    let other = choreo(&[
        "explore",
        "crates/choreo/tests/fixtures/unreached.xar",
        "--out",
        out,
        "--resume",
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        text(&other).1.contains("another behavior"),
        "{}",
        text(&other).1
    );
}

/// A real project's German dialog with subrules four deep (the RoboCupJr. 2019 `Bestellung`
/// order taker: dish, then whether a drink, which, whether a second, which): its behavior
/// file run alone is run in its project (German, from the manifest and the dialog its box
/// loads), and every one of the topic's 8 user rules (counted in `OrderDialoge_ged.top`:
/// `e:onStart`, the dish, and six subrules) answers on some path, each subrule once its
/// rule has answered.
#[test]
fn explore_follows_a_real_dialog_into_its_subrules() {
    let Some(corpus) = choreo_testkit::corpus("exploring a corpus dialog") else {
        return;
    };
    let behavior = corpus.join(
        "simonholzapfel__NAO-Choregraphe-Projects/RoboCupJr. 2019/Bestellung/Bestellung/behavior_1/behavior.xar",
    );
    let o = choreo(&["explore", behavior.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    let lines = |field: &str| -> Vec<String> {
        json[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        lines("rules_matched"),
        [12, 16, 17, 18, 19, 20, 21, 22].map(|l| format!("OrderDialoge:{l}")),
        "{json:#}"
    );
    assert!(lines("rules_unmatched").is_empty(), "{json:#}");
}

/// A real game that takes several turns to reach its end (../shared/corpus's
/// kossy__Nao-Rock-Paper-Scissors): its Greeting topic asks whether to play ("yes" sets
/// `$play`), the robot counts down, picks its hand at random and waits for the person's
/// NAOmark, which its script reads as 114 rock, 119 paper, 64 scissors, then says who won and
/// its PlayAgain topic asks again. By hand: the three marks are on the documentation's
/// printable sheet (NAOmark.pdf), so explore shows each; against the robot's one hand, one
/// of them draws, one wins and one loses, whichever hand it picked — so each outcome's box
/// is entered, and the PlayAgain topic, reached only at a game's end, answers both ways.
#[test]
fn explore_plays_a_real_game_to_each_of_its_ends() {
    let Some(corpus) = choreo_testkit::corpus("exploring a corpus game") else {
        return;
    };
    let project = corpus.join("kossy__Nao-Rock-Paper-Scissors/src");
    // Bounded by paths, not by real time: the search's order depends only on the paths'
    // results, so its first 40 paths (which reach both ends of PlayAgain) are the same on
    // any machine; the default 30 s ran out after 20 with every core busy.
    let o = choreo(&[
        "explore",
        project.to_str().unwrap(),
        "--json",
        "--max-paths",
        "40",
        "--time",
        "600",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    let entered: Vec<&str> = json["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["entered"].as_array().unwrap())
        .map(|b| b.as_str().unwrap())
        .collect();
    for end in [
        "root/Play/Human win",
        "root/Play/Draw",
        "root/Play/Human Lose",
    ] {
        assert!(entered.contains(&end), "{end} never entered: {json:#}");
    }
    let matched = json["rules_matched"].to_string();
    for rule in ["PlayAgain:4", "PlayAgain:5"] {
        assert!(matched.contains(rule), "{rule}: {json:#}");
    }
}

/// A keyframe's diagram starts only the boxes its onLoad links reach (runtime-semantics P4):
/// in ../shared/corpus's hackathon_behaviour.crg (Choregraphe 1.x), the ApplicationTemplate
/// timeline's keyframe "Init" (frame 1) links `gotoIntro` from its onLoad and holds Comment
/// boxes nothing links to. The plain run reaches frame 1 (`gotoIntro` runs); a Comment is
/// never entered because no link leads to it, never "its frame 1 never came".
#[test]
fn a_keyframe_box_nothing_links_to_says_no_link() {
    let Some(corpus) = choreo_testkit::corpus("exploring a corpus timeline") else {
        return;
    };
    let crg = corpus
        .join("chiarasabaini__3CI_assignments/INI/nao/Nao Robot Project/hackathon_behaviour.crg");
    let o = choreo(&[
        "explore",
        crg.to_str().unwrap(),
        "--max-paths",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&o).0).unwrap();
    let diagram = json["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["diagram"] == "root/ApplicationTemplate")
        .unwrap();
    assert!(
        diagram["entered"]
            .to_string()
            .contains("\"root/ApplicationTemplate/gotoIntro\""),
        "{diagram:#}"
    );
    let comment = diagram["never_entered"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["path"] == "root/ApplicationTemplate/Comment")
        .unwrap();
    assert_eq!(comment["why"], "no link leads to it", "{diagram:#}");
}
