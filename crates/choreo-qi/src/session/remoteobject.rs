//! Objects on the peer (libqi's `RemoteObject`): a service's main object or one returned by
//! reference, called by name with overload resolution, posted to, its signals connected
//! and its properties read and set.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use choreo_base::Value;

use super::call::PendingCall;
use super::link::{EventHandler, Link};
use crate::codec::header::{Address, Flags, MessageType};
use crate::codec::message::{Message, error_text};
use crate::codec::metaobject::{self, MetaObject, ObjectRef};
use crate::codec::signature::Signature;
use crate::codec::value::{self, Decoded};
use crate::error::{Error, Result};
use crate::session::arg::{self, Arg, ArgRef};

/// A method's uid and parsed signatures.
#[derive(Debug, Clone)]
struct MethodSig {
    uid: u32,
    params: Signature,
    returns: Signature,
}

/// Identifies one signal subscription, for [`RemoteObject::disconnect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignalLink {
    /// The signal's uid.
    pub uid: u32,
    /// The link id sent in `registerEvent` (`(uid << 32) | counter`).
    pub link: u64,
}

static LINK_COUNTER: AtomicU32 = AtomicU32::new(1);

/// An object on the peer: a service's main object, or one returned by reference.
#[derive(Clone)]
pub struct RemoteObject {
    pub(super) inner: Arc<ObjectInner>,
}

pub(super) struct ObjectInner {
    pub(super) link: Arc<Link>,
    name: String,
    service: u32,
    object: u32,
    pub(super) meta: MetaObject,
    methods: HashMap<String, Vec<MethodSig>>,
    timeout: Option<Duration>,
    /// Returned by reference: terminated when the last handle is dropped.
    owned: bool,
}

impl Drop for ObjectInner {
    fn drop(&mut self) {
        if self.owned {
            let mut payload = Vec::new();
            payload.extend_from_slice(&self.object.to_le_bytes());
            let _ = self.link.post(
                Address::new(self.service, self.object, metaobject::TERMINATE),
                payload,
            );
        }
    }
}

impl RemoteObject {
    pub(super) fn new(
        link: Arc<Link>,
        name: String,
        service: u32,
        object: u32,
        meta: MetaObject,
        timeout: Option<Duration>,
        owned: bool,
    ) -> RemoteObject {
        let mut methods: HashMap<String, Vec<MethodSig>> = HashMap::new();
        for m in meta.methods.values() {
            let (Ok(params), Ok(returns)) = (
                Signature::parse(&m.parameters_signature),
                Signature::parse(&m.return_signature),
            ) else {
                continue;
            };
            methods.entry(m.name.clone()).or_default().push(MethodSig {
                uid: m.uid,
                params,
                returns,
            });
        }
        RemoteObject {
            inner: Arc::new(ObjectInner {
                link,
                name,
                service,
                object,
                meta,
                methods,
                timeout,
                owned,
            }),
        }
    }

    /// Fetches the MetaObject of `(service, object)` and builds the handle.
    pub(super) fn fetch(
        link: &Arc<Link>,
        name: &str,
        service: u32,
        object: u32,
        timeout: Option<Duration>,
    ) -> Result<RemoteObject> {
        let (id, rx) = link.call(
            Address::new(service, object, metaobject::META_OBJECT),
            &0u32.to_le_bytes(),
            Flags::default(),
        )?;
        let pending = PendingCall {
            id,
            address: Address::new(service, object, metaobject::META_OBJECT),
            rx,
            link: Arc::clone(link),
            returns: Signature::Void,
            timeout,
        };
        let answer = pending.answer(timeout)?;
        let meta = match answer.header.kind {
            MessageType::Reply => MetaObject::decode(&answer.payload)?,
            MessageType::Error => return Err(Error::Remote(error_text(&answer.payload))),
            _ => return Err(Error::Canceled),
        };
        Ok(RemoteObject::new(
            Arc::clone(link),
            name.to_string(),
            service,
            object,
            meta,
            timeout,
            false,
        ))
    }

    /// A handle on an object received by reference (on this object's socket). The object
    /// is terminated on the peer when the last handle is dropped.
    pub fn object(&self, reference: ObjectRef) -> RemoteObject {
        RemoteObject::new(
            Arc::clone(&self.inner.link),
            format!("{}/object {}", self.inner.name, reference.object),
            reference.service,
            reference.object,
            reference.meta,
            self.inner.timeout,
            reference.object > 1,
        )
    }

    /// The object's MetaObject.
    pub fn meta_object(&self) -> &MetaObject {
        &self.inner.meta
    }

    /// Service id and object id.
    pub fn address(&self) -> (u32, u32) {
        (self.inner.service, self.inner.object)
    }

    /// Whether the socket under this handle still works.
    pub fn is_connected(&self) -> bool {
        self.inner.link.check_alive().is_ok()
    }

    /// Picks the overload of `method` that fits `args` best and encodes them (objects
    /// among them are bound on this object's socket).
    fn resolve(&self, method: &str, args: &[ArgRef<'_>]) -> Result<(&MethodSig, Vec<u8>)> {
        let candidates =
            self.inner.methods.get(method).ok_or_else(|| {
                Error::NotFound(format!("{}: no method {method}", self.inner.name))
            })?;
        let best = candidates
            .iter()
            .filter_map(|m| arg::fit(args, &m.params).map(|c| (c, m)))
            .min_by_key(|(c, m)| (*c, m.uid))
            .map(|(_, m)| m)
            .ok_or_else(|| {
                let sigs: Vec<String> = candidates.iter().map(|m| m.params.to_string()).collect();
                Error::Type(format!(
                    "{}.{method}: no overload takes {} (candidates: {})",
                    self.inner.name,
                    arg::signature(args),
                    sigs.join(", ")
                ))
            })?;
        let mut payload = Vec::new();
        let link = &self.inner.link;
        arg::encode(
            args,
            &best.params,
            self.inner.service,
            &link.served,
            &link.peer,
            &mut payload,
        )?;
        Ok((best, payload))
    }

    /// Sends the call of overload `m` with `payload`.
    fn send_call(&self, m: &MethodSig, payload: &[u8]) -> Result<PendingCall> {
        let address = Address::new(self.inner.service, self.inner.object, m.uid);
        let (id, rx) = self.inner.link.call(address, payload, Flags::default())?;
        Ok(PendingCall {
            id,
            address,
            rx,
            link: Arc::clone(&self.inner.link),
            returns: m.returns.clone(),
            timeout: self.inner.timeout,
        })
    }

    /// Starts `method(args)`, choosing the overload by the arguments' types.
    pub fn call_async(&self, method: &str, args: &[Value]) -> Result<PendingCall> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::Value).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.send_call(m, &payload)
    }

    /// Starts `method(args)` where arguments may be objects this client serves
    /// ([`Arg::Object`]): each is bound on this object's socket, and the peer may call it
    /// back until it terminates it or the link closes. Overloads are chosen as by
    /// [`RemoteObject::call_async`]; an object fits an `o` parameter (or an `m`).
    pub fn call_args_async(&self, method: &str, args: &[Arg]) -> Result<PendingCall> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::from).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.send_call(m, &payload)
    }

    /// Calls `method(args)` with objects among the arguments (see
    /// [`RemoteObject::call_args_async`]) and waits for its value and the objects it
    /// returned.
    pub fn call_args(&self, method: &str, args: &[Arg]) -> Result<Decoded> {
        self.call_args_async(method, args)?.wait()
    }

    /// Calls `method(args)` and waits for its value and the objects it returned.
    pub fn call_decoded(&self, method: &str, args: &[Value]) -> Result<Decoded> {
        self.call_async(method, args)?.wait()
    }

    /// Calls `method(args)` and waits for its value.
    pub fn call(&self, method: &str, args: &[Value]) -> Result<Value> {
        Ok(self.call_decoded(method, args)?.value)
    }

    /// Calls a method returning an object (`o`) and gives a handle on it.
    pub fn call_object(&self, method: &str, args: &[Value]) -> Result<RemoteObject> {
        let decoded = self.call_decoded(method, args)?;
        let reference = decoded.objects.into_iter().next().ok_or_else(|| {
            Error::Type(format!(
                "{}.{method} returned {} and no object",
                self.inner.name, decoded.value
            ))
        })?;
        Ok(self.object(reference))
    }

    /// Posts `method(args)`: it runs on the peer and nothing comes back.
    pub fn post(&self, method: &str, args: &[Value]) -> Result<()> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::Value).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.inner.link.post(
            Address::new(self.inner.service, self.inner.object, m.uid),
            payload,
        )
    }

    /// Emits signal `name` on the peer's object (libqi posts to the signal uid).
    pub fn emit(&self, name: &str, args: &[Value]) -> Result<()> {
        let (uid, sig) = self.signal(name)?;
        let mut payload = Vec::new();
        value::encode(&Value::Tuple(args.to_vec()), &sig, &mut payload)?;
        self.inner.link.post(
            Address::new(self.inner.service, self.inner.object, uid),
            payload,
        )
    }

    fn signal(&self, name: &str) -> Result<(u32, Signature)> {
        let meta = &self.inner.meta;
        let (uid, text) = if let Some(s) = meta.signal(name) {
            (s.uid, s.signature.clone())
        } else if let Some(p) = meta.property(name) {
            (p.uid, format!("({})", p.signature))
        } else {
            return Err(Error::NotFound(format!(
                "{}: no signal {name}",
                self.inner.name
            )));
        };
        Ok((uid, Signature::parse(&text)?))
    }

    /// Subscribes to signal (or property) `name`: `handler` gets each event's arguments, on
    /// the socket's reader thread (keep it short). Events are routed from the moment the
    /// subscription is sent, as the peer may emit before its reply.
    pub fn connect(
        &self,
        name: &str,
        handler: impl Fn(Vec<Value>) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        let (uid, sig) = self.signal(name)?;
        let link_id =
            (u64::from(uid) << 32) | u64::from(LINK_COUNTER.fetch_add(1, Ordering::Relaxed));
        let address = Address::new(self.inner.service, self.inner.object, uid);
        let handler: EventHandler = Arc::new(move |m: &Message, link: &Link| {
            let sig = if m.header.flags.contains(Flags::DYNAMIC_PAYLOAD) {
                &Signature::Dynamic
            } else {
                &sig
            };
            if let Ok(d) = link.decode(&m.payload, sig) {
                handler(match d.value {
                    Value::Tuple(v) => v,
                    other => vec![other],
                });
            }
        });
        self.inner.link.add_handler(address, link_id, handler);
        let args = [
            Value::Int(i64::from(self.inner.service)),
            Value::Int(i64::from(uid)),
            Value::Int(link_id as i64),
        ];
        if let Err(e) = self.reserved(metaobject::REGISTER_EVENT, "(IIL)", &args, "L") {
            self.inner.link.remove_handler(address, link_id);
            return Err(e);
        }
        Ok(SignalLink { uid, link: link_id })
    }

    /// Ends a subscription made with [`RemoteObject::connect`].
    pub fn disconnect(&self, link: SignalLink) -> Result<()> {
        let address = Address::new(self.inner.service, self.inner.object, link.uid);
        self.inner.link.remove_handler(address, link.link);
        let args = [
            Value::Int(i64::from(self.inner.service)),
            Value::Int(i64::from(link.uid)),
            Value::Int(link.link as i64),
        ];
        self.reserved(metaobject::UNREGISTER_EVENT, "(IIL)", &args, "v")
            .map(|_| ())
    }

    /// Reads property `name`.
    pub fn property(&self, name: &str) -> Result<Value> {
        self.reserved(
            metaobject::PROPERTY,
            "(m)",
            &[Value::String(name.to_string())],
            "m",
        )
    }

    /// Sets property `name`; subscribers get a change event.
    pub fn set_property(&self, name: &str, value: Value) -> Result<()> {
        self.reserved(
            metaobject::SET_PROPERTY,
            "(mm)",
            &[Value::String(name.to_string()), value],
            "v",
        )
        .map(|_| ())
    }

    /// The names of the object's properties.
    pub fn properties(&self) -> Result<Vec<String>> {
        match self.reserved(metaobject::PROPERTIES, "()", &[], "[s]")? {
            Value::List(v) => Ok(v
                .into_iter()
                .filter_map(|x| match x {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect()),
            other => Err(Error::Protocol(format!("properties() returned {other}"))),
        }
    }

    /// Calls a reserved member (§4) with a known signature.
    fn reserved(&self, action: u32, params: &str, args: &[Value], returns: &str) -> Result<Value> {
        let params = Signature::parse(params)?;
        let returns = Signature::parse(returns)?;
        let mut payload = Vec::new();
        value::encode(&Value::Tuple(args.to_vec()), &params, &mut payload)?;
        let address = Address::new(self.inner.service, self.inner.object, action);
        let (id, rx) = self.inner.link.call(address, &payload, Flags::default())?;
        let pending = PendingCall {
            id,
            address,
            rx,
            link: Arc::clone(&self.inner.link),
            returns,
            timeout: self.inner.timeout,
        };
        Ok(pending.wait()?.value)
    }
}
