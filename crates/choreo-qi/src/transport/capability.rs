//! Capabilities and authentication (qi-protocol.md §8): the `{sm}` map both ends exchange
//! in the authenticate call (service 0, object 0, action 8) and what they then share.

use choreo_base::Value;

use crate::codec::metaobject::ObjectFormat;
use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::Error;
use crate::transport::generation::Generation;

/// The action of `authenticate` on the Server pseudo-service (0, 0).
pub const AUTHENTICATE: u32 = 8;

/// The key of the authentication state in the server's answer.
pub const AUTH_STATE: &str = "__qi_auth_state";

/// `__qi_auth_state`: refused.
pub const AUTH_ERROR: i64 = 1;
/// `__qi_auth_state`: send more credentials.
pub const AUTH_CONTINUE: i64 = 2;
/// `__qi_auth_state`: done, the link is ready.
pub const AUTH_DONE: i64 = 3;

pub use crate::transport::generation::LOCAL;

/// The `{sm}` signature of capability maps.
pub fn map_signature() -> Signature {
    Signature::Map(Box::new(Signature::String), Box::new(Signature::Dynamic))
}

/// The capabilities of `generation` plus `extra` entries (credentials, the auth state) as
/// a `{sm}` payload.
pub fn encode(generation: Generation, extra: &[(&str, Value)]) -> Vec<u8> {
    let mut entries: Vec<(Value, Value)> = generation
        .capabilities()
        .iter()
        .map(|(k, v)| (Value::from(*k), Value::Bool(*v)))
        .collect();
    entries.extend(extra.iter().map(|(k, v)| (Value::from(*k), v.clone())));
    let mut out = Vec::new();
    // Strings and dynamic values always fit `{sm}`.
    let _ = value::encode(&Value::Map(entries), &map_signature(), &mut out);
    out
}

/// The server's answer to authenticate: the capabilities of `generation` plus
/// `__qi_auth_state` as an `m<I>` holding `state`, as libqi writes it.
pub fn encode_reply(generation: Generation, state: u32) -> Vec<u8> {
    let mut out = encode(generation, &[]);
    let count = u32::try_from(generation.capabilities().len() + 1).unwrap_or(u32::MAX);
    out[0..4].copy_from_slice(&count.to_le_bytes());
    let mut put = |b: &[u8]| {
        out.extend_from_slice(&u32::try_from(b.len()).unwrap_or(0).to_le_bytes());
        out.extend_from_slice(b);
    };
    put(AUTH_STATE.as_bytes());
    put(b"I");
    out.extend_from_slice(&state.to_le_bytes());
    out
}

/// A decoded `{sm}` map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CapabilityMap(pub Vec<(String, Value)>);

impl CapabilityMap {
    /// Decodes a `{sm}` payload.
    pub fn decode(payload: &[u8]) -> Result<CapabilityMap, Error> {
        let decoded = value::decode(payload, &map_signature(), ObjectFormat::default())?;
        let Value::Map(entries) = decoded.value else {
            return Err(Error::Protocol("capabilities are not a map".into()));
        };
        Ok(CapabilityMap(
            entries
                .into_iter()
                .filter_map(|(k, v)| match k {
                    Value::String(k) => Some((k, v)),
                    _ => None,
                })
                .collect(),
        ))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A capability's value: true only when present and true (a missing key is false).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Value::Bool(true)))
    }

    /// A string entry (credentials).
    pub fn string(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        }
    }
}

impl Generation {
    /// The generation a peer speaks, from what it advertised: `legacy` when it had no
    /// authentication step.
    pub fn of_peer(remote: &CapabilityMap, legacy: bool) -> Generation {
        if legacy {
            Generation::V2_1
        } else if remote.flag("RelativeEndpointURI") {
            Generation::V2_9
        } else if remote.flag("ObjectPtrUID") {
            Generation::V2_8
        } else {
            Generation::V2_5
        }
    }
}

/// What both ends of one link share: `min(local, remote)` for each capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shared {
    /// The `o` layout.
    pub objects: ObjectFormat,
    /// The flags byte is understood.
    pub message_flags: bool,
    /// Cancel/Canceled are used.
    pub remote_cancel: bool,
}

impl Shared {
    /// The capabilities an end speaking `local` shares with a peer that advertised `remote`.
    pub fn between(local: Generation, remote: &CapabilityMap) -> Shared {
        let local = |key: &str| local.capabilities().iter().any(|(k, v)| *k == key && *v);
        let both = |key: &str| local(key) && remote.flag(key);
        Shared {
            objects: ObjectFormat {
                meta_object_cache: both("MetaObjectCache"),
                object_ptr_uid: both("ObjectPtrUID"),
            },
            message_flags: both("MessageFlags"),
            remote_cancel: both("RemoteCancelableCalls"),
        }
    }
}
