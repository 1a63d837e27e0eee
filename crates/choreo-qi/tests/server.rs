//! Our client against our server (no Python needed): the simulated robot through
//! RemoteRobot, reconnection, and malformed input (each bad connection is closed with a
//! logged error while other clients go on being served).

use crate::support::SETTLE;
use choreo_testkit::wait_until;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{Robot, RobotError, Value};
use choreo_qi::codec::header::{Address, Flags, MessageType};
use choreo_qi::codec::message::Message;
use choreo_qi::transport::capability;
use choreo_qi::{
    Error, ObjectBuilder, Out, RemoteRobot, Server, ServerEvent, ServerOptions, Session,
    SessionOptions,
};

#[test]
fn remote_robot_drives_the_served_simulated_robot() {
    let sim = Arc::new(choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Nao));
    let served = choreo_qi::serve_robot(
        sim.clone(),
        "tcp://127.0.0.1:0",
        None,
        ServerOptions::default(),
    )
    .unwrap();
    assert!(served.url.starts_with("tcp://127.0.0.1:"));
    let robot = RemoteRobot::connect(&served.url, SessionOptions::default()).unwrap();
    assert_eq!(
        robot.call("ALTextToSpeech", "getLanguage", vec![]).unwrap(),
        Value::String("English".into())
    );
    robot
        .call("ALTextToSpeech", "say", vec![Value::String("hi".into())])
        .unwrap();
    assert_eq!(sim.snapshot().spoken, vec!["hi".to_string()]);
    // Overloads: insertData(si) and (ss).
    robot
        .call(
            "ALMemory",
            "insertData",
            vec![Value::String("k".into()), Value::Int(3)],
        )
        .unwrap();
    assert_eq!(
        robot
            .call("ALMemory", "getData", vec![Value::String("k".into())])
            .unwrap(),
        Value::Int(3)
    );
    // Memory subscriptions through ALMemory.subscriber + signal.
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    robot
        .subscribe(
            "choreo/Touch",
            7,
            Arc::new(move |k: &str, v: Value| sink.lock().unwrap().push((k.to_string(), v))),
        )
        .unwrap();
    sim.raise_event("choreo/Touch", Value::Float(1.0));
    assert!(wait_until(SETTLE, || got.lock().unwrap().len() == 1));
    assert_eq!(
        got.lock().unwrap()[0],
        ("choreo/Touch".to_string(), Value::Float(1.0))
    );
    robot.unsubscribe(7);
    sim.raise_event("choreo/Touch", Value::Float(0.0));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(got.lock().unwrap().len(), 1);
    // Post, then the task API on its id.
    let id = robot
        .post(
            "ALTextToSpeech",
            "say",
            vec![Value::String("posted".into())],
        )
        .unwrap();
    assert_eq!(
        robot
            .call(
                "ALTextToSpeech",
                "wait",
                vec![Value::Int(id), Value::Int(0)]
            )
            .unwrap(),
        Value::Bool(false)
    );
    assert_eq!(
        robot
            .call("ALTextToSpeech", "isRunning", vec![Value::Int(id)])
            .unwrap(),
        Value::Bool(false)
    );
    // Errors a program can tell apart: unknown module, unknown method, bad arguments, the
    // robot's own error, and (once the server is gone) a lost link.
    assert_eq!(
        robot.call("ALNoSuch", "x", vec![]).unwrap_err(),
        RobotError::UnknownService("ALNoSuch".into())
    );
    assert_eq!(
        robot
            .call("ALMotion", "noSuchMethod", vec![Value::Int(1)])
            .unwrap_err(),
        RobotError::UnknownMethod {
            service: "ALMotion".into(),
            method: "noSuchMethod".into(),
            signature: "(l)".into(),
            detail: String::new(),
        }
    );
    let e = robot
        .call("ALMemory", "getData", vec![Value::List(vec![])])
        .unwrap_err();
    assert!(matches!(e, RobotError::BadArguments(_)), "{e:?}");
    let e = robot
        .call("ALMemory", "getData", vec![Value::String("nokey".into())])
        .unwrap_err();
    assert!(
        matches!(&e, RobotError::Failed(m) if m.starts_with("ALMemory.getData: ") && m.contains("nokey")),
        "{e:?}"
    );
    assert!(!e.is_connection_lost());
    served.stop();
    assert!(wait_until(SETTLE, || {
        robot
            .call("ALTextToSpeech", "getLanguage", vec![])
            .is_err_and(|e| e.is_connection_lost())
    }));
}

#[test]
fn reconnects_with_a_clear_error_meanwhile() {
    let server = Server::standalone(ServerOptions::default()).unwrap();
    let object = ObjectBuilder::new("")
        .method_inline("ping", "(i)", "i", |a| Ok(Out::Value(a[0].clone())))
        .build()
        .unwrap();
    server.register_service("Pinger", object).unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let session = Session::connect_with(
        &url,
        SessionOptions {
            min_backoff: Duration::from_millis(20),
            ..SessionOptions::default()
        },
    )
    .unwrap();
    let reconnected = Arc::new(Mutex::new(0));
    let count = Arc::clone(&reconnected);
    session.on_reconnect(move |_| *count.lock().unwrap() += 1);
    let pinger = session.service("Pinger").unwrap();
    assert_eq!(
        pinger.call("ping", &[Value::Int(1)]).unwrap(),
        Value::Int(1)
    );
    // Drop every connection: the session reconnects by itself.
    server.stop();
    assert!(wait_until(SETTLE, || !pinger.is_connected()));
    match pinger.call("ping", &[Value::Int(1)]) {
        Err(Error::Disconnected(_)) => {}
        other => panic!("{other:?}"),
    }
    match session.service("Pinger") {
        Err(Error::Disconnected(text)) => assert!(text.contains(&url), "{text}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    // A new server on the same port: the session comes back.
    let again = Server::standalone(ServerOptions::default()).unwrap();
    let object = ObjectBuilder::new("")
        .method_inline("ping", "(i)", "i", |a| Ok(Out::Value(a[0].clone())))
        .build()
        .unwrap();
    again.register_service("Pinger", object).unwrap();
    // The port was free between the servers: with the suite's other tests opening
    // thousands of connections beside this one, one of their ephemeral ports may hold it
    // for a while (seen once under load). Wait for it rather than fail.
    let since = std::time::Instant::now();
    loop {
        match again.listen(&url) {
            Ok(_) => break,
            Err(Error::Io(e))
                if e.kind() == std::io::ErrorKind::AddrInUse
                    && since.elapsed() < Duration::from_secs(120) =>
            {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(wait_until(SETTLE, || session.is_connected()));
    // The hooks run on the reconnecting thread once the link is up (they may need it, to
    // register services again), so they may still be running when `is_connected` turns true.
    assert!(wait_until(SETTLE, || *reconnected.lock().unwrap() == 1));
    let pinger = session.service("Pinger").unwrap();
    assert_eq!(
        pinger.call("ping", &[Value::Int(2)]).unwrap(),
        Value::Int(2)
    );
    again.stop();
}

fn authenticate(stream: &mut TcpStream) {
    let m = Message::new(
        MessageType::Call,
        1,
        Address::new(0, 0, 8),
        Flags::default(),
        capability::encode(choreo_qi::Generation::V2_9, &[]),
    );
    stream.write_all(&m.to_bytes()).unwrap();
    let reply = Message::read_from(stream, 1 << 20).unwrap().unwrap();
    assert_eq!(reply.header.kind, MessageType::Reply);
}

fn ping_frame(id: u32, service: u32) -> Vec<u8> {
    Message::new(
        MessageType::Call,
        id,
        Address::new(service, 1, 100),
        Flags::default(),
        5i32.to_le_bytes().to_vec(),
    )
    .to_bytes()
}

/// Reads until the server closes the socket; true if it did within 5 s.
fn closed_by_server(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) => return e.kind() == std::io::ErrorKind::ConnectionReset,
        }
    }
}

#[test]
fn malformed_input_closes_only_that_connection() {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let server = Server::standalone(ServerOptions {
        log: Arc::new(move |e| {
            if let ServerEvent::Closed {
                error: Some(error), ..
            } = e
            {
                sink.lock().unwrap().push(error.clone());
            }
        }),
        ..ServerOptions::default()
    })
    .unwrap();
    let object = ObjectBuilder::new("")
        .method_inline("ping", "(i)", "i", |a| Ok(Out::Value(a[0].clone())))
        .build()
        .unwrap();
    let sid = server.register_service("Pinger", object).unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let addr = url.trim_start_matches("tcp://").to_string();
    let session = Session::connect(&url).unwrap();
    let good = session.service("Pinger").unwrap();

    let mut header = ping_frame(9, sid);
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "bad magic",
            {
                let mut b = header.clone();
                b[0] = 0x43;
                b
            },
            false,
        ),
        (
            "version",
            {
                let mut b = header.clone();
                b[12] = 1;
                b
            },
            true,
        ),
        (
            "exceeds",
            {
                let mut b = header.clone();
                b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
                b
            },
            true,
        ),
        (
            "inside a payload",
            {
                let mut b = header.clone();
                b[8..12].copy_from_slice(&100u32.to_le_bytes());
                b
            },
            true,
        ),
        (
            "bad signature",
            {
                let mut payload = 2u32.to_le_bytes().to_vec();
                payload.extend_from_slice(b"[(");
                Message::new(
                    MessageType::Call,
                    9,
                    Address::new(sid, 1, 100),
                    Flags::DYNAMIC_PAYLOAD,
                    payload,
                )
                .to_bytes()
            },
            true,
        ),
        (
            "past end",
            {
                Message::new(
                    MessageType::Call,
                    9,
                    Address::new(sid, 1, 100),
                    Flags::default(),
                    vec![1, 2],
                )
                .to_bytes()
            },
            true,
        ),
        (
            "bad magic",
            {
                let mut b = ping_frame(9, sid);
                b.extend_from_slice(b"garbage after a valid frame....");
                b
            },
            true,
        ),
    ];
    header.clear();
    for (i, (expected, bytes, auth)) in cases.into_iter().enumerate() {
        let mut stream = TcpStream::connect(&addr).unwrap();
        if auth {
            authenticate(&mut stream);
        }
        stream.write_all(&bytes).unwrap();
        if expected == "inside a payload" {
            stream.shutdown(std::net::Shutdown::Write).unwrap();
        }
        assert!(
            closed_by_server(&mut stream),
            "case {i} ({expected}): still open"
        );
        assert!(
            wait_until(SETTLE, || errors.lock().unwrap().len() > i),
            "case {i}: no error logged"
        );
        let logged = errors.lock().unwrap()[i].clone();
        assert!(
            logged.contains(expected),
            "case {i}: logged {logged:?}, expected {expected:?}"
        );
        // The server keeps serving the well-behaved client.
        assert_eq!(
            good.call("ping", &[Value::Int(i as i64)]).unwrap(),
            Value::Int(i as i64)
        );
    }
    // A call before authenticating: as libqi 4 (`Server::handleServerMessageNoAuth`), the
    // server's capabilities, then the error for the call; the socket stays open.
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream.write_all(&ping_frame(3, sid)).unwrap();
    let answer = Message::read_from(&mut stream, 1 << 20).unwrap().unwrap();
    assert_eq!(answer.header.kind, MessageType::Capability);
    let answer = Message::read_from(&mut stream, 1 << 20).unwrap().unwrap();
    assert_eq!(answer.header.kind, MessageType::Error);
    authenticate(&mut stream);
    stream.write_all(&ping_frame(4, sid)).unwrap();
    let answer = Message::read_from(&mut stream, 1 << 20).unwrap().unwrap();
    assert_eq!(
        (answer.header.kind, answer.payload),
        (MessageType::Reply, 5i32.to_le_bytes().to_vec())
    );
    server.stop();
}

#[test]
fn credentials_are_enforced_when_set() {
    let server = Server::standalone(ServerOptions {
        credentials: Some(("nao".into(), "secret".into())),
        log: Arc::new(|_| {}),
        ..ServerOptions::default()
    })
    .unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    assert!(matches!(
        Session::connect(&url),
        Err(Error::Authentication(_))
    ));
    let ok = Session::connect_with(
        &url,
        SessionOptions {
            user: Some("nao".into()),
            token: Some("secret".into()),
            ..SessionOptions::default()
        },
    )
    .unwrap();
    assert!(
        ok.services()
            .unwrap()
            .iter()
            .any(|s| s.name == "ServiceDirectory")
    );
    server.stop();
}

/// Issue 33: a server with a simulated network delay (`ServerOptions::latency`, `choreo sim
/// --latency`) holds every message back by its delay each way, and keeps their order (TCP
/// does) whatever the jitter.
#[test]
fn a_latency_delays_each_way_and_keeps_the_order() {
    let arrived = Arc::new(Mutex::new(Vec::new()));
    let serve = |latency: &str| {
        let server = Server::standalone(ServerOptions {
            latency: Some(choreo_qi::Latency::parse(latency).unwrap()),
            log: Arc::new(|_| {}),
            ..ServerOptions::default()
        })
        .unwrap();
        let seen = Arc::clone(&arrived);
        let object = ObjectBuilder::new("")
            .method_inline("ping", "(i)", "i", move |a| {
                seen.lock().unwrap().push(a[0].clone());
                Ok(Out::Value(a[0].clone()))
            })
            .build()
            .unwrap();
        server.register_service("Pinger", object).unwrap();
        let url = server.listen("tcp://127.0.0.1:0").unwrap();
        (server, url)
    };
    // 40 ms each way: a call's round trip takes at least 80 ms (a lower bound: a busy
    // machine only adds to it).
    let (server, url) = serve("40");
    let session = Session::connect(&url).unwrap();
    let pinger = session.service("Pinger").unwrap();
    let started = std::time::Instant::now();
    assert_eq!(
        pinger.call("ping", &[Value::Int(1)]).unwrap(),
        Value::Int(1)
    );
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(80), "{took:?}");
    drop(pinger);
    drop(session);
    server.stop();
    // 30 ± 25 ms: a hundred calls sent at once arrive in the order sent, and every answer
    // comes back.
    arrived.lock().unwrap().clear();
    let (server, url) = serve("30±25");
    let session = Session::connect(&url).unwrap();
    let pinger = session.service("Pinger").unwrap();
    let calls: Vec<_> = (0..100)
        .map(|i| pinger.call_async("ping", &[Value::Int(i)]).unwrap())
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let answer = call.wait().unwrap();
        assert_eq!(answer.value, Value::Int(i as i64));
    }
    let order: Vec<Value> = (0..100).map(Value::Int).collect();
    assert_eq!(*arrived.lock().unwrap(), order);
    server.stop();
}
