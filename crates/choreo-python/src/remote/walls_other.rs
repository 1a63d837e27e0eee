//! What confines the box host's process where Linux's means are not (macOS, Windows):
//! today, nothing of the kernel's. Box code is still in a process of its own, judged by
//! Python's hooks at each line (files, hosts, programs: `crate::confinement`), bounded in
//! real time by choreo, and ended with its run; what it could do beneath the hooks
//! (`ctypes`) is not held. Said once per run (`BoxHost::shortfall`) and in
//! docs/platforms.md; `--sandbox=require` refuses to run box code so.

use super::control::Start;
use crate::confinement::Confinement;

/// This platform's name, as the notices say it.
const PLATFORM: &str = if cfg!(target_vendor = "apple") {
    "macOS"
} else if cfg!(windows) {
    "Windows"
} else {
    "this platform"
};

/// Why the box host could not be confined: nothing here can fail.
#[derive(Debug, thiserror::Error)]
pub(super) enum WallError {}

/// No namespaces here: why.
pub(super) fn isolate(_net: bool) -> Result<Option<String>, WallError> {
    Ok(Some(format!("{PLATFORM} has none")))
}

/// Nothing of the kernel's confines the process here: what is missing, said.
pub(super) fn confine(
    _start: &Start,
    _confinement: &Confinement,
    _namespaced: bool,
    _keep: &[i32],
) -> Result<Option<String>, WallError> {
    Ok(Some(format!("{PLATFORM} has none")))
}
