//! The 28-byte message header (qi-protocol.md §2–§3): magic, id, payload size, version,
//! type, flags and the (service, object, action) address.

use crate::error::Error;

/// The header's size in bytes.
pub const HEADER_SIZE: usize = 28;

/// The magic bytes every message starts with (`0x42adde42` written little-endian).
pub const MAGIC: [u8; 4] = [0x42, 0xde, 0xad, 0x42];

/// The only protocol version spoken (libqi 4.x rejects anything else).
pub const VERSION: u16 = 0;

/// Payload size accepted by default: 64 MiB, far above any real message and far below the
/// 4 GiB a hostile header may claim. Configurable per session and server.
pub const DEFAULT_MAX_PAYLOAD: u32 = 64 << 20;

/// What a message is (§3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageType {
    /// A method call expecting an answer.
    Call,
    /// The value answering a call.
    Reply,
    /// A call failed; the payload is `m<s>`.
    Error,
    /// A call expecting no answer.
    Post,
    /// A signal emission.
    Event,
    /// A capability map (`{sm}`).
    Capability,
    /// Cancels a call (payload: the call's id as `u32`).
    Cancel,
    /// A call was canceled (empty payload).
    Canceled,
}

impl MessageType {
    /// The type's byte on the wire.
    pub fn code(self) -> u8 {
        match self {
            MessageType::Call => 1,
            MessageType::Reply => 2,
            MessageType::Error => 3,
            MessageType::Post => 4,
            MessageType::Event => 5,
            MessageType::Capability => 6,
            MessageType::Cancel => 7,
            MessageType::Canceled => 8,
        }
    }

    /// The type for a wire byte; `None` for 0 (never sent) and unknown values.
    pub fn from_code(code: u8) -> Option<MessageType> {
        Some(match code {
            1 => MessageType::Call,
            2 => MessageType::Reply,
            3 => MessageType::Error,
            4 => MessageType::Post,
            5 => MessageType::Event,
            6 => MessageType::Capability,
            7 => MessageType::Cancel,
            8 => MessageType::Canceled,
            _ => return None,
        })
    }
}

/// Header flags (§3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Flags(pub u8);

impl Flags {
    /// The payload is one `m` in place of the expected type.
    pub const DYNAMIC_PAYLOAD: Flags = Flags(0x01);
    /// The call payload is followed by an `s` naming the wanted return signature.
    pub const RETURN_TYPE: Flags = Flags(0x02);

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Where a message goes: service, object, action (method or signal uid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Address {
    /// 0 = the Server pseudo-service, 1 = the ServiceDirectory, ≥ 2 assigned by the SD.
    pub service: u32,
    /// 1 = the service's main object, ≥ 2 objects passed by reference.
    pub object: u32,
    /// Method uid (Call, Post, Reply, Error) or signal uid (Event).
    pub action: u32,
}

impl Address {
    /// The address `(service, object, action)`.
    pub const fn new(service: u32, object: u32, action: u32) -> Address {
        Address {
            service,
            object,
            action,
        }
    }
}

/// A decoded header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Message id (answers repeat their call's id).
    pub id: u32,
    /// Payload size in bytes.
    pub size: u32,
    /// Message type.
    pub kind: MessageType,
    /// Flags.
    pub flags: Flags,
    /// Destination (or source, for answers and events).
    pub address: Address,
}

impl Header {
    /// The 28 bytes of this header.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..4].copy_from_slice(&MAGIC);
        b[4..8].copy_from_slice(&self.id.to_le_bytes());
        b[8..12].copy_from_slice(&self.size.to_le_bytes());
        b[12..14].copy_from_slice(&VERSION.to_le_bytes());
        b[14] = self.kind.code();
        b[15] = self.flags.0;
        b[16..20].copy_from_slice(&self.address.service.to_le_bytes());
        b[20..24].copy_from_slice(&self.address.object.to_le_bytes());
        b[24..28].copy_from_slice(&self.address.action.to_le_bytes());
        b
    }

    /// Decodes and checks a header: magic, version, type, and a size of at most
    /// `max_payload` (checked here, before anyone allocates the payload).
    pub fn decode(b: &[u8; HEADER_SIZE], max_payload: u32) -> Result<Header, Error> {
        if b[0..4] != MAGIC {
            return Err(Error::Protocol(format!(
                "bad magic {:02x} {:02x} {:02x} {:02x}",
                b[0], b[1], b[2], b[3]
            )));
        }
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let version = u16::from_le_bytes([b[12], b[13]]);
        if version != VERSION {
            return Err(Error::Protocol(format!(
                "unsupported protocol version {version}"
            )));
        }
        let kind = MessageType::from_code(b[14])
            .ok_or_else(|| Error::Protocol(format!("unknown message type {}", b[14])))?;
        let size = word(8);
        if size > max_payload {
            return Err(Error::Protocol(format!(
                "payload of {size} bytes exceeds the limit of {max_payload}"
            )));
        }
        Ok(Header {
            id: word(4),
            size,
            kind,
            flags: Flags(b[15]),
            address: Address::new(word(16), word(20), word(24)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_checks() {
        let h = Header {
            id: 10,
            size: 9,
            kind: MessageType::Call,
            flags: Flags::default(),
            address: Address::new(2, 1, 108),
        };
        let b = h.encode();
        assert_eq!(Header::decode(&b, 100).ok(), Some(h));
        assert!(Header::decode(&b, 8).is_err());
        let mut bad = b;
        bad[0] = 0;
        assert!(Header::decode(&bad, 100).is_err());
        let mut v1 = b;
        v1[12] = 1;
        assert!(Header::decode(&v1, 100).is_err());
        let mut t = b;
        t[14] = 0;
        assert!(Header::decode(&t, 100).is_err());
    }
}
