//! The one lock helper of the workspace.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex, recovering the data if another thread panicked while holding it.
///
/// Why recover rather than propagate the panic: box code, robot services and qi handlers run
/// on threads a panic may end, and choreo must survive them and report. Every critical
/// section in choreo leaves its state consistent before anything that can panic, so the data
/// behind a poisoned lock is still good.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_still_gives_its_data() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = std::sync::Arc::clone(&m);
        let _ = std::thread::spawn(move || {
            let mut g = held.lock().unwrap_or_else(PoisonError::into_inner);
            *g = 2;
            panic!("a box's thread ends while holding the lock");
        })
        .join();
        assert!(m.is_poisoned());
        assert_eq!(*lock(&m), 2);
    }
}
