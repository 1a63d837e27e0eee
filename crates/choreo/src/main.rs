//! `choreo`: run, check, inspect, convert, package, compare and plot Choregraphe behaviors
//! ([`choreo::cli`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    // Started as box code's process (the box host, docs/security.md): that, and nothing else.
    if let Some(code) = choreo_python::remote::serve_box_host() {
        std::process::exit(code);
    }
    // Box scripts use the standard library of the libpython choreo runs, whatever PATH,
    // PYTHONHOME or PYTHONPATH say: this runs choreo again with them set right if needed.
    if let Err(e) = choreo_python::use_own_standard_library() {
        eprintln!("cannot set the Python environment up: {e}");
    }
    // Every thread of the process (its servers, the simulated robot, box code's) inherits a
    // short time slice: hand-overs stay quick on a busy machine (choreo_base::slice).
    choreo_base::slice::ask_short_slice();
    ExitCode::from(choreo::cli::main(std::env::args_os()))
}
