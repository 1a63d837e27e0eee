//! Who reads a client's socket (`session/link.rs`): a caller reads its own answer when
//! nobody else reads, the reader thread otherwise. Whoever reads, events and calls from the
//! peer are handled on the reader thread in the order they arrived, and every caller gets
//! its own answer.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::Value;
use choreo_qi::{Server, ServerOptions, Session};

/// A client connected to a server of the Rust test service, recording its `textDone`
/// events (see [`record`]); the server, the session and the link live as long as it.
struct Peer {
    _server: Server,
    _session: Session,
    svc: Arc<choreo_qi::RemoteObject>,
    seen: Seen,
    _link: choreo_qi::SignalLink,
}

fn connected() -> Peer {
    let server = Server::standalone(ServerOptions::default()).unwrap();
    server
        .register_service("ChoreoRust", support::rust_service())
        .unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let session = Session::connect(&url).unwrap();
    let svc = Arc::new(session.service("ChoreoRust").unwrap());
    let (seen, link) = record(&svc);
    Peer {
        _server: server,
        _session: session,
        svc,
        seen,
        _link: link,
    }
}

type Seen = Arc<Mutex<Vec<(String, i64)>>>;

/// Records each `textDone("done<k>")` as `k`, with the name of the thread that handled it.
fn record(svc: &choreo_qi::RemoteObject) -> (Seen, choreo_qi::SignalLink) {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let link = svc
        .connect("textDone", move |args| {
            let k = match args.first() {
                Some(Value::String(s)) => s.strip_prefix("done").unwrap().parse().unwrap(),
                other => panic!("textDone({other:?})"),
            };
            let name = std::thread::current().name().unwrap_or("").to_string();
            sink.lock().unwrap().push((name, k));
        })
        .unwrap();
    (seen, link)
}

#[test]
fn an_event_sent_before_an_answer_is_handled_before_the_call_returns() {
    let peer = connected();
    let (svc, seen) = (&peer.svc, &peer.seen);
    // Back-to-back calls: the caller reads the socket itself, meets the event before its
    // answer, and must leave it to the reader thread, which runs the handler first.
    for call in 1..=2000usize {
        svc.call("emit", &[Value::Int(1)]).unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.len(),
            call,
            "call {call} returned before its event was handled"
        );
        let (thread, k) = &seen[call - 1];
        assert_eq!(k, &0);
        assert_eq!(thread, "qi-client", "a handler ran on a caller's thread");
    }
}

#[test]
fn callers_on_many_threads_each_get_their_own_answer_while_events_flow() {
    let peer = connected();
    let (svc, seen) = (&peer.svc, &peer.seen);
    let threads: Vec<_> = (0..6i64)
        .map(|t| {
            let svc = Arc::clone(svc);
            std::thread::spawn(move || {
                for i in 0..1500i64 {
                    let x = t * 1_000_000 + i;
                    assert_eq!(svc.call("ping", &[Value::Int(x)]).unwrap(), Value::Int(x));
                    // Some calls asynchronous, waited for out of order.
                    if i % 7 == 0 {
                        let a = svc.call_async("ping", &[Value::Int(x + 1)]).unwrap();
                        let b = svc.call_async("ping", &[Value::Int(x + 2)]).unwrap();
                        assert_eq!(b.wait().unwrap().value, Value::Int(x + 2));
                        assert_eq!(a.wait().unwrap().value, Value::Int(x + 1));
                    }
                }
            })
        })
        .collect();
    // Meanwhile, batches of events: each batch arrives whole and in order.
    for _ in 0..40 {
        svc.call("emit", &[Value::Int(25)]).unwrap();
    }
    for t in threads {
        t.join().unwrap();
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 40 * 25);
    for (n, (thread, k)) in seen.iter().enumerate() {
        assert_eq!(*k, (n % 25) as i64, "event {n} out of order");
        assert_eq!(thread, "qi-client");
    }
}

#[test]
fn a_pipeline_reads_its_own_answers_in_order_while_events_flow() {
    // One thread keeps 8 calls in flight and waits for the oldest: it reads the socket
    // itself, so it meets other calls' answers and events. Each call must get its own answer
    // and every event must still run on the reader thread, in the order sent.
    let peer = connected();
    let (svc, seen) = (&peer.svc, &peer.seen);
    let mut window = std::collections::VecDeque::new();
    let mut emits = 0;
    for x in 0..20_000i64 {
        let pending = if x % 50 == 0 {
            emits += 1;
            (None, svc.call_async("emit", &[Value::Int(3)]).unwrap())
        } else {
            (Some(x), svc.call_async("ping", &[Value::Int(x)]).unwrap())
        };
        window.push_back(pending);
        if window.len() == 8 {
            let (expected, call) = window.pop_front().unwrap();
            let value = call.wait().unwrap().value;
            if let Some(x) = expected {
                assert_eq!(value, Value::Int(x), "call {x} got another call's answer");
            }
        }
    }
    for (expected, call) in window {
        let value = call.wait().unwrap().value;
        if let Some(x) = expected {
            assert_eq!(value, Value::Int(x));
        }
    }
    // The last events may still be on their way to the handler after the last answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while seen.lock().unwrap().len() < emits * 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), emits * 3);
    for (n, (thread, k)) in seen.iter().enumerate() {
        assert_eq!(*k, (n % 3) as i64, "event {n} out of order");
        assert_eq!(thread, "qi-client", "a handler ran on a caller's thread");
    }
}

#[test]
fn an_event_on_a_quiet_link_after_a_call_still_arrives() {
    // After a call the reading half lies free for a moment, read by nobody: an event the
    // peer sends then must still be read (by the reader thread, which takes it back).
    let peer = connected();
    let (svc, seen) = (&peer.svc, &peer.seen);
    for round in 1..=20usize {
        // A post has no answer: nobody waits, so only the reader thread can read its event.
        svc.post("emit", &[Value::Int(1)]).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while seen.lock().unwrap().len() < round {
            assert!(
                std::time::Instant::now() < deadline,
                "event {round} never handled"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        svc.call("ping", &[Value::Int(1)]).unwrap();
    }
}
