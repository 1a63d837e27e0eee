//! A lane's frames: their bound, and why a lane could not carry one (the platform's
//! channels, `channel_linux` and `channel_mux`, and the lanes above them share these).

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

/// An end of file or a reset is the other side gone.
pub(crate) fn closed(e: std::io::Error) -> LaneError {
    use std::io::ErrorKind::{BrokenPipe, ConnectionReset, UnexpectedEof};
    match e.kind() {
        UnexpectedEof | BrokenPipe | ConnectionReset => LaneError::Closed,
        _ => LaneError::Io(e),
    }
}
