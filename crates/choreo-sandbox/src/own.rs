//! What a process holds of its own that confining it must know: how many threads it runs
//! (a process is confined whole only while it has one), and its descriptors (closed but
//! for those it keeps). Both the namespaces (`isolation`) and the process's confinement
//! (`process`) need them.

// close_range(2), close(2): std has no wrapper.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;

/// How many threads this process runs (`/proc/self/status`).
pub(crate) fn threads() -> io::Result<usize> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no Threads: line"))
}

/// Closes every file descriptor of this process but `keep` (negatives ignored).
pub(crate) fn close_all_except(keep: &[RawFd]) -> io::Result<()> {
    let mut kept: Vec<u32> = keep
        .iter()
        .filter_map(|&fd| u32::try_from(fd).ok())
        .collect();
    kept.sort_unstable();
    kept.dedup();
    // The gaps between kept descriptors, and past the last.
    let mut from = 0u32;
    for &fd in &kept {
        if fd > from {
            close_range(from, fd - 1)?;
        }
        from = fd + 1;
    }
    close_range(from, u32::MAX)
}

/// Closes descriptors `first..=last`: close_range(2), or one by one from `/proc/self/fd` on a
/// kernel older than 5.9.
fn close_range(first: u32, last: u32) -> io::Result<()> {
    // SAFETY: close_range with integer arguments; the descriptors it closes are the caller's
    // to close (see `confine`).
    if unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) } == 0 {
        return Ok(());
    }
    let why = io::Error::last_os_error();
    if why.raw_os_error() != Some(libc::ENOSYS) {
        return Err(why);
    }
    // Listed first, closed after: the listing's own descriptor is among them, closed by then.
    let open: Vec<u32> = std::fs::read_dir("/proc/self/fd")?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|fd| (first..=last).contains(fd))
        .collect();
    for fd in open {
        if let Ok(fd) = RawFd::try_from(fd) {
            // SAFETY: as above; one already closed (the listing's) answers EBADF, ignored.
            unsafe { libc::close(fd) };
        }
    }
    Ok(())
}
