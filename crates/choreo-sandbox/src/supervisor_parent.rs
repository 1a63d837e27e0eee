//! The supervising parent's side on Linux (`super` says why there is one): the fork, the
//! parent's wait for its child with the signals it forwards, the run's deadline, and the
//! sweep of what the run left behind.

// fork(2), sigprocmask(2), signalfd(2), poll(2), waitpid(2), kill(2), prctl(2): no safe wrapper
// forks a single-threaded process and keeps its signal mask.
#![allow(unsafe_code)]

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{DONE, Ended, Exit, LIMIT, Link, NOTE, REPORT, Role};

/// The most of the fault log kept (faulthandler's dump of every thread's stack).
const FAULT_MAX: u64 = 256 * 1024;
/// How many rounds of killing what the run left behind, at most (each round kills the
/// processes whose parents the previous one killed).
const SWEEP_ROUNDS: usize = 64;

/// What the parent heard from the child.
#[derive(Default)]
struct Heard {
    report: bool,
    output_closed: bool,
    done: Option<u8>,
    notes: Vec<String>,
    /// When the parent kills the run, if it is still there ([`Link::limit`]).
    deadline: Option<Instant>,
    /// The deadline passed.
    out_of_time: bool,
}

/// Forks (see `super::start`).
pub(crate) fn start(dump_wait: Duration) -> Role {
    match threads() {
        Some(1) => {}
        Some(n) => return Role::Alone(format!("{n} threads already run: no fork")),
        None => return Role::Alone("/proc/self/status is unreadable".to_string()),
    }
    let (status_r, status_w, fault_r, fault_w) = match (pipe(), pipe()) {
        (Some((a, b)), Some((c, d))) => (a, b, c, d),
        (one, other) => {
            let why = std::io::Error::last_os_error();
            for (r, w) in one.into_iter().chain(other) {
                // SAFETY: descriptors pipe2 made here, used by nothing else.
                unsafe {
                    libc::close(r);
                    libc::close(w);
                }
            }
            return Role::Alone(format!("cannot make a pipe: {why}"));
        }
    };
    let parent = std::process::id();
    // Blocked before the fork, so that none is lost between the fork and the parent's wait;
    // the child unblocks them at once.
    let watched = watched_signals();
    // SAFETY: sigset_t is plain data; pthread_sigmask reads `watched` and writes `old`.
    let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &watched, &mut old) };
    // The parent hears the blocked signals through a descriptor it polls with the pipes.
    // SAFETY: signalfd reads the set; -1 makes a new descriptor.
    let signals = unsafe { libc::signalfd(-1, &watched, libc::SFD_CLOEXEC) };
    if signals < 0 {
        let why = std::io::Error::last_os_error();
        // SAFETY: restores the mask saved above; closes the pipes made here.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            for fd in [status_r, status_w, fault_r, fault_w] {
                libc::close(fd);
            }
        }
        return Role::Alone(format!("cannot make a signalfd: {why}"));
    }
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // SAFETY: the process has one thread (checked above), so the child may run anything.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => {
            let why = std::io::Error::last_os_error();
            // SAFETY: restores the mask saved above; prctl with integers.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
                for fd in [status_r, status_w, fault_r, fault_w, signals] {
                    libc::close(fd);
                }
            }
            Role::Alone(format!("cannot fork: {why}"))
        }
        0 => {
            // The parent's ends are not the child's to keep.
            // SAFETY: descriptors this process made, used by nothing else here.
            unsafe {
                for fd in [status_r, fault_r, signals] {
                    libc::close(fd);
                }
            }
            child_side(parent, &old, status_w, fault_w)
        }
        child => {
            // SAFETY: the write ends belong to the child now.
            unsafe {
                libc::close(status_w);
                libc::close(fault_w);
            }
            // SAFETY: descriptors just made here, each owned by one File.
            let (status, fault, signals) = unsafe {
                (
                    File::from_raw_fd(status_r),
                    File::from_raw_fd(fault_r),
                    File::from_raw_fd(signals),
                )
            };
            Role::Parent(supervise(child, status, fault, signals, dump_wait))
        }
    }
}

/// The child's side once forked: it dies with its parent (a parent killed by SIGKILL
/// leaves no run behind), keeps the signal mask it had, writes no core file, and tells the
/// parent through the write ends.
fn child_side(parent: u32, old: &libc::sigset_t, status_w: i32, fault_w: i32) -> Role {
    // SAFETY: prctl with integers; getppid has no arguments; the mask is the saved one.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() as u32 != parent {
            libc::_exit(137);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
        // A run box code crashes writes no core file into the user's folder.
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
    }
    Role::Child(Link {
        // SAFETY: a descriptor pipe2 just made, owned by this File alone.
        status: Mutex::new(unsafe { File::from_raw_fd(status_w) }),
        fault: fault_w,
    })
}

/// The signals the parent waits for: the child's end, and those it forwards.
fn watched_signals() -> libc::sigset_t {
    // SAFETY: sigemptyset and sigaddset write the set they are given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [
            libc::SIGCHLD,
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
        ] {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// A pipe whose ends close on exec (no program box code starts keeps them): (read, write).
fn pipe() -> Option<(i32, i32)> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    (made == 0).then_some((fds[0], fds[1]))
}

/// How many threads this process has (`/proc/self/status`).
fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

/// The parent's wait, on its one thread: `poll` on the child's two pipes and on the watched
/// signals (a signalfd), so that supervision starts no thread of its own. Forwards signals,
/// holds the deadline, prints the report as it comes, reaps, then kills what is left.
fn supervise(
    child: libc::pid_t,
    mut status: File,
    mut fault: File,
    mut signals: File,
    dump_wait: Duration,
) -> Ended {
    let mut heard = Heard::default();
    let mut messages = Vec::new();
    let mut dump = Vec::new();
    // Whether each pipe may still have something to read (its writers not all gone).
    let (mut status_open, mut fault_open) = (true, true);
    let exit = loop {
        if let Some(exit) = reap(child) {
            break exit;
        }
        let timeout = match heard.deadline {
            Some(at) => {
                let left = at.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    // First a dump of where every thread is, then the end.
                    let signal = if heard.out_of_time {
                        heard.deadline = None;
                        libc::SIGKILL
                    } else {
                        heard.out_of_time = true;
                        heard.deadline = Some(Instant::now() + dump_wait);
                        libc::SIGABRT
                    };
                    // SAFETY: kill with integers; the child is ours and not yet reaped.
                    unsafe { libc::kill(child, signal) };
                    continue;
                }
                // Rounded up: a wait cut short would only spin.
                i32::try_from(left.as_millis() + 1).unwrap_or(i32::MAX)
            }
            None => -1,
        };
        let ready = poll(
            [
                (&status, status_open),
                (&fault, fault_open),
                (&signals, true),
            ],
            timeout,
        );
        if ready[0] {
            status_open = read_some(&mut status, &mut messages);
            heard.take_messages(&mut messages);
        }
        if ready[1] {
            let mut chunk = Vec::new();
            fault_open = read_some(&mut fault, &mut chunk);
            keep_fault(&mut dump, &chunk);
        }
        if ready[2] {
            for (signal, from_program) in read_signals(&mut signals) {
                if signal != libc::SIGCHLD && from_program {
                    // A terminal's signals reached the child already (same process group);
                    // a program's `kill` reached only this process.
                    // SAFETY: kill with integers; the child is ours and not yet reaped.
                    unsafe { libc::kill(child, signal) };
                }
            }
        }
    };
    let left_behind = sweep();
    // Every writer is gone now (the child reaped, what it left killed): the rest of each
    // pipe is read to its end.
    if status_open {
        let _ = status.read_to_end(&mut messages);
        heard.take_messages(&mut messages);
    }
    if fault_open {
        let mut rest = Vec::new();
        let _ = fault.take(FAULT_MAX).read_to_end(&mut rest);
        keep_fault(&mut dump, &rest);
    }
    Ended {
        exit,
        report: heard.report,
        output_closed: heard.output_closed,
        done: heard.done,
        notes: heard.notes,
        fault: String::from_utf8_lossy(&dump).into_owned(),
        out_of_time: heard.out_of_time,
        left_behind,
    }
}

/// Adds `chunk` to the fault dump, up to [`FAULT_MAX`] in all.
fn keep_fault(dump: &mut Vec<u8>, chunk: &[u8]) {
    let room = usize::try_from(FAULT_MAX)
        .unwrap_or(usize::MAX)
        .saturating_sub(dump.len());
    dump.extend_from_slice(&chunk[..chunk.len().min(room)]);
}

/// Waits until one of `fds` (those marked open) can be read, up to `timeout` milliseconds
/// (`-1`: no bound): which can. An interrupted or failed wait reports none.
fn poll(fds: [(&File, bool); 3], timeout: i32) -> [bool; 3] {
    use std::os::fd::AsRawFd;
    let mut polled = fds.map(|(file, open)| libc::pollfd {
        // A negative descriptor is left out by poll(2).
        fd: if open { file.as_raw_fd() } else { -1 },
        events: libc::POLLIN,
        revents: 0,
    });
    // SAFETY: `polled` is an array of three pollfd that poll reads and writes.
    let n = unsafe { libc::poll(polled.as_mut_ptr(), 3, timeout) };
    if n <= 0 {
        return [false; 3];
    }
    polled.map(|p| p.revents != 0)
}

/// Reads what a pipe poll found ready holds, into `into`: `false` once its writers are all
/// gone (or it failed), so that it is not polled again.
fn read_some(pipe: &mut File, into: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 64 * 1024];
    match pipe.read(&mut chunk) {
        Ok(0) => false,
        Ok(n) => {
            into.extend_from_slice(&chunk[..n]);
            true
        }
        Err(e) => e.kind() == std::io::ErrorKind::Interrupted,
    }
}

/// The signals waiting on the signalfd: (signal, whether a program sent it).
fn read_signals(signals: &mut File) -> Vec<(i32, bool)> {
    const SIZE: usize = std::mem::size_of::<libc::signalfd_siginfo>();
    let mut raw = [0u8; SIZE * 8];
    let Ok(n) = signals.read(&mut raw) else {
        return Vec::new();
    };
    raw[..n]
        .chunks_exact(SIZE)
        .map(|one| {
            // SAFETY: signalfd_siginfo is plain data of SIZE bytes, read unaligned.
            let info: libc::signalfd_siginfo =
                unsafe { std::ptr::read_unaligned(one.as_ptr().cast()) };
            // SI_USER (kill), SI_QUEUE, SI_TKILL are at or below 0; the kernel's own (a
            // terminal's Ctrl-C) are above.
            (info.ssi_signo as i32, info.ssi_code <= 0)
        })
        .collect()
}

/// Reaps every child that ended; how `child` ended, once it has.
fn reap(child: libc::pid_t) -> Option<Exit> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status of a child of this process.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return None;
        }
        if pid == child {
            return Some(if libc::WIFSIGNALED(status) {
                Exit::Signal(libc::WTERMSIG(status))
            } else {
                Exit::Code(libc::WEXITSTATUS(status))
            });
        }
        // An orphan the run left, reparented here, that ended: nothing to tell.
    }
}

/// Kills every process left: those whose parent is this one (the run's orphans come here,
/// as the subreaper), round after round as their own children come. How many were killed.
fn sweep() -> usize {
    let me = std::process::id();
    let mut killed = HashSet::new();
    for _ in 0..SWEEP_ROUNDS {
        // No child at all (the usual end): nothing to look for in /proc, which costs a read
        // per process of the machine.
        if !has_children() {
            break;
        }
        let left = children_of(me);
        if left.is_empty() {
            break;
        }
        for pid in left {
            // SAFETY: kill with integers; `pid` is a child of this process, not yet reaped
            // (a zombie's kill does nothing).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed.insert(pid);
        }
        std::thread::sleep(Duration::from_millis(5));
        while reap_any().is_some() {}
    }
    killed.len()
}

/// Whether this process has a child, live or ended and not reaped (`waitpid` fails with
/// ECHILD only when it has none).
fn has_children() -> bool {
    let mut status = 0;
    // SAFETY: waitpid writes the status of a child of this process (an ended one is reaped).
    let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL) };
    pid >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ECHILD)
}

/// Reaps one child that ended, if any.
fn reap_any() -> Option<libc::pid_t> {
    let mut status = 0;
    // SAFETY: waitpid writes the status of a child of this process.
    let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
    (pid > 0).then_some(pid)
}

/// The live processes whose parent is `parent` (read from `/proc/PID/stat`), but those the
/// kernel is ending: zombies, processes exiting, and those a `SIGKILL` waits for (a helper
/// of choreo's whose parent-death signal came as the run's process ended). None of those
/// runs on; counting them would be a race with the kernel.
fn children_of(parent: u32) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
                    let after = &stat[stat.rfind(')')? + 1..];
                    let mut fields = after.split_whitespace();
                    let state = fields.next()?;
                    let ppid: u32 = fields.next()?.parse().ok()?;
                    // pgrp, session, tty, tpgid, then the flags.
                    let flags: u32 = fields.nth(4)?.parse().ok()?;
                    Some(ppid == parent && state != "Z" && flags & PF_EXITING == 0)
                })
                .unwrap_or(false)
                && !killed(*pid)
        })
        .collect()
}

/// The kernel's flag of a process that is exiting (`include/linux/sched.h`).
const PF_EXITING: u32 = 0x4;

/// Whether a `SIGKILL` is pending for process `pid` (`SigPnd` or `ShdPnd` of
/// `/proc/PID/status`): it cannot be caught, so the process ends.
fn killed(pid: libc::pid_t) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let bit = 1u64 << (libc::SIGKILL - 1);
    status.lines().any(|line| {
        let pending = line
            .strip_prefix("SigPnd:")
            .or_else(|| line.strip_prefix("ShdPnd:"));
        pending
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .is_some_and(|set| set & bit != 0)
    })
}

impl Heard {
    /// Takes the whole messages at the front of `pending` (what was read of the child's
    /// pipe; a message's end may come in a later read) and acts on each: a report is
    /// printed on standard output as it comes (a report of a run that lingers,
    /// `--monitor`, is read before its end).
    fn take_messages(&mut self, pending: &mut Vec<u8>) {
        let mut at = 0;
        while let Some(head) = pending.get(at..at + 5) {
            let kind = head[0];
            let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
            let Some(body) = usize::try_from(len)
                .ok()
                .and_then(|len| pending.get(at + 5..at + 5 + len))
            else {
                break;
            };
            let text = String::from_utf8_lossy(body).into_owned();
            at += 5 + body.len();
            self.act(kind, text);
        }
        pending.drain(..at);
    }

    fn act(&mut self, kind: u8, text: String) {
        match kind {
            REPORT => {
                let mut out = std::io::stdout().lock();
                // A closed standard output: the exit code tells.
                if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                    self.output_closed |= e.kind() == std::io::ErrorKind::BrokenPipe;
                }
                self.report = true;
            }
            NOTE => self.notes.push(text),
            LIMIT if !self.out_of_time => {
                self.deadline = text
                    .parse()
                    .ok()
                    .map(|ms| Instant::now() + Duration::from_millis(ms));
            }
            DONE => self.done = text.parse().ok(),
            // Another kind (or a limit once out of time): nothing the parent acts on.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::frame_len;

    fn message(kind: u8, text: &str) -> Vec<u8> {
        let mut m = vec![kind];
        m.extend_from_slice(&frame_len(text));
        m.extend_from_slice(text.as_bytes());
        m
    }

    #[test]
    fn a_message_split_across_reads_is_taken_once_whole() {
        let mut heard = Heard::default();
        let mut bytes = message(NOTE, "root/Box line 4: os._exit(0)");
        bytes.extend(message(DONE, "3"));
        // The pipe gave the first message and part of the second.
        let mut pending = bytes[..bytes.len() - 1].to_vec();
        heard.take_messages(&mut pending);
        assert_eq!(heard.notes, ["root/Box line 4: os._exit(0)"]);
        assert_eq!(heard.done, None);
        assert_eq!(pending, message(DONE, "3")[..5]);
        pending.push(b'3');
        heard.take_messages(&mut pending);
        assert_eq!(heard.done, Some(3));
        assert!(pending.is_empty());
    }

    #[test]
    fn a_limit_sets_the_deadline_until_the_run_is_out_of_time() {
        let mut heard = Heard::default();
        heard.take_messages(&mut message(LIMIT, "60000"));
        assert!(heard.deadline.is_some_and(|d| d > Instant::now()));
        heard.take_messages(&mut message(LIMIT, ""));
        assert_eq!(heard.deadline, None);
        heard.out_of_time = true;
        heard.take_messages(&mut message(LIMIT, "1"));
        assert_eq!(heard.deadline, None);
    }
}
