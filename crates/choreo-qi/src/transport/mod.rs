//! Connections: what carries the codec's messages between two ends.
//!
//! - `socket`: a connection's socket, plain or TLS; `reactor`: the server's
//!   plain-TCP connections on one thread; [`tls`]: TLS for `tcps://` (certificate checks,
//!   server identities).
//! - [`capability`]: capabilities and authentication at the handshake; [`generation`]: what
//!   each NAOqi release's libqi says on the wire; `peer`: what both ends of one connection
//!   share.
//! - [`delay`]: a link's simulated latency (`choreo sim --latency`).

pub mod capability;
pub mod delay;
pub mod generation;
pub(crate) mod peer;
pub(crate) mod reactor;
pub(crate) mod socket;
pub mod tls;
