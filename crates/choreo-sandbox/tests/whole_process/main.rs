//! Whole-process confinement's tests (Linux's namespaces, seccomp, process bounds: the
//! cases are in `linux.rs`, which says how they run). Elsewhere those means do not exist
//! (docs/platforms.md): this binary says so and passes.

#[cfg(target_os = "linux")]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    // No case to list (cargo-nextest asks with `--list`) nor to run.
    #[cfg(not(target_os = "linux"))]
    if !std::env::args().any(|a| a == "--list") {
        println!("whole_process: Linux's confinement is not on this platform; nothing to run");
    }
}
