//! The operating system's side of a thread: its id, what the kernel says of it (asleep or
//! not, its CPU time), and how punctually it is woken. Each platform's means are here and
//! nowhere else (docs/platforms.md says what each gives):
//!
//! | | Linux | macOS | Windows |
//! |---|---|---|---|
//! | id | `gettid` | `pthread_threadid_np` | `GetCurrentThreadId` |
//! | asleep, CPU time ([`look`]) | `/proc/<pid>/task/<tid>/stat` | not read: `None` | not read: `None` |
//! | finest timer ([`punctual_timers`]) | timer slack 1 ns | none | timer resolution 1 ms (`timeBeginPeriod`) |
//! | nice ([`set_nice`]) | `setpriority` of the thread | none (a process's only) | none |
//! | real-time ([`set_realtime`]) | `SCHED_FIFO` | `SCHED_FIFO` | highest thread priority |
//!
//! Where a platform gives nothing the functions say so (`false`, `None`) and callers go on:
//! the turns' watchdog ([`look`]) then leaves a holder alone, and a timer wakes as the
//! system's default lets it.

// The system calls no safe wrapper offers for every platform (macOS's thread id, Windows's).
#![allow(unsafe_code)]

use std::time::Duration;

/// What the kernel says of a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Waiting in the kernel (Linux's `S` and `D`: a lock, a queue, I/O), not running nor
    /// runnable.
    pub asleep: bool,
    /// Its CPU time so far, user and system.
    pub cpu: Duration,
}

/// The calling thread's id as the system names it (see the module's table).
pub fn current_id() -> u64 {
    #[cfg(target_os = "linux")]
    {
        rustix::thread::gettid()
            .as_raw_nonzero()
            .get()
            .unsigned_abs()
            .into()
    }
    #[cfg(target_vendor = "apple")]
    {
        let mut id = 0u64;
        // SAFETY: a null thread is the calling thread; `id` is a live u64 it writes.
        unsafe { libc::pthread_threadid_np(0, &mut id) };
        id
    }
    #[cfg(windows)]
    {
        // SAFETY: no argument; returns the calling thread's id.
        u64::from(unsafe { windows_sys::Win32::System::Threading::GetCurrentThreadId() })
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple", windows)))]
    {
        0
    }
}

/// What the kernel says of thread `tid` of process `pid` (this process: `None`), where the
/// platform says it (Linux); `None` elsewhere or when the thread is gone.
pub fn look(pid: Option<u32>, tid: u64) -> Option<Look> {
    #[cfg(target_os = "linux")]
    {
        let path = match pid {
            Some(pid) => format!("/proc/{pid}/task/{tid}/stat"),
            None => format!("/proc/self/task/{tid}/stat"),
        };
        let text = std::fs::read_to_string(path).ok()?;
        let rest = &text[text.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let state = fields.first()?.chars().next()?;
        let utime: u64 = fields.get(11)?.parse().ok()?;
        let stime: u64 = fields.get(12)?.parse().ok()?;
        // `/proc` counts clock ticks, 100 a second (USER_HZ) on every Linux.
        Some(Look {
            asleep: matches!(state, 'S' | 'D'),
            cpu: Duration::from_millis((utime + stime) * 10),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, tid);
        None
    }
}

/// Asks for the finest timer the platform has for the calling thread (Linux) or process
/// (Windows): whether it was given.
pub fn punctual_timers() -> bool {
    #[cfg(target_os = "linux")]
    {
        rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1)).is_ok()
    }
    #[cfg(windows)]
    {
        // SAFETY: asks for a 1 ms resolution; no pointer. Kept for the process's life, as a
        // run's clock is.
        unsafe { windows_sys::Win32::Media::timeBeginPeriod(1) == 0 }
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        false
    }
}

/// Sets the calling thread's nice value, where a thread has its own (Linux): whether it
/// was taken.
pub fn set_nice(nice: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        rustix::process::setpriority_process(Some(rustix::thread::gettid()), nice).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = nice;
        false
    }
}

/// Runs the calling thread at real-time `priority` (1–99: `SCHED_FIFO` on Linux and
/// macOS; Windows: the highest thread priority): whether it was taken.
pub fn set_realtime(priority: u8) -> bool {
    #[cfg(unix)]
    {
        use thread_priority::{
            RealtimeThreadSchedulePolicy, ThreadPriority, ThreadPriorityValue,
            ThreadSchedulePolicy, set_thread_priority_and_policy, thread_native_id,
        };
        ThreadPriorityValue::try_from(priority).is_ok_and(|value| {
            set_thread_priority_and_policy(
                thread_native_id(),
                ThreadPriority::Crossplatform(value),
                ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo),
            )
            .is_ok()
        })
    }
    #[cfg(not(unix))]
    {
        let _ = priority;
        thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Max).is_ok()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_has_its_own_id() {
        let me = current_id();
        assert_eq!(current_id(), me);
        let other = std::thread::spawn(current_id).join().unwrap();
        assert_ne!(other, me);
        assert_ne!(me, 0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn this_thread_reads_as_awake() {
        let me = current_id();
        assert!(!look(None, me).unwrap().asleep);
        // The process's first thread's id is its pid.
        assert!(
            std::thread::spawn(|| look(None, u64::from(std::process::id())).is_some())
                .join()
                .unwrap()
        );
    }
}
