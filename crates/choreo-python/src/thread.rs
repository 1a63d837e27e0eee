//! Keeping a Python thread state per thread. `Python::attach` on a thread the interpreter
//! does not know creates a thread state (`PyGILState_Ensure`) and destroys it when it
//! returns; in CPython 3.11 that is an allocation, a `gettid`, and an `mmap` + `munmap` of
//! the 16 KiB frame stack per call, and the `munmap` flushes the TLB of every CPU the
//! process runs on. Box hooks run on the engine's worker threads, which live as long as the
//! engine, and its load thread constructs every box: [`keep`] makes the thread state of such a
//! thread outlive each call, so every later `Python::attach` there only takes the interpreter
//! lock.
//!
//! The crate denies unsafe code (PyO3's macros keep it from the workspace's `forbid`); this file
//! is its one exception: two CPython calls, each with its SAFETY comment, since PyO3 has no safe
//! way to keep a thread state alive.

// PyO3 has no safe way to hold a thread's attachment beyond one closure: two FFI calls.
#![allow(unsafe_code)]

use std::cell::Cell;

use pyo3::ffi;
use pyo3::prelude::*;

/// Owns one extra `PyGILState_Ensure` of this thread; given back when the thread ends.
struct Kept(Cell<bool>);

impl Drop for Kept {
    fn drop(&mut self) {
        if !self.0.get() {
            return;
        }
        // Taken through PyO3, so that giving our count back drops the thread state in the
        // attachment's own release; skipped if the interpreter is gone.
        let _ = Python::try_attach(|_py| {
            // SAFETY: matches the `PyGILState_Ensure` of `keep` on this thread, made while
            // attached (so it returned LOCKED and releasing it leaves the lock alone); the
            // enclosing attachment still holds its own count, so the thread state survives
            // this call and is dropped when that attachment ends.
            unsafe { ffi::PyGILState_Release(ffi::PyGILState_STATE::PyGILState_LOCKED) };
        });
    }
}

thread_local! {
    static KEPT: Kept = const { Kept(Cell::new(false)) };
}

/// Keeps this thread's Python thread state alive until the thread ends. Called while
/// attached; cheap after the first call on a thread.
pub(crate) fn keep(_py: Python<'_>) {
    let _ = KEPT.try_with(|kept| {
        if !kept.0.get() {
            // SAFETY: the thread is attached (`_py`), so this only counts one more
            // attachment of its thread state (no lock taken, nothing created); the count
            // is given back when the thread-local is dropped.
            unsafe { ffi::PyGILState_Ensure() };
            kept.0.set(true);
        }
    });
}
