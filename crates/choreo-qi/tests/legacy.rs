//! Peers of older protocol generations (issue 15), from the facts of libqi's own sources:
//! what a NAOqi 2.1 server answers to the authentication call of a newer client.

use std::net::TcpListener;

use choreo_engine::Value;
use choreo_qi::codec::header::{Flags, MessageType};
use choreo_qi::codec::message::Message;
use choreo_qi::codec::value::encode_dynamic;
use choreo_qi::{Error, Session, SessionOptions};

/// A one-connection peer that answers the first message (the authentication call) with an
/// Error carrying `text`, then keeps the link open until the client closes it.
fn peer_answering_authenticate_with(text: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("tcp://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let call = Message::read_from(&mut stream, 1 << 20).unwrap().unwrap();
        let mut payload = Vec::new();
        encode_dynamic(&Value::String(text.into()), &mut payload).unwrap();
        let error = Message::new(
            MessageType::Error,
            call.header.id,
            call.header.address,
            Flags::default(),
            payload,
        );
        std::io::Write::write_all(&mut stream, &error.to_bytes()).unwrap();
        // Read until the client goes: the link stays open, as libqi 2.1 leaves it.
        while let Ok(Some(_)) = Message::read_from(&mut stream, 1 << 20) {}
    });
    url
}

#[test]
fn a_naoqi_2_1_peer_refusing_authenticate_is_a_legacy_peer_not_a_failure() {
    // libqi 2.1 (src/messaging/server.cpp): no object for service 0, so the call {0.0.8}
    // gets `can't find service, address: {0.0.8, id:1}`, and the link stays open.
    let url = peer_answering_authenticate_with("can't find service, address: {0.0.8, id:1}");
    let session = Session::connect_with(
        &url,
        SessionOptions {
            user: Some("nao".into()),
            token: Some("nao".into()),
            reconnect: false,
            ..SessionOptions::default()
        },
    )
    .unwrap();
    assert!(session.is_legacy());
    assert!(session.is_connected());
    session.close();
}

#[test]
fn another_error_answering_authenticate_is_still_a_refusal() {
    let url = peer_answering_authenticate_with("Authentication failed: bad user or token");
    match Session::connect(&url) {
        Err(Error::Authentication(why)) => assert!(why.contains("bad user or token"), "{why}"),
        Ok(_) => panic!("connected"),
        Err(other) => panic!("{other}"),
    }
}
