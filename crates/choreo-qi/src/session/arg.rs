//! Objects a client passes to its peer: [`Arg::Object`], an argument written as an `o`, and
//! the objects each link of a [`crate::Session`] serves its peer ([`Served`]).
//!
//! As libqi does for an object a client sends (`serializeObject` with the called
//! `RemoteObject` as the object host), the object is bound on the socket the call goes out
//! on, under the called service's id and an object id from a process-wide counter that
//! starts at 2³¹ (libqi's `RemoteObject::_nextId`, the upper half of the ids, so that they
//! never meet the ids servers give). The peer calls it back over that same socket; its
//! Calls, Posts and Cancels go through the dispatcher servers use (`dispatch`). The object
//! stays bound until the peer terminates it (libqi does when its last proxy goes) or the
//! link closes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use choreo_base::Value;
use choreo_base::pool::Pool;

use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::Error;
use crate::server::dispatch::{self, Host};
use crate::server::object::ServedObject;
use crate::transport::peer::Peer;

/// An argument of [`crate::RemoteObject::call_args`]: a value, or an object this client
/// serves, passed by reference (an `o`; or an `m` holding one).
#[derive(Clone)]
pub enum Arg {
    /// A value, written with the parameter's signature.
    Value(Value),
    /// An object, bound on the call's socket: the peer calls its methods back there.
    Object(Arc<ServedObject>),
}

impl From<Value> for Arg {
    fn from(v: Value) -> Arg {
        Arg::Value(v)
    }
}

impl From<Arc<ServedObject>> for Arg {
    fn from(o: Arc<ServedObject>) -> Arg {
        Arg::Object(o)
    }
}

/// An argument borrowed for overload resolution and encoding.
#[derive(Clone, Copy)]
pub(crate) enum ArgRef<'a> {
    Value(&'a Value),
    Object(&'a Arc<ServedObject>),
}

impl<'a> From<&'a Arg> for ArgRef<'a> {
    fn from(a: &'a Arg) -> ArgRef<'a> {
        match a {
            Arg::Value(v) => ArgRef::Value(v),
            Arg::Object(o) => ArgRef::Object(o),
        }
    }
}

/// How well `args` fit parameters `params` (see [`value::fit`]): an object fits an `o`
/// exactly and an `m` at the cost of any value in one; `None` when they cannot be written.
pub(crate) fn fit(args: &[ArgRef<'_>], params: &Signature) -> Option<u32> {
    let Some(fields) = params.fields() else {
        // Not a parameter tuple: values only, as one tuple.
        return values(args).and_then(|v| value::fit(&Value::Tuple(v), params));
    };
    if fields.len() != args.len() {
        return None;
    }
    args.iter().zip(fields).try_fold(0u32, |cost, (a, f)| {
        let c = match (a, f) {
            (ArgRef::Value(v), f) => value::fit(v, f)?,
            (ArgRef::Object(_), Signature::Object) => 0,
            (ArgRef::Object(_), Signature::Dynamic) => 4,
            (ArgRef::Object(_), _) => return None,
        };
        Some(cost.saturating_add(c))
    })
}

/// The arguments' own signature (for messages): `o` for an object.
pub(crate) fn signature(args: &[ArgRef<'_>]) -> Signature {
    Signature::tuple(
        args.iter()
            .map(|a| match a {
                ArgRef::Value(v) => value::signature_of(v),
                ArgRef::Object(_) => Signature::Object,
            })
            .collect(),
    )
}

/// The values of `args`, if no object is among them.
fn values(args: &[ArgRef<'_>]) -> Option<Vec<Value>> {
    args.iter()
        .map(|a| match a {
            ArgRef::Value(v) => Some((*v).clone()),
            ArgRef::Object(_) => None,
        })
        .collect()
}

/// Writes `args` as `params` for a call to service `service` through `peer`; objects are
/// bound in `served` first.
pub(crate) fn encode(
    args: &[ArgRef<'_>],
    params: &Signature,
    service: u32,
    served: &Served,
    peer: &Peer,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let Some(fields) = params.fields().filter(|f| f.len() == args.len()) else {
        let values = values(args)
            .ok_or_else(|| Error::Type(format!("cannot write {} as {params}", signature(args))))?;
        return value::encode(&Value::Tuple(values), params, out);
    };
    for (a, f) in args.iter().zip(fields) {
        match a {
            ArgRef::Value(v) => value::encode(v, f, out)?,
            ArgRef::Object(object) => {
                if !matches!(f, Signature::Object | Signature::Dynamic) {
                    return Err(Error::Type(format!("cannot write an object as {f}")));
                }
                let at = served.bind(service, object);
                peer.write_reference(&object.reference_for(peer, at), f, out);
            }
        }
    }
    Ok(())
}

/// The first id of objects a client binds: libqi's `RemoteObject::_nextId` starts at
/// `u32::MAX / 2` and is incremented before use.
const FIRST_CLIENT_OBJECT: u32 = 1 << 31;

static NEXT_OBJECT: AtomicU32 = AtomicU32::new(0);

/// A fresh object id in the upper half (it wraps within it).
fn next_object_id() -> u32 {
    FIRST_CLIENT_OBJECT | (NEXT_OBJECT.fetch_add(1, Ordering::Relaxed) & !FIRST_CLIENT_OBJECT)
}

/// The objects one link of a session serves its peer, by address, and the workers that
/// run their methods that may block.
pub(crate) struct Served {
    objects: RwLock<HashMap<(u32, u32), Arc<ServedObject>>>,
    workers: Pool,
}

impl Default for Served {
    fn default() -> Served {
        Served {
            objects: RwLock::new(HashMap::new()),
            workers: dispatch::workers("qi-client-worker"),
        }
    }
}

impl Served {
    /// Binds `object` for calls to service `service` (where it is bound already, if it
    /// is); returns its address.
    pub(crate) fn bind(&self, service: u32, object: &Arc<ServedObject>) -> (u32, u32) {
        let at = match object.address() {
            Some(at) => at,
            None => object.bind((service, next_object_id())),
        };
        self.objects
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(at, Arc::clone(object));
        at
    }

    /// How many objects are bound.
    pub(crate) fn len(&self) -> usize {
        self.objects
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Lets every object go (the link closed): peer `peer`'s subscriptions end.
    pub(crate) fn clear(&self, peer: u64) {
        let objects =
            std::mem::take(&mut *self.objects.write().unwrap_or_else(PoisonError::into_inner));
        for object in objects.values() {
            object.drop_connection(peer);
        }
        // Dropped here, outside the lock: their `on_drop` may do anything.
        drop(objects);
    }
}

impl Host for Served {
    fn label(&self) -> &'static str {
        "qi client"
    }

    fn object(&self, service: u32, object: u32) -> Option<Arc<ServedObject>> {
        self.objects
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(service, object))
            .cloned()
    }

    fn terminate(&self, service: u32, object: u32) {
        let gone = self
            .objects
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(service, object));
        drop(gone);
    }

    fn bind_returned(&self, service: u32, object: &Arc<ServedObject>, _peer: &Peer) -> (u32, u32) {
        self.bind(service, object)
    }

    fn workers(&self) -> &Pool {
        &self.workers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::object::ObjectBuilder;

    fn sig(text: &str) -> Signature {
        Signature::parse(text).unwrap_or(Signature::Unknown)
    }

    #[test]
    fn an_object_fits_an_o_exactly_an_m_loosely_and_nothing_else() {
        let Ok(object) = ObjectBuilder::new("o").build() else {
            panic!("no object");
        };
        let text = Value::String("/home/nao/x.pkg".into());
        let as_object = [ArgRef::Object(&object)];
        let as_path = [ArgRef::Value(&text)];
        // PackageManager's two installs: each argument picks its own.
        assert_eq!(fit(&as_object, &sig("(o)")), Some(0));
        assert_eq!(fit(&as_object, &sig("(s)")), None);
        assert_eq!(fit(&as_path, &sig("(s)")), Some(0));
        assert_eq!(fit(&as_path, &sig("(o)")), None);
        assert_eq!(fit(&as_object, &sig("(m)")), Some(4));
        assert_eq!(fit(&as_object, &sig("(oo)")), None);
        assert_eq!(signature(&as_object).to_string(), "(o)");
    }
}
