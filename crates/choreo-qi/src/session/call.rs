//! A call on its way ([`PendingCall`]): waiting for its answer within a timeout, canceling
//! it, and reading the answer (a value, the peer's error, a cancellation).

use std::sync::Arc;
use std::time::{Duration, Instant};

use choreo_base::lock;
use crossbeam_channel::{Receiver, RecvTimeoutError};

use super::link::Link;
use crate::codec::header::{Address, Flags, MessageType};
use crate::codec::message::{Message, error_text};
use crate::codec::signature::Signature;
use crate::codec::value::Decoded;
use crate::error::{Error, Result};

/// A call on its way: wait for its answer, or cancel it.
pub struct PendingCall {
    pub(super) id: u32,
    pub(super) address: Address,
    pub(super) rx: Receiver<Result<Message>>,
    pub(super) link: Arc<Link>,
    pub(super) returns: Signature,
    pub(super) timeout: Option<Duration>,
}

impl PendingCall {
    /// The call's message id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// A handle that cancels this call from any thread.
    pub fn canceler(&self) -> Canceler {
        Canceler {
            id: self.id,
            address: self.address,
            link: Arc::clone(&self.link),
        }
    }

    /// Asks the callee to cancel the call; the answer then is [`Error::Canceled`] (or the
    /// result, if it was already on its way).
    pub fn cancel(&self) {
        self.link.cancel(self.id, self.address);
    }

    /// Waits for the answer (up to the session's call timeout).
    pub fn wait(self) -> Result<Decoded> {
        let timeout = self.timeout;
        self.wait_for(timeout)
    }

    /// Waits for the answer up to `timeout` (`None`: without limit); on timeout the call is
    /// canceled and its answer slot forgotten.
    pub fn wait_for(self, timeout: Option<Duration>) -> Result<Decoded> {
        let answer = self.answer(timeout)?;
        decode_answer(&answer, &self.returns, &self.link)
    }

    /// The raw answer within `timeout`; on timeout, asks the peer to cancel.
    pub(super) fn answer(&self, timeout: Option<Duration>) -> Result<Message> {
        let deadline = timeout.map(|t| Instant::now() + t);
        match self.link.wait_answer(self.id, &self.rx, deadline) {
            Ok(a) => a,
            Err(RecvTimeoutError::Timeout) => {
                lock(&self.link.pending).remove(&self.id);
                self.cancel();
                Err(Error::Timeout(timeout.unwrap_or_default()))
            }
            Err(RecvTimeoutError::Disconnected) => Err(Error::Disconnected(self.link.url.clone())),
        }
    }
}

impl Drop for PendingCall {
    /// A call nobody waits for any more leaves no answer slot behind.
    fn drop(&mut self) {
        lock(&self.link.pending).remove(&self.id);
    }
}

/// Cancels one call (see [`PendingCall::canceler`]).
#[derive(Clone)]
pub struct Canceler {
    id: u32,
    address: Address,
    link: Arc<Link>,
}

impl Canceler {
    /// Asks the callee to cancel the call.
    pub fn cancel(&self) {
        self.link.cancel(self.id, self.address);
    }
}

fn decode_answer(m: &Message, returns: &Signature, link: &Link) -> Result<Decoded> {
    match m.header.kind {
        MessageType::Reply => {
            if m.header.flags.contains(Flags::DYNAMIC_PAYLOAD) {
                link.decode(&m.payload, &Signature::Dynamic)
            } else if m.payload.is_empty() && *returns == Signature::Void {
                Ok(Decoded::default())
            } else {
                link.decode(&m.payload, returns)
            }
        }
        MessageType::Error => Err(Error::Remote(error_text(&m.payload))),
        MessageType::Canceled => Err(Error::Canceled),
        other => Err(Error::Protocol(format!(
            "unexpected {other:?} as an answer"
        ))),
    }
}
