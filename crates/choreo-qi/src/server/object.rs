//! Objects served by a [`crate::Server`], or passed by a client [`crate::Session`] as an
//! argument ([`crate::Arg::Object`]): methods implemented in Rust, signals, properties, and
//! the MetaObject that describes them (uids from 100, as libqi numbers them).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use choreo_base::Value;
use choreo_base::lock;

use crate::codec::header::{Address, Flags, MessageType};
use crate::codec::message::{Message, next_id};
use crate::codec::metaobject::{
    FIRST_MEMBER, MetaMethod, MetaObject, MetaProperty, MetaSignal, ObjectRef,
};
use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::Error;
use crate::transport::peer::Peer;

/// What a method returns: a value, or an object passed by reference.
pub enum Out {
    /// A value, written with the method's return signature.
    Value(Value),
    /// An object, bound on the server and sent as an `o`.
    Object(Arc<ServedObject>),
}

impl From<Value> for Out {
    fn from(v: Value) -> Out {
        Out::Value(v)
    }
}

/// Who is calling: the id of the connection the call came on (unique in the process).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    /// The connection's id.
    pub connection: u64,
}

/// A method's implementation: the arguments (already read with its parameter signature)
/// in, a value or an error out.
pub type Handler = Arc<dyn Fn(&Caller, Vec<Value>) -> Result<Out, MethodError> + Send + Sync>;

/// A served method's failure: qi sends the caller an error reply holding this text (libqi's
/// error message is a string; a Python caller gets it as the `RuntimeError`'s text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct MethodError {
    /// What the caller reads.
    pub message: String,
}

impl From<String> for MethodError {
    fn from(message: String) -> MethodError {
        MethodError { message }
    }
}

impl From<&str> for MethodError {
    fn from(message: &str) -> MethodError {
        MethodError {
            message: message.to_string(),
        }
    }
}

pub(crate) struct MethodEntry {
    pub params: Signature,
    pub returns: Signature,
    pub handler: Handler,
    /// Runs on the connection's reader thread (it never blocks) instead of a worker.
    pub inline: bool,
}

pub(crate) struct Subscriber {
    pub connection: Weak<Peer>,
    pub connection_id: u64,
    pub link: u64,
    /// `registerEventWithSignature`: events are sent as one `m` of this signature.
    pub dynamic: Option<Signature>,
}

pub(crate) struct SignalEntry {
    pub signature: Signature,
    pub subscribers: Mutex<Vec<Subscriber>>,
}

pub(crate) struct PropertyEntry {
    pub name: String,
    pub signature: Signature,
    pub value: Mutex<Value>,
}

/// Builds a [`ServedObject`]: members take uids from 100 in the order they are added.
pub struct ObjectBuilder {
    meta: MetaObject,
    methods: Vec<(u32, String, String, String, Handler, bool)>,
    signals: Vec<(u32, String, String)>,
    properties: Vec<(u32, String, String, Value)>,
    next_uid: u32,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
}

impl ObjectBuilder {
    /// An object with the reserved members only.
    pub fn new(description: &str) -> ObjectBuilder {
        let mut meta = MetaObject::reserved();
        meta.description = description.to_string();
        ObjectBuilder {
            meta,
            methods: Vec::new(),
            signals: Vec::new(),
            properties: Vec::new(),
            next_uid: FIRST_MEMBER,
            on_drop: None,
        }
    }

    fn take_uid(&mut self) -> u32 {
        let uid = self.next_uid;
        self.next_uid += 1;
        uid
    }

    /// A method run on a worker thread (it may block: a `say`, a motion).
    pub fn method(
        self,
        name: &str,
        params: &str,
        returns: &str,
        handler: impl Fn(Vec<Value>) -> Result<Out, MethodError> + Send + Sync + 'static,
    ) -> ObjectBuilder {
        self.method_with_caller(name, params, returns, false, move |_, args| handler(args))
    }

    /// A method that never blocks, run on the connection's reader thread (no hand-off).
    pub fn method_inline(
        self,
        name: &str,
        params: &str,
        returns: &str,
        handler: impl Fn(Vec<Value>) -> Result<Out, MethodError> + Send + Sync + 'static,
    ) -> ObjectBuilder {
        self.method_with_caller(name, params, returns, true, move |_, args| handler(args))
    }

    /// A method that also sees its [`Caller`]; `inline` as in
    /// [`ObjectBuilder::method_inline`].
    pub fn method_with_caller(
        mut self,
        name: &str,
        params: &str,
        returns: &str,
        inline: bool,
        handler: impl Fn(&Caller, Vec<Value>) -> Result<Out, MethodError> + Send + Sync + 'static,
    ) -> ObjectBuilder {
        let uid = self.take_uid();
        self.methods.push((
            uid,
            name.to_string(),
            params.to_string(),
            returns.to_string(),
            Arc::new(handler),
            inline,
        ));
        self
    }

    /// A signal with parameter signature `signature`, e.g. `(s)`.
    pub fn signal(mut self, name: &str, signature: &str) -> ObjectBuilder {
        let uid = self.take_uid();
        self.signals
            .push((uid, name.to_string(), signature.to_string()));
        self
    }

    /// A property of type `signature` (e.g. `f`) with its first value.
    pub fn property(mut self, name: &str, signature: &str, initial: Value) -> ObjectBuilder {
        let uid = self.take_uid();
        self.properties
            .push((uid, name.to_string(), signature.to_string(), initial));
        self
    }

    /// Makes the next member take uid `uid` (to follow a known MetaObject's numbering).
    pub fn next_uid(mut self, uid: u32) -> ObjectBuilder {
        self.next_uid = uid.max(FIRST_MEMBER);
        self
    }

    /// Runs `f` when the object is dropped (the server dropped it and no handle is left):
    /// to release what it holds, such as a robot subscription.
    pub fn on_drop(mut self, f: impl FnOnce() + Send + 'static) -> ObjectBuilder {
        self.on_drop = Some(Box::new(f));
        self
    }

    /// The object; fails on an invalid signature or a uid used twice.
    pub fn build(self) -> Result<Arc<ServedObject>, Error> {
        let mut meta = self.meta;
        let mut methods = HashMap::new();
        let mut signals = HashMap::new();
        let mut properties = HashMap::new();
        let taken = |meta: &MetaObject, uid: u32| {
            if meta.methods.contains_key(&uid) || meta.signals.contains_key(&uid) {
                Err(Error::Type(format!("member uid {uid} used twice")))
            } else {
                Ok(())
            }
        };
        for (uid, name, params, returns, handler, inline) in self.methods {
            taken(&meta, uid)?;
            let entry = MethodEntry {
                params: Signature::parse(&params)?,
                returns: Signature::parse(&returns)?,
                handler,
                inline,
            };
            if entry.params.fields().is_none() {
                return Err(Error::Type(format!(
                    "{name}: parameters {params} are not a tuple"
                )));
            }
            methods.insert(uid, entry);
            meta.methods.insert(
                uid,
                MetaMethod {
                    uid,
                    return_signature: returns,
                    name,
                    parameters_signature: params,
                    ..MetaMethod::default()
                },
            );
        }
        for (uid, name, signature) in self.signals {
            taken(&meta, uid)?;
            signals.insert(
                uid,
                SignalEntry {
                    signature: Signature::parse(&signature)?,
                    subscribers: Mutex::new(Vec::new()),
                },
            );
            meta.signals.insert(
                uid,
                MetaSignal {
                    uid,
                    name,
                    signature,
                },
            );
        }
        for (uid, name, signature, initial) in self.properties {
            taken(&meta, uid)?;
            add_property(
                &mut meta,
                &mut signals,
                &mut properties,
                (uid, name, signature, initial),
            )?;
        }
        let mut meta_bytes = Vec::new();
        meta.write(&mut meta_bytes);
        Ok(Arc::new(ServedObject {
            meta,
            meta_bytes,
            methods,
            signals,
            properties,
            address: Mutex::new(None),
            uid: object_uid(),
            on_drop: Mutex::new(self.on_drop),
        }))
    }
}

/// Property `uid` added: served as a signal of its value (a tuple of one) and as a
/// property, in the MetaObject and in the object's tables.
fn add_property(
    meta: &mut MetaObject,
    signals: &mut HashMap<u32, SignalEntry>,
    properties: &mut HashMap<u32, PropertyEntry>,
    (uid, name, signature, initial): (u32, String, String, Value),
) -> Result<(), Error> {
    let sig = Signature::parse(&signature)?;
    signals.insert(
        uid,
        SignalEntry {
            signature: Signature::tuple(vec![sig.clone()]),
            subscribers: Mutex::new(Vec::new()),
        },
    );
    meta.signals.insert(
        uid,
        MetaSignal {
            uid,
            name: name.clone(),
            signature: format!("({signature})"),
        },
    );
    meta.properties.insert(
        uid,
        MetaProperty {
            uid,
            name: name.clone(),
            signature,
        },
    );
    properties.insert(
        uid,
        PropertyEntry {
            name,
            signature: sig,
            value: Mutex::new(initial),
        },
    );
    Ok(())
}

/// A fresh 20-byte ObjectUid (unique within the process; libqi uses a SHA-1 of a pointer
/// and process data, which peers treat as opaque).
fn object_uid() -> [u8; 20] {
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let pid = u64::from(std::process::id());
    let mut uid = [0u8; 20];
    uid[0..8].copy_from_slice(&n.to_le_bytes());
    uid[8..16].copy_from_slice(&pid.to_le_bytes());
    uid[16..20].copy_from_slice(b"chqi");
    uid
}

/// An object hosted by a server: a service's main object or one returned by reference.
pub struct ServedObject {
    meta: MetaObject,
    meta_bytes: Vec<u8>,
    pub(crate) methods: HashMap<u32, MethodEntry>,
    pub(crate) signals: HashMap<u32, SignalEntry>,
    pub(crate) properties: HashMap<u32, PropertyEntry>,
    address: Mutex<Option<(u32, u32)>>,
    pub(crate) uid: [u8; 20],
    on_drop: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Drop for ServedObject {
    fn drop(&mut self) {
        if let Some(f) = lock(&self.on_drop).take() {
            f();
        }
    }
}

impl ServedObject {
    /// A reference to this object, bound at `at`, as `peer` reads it: its MetaObject
    /// without the members the peer's generation cannot parse, named by cache id when
    /// the MetaObject was sent before on this socket.
    pub(crate) fn reference_for(&self, peer: &Peer, at: (u32, u32)) -> ObjectRef {
        let mut reference = ObjectRef {
            meta: peer
                .generation()
                .adapt_meta_object(self.meta_object())
                .unwrap_or_else(|| self.meta_object().clone()),
            service: at.0,
            object: at.1,
            uid: Some(self.uid),
            ..ObjectRef::default()
        };
        if peer.format().meta_object_cache {
            lock(&peer.cache).send(&mut reference);
        }
        reference
    }

    /// What the object offers.
    pub fn meta_object(&self) -> &MetaObject {
        &self.meta
    }

    /// The MetaObject's bytes (the reply to `metaObject`).
    pub(crate) fn meta_bytes(&self) -> &[u8] {
        &self.meta_bytes
    }

    /// Where the object is bound (service, object), once a server bound it.
    pub fn address(&self) -> Option<(u32, u32)> {
        *lock(&self.address)
    }

    /// Binds the object at `address` unless it is bound already; returns where it is.
    pub(crate) fn bind(&self, address: (u32, u32)) -> (u32, u32) {
        *lock(&self.address).get_or_insert(address)
    }

    fn signal_uid(&self, name: &str) -> Option<u32> {
        self.meta.signal(name).map(|s| s.uid)
    }

    /// How many subscriptions signal (or property) `name` has.
    pub fn subscriber_count(&self, name: &str) -> usize {
        self.signal_uid(name)
            .and_then(|uid| self.signals.get(&uid))
            .map_or(0, |s| lock(&s.subscribers).len())
    }

    /// Emits signal `name` with `args` to every subscriber. An unbound object has none.
    pub fn emit(&self, name: &str, args: Vec<Value>) -> Result<(), Error> {
        let uid = self
            .signal_uid(name)
            .ok_or_else(|| Error::NotFound(format!("no signal {name}")))?;
        self.emit_uid(uid, &Value::Tuple(args))
    }

    /// Emits the signal with uid `uid` (a property's uid for its change events).
    pub(crate) fn emit_uid(&self, uid: u32, args: &Value) -> Result<(), Error> {
        let Some(signal) = self.signals.get(&uid) else {
            return Err(Error::NotFound(format!("no signal with uid {uid}")));
        };
        let Some((service, object)) = self.address() else {
            return Ok(());
        };
        let address = Address::new(service, object, uid);
        let mut subscribers = lock(&signal.subscribers);
        if subscribers.is_empty() {
            return Ok(());
        }
        let mut plain = None;
        subscribers.retain(|s| {
            let Some(conn) = s.connection.upgrade() else {
                return false;
            };
            let (flags, payload) = match &s.dynamic {
                None => {
                    let payload = plain.get_or_insert_with(|| {
                        let mut out = Vec::new();
                        value::encode(args, &signal.signature, &mut out).map(|()| out)
                    });
                    match payload {
                        Ok(p) => (Flags::default(), p.clone()),
                        Err(_) => return true,
                    }
                }
                Some(sig) => {
                    let mut out = Vec::new();
                    if value::encode_dynamic_as(args, sig, &mut out).is_err() {
                        return true;
                    }
                    (Flags::DYNAMIC_PAYLOAD, out)
                }
            };
            let event = Message::new(MessageType::Event, next_id(), address, flags, payload);
            conn.send(&event).is_ok()
        });
        drop(subscribers);
        match plain {
            Some(Err(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// The value of property `name`.
    pub fn property(&self, name: &str) -> Option<Value> {
        self.properties
            .values()
            .find(|p| p.name == name)
            .map(|p| lock(&p.value).clone())
    }

    /// The uid of property `name` (or of uid given as a number).
    pub(crate) fn property_uid(&self, key: &Value) -> Option<u32> {
        match key {
            Value::String(name) => self
                .properties
                .iter()
                .find(|(_, p)| p.name == *name)
                .map(|(uid, _)| *uid),
            Value::Int(i) => u32::try_from(*i)
                .ok()
                .filter(|uid| self.properties.contains_key(uid)),
            _ => None,
        }
    }

    /// Sets property `name` (converted to its type) and emits the change.
    pub fn set_property(&self, name: &str, value: Value) -> Result<(), Error> {
        let uid = self
            .property_uid(&Value::String(name.to_string()))
            .ok_or_else(|| Error::NotFound(format!("no property {name}")))?;
        self.set_property_uid(uid, value)
    }

    pub(crate) fn set_property_uid(&self, uid: u32, value: Value) -> Result<(), Error> {
        let p = self
            .properties
            .get(&uid)
            .ok_or_else(|| Error::NotFound(format!("no property with uid {uid}")))?;
        // Convert as the wire would (a double for an `f`, an int for a double...).
        let mut bytes = Vec::new();
        value::encode(&value, &p.signature, &mut bytes)?;
        let converted = value::decode(
            &bytes,
            &p.signature,
            crate::codec::metaobject::ObjectFormat::default(),
        )?
        .value;
        *lock(&p.value) = converted.clone();
        self.emit_uid(uid, &Value::Tuple(vec![converted]))
    }

    /// Removes every subscription of connection `id`.
    pub(crate) fn drop_connection(&self, id: u64) {
        for s in self.signals.values() {
            lock(&s.subscribers).retain(|x| x.connection_id != id);
        }
    }
}
