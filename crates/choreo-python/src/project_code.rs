//! The project's code that is no box's — a dialog's `%script`, a stack's Python behavior —
//! confined as box code is (docs/security.md): on a thread of its own, confined in the
//! kernel for its life and judged by Python's audit hook.

use std::sync::Arc;

use crate::confinement::{Confinement, judge_here};

/// No thread could start for project code.
#[derive(Debug, thiserror::Error)]
#[error("cannot start a confined thread: {0}")]
pub struct NoThread(#[from] std::io::Error);

/// Makes this thread, for the rest of its life, one of project code under `confinement`:
/// confined in the kernel and judged by Python's hooks as box code is. For a thread of its
/// own (it never does choreo's work after).
pub fn judge_this_thread(confinement: &Arc<Confinement>) {
    // The interpreter set up first: its audit hook judges, and its folders are known to
    // the kernel's rules. (A failed set-up is the work's to meet and report.)
    pyo3::Python::attach(|py| {
        let _ = crate::runtime::runtime(py);
    });
    confinement.confine_this_thread();
    judge_here(confinement);
}

/// Runs `work`, project code that is no box's, under `confinement`: on a thread of its own
/// that [`judge_this_thread`]; unconfined (`None`), here.
pub fn confined_run<T: Send>(
    confinement: Option<&Arc<Confinement>>,
    work: impl FnOnce() -> T + Send,
) -> Result<T, NoThread> {
    match confinement {
        None => Ok(work()),
        Some(c) => on_a_thread_of_its_own("choreo-project-code", || judge_this_thread(c), work),
    }
}

/// Runs `work` on a new thread named `name`, after `confine` there, and waits for it. The
/// thread knows whether the caller's was confined (the kernel's rules are inherited: they
/// are not stacked again).
pub(crate) fn on_a_thread_of_its_own<T: Send>(
    name: &str,
    confine: impl FnOnce() + Send,
    work: impl FnOnce() -> T + Send,
) -> Result<T, NoThread> {
    let inherited = choreo_sandbox::landlock::this_thread_confined();
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn_scoped(scope, || {
                choreo_sandbox::landlock::inherit(inherited);
                confine();
                work()
            })?;
        // A panic in `work` is the caller's, as if it had run here.
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}
