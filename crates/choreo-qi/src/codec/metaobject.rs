//! MetaObjects (qi-protocol.md §6) and object references (§7): what an object offers
//! (methods, signals, properties with their uids and signatures) and how a reference to it
//! travels.

use std::collections::BTreeMap;

use crate::codec::reader::Reader;
use crate::error::Error;

/// The signature of a MetaObject value, as libqi annotates it.
pub const META_OBJECT_SIGNATURE: &str = "({I(Issss[(ss)<MetaMethodParameter,name,description>]s)<MetaMethod,uid,returnSignature,name,parametersSignature,description,parameters,returnDescription>}{I(Iss)<MetaSignal,uid,name,signature>}{I(Iss)<MetaProperty,uid,name,signature>}s)<MetaObject,methods,signals,properties,description>";

/// One method of an object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetaMethod {
    /// Member uid (the action of calls).
    pub uid: u32,
    /// Signature of the returned value.
    pub return_signature: String,
    /// Name (overloads share it).
    pub name: String,
    /// Parameter tuple signature, e.g. `(s)`.
    pub parameters_signature: String,
    /// Free text.
    pub description: String,
    /// Parameter names and descriptions.
    pub parameters: Vec<(String, String)>,
    /// Free text about the return value.
    pub return_description: String,
}

/// One signal of an object (a property also appears as a signal with its uid).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetaSignal {
    /// Member uid (the action of events).
    pub uid: u32,
    /// Name.
    pub name: String,
    /// Parameter tuple signature, e.g. `(s)`.
    pub signature: String,
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetaProperty {
    /// Member uid.
    pub uid: u32,
    /// Name.
    pub name: String,
    /// The value's signature, e.g. `f`.
    pub signature: String,
}

/// What an object offers, keyed by uid.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetaObject {
    /// Methods by uid.
    pub methods: BTreeMap<u32, MetaMethod>,
    /// Signals by uid.
    pub signals: BTreeMap<u32, MetaSignal>,
    /// Properties by uid.
    pub properties: BTreeMap<u32, MetaProperty>,
    /// Free text.
    pub description: String,
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    // Names and signatures are far below 4 GiB; saturate rather than wrap.
    let n = u32::try_from(s.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_u32(n: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_count(n: usize, out: &mut Vec<u8>) {
    put_u32(u32::try_from(n).unwrap_or(u32::MAX), out);
}

impl MetaObject {
    /// The methods named `name` (several when overloaded).
    pub fn methods_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a MetaMethod> {
        self.methods.values().filter(move |m| m.name == name)
    }

    /// The signal named `name`.
    pub fn signal(&self, name: &str) -> Option<&MetaSignal> {
        self.signals.values().find(|s| s.name == name)
    }

    /// The property named `name`.
    pub fn property(&self, name: &str) -> Option<&MetaProperty> {
        self.properties.values().find(|p| p.name == name)
    }

    /// Writes this MetaObject in its binary layout.
    pub fn write(&self, out: &mut Vec<u8>) {
        put_count(self.methods.len(), out);
        for (uid, m) in &self.methods {
            put_u32(*uid, out);
            put_u32(m.uid, out);
            put_str(&m.return_signature, out);
            put_str(&m.name, out);
            put_str(&m.parameters_signature, out);
            put_str(&m.description, out);
            put_count(m.parameters.len(), out);
            for (name, description) in &m.parameters {
                put_str(name, out);
                put_str(description, out);
            }
            put_str(&m.return_description, out);
        }
        put_count(self.signals.len(), out);
        for (uid, s) in &self.signals {
            put_u32(*uid, out);
            put_u32(s.uid, out);
            put_str(&s.name, out);
            put_str(&s.signature, out);
        }
        put_count(self.properties.len(), out);
        for (uid, p) in &self.properties {
            put_u32(*uid, out);
            put_u32(p.uid, out);
            put_str(&p.name, out);
            put_str(&p.signature, out);
        }
        put_str(&self.description, out);
    }

    /// Reads a MetaObject.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<MetaObject, Error> {
        let mut meta = MetaObject::default();
        // key, uid, five strings, a list count: at least 32 bytes per method.
        for _ in 0..r.count(32)? {
            let key = r.u32()?;
            let uid = r.u32()?;
            let return_signature = r.string()?;
            let name = r.string()?;
            let parameters_signature = r.string()?;
            let description = r.string()?;
            let mut parameters = Vec::new();
            for _ in 0..r.count(8)? {
                parameters.push((r.string()?, r.string()?));
            }
            let return_description = r.string()?;
            meta.methods.insert(
                key,
                MetaMethod {
                    uid,
                    return_signature,
                    name,
                    parameters_signature,
                    description,
                    parameters,
                    return_description,
                },
            );
        }
        for _ in 0..r.count(16)? {
            let key = r.u32()?;
            let signal = MetaSignal {
                uid: r.u32()?,
                name: r.string()?,
                signature: r.string()?,
            };
            meta.signals.insert(key, signal);
        }
        for _ in 0..r.count(16)? {
            let key = r.u32()?;
            let property = MetaProperty {
                uid: r.u32()?,
                name: r.string()?,
                signature: r.string()?,
            };
            meta.properties.insert(key, property);
        }
        meta.description = r.string()?;
        Ok(meta)
    }

    /// Decodes all of `bytes` as a MetaObject.
    pub fn decode(bytes: &[u8]) -> Result<MetaObject, Error> {
        let mut r = Reader::new(bytes);
        let meta = MetaObject::read(&mut r)?;
        r.finish()?;
        Ok(meta)
    }
}

/// The `o` layout in effect on one connection, from the capabilities both ends share (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ObjectFormat {
    /// MetaObjectCache: a flag and a cache id come before the ids.
    pub meta_object_cache: bool,
    /// ObjectPtrUID: 20 uid bytes follow the ids.
    pub object_ptr_uid: bool,
}

/// The cache id of a MetaObject sent without caching (`ObjectSerializationInfo::notCached`
/// in libqi's `qi/binarycodec.hpp`).
pub const NOT_CACHED: u32 = u32::MAX;

/// A reference to an object on the peer: its MetaObject and where to send calls.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ObjectRef {
    /// What the object offers.
    pub meta: MetaObject,
    /// Service id to address it with.
    pub service: u32,
    /// Object id to address it with.
    pub object: u32,
    /// Its 20-byte ObjectUid, when ObjectPtrUID is shared.
    pub uid: Option<[u8; 20]>,
    /// MetaObjectCache: the id the sender keeps this MetaObject under on the link (`None`:
    /// not cached).
    pub cache_id: Option<u32>,
    /// MetaObjectCache: the sender left the MetaObject out, as it sent it before under
    /// `cache_id` ([`MetaCache::receive`] puts it back).
    pub meta_cached: bool,
}

impl ObjectRef {
    /// Writes the reference. With MetaObjectCache: the transmitted flag, the MetaObject
    /// unless `meta_cached`, the cache id ([`NOT_CACHED`] when none), then the ids.
    pub fn write(&self, format: ObjectFormat, out: &mut Vec<u8>) {
        if format.meta_object_cache {
            let transmit = !self.meta_cached || self.cache_id.is_none();
            out.push(u8::from(transmit));
            if transmit {
                self.meta.write(out);
            }
            put_u32(self.cache_id.unwrap_or(NOT_CACHED), out);
        } else {
            self.meta.write(out);
        }
        put_u32(self.service, out);
        put_u32(self.object, out);
        if format.object_ptr_uid {
            out.extend_from_slice(&self.uid.unwrap_or_default());
        }
    }

    /// Reads a reference. With MetaObjectCache a reference may leave its MetaObject out
    /// (`meta_cached`); [`MetaCache::receive`] resolves it.
    pub(crate) fn read(r: &mut Reader<'_>, format: ObjectFormat) -> Result<ObjectRef, Error> {
        let (meta, cache_id, meta_cached) = if format.meta_object_cache {
            let transmitted = r.bool()?;
            let meta = if transmitted {
                MetaObject::read(r)?
            } else {
                MetaObject::default()
            };
            let id = r.u32()?;
            let cache_id = (id != NOT_CACHED).then_some(id);
            (meta, cache_id, !transmitted)
        } else {
            (MetaObject::read(r)?, None, false)
        };
        let service = r.u32()?;
        let object = r.u32()?;
        let uid = if format.object_ptr_uid {
            Some(r.array::<20>()?)
        } else {
            None
        };
        Ok(ObjectRef {
            meta,
            service,
            object,
            uid,
            cache_id,
            meta_cached,
        })
    }
}

/// One link's MetaObjectCache (libqi's `StreamContext` send and receive caches): each
/// MetaObject travels once per link and direction, later references name its cache id.
#[derive(Debug, Default)]
pub struct MetaCache {
    sent: Vec<MetaObject>,
    received: std::collections::HashMap<u32, MetaObject>,
}

impl MetaCache {
    /// Prepares `r` for sending: its MetaObject gets a cache id, and is left out when it
    /// was sent before on this link.
    pub fn send(&mut self, r: &mut ObjectRef) {
        match self.sent.iter().position(|m| *m == r.meta) {
            Some(i) => {
                r.cache_id = u32::try_from(i).ok();
                r.meta_cached = r.cache_id.is_some();
            }
            None => {
                r.cache_id = u32::try_from(self.sent.len())
                    .ok()
                    .filter(|id| *id != NOT_CACHED);
                r.meta_cached = false;
                if r.cache_id.is_some() {
                    self.sent.push(r.meta.clone());
                }
            }
        }
    }

    /// Completes a received reference: a MetaObject sent with a cache id is kept under it;
    /// one left out is taken from the cache (an unknown id is a protocol error).
    pub fn receive(&mut self, r: &mut ObjectRef) -> Result<(), Error> {
        match (r.meta_cached, r.cache_id) {
            (true, Some(id)) => {
                r.meta = self.received.get(&id).cloned().ok_or_else(|| {
                    Error::Protocol(format!(
                        "object reference names unknown cached MetaObject {id}"
                    ))
                })?;
            }
            (true, None) => {
                return Err(Error::Protocol(
                    "object reference without its MetaObject nor a cache id".into(),
                ));
            }
            (false, Some(id)) => {
                self.received.insert(id, r.meta.clone());
            }
            (false, None) => {}
        }
        Ok(())
    }
}

/// `registerEvent(IIL)` → `L`.
pub const REGISTER_EVENT: u32 = 0;
/// `unregisterEvent(IIL)`.
pub const UNREGISTER_EVENT: u32 = 1;
/// `metaObject(I)` → MetaObject.
pub const META_OBJECT: u32 = 2;
/// `terminate(I)`.
pub const TERMINATE: u32 = 3;
/// `property(m)` → `m`.
pub const PROPERTY: u32 = 5;
/// `setProperty(mm)`.
pub const SET_PROPERTY: u32 = 6;
/// `properties()` → `[s]`.
pub const PROPERTIES: u32 = 7;
/// `registerEventWithSignature(IILs)` → `L`.
pub const REGISTER_EVENT_WITH_SIGNATURE: u32 = 8;
/// The first uid of an object's own members.
pub const FIRST_MEMBER: u32 = 100;

/// The members every bound object answers (§4), as `(uid, name, parameters, return)`.
pub const RESERVED_METHODS: [(u32, &str, &str, &str); 14] = [
    (REGISTER_EVENT, "registerEvent", "(IIL)", "L"),
    (UNREGISTER_EVENT, "unregisterEvent", "(IIL)", "v"),
    (META_OBJECT, "metaObject", "(I)", META_OBJECT_SIGNATURE),
    (TERMINATE, "terminate", "(I)", "v"),
    (PROPERTY, "property", "(m)", "m"),
    (SET_PROPERTY, "setProperty", "(mm)", "v"),
    (PROPERTIES, "properties", "()", "[s]"),
    (
        REGISTER_EVENT_WITH_SIGNATURE,
        "registerEventWithSignature",
        "(IILs)",
        "L",
    ),
    (80, "isStatsEnabled", "()", "b"),
    (81, "enableStats", "(b)", "v"),
    (
        82,
        "stats",
        "()",
        "{I(I(fff)<MinMaxSum,minValue,maxValue,cumulatedValue>(fff)<MinMaxSum,minValue,maxValue,cumulatedValue>(fff)<MinMaxSum,minValue,maxValue,cumulatedValue>)<MethodStatistics,count,wall,user,system>}",
    ),
    (83, "clearStats", "()", "v"),
    (84, "isTraceEnabled", "()", "b"),
    (85, "enableTrace", "(b)", "v"),
];

/// The signal every bound object has: `traceObject` (uid 86).
pub const TRACE_OBJECT: (u32, &str, &str) = (
    86,
    "traceObject",
    "((IiIm(ll)<timeval,tv_sec,tv_usec>llII)<EventTrace,id,kind,slotId,arguments,timestamp,userUsTime,systemUsTime,callerContext,calleeContext>)",
);

impl MetaObject {
    /// A MetaObject holding only the reserved members of §4.
    pub fn reserved() -> MetaObject {
        let mut meta = MetaObject::default();
        for (uid, name, params, ret) in RESERVED_METHODS {
            meta.methods.insert(
                uid,
                MetaMethod {
                    uid,
                    return_signature: ret.to_string(),
                    name: name.to_string(),
                    parameters_signature: params.to_string(),
                    ..MetaMethod::default()
                },
            );
        }
        let (uid, name, signature) = TRACE_OBJECT;
        meta.signals.insert(
            uid,
            MetaSignal {
                uid,
                name: name.to_string(),
                signature: signature.to_string(),
            },
        );
        meta
    }
}
