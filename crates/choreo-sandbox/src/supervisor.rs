//! A supervising parent for a run (docs/security.md, Supervision).
//!
//! Why a parent: box code can end its own process — `os._exit`, a signal it sends itself, a
//! segmentation fault through `ctypes`, a busy loop the engine cannot interrupt. Nothing left
//! in that process can print a report; a parent that outlives it can, with a true exit code,
//! and can kill every process the run started.
//!
//! Why fork rather than spawn: [`start`] forks before any thread exists, so the child is the
//! command itself going on (no second start of the binary, nothing re-parsed), and
//! supervision costs one fork and a few system calls per run.
//!
//! The child stays in the parent's process group, so a terminal's Ctrl-C reaches it as it
//! always did; the parent forwards only the signals a program sends it (`kill`), which the
//! child would not otherwise get. The parent is the child subreaper: a process box code
//! starts, and its own children, come back to the parent when their parent dies, and the
//! parent kills them all once the child is gone.

use std::fs::File;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

// The fork and the parent's side: Linux's (elsewhere a command runs alone, its box code in
// a box host: docs/platforms.md).
#[cfg(target_os = "linux")]
#[path = "supervisor_parent.rs"]
mod parent;

/// A message's first byte: the report to print (then its length and its text).
pub(crate) const REPORT: u8 = b'R';
/// A message's first byte: a note on what box code did (then its length and its text).
pub(crate) const NOTE: u8 = b'N';
/// A message's first byte: the real time the parent gives the run from now (then its
/// length, and milliseconds as text; empty: no bound).
pub(crate) const LIMIT: u8 = b'L';
/// A message's first byte: the command ended on its own with this exit code (then its
/// length, and the code as text).
pub(crate) const DONE: u8 = b'D';

/// Which side of the fork this process is on.
pub enum Role {
    /// This process runs the command, and tells the parent through the [`Link`].
    Child(Link),
    /// The parent, once the child is gone: how it ended.
    Parent(Ended),
    /// No supervision (not Linux, threads already running, the fork failed): why.
    Alone(String),
}

/// The child's side: what it tells the parent.
pub struct Link {
    pub(crate) status: Mutex<File>,
    pub(crate) fault: i32,
}

impl Link {
    /// Hands the parent the report to print on its standard output (which box code cannot
    /// close); `false` when the parent cannot be told (it is gone).
    pub fn report(&self, text: &str) -> bool {
        self.send(REPORT, text)
    }

    /// Tells the parent what box code did that may end the process (`os._exit` called at a
    /// line): said if the process then ends on its own.
    pub fn note(&self, text: &str) {
        self.send(NOTE, text);
    }

    /// Asks the parent to kill the command and everything it started if it is still there
    /// after `limit` of real time from now (`None`: no bound).
    pub fn limit(&self, limit: Option<Duration>) {
        let text = limit.map(|l| l.as_millis().to_string()).unwrap_or_default();
        self.send(LIMIT, &text);
    }

    /// Tells the parent the command ended on its own and exits with `code`: any other end
    /// is one box code caused.
    pub fn done(&self, code: u8) {
        self.send(DONE, &code.to_string());
    }

    /// The file descriptor a fatal error's dump goes to (Python's `faulthandler`).
    pub fn fault_fd(&self) -> i32 {
        self.fault
    }

    fn send(&self, kind: u8, text: &str) -> bool {
        let mut message = Vec::with_capacity(text.len() + 5);
        message.push(kind);
        message.extend_from_slice(&frame_len(text));
        message.extend_from_slice(text.as_bytes());
        let mut status = match self.status.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        status.write_all(&message).is_ok()
    }
}

/// A text's length as a message frames it (at most 4 GiB, which no report nears).
pub(crate) fn frame_len(text: &str) -> [u8; 4] {
    u32::try_from(text.len()).unwrap_or(u32::MAX).to_le_bytes()
}

/// How the child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
}

/// How a supervised command ended, as the parent saw it.
#[derive(Debug)]
pub struct Ended {
    /// How the child process ended.
    pub exit: Exit,
    /// The child sent its report (and the parent printed it).
    pub report: bool,
    /// The report could not be printed: standard output's reader is gone.
    pub output_closed: bool,
    /// The exit code the command said it ends with ([`Link::done`]), if it did.
    pub done: Option<u8>,
    /// What the child noted of box code (see [`Link::note`]).
    pub notes: Vec<String>,
    /// What a fatal error dumped (Python's `faulthandler`: every thread's stack), if any.
    pub fault: String,
    /// The deadline passed and the child was killed.
    pub out_of_time: bool,
    /// How many processes the run left behind (killed).
    pub left_behind: usize,
}

/// Forks: the child goes on with the command ([`Role::Child`]); the parent waits for it and
/// returns how it ended ([`Role::Parent`]), having printed the report it sent on standard
/// output as it came.
///
/// A run out of time is first sent SIGABRT, so that a fatal error's handler (Python's
/// `faulthandler`) dumps where every thread is; `dump_wait` later it is killed.
pub fn start(dump_wait: Duration) -> Role {
    #[cfg(target_os = "linux")]
    return parent::start(dump_wait);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dump_wait;
        Role::Alone("supervision needs Linux's fork and signals".to_string())
    }
}
