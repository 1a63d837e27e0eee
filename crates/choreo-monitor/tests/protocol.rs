//! The monitor's WebSocket protocol (docs/monitor.md) as a page sees it: the messages and
//! their order, a known model's robot, a late page's snapshot, batches and their changes, a
//! slow page losing batches without delaying the run, the token (the page's files too),
//! commands, and replays.

use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_monitor::{Command, Monitor, MonitorOptions};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn dance() -> Graph {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/dance/behavior.xar"
    );
    let xar = choreo_xar::read_xar("dance", &std::fs::read(path).unwrap())
        .unwrap()
        .value;
    Graph::new(&xar)
}

fn ws_url(page: &str) -> String {
    let (base, query) = page.split_once('?').unwrap_or((page, ""));
    let base = base.replacen("http://", "ws://", 1);
    if query.is_empty() {
        format!("{base}ws")
    } else {
        format!("{base}ws?{query}")
    }
}

async fn connect(monitor: &Monitor) -> Socket {
    tokio_tungstenite::connect_async(ws_url(monitor.url()))
        .await
        .unwrap()
        .0
}

/// The next message, as JSON (fails after 5 s).
async fn next(ws: &mut Socket) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a message within 5 s")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

/// Messages until one of `kind` arrives (it included).
async fn until(ws: &mut Socket, kind: &str) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let m = next(ws).await;
        let done = m["type"] == kind;
        out.push(m);
        if done {
            return out;
        }
    }
}

fn event(seq: u64, path: &str, rest: Value) -> Value {
    let mut e = json!({"seq": seq, "time_ns": seq * 1_000_000, "path": path});
    e.as_object_mut()
        .unwrap()
        .extend(rest.as_object().unwrap().clone());
    e
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_page_gets_hello_structure_snapshot_then_batches() {
    let graph = dance();
    let monitor = Monitor::start(
        &graph,
        MonitorOptions {
            title: "dance".into(),
            model: Some("nao".into()),
            ..MonitorOptions::default()
        },
    )
    .unwrap();
    assert!(
        monitor.url().starts_with("http://127.0.0.1:"),
        "{}",
        monitor.url()
    );
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let hello = next(&mut ws).await;
        assert_eq!(
            hello,
            json!({"type": "hello", "protocol": 1, "mode": "live", "title": "dance",
                   "model": "nao", "control": false, "edit": false})
        );
        let structure = next(&mut ws).await;
        assert_eq!(structure["type"], "structure");
        let boxes = structure["boxes"].as_array().unwrap();
        assert_eq!(boxes.len(), graph.boxes.len());
        assert_eq!(boxes[0]["path"], "root");
        // Every box has its position, ports with natures, and a content.
        let dance_box = boxes.iter().find(|b| b["path"] == "root/Dance").unwrap();
        assert!(
            dance_box["x"].is_i64() && dance_box["y"].is_i64(),
            "{dance_box}"
        );
        assert_eq!(dance_box["content"]["kind"], "timeline");
        assert_eq!(
            dance_box["inputs"][1],
            json!({"name": "onStart", "nature": "onStart"})
        );
        // Links name their ends; `null` is the diagram's owner.
        let links: Vec<&Value> = structure["diagrams"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d["links"].as_array().unwrap())
            .collect();
        assert!(
            links
                .iter()
                .any(|l| l["from"]["box"].is_null() && l["from"]["port"] == "onStart"),
            "{links:?}"
        );
        // The model is known: its robot (a_known_model_gets_its_robot_after_the_structure).
        assert_eq!(next(&mut ws).await["type"], "robot");
        let snapshot = next(&mut ws).await;
        assert_eq!(snapshot["type"], "snapshot");
        assert_eq!(snapshot["lit"], json!([]));
        assert!(snapshot["seq"].is_null());

        // A box lit by onStart, a frame, a said text; then unlit by its stopping output.
        for e in [
            event(
                0,
                "root/Dance",
                json!({"event": "in", "port": "onStart", "value": null}),
            ),
            event(1, "root/Dance", json!({"event": "frame", "frame": 12})),
            event(
                2,
                "",
                json!({"event": "said", "text": "hi", "seconds": 0.5}),
            ),
        ] {
            monitor.publish_json(e);
        }
        let batch = until(&mut ws, "batch").await.pop().unwrap();
        assert_eq!(batch["events"].as_array().unwrap().len(), 3);
        assert_eq!(batch["changes"]["lit"], json!(["root/Dance"]));
        assert_eq!(batch["changes"]["frames"], json!({"root/Dance": 12}));
        assert_eq!(batch["changes"]["said"]["text"], "hi");
        monitor.publish_json(event(
            3,
            "root/Dance",
            json!({"event": "out", "port": "onStopped", "value": null}),
        ));
        let batch = until(&mut ws, "batch").await.pop().unwrap();
        assert_eq!(batch["changes"], json!({"unlit": ["root/Dance"]}));
        // The end.
        monitor.ended("finished", "run report\n  outcome finished\n");
        let ended = until(&mut ws, "ended").await.pop().unwrap();
        assert_eq!(ended["outcome"], "finished");
    });
}

#[test]
fn a_late_page_gets_the_state_first_then_the_stream() {
    let monitor = Monitor::start(&dance(), MonitorOptions::default()).unwrap();
    monitor.publish_json(event(
        0,
        "root/Dance",
        json!({"event": "in", "port": "onStart", "value": null}),
    ));
    monitor.publish_json(event(
        1,
        "root/Dance",
        json!({"event": "frame", "frame": 40}),
    ));
    monitor.publish_json(event(
        2,
        "root/Dance",
        json!({"event": "kf_on", "layer": "l", "keyframe": "k"}),
    ));
    monitor.publish_json(event(
        3,
        "root/Dance",
        json!({"event": "err", "hook": "onLoad", "text": "boom"}),
    ));
    // Let a batch go out with nobody listening.
    std::thread::sleep(Duration::from_millis(200));
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "snapshot").await;
        assert_eq!(first.len(), 3);
        let s = &first[2];
        assert_eq!(s["seq"], 3);
        assert_eq!(s["lit"], json!(["root/Dance"]));
        assert_eq!(s["frames"], json!({"root/Dance": 40}));
        assert_eq!(s["keyframes"], json!({"root/Dance": ["l/k"]}));
        assert_eq!(s["errors"], json!({"root/Dance": "boom"}));
        assert_eq!(s["recent"].as_array().unwrap().len(), 4);
        monitor.publish_json(event(
            4,
            "root/Dance",
            json!({"event": "frame", "frame": 41}),
        ));
        let batch = until(&mut ws, "batch").await.pop().unwrap();
        assert_eq!(batch["events"][0]["seq"], 4);
    });
}

#[test]
fn a_slow_page_loses_batches_and_the_run_never_waits() {
    const EVENTS: u64 = 60_000;
    let monitor = Monitor::start(&dance(), MonitorOptions::default()).unwrap();
    let rt = rt();
    // A page that connects and never reads again.
    let slow = rt.block_on(async {
        let mut ws = connect(&monitor).await;
        until(&mut ws, "snapshot").await;
        ws
    });
    // A page that reads everything, to the last event.
    let reader = {
        let url = ws_url(monitor.url());
        rt.spawn(async move {
            let mut ws = tokio_tungstenite::connect_async(url).await.unwrap().0;
            let (mut seen, mut snapshots) = (0u64, 0);
            loop {
                let m = next(&mut ws).await;
                let last = match m["type"].as_str() {
                    Some("batch") => {
                        let events = m["events"].as_array().unwrap();
                        seen += events.len() as u64;
                        events.last().map(|e| e["seq"].clone())
                    }
                    Some("snapshot") => {
                        snapshots += 1;
                        Some(m["seq"].clone())
                    }
                    _ => None,
                };
                if last == Some(json!(EVENTS - 1)) {
                    return (seen, snapshots);
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    // The run: 60,000 events of about 600 bytes, 1,000 every 25 ms (24 MB/s).
    let text = "x".repeat(500);
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    for seq in 0..EVENTS {
        let e = event(
            seq,
            "root/Dance",
            json!({"event": "log", "level": "info", "message": text}),
        );
        let t = Instant::now();
        monitor.publish_json(e);
        slowest = slowest.max(t.elapsed());
        if seq % 1000 == 999 {
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    let publishing = started.elapsed();
    let (seen, snapshots) = rt.block_on(reader).unwrap();
    // The slow page lost some: counted.
    let deadline = Instant::now() + Duration::from_secs(10);
    while monitor.dropped() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let dropped = monitor.dropped();
    println!(
        "{EVENTS} events published in {publishing:?}, the slowest publish {slowest:?}; the \
         reading page got {seen} in batches ({snapshots} snapshot(s)), the page that never \
         reads lost {dropped}"
    );
    assert!(dropped > 0, "the page that never reads lost nothing");
    // Publishing is a push under a short lock: no call waited for a page.
    assert!(slowest < Duration::from_millis(100), "{slowest:?}");
    assert!(seen > 0);
    drop(slow);
}

#[test]
fn an_address_other_than_loopback_needs_the_token() {
    let monitor = Monitor::start(
        &dance(),
        MonitorOptions {
            addr: "0.0.0.0:0".parse().unwrap(),
            ..MonitorOptions::default()
        },
    )
    .unwrap();
    let url = monitor.url().to_string();
    let (base, token) = url.split_once("?token=").expect("a token in the URL");
    assert_eq!(token.len(), 32, "{url}");
    rt().block_on(async {
        // The page and the socket without the token: 403.
        let without = tokio_tungstenite::connect_async(ws_url(base)).await;
        assert!(without.is_err());
        let wrong = tokio_tungstenite::connect_async(format!("{}?token=nope", ws_url(base))).await;
        assert!(wrong.is_err());
        let mut ws = tokio_tungstenite::connect_async(ws_url(&url))
            .await
            .unwrap()
            .0;
        assert_eq!(next(&mut ws).await["type"], "hello");
    });
    assert!(status(base).contains("403"), "{}", status(base));
    assert!(status(&url).contains("200"), "{}", status(&url));
    // The page's other files too, three.js's among them.
    for file in [
        "monitor.js",
        "robot3d.js",
        "vendor/three.module.min.js",
        "vendor/three.core.min.js",
    ] {
        let without = format!("{base}{file}");
        let with = format!("{base}{file}?token={token}");
        assert!(status(&without).contains("403"), "{}", status(&without));
        assert!(status(&with).contains("200"), "{}", status(&with));
    }
}

/// The status line of a GET of `u` (`http://host:port/path?query`).
fn status(u: &str) -> String {
    let addr = u
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let path = format!("/{}", u.splitn(4, '/').nth(3).unwrap_or(""));
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    use std::io::{Read, Write};
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or("").to_string()
}

#[test]
fn a_known_model_gets_its_robot_after_the_structure() {
    for (model, joints) in [("nao", 26), ("pepper", 17)] {
        let monitor = Monitor::start(
            &dance(),
            MonitorOptions {
                model: Some(model.into()),
                ..MonitorOptions::default()
            },
        )
        .unwrap();
        rt().block_on(async {
            let mut ws = connect(&monitor).await;
            let first = until(&mut ws, "snapshot").await;
            let kinds: Vec<&str> = first.iter().map(|m| m["type"].as_str().unwrap()).collect();
            assert_eq!(kinds, ["hello", "structure", "robot", "snapshot"]);
            let robot = &first[2];
            assert_eq!(robot["model"], model);
            // Every joint of the model, in "Body" order, each after its parent.
            let links = robot["links"].as_array().unwrap();
            assert_eq!(links.len(), joints, "{model}");
            let chain = choreo_monitor::robot::model(model).unwrap().chain();
            for (k, (link, want)) in links.iter().zip(chain.links()).enumerate() {
                assert_eq!(link["joint"], want.joint);
                let parent = &link["parent"];
                assert!(
                    parent.is_null() || links[..k].iter().any(|l| l["joint"] == *parent),
                    "{model}: {link}"
                );
                for key in ["offset", "rotation", "axis"] {
                    assert_eq!(link[key].as_array().map(Vec::len), Some(3), "{link}");
                }
            }
            assert_eq!(
                links[0],
                json!({"joint": "HeadYaw", "parent": null,
                       "offset": chain.links()[0].offset, "rotation": [0.0, 0.0, 0.0],
                       "axis": [0.0, 0.0, 1.0]})
            );
            let ends = robot["ends"].as_array().unwrap();
            assert!(ends.iter().any(|e| e["name"] == "HeadTop"), "{ends:?}");
        });
    }
    // NAO's upper arm, as its links page says.
    let nao = choreo_monitor::robot::robot(choreo_robot::Model::Nao);
    let elbow = nao["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["joint"] == "LElbowYaw")
        .unwrap();
    assert_eq!(elbow["parent"], "LShoulderRoll");
    assert_eq!(elbow["offset"], json!([0.105, 0.015, 0.0]));
    // No model, no robot.
    let monitor = Monitor::start(&dance(), MonitorOptions::default()).unwrap();
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "snapshot").await;
        let kinds: Vec<&str> = first.iter().map(|m| m["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["hello", "structure", "snapshot"]);
    });
}

#[test]
fn pages_may_stop_the_run_and_stimulate_only_when_allowed() {
    for control in [false, true] {
        let monitor = Monitor::start(
            &dance(),
            MonitorOptions {
                control,
                ..MonitorOptions::default()
            },
        )
        .unwrap();
        let commands = monitor.commands().unwrap();
        rt().block_on(async {
            let mut ws = connect(&monitor).await;
            until(&mut ws, "snapshot").await;
            ws.send(Message::Text(
                json!({"type": "stimulate", "path": "root/Dance",
                "input": "onStart", "value": null})
                .to_string()
                .into(),
            ))
            .await
            .unwrap();
            if !control {
                let refused = until(&mut ws, "refused").await.pop().unwrap();
                assert!(
                    refused["why"]
                        .as_str()
                        .unwrap()
                        .contains("--monitor-control")
                );
            }
            ws.send(Message::Text(r#"{"type": "play"}"#.into()))
                .await
                .unwrap();
            assert_eq!(
                until(&mut ws, "refused").await.pop().unwrap()["type"],
                "refused"
            );
            ws.send(Message::Text(r#"{"type": "stop"}"#.into()))
                .await
                .unwrap();
        });
        let got: Vec<Command> = (0..1 + usize::from(control))
            .map(|_| commands.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        let mut want = Vec::new();
        if control {
            want.push(Command::Stimulate {
                path: "root/Dance".into(),
                input: "onStart".into(),
                value: Value::Null,
            });
        }
        want.push(Command::Stop);
        assert_eq!(got, want);
    }
}

#[test]
fn a_replay_plays_seeks_and_steps() {
    let events: Vec<Value> = (0..50u64)
        .map(|seq| {
            if seq == 10 {
                event(
                    seq,
                    "root/Dance",
                    json!({"event": "in", "port": "onStart", "value": null}),
                )
            } else if seq == 40 {
                event(
                    seq,
                    "root/Dance",
                    json!({"event": "out", "port": "onStopped", "value": null}),
                )
            } else {
                event(seq, "root/Dance", json!({"event": "frame", "frame": seq}))
            }
        })
        .collect();
    let monitor = Monitor::replay(&dance(), events, MonitorOptions::default()).unwrap();
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "replay").await;
        assert_eq!(first[0]["mode"], "replay");
        assert_eq!(first[0]["control"], false);
        let position = first.last().unwrap();
        assert_eq!(position["playing"], false);
        assert_eq!(position["last"], 49);
        // Seek after the onStart: a snapshot with the box lit, at frame 20.
        ws.send(Message::Text(r#"{"type": "seek", "seq": 20}"#.into()))
            .await
            .unwrap();
        let s = until(&mut ws, "snapshot").await.pop().unwrap();
        assert_eq!(s["seq"], 20);
        assert_eq!(s["lit"], json!(["root/Dance"]));
        assert_eq!(s["frames"], json!({"root/Dance": 20}));
        // Step one event.
        ws.send(Message::Text(r#"{"type": "step", "count": 1}"#.into()))
            .await
            .unwrap();
        let b = until(&mut ws, "batch").await.pop().unwrap();
        assert_eq!(b["events"].as_array().unwrap().len(), 1);
        assert_eq!(b["events"][0]["seq"], 21);
        // Play fast to the end: the box goes out at 40; the replay stops at the last.
        ws.send(Message::Text(r#"{"type": "speed", "speed": 100}"#.into()))
            .await
            .unwrap();
        ws.send(Message::Text(r#"{"type": "play"}"#.into()))
            .await
            .unwrap();
        let mut unlit = false;
        loop {
            let m = next(&mut ws).await;
            if m["type"] == "batch" && m["changes"]["unlit"] == json!(["root/Dance"]) {
                unlit = true;
            }
            if m["type"] == "replay" && m["seq"] == 49 && m["playing"] == false {
                break;
            }
        }
        assert!(unlit);
        // Back to the start: nothing lit.
        ws.send(Message::Text(r#"{"type": "seek", "seq": 0}"#.into()))
            .await
            .unwrap();
        let s = until(&mut ws, "snapshot").await.pop().unwrap();
        assert_eq!(s["lit"], json!([]));
        // Live commands mean nothing here.
        ws.send(Message::Text(r#"{"type": "stop"}"#.into()))
            .await
            .unwrap();
        assert_eq!(
            until(&mut ws, "refused").await.pop().unwrap()["type"],
            "refused"
        );
    });
}

#[test]
fn a_stack_and_what_the_robot_shows_are_kept_for_late_pages() {
    use choreo_monitor::stack::{StackNode, StackShape};
    let node = |name: &str, class: &str, delegates: &[&str]| StackNode {
        name: name.into(),
        class: class.into(),
        delegates: delegates.iter().map(|d| d.to_string()).collect(),
    };
    let options = MonitorOptions {
        stack: Some(StackShape {
            base: "Main".into(),
            behaviors: vec![
                node("Main", "DispatcherStrictPriority", &["A", "B"]),
                node("A", "Wait", &[]),
                node("B", "Wait", &[]),
            ],
        }),
        ..MonitorOptions::default()
    };
    let monitor = Monitor::start(&dance(), options).unwrap();
    let stack = |tick: u64, ms: u64, rest: Value| {
        let mut e = json!({"tick": tick, "seq": tick, "time_ns": ms * 1_000_000});
        e.as_object_mut()
            .unwrap()
            .extend(rest.as_object().unwrap().clone());
        e
    };
    for e in [
        stack(1, 0, json!({"event": "push", "b": "Main"})),
        stack(1, 0, json!({"event": "activated", "b": "Main"})),
        stack(1, 0, json!({"event": "entered_scope", "b": "A"})),
        // A dispatcher delegates, then says why (as choreo-stack's do).
        stack(
            2,
            60,
            json!({"event": "delegate", "from": "Main", "to": "A", "result": "ok"}),
        ),
        stack(
            2,
            60,
            json!({"event": "log", "b": "Main", "level": "info", "text": "chose A: it wants to"}),
        ),
        stack(2, 60, json!({"event": "push", "b": "A"})),
        stack(2, 60, json!({"event": "activated", "b": "A"})),
        stack(17, 1000, json!({"event": "deactivated", "b": "A"})),
        stack(17, 1000, json!({"event": "pop", "b": "A"})),
    ] {
        monitor.publish_stack(e);
    }
    for e in [
        event(
            0,
            "",
            json!({"event": "joints", "names": ["HeadYaw", "HeadPitch"], "values": [0.1, 0.2]}),
        ),
        event(
            1,
            "",
            json!({"event": "joints", "names": ["HeadYaw"], "values": [0.3]}),
        ),
        event(
            2,
            "",
            json!({"event": "leds", "groups": ["LeftFaceLeds", "ChestLeds"], "rgb": [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], "seconds": 0.5}),
        ),
        event(3, "", json!({"event": "posture", "name": "Stand"})),
    ] {
        monitor.publish_json(e);
    }
    std::thread::sleep(Duration::from_millis(200));
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "snapshot").await;
        let shape = first.iter().find(|m| m["type"] == "stack").unwrap();
        assert_eq!(shape["base"], "Main");
        assert_eq!(shape["behaviors"][0]["delegates"], json!(["A", "B"]));
        let s = first.last().unwrap();
        let st = &s["stack"];
        assert_eq!(st["stack"], json!(["Main"]));
        assert_eq!(st["active"], json!(["Main"]));
        assert_eq!(st["in_scope"], json!(["A"]));
        let segments = st["segments"].as_array().unwrap();
        assert_eq!(segments.len(), 2);
        assert_eq!(segments[0]["why"], "the base");
        assert_eq!(
            segments[1],
            json!({"id": 1, "name": "A", "depth": 1, "from_ns": 60_000_000u64,
                   "to_ns": 1_000_000_000u64, "why": "delegated by Main: chose A: it wants to"})
        );
        assert_eq!(s["stack_recent"].as_array().unwrap().len(), 9);
        // Joints merged by name, the LEDs' colours, the posture.
        assert_eq!(
            s["joints"],
            json!({"names": ["HeadYaw", "HeadPitch"], "values": [0.3, 0.2]})
        );
        assert_eq!(
            s["leds"],
            json!({"colours": {"ChestLeds": [0.0, 0.0, 1.0], "LeftFaceLeds": [1.0, 0.0, 0.0]},
                   "seconds": 0.5})
        );
        assert_eq!(s["posture"], "Stand");
        // Then the stream: a batch carries the stack's events and the segments they touched.
        monitor.publish_stack(stack(
            18,
            1060,
            json!({"event": "delegate", "from": "Main", "to": "B", "result": "ok"}),
        ));
        monitor.publish_stack(stack(18, 1060, json!({"event": "push", "b": "B"})));
        monitor.publish_stack(stack(18, 1060, json!({"event": "activated", "b": "B"})));
        let batch = until(&mut ws, "batch").await.pop().unwrap();
        assert_eq!(batch["events"], json!([]));
        assert_eq!(batch["stack_events"].as_array().unwrap().len(), 3);
        let ch = &batch["changes"]["stack"];
        assert_eq!(ch["stack"], json!(["Main", "B"]));
        assert_eq!(
            ch["segments"],
            json!([{"id": 2, "name": "B", "depth": 1, "from_ns": 1_060_000_000u64,
                    "to_ns": null, "why": "delegated by Main"}])
        );
    });
}

#[test]
fn a_nao_page_gets_the_balance_with_the_joints_and_the_fall_from_the_robot_s_log() {
    let monitor = Monitor::start(
        &dance(),
        MonitorOptions {
            model: Some("nao".into()),
            ..MonitorOptions::default()
        },
    )
    .unwrap();
    // Both ankles pitched to -1.05 rad, -60° (StandInit's are at -20°): choreo-body's tests/
    // timelines.rs derives by hand that the CoM passes the toes past 24°; at 40° more it is
    // far ahead of them. A box's log saying "fell" is not the robot's.
    let fall = "NAO fell forwards at 2.42 s: the zero-moment point left the feet ahead of the \
                toes by 0.0 cm, while root/Lean played frame 61";
    for e in [
        event(
            0,
            "",
            json!({"event": "joints", "names": ["LAnklePitch", "RAnklePitch"], "values": [-1.05, -1.05]}),
        ),
        event(
            1,
            "root/Say",
            json!({"event": "log", "level": "info", "message": "it fell over"}),
        ),
        event(
            2,
            "",
            json!({"event": "log", "level": "warning", "message": fall}),
        ),
    ] {
        monitor.publish_json(e);
    }
    std::thread::sleep(Duration::from_millis(200));
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "snapshot").await;
        let snapshot = first.last().unwrap();
        let balance = &snapshot["balance"];
        assert_eq!(balance["standing"], true, "{balance}");
        assert!(balance["margin"].as_f64().unwrap() < -0.02, "{balance}");
        assert!(
            balance["polygon"].as_array().unwrap().len() >= 4,
            "{balance}"
        );
        assert_eq!(snapshot["fell"]["text"], fall);
    });
    // Without a model, no balance.
    let monitor = Monitor::start(&dance(), MonitorOptions::default()).unwrap();
    monitor.publish_json(event(
        0,
        "",
        json!({"event": "joints", "names": ["LAnklePitch"], "values": [-1.0]}),
    ));
    std::thread::sleep(Duration::from_millis(200));
    rt().block_on(async {
        let mut ws = connect(&monitor).await;
        let first = until(&mut ws, "snapshot").await;
        assert_eq!(first.last().unwrap()["balance"], Value::Null);
    });
}

#[test]
fn an_editors_pages_send_edits_and_get_each_new_structure() {
    for edit in [false, true] {
        let monitor = Monitor::start(
            &dance(),
            MonitorOptions {
                edit,
                ..MonitorOptions::default()
            },
        )
        .unwrap();
        let commands = monitor.commands().unwrap();
        let hello = rt().block_on(async {
            let mut ws = connect(&monitor).await;
            let hello = next(&mut ws).await;
            until(&mut ws, "snapshot").await;
            let move_say = json!({"type": "edit", "edit": {"kind": "move",
                "box": [[0, 0, 1]], "x": 10, "y": 20}});
            let inspect = json!({"type": "inspect", "box": [[0, 0, 1]]});
            for m in [
                move_say,
                json!({"type": "undo"}),
                json!({"type": "redo"}),
                inspect,
                json!({"type": "reload"}),
                json!({"type": "library"}),
            ] {
                ws.send(Message::Text(m.to_string().into())).await.unwrap();
                if !edit {
                    let refused = until(&mut ws, "refused").await.pop().unwrap();
                    assert!(refused["why"].as_str().unwrap().contains("choreo edit"));
                }
            }
            hello
        });
        assert_eq!(hello["edit"], edit);
        if !edit {
            assert!(commands.recv_timeout(Duration::from_millis(200)).is_err());
            continue;
        }
        let got: Vec<Command> = (0..6)
            .map(|_| commands.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                Command::Edit(json!({"kind": "move", "box": [[0, 0, 1]], "x": 10, "y": 20})),
                Command::Undo,
                Command::Redo,
                Command::Editor(json!({"type": "inspect", "box": [[0, 0, 1]]})),
                Command::Editor(json!({"type": "reload"})),
                Command::Editor(json!({"type": "library"}))
            ]
        );
        // The editor made the edit: pages get the new structure, later pages too, and what
        // the editor tells them.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/hello/behavior.xar"
        );
        let hello_xar = choreo_xar::read_xar("hello", &std::fs::read(path).unwrap())
            .unwrap()
            .value;
        rt().block_on(async {
            let mut ws = connect(&monitor).await;
            until(&mut ws, "snapshot").await;
            monitor.restructure(&Graph::new(&hello_xar));
            monitor.tell(&json!({"type": "edited", "undo": true, "redo": false}));
            let structure = until(&mut ws, "structure").await.pop().unwrap();
            assert!(structure["boxes"].to_string().contains("root/Nod"));
            assert_eq!(until(&mut ws, "edited").await.pop().unwrap()["undo"], true);
            let mut late = connect(&monitor).await;
            let first: Vec<Value> = until(&mut late, "structure").await;
            assert!(
                first.last().unwrap()["boxes"]
                    .to_string()
                    .contains("root/Nod")
            );
        });
    }
}
