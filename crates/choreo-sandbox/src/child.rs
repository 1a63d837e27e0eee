//! A child process as each platform names, ends and watches it: the box host and the
//! package installer seen from choreo's process (docs/platforms.md).
//!
//! - Linux: a pidfd, which names that process and no other even once it ended (no pid
//!   reused by the time it is killed), and is readable when it ends.
//! - macOS: its pid (`kill(2)`); its end is looked for every few milliseconds.
//! - Windows: a handle of its process (`TerminateProcess`), in a job object that ends what
//!   it started with it, and ends with choreo (`crate::job`); no signal asks it for a dump.

// kill(2) and TerminateProcess: the only calls here without a safe wrapper elsewhere.
#![allow(unsafe_code)]

use std::process::{Child, Command};
use std::time::Duration;

/// A child process, held so that it can be ended or asked for a dump of its threads.
pub struct Handle {
    #[cfg(target_os = "linux")]
    pidfd: std::os::fd::OwnedFd,
    #[cfg(all(unix, not(target_os = "linux")))]
    pid: libc::pid_t,
    #[cfg(windows)]
    process: std::os::windows::io::OwnedHandle,
    /// Its job, when one could be made (`None`: it is ended alone).
    #[cfg(windows)]
    job: Option<crate::job::Job>,
}

impl Handle {
    /// The process `child` started.
    pub fn of(child: &Child) -> std::io::Result<Handle> {
        #[cfg(windows)]
        {
            use std::os::windows::io::AsHandle;
            Ok(Handle {
                process: child.as_handle().try_clone_to_owned()?,
                job: crate::job::Job::around(child).ok(),
            })
        }
        #[cfg(unix)]
        Handle::of_pid(child.id())
    }

    /// The process `pid` (Unix): on Linux, named from now on whatever happens to the pid.
    #[cfg(unix)]
    pub fn of_pid(pid: u32) -> std::io::Result<Handle> {
        let pid = libc::pid_t::try_from(pid)
            .map_err(|_| std::io::Error::other(format!("no process has the id {pid}")))?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let fd = i32::try_from(fd).map_err(std::io::Error::other)?;
            // SAFETY: the kernel just returned this descriptor, owned by nothing else.
            Ok(Handle {
                pidfd: unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) },
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Handle { pid })
    }

    /// The process `pid` (Windows): a handle that may end it and wait for it.
    #[cfg(windows)]
    pub fn of_pid(pid: u32) -> std::io::Result<Handle> {
        use std::os::windows::io::FromRawHandle;
        use windows_sys::Win32::System::Threading::{
            OpenProcess, PROCESS_SYNCHRONIZE, PROCESS_TERMINATE,
        };
        // SAFETY: OpenProcess takes access rights, an inherit flag and a pid; it returns a
        // new handle or null.
        let raw = unsafe { OpenProcess(PROCESS_TERMINATE | PROCESS_SYNCHRONIZE, 0, pid) };
        if raw.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the handle was just opened, owned by nothing else.
        Ok(Handle {
            process: unsafe { std::os::windows::io::OwnedHandle::from_raw_handle(raw) },
            job: None,
        })
    }

    /// Kills it and what it started: its process group, when it leads one (macOS: the box
    /// host is started so); its job (Windows); elsewhere as [`Handle::kill`] (Linux ends a
    /// box host's processes with its PID namespace).
    pub fn kill_group(&self) {
        #[cfg(all(unix, not(target_os = "linux")))]
        // SAFETY: kill takes a (negated: the group's) pid and a signal.
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL);
        }
        #[cfg(windows)]
        if let Some(job) = &self.job {
            job.end();
        }
        self.kill();
    }

    /// Bounds the memory each of its processes may commit, where only its parent can
    /// (Windows: its job); elsewhere the process bounds itself (`crate::limits`).
    pub fn bound_memory(&self, bytes: Option<u64>) -> std::io::Result<()> {
        #[cfg(windows)]
        if let Some(job) = &self.job {
            return job.limit(bytes);
        }
        let _ = bytes;
        Ok(())
    }

    /// Kills it (`SIGKILL`; on Windows `TerminateProcess`); a process already gone is left
    /// so.
    pub fn kill(&self) {
        #[cfg(unix)]
        self.signal(libc::SIGKILL);
        #[cfg(windows)]
        {
            use std::os::windows::io::AsRawHandle;
            // SAFETY: the handle is this process's own, open while `self` lives.
            unsafe {
                windows_sys::Win32::System::Threading::TerminateProcess(
                    self.process.as_raw_handle(),
                    1,
                );
            }
        }
    }

    /// Asks it to end as Ctrl-C would (`SIGINT`: a run unloads its boxes and prints its
    /// report). Whether the platform can: Windows sends no Ctrl-C to one process.
    pub fn interrupt(&self) -> bool {
        #[cfg(unix)]
        {
            self.signal(libc::SIGINT);
            true
        }
        #[cfg(windows)]
        false
    }

    /// Asks it to end (`SIGTERM`); Windows has no asking: it is ended
    /// (`TerminateProcess`).
    pub fn terminate(&self) {
        #[cfg(unix)]
        self.signal(libc::SIGTERM);
        #[cfg(windows)]
        self.kill();
    }

    /// Asks it to dump where each of its threads is and end (`SIGABRT`: Python's fatal
    /// error handler writes the stacks to its standard error). Whether the platform can:
    /// Windows has no such signal.
    pub fn ask_dump(&self) -> bool {
        #[cfg(unix)]
        {
            self.signal(libc::SIGABRT);
            true
        }
        #[cfg(windows)]
        false
    }

    #[cfg(unix)]
    fn signal(&self, signal: i32) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: pidfd_send_signal takes the pidfd, a signal and no info.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    self.pidfd.as_raw_fd(),
                    signal,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                );
            }
        }
        #[cfg(not(target_os = "linux"))]
        // SAFETY: kill takes a pid and a signal.
        unsafe {
            libc::kill(self.pid, signal);
        }
    }

    /// Waits at most `step` for it to end (woken at its end where the platform says so:
    /// Linux's pidfd; elsewhere a sleep of at most 2 ms, the caller looking again).
    pub fn wait_end(&self, step: Duration) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let mut fds = [libc::pollfd {
                fd: self.pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }];
            let ms = i32::try_from(step.as_millis().max(1)).unwrap_or(i32::MAX);
            // SAFETY: one pollfd, its count, a timeout.
            unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) };
        }
        #[cfg(not(target_os = "linux"))]
        std::thread::sleep(step.min(Duration::from_millis(2)));
    }
}

/// Makes the program `command` starts die with the thread that starts it where the
/// platform can say so at its start (Linux: `SIGKILL` as its parent-death signal); a
/// helper of choreo's (the package installer) then never outlives choreo's process. Start
/// it from a thread that waits for it, or that lives as long as the process. Elsewhere
/// nothing is set: the helper ends by itself (docs/platforms.md).
pub fn dies_with_starter(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let on_exec = || {
            // SAFETY: prctl is a system call, async-signal-safe; nothing here allocates or
            // takes a lock between fork and exec.
            if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) } == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        // SAFETY: `on_exec` only makes the system call above.
        unsafe { command.pre_exec(on_exec) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

#[cfg(all(test, windows))]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod windows_tests {
    use super::*;

    /// A program that runs long: this test binary running [`sleeper`].
    fn pinging() -> Child {
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child::windows_tests::sleeper", "--ignored"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    /// What [`pinging`] runs: a minute asleep.
    #[test]
    #[ignore = "run by the tests above as their long-running child"]
    fn sleeper() {
        std::thread::sleep(Duration::from_secs(60));
    }

    #[test]
    fn a_child_and_what_it_started_end_with_its_job() {
        let mut child = pinging();
        let handle = Handle::of(&child).unwrap();
        assert!(handle.job.is_some(), "no job object");
        handle.bound_memory(Some(1 << 30)).unwrap();
        let started = std::time::Instant::now();
        handle.kill_group();
        assert!(!child.wait().unwrap().success());
        assert!(started.elapsed() < Duration::from_secs(50));
    }

    #[test]
    fn a_child_ends_when_its_handle_is_dropped() {
        let mut child = pinging();
        drop(Handle::of(&child).unwrap());
        // Ended by its job's close (with what code is the system's): long before its minute.
        let started = std::time::Instant::now();
        child.wait().unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(50),
            "it ran its whole course"
        );
    }
}

// Unix's: a `sleep` to end.
#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn a_child_killed_through_its_handle_ends_by_a_kill() {
        use std::os::unix::process::ExitStatusExt;
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let handle = Handle::of(&child).unwrap();
        handle.kill();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        // Gone: killing it again does nothing.
        handle.kill();
    }

    #[test]
    fn a_dump_asked_is_an_abort() {
        use std::os::unix::process::ExitStatusExt;
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let handle = Handle::of(&child).unwrap();
        assert!(handle.ask_dump());
        assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGABRT));
    }
}
