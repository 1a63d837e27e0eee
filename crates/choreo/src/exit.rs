//! Exit codes shared by every command (documented in `--help` and the README), and what a
//! run's [`crate::Ending`] maps to.
//!
//! Bad arguments, numbers included (`--timeout nan`, a port above 65535), are refused with
//! [`USAGE`] before anything is loaded or started.
//!
//! A closed standard output (`choreo check . | head`) ends the command with 141 (128 +
//! SIGPIPE, `cli::output::CLOSED`). A closed standard error changes nothing: its messages
//! (and the progress line) are dropped, and the command goes on to its usual exit code.

/// Success: all files valid, behaviors equal, output written.
pub const OK: u8 = 0;
/// A negative answer: `check` found invalid files, `diff` found differences.
pub const NO: u8 = 1;
/// Bad command-line arguments (from clap), or a path that does not exist; `plot` and
/// `motion`: a `--box` that names no timeline box with curves, several motion
/// timelines and no `--box` (`motion`), an image not named .png or .svg (`plot`).
pub const USAGE: u8 = 2;
/// `run --strict`: an error in box code stopped the behavior; or the engine crashed (a
/// bug of choreo's) and unloaded what it could.
pub const RUNTIME: u8 = 3;
/// An input could not be read or is not a valid behavior; `plot`, `motion`: it has no
/// motion timeline to show; `plot --trace`: a line is not a trace event, or no `joints`
/// event is there.
pub const LOAD: u8 = 4;
/// `run`: the behavior did not finish in time (`--timeout`, which counts from the load:
/// box constructors that sleep count too), or, in virtual time, it waits for events that
/// can never come.
pub const TIMEOUT: u8 = 5;
/// An output could not be written.
pub const WRITE: u8 = 6;
/// `run --robot` / `sim`: the robot could not be reached, or was lost (the behavior was
/// stopped); `sim`: the address could not be served.
pub const ROBOT: u8 = 7;
/// `run`: box code ended its process — `os._exit`, a signal it sent, a fatal error in native
/// code it called (a segmentation fault through `ctypes`) — or broke its protocol with
/// choreo, and the run reported it, where it could with the box and line
/// (docs/security.md).
pub const ABNORMAL: u8 = 8;
/// `run`: stopped by Ctrl-C (SIGINT); everything was unloaded first.
pub const INTERRUPTED: u8 = 130;
