//! Starting a program that serves choreo over a socket of its own (the box host): the
//! socket becomes its file descriptor 3, and it dies with the thread that started it.

// dup2(2), prctl(2) between fork and exec: std has no wrapper for either there.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// The descriptor the started program finds its socket on.
pub const SOCKET_FD: i32 = 3;

/// Starts `command` with `socket` as its descriptor [`SOCKET_FD`] (every other descriptor
/// of this process is closed at exec, as std sets close-on-exec on all it opens) and with
/// `SIGKILL` as its parent-death signal: if choreo dies, so does the program, whatever box
/// code in it does. The kernel sends that signal when the *thread* that started it ends:
/// start it from a thread that lives as long as the process (`landlock::helped`).
pub fn with_socket(command: &mut Command, socket: OwnedFd) -> std::io::Result<Child> {
    let fd = socket.as_raw_fd();
    let on_exec = move || {
        // SAFETY: dup2 and prctl are system calls, async-signal-safe; nothing here
        // allocates or takes a lock between fork and exec. dup2 clears close-on-exec on
        // the copy; when `fd` already is SOCKET_FD, its flag is cleared by fcntl.
        let ok = unsafe {
            if fd == SOCKET_FD {
                libc::fcntl(fd, libc::F_SETFD, 0) == 0
            } else {
                libc::dup2(fd, SOCKET_FD) == SOCKET_FD
            }
        } && unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == 0 };
        if ok {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    // SAFETY: `on_exec` only makes the system calls above.
    unsafe { command.pre_exec(on_exec) };
    let child = command.spawn();
    // The parent's copy closes here; the program keeps its own.
    drop(socket);
    child
}

/// The socket [`with_socket`] gave this program, taken once (`None` when it has none: the
/// program was not started so).
pub fn inherited_socket() -> Option<OwnedFd> {
    static TAKEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if TAKEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return None;
    }
    // SAFETY: fcntl(F_GETFD) only asks whether the descriptor is open.
    if unsafe { libc::fcntl(SOCKET_FD, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: descriptor 3 was open at start (checked) and is owned by nothing else in
    // this program: the swap above makes this the only taking.
    Some(unsafe { OwnedFd::from_raw_fd(SOCKET_FD) })
}
