//! Messages: a header plus its payload, framing on a byte stream, and message ids (§2.1).

use std::io::Read;
use std::sync::atomic::{AtomicU32, Ordering};

use choreo_base::Value;

use crate::codec::header::{Address, Flags, HEADER_SIZE, Header, MessageType};
use crate::codec::metaobject::ObjectFormat;
use crate::codec::signature::Signature;
use crate::codec::value::{self, Decoded};
use crate::error::Error;

/// One qi message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The header (its `size` is the payload's length).
    pub header: Header,
    /// The payload bytes.
    pub payload: Vec<u8>,
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A fresh message id from the one process-wide counter libqi also uses (wraps; skips 0).
pub fn next_id() -> u32 {
    loop {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        if id != 0 {
            return id;
        }
    }
}

/// The text of an Error payload (`m<s>`); opaque otherwise.
pub(crate) fn error_text(payload: &[u8]) -> String {
    match value::decode(payload, &Signature::Dynamic, ObjectFormat::default()) {
        Ok(Decoded {
            value: Value::String(s),
            ..
        }) => s,
        Ok(d) => d.value.to_string(),
        Err(e) => format!("unreadable error message ({e})"),
    }
}

/// An Error payload: `m<s>` holding `text`.
pub(crate) fn error_payload(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 9);
    let _ = value::encode_dynamic(&Value::String(text.to_string()), &mut out);
    out
}

impl Message {
    /// A message of `kind` to `address` with `payload`.
    pub fn new(
        kind: MessageType,
        id: u32,
        address: Address,
        flags: Flags,
        payload: Vec<u8>,
    ) -> Message {
        Message {
            header: Header {
                id,
                size: u32::try_from(payload.len()).unwrap_or(u32::MAX),
                kind,
                flags,
                address,
            },
            payload,
        }
    }

    /// Appends the header and payload to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.header.encode());
        out.extend_from_slice(&self.payload);
    }

    /// The whole frame's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_SIZE + self.payload.len());
        self.encode_into(&mut out);
        out
    }

    /// Reads one message from a stream; `Ok(None)` at a clean end of stream (between
    /// messages). The payload buffer grows as bytes arrive, so a header claiming a large
    /// size allocates only what the peer really sends.
    pub fn read_from(stream: &mut impl Read, max_payload: u32) -> Result<Option<Message>, Error> {
        let mut head = [0u8; HEADER_SIZE];
        let mut got = 0;
        while got < HEADER_SIZE {
            match stream.read(&mut head[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => {
                    return Err(Error::Protocol(format!(
                        "connection closed inside a header ({got} of {HEADER_SIZE} bytes)"
                    )));
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let header = Header::decode(&head, max_payload)?;
        let size = header.size as usize;
        let mut payload = Vec::with_capacity(size.min(1 << 16));
        stream.take(size as u64).read_to_end(&mut payload)?;
        if payload.len() != size {
            return Err(Error::Protocol(format!(
                "connection closed inside a payload ({} of {size} bytes)",
                payload.len()
            )));
        }
        Ok(Some(Message { header, payload }))
    }

    /// Parses the first frame of `bytes`: `Ok(None)` if more bytes are needed, else the
    /// message and the number of bytes it took.
    pub fn parse(bytes: &[u8], max_payload: u32) -> Result<Option<(Message, usize)>, Error> {
        let Some(head) = bytes.first_chunk::<HEADER_SIZE>() else {
            return Ok(None);
        };
        let header = Header::decode(head, max_payload)?;
        let end = HEADER_SIZE + header.size as usize;
        match bytes.get(HEADER_SIZE..end) {
            Some(payload) => Ok(Some((
                Message {
                    header,
                    payload: payload.to_vec(),
                },
                end,
            ))),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        let m = Message::new(
            MessageType::Call,
            7,
            Address::new(1, 1, 100),
            Flags::default(),
            vec![1, 2, 3],
        );
        let bytes = m.to_bytes();
        let (back, n) = Message::parse(&bytes, 100)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!());
        assert_eq!((back, n), (m.clone(), 31));
        assert!(matches!(Message::parse(&bytes[..30], 100), Ok(None)));
        let back = Message::read_from(&mut &bytes[..], 100).ok().flatten();
        assert_eq!(back, Some(m));
        assert!(Message::read_from(&mut &bytes[..30], 100).is_err());
        assert!(Message::read_from(&mut &bytes[..10], 100).is_err());
        assert!(matches!(
            Message::read_from(&mut &bytes[..0], 100),
            Ok(None)
        ));
    }
}
