//! The engine's time as seen by everything that runs beside the control thread: box hooks on
//! workers, and work a robot does in the background (a `post`ed `say`, a scenario event due
//! at some time).
//!
//! Virtual time may only jump when every such activity waits on the clock, so each one is
//! counted here while it runs; a sleep through [`Activity::sleep_until`] tells the control
//! thread the activity now waits on the clock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::clock::{Clock, RealClock, Time};

thread_local! {
    /// True on the control thread, where inline box code runs and must never sleep.
    pub(crate) static ON_CONTROL_THREAD: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// How long, in real time, the control thread waits for an activity to finish or sleep on
/// the virtual clock before letting it run on its own (one blocked on something else).
const YIELD_WAIT: Duration = Duration::from_secs(2);

/// How long the control thread spins, in real time, for an activity to yield before it
/// sleeps (see [`Activity::wait_for_yield`]).
const YIELD_SPIN: Duration = Duration::from_micros(50);

/// The clock of one engine, and the count of activities running beside its control thread.
pub struct Activity {
    clock: Arc<dyn Clock>,
    virtual_time: bool,
    /// Activities started and not finished (including those sleeping on the clock).
    in_flight: AtomicUsize,
    /// Signalled when an activity finishes or starts sleeping.
    progress: (Mutex<u64>, Condvar),
}

impl Activity {
    pub(crate) fn new(clock: Arc<dyn Clock>, virtual_time: bool) -> Arc<Activity> {
        Arc::new(Activity {
            clock,
            virtual_time,
            in_flight: AtomicUsize::new(0),
            progress: (Mutex::new(0), Condvar::new()),
        })
    }

    /// Real time with no engine: for a robot that runs on its own (served over qi, say).
    /// Fails only if the clock thread cannot start.
    pub fn real() -> std::io::Result<Arc<Activity>> {
        let clock = RealClock::new(Arc::new(|_| {}))?;
        Ok(Activity::new(clock, false))
    }

    /// Whether time is virtual (jumps when everything waits on the clock).
    pub fn is_virtual(&self) -> bool {
        self.virtual_time
    }

    /// Now, in behavior time.
    pub fn now(&self) -> Time {
        self.clock.now()
    }

    /// Sleeps until `deadline` of behavior time. The caller must be a counted activity (a
    /// hook, or a thread from [`Activity::spawn`]); on the control thread it returns at once,
    /// as sleeping there would stop everything.
    pub fn sleep_until(&self, deadline: Time) {
        if ON_CONTROL_THREAD.with(std::cell::Cell::get) {
            return;
        }
        self.notify_progress();
        self.clock.sleep_until(deadline);
    }

    /// Sleeps for `d` of behavior time (see [`Activity::sleep_until`]).
    pub fn sleep(&self, d: Duration) {
        let deadline = Time(self.now().0.saturating_add(d.as_nanos() as u64));
        self.sleep_until(deadline);
    }

    /// Runs `work` on a new thread counted as an activity until it returns, so virtual time
    /// waits for it (or for its sleeps). Fails only if the thread cannot start.
    pub fn spawn(
        self: &Arc<Self>,
        name: &str,
        work: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<()> {
        let base = self.busy();
        self.begin();
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                // Counted down even if `work` panics: a lost count would freeze virtual time.
                let _done = Finished(&me);
                work();
            });
        if let Err(e) = spawned {
            self.end();
            return Err(e);
        }
        if self.virtual_time && ON_CONTROL_THREAD.with(std::cell::Cell::get) {
            self.wait_for_yield(base);
        }
        Ok(())
    }

    /// Counts one more activity until the returned guard is dropped (also on unwinding: a
    /// lost count would freeze virtual time). For work handed to another thread.
    pub(crate) fn counted(self: &Arc<Self>) -> Counted {
        self.begin();
        Counted(Arc::clone(self))
    }

    /// One more activity runs.
    pub(crate) fn begin(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
    }

    /// One activity finished.
    pub(crate) fn end(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.notify_progress();
    }

    /// Whether any activity was started and has not finished.
    pub(crate) fn any_in_flight(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
    }

    /// Activities running right now: started, not finished, not sleeping on the clock.
    pub(crate) fn busy(&self) -> usize {
        self.in_flight
            .load(Ordering::SeqCst)
            .saturating_sub(self.clock.sleepers())
    }

    /// Virtual time: waits (up to [`YIELD_WAIT`] of real time) until at most `base`
    /// activities are running, i.e. the one just started or woken has finished or sleeps on
    /// the clock. Polled, as a sleeper is counted by the clock a moment after it signals.
    pub(crate) fn wait_for_yield(&self, base: usize) {
        crate::trace::flush_thread_buffer();
        // Most hooks return or sleep within microseconds: poll a little before sleeping on
        // the condition variable, as waking a sleeping thread costs far more on a VM.
        // Yielding (not spinning) lets the hook's thread run when it shares our CPU.
        let spin = std::time::Instant::now() + YIELD_SPIN;
        while self.busy() > base && std::time::Instant::now() < spin {
            std::thread::yield_now();
        }
        let deadline = std::time::Instant::now() + YIELD_WAIT;
        let (lock, cv) = &self.progress;
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while self.busy() > base && std::time::Instant::now() < deadline {
            guard = cv
                .wait_timeout(guard, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn notify_progress(&self) {
        let (lock, cv) = &self.progress;
        let mut n = lock.lock().unwrap_or_else(PoisonError::into_inner);
        *n += 1;
        cv.notify_all();
    }

    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

/// See [`Activity::counted`].
pub(crate) struct Counted(Arc<Activity>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Ends an activity when dropped (also on unwinding).
struct Finished<'a>(&'a Activity);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}
