//! Fuzzes the qi frame decoder: frames parsed back to back from arbitrary bytes, each
//! payload decoded as the kinds a peer may send (capabilities, MetaObject, `m`, a
//! ServiceInfo, an object reference). Nothing may panic or allocate without bound.
#![no_main]

use choreo_qi::codec::message::Message;
use choreo_qi::codec::metaobject::ObjectFormat;
use choreo_qi::codec::value;
use choreo_qi::transport::capability;
use choreo_qi::{MetaObject, Signature};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let signatures = ["m", "(IIL)", "{sm}", "(sIsI[s]ss)", "[m]", "o", "+[(im)]<T,a>"];
    let mut rest = data;
    while let Ok(Some((message, used))) = Message::parse(rest, 1 << 20) {
        let payload = &message.payload;
        let _ = capability::CapabilityMap::decode(payload);
        let _ = MetaObject::decode(payload);
        for sig in signatures {
            if let Ok(sig) = Signature::parse(sig) {
                let format = ObjectFormat {
                    meta_object_cache: message.header.flags.0 & 1 == 1,
                    object_ptr_uid: true,
                };
                let _ = value::decode(payload, &sig, format);
            }
        }
        if let Ok(text) = std::str::from_utf8(payload) {
            let _ = Signature::parse(text);
        }
        rest = &rest[used..];
    }
});
