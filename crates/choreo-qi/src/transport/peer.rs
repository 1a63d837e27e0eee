//! The other end of one socket, as the objects served to it see it (libqi's
//! `MessageSocket` with what was agreed on it): where answers and events go, the
//! capabilities and protocol generation both ends share, the MetaObjectCache, and the calls
//! running for it. Below the objects a peer calls, the dispatcher and both ends' sockets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use choreo_base::lock;

use crate::codec::header::{Address, Flags, MessageType};
use crate::codec::message::{Message, error_payload, next_id};
use crate::codec::metaobject::{MetaCache, ObjectFormat, ObjectRef};
use crate::codec::signature::Signature;
use crate::codec::value;
use crate::error::Error;
use crate::transport::capability::{self, CapabilityMap, Shared};
use crate::transport::generation::Generation;
use crate::transport::socket::Outbox;

/// Peer ids, unique in the process (0 means "no peer": a server's own services).
static NEXT_PEER: AtomicU64 = AtomicU64::new(1);

/// The other end of one socket, as the objects served to it see it: where answers and
/// events go, what both ends agreed on (object layout, generation, MetaObjectCache), and
/// the calls running for it.
pub(crate) struct Peer {
    pub(crate) id: u64,
    out: Arc<Outbox>,
    shared: Mutex<Shared>,
    /// The generation spoken with the peer: its own, or ours when older.
    generation: Mutex<Generation>,
    /// MetaObjects sent and received under a cache id on this socket (MetaObjectCache).
    pub(crate) cache: Mutex<MetaCache>,
    /// Calls running on workers: id → address, so that a Cancel can answer for them.
    pub(crate) in_flight: Mutex<HashMap<u32, Address>>,
}

impl Peer {
    /// A peer reached through `out`, speaking `generation` until told otherwise.
    pub(crate) fn new(out: Arc<Outbox>, shared: Shared, generation: Generation) -> Peer {
        Peer {
            id: NEXT_PEER.fetch_add(1, Ordering::Relaxed),
            out,
            shared: Mutex::new(shared),
            generation: Mutex::new(generation),
            cache: Mutex::new(MetaCache::default()),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// The peer's id (unique in the process).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The socket to the peer.
    pub(crate) fn out(&self) -> &Arc<Outbox> {
        &self.out
    }

    /// Sends a message to the peer.
    pub(crate) fn send(&self, m: &Message) -> Result<(), Error> {
        self.out.send(m)
    }

    /// What both ends share.
    pub(crate) fn shared(&self) -> Shared {
        *lock(&self.shared)
    }

    /// How object references are written on this socket.
    pub(crate) fn format(&self) -> ObjectFormat {
        lock(&self.shared).objects
    }

    /// The generation spoken with the peer.
    pub(crate) fn generation(&self) -> Generation {
        *lock(&self.generation)
    }

    /// Records what the peer advertised (`legacy`: it never authenticated).
    pub(crate) fn advertised(&self, own: Generation, remote: &CapabilityMap, legacy: bool) {
        *lock(&self.shared) = Shared::between(own, remote);
        *lock(&self.generation) = Generation::of_peer(remote, legacy).min(own);
    }

    /// Sends our capabilities in a Capability message.
    pub(crate) fn announce(&self, own: Generation) {
        let _ = self.out.send(&Message::new(
            MessageType::Capability,
            next_id(),
            Address::default(),
            Flags::default(),
            capability::encode(own, &[]),
        ));
    }

    /// Answers `call` with a message of `kind`.
    pub(crate) fn answer(&self, call: &Message, kind: MessageType, payload: Vec<u8>) {
        let _ = self.out.send(&Message::new(
            kind,
            call.header.id,
            call.header.address,
            Flags::default(),
            payload,
        ));
    }

    /// Answers `call` with an Error carrying `text` (a Post gets no answer).
    pub(crate) fn error(&self, call: &Message, text: &str) {
        if call.header.kind == MessageType::Call {
            self.answer(call, MessageType::Error, error_payload(text));
        }
    }

    /// Writes `reference` as an `o` (or as an `m` holding one when `sig` is `m`).
    pub(crate) fn write_reference(
        &self,
        reference: &ObjectRef,
        sig: &Signature,
        out: &mut Vec<u8>,
    ) {
        if *sig == Signature::Dynamic {
            out.extend_from_slice(&1u32.to_le_bytes());
            out.push(b'o');
        }
        value::encode_object(reference, self.format(), out);
    }
}
