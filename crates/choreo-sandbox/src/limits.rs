//! Bounds on the process that runs box code (docs/security.md, Bounds): its memory, so that
//! a box allocating without end gets `MemoryError` (or the run ends with a report) before
//! the machine swaps or kills anything; its open files, so that a box opening them without
//! end gets an error at its line long before the system's table fills. `setrlimit` on Linux
//! and macOS; Windows has none for a process (a job object's, docs/platforms.md).

// setrlimit(2), sysctl(3), GlobalMemoryStatusEx: std has no wrapper.
#![allow(unsafe_code)]

/// The open files a run's process may hold (soft limit; a lower one is kept).
pub const OPEN_FILES: u64 = 4096;

/// The machine's memory in bytes (Linux: `/proc/meminfo`'s MemTotal; macOS: `hw.memsize`;
/// Windows: the physical memory), if it can be read.
#[cfg(target_os = "linux")]
pub fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The machine's memory in bytes (see the Linux one).
#[cfg(target_vendor = "apple")]
pub fn machine_memory() -> Option<u64> {
    let mut bytes: u64 = 0;
    let mut len = std::mem::size_of::<u64>();
    // SAFETY: sysctlbyname writes at most `len` bytes into `bytes` and the length into `len`.
    let ok = unsafe {
        libc::sysctlbyname(
            c"hw.memsize".as_ptr(),
            (&raw mut bytes).cast(),
            &raw mut len,
            std::ptr::null_mut(),
            0,
        )
    } == 0;
    (ok && bytes > 0).then_some(bytes)
}

/// The machine's memory in bytes (see the Linux one).
#[cfg(windows)]
pub fn machine_memory() -> Option<u64> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    let mut status = MEMORYSTATUSEX {
        dwLength: u32::try_from(std::mem::size_of::<MEMORYSTATUSEX>()).ok()?,
        dwMemoryLoad: 0,
        ullTotalPhys: 0,
        ullAvailPhys: 0,
        ullTotalPageFile: 0,
        ullAvailPageFile: 0,
        ullTotalVirtual: 0,
        ullAvailVirtual: 0,
        ullAvailExtendedVirtual: 0,
    };
    // SAFETY: the struct is the size its first field says; the call fills it.
    let ok = unsafe { GlobalMemoryStatusEx(&mut status) } != 0;
    (ok && status.ullTotalPhys > 0).then_some(status.ullTotalPhys)
}

/// The machine's memory: unknown here.
#[cfg(not(any(target_os = "linux", target_vendor = "apple", windows)))]
pub fn machine_memory() -> Option<u64> {
    None
}

/// The default bound on a run's memory: half the machine's (the rest for the system and
/// the programs beside), at least 1 GiB; `None` when the machine's is unknown.
pub fn default_memory() -> Option<u64> {
    machine_memory().map(|m| (m / 2).max(1 << 30))
}

/// Bounds this process (and what it starts): `memory` bytes of address space, and
/// [`OPEN_FILES`] open files. What could not be set, said. (Windows: nothing is set.)
#[cfg(unix)]
pub fn bound(memory: Option<u64>) -> Result<(), std::io::Error> {
    if let Some(bytes) = memory {
        set(libc::RLIMIT_AS, bytes)?;
    }
    set(libc::RLIMIT_NOFILE, OPEN_FILES)
}

/// Bounds this process: Windows has no process limits (see the Unix one).
#[cfg(windows)]
pub fn bound(_memory: Option<u64>) -> Result<(), std::io::Error> {
    Ok(())
}

/// A resource `setrlimit` takes (glibc names its type; macOS's is an int).
#[cfg(target_os = "linux")]
type Resource = libc::__rlimit_resource_t;
#[cfg(all(unix, not(target_os = "linux")))]
type Resource = libc::c_int;

/// Lowers `resource`'s soft limit to `value` (never raises it above the hard limit or the
/// current one).
#[cfg(unix)]
fn set(resource: Resource, value: u64) -> Result<(), std::io::Error> {
    let mut now = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(resource, &mut now) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let wanted = libc::rlimit {
        rlim_cur: now.rlim_cur.min(value).min(now.rlim_max),
        rlim_max: now.rlim_max,
    };
    // SAFETY: setrlimit reads the struct it is given.
    if unsafe { libc::setrlimit(resource, &wanted) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machines_memory_is_read_and_halved() {
        let m = machine_memory().unwrap_or(0);
        assert!(m > 0, "MemTotal unreadable");
        assert_eq!(default_memory(), Some((m / 2).max(1 << 30)));
    }
}
