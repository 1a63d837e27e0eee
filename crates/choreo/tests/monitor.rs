//! `choreo run --monitor`, `choreo stack run --monitor`, `choreo sim --monitor` and
//! `choreo replay` from the command line, as a page sees them over the WebSocket
//! (docs/monitor.md): the run's events, the page kept up after the end, a stop from the
//! page, a replay of the recorded trace reaching the same final state, a stack's tree and
//! time strip, a served robot's calls, speech, LEDs and joints.

use crate::support;

use serde_json::{Value, json};
use support::served::{Page, Served};
use tungstenite::Message;

fn next(page: &mut Page) -> Value {
    loop {
        if let Message::Text(t) = page.read().unwrap() {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

fn until(page: &mut Page, kind: &str) -> Value {
    loop {
        let m = next(page);
        if m["type"] == kind {
            return m;
        }
    }
}

fn send(page: &mut Page, v: Value) {
    page.send(Message::Text(v.to_string().into())).unwrap();
}

/// `choreo replay TRACE WHAT` and a page of it (its `hello` read: a replay).
fn replay(trace: &str, what: &str) -> (Served, Page) {
    let args = ["replay", trace, what, "--monitor", "127.0.0.1:0"];
    let replay = Served::start(&[&args[..], &["--monitor-keep", "60"]].concat());
    let mut page = replay.page();
    assert_eq!(next(&mut page)["mode"], "replay");
    (replay, page)
}

/// Every box the played behaviors' events in `trace` name (`prefix:root/...`, some under
/// `played`) is among the `drawn` paths of the structure, so it lights up as it runs.
fn every_played_box_is_drawn(
    trace: &std::path::Path,
    drawn: &std::collections::BTreeSet<&str>,
    played: &str,
) {
    let named: std::collections::BTreeSet<String> = support::cli::trace_events(trace)
        .iter()
        .filter_map(|e| e["path"].as_str())
        .filter(|p| p.contains(":root/"))
        .map(str::to_string)
        .collect();
    assert!(named.iter().any(|p| p.starts_with(played)), "{named:?}");
    let missing: Vec<&String> = named
        .iter()
        .filter(|p| !drawn.contains(p.as_str()))
        .collect();
    assert!(missing.is_empty(), "not drawn: {missing:?}");
}

/// The parts of a snapshot that say what the page shows.
fn shown(s: &Value) -> Value {
    json!({"lit": s["lit"], "frames": s["frames"], "keyframes": s["keyframes"],
           "joints": s["joints"], "said": s["said"], "errors": s["errors"]})
}

#[test]
fn a_run_is_shown_live_and_its_replay_ends_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("dance.jsonl");
    let t = trace.to_str().unwrap();
    let run = Served::start(&[
        "run",
        "examples/dance",
        "--fast",
        "--trace",
        t,
        "--monitor",
        "--monitor-keep",
        "60",
    ]);
    assert!(run.url.starts_with("http://127.0.0.1:"), "{}", run.url);
    let mut page = run.page();
    let hello = next(&mut page);
    assert_eq!(hello["mode"], "live");
    assert_eq!(hello["title"], "dance");
    assert_eq!(hello["model"], "nao");
    let structure = next(&mut page);
    assert!(structure["boxes"].as_array().unwrap().len() > 2);
    // The run ends (virtual time); the page is told, and stays served.
    let ended = until(&mut page, "ended");
    assert_eq!(ended["outcome"], "finished");
    assert!(
        ended["report"]
            .as_str()
            .unwrap()
            .contains("outcome        finished")
    );
    // A page opened after the end gets the final state.
    let mut late = run.page();
    let live = until(&mut late, "snapshot");
    assert_eq!(live["ended"]["outcome"], "finished");
    assert_eq!(live["lit"], json!([]), "nothing runs after the end");
    let frames = live["frames"].as_object().unwrap();
    assert!(!frames.is_empty(), "{live}");
    assert!(
        live["joints"]["names"].as_array().unwrap().len() > 1,
        "{}",
        live["joints"]
    );
    drop(late);
    drop(page);
    drop(run);
    let recorded = std::fs::read_to_string(&trace).unwrap();
    let last_seq =
        serde_json::from_str::<Value>(recorded.lines().last().unwrap()).unwrap()["seq"].clone();

    // The replay of its trace, sought to the last event: the same state.
    let (_replay, mut page) = replay(t, "examples/dance");
    let position = until(&mut page, "replay");
    assert_eq!(position["last"], last_seq);
    assert_eq!(position["playing"], false);
    send(&mut page, json!({"type": "seek", "seq": last_seq}));
    let replayed = until(&mut page, "snapshot");
    // (the first snapshot is the start's; the one after the seek is at the last event)
    let replayed = if replayed["seq"] == last_seq {
        replayed
    } else {
        until(&mut page, "snapshot")
    };
    assert_eq!(replayed["seq"], last_seq);
    assert_eq!(shown(&replayed), shown(&live));
}

#[test]
fn a_page_stops_a_run() {
    // The interactive example waits for a touch that never comes.
    let run = Served::start(&[
        "run",
        "examples/interactive",
        "--monitor",
        "--monitor-keep",
        "2",
    ]);
    let mut page = run.page();
    until(&mut page, "snapshot");
    send(
        &mut page,
        json!({"type": "stimulate", "path": "root", "input": "onStart"}),
    );
    let refused = until(&mut page, "refused");
    assert!(
        refused["why"]
            .as_str()
            .unwrap()
            .contains("--monitor-control")
    );
    send(&mut page, json!({"type": "stop"}));
    let ended = until(&mut page, "ended");
    assert_eq!(ended["outcome"], "stopped");
    assert!(
        ended["report"]
            .as_str()
            .unwrap()
            .contains("stopped from the monitor's page"),
        "{ended}"
    );
    assert_eq!(run.wait(), Some(130));
}

#[test]
fn the_monitor_refuses_a_fleet_and_a_bad_address() {
    let o = support::cli::choreo(&[
        "run",
        "examples/hello",
        "--robot",
        "tcp://127.0.0.1:1",
        "--robot",
        "tcp://127.0.0.1:2",
        "--monitor",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        support::cli::stderr(&o).contains("not a fleet's"),
        "{}",
        support::cli::stderr(&o)
    );
    let o = support::cli::choreo(&["run", "examples/hello", "--monitor", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_behaviors_a_behavior_runs_are_drawn_beside_it() {
    // The nested fixture: main runs greet and broken (ALBehaviorManager.runBehavior); their
    // events' paths start with their folders (`greet:root/Hello`).
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("nested.jsonl");
    let t = trace.to_str().unwrap();
    let run = Served::start(&[
        "run",
        "crates/choreo/tests/fixtures/nested/nested.pml",
        "--behavior",
        "main",
        "--fast",
        "--trace",
        t,
        "--monitor",
        "--monitor-keep",
        "60",
    ]);
    let mut page = run.page();
    next(&mut page);
    let structure = next(&mut page);
    let boxes = structure["boxes"].as_array().unwrap();
    let roots: Vec<&str> = boxes
        .iter()
        .filter(|b| b["parent"].is_null())
        .filter_map(|b| b["path"].as_str())
        .collect();
    assert_eq!(roots, ["root", "greet:root", "broken:root"], "{roots:?}");
    let drawn: std::collections::BTreeSet<&str> =
        boxes.iter().filter_map(|b| b["path"].as_str()).collect();
    until(&mut page, "ended");
    drop((page, run));
    every_played_box_is_drawn(&trace, &drawn, "greet:root/");
    // Its replay draws them too.
    let fixture = "crates/choreo/tests/fixtures/nested/nested.pml";
    let args = [
        "replay",
        t,
        fixture,
        "--behavior",
        "main",
        "--monitor",
        "127.0.0.1:0",
    ];
    let replay = Served::start(&[&args[..], &["--monitor-keep", "60"]].concat());
    let mut page = replay.page();
    assert_eq!(next(&mut page)["mode"], "replay");
    assert_eq!(next(&mut page)["boxes"], structure["boxes"]);
}

#[test]
fn a_replay_draws_the_robot_its_trace_says_it_ran_on() {
    // examples/hello has no timeline (no `joints` event without a monitor) and its manifest
    // names no robot: only the trace's first line says it ran on a Pepper.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("hello.jsonl");
    let t = trace.to_str().unwrap();
    let args = [
        "run",
        "examples/hello",
        "--fast",
        "-q",
        "--robot-model",
        "pepper",
    ];
    let o = support::cli::choreo(&[&args[..], &["--trace", t]].concat());
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let recorded = std::fs::read_to_string(&trace).unwrap();
    let header: Value = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
    assert_eq!(header["model"], "pepper", "{header}");
    assert!(!recorded.contains(r#""event":"joints""#));
    let (_replay, mut page) = replay(t, "examples/hello");
    assert_eq!(until(&mut page, "robot")["model"], "pepper");
}

#[test]
fn a_stack_run_shows_its_stack_and_the_robot_and_its_replay_ends_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("stack.jsonl");
    let t = trace.to_str().unwrap();
    let run = Served::stack_example(&["--trace", t]);
    let mut page = run.page();
    let hello = next(&mut page);
    assert_eq!(hello["model"], "nao");
    // The driver's boxes, and the behaviors the leaves play as roots of their own, named
    // by the prefix of their events' paths.
    let structure = next(&mut page);
    assert_eq!(structure["type"], "structure");
    let boxes = structure["boxes"].as_array().unwrap();
    let drawn: std::collections::BTreeSet<&str> =
        boxes.iter().filter_map(|b| b["path"].as_str()).collect();
    let dance = boxes.iter().find(|b| b["path"] == "Dance:root").unwrap();
    assert!(dance["parent"].is_null(), "{dance}");
    assert_eq!(dance["name"], "Dance");
    assert!(drawn.contains("root/Stack"), "{drawn:?}");
    let stack = until(&mut page, "stack");
    assert_eq!(stack["base"], "Main");
    let main = stack["behaviors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Main")
        .unwrap();
    assert_eq!(main["class"], "DispatcherStrictPriority");
    assert_eq!(main["delegates"], json!(["Dance", "Hello", "WaitForTouch"]));
    let ended = until(&mut page, "ended");
    assert_eq!(ended["outcome"], "finished", "{ended}");
    // A page opened after the end: the whole strip, the stack emptied, the robot's state.
    let mut late = run.page();
    let s = until(&mut late, "snapshot");
    let st = s["stack"].clone();
    assert_eq!(st["stack"], json!([]), "{st}");
    let segments = st["segments"].as_array().unwrap();
    let dance = segments.iter().find(|g| g["name"] == "Dance").unwrap();
    let why = dance["why"].as_str().unwrap();
    assert!(why.starts_with("delegated by Main: chose Dance"), "{why}");
    // The head touch at 6 s starts the dance (virtual time, 60 ms ticks).
    let from = dance["from_ns"].as_u64().unwrap();
    assert!((6_000_000_000..6_200_000_000).contains(&from), "{dance}");
    assert!(dance["to_ns"].as_u64().unwrap() > from);
    assert!(
        segments
            .iter()
            .any(|g| g["name"] == "Main" && g["why"] == "the base")
    );
    let recent = s["stack_recent"].as_array().unwrap();
    assert!(
        recent
            .iter()
            .any(|e| e["event"] == "pop" && e["b"] == "Main")
    );
    // What the played behaviors made the robot do.
    assert_eq!(s["said"]["text"], "Thank you!");
    assert_eq!(s["posture"], "StandInit");
    assert_eq!(s["leds"]["colours"]["LeftFaceLeds"], json!([0.0, 1.0, 0.0]));
    assert!(
        s["joints"]["names"].as_array().unwrap().len() >= 25,
        "{}",
        s["joints"]
    );
    drop((late, page, run));
    every_played_box_is_drawn(&trace, &drawn, "Dance:root/");

    // The replay of the stack's trace, sought to its last event: the same stack, and the
    // robot as the played behaviors left it (the trace holds their events too), drawn as
    // the NAO its joints are of.
    let (_replay, mut page) = replay(t, "examples/stack");
    assert_eq!(until(&mut page, "robot")["model"], "nao");
    assert_eq!(until(&mut page, "stack")["base"], "Main");
    let last = until(&mut page, "replay")["last"].clone();
    send(&mut page, json!({"type": "seek", "seq": last}));
    let replayed = loop {
        let m = until(&mut page, "snapshot");
        if m["stack"]["tick"] == st["tick"] {
            break m;
        }
    };
    assert_eq!(replayed["stack"], st);
    for shown in ["said", "posture", "leds", "joints"] {
        assert_eq!(replayed[shown], s[shown], "{shown}");
    }
}

#[test]
fn a_served_robot_shows_its_calls_speech_and_leds() {
    let sim = Served::start(&[
        "sim",
        "--listen",
        "tcp://127.0.0.1:0",
        "--monitor",
        "--monitor-keep",
        "0",
    ]);
    let line = sim.line_with("serving a simulated");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("tcp://"))
        .unwrap()
        .trim_end_matches(':')
        .to_string();
    let mut page = sim.page();
    assert_eq!(until(&mut page, "hello")["model"], "nao");
    until(&mut page, "snapshot");
    for (method, args) in [
        ("ALTextToSpeech.say", vec!["\"Hello from a client\""]),
        ("ALLeds.fadeRGB", vec!["\"FaceLeds\"", "1", "0", "0", "0"]),
        ("ALMemory.insertData", vec!["\"Answer\"", "42"]),
        ("ALMemory.getData", vec!["\"Answer\""]),
    ] {
        let mut a = vec!["robot", "call", url.as_str(), method];
        a.extend(args);
        let o = support::cli::choreo(&a);
        assert!(o.status.success(), "{}", support::cli::stderr(&o));
    }
    // The calls arrive in batches, with what they changed.
    let (mut calls, mut said, mut leds, mut got) = (Vec::new(), None, None, None);
    while said.is_none() || leds.is_none() || got.is_none() {
        let b = until(&mut page, "batch");
        for e in b["events"].as_array().unwrap() {
            if e["event"] == "robot_call" {
                calls.push(e["method"].as_str().unwrap().to_string());
            }
            // A call's result is in the trace.
            if e["event"] == "robot_return" && e["method"] == "ALMemory.getData" {
                got = Some(e["value"].clone());
            }
        }
        said = said.or(b["changes"]["said"]["text"].as_str().map(str::to_string));
        leds = leds.or(b["changes"]["leds"]["colours"]["RightFaceLeds"]
            .as_array()
            .cloned());
    }
    assert!(
        calls.contains(&"ALTextToSpeech.say".to_string()),
        "{calls:?}"
    );
    assert!(calls.contains(&"ALLeds.fadeRGB".to_string()), "{calls:?}");
    assert_eq!(said.as_deref(), Some("Hello from a client"));
    assert_eq!(leds, Some(vec![json!(1.0), json!(0.0), json!(0.0)]));
    assert_eq!(got, Some(json!(42)));
    // The page stops the robot; the process ends.
    send(&mut page, json!({"type": "stop"}));
    assert_eq!(until(&mut page, "ended")["outcome"], "stopped");
    assert_eq!(sim.wait(), Some(0));
}

#[test]
fn a_timelines_motion_curves_are_sampled_for_the_page() {
    let run = Served::nod();
    let mut page = run.page();
    let structure = until(&mut page, "structure");
    let nod = structure["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["path"] == "root/Nod")
        .unwrap();
    let curves = nod["content"]["curves"].as_array().unwrap();
    let curve = |joint: &str| {
        let c = curves.iter().find(|c| c["joint"] == joint).unwrap();
        assert_eq!((c["from"].as_i64(), c["step"].as_i64()), (Some(1), Some(1)));
        let values: Vec<f64> = c["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        values
    };
    let (yaw, pitch) = (curve("HeadYaw"), curve("HeadPitch"));
    assert_eq!(yaw.len(), 11, "frames 1 to 11: {yaw:?}");
    assert!(yaw[0].abs() < 1e-9 && (yaw[10] - 90f64.to_radians()).abs() < 1e-6);
    assert!(
        (pitch[5] - (-10f64).to_radians()).abs() < 1e-6,
        "linear: {pitch:?}"
    );
    assert!((pitch[10] - (-20f64).to_radians()).abs() < 1e-6);
}

#[test]
fn the_page_s_title_is_the_project_s_name() {
    // A Choregraphe project whose behavior folder is `behaviors` and whose `.pml` is
    // `Hello World.pml`: the page says "Hello World".
    let Some(corpus) = choreo_testkit::corpus("the monitor's title of a corpus project") else {
        return;
    };
    let project = corpus.join("orchestra-platform__choregraphe-hello-world");
    let run = Served::start(&[
        "run",
        project.to_str().unwrap(),
        "--fast",
        "--timeout",
        "5",
        "--monitor",
        "--monitor-keep",
        "30",
    ]);
    let mut page = run.page();
    let hello = next(&mut page);
    assert_eq!(hello["mode"], "live");
    assert_eq!(hello["title"], "Hello World");
}
