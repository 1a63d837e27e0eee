//! Bounds on the process that runs box code (docs/security.md, Bounds): its memory, so that
//! a box allocating without end gets `MemoryError` (or the run ends with a report) before
//! the machine swaps or kills anything; its open files, so that a box opening them without
//! end gets an error at its line long before the system's table fills.

// setrlimit(2): std has no wrapper.
#![allow(unsafe_code)]

/// The open files a run's process may hold (soft limit; a lower one is kept).
pub const OPEN_FILES: u64 = 4096;

/// The machine's memory in bytes (`/proc/meminfo`'s MemTotal), if it can be read.
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

/// The default bound on a run's memory: half the machine's (the rest for the system and
/// the programs beside), at least 1 GiB; `None` when the machine's is unknown.
pub fn default_memory() -> Option<u64> {
    machine_memory().map(|m| (m / 2).max(1 << 30))
}

/// Bounds this process (and what it starts): `memory` bytes of address space, and
/// [`OPEN_FILES`] open files. What could not be set, said.
pub fn bound(memory: Option<u64>) -> Result<(), std::io::Error> {
    if let Some(bytes) = memory {
        set(libc::RLIMIT_AS, bytes)?;
    }
    set(libc::RLIMIT_NOFILE, OPEN_FILES)
}

/// Lowers `resource`'s soft limit to `value` (never raises it above the hard limit or the
/// current one).
fn set(resource: libc::__rlimit_resource_t, value: u64) -> Result<(), std::io::Error> {
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
