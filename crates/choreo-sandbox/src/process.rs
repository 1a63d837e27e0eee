//! The box host's last step before box code: the process confined as a whole, for the rest
//! of its life ([`confine`]). What it inherited and does not need is closed, its bounds are
//! hard (box code cannot raise them back), it gains no privilege from a program it starts,
//! holds no capability (the box host may run as root on CI, or hold every capability of its
//! own user namespace after [`crate::isolation::isolate`]), and its system calls pass the
//! [`seccomp`](crate::seccomp) filter.
//!
//! Landlock is the caller's, before this ([`crate::landlock::Layer::confine_this_thread`] on
//! a process of one thread confines the process): its ruleset is a file descriptor this
//! closes unless kept, and it is no use once enforced.

// close_range(2), setrlimit(2), prctl(2), capset(2): std has no wrapper.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;

use crate::seccomp::{self, Filter};

/// The process's bounds, each both its soft and its hard limit (box code cannot raise them).
/// A bound above the process's current hard limit leaves that limit (never raised).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Address space, bytes (`RLIMIT_AS`): Python's `MemoryError` past it.
    pub memory: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`): the highest descriptor number plus one.
    pub open_files: u64,
    /// The size of a file it writes, bytes (`RLIMIT_FSIZE`): past it, `SIGXFSZ`, which kills
    /// unless handled (Python ignores it: `OSError: [Errno 27] File too large`).
    pub file_size: Option<u64>,
    /// Processes of its user (`RLIMIT_NPROC`): counted per user and user namespace, not per
    /// box host, and threads count.
    pub processes: Option<u64>,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            memory: None,
            open_files: crate::limits::OPEN_FILES,
            file_size: None,
            processes: None,
        }
    }
}

/// Why the process could not be confined. The steps before the failed one are done (and
/// cannot be undone): a process that gets this should not run box code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The process runs more than one thread: capabilities and `no_new_privs` are each
    /// thread's, and would stay with the others (nothing was done).
    #[error("confining a process needs it to run one thread; this one runs {0}")]
    Threads(usize),
    /// `/proc/self/status` could not be read (nothing was done).
    #[error("cannot tell how many threads this process runs: {0}")]
    Status(#[source] io::Error),
    /// The inherited file descriptors could not be closed.
    #[error("cannot close the process's other files: {0}")]
    Close(#[source] io::Error),
    /// A bound could not be set.
    #[error("cannot bound the process's {what}: {source}")]
    Limit {
        /// Which bound.
        what: &'static str,
        /// The kernel's answer.
        source: io::Error,
    },
    /// A process attribute could not be set.
    #[error("cannot set the process's {what}: {source}")]
    Attribute {
        /// Which attribute.
        what: &'static str,
        /// The kernel's answer.
        source: io::Error,
    },
    /// The capabilities could not be dropped.
    #[error("cannot drop the process's capabilities: {0}")]
    Capabilities(#[source] io::Error),
    /// The system call filter could not be installed.
    #[error(transparent)]
    Seccomp(#[from] seccomp::Error),
}

/// Confines this process as a whole, in order: closes every file descriptor but 0, 1, 2 and
/// `keep`; sets `bounds` (and no core file); `no_new_privs`; not dumpable (no core, no
/// `/proc/PID/mem` for its peers, no ptrace); no capability, in any set; then `filter`.
///
/// Every descriptor the process still uses must be in `keep`: an `OwnedFd` or `File` closed
/// here under its owner would close another file later when dropped (or abort, in a debug
/// build). The process must run one thread (refused otherwise, before any step): what it
/// starts afterwards inherits all of this.
pub fn confine(bounds: &Bounds, keep: &[RawFd], filter: &Filter) -> Result<(), Error> {
    match crate::own::threads().map_err(Error::Status)? {
        1 => {}
        n => return Err(Error::Threads(n)),
    }
    close_all_but(keep).map_err(Error::Close)?;
    let limits = [
        ("memory", libc::RLIMIT_AS, bounds.memory),
        ("open files", libc::RLIMIT_NOFILE, Some(bounds.open_files)),
        ("file size", libc::RLIMIT_FSIZE, bounds.file_size),
        ("processes", libc::RLIMIT_NPROC, bounds.processes),
        ("core files", libc::RLIMIT_CORE, Some(0)),
    ];
    for (what, resource, value) in limits {
        if let Some(value) = value {
            bound(resource, value).map_err(|source| Error::Limit { what, source })?;
        }
    }
    let attributes = [
        ("no_new_privs", libc::PR_SET_NO_NEW_PRIVS, 1),
        ("dumpable", libc::PR_SET_DUMPABLE, 0),
    ];
    for (what, option, value) in attributes {
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(option, value, 0, 0, 0) } != 0 {
            let source = io::Error::last_os_error();
            return Err(Error::Attribute { what, source });
        }
    }
    drop_capabilities().map_err(Error::Capabilities)?;
    filter.apply()?;
    Ok(())
}

/// Closes every file descriptor of this process but 0, 1, 2 and `keep`.
fn close_all_but(keep: &[RawFd]) -> io::Result<()> {
    let kept: Vec<RawFd> = [0, 1, 2].iter().chain(keep).copied().collect();
    crate::own::close_all_except(&kept)
}

/// Sets `resource`'s soft and hard limits to `value`, or to the current hard limit when that
/// is lower (a lowering only).
fn bound(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let mut now = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(resource, &mut now) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let value = value.min(now.rlim_max);
    let wanted = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: setrlimit reads the struct it is given.
    if unsafe { libc::setrlimit(resource, &wanted) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `struct __user_cap_header_struct` (linux/capability.h).
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`: one per 32 capabilities.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`: 64 capabilities, in two `CapData`.
const CAP_VERSION_3: u32 = 0x2008_0522;

/// `CAP_SETPCAP`, which dropping from the bounding set needs.
const CAP_SETPCAP: u32 = 8;

/// Drops every capability: the bounding set (what a program started could get), the
/// ambient set, then the effective, permitted and inheritable sets.
fn drop_capabilities() -> io::Result<()> {
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(63);
    for cap in 0..=last {
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } == 0 {
            continue;
        }
        let why = io::Error::last_os_error();
        match why.raw_os_error() {
            // Past the kernel's last capability (cap_last_cap unreadable): done.
            Some(libc::EINVAL) => break,
            // Without CAP_SETPCAP (an ordinary user, no user namespace of its own): the
            // bounding set stays, and gives nothing, since `no_new_privs` keeps a started
            // program from gaining any capability.
            Some(libc::EPERM) if !effective(CAP_SETPCAP)? => break,
            _ => return Err(why),
        }
    }
    // SAFETY: prctl with integer arguments only.
    let cleared = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    if cleared != 0 {
        let why = io::Error::last_os_error();
        // EINVAL: a kernel without ambient capabilities (before 4.3), nothing to clear.
        if why.raw_os_error() != Some(libc::EINVAL) {
            return Err(why);
        }
    }
    let mut header = CapHeader {
        version: CAP_VERSION_3,
        pid: 0,
    };
    let none = [CapData::default(); 2];
    // SAFETY: capset reads a header and two data structs of the kernel's layout (above).
    if unsafe { libc::syscall(libc::SYS_capset, &mut header, none.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether this process holds capability `cap` in its effective set.
fn effective(cap: u32) -> io::Result<bool> {
    let mut header = CapHeader {
        version: CAP_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget reads the header and writes two data structs of the kernel's layout.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let word = data.get(usize::try_from(cap / 32).unwrap_or(usize::MAX));
    Ok(word.is_some_and(|d| d.effective & (1 << (cap % 32)) != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    // confine() changes the whole process for good: tests/whole_process.rs runs it in a
    // child. Here, what reads and leaves the process as it is.

    #[test]
    fn the_default_bounds_open_files_only() {
        let bounds = Bounds::default();
        assert_eq!(bounds.open_files, crate::limits::OPEN_FILES);
        assert_eq!(
            (bounds.memory, bounds.file_size, bounds.processes),
            (None, None, None)
        );
    }

    #[test]
    fn capget_reads_this_process() {
        // The test runs as whoever runs it: the answer may be either, but it is one.
        assert!(effective(CAP_SETPCAP).is_ok());
        assert!(effective(200).is_ok_and(|held| !held));
    }
}
