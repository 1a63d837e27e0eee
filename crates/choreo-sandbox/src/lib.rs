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
//! The box code side of confinement (which files, hosts and programs box code may reach) is
//! choreo-python's; this crate knows no Python and no behavior.

pub mod landlock;
pub mod limits;
pub mod supervisor;
