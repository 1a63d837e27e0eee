//! Time for the engine: real (absolute deadlines on a dedicated thread) or virtual
//! (discrete-event: time jumps to the next deadline when everything waits on the clock).
//!
//! Both give the same trace for the same behavior; virtual time is just faster, and makes
//! every test deterministic.
//!
//! A clock's sleepers can be released ([`Clock::release_sleepers`]): those asleep wake at once,
//! and later sleeps return at once (a time limit passed during construction: the load gives up)
//! or take their length in real time (the engine is gone: box code that outlives it sleeps, it
//! does not spin).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use choreo_base::lock;

/// A point in behavior time: nanoseconds since the clock started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

impl Time {
    /// `n` frames after `start` at `fps` frames per second (exact: no accumulated rounding).
    pub fn frame_deadline(start: Time, n: u64, fps: u32) -> Time {
        let fps = u64::from(fps.max(1));
        let whole = n / fps;
        let part = n % fps;
        // Saturating: a deadline past ~584 years is "never", not a panic.
        Time(
            start
                .0
                .saturating_add(whole.saturating_mul(1_000_000_000))
                .saturating_add(part * 1_000_000_000 / fps),
        )
    }

    /// Seconds, for display.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

/// Identifies a scheduled wake-up, so it can be cancelled; chosen by the caller.
pub type TimerToken = u64;

/// Where a clock delivers wake-ups: called (from the clock's thread, or from
/// [`Clock::on_idle`]) once per scheduled token whose deadline has come.
pub type WakeSink = Arc<dyn Fn(TimerToken) + Send + Sync>;

/// The engine's view of time.
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> Time;

    /// Asks for the sink to be called with `token` at or after `deadline`.
    fn schedule(&self, deadline: Time, token: TimerToken);

    /// Forgets a scheduled wake-up (no effect if it already fired).
    fn cancel(&self, token: TimerToken);

    /// Blocks the calling worker thread until `deadline`. In virtual time such a thread counts
    /// as waiting on the clock (see [`Clock::sleepers`]), so time may jump past it.
    fn sleep_until(&self, deadline: Time);

    /// [`Clock::sleep_until`], calling `asleep` with the sleep's ticket once the sleep is
    /// registered (virtual time: counted among the [`Clock::sleepers`], its place among those
    /// due at the same instant taken) and before the thread blocks; not called when the
    /// sleep returns at once. The ticket lets another thread cut the sleep short
    /// ([`Clock::cut_short`]).
    fn sleep_until_then(&self, deadline: Time, asleep: &mut dyn FnMut(u64)) {
        if deadline > self.now() {
            asleep(0);
        }
        self.sleep_until(deadline);
    }

    /// Virtual time: the sleep of `ticket` (see [`Clock::sleep_until_then`]) ends now, if it
    /// has not. Real time: no effect (the sleep ends at its deadline).
    fn cut_short(&self, ticket: u64) {
        let _ = ticket;
    }

    /// How many threads are blocked in [`Clock::sleep_until`] right now (always 0 for real
    /// time, where nobody needs to know).
    fn sleepers(&self) -> usize;

    /// The earliest deadline pending (a scheduled token or a sleeper), if any. Virtual time
    /// only: real time returns `None`.
    fn next_due(&self) -> Option<Time> {
        None
    }

    /// Virtual time: moves now forward to `t` without delivering anything (nothing may be
    /// due before `t`); used to stop exactly at a time limit. Real time: no effect.
    fn advance_to(&self, t: Time) {
        let _ = t;
    }

    /// Called by the engine when it has nothing to do and every running hook is one of the
    /// [`Clock::sleepers`]: virtual time jumps to the earliest deadline (scheduled token or
    /// sleeper), delivers what is due and wakes who is due, and returns true; real time
    /// returns false (time passes by itself). Returns false when nothing is pending.
    fn on_idle(&self) -> bool;

    /// Wakes every thread sleeping in [`Clock::sleep_until`] now, because box code must not
    /// sleep on a clock that will not move again; `later` says what sleeps do from then on.
    fn release_sleepers(&self, later: Later);
}

// ------------------------------------------------------------------------------------------
// Shared pieces

/// What a sleep on a released clock does (see [`Clock::release_sleepers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Later {
    /// Returns at once: the time limit passed while boxes were being constructed, and the
    /// load is giving up (the rest of a constructor runs through without waiting).
    AtOnce,
    /// Takes its length in real time (see `after_release`): the engine is gone, and box
    /// code that outlives it (a thread of its own, a hook that never returns) goes on as on
    /// a robot: a loop that sleeps between polls sleeps, it does not spin.
    RealTime,
}

/// A sleep until `deadline` on a released clock whose time stands at `now`: the remaining
/// behavior time, slept in real time (a sleep of 0.2 s in a polling loop takes 0.2 s; time
/// no longer moves, so each turn asks for its full length).
fn after_release(now: Time, deadline: Time) {
    if deadline > now {
        std::thread::sleep(Duration::from_nanos(deadline.0 - now.0));
    }
}

/// Pending wake-ups in firing order: by deadline, then by scheduling order (ties are
/// deterministic). An ordered map rather than a binary heap so that `cancel` removes the
/// entries at once instead of leaving tombstones.
#[derive(Debug, Default)]
struct TimerQueue {
    next_seq: u64,
    order: BTreeMap<(Time, u64), TimerToken>,
    by_token: HashMap<TimerToken, Vec<(Time, u64)>>,
}

impl TimerQueue {
    fn push(&mut self, deadline: Time, token: TimerToken) {
        let key = (deadline, self.next_seq);
        self.next_seq += 1;
        self.order.insert(key, token);
        self.by_token.entry(token).or_default().push(key);
    }

    fn cancel(&mut self, token: TimerToken) {
        for key in self.by_token.remove(&token).unwrap_or_default() {
            self.order.remove(&key);
        }
    }

    fn earliest(&self) -> Option<Time> {
        self.order
            .first_key_value()
            .map(|(&(deadline, _), _)| deadline)
    }

    /// Removes and returns the first token whose deadline is at or before `now`.
    fn pop_due(&mut self, now: Time) -> Option<TimerToken> {
        let (&key, &token) = self.order.first_key_value()?;
        if key.0 > now {
            return None;
        }
        self.order.remove(&key);
        if let Some(keys) = self.by_token.get_mut(&token) {
            keys.retain(|k| *k != key);
            if keys.is_empty() {
                self.by_token.remove(&token);
            }
        }
        Some(token)
    }
}

// ------------------------------------------------------------------------------------------
// Real time

/// The priority the frame clock thread asks for, or got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Priority {
    /// `SCHED_FIFO` with this static priority (1–99); needs root or `CAP_SYS_NICE`.
    Fifo(u8),
    /// `SCHED_OTHER` with this nice value (lowering it below 0 needs privileges too).
    Nice(i32),
    /// Whatever the thread inherited; nothing is asked.
    Inherited,
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Priority::Fifo(p) => write!(f, "SCHED_FIFO {p}"),
            Priority::Nice(n) => write!(f, "SCHED_OTHER nice {n}"),
            Priority::Inherited => f.write_str("SCHED_OTHER (inherited)"),
        }
    }
}

/// How the frame clock thread is actually scheduled (why it matters: the frame
/// clock's punctuality, T3 in `docs/runtime-rules.md`, measured in `docs/benchmarks.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scheduling {
    /// What was asked for.
    pub requested: Priority,
    /// What the thread got: the request, or a fallback (`Nice(-15)`, then `Inherited`).
    pub got: Priority,
    /// Whether the thread's timer slack is 1 ns (else the kernel default, usually 50 µs).
    pub timer_slack_1ns: bool,
}

impl Scheduling {
    /// True when the thread runs under `SCHED_FIFO`.
    pub fn is_fifo(&self) -> bool {
        matches!(self.got, Priority::Fifo(_))
    }
}

impl fmt::Display for Scheduling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.got)?;
        if self.got != self.requested {
            write!(f, " (fallback: {} refused)", self.requested)?;
        }
        let slack = if self.timer_slack_1ns {
            "1 ns"
        } else {
            "default"
        };
        write!(f, ", timer slack {slack}")
    }
}

/// The nice value tried when `SCHED_FIFO` is refused (the `clock` benchmarks of
/// `docs/benchmarks.md`; T3 in `docs/runtime-rules.md`).
const FALLBACK_NICE: i32 = -15;

/// Tunes the calling thread for punctual wake-ups: timer slack 1 ns, then the requested
/// priority, falling back to nice −15 and then to what the thread already has. Never fails.
fn tune_current_thread(requested: Priority) -> Scheduling {
    use choreo_base::thread::{punctual_timers, set_nice, set_realtime};
    let timer_slack_1ns = punctual_timers();
    let try_nice = set_nice;
    let try_fifo = set_realtime;
    let got = match requested {
        Priority::Fifo(p) if try_fifo(p) => requested,
        Priority::Nice(n) if try_nice(n) => requested,
        Priority::Fifo(_) if try_nice(FALLBACK_NICE) => Priority::Nice(FALLBACK_NICE),
        _ => Priority::Inherited,
    };
    // Under SCHED_FIFO the slice does not apply; otherwise a short one wakes it sooner.
    choreo_base::slice::ask_short_slice();
    Scheduling {
        requested,
        got,
        timer_slack_1ns,
    }
}

struct RealState {
    queue: TimerQueue,
    stop: bool,
}

/// What the clock and its timer thread share (the thread does not own the [`RealClock`], so
/// dropping the last handle stops it).
struct RealShared {
    origin: Instant,
    state: Mutex<RealState>,
    /// Signalled when an earlier deadline is scheduled, or on stop.
    changed: Condvar,
    sink: WakeSink,
}

impl RealShared {
    fn now(&self) -> Time {
        Time(u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The timer thread: waits for the earliest absolute deadline, delivers what is due.
    fn run(&self) {
        let mut state = lock(&self.state);
        loop {
            if state.stop {
                return;
            }
            let now = self.now();
            if let Some(token) = state.queue.pop_due(now) {
                // Deliver without the lock: the sink may schedule or cancel.
                drop(state);
                // A panicking sink must not kill the clock; the panic hook has reported it.
                let _ = catch_unwind(AssertUnwindSafe(|| (self.sink)(token)));
                state = lock(&self.state);
                continue;
            }
            state = match state.queue.earliest() {
                None => self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner),
                // The remaining time is recomputed from the absolute deadline after every
                // wake-up (spurious, early, or a new schedule), so nothing accumulates.
                Some(deadline) => {
                    let remaining = Duration::from_nanos(deadline.0.saturating_sub(now.0));
                    match self.changed.wait_timeout(state, remaining) {
                        Ok((guard, _)) => guard,
                        Err(poisoned) => poisoned.into_inner().0,
                    }
                }
            };
        }
    }
}

/// Real time: a dedicated timer thread waits for absolute deadlines (never a relative
/// period, so there is no drift) and calls the sink for each due token.
///
/// The thread asks for timer slack 1 ns and `SCHED_FIFO` 50 (see [`RealClock::scheduling`]
/// for what it got). The sink runs on that thread, possibly at real-time priority: it must be
/// short (push to a queue and return). A sink that panics loses that delivery only. Scheduling
/// a token twice gives two wake-ups; [`Clock::cancel`] forgets all of them. Dropping the clock
/// stops and joins the thread; pending wake-ups are discarded.
pub struct RealClock {
    shared: Arc<RealShared>,
    thread: Option<JoinHandle<()>>,
    scheduling: Scheduling,
    /// Set by [`Clock::release_sleepers`]; sleepers wait on its condition variable.
    released: (Mutex<Option<Later>>, Condvar),
}

impl RealClock {
    /// The default priority asked for the timer thread.
    pub const DEFAULT_PRIORITY: Priority = Priority::Fifo(50);

    /// Starts a clock whose thread asks for [`RealClock::DEFAULT_PRIORITY`]. Fails only if
    /// the thread cannot be spawned.
    pub fn new(sink: WakeSink) -> std::io::Result<Arc<RealClock>> {
        Self::with_priority(sink, Self::DEFAULT_PRIORITY)
    }

    /// Starts a clock whose thread asks for `priority` (falling back as [`Scheduling`] says).
    pub fn with_priority(sink: WakeSink, priority: Priority) -> std::io::Result<Arc<RealClock>> {
        let shared = Arc::new(RealShared {
            origin: Instant::now(),
            state: Mutex::new(RealState {
                queue: TimerQueue::default(),
                stop: false,
            }),
            changed: Condvar::new(),
            sink,
        });
        let (tuned_tx, tuned_rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("choreo-clock".into())
            .spawn(move || {
                let _ = tuned_tx.send(tune_current_thread(priority));
                thread_shared.run();
            })?;
        let scheduling = tuned_rx.recv().unwrap_or(Scheduling {
            requested: priority,
            got: Priority::Inherited,
            timer_slack_1ns: false,
        });
        Ok(Arc::new(RealClock {
            shared,
            thread: Some(thread),
            scheduling,
            released: (Mutex::new(None), Condvar::new()),
        }))
    }

    /// How the timer thread is scheduled (`SCHED_FIFO` or a fallback, and its timer slack).
    pub fn scheduling(&self) -> Scheduling {
        self.scheduling
    }
}

impl Clock for RealClock {
    fn now(&self) -> Time {
        self.shared.now()
    }

    fn schedule(&self, deadline: Time, token: TimerToken) {
        let mut state = lock(&self.shared.state);
        let earlier = state.queue.earliest().is_none_or(|first| deadline < first);
        state.queue.push(deadline, token);
        if earlier {
            self.shared.changed.notify_one();
        }
    }

    fn cancel(&self, token: TimerToken) {
        // No need to wake the thread: at worst it wakes at the cancelled deadline, finds
        // nothing due and waits again.
        lock(&self.shared.state).queue.cancel(token);
    }

    fn sleep_until(&self, deadline: Time) {
        let (lock_released, cv) = &self.released;
        let mut released = lock(lock_released);
        if *released == Some(Later::RealTime) {
            // Real time goes on by itself: the sleep is the same, only no longer cut short.
            drop(released);
            after_release(self.now(), deadline);
            return;
        }
        loop {
            let now = self.now();
            if now >= deadline || released.is_some() {
                return;
            }
            released = match cv.wait_timeout(released, Duration::from_nanos(deadline.0 - now.0)) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    fn sleepers(&self) -> usize {
        0
    }

    fn on_idle(&self) -> bool {
        false
    }

    fn release_sleepers(&self, later: Later) {
        let (released, cv) = &self.released;
        *lock(released) = Some(later);
        cv.notify_all();
    }
}

impl Drop for RealClock {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.changed.notify_all();
        if let Some(thread) = self.thread.take() {
            // Dropped from the sink, on the timer thread itself: it cannot join itself; it
            // sees `stop` as soon as the sink returns and ends.
            if thread.thread().id() != thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

impl fmt::Debug for RealClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RealClock")
            .field("now", &self.now())
            .field("scheduling", &self.scheduling)
            .finish_non_exhaustive()
    }
}

// ------------------------------------------------------------------------------------------
// Virtual time

#[derive(Debug, Default)]
struct VirtualState {
    now: Time,
    queue: TimerQueue,
    /// Threads blocked in `sleep_until`: (deadline, ticket), and the condition variable the
    /// thread waits on. One per sleeper, so that waking one wakes no other: a behavior with
    /// many threads asleep woke all of them at every wake-up, each to see it was not its
    /// turn (hundreds of thousands of context switches a run).
    sleeping: BTreeMap<(Time, u64), Arc<Condvar>>,
    /// See [`Clock::release_sleepers`].
    released: Option<Later>,
    next_ticket: u64,
}

/// Virtual time (discrete events): time stands still until the engine reports, through
/// [`Clock::on_idle`], that everything waits on the clock; then it jumps to the earliest
/// deadline. Same calls, same results: ties fire in scheduling order.
///
/// [`Clock::sleep_until`] is for worker threads: called from the thread that calls
/// [`Clock::on_idle`], it would wait forever. As with [`RealClock`], scheduling a token twice
/// gives two wake-ups, and [`Clock::cancel`] forgets all of them.
pub struct VirtualClock {
    state: Mutex<VirtualState>,
    /// `state.now`, readable without the lock (every trace event reads the time).
    now: std::sync::atomic::AtomicU64,
    /// `state.sleeping.len()`, readable without the lock (the engine polls it while it
    /// waits for a hook to return or sleep).
    sleepers: std::sync::atomic::AtomicUsize,
    sink: WakeSink,
}

impl VirtualClock {
    /// A virtual clock at time 0 delivering to `sink` (from [`Clock::on_idle`], on the
    /// caller's thread).
    pub fn new(sink: WakeSink) -> Arc<VirtualClock> {
        Arc::new(VirtualClock {
            state: Mutex::new(VirtualState::default()),
            now: std::sync::atomic::AtomicU64::new(0),
            sleepers: std::sync::atomic::AtomicUsize::new(0),
            sink,
        })
    }
}

impl Clock for VirtualClock {
    #[inline]
    fn now(&self) -> Time {
        Time(self.now.load(std::sync::atomic::Ordering::Acquire))
    }

    fn schedule(&self, deadline: Time, token: TimerToken) {
        lock(&self.state).queue.push(deadline, token);
    }

    fn cancel(&self, token: TimerToken) {
        lock(&self.state).queue.cancel(token);
    }

    fn sleep_until(&self, deadline: Time) {
        self.sleep_until_then(deadline, &mut |_| {});
    }

    fn cut_short(&self, ticket: u64) {
        let mut state = lock(&self.state);
        let Some(&entry) = state.sleeping.keys().find(|(_, t)| *t == ticket) else {
            return;
        };
        if let Some(woken) = state.sleeping.remove(&entry) {
            woken.notify_one();
        }
        self.sleepers
            .store(state.sleeping.len(), std::sync::atomic::Ordering::Release);
    }

    fn sleep_until_then(&self, deadline: Time, asleep: &mut dyn FnMut(u64)) {
        let mut state = lock(&self.state);
        if deadline <= state.now {
            return;
        }
        match state.released {
            None => {}
            Some(Later::AtOnce) => return,
            Some(Later::RealTime) => {
                let now = state.now;
                drop(state);
                after_release(now, deadline);
                return;
            }
        }
        let ticket = (deadline, state.next_ticket);
        state.next_ticket += 1;
        let woken = Arc::new(Condvar::new());
        state.sleeping.insert(ticket, Arc::clone(&woken));
        self.sleepers
            .store(state.sleeping.len(), std::sync::atomic::Ordering::Release);
        drop(state);
        asleep(ticket.1);
        state = lock(&self.state);
        // `on_idle` removes the ticket (so the count drops before it returns) and notifies.
        while state.sleeping.contains_key(&ticket) {
            state = woken.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn sleepers(&self) -> usize {
        self.sleepers.load(std::sync::atomic::Ordering::Acquire)
    }

    fn next_due(&self) -> Option<Time> {
        let state = lock(&self.state);
        let first_sleeper = state.sleeping.keys().next().map(|&(deadline, _)| deadline);
        match (state.queue.earliest(), first_sleeper) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn advance_to(&self, t: Time) {
        let mut state = lock(&self.state);
        if t > state.now {
            state.now = t;
            self.now.store(t.0, std::sync::atomic::Ordering::Release);
        }
    }

    /// Jumps to the earliest pending deadline (never backwards), delivers every token due
    /// then (deadline order, ties in scheduling order; the sink is called without any lock,
    /// so it may schedule or cancel, and a token it schedules at or before the new time is
    /// delivered in the same call), then wakes the first sleeper due (removing it from
    /// [`Clock::sleepers`] before returning); further sleepers due at the same instant are
    /// woken by the next calls, one per call.
    fn on_idle(&self) -> bool {
        let mut state = lock(&self.state);
        let first_sleeper = state.sleeping.keys().next().map(|&(deadline, _)| deadline);
        let next = match (state.queue.earliest(), first_sleeper) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return false,
        };
        state.now = state.now.max(next);
        let now = state.now;
        self.now.store(now.0, std::sync::atomic::Ordering::Release);
        while let Some(token) = state.queue.pop_due(now) {
            drop(state);
            (self.sink)(token);
            state = lock(&self.state);
        }
        // One sleeper at a time (the earliest, ties in the order they slept), so the engine
        // can let it run until it yields before waking the next: virtual time stays
        // deterministic. The next call wakes the next one due at the same instant.
        if state
            .sleeping
            .keys()
            .next()
            .is_some_and(|first| first.0 <= now)
            && let Some((_, woken)) = state.sleeping.pop_first()
        {
            self.sleepers
                .store(state.sleeping.len(), std::sync::atomic::Ordering::Release);
            woken.notify_one();
        }
        true
    }

    fn release_sleepers(&self, later: Later) {
        self.release(later);
    }
}

impl VirtualClock {
    fn release(&self, later: Later) {
        let mut state = lock(&self.state);
        state.released = Some(later);
        for woken in std::mem::take(&mut state.sleeping).into_values() {
            woken.notify_one();
        }
        self.sleepers.store(0, std::sync::atomic::Ordering::Release);
    }
}

impl fmt::Debug for VirtualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.state);
        f.debug_struct("VirtualClock")
            .field("now", &state.now)
            .field("pending", &state.queue.order.len())
            .field("sleepers", &state.sleeping.len())
            .finish_non_exhaustive()
    }
}
