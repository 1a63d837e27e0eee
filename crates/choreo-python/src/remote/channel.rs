//! The platform's channel between choreo and its box host: Linux's sockets and pipes
//! (`channel_linux`), elsewhere the box host's standard streams (`channel_mux`).
//!
//! On Linux either may be had (`channel_either`): Linux's own, or the one macOS and
//! Windows use, for its tests.

#[cfg(target_os = "linux")]
pub use super::channel_either::{Control, Ends};
#[cfg(not(target_os = "linux"))]
pub use super::channel_mux::{Control, Ends};
