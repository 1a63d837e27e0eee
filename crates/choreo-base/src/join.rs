//! The threads an object starts and waits for at its end, so that once its `stop` (or its
//! drop) returns, none of them is still at work: a program that ends right after (a test, a
//! command) ends with its threads at rest. Wine, which runs the Windows tests here, crashed
//! about one time in 200 when a process ended while a thread of a qi server or session was
//! still closing its socket.
//!
//! As with the pool's workers ([`crate::pool`]), the wait is bounded: a thread that has not
//! ended by the deadline is left detached rather than hang the caller, and a thread never
//! waits for itself (an object stopped from one of its own threads).

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sync::lock;

/// Threads started for one object (see the module documentation).
#[derive(Debug, Default)]
pub struct ThreadSet {
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl ThreadSet {
    /// Starts thread `name` running `f`, kept to be waited for; the handles of threads that
    /// have ended are let go here, so a long-lived object keeps only its live ones.
    pub fn spawn(&self, name: &str, f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
        let handle = std::thread::Builder::new().name(name.into()).spawn(f)?;
        let mut handles = lock(&self.handles);
        handles.retain(|h| !h.is_finished());
        handles.push(handle);
        Ok(())
    }

    /// Waits until every thread kept has ended, or `timeout` has passed; returns how many
    /// were left detached (still running, or the calling thread itself). Threads started
    /// while it waits (one of the set starting another) are waited for too.
    pub fn join(&self, timeout: Duration) -> usize {
        let deadline = Instant::now().checked_add(timeout);
        let me = std::thread::current().id();
        let mut detached = 0;
        loop {
            // Taken out of the lock: a thread of the set may start another as it ends.
            let handles = std::mem::take(&mut *lock(&self.handles));
            if handles.is_empty() {
                return detached;
            }
            for h in handles {
                if h.thread().id() != me && wait_finished(&h, deadline) {
                    // A panic in the thread was its own to report; it has ended either way.
                    let _ = h.join();
                } else {
                    // Dropping the handle detaches the thread.
                    detached += 1;
                }
            }
        }
    }
}

/// Waits (polling: std has no timed join) until `handle`'s thread has ended, or `deadline`
/// (none: no limit).
pub fn wait_finished<T>(handle: &JoinHandle<T>, deadline: Option<Instant>) -> bool {
    while !handle.is_finished() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    #[test]
    fn join_returns_once_every_thread_has_ended() {
        let set = ThreadSet::default();
        let ended = Arc::new(AtomicUsize::new(0));
        for _ in 0..4 {
            let ended = Arc::clone(&ended);
            set.spawn("t", move || {
                std::thread::sleep(Duration::from_millis(20));
                ended.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        }
        assert_eq!(set.join(Duration::from_secs(60)), 0);
        assert_eq!(ended.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn a_thread_started_by_one_of_the_set_is_waited_for_too() {
        let set = Arc::new(ThreadSet::default());
        let ended = Arc::new(AtomicBool::new(false));
        let (inner, flag) = (Arc::clone(&set), Arc::clone(&ended));
        set.spawn("parent", move || {
            std::thread::sleep(Duration::from_millis(20));
            inner
                .spawn("child", move || {
                    std::thread::sleep(Duration::from_millis(20));
                    flag.store(true, Ordering::SeqCst);
                })
                .unwrap();
        })
        .unwrap();
        assert_eq!(set.join(Duration::from_secs(60)), 0);
        assert!(ended.load(Ordering::SeqCst));
    }

    #[test]
    fn a_thread_that_does_not_end_in_time_is_left_detached() {
        let set = ThreadSet::default();
        let release = Arc::new(AtomicBool::new(false));
        let r = Arc::clone(&release);
        set.spawn("stuck", move || {
            while !r.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .unwrap();
        assert_eq!(set.join(Duration::from_millis(10)), 1);
        release.store(true, Ordering::SeqCst);
    }

    #[test]
    fn a_thread_of_the_set_joining_it_does_not_wait_for_itself() {
        let set = Arc::new(ThreadSet::default());
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let inner = Arc::clone(&set);
        set.spawn("self", move || {
            // Once `spawn` has kept this thread's handle: it is in the set it joins.
            wait.recv().unwrap();
            tx.send(inner.join(Duration::from_secs(60))).unwrap();
        })
        .unwrap();
        go.send(()).unwrap();
        assert_eq!(rx.recv().unwrap(), 1);
    }
}
