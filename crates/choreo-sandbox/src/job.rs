//! A Windows job object around a child (the box host): every process in it ends when
//! choreo's handle of it closes — choreo ends, however it ends — or when choreo ends the
//! job; a process in it has a memory bound, and the job a bound on its processes. What
//! Linux's PID namespace and `setrlimit` do for the box host there (docs/platforms.md).
//!
//! A process box code starts is in the job too (a job's processes' children are), unless
//! it is started outside it on purpose (`CREATE_BREAKAWAY_FROM_JOB`), which the job does
//! not allow.

// The job object's calls: windows-sys has no safe wrapper.
#![allow(unsafe_code)]

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::process::Child;

use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, JOB_OBJECT_LIMIT_PROCESS_MEMORY,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};

/// The processes a box host's job may have at once: box code's threads do not count, the
/// programs `--allow-run` lets it start do (as Linux's bound in its namespace).
const PROCESSES: u32 = 1024;

/// A job holding a child and what it starts.
pub struct Job {
    handle: OwnedHandle,
}

impl Job {
    /// `child` in a new job that ends with choreo.
    pub fn around(child: &Child) -> std::io::Result<Job> {
        // SAFETY: no security attributes, no name: a new anonymous job, or null.
        let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if raw.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the handle was just made, owned by nothing else.
        let job = Job {
            handle: unsafe { OwnedHandle::from_raw_handle(raw) },
        };
        job.limit(None)?;
        // SAFETY: both handles are open: the job's, and the child's process's.
        let assigned = unsafe { AssignProcessToJobObject(raw, child.as_raw_handle() as _) } != 0;
        if !assigned {
            return Err(std::io::Error::last_os_error());
        }
        Ok(job)
    }

    /// Sets the job's bounds: its processes end when its last handle closes, at most
    /// [`PROCESSES`] at once, each with at most `memory` bytes committed.
    pub fn limit(&self, memory: Option<u64>) -> std::io::Result<()> {
        // SAFETY: a plain C struct of integers, for which all zeros is no limit at all.
        let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        info.BasicLimitInformation.LimitFlags =
            JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
        info.BasicLimitInformation.ActiveProcessLimit = PROCESSES;
        if let Some(bytes) = memory {
            info.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY;
            info.ProcessMemoryLimit = usize::try_from(bytes).unwrap_or(usize::MAX);
        }
        let size = u32::try_from(std::mem::size_of_val(&info)).map_err(std::io::Error::other)?;
        // SAFETY: the job's handle is open; `info` is the struct the class names, `size`
        // its size.
        let set = unsafe {
            SetInformationJobObject(
                self.handle.as_raw_handle(),
                JobObjectExtendedLimitInformation,
                (&raw const info).cast(),
                size,
            )
        } != 0;
        if set {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Ends every process in the job.
    pub fn end(&self) {
        // SAFETY: the job's handle is open.
        unsafe {
            TerminateJobObject(self.handle.as_raw_handle(), 1);
        }
    }
}
