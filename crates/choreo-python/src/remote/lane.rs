//! A lane: one stream socket between a thread of choreo's and a thread of the box host's,
//! carrying [`Message`]s as frames (a length, then the bytes).
//!
//! Why a socket per lane rather than one shared channel: the thread waiting for an answer
//! reads its own socket, so an answer wakes exactly the thread it is for, with no reader
//! thread and no hand-over between (a hook's round trip is two wake-ups, not four). The
//! lane's other end is handed to the box host over the control socket (`super::control`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use super::message::Message;
use super::wire::WireError;

/// The most one frame may hold: a robot call's image, a long log line, with room to spare;
/// a larger frame is a broken box host, not a big message.
pub const MAX_FRAME: usize = 64 << 20;

/// Why a lane could not carry a message.
#[derive(Debug, thiserror::Error)]
pub enum LaneError {
    /// The other side closed it (its thread or its process ended).
    #[error("the lane was closed")]
    Closed,
    /// The socket failed.
    #[error("the lane failed: {0}")]
    Io(#[from] std::io::Error),
    /// A frame past [`MAX_FRAME`].
    #[error("a frame of {0} bytes is past the bound of {MAX_FRAME}")]
    TooLarge(usize),
    /// A frame that is no message.
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// One end of a lane.
pub struct Lane {
    stream: UnixStream,
}

impl Lane {
    /// The lane on `stream`.
    pub fn new(stream: UnixStream) -> Lane {
        Lane { stream }
    }

    /// A new lane's two ends.
    pub fn pair() -> std::io::Result<(Lane, UnixStream)> {
        let (a, b) = UnixStream::pair()?;
        Ok((Lane::new(a), b))
    }

    /// Sends `message`.
    pub fn send(&self, message: &Message) -> Result<(), LaneError> {
        send_frame(&self.stream, &message.encode())
    }

    /// The next message (blocks until it comes).
    pub fn recv(&self) -> Result<Message, LaneError> {
        let bytes = recv_frame(&self.stream)?;
        Ok(Message::decode(&bytes)?)
    }
}

/// Writes one frame: its length, then `bytes`, in one system call when it fits.
pub fn send_frame(mut stream: &UnixStream, bytes: &[u8]) -> Result<(), LaneError> {
    if bytes.len() > MAX_FRAME {
        return Err(LaneError::TooLarge(bytes.len()));
    }
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes();
    let mut frame = Vec::with_capacity(4 + bytes.len());
    frame.extend_from_slice(&len);
    frame.extend_from_slice(bytes);
    stream.write_all(&frame).map_err(closed)
}

/// Reads one frame, refusing one past [`MAX_FRAME`] before allocating it.
pub fn recv_frame(mut stream: &UnixStream) -> Result<Vec<u8>, LaneError> {
    let mut len = [0; 4];
    stream.read_exact(&mut len).map_err(closed)?;
    let n = u32::from_le_bytes(len) as usize;
    if n > MAX_FRAME {
        return Err(LaneError::TooLarge(n));
    }
    let mut bytes = vec![0; n];
    stream.read_exact(&mut bytes).map_err(closed)?;
    Ok(bytes)
}

/// An end of file or a reset is the other side gone.
fn closed(e: std::io::Error) -> LaneError {
    use std::io::ErrorKind::{BrokenPipe, ConnectionReset, UnexpectedEof};
    match e.kind() {
        UnexpectedEof | BrokenPipe | ConnectionReset => LaneError::Closed,
        _ => LaneError::Io(e),
    }
}
