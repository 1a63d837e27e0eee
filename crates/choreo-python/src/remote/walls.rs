//! What confines the box host's process on this platform: Linux's namespaces, seccomp and
//! Landlock (`walls_linux`); elsewhere what the platform has (`walls_other`).

#[cfg(target_os = "linux")]
pub(super) use super::walls_linux::{WallError, confine, isolate};
#[cfg(not(target_os = "linux"))]
pub(super) use super::walls_other::{WallError, confine, isolate};
