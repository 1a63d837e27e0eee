//! Namespaces of its own for the box host, the process that runs only box code
//! (docs/security.md): [`isolate`], called first thing, while the process has one thread.
//!
//! - A user namespace, with the process's own user and group mapped to themselves: it owns
//!   the others, so no privilege is needed, and files keep their owners.
//! - A PID namespace: box code sees no process of the machine (its parent and choreo
//!   included) and signals none; and when the namespace's first process ends, the kernel
//!   kills every other one in it, so no process box code starts outlives the box host, in
//!   whatever session or process group it put itself.
//! - An IPC namespace: no System V or POSIX message queue, semaphore or shared memory of
//!   the machine's.
//! - A network namespace unless the run may use the network: only a loopback, down, so no
//!   traffic at all (the sockets the process already holds, choreo's, still work).
//!
//! A new PID namespace holds the process's *children*, not the process itself, so
//! [`isolate`] forks twice and three processes share the box host's life:
//!
//! ```text
//! choreo ─ waiter (the pid choreo started) ─ init (PID 1) ─ box host (PID 2, returns)
//! ```
//!
//! Why not the box host as PID 1: the kernel drops every signal that the first process of
//! a namespace sends itself, and every signal from outside that it has no handler for, so
//! `os.kill(os.getpid(), SIGTERM)`, `os.abort()` or choreo's SIGTERM would not end it as they
//! end any program; and PID 1 inherits every orphan, which it would have to reap under
//! Python's own `waitpid`s. So a small init, which never runs box code, is PID 1: it reaps
//! orphans, passes signals on, and tells the waiter how the box host ended; the waiter, the
//! process choreo started and waits for, passes choreo's signals on and ends as the box
//! host ended (its exit code, or its signal), so that choreo sees the box host's own end.
//! Each dies with its parent (`PR_SET_PDEATHSIG`): choreo killed, the waiter dies, then
//! init, then, with the namespace, everything in it.

// unshare(2), fork(2), prctl(2), sigwaitinfo(2), waitpid(2), kill(2): no safe wrapper forks a
// single-threaded process and keeps its signal mask.
#![allow(unsafe_code)]

use std::io::{self, Write};

use crate::own::{close_all_except, threads};

/// What [`isolate`] made of this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// This process goes on as PID 2 of its own PID namespace (`getpid()` is 2, `getppid()`
    /// 1), in its own user, IPC and (unless `net`) network namespaces; the process choreo
    /// started is its waiter.
    Namespaced,
    /// The kernel refused (user namespaces disabled, a container's seccomp, a limit
    /// reached): why. Nothing was forked; this process goes on as it was, but, where the
    /// user namespace was made and the rest refused, in that user namespace (the same ids).
    Unavailable(String),
}

/// Why [`isolate`] failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The process runs more than one thread: `unshare` would refuse, and a fork keeps
    /// only the calling thread.
    #[error("isolation needs a process of one thread; this one runs {0}")]
    Threads(usize),
    /// `/proc/self/status` could not be read.
    #[error("cannot tell how many threads this process runs: {0}")]
    Status(#[source] io::Error),
    /// `unshare` failed otherwise than by the kernel's refusal (out of memory).
    #[error("cannot make a user namespace: {0}")]
    UserNamespace(#[source] io::Error),
    /// The pipe between init and the waiter could not be made. The namespaces are made:
    /// the process should exit rather than run box code (its next child would be the PID
    /// namespace's init).
    #[error("cannot make a pipe for the box host's init: {0}")]
    Pipe(#[source] io::Error),
    /// The fork failed; as [`Error::Pipe`], the process should exit.
    #[error("cannot fork the box host's init: {0}")]
    Fork(#[source] io::Error),
}

/// The first byte init writes to the waiter: it will die with the waiter from now on.
const ARMED: u8 = b'A';

/// The exit code of init when it cannot start the box host, and of a waiter whose init
/// could not tell how the box host ended.
const EX_OSERR: i32 = 71;

/// Puts this process in namespaces of its own (the module's doc says which and why), forks
/// init and the box host, and returns in the box host; the process that called it never
/// returns (it waits, and ends as the box host ends). `net`: the box host may use the
/// machine's network (no network namespace).
///
/// Call it first thing in `main`, while the process has one thread (no Python yet, nothing
/// that starts a thread): a second thread is refused ([`Error::Threads`]).
pub fn isolate(net: bool) -> Result<Isolation, Error> {
    match threads().map_err(Error::Status)? {
        1 => {}
        n => return Err(Error::Threads(n)),
    }
    // SAFETY: getters without arguments.
    let (uid, gid, parent) = unsafe { (libc::geteuid(), libc::getegid(), libc::getppid()) };
    // SAFETY: unshare with flags only; this process has one thread.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        let why = io::Error::last_os_error();
        return match why.raw_os_error() {
            Some(libc::EPERM | libc::EINVAL | libc::ENOSPC | libc::EUSERS) => Ok(
                Isolation::Unavailable(format!("the kernel refuses a user namespace: {why}")),
            ),
            _ => Err(Error::UserNamespace(why)),
        };
    }
    if let Err(why) = map_ids(uid, gid) {
        return Ok(Isolation::Unavailable(format!(
            "a user namespace was made but its ids could not be mapped ({why}): the process \
             stays in it, its own ids seen as unmapped, and no other namespace was made"
        )));
    }
    let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    if !net {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: unshare with flags only; the new user namespace owns what it makes.
    if unsafe { libc::unshare(flags) } != 0 {
        let why = io::Error::last_os_error();
        let what = if net {
            "PID and IPC"
        } else {
            "PID, IPC and network"
        };
        return Ok(Isolation::Unavailable(format!(
            "the kernel refuses {what} namespaces ({why}): the process goes on in a user \
             namespace of its own (the same ids), without them"
        )));
    }
    start_init(parent)
}

/// Maps the process's user and group to themselves in its new user namespace (one line
/// each, which needs no privilege once `setgroups` is denied).
fn map_ids(uid: libc::uid_t, gid: libc::gid_t) -> io::Result<()> {
    let write = |path: &str, text: String| -> io::Result<()> {
        // One write(2): the kernel takes a map whole or not at all.
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .write_all(text.as_bytes())
    };
    match write("/proc/self/setgroups", "deny".to_string()) {
        // A kernel before 3.19 has no such file, and needs none.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        other => other?,
    }
    write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// Forks init (PID 1 of the new namespace); this process becomes the waiter. Returns in
/// the box host only.
fn start_init(parent: libc::pid_t) -> Result<Isolation, Error> {
    let (status_r, status_w) = pipe().map_err(Error::Pipe)?;
    // The waiter dies with choreo; choreo may have died already (its child then has another
    // parent), and this process with it.
    // SAFETY: prctl, getppid, kill with integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != parent {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
    // Every signal blocked before the fork, none lost: the waiter and init take them with
    // sigwaitinfo; the box host gets the caller's mask back.
    let mut old = empty_set();
    let all = full_set();
    // SAFETY: pthread_sigmask reads `all` and writes `old`.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old) };
    // SAFETY: the process has one thread (checked by `isolate`), so the child may run
    // anything.
    match unsafe { libc::fork() } {
        -1 => {
            let why = io::Error::last_os_error();
            // SAFETY: restores the mask saved above; closes the pipe made here.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
                libc::prctl(libc::PR_SET_PDEATHSIG, 0, 0, 0, 0);
                libc::close(status_r);
                libc::close(status_w);
            }
            Err(Error::Fork(why))
        }
        0 => Ok(init(status_r, status_w, &old)),
        init_pid => waiter(init_pid, status_r, status_w),
    }
}

/// Init, PID 1: dies with the waiter, forks the box host and returns in it; init itself
/// never returns.
fn init(status_r: i32, status_w: i32, old: &libc::sigset_t) -> Isolation {
    // SAFETY: closes the waiter's end; prctl with integers.
    unsafe {
        libc::close(status_r);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        // No /proc/1/mem for the box host, whose capabilities it keeps no longer.
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    // getppid() is 0 here (the waiter is outside the namespace), so the waiter's death
    // before the prctl above is seen by the pipe: its read end closed, this write fails
    // (SIGPIPE is blocked: EPIPE).
    if !write_all(status_w, &[ARMED]) {
        // SAFETY: ends this process alone.
        unsafe { libc::_exit(EX_OSERR) };
    }
    // SAFETY: one thread (the waiter had one when it forked).
    match unsafe { libc::fork() } {
        -1 => {
            let why = io::Error::last_os_error();
            eprintln!("choreo-sandbox: cannot start the box host in its namespaces: {why}");
            // SAFETY: ends this process alone; the waiter ends with the same code.
            unsafe { libc::_exit(EX_OSERR) }
        }
        0 => {
            // SAFETY: the pipe is init's; the mask is the one the caller had.
            unsafe {
                libc::close(status_w);
                libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
            }
            Isolation::Namespaced
        }
        host => init_loop(host, status_w),
    }
}

/// Init's life: reaps every child (the box host's orphans come here), passes on the signals
/// a process sent it, and once the box host has ended, writes how to the waiter and exits
/// (the kernel then kills what is left in the namespace).
fn init_loop(host: libc::pid_t, status_w: i32) -> ! {
    // Nothing of the box host's (its socket to choreo, its standard output) stays open in
    // init: a descriptor the box host closes is closed.
    let _ = close_all_except(&[status_w]);
    loop {
        let Some((signal, from_process)) = wait_signal() else {
            // sigwaitinfo failed otherwise than interrupted: a blocking wait instead.
            let status = wait_blocking(host);
            let _ = write_all(status_w, &status.to_ne_bytes());
            // SAFETY: ends this process alone.
            unsafe { libc::_exit(0) };
        };
        if signal == libc::SIGCHLD {
            loop {
                let mut status = 0;
                // SAFETY: waitpid writes the status of a child of this process.
                let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL) };
                if pid <= 0 {
                    break;
                }
                if pid == host {
                    let _ = write_all(status_w, &status.to_ne_bytes());
                    // SAFETY: ends this process alone; the kernel then ends the namespace.
                    unsafe { libc::_exit(0) };
                }
            }
        } else if from_process {
            // SAFETY: kill with integers; the box host is a child not yet reaped.
            unsafe { libc::kill(host, signal) };
        }
    }
}

/// The waiter's life: passes on the signals a process sent it (choreo's), waits for init,
/// and ends as the box host ended.
fn waiter(init: libc::pid_t, status_r: i32, status_w: i32) -> ! {
    // SAFETY: the write end is init's.
    unsafe { libc::close(status_w) };
    // As in init: the box host's descriptors are its own.
    let _ = close_all_except(&[status_r]);
    let status = loop {
        let Some((signal, from_process)) = wait_signal() else {
            break wait_blocking(init);
        };
        if signal == libc::SIGCHLD {
            let mut status = 0;
            // SAFETY: waitpid writes the status of a child of this process.
            if unsafe { libc::waitpid(init, &mut status, libc::WNOHANG) } == init {
                break status;
            }
        } else if from_process {
            // SAFETY: kill with integers; init is a child not yet reaped.
            unsafe { libc::kill(init, signal) };
        }
    };
    mirror(relayed(status_r).unwrap_or(status))
}

/// How the box host ended, as init wrote it: `None` when init did not (it was killed).
fn relayed(status_r: i32) -> Option<i32> {
    // Init has exited: its writes are all in the pipe, and there is no writer left.
    let mut got = [0u8; 5];
    let mut len = 0;
    while len < got.len() {
        // SAFETY: read writes at most the bytes left of `got`.
        let n = unsafe { libc::read(status_r, got[len..].as_mut_ptr().cast(), got.len() - len) };
        match n {
            n if n > 0 => len += n.cast_unsigned(),
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => break,
        }
    }
    (len == got.len() && got[0] == ARMED)
        .then(|| i32::from_ne_bytes([got[1], got[2], got[3], got[4]]))
}

/// Ends this process as `status` says a process ended: the same exit code, or killed by the
/// same signal (without a core file), so that whoever waits for it sees the box host's end.
fn mirror(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let mut only = empty_set();
        // SAFETY: setrlimit, signal, kill with plain values; sigaddset writes the set given;
        // the signal is unblocked last, with its default action, so it ends this process.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(signal, libc::SIG_DFL);
            libc::sigaddset(&mut only, signal);
            libc::kill(libc::getpid(), signal);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        }
        // A signal whose default is not to end (none that killed a process): as a shell says it.
        // SAFETY: ends this process.
        unsafe { libc::_exit(128 + signal) }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        EX_OSERR
    };
    // SAFETY: ends this process.
    unsafe { libc::_exit(code) }
}

/// Waits for the next signal (all are blocked): the signal, and whether a process sent it
/// (`kill`, `sigqueue`: passed on) rather than the kernel (a child's end, a terminal's
/// Ctrl-C, which reached the box host's process group already). `None`: the wait failed.
fn wait_signal() -> Option<(i32, bool)> {
    let all = full_set();
    loop {
        // SAFETY: siginfo_t is plain data, written by sigwaitinfo.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: sigwaitinfo reads the set and writes `info`.
        let signal = unsafe { libc::sigwaitinfo(&all, &mut info) };
        if signal > 0 {
            // SI_USER, SI_QUEUE, SI_TKILL are at or below 0; the kernel's own above.
            return Some((signal, info.si_code <= 0));
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
    }
}

/// Waits for `child` to end, however long (interruptions retried): its wait status.
fn wait_blocking(child: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status of a child of this process.
        let pid = unsafe { libc::waitpid(child, &mut status, 0) };
        if pid == child {
            return status;
        }
        if pid < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // No such child: say it ended badly.
            return EX_OSERR << 8;
        }
    }
}

/// Writes `bytes` whole to `fd`; `false` when it could not (its reader is gone).
fn write_all(fd: i32, bytes: &[u8]) -> bool {
    let mut at = 0;
    while at < bytes.len() {
        // SAFETY: write reads at most the bytes left of `bytes`.
        let n = unsafe { libc::write(fd, bytes[at..].as_ptr().cast(), bytes.len() - at) };
        match n {
            n if n > 0 => at += n.cast_unsigned(),
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
    true
}

/// A pipe whose ends close on exec: (read, write).
fn pipe() -> io::Result<(i32, i32)> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((fds[0], fds[1]))
}

/// A signal set with no signal.
fn empty_set() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset writes the set given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        set
    }
}

/// A signal set with every signal (SIGKILL and SIGSTOP cannot be blocked: the kernel leaves
/// them out).
fn full_set() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigfillset writes the set given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut set);
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isolate() forks and never returns in its caller: tests/whole_process.rs runs it in a
    // child. Here, what leaves the process as it is.

    #[test]
    fn this_process_runs_threads_and_says_so() {
        // libtest runs each test on a thread of its own besides the main one.
        let n = threads().unwrap_or(0);
        assert!(n >= 2, "Threads: {n}");
        assert!(matches!(isolate(false), Err(Error::Threads(m)) if m >= 2));
    }

    #[test]
    fn a_relayed_status_is_read_whole_or_not_at_all() {
        let (r, w) = pipe().unwrap_or((-1, -1));
        assert!(write_all(w, &[ARMED]));
        assert!(write_all(w, &(9i32 << 8).to_ne_bytes()));
        // SAFETY: the test's own pipe.
        unsafe { libc::close(w) };
        assert_eq!(relayed(r), Some(9 << 8));
        // SAFETY: as above.
        unsafe { libc::close(r) };
        let (r, w) = pipe().unwrap_or((-1, -1));
        assert!(write_all(w, &[ARMED]));
        // SAFETY: as above.
        unsafe { libc::close(w) };
        assert_eq!(relayed(r), None);
        // SAFETY: as above.
        unsafe { libc::close(r) };
    }
}
