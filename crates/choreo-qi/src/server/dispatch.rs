//! One dispatcher for the Calls, Posts and Cancels a peer sends to the objects this end
//! serves, whichever end that is: a [`crate::Server`]'s connections, and a client
//! [`crate::Session`]'s links (objects a client passes as `o` arguments, which the peer
//! calls back over the same socket, as libqi's `BoundObject` answers them on either side).
//!
//! What differs between the two ends is behind [`Host`]: where objects are found, how a
//! terminated object is let go, how an object a method returns is bound, and the workers
//! that run methods that may block. Everything a peer sees (the reserved members, errors,
//! the results) is the same code.

use std::borrow::Cow;
use std::io::Write as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use choreo_base::Value;
use choreo_base::lock;
use choreo_base::pool::{Job, Pool, PoolOptions, Started};

use crate::codec::header::{Flags, MessageType};
use crate::codec::message::Message;
use crate::codec::metaobject::{self, ObjectFormat};
use crate::codec::reader::Reader;
use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::Error;
use crate::server::object::{Caller, Handler, MethodError, Out, ServedObject, Subscriber};
use crate::transport::peer::Peer;

/// Where the objects served to a peer live, and how they are run.
pub(crate) trait Host: Send + Sync + 'static {
    /// Names the host in messages on stderr (`qi server`, `qi client`).
    fn label(&self) -> &'static str;

    /// The object the peer addresses at `(service, object)`.
    fn object(&self, service: u32, object: u32) -> Option<Arc<ServedObject>>;

    /// The beginning of the answer to a call on an object that does not exist (the address
    /// and message id follow).
    fn no_such_object(&self) -> &'static str {
        "No such object"
    }

    /// The peer let the object at `(service, object)` go (`terminate`).
    fn terminate(&self, service: u32, object: u32);

    /// Binds `object`, returned by a method of service `service`, for `peer`; returns its
    /// address (where it is bound already, if it is).
    fn bind_returned(&self, service: u32, object: &Arc<ServedObject>, peer: &Peer) -> (u32, u32);

    /// The workers that run methods that may block.
    fn workers(&self) -> &Pool;
}

/// How long a worker waits for another call before it retires.
const WORKER_IDLE: Duration = Duration::from_secs(30);

/// Workers for methods that may block: grows when all are busy (up to 256 threads, then
/// calls wait for one to free), shrinks after [`WORKER_IDLE`].
pub(crate) fn workers(name: &str) -> Pool {
    Pool::new(
        name,
        PoolOptions {
            idle_timeout: WORKER_IDLE,
            ..PoolOptions::default()
        },
    )
}

/// Runs a method call on a worker. If no worker can run it (no thread could start), it runs
/// here, on the socket's reader thread: late, but the call is answered.
fn run_on_worker(label: &str, workers: &Pool, job: Job) {
    match workers.run(job) {
        Ok(Started::Now) => {}
        Ok(Started::Queued) => {
            let _ = writeln!(
                std::io::stderr(),
                "{label}: every worker is busy; a call waits for one ({} waiting)",
                workers.queued()
            );
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "{label}: no worker for a call ({e}); running it on the reader thread"
            );
            (e.into_job())();
        }
    }
}

/// Answers a Cancel: a call still running on a worker is answered Canceled (its result,
/// when it comes, is dropped).
pub(crate) fn cancel(peer: &Peer, m: &Message) -> Result<(), Error> {
    let target = Reader::new(&m.payload).u32()?;
    if let Some(address) = lock(&peer.in_flight).remove(&target) {
        let _ = peer.send(&Message::new(
            MessageType::Canceled,
            target,
            address,
            Flags::default(),
            Vec::new(),
        ));
    }
    Ok(())
}

/// Handles a Call or Post from `peer` on an object of `host`. An error means the message
/// broke the protocol (its arguments cannot be read): the caller closes the socket.
pub(crate) fn call<H: Host>(host: &Arc<H>, peer: &Arc<Peer>, m: Message) -> Result<(), Error> {
    let a = m.header.address;
    let Some(object) = host.object(a.service, a.object) else {
        peer.error(
            &m,
            &format!(
                "{} {{{}.{}.{}, id:{}}}",
                host.no_such_object(),
                a.service,
                a.object,
                a.action,
                m.header.id
            ),
        );
        return Ok(());
    };
    match a.action {
        metaobject::REGISTER_EVENT | metaobject::REGISTER_EVENT_WITH_SIGNATURE => {
            register_event(peer, &object, &m)
        }
        metaobject::UNREGISTER_EVENT => unregister_event(peer, &object, &m),
        metaobject::META_OBJECT
        | metaobject::TERMINATE
        | metaobject::PROPERTY
        | metaobject::SET_PROPERTY
        | metaobject::PROPERTIES
        | 80..=85 => reserved(host.as_ref(), peer, &object, &m),
        uid => member(host, peer, object, m, uid),
    }
}

/// The arguments of `m`, read with signature `sig` (a reserved member's).
fn args_of(peer: &Peer, m: &Message, sig: &str) -> Result<Vec<Value>, Error> {
    read_args(m, &Signature::parse(sig)?, peer.format())
}

/// `registerEvent` (and `registerEventWithSignature`): `peer` subscribes to a signal.
fn register_event(peer: &Arc<Peer>, object: &ServedObject, m: &Message) -> Result<(), Error> {
    let a = m.header.address;
    let args = |sig: &str| args_of(peer, m, sig);
    let dynamic = a.action == metaobject::REGISTER_EVENT_WITH_SIGNATURE;
    let v = args(if dynamic { "(IILs)" } else { "(IIL)" })?;
    let (Some(Value::Int(uid)), Some(Value::Int(link))) = (v.get(1), v.get(2)) else {
        return Err(Error::Protocol("bad registerEvent arguments".into()));
    };
    let dynamic = match v.get(3) {
        Some(Value::String(s)) => Some(Signature::parse(s)?),
        _ => None,
    };
    let signal = u32::try_from(*uid)
        .ok()
        .and_then(|u| object.signals.get(&u));
    let Some(signal) = signal else {
        peer.error(m, &format!("Cannot find signal with uid {uid}"));
        return Ok(());
    };
    lock(&signal.subscribers).push(Subscriber {
        connection: Arc::downgrade(peer),
        connection_id: peer.id(),
        link: *link as u64,
        dynamic,
    });
    if m.header.kind == MessageType::Call {
        reply_value(peer, m, &Value::Int(*link), &Signature::UInt64);
    }
    Ok(())
}

/// `unregisterEvent`: `peer` ends one of its subscriptions.
fn unregister_event(peer: &Peer, object: &ServedObject, m: &Message) -> Result<(), Error> {
    let args = |sig: &str| args_of(peer, m, sig);
    let v = args("(IIL)")?;
    let (Some(Value::Int(uid)), Some(Value::Int(link))) = (v.get(1), v.get(2)) else {
        return Err(Error::Protocol("bad unregisterEvent arguments".into()));
    };
    let removed = u32::try_from(*uid)
        .ok()
        .and_then(|u| object.signals.get(&u))
        .is_some_and(|s| {
            let mut subs = lock(&s.subscribers);
            let before = subs.len();
            subs.retain(|x| !(x.connection_id == peer.id() && x.link == *link as u64));
            subs.len() != before
        });
    if removed {
        if m.header.kind == MessageType::Call {
            peer.answer(m, MessageType::Reply, Vec::new());
        }
    } else {
        peer.error(
            m,
            &format!("No subscription with link {link} on signal {uid}"),
        );
    }
    Ok(())
}

/// The reserved members every object answers, but for the signals' (above): its
/// MetaObject, `terminate`, its properties, and the statistics and tracing members (80 to
/// 85), answered as by an object with statistics and tracing off.
fn reserved(
    host: &impl Host,
    peer: &Peer,
    object: &ServedObject,
    m: &Message,
) -> Result<(), Error> {
    let a = m.header.address;
    let args = |sig: &str| args_of(peer, m, sig);
    match a.action {
        metaobject::META_OBJECT => {
            args("(I)")?;
            if m.header.kind == MessageType::Call {
                let bytes = match peer.generation().adapt_meta_object(object.meta_object()) {
                    Some(adapted) => {
                        let mut bytes = Vec::new();
                        adapted.write(&mut bytes);
                        bytes
                    }
                    None => object.meta_bytes().to_vec(),
                };
                peer.answer(m, MessageType::Reply, bytes);
            }
        }
        metaobject::TERMINATE => {
            args("(I)")?;
            host.terminate(a.service, a.object);
            if m.header.kind == MessageType::Call {
                peer.answer(m, MessageType::Reply, Vec::new());
            }
        }
        metaobject::PROPERTY => {
            let v = args("(m)")?;
            let uid = v.first().and_then(|k| object.property_uid(k));
            match uid.and_then(|u| object.properties.get(&u)) {
                Some(p) => {
                    let mut out = Vec::new();
                    let value = lock(&p.value).clone();
                    match value::encode_dynamic_as(&value, &p.signature, &mut out) {
                        Ok(()) => peer.answer(m, MessageType::Reply, out),
                        Err(e) => peer.error(m, &e.to_string()),
                    }
                }
                None => peer.error(
                    m,
                    &format!("No such property {}", v.first().unwrap_or(&Value::None)),
                ),
            }
        }
        metaobject::SET_PROPERTY => {
            let mut v = args("(mm)")?.into_iter();
            let key = v.next().unwrap_or_default();
            let value = v.next().unwrap_or_default();
            match object.property_uid(&key) {
                Some(uid) => match object.set_property_uid(uid, value) {
                    Ok(()) => {
                        if m.header.kind == MessageType::Call {
                            peer.answer(m, MessageType::Reply, Vec::new());
                        }
                    }
                    Err(e) => peer.error(m, &e.to_string()),
                },
                None => peer.error(m, &format!("No such property {key}")),
            }
        }
        metaobject::PROPERTIES => {
            args("()")?;
            let names = Value::List(
                object
                    .properties
                    .values()
                    .map(|p| Value::String(p.name.clone()))
                    .collect(),
            );
            reply_value(
                peer,
                m,
                &names,
                &Signature::List(Box::new(Signature::String)),
            );
        }
        80 | 84 => reply_value(peer, m, &Value::Bool(false), &Signature::Bool),
        81 | 83 | 85 if m.header.kind == MessageType::Call => {
            peer.answer(m, MessageType::Reply, Vec::new());
        }
        82 => peer.answer(m, MessageType::Reply, 0u32.to_le_bytes().to_vec()),
        // A Post to 81, 83 or 85 gets no answer; [`call`] sends no other member here.
        _ => {}
    }
    Ok(())
}

/// A member of the object's own: a method (run inline, or on a worker with the call
/// recorded so that a Cancel can answer it), a signal the peer emits, or an error.
fn member<H: Host>(
    host: &Arc<H>,
    peer: &Arc<Peer>,
    object: Arc<ServedObject>,
    m: Message,
    uid: u32,
) -> Result<(), Error> {
    let a = m.header.address;
    let format = peer.format();
    if let Some(method) = object.methods.get(&uid) {
        let params = peer.generation().adapt_signature(&method.params);
        let args = read_args(&m, &params, format)?;
        let post = m.header.kind == MessageType::Post;
        let caller = Caller {
            connection: peer.id(),
        };
        if method.inline {
            let result = run_handler(&method.handler, &caller, args);
            if !post {
                finish(host.as_ref(), peer, &m, result, &method.returns);
            }
        } else {
            if !post {
                lock(&peer.in_flight).insert(m.header.id, a);
            }
            let (owner, to, object) = (Arc::clone(host), Arc::clone(peer), Arc::clone(&object));
            let job: Job = Box::new(move || {
                let Some(method) = object.methods.get(&uid) else {
                    return;
                };
                let result = run_handler(&method.handler, &caller, args);
                if !post && lock(&to.in_flight).remove(&m.header.id).is_some() {
                    finish(owner.as_ref(), &to, &m, result, &method.returns);
                }
            });
            run_on_worker(host.label(), host.workers(), job);
        }
    } else if object.signals.contains_key(&uid) {
        // A remote emit: libqi posts the arguments to the signal uid.
        let sig = object
            .signals
            .get(&uid)
            .map(|s| s.signature.clone())
            .unwrap_or(Signature::tuple(vec![]));
        let v = read_args(&m, &sig, format)?;
        let _ = object.emit_uid(uid, &Value::Tuple(v));
    } else {
        peer.error(
            &m,
            &format!(
                "No such method {{{}.{}.{}, id:{}}}",
                a.service, a.object, a.action, m.header.id
            ),
        );
    }
    Ok(())
}

fn run_handler(handler: &Handler, caller: &Caller, args: Vec<Value>) -> Result<Out, MethodError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| handler(caller, args)))
        .unwrap_or_else(|_| Err("internal error: the method panicked".into()))
}

/// Answers a call with its method's result: a value, an object (bound by the host), or
/// the method's error.
fn finish(
    host: &impl Host,
    peer: &Peer,
    m: &Message,
    result: Result<Out, MethodError>,
    returns: &Signature,
) {
    match result {
        Ok(Out::Value(v)) => reply_value(peer, m, &v, returns),
        Ok(Out::Object(object)) => {
            let at = host.bind_returned(m.header.address.service, &object, peer);
            let reference = object.reference_for(peer, at);
            let mut out = Vec::new();
            peer.write_reference(&reference, returns, &mut out);
            peer.answer(m, MessageType::Reply, out);
        }
        Err(e) => peer.error(m, &e.message),
    }
}

/// The arguments of a call, read with `sig` (or as an `m` when the message says so).
pub(crate) fn read_args(
    m: &Message,
    sig: &Signature,
    format: ObjectFormat,
) -> Result<Vec<Value>, Error> {
    let sig = if m.header.flags.contains(Flags::DYNAMIC_PAYLOAD) {
        &Signature::Dynamic
    } else {
        sig
    };
    if m.header.flags.contains(Flags::RETURN_TYPE) {
        // The arguments are followed by the wanted return signature: read and ignore it.
        let mut r = Reader::new(&m.payload);
        let mut objects = Vec::new();
        let v = value::read_value(&mut r, sig, format, &mut objects, 0)?;
        r.string()?;
        r.finish()?;
        return Ok(into_args(v));
    }
    Ok(into_args(value::decode(&m.payload, sig, format)?.value))
}

fn into_args(v: Value) -> Vec<Value> {
    match v {
        Value::Tuple(v) | Value::List(v) => v,
        other => vec![other],
    }
}

/// Answers `m` with `v` written as `sig` (in the peer's generation).
pub(crate) fn reply_value(peer: &Peer, m: &Message, v: &Value, sig: &Signature) {
    let generation = peer.generation();
    let adapted = generation.adapt_signature(sig);
    let v = match adapted {
        Cow::Owned(_) => Cow::Owned(generation.adapt_value(v.clone(), sig)),
        Cow::Borrowed(_) => Cow::Borrowed(v),
    };
    let mut out = Vec::new();
    match value::encode(&v, &adapted, &mut out) {
        Ok(()) => peer.answer(m, MessageType::Reply, out),
        Err(e) => peer.error(m, &format!("cannot convert the result: {e}")),
    }
}
