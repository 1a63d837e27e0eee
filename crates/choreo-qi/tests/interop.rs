//! Interop with the real libqi (PyPI `qi` 3.1.5, through CHOREO_QI_PYTHON): our client
//! against a libqi standalone directory with Python services, and the libqi client against
//! our server (the simulated robot plus a Rust service), and a libqi service calling back an
//! object our client passed it. Both directions assert values.
#![allow(clippy::cloned_ref_to_slice_refs)]

use crate::support;
use crate::support::SETTLE;
use choreo_testkit::wait_until;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use choreo_engine::{Robot, RobotError, SubscriptionId, Value};
use choreo_qi::{
    Arg, Error, FileObject, ObjectBuilder, Out, RemoteRobot, ServedObject, Server, ServerOptions,
    Session, SessionOptions, TransferStatus,
};

fn s(x: &str) -> Value {
    Value::String(x.to_string())
}

fn i(x: i64) -> Value {
    Value::Int(x)
}

/// Waits (up to 5 s) for `done`.
/// Our client on `url`, calls waiting up to 10 s.
fn connect_patiently(url: &str) -> Session {
    let options = SessionOptions {
        call_timeout: Some(Duration::from_secs(10)),
        ..SessionOptions::default()
    };
    Session::connect_with(url, options).unwrap()
}

#[test]
fn our_client_against_libqi_server() {
    let Some(py) = support::python("our_client_against_libqi_server") else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    let session = connect_patiently(&url);

    // The directory's MetaObject and records.
    let sd = session.directory().unwrap();
    let uids: Vec<(u32, &str)> = sd
        .meta_object()
        .methods
        .values()
        .filter(|m| m.uid >= 100)
        .map(|m| (m.uid, m.name.as_str()))
        .collect();
    assert_eq!(
        &uids[..3],
        &[
            (100, "service"),
            (101, "services"),
            (102, "registerService")
        ]
    );
    let info = session.service_info("ChoreoTest").unwrap();
    assert_eq!(info.service_id, 2);
    assert!(info.endpoints.iter().any(|e| e == "qi:ChoreoTest"));
    assert!(
        info.endpoints
            .iter()
            .any(|e| e.starts_with("tcp://127.0.0.1:"))
    );
    assert_eq!(info.object_uid.len(), 20);
    assert!(
        session
            .services()
            .unwrap()
            .iter()
            .any(|x| x.name == "ServiceDirectory")
    );
    assert!(!session.machine_id().unwrap().is_empty());
    assert!(matches!(
        session.service("NoSuchService"),
        Err(Error::NotFound(_))
    ));

    let t = session.service("ChoreoTest").unwrap();
    // One method per value kind.
    assert_eq!(t.call("ping", &[i(41)]).unwrap(), i(41));
    assert_eq!(
        t.call("echoBool", &[Value::Bool(true)]).unwrap(),
        Value::Bool(true)
    );
    assert_eq!(
        t.call("echoInt64", &[i(-5_000_000_000)]).unwrap(),
        i(-5_000_000_000)
    );
    assert_eq!(
        t.call("echoUInt32", &[i(4_000_000_000)]).unwrap(),
        i(4_000_000_000)
    );
    assert_eq!(
        t.call("echoFloat", &[Value::Float(0.75)]).unwrap(),
        Value::Float(0.75)
    );
    assert_eq!(
        t.call("echoDouble", &[Value::Float(0.1)]).unwrap(),
        Value::Float(0.1)
    );
    assert_eq!(t.call("echoString", &[s("héllo")]).unwrap(), s("héllo"));
    let raw = Value::Raw(vec![0, 1, 2, 255]);
    assert_eq!(t.call("echoRaw", &[raw.clone()]).unwrap(), raw);
    let list = Value::List(vec![i(1), i(2), i(3)]);
    assert_eq!(t.call("echoList", &[list.clone()]).unwrap(), list);
    let Value::Map(mut m) = t
        .call(
            "echoMap",
            &[Value::Map(vec![(s("a"), i(1)), (s("b"), i(2))])],
        )
        .unwrap()
    else {
        panic!("not a map")
    };
    m.sort_by_key(|a| a.0.to_string());
    assert_eq!(m, vec![(s("a"), i(1)), (s("b"), i(2))]);
    let tuple = Value::Tuple(vec![i(7), s("seven")]);
    assert_eq!(t.call("echoTuple", &[tuple.clone()]).unwrap(), tuple);
    let nested = Value::Map(vec![(
        s("k"),
        Value::List(vec![Value::Tuple(vec![
            i(1),
            Value::List(vec![Value::Float(2.5), s("x")]),
        ])]),
    )]);
    assert_eq!(t.call("echoNested", &[nested.clone()]).unwrap(), nested);
    let dynamic = Value::List(vec![i(1), Value::Float(2.5), s("s"), Value::None]);
    assert_eq!(t.call("echo", &[dynamic.clone()]).unwrap(), dynamic);
    assert_eq!(
        t.call("shapes", &[Value::List(vec![s("ab"), s("c")]), Value::None])
            .unwrap(),
        s("ab,c|none")
    );
    assert_eq!(
        t.call("shapes", &[Value::List(vec![s("x")]), i(5)])
            .unwrap(),
        s("x|5")
    );
    // Overloads resolved by argument types.
    assert_eq!(t.call("over", &[s("a")]).unwrap(), s("string"));
    assert_eq!(t.call("over", &[i(3)]).unwrap(), s("int"));
    assert!(matches!(t.call("nope", &[]), Err(Error::NotFound(_))));
    assert!(matches!(t.call("ping", &[s("x")]), Err(Error::Type(_))));

    // Signals: events come before the reply of the call that caused them.
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    let link = t
        .connect("textDone", move |args| sink.lock().unwrap().push(args))
        .unwrap();
    t.call("emit", &[i(3)]).unwrap();
    // The Python service emits from a thread pool: order and timing are libqi's.
    wait_until(SETTLE, || got.lock().unwrap().len() == 3);
    let mut events = got.lock().unwrap().clone();
    events.sort_by_key(|e| e[0].to_string());
    assert_eq!(
        events,
        vec![vec![s("done0")], vec![s("done1")], vec![s("done2")]]
    );
    t.disconnect(link).unwrap();
    t.call("emit", &[i(2)]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        got.lock().unwrap().len(),
        3,
        "no events after unsubscribing"
    );

    // Properties: get, set, change events.
    assert_eq!(t.property("volume").unwrap(), Value::Float(0.75));
    assert_eq!(t.properties().unwrap(), vec!["volume".to_string()]);
    let changes = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&changes);
    let plink = t
        .connect("volume", move |args| sink.lock().unwrap().push(args))
        .unwrap();
    t.set_property("volume", Value::Float(0.25)).unwrap();
    wait_until(SETTLE, || !changes.lock().unwrap().is_empty());
    assert_eq!(*changes.lock().unwrap(), vec![vec![Value::Float(0.25)]]);
    assert_eq!(t.property("volume").unwrap(), Value::Float(0.25));
    t.disconnect(plink).unwrap();

    // Post: runs, nothing comes back (seen through a later call).
    let before = t.call("saidCount", &[]).unwrap();
    t.post("say", &[s("posted")]).unwrap();
    t.call("say", &[s("called")]).unwrap();
    let Value::Int(before) = before else { panic!() };
    assert_eq!(t.call("saidCount", &[]).unwrap(), i(before + 2));

    // Cancel → Canceled; errors carry libqi's text.
    let pending = t.call_async("slow", &[]).unwrap();
    // libqi ignores a Cancel that overtakes the start of its call: let it start.
    std::thread::sleep(Duration::from_millis(100));
    pending.cancel();
    let answer = pending.wait();
    assert!(matches!(answer, Err(Error::Canceled)), "{answer:?}");
    match t.call("fail", &[]) {
        Err(Error::Remote(text)) => assert!(text.contains("boom"), "{text}"),
        other => panic!("{other:?}"),
    }

    // An object returned by reference, called on the same socket, terminated on drop.
    let sub = t.call_object("makeSub", &[]).unwrap();
    assert_eq!(sub.address().0, 2);
    assert!(sub.address().1 > 1);
    assert_eq!(sub.call("hello", &[s("raw")]).unwrap(), s("hi raw"));
    drop(sub);
    assert_eq!(t.call("ping", &[i(1)]).unwrap(), i(1));
}

/// A Rust service for the tests: ping, echo, a signal, a property, a never-ending method,
/// one that fails.
#[test]
fn a_remote_robot_delivers_a_libqi_modules_signal_until_unsubscribed() {
    let Some(py) = support::python("a_remote_robot_delivers_a_libqi_modules_signal") else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    drop(connect_patiently(&url));
    let robot = RemoteRobot::connect(&url, SessionOptions::default()).unwrap();
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    let id: SubscriptionId = 7;
    robot
        .connect_signal(
            "ChoreoTest",
            "textDone",
            id,
            Arc::new(move |name: &str, value: Value| {
                sink.lock().unwrap().push((name.to_string(), value))
            }),
        )
        .unwrap();
    // The fixture's `emit(n)` emits textDone("done0") .. ("done<n-1>"): the sink gets the
    // signal's name and its arguments as a list, as box code's callback takes them.
    robot.call("ChoreoTest", "emit", vec![i(2)]).unwrap();
    wait_until(SETTLE, || got.lock().unwrap().len() == 2);
    let mut events = got.lock().unwrap().clone();
    events.sort_by_key(|(_, v)| v.to_string());
    assert_eq!(
        events,
        vec![
            ("textDone".to_string(), Value::List(vec![s("done0")])),
            ("textDone".to_string(), Value::List(vec![s("done1")])),
        ]
    );
    robot.unsubscribe(id);
    robot.call("ChoreoTest", "emit", vec![i(2)]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        got.lock().unwrap().len(),
        2,
        "no events after unsubscribing"
    );
    // A signal the module lacks is refused, naming it.
    let none = robot.connect_signal("ChoreoTest", "noSuch", 8, Arc::new(|_, _| {}));
    assert!(
        matches!(&none, Err(RobotError::Failed(m)) if m.contains("ChoreoTest.noSuch")),
        "{none:?}"
    );
}

#[test]
fn libqi_client_against_our_server() {
    let Some(py) = support::python("libqi_client_against_our_server") else {
        return;
    };
    let robot = Arc::new(choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Nao));
    let calls = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&calls);
    let served = choreo_qi::serve_robot(
        robot.clone(),
        "tcp://127.0.0.1:0",
        Some(Arc::new(move |c: &choreo_qi::CallReport<'_>| {
            log.lock()
                .unwrap()
                .push(format!("{}.{}", c.service, c.method));
        })),
        ServerOptions::default(),
    )
    .unwrap();
    served
        .server
        .register_service("ChoreoRust", support::rust_service())
        .unwrap();
    let (peer, _) = support::Peer::start(&py, "libqi_client.py", &[served.url.clone()], "CHECK");
    let lines = peer.finish(Duration::from_secs(60));
    let mut checks = std::collections::HashMap::new();
    for line in &lines {
        if let Some(json) = line.strip_prefix("CHECK ") {
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            checks.insert(v["name"].as_str().unwrap().to_string(), v);
        }
    }
    assert!(
        lines.iter().any(|l| l == "DONE"),
        "client output: {lines:?}"
    );
    assert_eq!(checks["say"]["language"], "English");
    let angle = checks["angleInterpolation"]["angles"][0].as_f64().unwrap();
    assert!((angle - 0.5).abs() < 1e-3, "{angle}");
    assert_eq!(checks["memory"]["values"], serde_json::json!([42, "hi"]));
    assert_eq!(checks["memory"]["data"], "hi");
    assert_eq!(checks["error"]["raised"], true);
    assert_eq!(checks["ping"]["value"], 41);
    assert_eq!(
        checks["nested"]["value"],
        serde_json::json!({"a": [1, 2], "b": [1.5, "x"]})
    );
    assert_eq!(
        support::signal_values(&checks["signal"]),
        ["done0", "done1", "done2"]
    );
    assert_eq!(checks["property"]["before"], 0.75);
    assert_eq!(checks["property"]["after"], 0.25);
    assert_eq!(checks["property"]["changed"], serde_json::json!([0.25]));
    assert_eq!(checks["cancel"]["canceled"], true);
    assert_eq!(checks["fail"]["raised"], true);
    let calls = calls.lock().unwrap();
    for c in [
        "ALTextToSpeech.say",
        "ALMotion.angleInterpolation",
        "ALMemory.insertData",
        "ALMemory.raiseEvent",
        "ALMemory.subscriber",
    ] {
        assert!(calls.iter().any(|x| x == c), "{c} not reported: {calls:?}");
    }
    served.stop();
}

#[test]
fn our_server_registered_into_libqi_directory() {
    let Some(py) = support::python("our_server_registered_into_libqi_directory") else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    let session = Session::connect(&url).unwrap();
    let added = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&added);
    session
        .on_service_added(move |id, name| sink.lock().unwrap().push((id, name)))
        .unwrap();
    let server =
        Server::attached(&url, ServerOptions::default(), SessionOptions::default()).unwrap();
    server.listen("tcp://127.0.0.1:0").unwrap();
    let id = server
        .register_service("RustProvider", support::rust_service())
        .unwrap();
    let info = session.service_info("RustProvider").unwrap();
    assert_eq!(info.service_id, id);
    // Reached through its own endpoint (a second socket).
    let provider = session.service("RustProvider").unwrap();
    assert_eq!(provider.call("ping", &[i(5)]).unwrap(), i(5));
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        added
            .lock()
            .unwrap()
            .iter()
            .any(|(x, n)| *x == id && n == "RustProvider")
    );
    server.unregister_service(id).unwrap();
    assert!(session.service_info("RustProvider").is_err());
}

#[test]
fn libqi_calls_back_an_object_our_client_passed() {
    let Some(py) = support::python("libqi_calls_back_an_object_our_client_passed") else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    let session = connect_patiently(&url);
    let service = session.service("ChoreoTest").unwrap();

    let child = ObjectBuilder::new("child")
        .method_inline("hello", "(s)", "s", |a| match a.first() {
            Some(Value::String(who)) => Ok(Out::Value(s(&format!("hello {who}")))),
            _ => Err("hello(s)".into()),
        })
        .build()
        .unwrap();
    // The object emits its own signal: held weakly, or it would keep itself alive.
    let me: Arc<Mutex<Weak<ServedObject>>> = Arc::new(Mutex::new(Weak::new()));
    let emitter = Arc::clone(&me);
    let dropped = Arc::new(AtomicBool::new(false));
    let on_drop = Arc::clone(&dropped);
    let object = ObjectBuilder::new("visited")
        .method("add", "(ii)", "i", |a| match a.as_slice() {
            [Value::Int(x), Value::Int(y)] => Ok(Out::Value(i(x + y))),
            _ => Err("add(ii)".into()),
        })
        .method_inline("child", "()", "o", move |_| {
            Ok(Out::Object(Arc::clone(&child)))
        })
        .method_inline("fail", "()", "v", |_| {
            Err("RuntimeError: refused by the client".into())
        })
        .property("volume", "f", Value::Float(0.5))
        .signal("tick", "(i)")
        .method("emitTicks", "(i)", "v", move |a| {
            let n = match a.first() {
                Some(Value::Int(n)) => *n,
                _ => 0,
            };
            let object = emitter.lock().unwrap().upgrade();
            if let Some(object) = object {
                for k in 0..n {
                    object.emit("tick", vec![i(k)]).map_err(|e| e.to_string())?;
                }
            }
            Ok(Out::Value(Value::None))
        })
        .on_drop(move || on_drop.store(true, Ordering::SeqCst))
        .build()
        .unwrap();
    *me.lock().unwrap() = Arc::downgrade(&object);

    let answer = service
        .call_args("visit", &[Arg::Object(Arc::clone(&object))])
        .unwrap();
    let Value::String(text) = answer.value else {
        panic!("visit returned {}", answer.value);
    };
    let seen: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(seen["add"], 5, "{seen}");
    assert_eq!(seen["child"], "hello libqi", "{seen}");
    assert!(
        seen["fail"]
            .as_str()
            .is_some_and(|e| e.contains("refused by the client")),
        "{seen}"
    );
    assert_eq!(seen["volume"], 0.5, "{seen}");
    // libqi runs a signal's Python callbacks on its thread pool, in no set order: every
    // tick arrived, once.
    let mut ticks: Vec<i64> = seen["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(serde_json::Value::as_i64)
        .collect();
    ticks.sort_unstable();
    assert_eq!(ticks, [0, 1, 2], "{seen}");

    // Bound as libqi binds a client's object: the called service, an id from 2^31.
    let (sid, oid) = object.address().unwrap();
    assert_eq!(sid, service.address().0);
    assert!(oid >= 1 << 31, "object id {oid}");
    // Python dropped its proxies: libqi terminated both objects, which we let go.
    wait_until(SETTLE, || session.served_objects() == 0);
    assert_eq!(session.served_objects(), 0);
    drop(object);
    wait_until(SETTLE, || dropped.load(Ordering::SeqCst));
    assert!(dropped.load(Ordering::SeqCst));

    // An object fits only an `o` (or `m`) parameter.
    let lone = ObjectBuilder::new("lone").build().unwrap();
    assert!(matches!(
        service.call_args("ping", &[Arg::Object(lone)]),
        Err(Error::Type(_))
    ));
}

#[test]
fn libqi_reads_a_file_our_client_passed_as_copy_to_local_does() {
    let Some(py) = support::python("libqi_reads_a_file_our_client_passed_as_copy_to_local_does")
    else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    let session = Session::connect(&url).unwrap();
    let service = session.service("ChoreoTest").unwrap();
    // Three reads of 512 KiB, the last one short.
    let bytes: Vec<u8> = (0..1_300_000u32).map(|n| (n % 251) as u8).collect();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let file = FileObject::observed(bytes.clone(), move |p| {
        log.lock().unwrap().push(*p);
    })
    .unwrap();
    let answer = service.call_args("fetch", &[file.arg()]).unwrap();
    assert_eq!(answer.value, Value::Raw(bytes));
    let progress = file.progress();
    assert_eq!(progress.status, TransferStatus::Finished);
    assert_eq!(progress.fraction, 1.0);
    assert_eq!(progress.bytes_read, 1_300_000);
    let seen = seen.lock().unwrap();
    let fractions: Vec<f64> = seen
        .iter()
        .map(|p| p.fraction)
        .filter(|f| *f > 0.0)
        .collect::<Vec<_>>();
    let mut distinct = fractions.clone();
    distinct.dedup();
    assert_eq!(
        distinct,
        vec![524_288.0 / 1_300_000.0, 1_048_576.0 / 1_300_000.0, 1.0]
    );
    assert_eq!(
        seen.first().map(|p| p.status),
        Some(TransferStatus::Running)
    );
    wait_until(SETTLE, || session.served_objects() == 0);
    assert_eq!(session.served_objects(), 0);
}
