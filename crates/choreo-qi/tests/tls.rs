//! qi over TLS (`tcps://`): our client against our server with certificates generated here
//! (self-signed, and CA-signed for chain verification), user/token authentication over TLS,
//! certificate pinning, plain/TLS mismatches failing cleanly, and the libqi client against
//! our tcps server.
//!
//! libqi as a *tcps server* is not tested: the PyPI `qi` 3.1.5 binding cannot give libqi a
//! certificate (libqi 4.0.3 takes it only from a C++ `ssl::ServerConfig`; there is no
//! environment variable or Python API for it), so `--qi-listen-url=tcps://…` fails with "SSL
//! certificates/key missing, the SSL configuration is incomplete".

use crate::support;
use crate::support::SETTLE;
use choreo_testkit::wait_until;

use std::io::Write;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::{Robot, Value};
use choreo_qi::{
    Error, Fingerprint, ObjectBuilder, Out, Pem, RemoteRobot, ServedObject, Server, ServerEvent,
    ServerOptions, ServerTls, Session, SessionOptions, TlsVerify,
};

/// A self-signed identity for localhost and 127.0.0.1, and its certificate's fingerprint.
fn self_signed() -> (ServerTls, Fingerprint) {
    let key =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    (
        ServerTls {
            certificate: Pem::Bytes(key.cert.pem().into_bytes()),
            key: Pem::Bytes(key.signing_key.serialize_pem().into_bytes()),
        },
        Fingerprint::of(key.cert.der()),
    )
}

/// A CA (its certificate in PEM) and a server identity it signed for 127.0.0.1.
fn ca_signed() -> (Vec<u8>, ServerTls) {
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "choreo test CA");
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let leaf = rcgen::CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
    (
        ca_cert.pem().into_bytes(),
        ServerTls {
            certificate: Pem::Bytes(leaf_cert.pem().into_bytes()),
            key: Pem::Bytes(leaf_key.serialize_pem().into_bytes()),
        },
    )
}

/// A service with a method, an echo, a signal and a property.
fn service() -> Arc<ServedObject> {
    let cell: Arc<Mutex<Option<Arc<ServedObject>>>> = Arc::new(Mutex::new(None));
    let emitter = Arc::clone(&cell);
    let object = ObjectBuilder::new("tls test service")
        .method_inline("ping", "(i)", "i", |a| {
            Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
        })
        .method("echo", "(s)", "s", |a| {
            Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
        })
        .signal("tick", "(i)")
        .property("volume", "f", Value::Float(0.5))
        .method_inline("emit", "(i)", "v", move |a| {
            let n = match a.first() {
                Some(Value::Int(n)) => *n,
                _ => 0,
            };
            if let Some(o) = emitter.lock().unwrap().as_ref() {
                for k in 0..n {
                    o.emit("tick", vec![Value::Int(k)]).unwrap();
                }
            }
            Ok(Out::Value(Value::None))
        })
        .build()
        .unwrap();
    *cell.lock().unwrap() = Some(Arc::clone(&object));
    object
}

type Events = Arc<Mutex<Vec<ServerEvent>>>;

/// A standalone tcps server with `Svc`; its URL and what it logged.
fn tcps_server(tls: ServerTls, credentials: Option<(&str, &str)>) -> (Server, String, Events) {
    let events: Events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let server = Server::standalone(ServerOptions {
        tls: Some(tls),
        credentials: credentials.map(|(u, t)| (u.to_string(), t.to_string())),
        log: Arc::new(move |e| sink.lock().unwrap().push(e.clone())),
        ..ServerOptions::default()
    })
    .unwrap();
    server.register_service("Svc", service()).unwrap();
    let url = server.listen("tcps://127.0.0.1:0").unwrap();
    (server, url, events)
}

fn options(verify: TlsVerify) -> SessionOptions {
    SessionOptions {
        tls: verify,
        reconnect: false,
        connect_timeout: Duration::from_secs(5),
        call_timeout: Some(Duration::from_secs(20)),
        ..SessionOptions::default()
    }
}

#[test]
fn calls_signals_and_properties_over_tcps_with_user_and_token() {
    let (tls, fingerprint) = self_signed();
    let (server, url, _) = tcps_server(tls, Some(("nao", "secret")));
    assert!(url.starts_with("tcps://127.0.0.1:"), "{url}");
    assert_eq!(server.endpoints(), vec![url.clone()]);

    let session = Session::connect_with(
        &url,
        SessionOptions {
            user: Some("nao".into()),
            token: Some("secret".into()),
            ..options(TlsVerify::AcceptAny)
        },
    )
    .unwrap();
    assert_eq!(session.peer_certificate(), Some(fingerprint));
    let svc = session.service("Svc").unwrap();
    assert_eq!(svc.call("ping", &[Value::Int(7)]).unwrap(), Value::Int(7));

    // Large payloads span many TLS records both ways.
    let big = "x".repeat(3 << 20);
    assert_eq!(
        svc.call("echo", &[Value::String(big.clone())]).unwrap(),
        Value::String(big)
    );

    // Signals.
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    let link = svc
        .connect("tick", move |args| sink.lock().unwrap().push(args))
        .unwrap();
    svc.call("emit", &[Value::Int(500)]).unwrap();
    assert!(wait_until(SETTLE, || got.lock().unwrap().len() == 500));
    assert_eq!(got.lock().unwrap()[499], vec![Value::Int(499)]);
    svc.disconnect(link).unwrap();

    // Properties.
    assert_eq!(svc.property("volume").unwrap(), Value::Float(0.5));
    svc.set_property("volume", Value::Float(0.25)).unwrap();
    assert_eq!(svc.property("volume").unwrap(), Value::Float(0.25));

    // Many callers in flight share the TLS writer.
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let svc = svc.clone();
            std::thread::spawn(move || {
                for k in 0..300 {
                    let v = Value::Int(t * 1000 + k);
                    assert_eq!(svc.call("ping", std::slice::from_ref(&v)).unwrap(), v);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let pending: Vec<_> = (0..200)
        .map(|k| svc.call_async("ping", &[Value::Int(k)]).unwrap())
        .collect();
    for (k, p) in pending.into_iter().enumerate() {
        assert_eq!(p.wait().unwrap().value, Value::Int(k as i64));
    }
    server.stop();
}

#[test]
fn a_bad_token_over_tcps_is_refused() {
    let (tls, _) = self_signed();
    let (_server, url, _) = tcps_server(tls, Some(("nao", "secret")));
    let refused = Session::connect_with(
        &url,
        SessionOptions {
            user: Some("nao".into()),
            token: Some("wrong".into()),
            ..options(TlsVerify::AcceptAny)
        },
    );
    assert!(
        matches!(refused, Err(Error::Authentication(_))),
        "{:?}",
        refused.err()
    );
}

#[test]
fn pinned_certificates() {
    let (tls, fingerprint) = self_signed();
    let (_server, url, _) = tcps_server(tls, None);
    let pinned =
        Session::connect_with(&url, options(TlsVerify::Pinned(vec![fingerprint]))).unwrap();
    assert_eq!(
        pinned
            .service("Svc")
            .unwrap()
            .call("ping", &[Value::Int(1)])
            .unwrap(),
        Value::Int(1)
    );
    let (_, other) = self_signed();
    match Session::connect_with(&url, options(TlsVerify::Pinned(vec![other]))) {
        Err(Error::Authentication(why)) => {
            assert!(why.contains(&fingerprint.to_string()), "{why}");
            assert!(why.contains("not among the pinned"), "{why}");
        }
        other => panic!("expected a refused certificate, got {:?}", other.err()),
    }
}

#[test]
fn certificates_verified_against_a_ca() {
    let (ca, tls) = ca_signed();
    let (_server, url, _) = tcps_server(tls, None);
    let verified =
        Session::connect_with(&url, options(TlsVerify::Roots(Pem::Bytes(ca.clone())))).unwrap();
    assert_eq!(
        verified
            .service("Svc")
            .unwrap()
            .call("ping", &[Value::Int(2)])
            .unwrap(),
        Value::Int(2)
    );
    // Another CA, or a self-signed certificate, is not trusted.
    let (other_ca, _) = ca_signed();
    let refused = Session::connect_with(&url, options(TlsVerify::Roots(Pem::Bytes(other_ca))));
    assert!(
        matches!(refused, Err(Error::Authentication(_))),
        "{:?}",
        refused.err()
    );
    let (self_signed, _) = self_signed();
    let (_server2, url2, _) = tcps_server(self_signed, None);
    let refused = Session::connect_with(&url2, options(TlsVerify::Roots(Pem::Bytes(ca))));
    assert!(
        matches!(refused, Err(Error::Authentication(_))),
        "{:?}",
        refused.err()
    );
}

#[test]
fn identity_from_pem_files_and_listen_errors() {
    let dir = std::env::temp_dir().join(format!("choreo-qi-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into()]).unwrap();
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, key.cert.pem()).unwrap();
    std::fs::write(&key_path, key.signing_key.serialize_pem()).unwrap();
    let (_server, url, _) = tcps_server(
        ServerTls {
            certificate: Pem::File(cert_path.clone()),
            key: Pem::File(key_path),
        },
        None,
    );
    let session = Session::connect_with(&url, options(TlsVerify::AcceptAny)).unwrap();
    assert_eq!(
        session.peer_certificate(),
        Some(Fingerprint::of(key.cert.der()))
    );

    // tcps without an identity, or with an unreadable one, fails at listen.
    let plain = Server::standalone(ServerOptions::default()).unwrap();
    assert!(matches!(
        plain.listen("tcps://127.0.0.1:0"),
        Err(Error::Tls(why)) if why.contains("ServerOptions::tls")
    ));
    let broken = Server::standalone(ServerOptions {
        tls: Some(ServerTls {
            certificate: Pem::File(cert_path.clone()),
            key: Pem::File(dir.join("missing.pem")),
        }),
        ..ServerOptions::default()
    })
    .unwrap();
    assert!(matches!(
        broken.listen("tcps://127.0.0.1:0"),
        Err(Error::Tls(why)) if why.contains("missing.pem")
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_plain_client_against_a_tcps_server_fails_cleanly() {
    let (tls, _) = self_signed();
    let (_server, url, events) = tcps_server(tls, None);
    let plain_url = url.replace("tcps://", "tcp://");

    // A client that connects and says nothing holds up no one.
    let silent = TcpStream::connect(url.trim_start_matches("tcps://")).unwrap();

    let t0 = Instant::now();
    let err = Session::connect_with(&plain_url, options(TlsVerify::AcceptAny))
        .err()
        .expect("a plain client cannot talk to a tcps server");
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    assert!(err.to_string().contains("tcps://"), "{err}");
    assert!(wait_until(SETTLE, || {
        events.lock().unwrap().iter().any(
            |e| matches!(e, ServerEvent::Closed { error: Some(why), .. } if why.contains("TLS")),
        )
    }));

    // Garbage then a close: same.
    let mut garbage = TcpStream::connect(url.trim_start_matches("tcps://")).unwrap();
    garbage.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    drop(garbage);

    // The server goes on serving TLS clients.
    let session = Session::connect_with(&url, options(TlsVerify::AcceptAny)).unwrap();
    assert_eq!(
        session
            .service("Svc")
            .unwrap()
            .call("ping", &[Value::Int(3)])
            .unwrap(),
        Value::Int(3)
    );
    drop(silent);
}

#[test]
fn a_tcps_client_against_a_plain_server_fails_cleanly() {
    let events: Events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let server = Server::standalone(ServerOptions {
        log: Arc::new(move |e| sink.lock().unwrap().push(e.clone())),
        ..ServerOptions::default()
    })
    .unwrap();
    server.register_service("Svc", service()).unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let t0 = Instant::now();
    let err = Session::connect_with(
        &url.replace("tcp://", "tcps://"),
        options(TlsVerify::AcceptAny),
    )
    .err()
    .expect("a TLS client cannot talk to a plain server");
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
    assert!(wait_until(SETTLE, || {
        events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, ServerEvent::Closed { error: Some(_), .. }))
    }));
    let session = Session::connect(&url).unwrap();
    assert_eq!(
        session
            .service("Svc")
            .unwrap()
            .call("ping", &[Value::Int(4)])
            .unwrap(),
        Value::Int(4)
    );
}

#[test]
fn remote_robot_over_tcps() {
    let (tls, _) = self_signed();
    let sim = Arc::new(choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Pepper));
    let served = choreo_qi::serve_robot(
        sim.clone(),
        "tcps://127.0.0.1:0",
        None,
        ServerOptions {
            tls: Some(tls),
            credentials: Some(("nao".into(), "pepper".into())),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    assert!(served.url.starts_with("tcps://"));
    let robot = RemoteRobot::connect(
        &served.url,
        SessionOptions {
            user: Some("nao".into()),
            token: Some("pepper".into()),
            ..SessionOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        robot.call("ALTextToSpeech", "getLanguage", vec![]).unwrap(),
        Value::String("English".into())
    );
    robot
        .call(
            "ALTextToSpeech",
            "say",
            vec![Value::String("over TLS".into())],
        )
        .unwrap();
    assert_eq!(sim.snapshot().spoken, vec!["over TLS".to_string()]);
    served.stop();
}

#[test]
fn a_tcps_session_reaches_services_of_other_processes_over_tcps() {
    let (tls, _) = self_signed();
    let (_directory, url, _) = tcps_server(tls.clone(), None);
    // A provider in "another process": attached to our directory, listening on tcp and tcps.
    let provider = Server::attached(
        &url,
        ServerOptions {
            tls: Some(tls),
            ..ServerOptions::default()
        },
        SessionOptions::default(),
    )
    .unwrap();
    provider.listen("tcp://127.0.0.1:0").unwrap();
    let secure = provider.listen("tcps://127.0.0.1:0").unwrap();
    provider.register_service("Provided", service()).unwrap();

    let session = Session::connect_with(&url, options(TlsVerify::AcceptAny)).unwrap();
    let info = session.service_info("Provided").unwrap();
    assert!(info.endpoints.contains(&secure), "{:?}", info.endpoints);
    let provided = session.service("Provided").unwrap();
    assert_eq!(
        provided.call("ping", &[Value::Int(5)]).unwrap(),
        Value::Int(5)
    );

    // A provider only on plain tcp is not reached from a tcps session.
    let (tls2, _) = self_signed();
    let plain_only = Server::attached(
        &url,
        ServerOptions {
            tls: Some(tls2),
            ..ServerOptions::default()
        },
        SessionOptions::default(),
    )
    .unwrap();
    plain_only.listen("tcp://127.0.0.1:0").unwrap();
    plain_only.register_service("PlainOnly", service()).unwrap();
    assert!(matches!(
        session.service("PlainOnly"),
        Err(Error::NotFound(why)) if why.contains("tcps")
    ));
}

#[test]
fn libqi_client_against_our_tcps_server() {
    let Some(py) = support::python("libqi_client_against_our_tcps_server") else {
        return;
    };
    let (tls, _) = self_signed();
    let robot = Arc::new(choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Nao));
    let served = choreo_qi::serve_robot(
        robot,
        "tcps://127.0.0.1:0",
        None,
        ServerOptions {
            tls: Some(tls),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    served
        .server
        .register_service("ChoreoRust", support::rust_service())
        .unwrap();
    let (peer, _) = support::Peer::start(
        &py,
        "libqi_client.py",
        std::slice::from_ref(&served.url),
        "CHECK",
    );
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
    assert_eq!(checks["memory"]["values"], serde_json::json!([42, "hi"]));
    assert_eq!(checks["ping"]["value"], 41);
    assert_eq!(
        support::signal_values(&checks["signal"]),
        ["done0", "done1", "done2"]
    );
    assert_eq!(checks["property"]["after"], 0.25);
    assert_eq!(checks["cancel"]["canceled"], true);
    assert_eq!(checks["fail"]["raised"], true);
    served.stop();
}
