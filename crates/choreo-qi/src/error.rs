//! Errors of the codec, sessions and servers.

/// What went wrong in qi messaging.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The socket failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// Bytes from the peer break the protocol (bad magic, sizes, signatures, values).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// A value does not fit a signature, or a signature is invalid.
    #[error("type error: {0}")]
    Type(String),
    /// The peer answered with an Error message (its text, opaque).
    #[error("{0}")]
    Remote(String),
    /// The call was canceled.
    #[error("the call was canceled")]
    Canceled,
    /// No answer came in time.
    #[error("timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// No connection right now (the session may be reconnecting).
    #[error("disconnected: {0}")]
    Disconnected(String),
    /// A URL that names no qi endpoint: a scheme other than `tcp://` and `tcps://`, or no
    /// host. Not [`Error::Disconnected`]: nothing was tried, and trying again cannot help.
    #[error("bad URL {url}: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No such service, method, signal or property.
    #[error("{0}")]
    NotFound(String),
    /// TLS could not be set up: unreadable certificates or keys, or a failed handshake.
    #[error("TLS: {0}")]
    Tls(String),
    /// Authentication was refused (by the server, or a `tcps` server's certificate was not
    /// trusted).
    #[error("authentication failed: {0}")]
    Authentication(String),
}

/// A result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
