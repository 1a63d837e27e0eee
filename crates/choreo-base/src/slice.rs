//! The shortest time slice the kernel gives, for the threads that hand turns to one another.
//!
//! A run is a chain of hand-overs: the control thread wakes a worker for a hook, the worker
//! wakes the control thread when the hook returns, a sleeper wakes at its instant. With every
//! core busy, Linux's scheduler (EEVDF, 6.6 on) lets a woken thread wait for the running
//! one's slice to end (a few milliseconds), so virtual time crawls at about one hand-over per
//! slice. A thread that asks for a short slice (`sched_setattr` with `sched_runtime` under
//! `SCHED_OTHER`, Linux 6.12 on, no privilege needed) is run sooner after it wakes, for the
//! same share of the processor (its turns are shorter and come sooner). Measured with a busy
//! loop on each core: `corpus_run` 105 s with the default slice, 67 s at 0.3 ms, 44 s at
//! 0.1 ms; 10,000 worker hops 4.3–39 s before, 0.27–1.62 s after (docs/benchmarks.md,
//! Engine).
//!
//! Threads inherit their creator's slice, so asking at the start of the engine's threads
//! (control, workers, activities) covers box code's threads and the simulated robot's too;
//! `choreo` asks for its whole process. Older kernels ignore the field; other systems have no
//! such call and keep their scheduler's default.

// The one call of `sched_setattr(2)`: no safe wrapper (rustix, nix, thread-priority) sets a
// slice under SCHED_OTHER.
#![allow(unsafe_code)]

/// The shortest slice Linux accepts (it clamps below), in nanoseconds.
pub const SHORT_SLICE_NS: u64 = 100_000;

/// `struct sched_attr` of `sched_setattr(2)`, first version (48 bytes).
#[cfg(target_os = "linux")]
#[repr(C)]
struct SchedAttr {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

/// Asks the kernel for the shortest slice for the calling thread, keeping its policy
/// (`SCHED_OTHER`) and nice value. Returns whether the kernel took the request; a refusal
/// changes nothing, so callers go on either way.
pub fn ask_short_slice() -> bool {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{NormalThreadSchedulePolicy, ThreadSchedulePolicy};
        // A thread under another policy (the frame clock's SCHED_FIFO) keeps it.
        let other = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other);
        if thread_priority::thread_schedule_policy().is_ok_and(|p| p != other) {
            return false;
        }
        let nice =
            rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap_or(0);
        let attr = SchedAttr {
            size: std::mem::size_of::<SchedAttr>() as u32,
            policy: 0, // SCHED_OTHER
            flags: 0,
            nice,
            priority: 0,
            runtime: SHORT_SLICE_NS,
            deadline: 0,
            period: 0,
        };
        // SAFETY: `attr` is a live, initialized `struct sched_attr` whose `size` field says
        // how many bytes the kernel may read; pid 0 is the calling thread; flags are 0. The
        // kernel only reads the struct.
        let rc =
            unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0u32) };
        rc == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

// Linux's (under wine, /proc is the Linux host's: not this platform's).
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The slice asked for is what the kernel reports for the thread (`se.slice` in
    /// `/proc/thread-self/sched`), and for a thread it then creates. Kernels before 6.12
    /// take the call and ignore the field: there the slice stays the default.
    #[test]
    fn a_thread_that_asks_gets_the_short_slice_and_its_threads_inherit_it() {
        let (asked, own, inherited) = std::thread::spawn(|| {
            let asked = ask_short_slice();
            let inherited = std::thread::spawn(slice_of_this_thread)
                .join()
                .ok()
                .flatten();
            (asked, slice_of_this_thread(), inherited)
        })
        .join()
        .unwrap_or((false, None, None));
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut numbers = release
            .split(|c: char| !c.is_ascii_digit())
            .map(|n| n.parse::<u32>());
        let version = (numbers.next(), numbers.next());
        let custom_slices =
            matches!(version, (Some(Ok(major)), Some(Ok(minor))) if (major, minor) >= (6, 12));
        if !custom_slices {
            eprintln!("NOTICE: Linux {release} has no custom slices (6.12 on): the default stays");
            return;
        }
        assert!(asked, "Linux {release} refused the slice");
        assert_eq!(own, Some(SHORT_SLICE_NS));
        assert_eq!(inherited, Some(SHORT_SLICE_NS));
    }

    /// `se.slice` of the calling thread, as the kernel shows it.
    fn slice_of_this_thread() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/thread-self/sched").ok()?;
        text.lines()
            .find(|l| l.trim_start().starts_with("se.slice"))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse().ok())
    }
}
