//! `choreo chat`: a topic talked to through a pipe, a scripted conversation checked, a broken
//! topic refused with its errors located.

use crate::support;

use std::io::Write as _;
use std::process::{Command, Stdio};

use support::cli::{choreo, text, trace_events, workspace};

const TOPIC: &str = "topic: ~greet()
language: enu
concept:(hello) [hello hi \"good morning\"]
u:(~hello) ~hello, what is your name?
  u1:(my name is _*) nice to meet you $1 $name=$1
u:(what is my name) your name is $name
u:(dance) let's dance ^start(dances/macarena)
";

fn topic_file(dir: &std::path::Path) -> String {
    let path = dir.join("greet.top");
    std::fs::write(&path, TOPIC).unwrap();
    path.display().to_string()
}

#[test]
fn chat_answers_each_line_read_with_the_rule_that_matched() {
    let dir = tempfile::tempdir().unwrap();
    let topic = topic_file(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["chat", &topic])
        .current_dir(workspace())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"good morning\nmy name is Ada\nwhat is my name\ndance\nsing\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            format!("robot: hello, what is your name?   [{topic}:4]").as_str(),
            // A capture keeps the case it was heard in (the 2.8 syntax page: "my name is
            // David" → "nice to meet you David").
            format!("robot: nice to meet you Ada   [{topic}:5]").as_str(),
            "       ($name = Ada)",
            format!("robot: your name is Ada   [{topic}:6]").as_str(),
            format!("robot: let's dance   [{topic}:7]").as_str(),
            "       (start: dances/macarena)",
            "robot: (no rule matches)",
        ]
    );
}

#[test]
fn a_script_checks_the_answers_and_a_wrong_one_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let topic = topic_file(dir.path());
    let script = dir.path().join("talk.txt");
    std::fs::write(
        &script,
        "# a greeting, a name, and nothing for a song\n> hi\n< hello, what is your name?\n> my name is Ada\n< *\n> sing\n<\n",
    )
    .unwrap();
    let o = choreo(&["chat", &topic, "--script", script.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.ends_with("3 answers checked, 0 wrong\n"), "{out}");
    std::fs::write(&script, "> what is my name\n< your name is bob\n").unwrap();
    let o = choreo(&["chat", &topic, "--script", script.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    // $name unset: the rule says nothing at all ("Using a non-affected variable in a robot
    // output will make the rule invalid, i.e. the rule will not be said at all").
    assert!(
        err.contains("talk.txt:2: expected \"your name is bob\", the robot said nothing"),
        "{err}"
    );
}

#[test]
fn a_topic_with_syntax_errors_is_refused_with_them_located() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.top");
    std::fs::write(&bad, "topic: ~bad()\nu:([oops) no\n").unwrap();
    let o = choreo(&["chat", bad.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(4));
    assert!(err.contains("bad.top:2:"), "{err}");
}

/// The standard ports of a box (and of the root): onLoad, onStart, onStop, onStopped.
const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
"#;

/// A behavior whose root holds one box, id 1, `open` its opening (its tag, its script) and
/// `more` the ports after the standard ones: the root's onStart starts it, its onStopped
/// ends the root.
fn behavior_of(open: &str, more: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
{PORTS}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
{open}{PORTS}{more}</Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>
"#
    )
}

/// The Python box of a behavior that runs a dialog on `greet.top` for five seconds.
const DIALOG_SCRIPT_BOX: &str = r#"<Box name="Talk" id="1"><script language="4"><content><![CDATA[import os

class MyClass(GeneratedClass):
    def onLoad(self):
        self.dialog = ALProxy("ALDialog")

    def onInput_onStart(self):
        topic = self.dialog.loadTopic(os.path.join(self.behaviorAbsolutePath(), "greet.top"))
        self.dialog.activateTopic(topic)
        self.dialog.subscribe("talk")
        time.sleep(5)
        self.dialog.unsubscribe("talk")
        self.dialog.deactivateTopic(topic)
        self.dialog.unloadTopic(topic)
        self.onStopped()
]]></content></script>
"#;

#[test]
fn a_behavior_s_dialog_answers_what_the_scenario_makes_the_robot_hear() {
    let dir = tempfile::tempdir().unwrap();
    topic_file(dir.path());
    std::fs::write(
        dir.path().join("behavior.xar"),
        behavior_of(DIALOG_SCRIPT_BOX, ""),
    )
    .unwrap();
    let events = dir.path().join("talk.yaml");
    std::fs::write(
        &events,
        "events:\n  - at: 1.0\n    recognize: {word: \"hello\", confidence: 0.9}\n  - at: 3.0\n    recognize: {word: \"my name is Ada\", confidence: 0.9}\n",
    )
    .unwrap();
    let o = choreo(&[
        "run",
        dir.path().to_str().unwrap(),
        "--fast",
        "--events",
        events.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("says \"hello, what is your name?\""), "{err}");
    assert!(err.contains("says \"nice to meet you Ada\""), "{err}");
}

#[test]
fn a_dlg_file_gives_its_topic_in_the_language_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hi.dlg"),
        "multilanguage:hi\n  enu:hi_enu.top\n  frf:hi_frf.top\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("hi_enu.top"),
        "topic: ~hi()\nlanguage: enu\nu:(hello) hello there\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("hi_frf.top"),
        "topic: ~hi()\nlanguage: frf\nu:(bonjour) bonjour toi\n",
    )
    .unwrap();
    let script = dir.path().join("talk.txt");
    std::fs::write(&script, "> bonjour\n< bonjour toi\n").unwrap();
    let dlg = dir.path().join("hi.dlg");
    let o = choreo(&[
        "chat",
        dlg.to_str().unwrap(),
        "--lang",
        "frf",
        "--script",
        script.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let o = choreo(&[
        "chat",
        dlg.to_str().unwrap(),
        "--lang",
        "jpj",
        "--script",
        script.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(4));
    assert!(err.contains("no topic in jpj (it has: enu, frf)"), "{err}");
}

/// The opening of a stock Dialog box, "Talk", with the dialog `../greet/greet.dlg`, and its
/// output `playAGame` (for [`behavior_of`], in `behavior_1/`).
const DIALOG_BOX: (&str, &str) = (
    r#"<Box name="Talk" id="1" localization="8"><dialogFile>../greet/greet.dlg</dialogFile>
<script language="4"><content><![CDATA[]]></content></script>
"#,
    r#"<Output name="playAGame" type="1" type_size="1" nature="2" inner="0" id="5"/>
"#,
);

/// A folder with a behavior starting [`DIALOG_BOX`] and its dialog, in English and French.
fn dialog_box_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("behavior_1")).unwrap();
    std::fs::create_dir_all(p.join("greet")).unwrap();
    // A Choregraphe project's manifest: the package whose files (the dialog beside the
    // behavior's folder) its behavior reads.
    std::fs::write(
        p.join("manifest.xml"),
        "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"greet\" version=\"0.0.0\"><names><name lang=\"en_US\">greet</name></names><behaviors><behaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" /></behaviors></package>\n",
    )
    .unwrap();
    std::fs::write(
        p.join("behavior_1/behavior.xar"),
        behavior_of(DIALOG_BOX.0, DIALOG_BOX.1),
    )
    .unwrap();
    std::fs::write(
        p.join("greet/greet.dlg"),
        "multilanguage:greet\n  enu:greet_enu.top\n  frf:greet_frf.top\n",
    )
    .unwrap();
    std::fs::write(
        p.join("greet/greet_enu.top"),
        "topic: ~greet()\nlanguage: enu\n\
         u:(e:onStart) hello, shall we play?\n\
         \x20 u1:(yes) great $playAGame=1 ^stayInScope\n\
         \x20 u1:(no) bye then $onStopped=1\n",
    )
    .unwrap();
    std::fs::write(
        p.join("greet/greet_frf.top"),
        "topic: ~greet()\nlanguage: frf\nu:(e:onStart) bonjour $onStopped=1\n",
    )
    .unwrap();
    dir
}

#[test]
fn the_stock_dialog_box_answers_fires_its_outputs_and_stops() {
    let dir = dialog_box_project();
    let events = dir.path().join("talk.yaml");
    std::fs::write(
        &events,
        "events:\n  - at: 3.0\n    recognize: {word: \"yes\", confidence: 0.9}\n  - at: 6.0\n    recognize: {word: \"no\", confidence: 0.9}\n",
    )
    .unwrap();
    let trace = dir.path().join("trace.jsonl");
    let xar = dir.path().join("behavior_1/behavior.xar");
    let o = choreo(&[
        "run",
        xar.to_str().unwrap(),
        "--fast",
        "--events",
        events.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    // onStopped ends the behavior: it finishes.
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("finished"), "{out}");
    let hello = err.find("says \"hello, shall we play?\"").expect(&err);
    let great = err.find("says \"great\"").expect(&err);
    let bye = err.find("says \"bye then\"").expect(&err);
    assert!(hello < great && great < bye, "{err}");
    let events = trace_events(&trace);
    let out = |port: &str| {
        events
            .iter()
            .find(|e| e["path"] == "root/Talk" && e["event"] == "out" && e["port"] == port)
            .map(|e| e["time_ns"].as_u64().unwrap() as f64 / 1e9)
    };
    // The output fires once "great" is said (3.0 s + its speech), onStopped after "bye then".
    let play = out("playAGame").expect("playAGame fired");
    assert!(play > 3.3 && play < 6.0, "{play}");
    let stopped = out("onStopped").expect("onStopped fired");
    assert!(stopped > 6.3, "{stopped}");
    // What the dialog said is in the trace, when it was said.
    let said: Vec<(&str, f64)> = events
        .iter()
        .filter(|e| e["event"] == "said")
        .map(|e| {
            let t = e["time_ns"].as_u64().unwrap() as f64 / 1e9;
            (e["text"].as_str().unwrap_or(""), t)
        })
        .collect();
    assert_eq!(
        said.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        ["hello, shall we play?", "great", "bye then"],
        "{said:?}"
    );
    assert!(said[1].1 >= 3.0 && said[2].1 >= 6.0, "{said:?}");
    // Stopping cleans up: the dialog is unsubscribed and the topic unloaded.
    let calls: Vec<String> = events
        .iter()
        .filter(|e| e["event"] == "robot_call")
        .map(|e| e["method"].as_str().unwrap_or("").to_string())
        .collect();
    for method in [
        "ALDialog.unsubscribe",
        "ALDialog.deactivateTopic",
        "ALDialog.unloadTopic",
    ] {
        assert!(calls.iter().any(|c| c == method), "{method}: {calls:?}");
    }
}

#[test]
fn the_dialog_box_speaks_the_robot_s_language_and_says_which_it_lacks() {
    let dir = dialog_box_project();
    let xar = dir.path().join("behavior_1/behavior.xar");
    let o = choreo(&["run", xar.to_str().unwrap(), "--fast", "--lang", "French"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("speaking French"), "{err}");
    assert!(err.contains("says \"bonjour\""), "{err}");
    let o = choreo(&["run", xar.to_str().unwrap(), "--fast", "--lang", "ged"]);
    let (_, err) = text(&o);
    assert!(
        err.contains("../greet/greet.dlg has no topic in German (ged), the robot's language; it has: enu, frf"),
        "{err}"
    );
    let o = choreo(&["run", xar.to_str().unwrap(), "--lang", "Klingon"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn chat_talks_with_a_behavior_s_dialog_boxes() {
    let dir = dialog_box_project();
    let xar = dir.path().join("behavior_1/behavior.xar");
    let script = dir.path().join("talk.txt");
    // The box starts: its e:onStart rule speaks first; then the human.
    std::fs::write(
        &script,
        "< hello, shall we play?\n> yes\n< great\n> e:FrontTactilTouched\n<\n> no\n< bye then\n",
    )
    .unwrap();
    let o = choreo(&[
        "chat",
        xar.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("behavior.xar!greet/greet_enu.top:3]"), "{out}");
    assert!(out.contains("(root/Talk: output playAGame)"), "{out}");
    assert!(out.contains("(root/Talk: output onStopped)"), "{out}");
    assert!(out.ends_with("4 answers checked, 0 wrong\n"), "{out}");
    // In French, and a language its dialog lacks.
    let o = choreo(&["chat", xar.to_str().unwrap(), "--lang", "frf"]);
    assert!(text(&o).0.contains("robot: bonjour"), "{:?}", text(&o));
    let o = choreo(&["chat", xar.to_str().unwrap(), "--lang", "ged"]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        text(&o)
            .1
            .contains("greet/greet.dlg: no topic in ged (it has: enu, frf)"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn the_dialog_example_runs_its_conversation_and_its_script() {
    let o = choreo(&[
        "run",
        "examples/dialog",
        "--fast",
        "--events",
        "examples/dialog/talk.yaml",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("finished"), "{out}");
    for line in [
        "says \"Nice to meet you, Ada.\"",
        "Positive/Happy_1",
        "ALMemory root/Chat/danced = \"1\"",
        "says \"Goodbye Ada!\"",
    ] {
        assert!(err.contains(line), "{line}: {err}");
    }
    let o = choreo(&[
        "chat",
        "examples/dialog",
        "--script",
        "examples/dialog/talk.txt",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.ends_with("6 answers checked, 0 wrong\n"), "{out}");
}

#[test]
fn the_robot_speaks_the_manifest_language_its_dialogs_have() {
    // The manifest declares English and French; the dialog is French only: the robot is
    // set to French, as the package's author had it.
    let dir = dialog_box_project();
    let p = dir.path();
    std::fs::remove_file(p.join("greet/greet_enu.top")).unwrap();
    std::fs::write(
        p.join("greet/greet.dlg"),
        "multilanguage:greet\n  frf:greet_frf.top\n",
    )
    .unwrap();
    let manifest = |languages: &str| {
        format!(
            "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"greet\" version=\"0.0.1\">\n \
             <supportedLanguages>{languages}</supportedLanguages>\n <contents>\n  \
             <behaviorContent path=\"behavior_1\"><nature>interactive</nature></behaviorContent>\n \
             </contents>\n</package>\n"
        )
    };
    std::fs::write(
        p.join("manifest.xml"),
        manifest("<language>en_US</language><language>fr_FR</language>"),
    )
    .unwrap();
    let o = choreo(&["run", p.to_str().unwrap(), "--fast"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        err.contains("speaking French") && err.contains("says \"bonjour\""),
        "{err}"
    );
    // Declared English only, as Choregraphe writes every manifest: no topic is in
    // English and all are in French, so the robot speaks French, and the report says why.
    std::fs::write(
        p.join("manifest.xml"),
        manifest("<language>en_US</language>"),
    )
    .unwrap();
    let o = choreo(&["run", p.to_str().unwrap(), "--fast"]);
    let (out, err) = text(&o);
    assert!(
        err.contains("speaking French") && err.contains("says \"bonjour\""),
        "{err}"
    );
    assert!(
        out.contains(
            "French: no topic or dialog of the project is in English; all of them are in French"
        ),
        "{out}"
    );
    // Asked for English: the box says which language it lacks.
    let o = choreo(&["run", p.to_str().unwrap(), "--fast", "--lang", "English"]);
    let (_, err) = text(&o);
    assert!(err.contains("has no topic in English (enu)"), "{err}");
}

#[test]
fn a_script_block_runs_in_python_and_its_output_is_said() {
    // The 2.8 syntax page's %script example, as choreo-qichat's reference folder keeps it
    // (that crate has no Python: this test plays it).
    let file = std::fs::read_to_string(
        workspace().join("crates/choreo-qichat/tests/reference/script.chat"),
    )
    .unwrap();
    let (topic_text, exchange) = file.split_once("\n===\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let topic = dir.path().join("addition.top");
    std::fs::write(&topic, topic_text).unwrap();
    let script = dir.path().join("talk.txt");
    std::fs::write(&script, exchange).unwrap();
    let o = choreo(&[
        "chat",
        topic.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("robot: result is 3"), "{out}");
    assert!(out.ends_with("1 answers checked, 0 wrong\n"), "{out}");
}

/// A Python box that loads the topics given in `case.json` next to the behavior, makes the
/// robot hear each line (`forceInput`) and waits for the answer to be said.
const FORCE_INPUT_BOX: &str = r#"<Box name="Talk" id="1"><script language="4"><content><![CDATA[import os, json

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        dialog = ALProxy("ALDialog")
        case = json.load(open(os.path.join(self.behaviorAbsolutePath(), "case.json")))
        names = [dialog.loadTopicContent(t) for t in case["topics"]]
        for n in names:
            dialog.activateTopic(n)
        dialog.setFocus(names[0])
        for line in case["lines"]:
            dialog.forceInput(line)
            time.sleep(20)
        self.onStopped()
]]></content></script>
"#;

#[test]
fn chat_and_the_simulated_robot_s_aldialog_answer_alike() {
    // The reference's examples whose exchanges need no API call, no event and no chance:
    // the same topics and lines through `choreo chat` and through ALDialog on the simulated
    // robot (forceInput, in a run) give the same answers.
    let cases = [
        "user-subrule",
        "conditions",
        "variable",
        "first",
        "first-optional",
        "clear",
        "choice",
        "concept-call",
        "input-storing",
        "wildcard",
        "forbidden-word",
        "enumerate",
        "size",
        "is-in-concept",
        "clear-concept",
        "add-to-concept",
        "exist-notexist",
        "defined-function",
        "empty",
        "stay-in-scope",
        "previous-proposal",
        "same-proposal",
        "next-proposal",
        "goto",
        "recover",
        "private",
        "replace",
        "learning-rule",
    ];
    let folder = workspace().join("crates/choreo-qichat/tests/reference");
    for case in cases {
        let file = std::fs::read_to_string(folder.join(format!("{case}.chat"))).unwrap();
        let (topics, exchange) = file.split_once("\n===\n").unwrap();
        let topics: Vec<&str> = topics.split("\n---\n").collect();
        let lines: Vec<&str> = exchange
            .lines()
            .filter_map(|l| l.trim().strip_prefix('>'))
            .map(str::trim)
            .collect();
        assert!(!exchange.contains("\n!"), "{case}: an API line");
        let dir = tempfile::tempdir().unwrap();
        // choreo chat, the lines on its standard input.
        let mut paths = Vec::new();
        for (i, t) in topics.iter().enumerate() {
            let p = dir.path().join(format!("t{i}.top"));
            std::fs::write(&p, t).unwrap();
            paths.push(p.display().to_string());
        }
        let mut args = vec!["chat".to_string()];
        args.extend(paths);
        let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{}\n", lines.join("\n")).as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{case}: {err}");
        let chat: Vec<String> = out
            .lines()
            .filter_map(|l| l.strip_prefix("robot: "))
            .map(|l| l.split("   [").next().unwrap_or("").to_lowercase())
            .filter(|l| !l.starts_with('(') && !l.is_empty())
            .collect();
        // ALDialog on the simulated robot.
        std::fs::write(
            dir.path().join("behavior.xar"),
            behavior_of(FORCE_INPUT_BOX, ""),
        )
        .unwrap();
        let json = serde_json::json!({ "topics": topics, "lines": lines });
        std::fs::write(dir.path().join("case.json"), json.to_string()).unwrap();
        let o = choreo(&["run", dir.path().to_str().unwrap(), "--fast"]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{case}: {err}");
        let robot: Vec<String> = err
            .lines()
            .filter_map(|l| l.split_once("says \"").map(|(_, said)| said))
            .filter_map(|l| l.rsplit_once("\" (").map(|(said, _)| said.to_lowercase()))
            .collect();
        assert!(!chat.is_empty(), "{case}: chat said nothing");
        assert_eq!(
            chat, robot,
            "{case}: choreo chat and ALDialog differ\n{err}"
        );
    }
}
