//! The platform's channel between choreo and its box host: Linux's sockets and pipes
//! (`channel_linux`), elsewhere the box host's standard streams (`channel_mux`).

#[cfg(target_os = "linux")]
pub use super::channel_linux::{Control, Ends};
#[cfg(not(target_os = "linux"))]
pub use super::channel_mux::{Control, Ends};
