//! The codec: round trips for every signature kind, golden bytes from the hex dumps of
//! qi-protocol.md, and hostile bytes (never a panic, never a huge allocation).

use crate::support;

use choreo_engine::Value;
use choreo_qi::codec::header::{Address, Flags, HEADER_SIZE, Header, MessageType};
use choreo_qi::codec::message::Message;
use choreo_qi::codec::metaobject::ObjectFormat;
use choreo_qi::codec::value::{decode, encode, encode_dynamic, signature_of};
use choreo_qi::transport::capability;
use choreo_qi::{Generation, MetaObject, ObjectRef, Signature};
use proptest::prelude::*;
use support::{hex, str_bytes};

fn s(x: &str) -> Value {
    Value::String(x.to_string())
}

fn round_trip(sig: &str, v: Value) -> Vec<u8> {
    let sig = Signature::parse(sig).unwrap();
    let mut out = Vec::new();
    encode(&v, &sig, &mut out).unwrap();
    let back = decode(&out, &sig, ObjectFormat::default()).unwrap();
    assert_eq!(back.value, v, "{sig}");
    out
}

#[test]
fn every_signature_kind_round_trips() {
    assert_eq!(round_trip("b", Value::Bool(true)), hex("01"));
    round_trip("c", Value::Int(-128));
    round_trip("C", Value::Int(255));
    round_trip("w", Value::Int(-32768));
    round_trip("W", Value::Int(65535));
    assert_eq!(round_trip("i", Value::Int(41)), hex("29 00 00 00"));
    round_trip("I", Value::Int(4_294_967_295));
    round_trip("l", Value::Int(i64::MIN));
    round_trip("L", Value::Int(i64::MAX));
    assert_eq!(round_trip("f", Value::Float(0.75)), hex("00 00 40 3f"));
    assert_eq!(
        round_trip("d", Value::Float(0.25)),
        hex("00 00 00 00 00 00 d0 3f")
    );
    assert_eq!(
        round_trip("s", s("hello")),
        hex("05 00 00 00 68 65 6c 6c 6f")
    );
    assert_eq!(
        round_trip("r", Value::Raw(vec![0, 1, 2, 3, 4])),
        hex("05 00 00 00 00 01 02 03 04")
    );
    assert_eq!(
        round_trip(
            "[i]",
            Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)])
        ),
        hex("03 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00")
    );
    round_trip("#s", Value::List(vec![s("a"), s("b")]));
    round_trip(
        "{si}",
        Value::Map(vec![(s("c"), Value::Int(1)), (s("ab"), Value::Int(2))]),
    );
    assert_eq!(
        round_trip("(is)", Value::Tuple(vec![Value::Int(7), s("seven")])),
        hex("07 00 00 00 05 00 00 00 73 65 76 65 6e")
    );
    round_trip("(is)<Named,n,s>", Value::Tuple(vec![Value::Int(7), s("x")]));
    round_trip("+i", Value::None);
    round_trip("+i", Value::Int(5));
    round_trip("v", Value::None);
    round_trip("_", Value::None);
    round_trip(
        "m",
        Value::Map(vec![(
            s("k"),
            Value::Tuple(vec![Value::Int(1), Value::Float(2.5)]),
        )]),
    );
    round_trip(
        "{s[(im)]}",
        Value::Map(vec![(
            s("k"),
            Value::List(vec![Value::Tuple(vec![Value::Int(1), Value::Raw(vec![9])])]),
        )]),
    );
    round_trip(
        "[[[m]]]",
        Value::List(vec![Value::List(vec![Value::List(vec![Value::None])])]),
    );
}

#[test]
fn a_uint64_above_i64_max_is_held_exactly_and_written_back_as_l() {
    // u64::MAX and 2^63 + 1 as libqi writes an `L`: eight little-endian bytes.
    for (bytes, n) in [
        ("ff ff ff ff ff ff ff ff", u64::MAX),
        ("01 00 00 00 00 00 00 80", (1u64 << 63) + 1),
    ] {
        let d = decode(&hex(bytes), &Signature::UInt64, ObjectFormat::default()).unwrap();
        assert_eq!(d.value, Value::UInt(n));
        assert_eq!(round_trip("L", Value::UInt(n)), hex(bytes));
        // Inside `m` it says it is an `L`.
        let mut out = Vec::new();
        encode_dynamic(&Value::UInt(n), &mut out).unwrap();
        assert_eq!(out[..5], hex("01 00 00 00 4c")[..]);
    }
    // Up to i64::MAX an `L` reads as an Int, as before; an UInt does not fit an `l`.
    let d = decode(
        &hex("07 00 00 00 00 00 00 00"),
        &Signature::UInt64,
        ObjectFormat::default(),
    );
    assert_eq!(d.unwrap().value, Value::Int(7));
    let mut out = Vec::new();
    assert!(encode(&Value::UInt(u64::MAX), &Signature::Int64, &mut out).is_err());
}

#[test]
fn an_empty_dynamic_value_is_none_and_what_follows_it_is_read() {
    // libqi (src/type/binarycodec.cpp, BinaryEncoder::writeValue) writes a dynamic value as
    // its signature then its data; an empty AnyValue has the empty signature and no data.
    // (mi): the empty m, then 7.
    let d = decode(
        &hex("00 00 00 00 07 00 00 00"),
        &Signature::parse("(mi)").unwrap(),
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::Tuple(vec![Value::None, Value::Int(7)]));
    // [m] of two: empty, then m<s>"a".
    let d = decode(
        &hex("02 00 00 00  00 00 00 00  01 00 00 00 73 01 00 00 00 61"),
        &Signature::parse("[m]").unwrap(),
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::List(vec![Value::None, s("a")]));
}

#[test]
fn dynamic_values_carry_their_signature() {
    let mut out = Vec::new();
    encode(&Value::Int(3), &Signature::parse("m").unwrap(), &mut out).unwrap();
    assert_eq!(out, hex("01 00 00 00 6c 03 00 00 00 00 00 00 00"));
    // m<I>3 and m<(i)>(42) as libqi wrote them.
    let d = decode(
        &hex("01 00 00 00 49 03 00 00 00"),
        &Signature::Dynamic,
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::Int(3));
    let d = decode(
        &hex("03 00 00 00 28 69 29 2a 00 00 00"),
        &Signature::Dynamic,
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::Tuple(vec![Value::Int(42)]));
    // The property read of §10.3: m<f>0.75.
    let d = decode(
        &hex("01 00 00 00 66 00 00 40 3f"),
        &Signature::Dynamic,
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::Float(0.75));
    // registerEventWithSignature's event: m<(m)> holding m<s>"done0".
    let mut ev = str_bytes("(m)");
    ev.extend(str_bytes("m"));
    ev.extend(str_bytes("s"));
    ev.extend(str_bytes("done0"));
    assert_eq!(ev.len(), 26);
    let d = decode(&ev, &Signature::Dynamic, ObjectFormat::default()).unwrap();
    assert_eq!(d.value, Value::Tuple(vec![s("done0")]));
    assert_eq!(
        signature_of(&Value::List(vec![Value::Float(1.0)])).to_string(),
        "[d]"
    );
    assert_eq!(
        signature_of(&Value::List(vec![Value::Float(1.0), s("x")])).to_string(),
        "[m]"
    );
}

#[test]
fn optional_golden_bytes() {
    let sig = Signature::parse("([s]+i)").unwrap();
    let mut out = Vec::new();
    encode(
        &Value::Tuple(vec![Value::List(vec![s("ab"), s("c")]), Value::None]),
        &sig,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, hex("02 00 00 00 02 00 00 00 61 62 01 00 00 00 63 00"));
    out.clear();
    encode(
        &Value::Tuple(vec![Value::List(vec![s("x")]), Value::Int(5)]),
        &sig,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, hex("01 00 00 00 01 00 00 00 78 01 05 00 00 00"));
}

fn capability_entries(with_state: bool) -> Vec<u8> {
    let mut p = Vec::new();
    for (k, v) in [
        ("ClientServerSocket", 1),
        ("MessageFlags", 1),
        ("MetaObjectCache", 0),
        ("ObjectPtrUID", 1),
        ("RelativeEndpointURI", 1),
        ("RemoteCancelableCalls", 1),
    ] {
        p.extend(str_bytes(k));
        p.extend(str_bytes("b"));
        p.push(v);
    }
    if with_state {
        p.extend(str_bytes("__qi_auth_state"));
        p.extend(str_bytes("I"));
        p.extend(3u32.to_le_bytes());
    }
    p
}

#[test]
fn authenticate_golden_frames() {
    // Hex dump 1: the official client's authenticate call (161-byte payload).
    let payload = capability::encode(Generation::V2_9, &[]);
    let mut expected = hex("06 00 00 00");
    expected.extend(capability_entries(false));
    assert_eq!(payload, expected);
    assert_eq!(payload.len(), 161);
    let m = Message::new(
        MessageType::Call,
        2,
        Address::new(0, 0, 8),
        Flags::default(),
        payload,
    );
    assert_eq!(
        m.header.encode().to_vec(),
        hex("42 de ad 42 02 00 00 00 a1 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 08 00 00 00")
    );
    // Hex dump 2: the reply (189 bytes) with __qi_auth_state m<I>3.
    let reply = capability::encode_reply(Generation::V2_9, 3);
    let mut expected = hex("07 00 00 00");
    expected.extend(capability_entries(true));
    assert_eq!(reply, expected);
    assert_eq!(reply.len(), 189);
    let map = capability::CapabilityMap::decode(&reply).unwrap();
    assert_eq!(map.get("__qi_auth_state"), Some(&Value::Int(3)));
    let shared = capability::Shared::between(Generation::V2_9, &map);
    assert!(shared.remote_cancel && shared.message_flags && shared.objects.object_ptr_uid);
    assert!(!shared.objects.meta_object_cache);
    // With credentials: 8 entries, 215 bytes.
    let with = capability::encode(
        Generation::V2_9,
        &[("auth_user", s("nao")), ("auth_token", s("secret"))],
    );
    assert_eq!(with.len(), 215);
    assert_eq!(&with[..4], &hex("08 00 00 00")[..]);
}

#[test]
fn service_call_golden_frames() {
    // Hex dump 3: service("ALTextToSpeech") and its 217-byte reply.
    let call = Message::new(
        MessageType::Call,
        7,
        Address::new(1, 1, 100),
        Flags::default(),
        str_bytes("ALTextToSpeech"),
    );
    assert_eq!(
        call.to_bytes()[..HEADER_SIZE].to_vec(),
        hex("42 de ad 42 07 00 00 00 12 00 00 00 00 00 01 00 01 00 00 00 01 00 00 00 64 00 00 00")
    );
    let mut reply = str_bytes("ALTextToSpeech");
    reply.extend(hex("02 00 00 00"));
    reply.extend(str_bytes("c9b263db-b999-4eee-924f-3ac7db3ee140"));
    reply.extend(hex("8b 48 00 00 04 00 00 00"));
    for e in [
        "qi:ServiceDirectory",
        "qi:ALExtra",
        "qi:ALTextToSpeech",
        "tcp://127.0.0.1:19559",
    ] {
        reply.extend(str_bytes(e));
    }
    reply.extend(str_bytes("14158e8f-f9be-43f3-a5e4-2e657719b251"));
    reply.extend(hex(
        "14 00 00 00 0e 51 3f 60 92 a6 97 16 f4 dc 42 52 08 a8 d4 42 87 0a 00 c1",
    ));
    assert_eq!(reply.len(), 217);
    let sig = Signature::parse(choreo_qi::codec::directory::SERVICE_INFO_SIGNATURE).unwrap();
    let d = decode(&reply, &sig, ObjectFormat::default()).unwrap();
    let info = choreo_qi::codec::directory::ServiceInfo::from_value(&d.value).unwrap();
    assert_eq!(info.name, "ALTextToSpeech");
    assert_eq!(info.service_id, 2);
    assert_eq!(info.process_id, 18571);
    assert_eq!(info.endpoints.len(), 4);
    assert_eq!(info.object_uid.len(), 20);
    let mut again = Vec::new();
    encode(&info.to_value(), &sig, &mut again).unwrap();
    assert_eq!(again, reply);
    // The older 6-field form decodes too.
    let old = Signature::parse("(sIsI[s]s)").unwrap();
    let d = decode(&reply[..reply.len() - 24], &old, ObjectFormat::default()).unwrap();
    assert_eq!(
        choreo_qi::codec::directory::ServiceInfo::from_value(&d.value)
            .unwrap()
            .object_uid,
        Vec::<u8>::new()
    );

    // Hex dump 4: say("hello") and its bare void reply.
    let say = Message::new(
        MessageType::Call,
        10,
        Address::new(2, 1, 108),
        Flags::default(),
        str_bytes("hello"),
    );
    let mut expected =
        hex("42 de ad 42 0a 00 00 00 09 00 00 00 00 00 01 00 02 00 00 00 01 00 00 00 6c 00 00 00");
    expected.extend(hex("05 00 00 00 68 65 6c 6c 6f"));
    assert_eq!(say.to_bytes(), expected);
    let reply = Message::new(
        MessageType::Reply,
        10,
        Address::new(2, 1, 108),
        Flags::default(),
        Vec::new(),
    );
    assert_eq!(
        reply.to_bytes(),
        hex("42 de ad 42 0a 00 00 00 00 00 00 00 00 00 02 00 02 00 00 00 01 00 00 00 6c 00 00 00")
    );
}

#[test]
fn signal_and_cancel_golden_frames() {
    // Hex dump 5: registerEvent(2, 111, link) and an Event "done0".
    let sig = Signature::parse("(IIL)").unwrap();
    let mut out = Vec::new();
    let link = (111u64 << 32) | 0x13;
    encode(
        &Value::Tuple(vec![
            Value::Int(2),
            Value::Int(111),
            Value::Int(link as i64),
        ]),
        &sig,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, hex("02 00 00 00 6f 00 00 00 13 00 00 00 6f 00 00 00"));
    let event = hex(
        "42 de ad 42 34 00 00 00 09 00 00 00 00 00 05 00 02 00 00 00 01 00 00 00 6f 00 00 00 05 00 00 00 64 6f 6e 65 30",
    );
    let (m, n) = Message::parse(&event, 1 << 20).unwrap().unwrap();
    assert_eq!(n, event.len());
    assert_eq!(m.header.kind, MessageType::Event);
    assert_eq!(m.header.address, Address::new(2, 1, 111));
    let d = decode(
        &m.payload,
        &Signature::parse("(s)").unwrap(),
        ObjectFormat::default(),
    )
    .unwrap();
    assert_eq!(d.value, Value::Tuple(vec![s("done0")]));
    // Hex dump 6: Cancel of call 17, and the Canceled answer.
    let cancel = Message::new(
        MessageType::Cancel,
        18,
        Address::new(2, 1, 0),
        Flags::default(),
        17u32.to_le_bytes().to_vec(),
    );
    assert_eq!(
        cancel.to_bytes(),
        hex(
            "42 de ad 42 12 00 00 00 04 00 00 00 00 00 07 00 02 00 00 00 01 00 00 00 00 00 00 00 11 00 00 00"
        )
    );
    let canceled =
        hex("42 de ad 42 11 00 00 00 00 00 00 00 00 00 08 00 02 00 00 00 01 00 00 00 6e 00 00 00");
    let h = Header::decode(canceled.first_chunk().unwrap(), 100).unwrap();
    assert_eq!(
        (h.id, h.kind, h.address.action),
        (17, MessageType::Canceled, 110)
    );
    // Errors are m<s>.
    let mut e = Vec::new();
    encode_dynamic(&s("boom"), &mut e).unwrap();
    assert_eq!(e, hex("01 00 00 00 73 04 00 00 00 62 6f 6f 6d"));
}

#[test]
fn directory_meta_object_golden_start() {
    // The SD's metaObject reply begins: 22 methods, key 0, uid 0, "L", "registerEvent", "(IIL)".
    let server = choreo_qi::Server::standalone(choreo_qi::ServerOptions::default()).unwrap();
    let url = server.listen("tcp://127.0.0.1:0").unwrap();
    let session = choreo_qi::Session::connect(&url).unwrap();
    let sd = session.directory().unwrap();
    let mut bytes = Vec::new();
    sd.meta_object().write(&mut bytes);
    let mut expected = hex("16 00 00 00 00 00 00 00 00 00 00 00");
    expected.extend(str_bytes("L"));
    expected.extend(str_bytes("registerEvent"));
    expected.extend(str_bytes("(IIL)"));
    expected.extend(hex("00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00"));
    assert_eq!(&bytes[..expected.len()], &expected[..]);
    assert_eq!(MetaObject::decode(&bytes).unwrap(), *sd.meta_object());
    server.stop();
}

#[test]
fn object_reference_layouts() {
    let mut meta = MetaObject::reserved();
    meta.description = "sub".into();
    let r = ObjectRef {
        meta,
        service: 2,
        object: 3,
        uid: Some([7; 20]),
        ..ObjectRef::default()
    };
    for format in [
        ObjectFormat {
            meta_object_cache: false,
            object_ptr_uid: true,
        },
        ObjectFormat {
            meta_object_cache: true,
            object_ptr_uid: true,
        },
        ObjectFormat {
            meta_object_cache: false,
            object_ptr_uid: false,
        },
    ] {
        let mut out = Vec::new();
        choreo_qi::codec::value::encode_object(&r, format, &mut out);
        let d = decode(&out, &Signature::Object, format).unwrap();
        assert_eq!(d.value, Value::None);
        let back = &d.objects[0];
        assert_eq!((back.service, back.object), (2, 3));
        assert_eq!(back.meta, r.meta);
        assert_eq!(back.uid.is_some(), format.object_ptr_uid);
    }
}

#[test]
fn hostile_bytes_are_errors() {
    let f = ObjectFormat::default();
    // A list claiming 4 G elements, a string claiming 4 GiB: errors, not allocations.
    assert!(decode(&hex("ff ff ff ff"), &Signature::parse("[i]").unwrap(), f).is_err());
    assert!(decode(&hex("ff ff ff ff 00"), &Signature::String, f).is_err());
    assert!(decode(&hex("ff ff ff ff"), &Signature::parse("[()]").unwrap(), f).is_err());
    assert!(decode(&hex("ff ff ff ff"), &Signature::parse("{sm}").unwrap(), f).is_err());
    // Bad signatures inside m, optional flags, leftovers, nesting bombs.
    assert!(
        decode(
            &[&str_bytes("[(")[..], &[0][..]].concat(),
            &Signature::Dynamic,
            f
        )
        .is_err()
    );
    assert!(decode(&hex("02"), &Signature::parse("+i").unwrap(), f).is_err());
    assert!(decode(&hex("01 00 00 00 00"), &Signature::Int32, f).is_err());
    let mut bomb = Vec::new();
    for _ in 0..200 {
        bomb.extend(str_bytes("m"));
    }
    assert!(decode(&bomb, &Signature::Dynamic, f).is_err());
    // Headers: magic, version, type, size limit.
    let good = Header {
        id: 1,
        size: 0,
        kind: MessageType::Call,
        flags: Flags::default(),
        address: Address::default(),
    }
    .encode();
    let mut huge = good;
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Header::decode(&huge, choreo_qi::codec::header::DEFAULT_MAX_PAYLOAD).is_err());
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::None),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<f64>()
            .prop_filter("NaN never equals", |x| !x.is_nan())
            .prop_map(Value::Float),
        ".{0,12}".prop_map(Value::String),
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(Value::Raw),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Tuple),
            proptest::collection::vec((inner.clone(), inner), 0..6).prop_map(Value::Map),
        ]
    })
}

proptest! {
    #[test]
    fn dynamic_round_trip(v in any_value()) {
        let mut out = Vec::new();
        encode_dynamic(&v, &mut out).unwrap();
        let back = decode(&out, &Signature::Dynamic, ObjectFormat::default()).unwrap();
        prop_assert_eq!(back.value, v);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256), sig in prop_oneof![
        Just("m"), Just("[m]"), Just("{sm}"), Just("(sIsI[s]ss)"), Just("o"), Just("+[(im)]"), Just("r")
    ]) {
        let _ = decode(&bytes, &Signature::parse(sig).unwrap(), ObjectFormat { meta_object_cache: true, object_ptr_uid: true });
        let _ = MetaObject::decode(&bytes);
        let _ = Message::parse(&bytes, 1 << 16);
    }
}
