//! Protocol generations (issue 15): golden bytes of each NAOqi release's dialect, in both
//! directions, and every pair of client and server generations talking to each other.
//!
//! The byte layouts come from libqi's public history (github.com/aldebaran/libqi):
//! - 2.1: each end sends a Capability message (type 6) with its capabilities when the socket
//!   opens (`src/messaging/tcptransportsocket.cpp`, `startReading`, commit 9a592f66);
//!   `ClientServerSocket`, `MessageFlags`, `MetaObjectCache` (commits a66f1239, b7760b84,
//!   a76b81f3); no service 0: `authenticate` gets `can't find service, address: …`
//!   (`src/messaging/server.cpp` at 9a592f66).
//! - 2.5: tag `v2.5.7.1`, `src/messaging/streamcontext.cpp` and `server.cpp`.
//! - 2.8: tag `qi-framework-v1.6.15`, `src/messaging/streamcontext.cpp`;
//!   `src/registration.cpp` (ServiceInfo of 6 fields).
//! - MetaObjectCache references: `v2.5.7.1:src/type/binarycodec.cpp` (`visitAnyObject`):
//!   a bool "transmitted", the MetaObject when true, the cache id (u32, 0xffffffff = not
//!   cached), then service and object ids.

use crate::support;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use choreo_engine::Value;
use choreo_qi::codec::header::{Address, Flags, MessageType};
use choreo_qi::codec::message::Message;
use choreo_qi::codec::metaobject::{MetaCache, ObjectFormat};
use choreo_qi::codec::value::decode;
use choreo_qi::transport::capability;
use choreo_qi::{
    Generation, MetaObject, ObjectBuilder, ObjectRef, Out, Server, ServerOptions, Session,
    SessionOptions, Signature,
};
use support::{hex, str_bytes};

/// A capability entry of a `{sm}` map: the key, then `m` holding a bool.
fn flag(key: &str, on: bool) -> Vec<u8> {
    let mut v = str_bytes(key);
    v.extend(hex("01 00 00 00 62"));
    v.push(u8::from(on));
    v
}

/// The capability map of `entries`, count first.
fn map(entries: &[(&str, bool)]) -> Vec<u8> {
    let mut v = (entries.len() as u32).to_le_bytes().to_vec();
    for (k, on) in entries {
        v.extend(flag(k, *on));
    }
    v
}

const V2_1_MAP: [(&str, bool); 3] = [
    ("ClientServerSocket", true),
    ("MessageFlags", true),
    ("MetaObjectCache", true),
];

fn read(stream: &mut TcpStream) -> Message {
    Message::read_from(stream, 1 << 20).unwrap().unwrap()
}

fn quiet(generation: Generation) -> ServerOptions {
    ServerOptions {
        log: Arc::new(|_| {}),
        generation,
        ..ServerOptions::default()
    }
}

/// A fresh server speaking `generation`, its URL, and a raw socket to it.
fn raw_server(generation: Generation) -> (Server, String, TcpStream) {
    let server = Server::standalone(quiet(generation)).unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let stream = TcpStream::connect(url.trim_start_matches("tcp://")).unwrap();
    (server, url, stream)
}

/// Sends a libqi 4 client's `authenticate` call {0.0.8} with message id `id`.
fn send_authenticate(stream: &mut TcpStream, id: u32) {
    let call = Message::new(
        MessageType::Call,
        id,
        Address::new(0, 0, 8),
        Flags::default(),
        capability::encode(Generation::V2_9, &[]),
    );
    stream.write_all(&call.to_bytes()).unwrap();
}

#[test]
fn a_2_1_server_announces_its_capabilities_and_refuses_authenticate_as_libqi_did() {
    let (server, _, mut stream) = raw_server(Generation::V2_1);
    let announced = read(&mut stream);
    assert_eq!(announced.header.kind, MessageType::Capability);
    assert_eq!(announced.header.address, Address::new(0, 0, 0));
    // 03 00 00 00, then "ClientServerSocket" m<b>1, "MessageFlags" m<b>1,
    // "MetaObjectCache" m<b>1: 79 bytes.
    assert_eq!(announced.payload, map(&V2_1_MAP));
    assert_eq!(announced.payload.len(), 79);
    // A newer client's authenticate call, id 1.
    send_authenticate(&mut stream, 1);
    let refusal = read(&mut stream);
    let text = "can't find service, address: {0.0.8, id:1}";
    let mut expected = hex("01 00 00 00 73");
    expected.extend(str_bytes(text));
    assert_eq!(
        refusal.to_bytes()[..28].to_vec(),
        [
            hex("42 de ad 42 01 00 00 00"),
            (expected.len() as u32).to_le_bytes().to_vec(),
            hex("00 00 03 00 00 00 00 00 00 00 00 00 08 00 00 00"),
        ]
        .concat()
    );
    assert_eq!(refusal.payload, expected);
    server.stop();
}

#[test]
fn authenticate_replies_carry_each_generation_s_capabilities() {
    for (generation, entries) in [
        (
            Generation::V2_5,
            vec![
                ("ClientServerSocket", true),
                ("MessageFlags", true),
                ("MetaObjectCache", true),
                ("RemoteCancelableCalls", true),
            ],
        ),
        (
            Generation::V2_8,
            vec![
                ("ClientServerSocket", true),
                ("MessageFlags", true),
                ("MetaObjectCache", false),
                ("ObjectPtrUID", true),
                ("RemoteCancelableCalls", true),
            ],
        ),
    ] {
        let (server, url, mut stream) = raw_server(generation);
        send_authenticate(&mut stream, 5);
        let reply = read(&mut stream);
        assert_eq!(reply.header.kind, MessageType::Reply);
        // The entries, then "__qi_auth_state" m<I>3 (sorted last: '_' follows the capitals).
        let mut expected = map(&entries);
        expected[0] += 1;
        expected.extend(str_bytes("__qi_auth_state"));
        expected.extend(hex("01 00 00 00 49 03 00 00 00"));
        assert_eq!(reply.payload, expected, "{generation}");

        // service("ServiceDirectory") answers 6 fields: no objectUid before 2.9.
        let call = Message::new(
            MessageType::Call,
            6,
            Address::new(1, 1, 100),
            Flags::default(),
            str_bytes("ServiceDirectory"),
        );
        stream.write_all(&call.to_bytes()).unwrap();
        let reply = read(&mut stream);
        let mut expected = str_bytes("ServiceDirectory");
        expected.extend(hex("01 00 00 00"));
        expected.extend(str_bytes(server.machine_id()));
        expected.extend(std::process::id().to_le_bytes());
        // The endpoints: only the tcp one (`qi:ServiceDirectory` is a 2.9 relative URI).
        expected.extend(hex("01 00 00 00"));
        expected.extend(str_bytes(&url));
        expected.extend(str_bytes("0"));
        assert_eq!(reply.payload, expected, "{generation}");
        server.stop();
    }
}

/// What a 2.1 peer sends as the socket opens: its capabilities, in a Capability message.
fn announce_2_1(stream: &mut TcpStream) {
    let announce = Message::new(
        MessageType::Capability,
        1,
        Address::default(),
        Flags::default(),
        map(&V2_1_MAP),
    );
    stream.write_all(&announce.to_bytes()).unwrap();
}

#[test]
fn a_client_meets_a_2_1_peer_and_speaks_its_dialect() {
    // The peer: a raw socket that behaves as NAOqi 2.1's libqi, checking what it receives.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("tcp://{}", listener.local_addr().unwrap());
    let peer = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        announce_2_1(&mut stream);
        let call = read(&mut stream);
        assert_eq!(
            (call.header.kind, call.header.address),
            (MessageType::Call, Address::new(0, 0, 8))
        );
        let refusal = Message::new(
            MessageType::Error,
            call.header.id,
            call.header.address,
            Flags::default(),
            [
                hex("01 00 00 00 73"),
                str_bytes("can't find service, address: {0.0.8, id:1}"),
            ]
            .concat(),
        );
        stream.write_all(&refusal.to_bytes()).unwrap();
        // The client then tells its capabilities the 2.1 way: libqi 4's six, 161 bytes.
        let told = read(&mut stream);
        assert_eq!(told.header.kind, MessageType::Capability);
        assert_eq!(told.payload, capability::encode(Generation::V2_9, &[]));
        assert_eq!(told.payload.len(), 161);
        while let Ok(Some(_)) = Message::read_from(&mut stream, 1 << 20) {}
    });
    let session = Session::connect_with(
        &url,
        SessionOptions {
            reconnect: false,
            keepalive: None,
            ..SessionOptions::default()
        },
    )
    .unwrap();
    assert!(session.is_legacy());
    assert_eq!(session.peer_generation(), Some(Generation::V2_1));
    session.close();
    peer.join().unwrap();
}

#[test]
fn a_client_speaking_2_1_sends_a_capability_message_and_no_authenticate() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("tcp://{}", listener.local_addr().unwrap());
    let peer = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let first = read(&mut stream);
        let bytes = first.to_bytes();
        // Header: type 6, flags 0, address {0.0.0}, 79-byte payload.
        assert_eq!(bytes[8..12].to_vec(), hex("4f 00 00 00"));
        assert_eq!(
            bytes[12..28].to_vec(),
            hex("00 00 06 00 00 00 00 00 00 00 00 00 00 00 00 00")
        );
        assert_eq!(first.payload, map(&V2_1_MAP));
        announce_2_1(&mut stream);
        while let Ok(Some(_)) = Message::read_from(&mut stream, 1 << 20) {}
    });
    let session = Session::connect_with(
        &url,
        SessionOptions {
            generation: Generation::V2_1,
            reconnect: false,
            keepalive: None,
            ..SessionOptions::default()
        },
    )
    .unwrap();
    assert_eq!(session.peer_generation(), Some(Generation::V2_1));
    session.close();
    peer.join().unwrap();
}

#[test]
fn object_references_under_meta_object_cache() {
    let format = ObjectFormat {
        meta_object_cache: true,
        object_ptr_uid: false,
    };
    let mut meta = MetaObject::reserved();
    meta.description = "sub".into();
    let mut meta_bytes = Vec::new();
    meta.write(&mut meta_bytes);
    let mut sender = MetaCache::default();
    let mut first = ObjectRef {
        meta: meta.clone(),
        service: 2,
        object: 3,
        ..ObjectRef::default()
    };
    sender.send(&mut first);
    let mut second = ObjectRef {
        meta: meta.clone(),
        service: 2,
        object: 4,
        ..ObjectRef::default()
    };
    sender.send(&mut second);
    let mut out = Vec::new();
    first.write(format, &mut out);
    // 01, the MetaObject, cache id 0, service 2, object 3.
    assert_eq!(
        out,
        [
            hex("01"),
            meta_bytes,
            hex("00 00 00 00 02 00 00 00 03 00 00 00")
        ]
        .concat()
    );
    let mut again = Vec::new();
    second.write(format, &mut again);
    // 00 (left out), cache id 0, service 2, object 4.
    assert_eq!(again, hex("00 00 00 00 00 02 00 00 00 04 00 00 00"));

    let mut receiver = MetaCache::default();
    let mut a = decode(&out, &Signature::Object, format).unwrap().objects;
    let mut b = decode(&again, &Signature::Object, format).unwrap().objects;
    assert!(b[0].meta_cached && b[0].meta != meta);
    receiver.receive(&mut a[0]).unwrap();
    receiver.receive(&mut b[0]).unwrap();
    assert_eq!((a[0].cache_id, b[0].cache_id), (Some(0), Some(0)));
    assert_eq!(b[0].meta, meta);
    assert_eq!(b[0].object, 4);
    // A reference naming a cache id never sent is a protocol error, not a panic.
    let mut stray = decode(
        &hex("00 07 00 00 00 02 00 00 00 04 00 00 00"),
        &Signature::Object,
        format,
    )
    .unwrap()
    .objects;
    assert!(MetaCache::default().receive(&mut stray[0]).is_err());
    // Not cached: transmitted with 0xffffffff.
    let plain = ObjectRef {
        meta: meta.clone(),
        ..ObjectRef::default()
    };
    let mut bytes = Vec::new();
    plain.write(format, &mut bytes);
    assert_eq!(
        bytes[bytes.len() - 12..bytes.len() - 8].to_vec(),
        hex("ff ff ff ff")
    );
}

/// A service with a method returning a sub-object and a method whose signature only 2.8+
/// parsers know.
fn served(server: &Server) {
    let make = || {
        ObjectBuilder::new("sub")
            .method_inline("twice", "(i)", "i", |a| match a.first() {
                Some(Value::Int(i)) => Ok(Out::Value(Value::Int(i * 2))),
                _ => Err("an int".into()),
            })
            .build()
            .unwrap()
    };
    let object = ObjectBuilder::new("")
        .method_inline("ping", "(i)", "i", |a| Ok(Out::Value(a[0].clone())))
        .method_inline("maybe", "(+i)", "b", |_| Ok(Out::Value(Value::Bool(true))))
        .method_inline("sub", "()", "o", move |_| Ok(Out::Object(make())))
        .build()
        .unwrap();
    server.register_service("Pinger", object).unwrap();
}

#[test]
fn every_client_generation_talks_with_every_server_generation() {
    for server_generation in Generation::ALL {
        let server = Server::standalone(quiet(server_generation)).unwrap();
        served(&server);
        let url = server.listen("tcp://127.0.0.1:0").unwrap();
        for client_generation in Generation::ALL {
            let case = format!("client {client_generation}, server {server_generation}");
            let session = Session::connect_with(
                &url,
                SessionOptions {
                    generation: client_generation,
                    reconnect: false,
                    keepalive: None,
                    ..SessionOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{case}: {e}"));
            let spoken = client_generation.min(server_generation);
            assert_eq!(session.peer_generation(), Some(spoken), "{case}");
            let services = session.services().unwrap();
            assert!(services.iter().any(|s| s.name == "Pinger"), "{case}");
            let uid_bytes = services.iter().find(|s| s.name == "Pinger").unwrap();
            assert_eq!(
                !uid_bytes.object_uid.is_empty(),
                spoken == Generation::V2_9,
                "{case}: objectUid"
            );
            let pinger = session.service("Pinger").unwrap();
            assert_eq!(
                pinger.call("ping", &[Value::Int(7)]).unwrap(),
                Value::Int(7),
                "{case}"
            );
            // `+i` is shown only to peers that parse it.
            assert_eq!(
                pinger.meta_object().methods_named("maybe").count(),
                usize::from(spoken.parses_optional()),
                "{case}"
            );
            // Two sub-objects: under MetaObjectCache (2.1 and 2.5 on both ends) the second
            // reference leaves the MetaObject out and names the first's cache id.
            for n in 1..=2 {
                let sub = pinger.call_object("sub", &[]).unwrap();
                assert_eq!(
                    sub.call("twice", &[Value::Int(n)]).unwrap(),
                    Value::Int(n * 2),
                    "{case}"
                );
                assert_eq!(sub.meta_object().description, "sub", "{case}");
            }
            session.close();
        }
        server.stop();
    }
}

#[test]
fn a_server_registers_into_a_directory_of_every_generation() {
    for generation in Generation::ALL {
        let directory = Server::standalone(quiet(generation)).unwrap();
        let url = directory.listen("tcp://127.0.0.1:0").unwrap();
        let provider = Server::attached(
            &url,
            quiet(Generation::V2_9),
            SessionOptions {
                keepalive: None,
                ..SessionOptions::default()
            },
        )
        .unwrap();
        provider.listen("tcp://127.0.0.1:0").unwrap();
        served(&provider);
        let client = Session::connect(&url).unwrap();
        let pinger = client.service("Pinger").unwrap();
        assert_eq!(
            pinger.call("ping", &[Value::Int(3)]).unwrap(),
            Value::Int(3),
            "{generation}"
        );
        client.close();
        provider.stop();
        directory.stop();
    }
}
