//! Standard output that survives a closed pipe: `choreo inspect x | head` must end quietly,
//! not panic as `println!` does when the reader is gone.

use std::io::Write as _;

/// Exit code when standard output was closed by its reader (128 + SIGPIPE, as shells
/// report a process a broken pipe ended).
pub const CLOSED: i32 = 141;

/// Writes formatted text to stdout; if the reader is gone, exits with [`CLOSED`].
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args)
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(CLOSED);
    }
}

/// `println!` through [`write`].
macro_rules! outln {
    () => { $crate::output::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write(format_args!($($arg)*)) };
}
