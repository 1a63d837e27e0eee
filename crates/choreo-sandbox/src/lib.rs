//! What keeps a stranger's box code in bounds at the level of the process that runs it
//! (docs/security.md):
//!
//! - [`supervisor`]: `choreo run` forks before any thread exists; the parent waits, forwards
//!   Ctrl-C, holds the real-time limit, prints the report the child sends, tells how the
//!   child died when it sent none, and kills every process the run left behind.
//!
//! - [`landlock`]: the kernel's confinement of the threads that run box code (files, TCP,
//!   programs), beneath Python's own judgement.
//!
//! - [`limits`]: the memory and the open files of the process that runs box code.
//!
//! - [`isolation`]: namespaces of its own (user, PID, IPC, network) for the box host, the
//!   process that runs only box code, made before its first line; no process it starts
//!   outlives it.
//!
//! - [`seccomp`]: the kernel's filter of the box host's system calls (the kernel itself,
//!   other processes, programs, sockets), beneath Landlock.
//!
//! - [`process`]: the box host confined as a whole before box code: its other files closed,
//!   hard bounds, no capability, no new privilege, then the filter.
//!
//! - [`spawn`]: a program started with a socket of choreo's as its descriptor 3, dying
//!   with choreo (the box host).
//!
//! - [`child`]: a child process as each platform names, ends and watches it (Linux,
//!   macOS, Windows); `job`: Windows's job object around one.
//!
//! The box code side of confinement (which files, hosts and programs box code may reach) is
//! choreo-python's; this crate knows no Python and no behavior.

// Linux's means, absent elsewhere (docs/platforms.md); Landlock has its place everywhere
// (`landlock_none.rs`: nothing enforced, said).
pub mod child;
#[cfg(target_os = "linux")]
pub mod isolation;
#[cfg(windows)]
pub mod job;
pub mod landlock;
pub mod limits;
#[cfg(target_os = "linux")]
mod own;
#[cfg(target_os = "linux")]
pub mod process;
#[cfg(target_os = "linux")]
pub mod seccomp;
#[cfg(target_os = "linux")]
pub mod spawn;
pub mod supervisor;
