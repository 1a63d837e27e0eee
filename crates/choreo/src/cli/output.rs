//! Output that survives a closed pipe: `choreo inspect x | head` must end quietly, not panic
//! as `println!` and `eprintln!` do when the reader is gone.
//!
//! Standard output carries the results: once its reader is gone the command exits with
//! [`CLOSED`]. Standard error carries messages only: a closed one drops them and the command
//! goes on to its usual exit code.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code when standard output was closed by its reader (128 + SIGPIPE, as shells
/// report a process a broken pipe ended).
pub const CLOSED: i32 = 141;

/// Set once stderr's reader is gone: later messages are not even tried.
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes formatted text to stdout; if the reader is gone, exits with [`CLOSED`].
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args)
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(CLOSED);
    }
}

/// Writes formatted text to stderr; any error drops the text, and a closed pipe stops every
/// later write.
pub fn write_err(args: std::fmt::Arguments<'_>) {
    if STDERR_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut err = std::io::stderr().lock();
    if let Err(e) = err.write_fmt(args)
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        STDERR_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `println!` through [`write`].
macro_rules! outln {
    () => { $crate::cli::output::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::output::write(format_args!($($arg)*)) };
}

/// `eprintln!` through [`write_err`]: never panics.
macro_rules! errln {
    () => { $crate::cli::output::write_err(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::output::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}
