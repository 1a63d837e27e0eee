//! A pool of worker threads for jobs that may block (box hooks: a `say` waits for the speech
//! to end; qi methods: a call lasts as long as the robot action it starts).
//!
//! The policy, shared by the engine and the qi server:
//!
//! - an idle worker takes a job at once; with none idle, a new thread starts for it, up to
//!   [`PoolOptions::max_threads`]; past that the job waits in the pool's queue
//!   ([`Started::Queued`]) until a worker frees;
//! - a worker that stays idle for [`PoolOptions::idle_timeout`] retires;
//! - [`Pool::shutdown`] (or dropping the pool) drops the jobs no worker has started and joins
//!   the workers, waiting at most [`PoolOptions::join_timeout`]: a job that never returns
//!   leaves its thread detached instead of hanging the caller.
//!
//! All the bookkeeping (queue, counts, handles) sits behind one mutex that is never held while
//! a job runs, so reserving an idle worker, retiring one and queueing a job cannot race: a
//! job is either claimed by a worker that will run it, or reported back to the caller.
//!
//! A worker that has just finished a job watches the queue for a few microseconds before it
//! sleeps, so a chain of jobs (hooks handing over to hooks) goes on without a wake-up.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::join::wait_finished;
use crate::sync::lock;
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};

/// Work for a pool: runs once on a worker thread.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long [`Pool::shutdown`] still waits, past [`PoolOptions::join_timeout`], for a worker
/// that has already said it exits (it only has its thread's teardown left) before detaching it.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// How a [`Pool`] grows, shrinks and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most worker threads alive at once (0 counts as 1). Default 256: hooks and methods
    /// mostly wait (on speech, motion, the network), so many may be in flight, but a runaway
    /// behavior must not start thousands of threads.
    pub max_threads: usize,
    /// How long a worker waits for a job before it retires. Default 10 s: long enough that a
    /// behavior calling hooks every few seconds keeps its threads, short enough that a burst
    /// does not leave hundreds of threads behind.
    pub idle_timeout: Duration,
    /// How long [`Pool::shutdown`] waits for busy workers to finish their job. Default 5 s;
    /// workers still busy then are left detached (a job blocked forever must not hang the
    /// shutdown).
    pub join_timeout: Duration,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            max_threads: 256,
            idle_timeout: Duration::from_secs(10),
            join_timeout: Duration::from_secs(5),
        }
    }
}

/// How [`Pool::run`] placed a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// A worker (idle or new) runs it now.
    Now,
    /// Every worker is busy and no thread may (or could) start: the job waits in the queue
    /// until a worker frees. Callers may warn, since the job's caller now waits on others.
    Queued,
}

/// Why [`Pool::run`] did not take a job; each case gives the job back, to run it elsewhere
/// (on the calling thread, say) or to report it.
#[derive(thiserror::Error)]
pub enum PoolError {
    /// No worker exists and a new thread could not start.
    #[error("cannot start a worker thread: {error}")]
    Spawn {
        /// Why the thread did not start.
        #[source]
        error: std::io::Error,
        /// The job, not run.
        job: Job,
    },
    /// The pool was closed ([`Pool::close`], [`Pool::shutdown`]).
    #[error("the worker pool is closed")]
    Closed {
        /// The job, not run.
        job: Job,
    },
}

impl PoolError {
    /// The job that was not run.
    pub fn into_job(self) -> Job {
        match self {
            PoolError::Spawn { job, .. } | PoolError::Closed { job } => job,
        }
    }
}

impl std::fmt::Debug for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolError::Spawn { error, .. } => f
                .debug_struct("Spawn")
                .field("error", error)
                .finish_non_exhaustive(),
            PoolError::Closed { .. } => f.debug_struct("Closed").finish_non_exhaustive(),
        }
    }
}

/// What [`Pool::shutdown`] did with the workers alive when the pool closed (at
/// [`Pool::close`] or at the shutdown, whichever came first): `joined + detached` is their
/// number. Workers that retired before are joined too, without being counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shutdown {
    /// Workers that ended within [`PoolOptions::join_timeout`] and were joined.
    pub joined: usize,
    /// Workers still running a job at the deadline (or the thread calling shutdown, when a
    /// job drops its own pool), left to end on their own.
    pub detached: usize,
    /// Queued jobs no worker had started, dropped unrun (counting those dropped by an
    /// earlier [`Pool::close`]).
    pub dropped: usize,
}

/// A worker thread as the pool keeps it.
struct Worker {
    n: usize,
    thread: ThreadId,
    handle: JoinHandle<()>,
    /// Set by the worker, under the lock, as the last thing it does before its thread ends.
    exited: bool,
    /// Alive when the pool closed: reported on by [`Pool::shutdown`].
    at_close: bool,
}

struct State {
    /// Jobs not yet taken by a worker. The first `waiting` of them are claimed by waiting
    /// workers (about to take them); the rest wait for a worker to free.
    queue: VecDeque<Job>,
    /// Workers alive (including one being started).
    threads: usize,
    /// Workers not running a job: waiting for one, or about to take one from the queue.
    waiting: usize,
    /// Waiting workers asleep on the `work` signal (the others are spinning, see [`spin`]).
    sleeping: usize,
    closed: bool,
    dropped: usize,
    /// Number of the next thread started (for its name).
    next: usize,
    workers: Vec<Worker>,
}

struct Shared {
    state: Mutex<State>,
    /// The queue's length as of the last change, readable without the lock: a worker that
    /// just finished a job watches it for a short while before it sleeps (see [`spin`]).
    queued: AtomicUsize,
    /// Workers whose job called [`finishing`] and has not returned yet: they take the next
    /// queued job instead of a new thread being started for it. Raised without the lock (the
    /// hint is on the hot path of every hook), lowered under it; read under it by
    /// [`Pool::run`]: a stale read only starts a thread that was not needed.
    finishing: AtomicUsize,
    /// Signalled when a job is queued for a waiting worker, or the pool closes.
    work: Condvar,
    /// Signalled when a worker exits.
    exit: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Publishes the queue's length for spinning workers; called under the lock after every
    /// change to the queue.
    fn published(&self, st: &State) {
        self.queued.store(st.queue.len(), Ordering::Release);
    }
}

/// A pool of worker threads (see the module documentation).
///
/// **The queue is unbounded**, because refusing a job would leave its caller with nothing
/// better to do than run it itself. Its growth is bounded by its users: jobs are only queued
/// past [`PoolOptions::max_threads`] busy workers, and each queued job is a hook (or a qi call)
/// whose operation waits for it, so the queue holds at most the operations in flight.
///
/// A job that panics does not take its worker down: the worker catches the panic (after the
/// panic hook has printed it) and goes on serving, so [`Pool::threads`] and [`Pool::idle`]
/// stay right. Callers that need the panic's message catch it themselves (the engine does).
pub struct Pool {
    name: String,
    options: PoolOptions,
    shared: Arc<Shared>,
    /// Set once the workers have been joined (by [`Pool::shutdown`] or drop).
    finished: bool,
}

impl Pool {
    /// A pool with no threads yet; its threads are named `"{name}-{n}"`, `n` counting from 1.
    pub fn new(name: &str, options: PoolOptions) -> Pool {
        Pool {
            name: name.to_string(),
            options: PoolOptions {
                max_threads: options.max_threads.max(1),
                ..options
            },
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    threads: 0,
                    waiting: 0,
                    sleeping: 0,
                    closed: false,
                    dropped: 0,
                    next: 1,
                    workers: Vec::new(),
                }),
                queued: AtomicUsize::new(0),
                finishing: AtomicUsize::new(0),
                work: Condvar::new(),
                exit: Condvar::new(),
            }),
            finished: false,
        }
    }

    /// The options in force (`max_threads` at least 1).
    pub fn options(&self) -> PoolOptions {
        self.options
    }

    /// Runs `job` on a worker: an idle one, else a new thread, else (at `max_threads`) the
    /// first worker to free. Fails, giving the job back, when the pool is closed, or when no
    /// thread could start and none exists to run the job later (if some exist, the job is
    /// queued for them instead: [`Started::Queued`]).
    pub fn run(&self, job: Job) -> Result<Started, PoolError> {
        let mut st = self.shared.lock();
        if st.closed {
            return Err(PoolError::Closed { job });
        }
        let finishing = self.shared.finishing.load(Ordering::Acquire);
        if st.waiting + finishing > st.queue.len() {
            // A waiting worker is unclaimed, or one is about to be: it takes this job.
            st.queue.push_back(job);
            self.shared.published(&st);
            if st.sleeping > 0 {
                // Waking a sleeper costs a system call: a spinning worker needs none.
                self.shared.work.notify_one();
            }
            return Ok(Started::Now);
        }
        if st.threads >= self.options.max_threads {
            st.queue.push_back(job);
            self.shared.published(&st);
            return Ok(Started::Queued);
        }
        reap(&mut st.workers);
        // The new worker counts as waiting and claims the job; nobody can take it from the
        // queue before the lock is released, so on failure it is still there to give back.
        st.queue.push_back(job);
        self.shared.published(&st);
        st.threads += 1;
        st.waiting += 1;
        let n = st.next;
        st.next += 1;
        let shared = Arc::clone(&self.shared);
        let idle_timeout = self.options.idle_timeout;
        let spawned = std::thread::Builder::new()
            .name(format!("{}-{n}", self.name))
            .spawn(move || {
                // Workers hand turns to the control thread at every hook (slice.rs).
                crate::slice::ask_short_slice();
                work(shared, n, idle_timeout)
            });
        match spawned {
            Ok(handle) => {
                st.workers.push(Worker {
                    n,
                    thread: handle.thread().id(),
                    handle,
                    exited: false,
                    at_close: false,
                });
                Ok(Started::Now)
            }
            Err(error) => {
                st.threads -= 1;
                st.waiting -= 1;
                if st.threads > 0 {
                    // The workers alive will take it when they free.
                    return Ok(Started::Queued);
                }
                let job = st.queue.pop_back();
                self.shared.published(&st);
                match job {
                    Some(job) => Err(PoolError::Spawn { error, job }),
                    // Unreachable: the lock was held since the push.
                    None => Ok(Started::Queued),
                }
            }
        }
    }

    /// Worker threads alive now (busy or idle).
    pub fn threads(&self) -> usize {
        self.shared.lock().threads
    }

    /// Workers waiting for a job and not yet claimed by one.
    pub fn idle(&self) -> usize {
        let st = self.shared.lock();
        st.waiting.saturating_sub(st.queue.len())
    }

    /// Jobs waiting for a worker to free (past `max_threads`).
    pub fn queued(&self) -> usize {
        let st = self.shared.lock();
        st.queue.len().saturating_sub(st.waiting)
    }

    /// Stops taking jobs ([`Pool::run`] then fails with [`PoolError::Closed`]) and drops the
    /// queued jobs no worker has started (their captured values are dropped, so a caller
    /// waiting on a channel such a job would have answered sees it disconnect). Idle workers
    /// exit; busy ones exit after their job. Does not wait for them: see [`Pool::shutdown`].
    pub fn close(&self) {
        let unrun = {
            let mut st = self.shared.lock();
            if !st.closed {
                for w in &mut st.workers {
                    w.at_close = !w.exited;
                }
            }
            st.closed = true;
            let unrun = std::mem::take(&mut st.queue);
            self.shared.published(&st);
            st.dropped += unrun.len();
            self.shared.work.notify_all();
            unrun
        };
        // Dropped outside the lock: a job's captures may do anything when dropped.
        drop(unrun);
    }

    /// Closes the pool ([`Pool::close`]) and joins its workers, waiting at most
    /// [`PoolOptions::join_timeout`] for busy ones; those still busy then are detached.
    /// Dropping the pool does the same. Called from one of the pool's own jobs, it does not
    /// wait for the calling worker (counted as detached; it exits once its job returns).
    pub fn shutdown(mut self) -> Shutdown {
        self.finish()
    }

    fn finish(&mut self) -> Shutdown {
        if self.finished {
            return Shutdown::default();
        }
        self.finished = true;
        self.close();
        let deadline = Instant::now().checked_add(self.options.join_timeout);
        let me = std::thread::current().id();
        let mut st = self.shared.lock();
        let own = usize::from(st.workers.iter().any(|w| w.thread == me && !w.exited));
        while st.threads > own {
            match wait_until(&self.shared.exit, st, deadline) {
                Ok(guard) => st = guard,
                Err(guard) => {
                    st = guard;
                    break;
                }
            }
        }
        let workers = std::mem::take(&mut st.workers);
        let dropped = st.dropped;
        drop(st);
        let grace = Instant::now()
            .checked_add(EXIT_GRACE)
            .map(|g| deadline.map_or(g, |d| d.max(g)));
        let mut report = Shutdown {
            dropped,
            ..Shutdown::default()
        };
        for w in workers {
            let reported = w.at_close;
            // Only join a thread that has ended: one that said it exits is ending now.
            let ended = w.thread != me && w.exited && wait_finished(&w.handle, grace);
            if ended {
                // The worker catches job panics, so its thread cannot end in one.
                let _ = w.handle.join();
            }
            if reported {
                if ended {
                    report.joined += 1;
                } else {
                    report.detached += 1;
                }
            }
            // Otherwise dropping the handle detaches the thread.
        }
        report
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.finish();
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.shared.lock();
        f.debug_struct("Pool")
            .field("name", &self.name)
            .field("options", &self.options)
            .field("threads", &st.threads)
            .field("waiting", &st.waiting)
            .field("queue", &st.queue.len())
            .field("closed", &st.closed)
            .finish()
    }
}

/// Joins the workers that retired and whose threads have ended, so the handles kept do not
/// grow with every thread the pool ever started.
fn reap(workers: &mut Vec<Worker>) {
    let mut i = 0;
    while i < workers.len() {
        if workers[i].exited && workers[i].handle.is_finished() {
            let w = workers.swap_remove(i);
            let _ = w.handle.join();
        } else {
            i += 1;
        }
    }
}

/// Waits on `signal` once (it may wake early: callers loop), unless `until` has passed: then
/// gives the lock straight back as an `Err`. No `until` (a timeout too long to represent)
/// waits without a limit.
fn wait_until<'a>(
    signal: &Condvar,
    st: MutexGuard<'a, State>,
    until: Option<Instant>,
) -> Result<MutexGuard<'a, State>, MutexGuard<'a, State>> {
    let Some(until) = until else {
        return Ok(signal.wait(st).unwrap_or_else(PoisonError::into_inner));
    };
    let now = Instant::now();
    if now >= until {
        return Err(st);
    }
    Ok(signal
        .wait_timeout(st, until - now)
        .unwrap_or_else(PoisonError::into_inner)
        .0)
}

thread_local! {
    /// On a worker: its pool, and whether the running job called [`finishing`].
    static WORKER: std::cell::RefCell<Option<(Arc<Shared>, bool)>> =
        const { std::cell::RefCell::new(None) };
}

/// Called from inside a job: it is about to return, and what is left of it is short and
/// never blocks, so the pool gives the next job to this worker rather than start a thread
/// for it. The engine calls it once a hook's result is posted (the control thread hands
/// out the next hook at once, while the worker is still returning). No effect outside a
/// worker, or a second time in the same job.
pub fn finishing() {
    WORKER.with(|w| {
        if let Some((shared, hinted)) = w.borrow_mut().as_mut()
            && !*hinted
        {
            *hinted = true;
            shared.finishing.fetch_add(1, Ordering::AcqRel);
        }
    });
}

/// Watches `queued` for a job, a few microseconds of spinning then a few yields (about what
/// a lock-free channel does before it sleeps), and returns as soon as one shows or the
/// watch ends. Called without the lock, once after each job.
fn spin(queued: &AtomicUsize) {
    let backoff = crossbeam_utils::Backoff::new();
    while !backoff.is_completed() {
        if queued.load(Ordering::Acquire) > 0 {
            return;
        }
        backoff.snooze();
    }
}

/// A worker's life: take jobs from the queue until idle for `idle_timeout` or closed.
/// It starts counted in `threads` and `waiting`, with a job queued for it.
fn work(shared: Arc<Shared>, n: usize, idle_timeout: Duration) {
    WORKER.with(|w| *w.borrow_mut() = Some((Arc::clone(&shared), false)));
    let mut st = shared.lock();
    let mut idle_until = Instant::now().checked_add(idle_timeout);
    let mut just_worked = false;
    loop {
        // The queue comes first: a job queued as the idle time ran out still runs.
        if let Some(job) = st.queue.pop_front() {
            shared.published(&st);
            st.waiting -= 1;
            drop(st);
            // A panicking job must not end the worker: its counts would go stale.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
            let hinted = WORKER.with(|w| {
                w.borrow_mut()
                    .as_mut()
                    .is_some_and(|(_, hinted)| std::mem::take(hinted))
            });
            st = shared.lock();
            if hinted {
                // Under the lock, with `waiting` raised in the same section: `run` sees the
                // worker as finishing or as waiting, never as neither.
                shared.finishing.fetch_sub(1, Ordering::AcqRel);
            }
            st.waiting += 1;
            idle_until = Instant::now().checked_add(idle_timeout);
            just_worked = true;
            continue;
        }
        if st.closed {
            break;
        }
        if just_worked {
            // Jobs often come in chains (a hook's result makes the next hook run): a short
            // watch finds the next one without the cost of sleeping and being woken.
            just_worked = false;
            drop(st);
            spin(&shared.queued);
            st = shared.lock();
            continue;
        }
        st.sleeping += 1;
        let woken = wait_until(&shared.work, st, idle_until);
        match woken {
            Ok(mut guard) => {
                guard.sleeping -= 1;
                st = guard;
            }
            Err(mut guard) => {
                guard.sleeping -= 1;
                // Idle long enough (the queue, checked above under this same lock, is empty).
                st = guard;
                break;
            }
        }
    }
    st.waiting -= 1;
    st.threads -= 1;
    if let Some(w) = st.workers.iter_mut().find(|w| w.n == n) {
        w.exited = true;
    }
    shared.exit.notify_all();
    drop(st);
    WORKER.with(|w| *w.borrow_mut() = None);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    /// Generous bound for anything that should happen "soon" on a loaded machine.
    const SOON: Duration = Duration::from_secs(20);

    fn options(max_threads: usize, idle_timeout: Duration) -> PoolOptions {
        PoolOptions {
            max_threads,
            idle_timeout,
            join_timeout: Duration::from_secs(5),
        }
    }

    /// Polls `f` until it holds or [`SOON`] passes; returns whether it held.
    fn eventually(mut f: impl FnMut() -> bool) -> bool {
        let until = Instant::now() + SOON;
        while Instant::now() < until {
            if f() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        f()
    }

    #[test]
    fn a_job_that_says_it_is_finishing_hands_its_worker_to_the_next_job() {
        let pool = Pool::new("finishing", options(8, Duration::from_secs(10)));
        let (tx, rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let first = {
            let tx = tx.clone();
            Box::new(move || {
                finishing();
                tx.send(std::thread::current().id()).unwrap();
                // Still running when the next job comes: it must wait for this worker.
                let _ = go_rx.recv();
            })
        };
        pool.run(first).unwrap();
        let one = rx.recv_timeout(SOON).unwrap();
        let second = Box::new(move || tx.send(std::thread::current().id()).unwrap());
        assert!(matches!(pool.run(second).unwrap(), Started::Now));
        assert_eq!(pool.threads(), 1, "no thread started for the second job");
        go_tx.send(()).unwrap();
        assert_eq!(
            rx.recv_timeout(SOON).unwrap(),
            one,
            "the same worker ran it"
        );
    }

    #[test]
    fn jobs_run_on_named_threads() {
        let pool = Pool::new("test-pool", PoolOptions::default());
        let (tx, rx) = mpsc::channel();
        for i in 0..10 {
            let tx = tx.clone();
            let started = pool.run(Box::new(move || {
                let name = std::thread::current().name().map(str::to_string);
                let _ = tx.send((i, name));
            }));
            assert!(matches!(started, Ok(Started::Now)));
        }
        let mut seen = Vec::new();
        for _ in 0..10 {
            let (i, name) = rx.recv_timeout(SOON).unwrap();
            let name = name.unwrap();
            assert!(name.starts_with("test-pool-"), "{name}");
            seen.push(i);
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
        assert!(pool.threads() >= 1 && pool.threads() <= 10);
    }

    #[test]
    fn idle_worker_is_reused() {
        let pool = Pool::new("reuse", options(8, Duration::from_secs(60)));
        for _ in 0..5 {
            let (tx, rx) = mpsc::channel();
            pool.run(Box::new(move || {
                let _ = tx.send(());
            }))
            .unwrap();
            rx.recv_timeout(SOON).unwrap();
            // The worker counts as idle again once it is back in its loop.
            assert!(eventually(|| pool.idle() == 1));
        }
        assert_eq!(pool.threads(), 1);
    }

    #[test]
    fn cap_queues_extra_jobs_until_a_worker_frees() {
        let pool = Pool::new("cap", options(2, Duration::from_secs(60)));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let (done_tx, done_rx) = mpsc::channel();
        let mut placed = Vec::new();
        for i in 0..3 {
            let release_rx = Arc::clone(&release_rx);
            let done_tx = done_tx.clone();
            placed.push(
                pool.run(Box::new(move || {
                    let _ = release_rx
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    let _ = done_tx.send(i);
                }))
                .unwrap(),
            );
        }
        assert_eq!(placed, [Started::Now, Started::Now, Started::Queued]);
        assert_eq!(pool.threads(), 2);
        assert_eq!(pool.queued(), 1);
        assert_eq!(pool.idle(), 0);
        // Nothing finishes before a release.
        assert!(done_rx.recv_timeout(Duration::from_millis(50)).is_err());
        for _ in 0..3 {
            release_tx.send(()).unwrap();
        }
        let mut done: Vec<i32> = (0..3)
            .map(|_| done_rx.recv_timeout(SOON).unwrap())
            .collect();
        done.sort_unstable();
        assert_eq!(done, [0, 1, 2]);
        assert_eq!(pool.threads(), 2);
        assert!(eventually(|| pool.idle() == 2 && pool.queued() == 0));
    }

    #[test]
    fn idle_workers_retire() {
        let pool = Pool::new("retire", options(4, Duration::from_millis(50)));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..3 {
            let release_rx = Arc::clone(&release_rx);
            let done = Arc::clone(&done);
            pool.run(Box::new(move || {
                let _ = release_rx
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .recv();
                done.fetch_add(1, Ordering::SeqCst);
            }))
            .unwrap();
        }
        assert_eq!(pool.threads(), 3);
        drop(release_tx);
        assert!(eventually(|| pool.threads() == 0), "{pool:?}");
        assert_eq!(done.load(Ordering::SeqCst), 3);
        assert_eq!(pool.idle(), 0);
        // The pool grows again after retiring everything.
        let (tx, rx) = mpsc::channel();
        assert_eq!(
            pool.run(Box::new(move || {
                let _ = tx.send(());
            }))
            .unwrap(),
            Started::Now
        );
        rx.recv_timeout(SOON).unwrap();
        let report = pool.shutdown();
        assert_eq!(report.detached, 0);
    }

    #[test]
    fn concurrent_runs_lose_no_job() {
        // A tiny idle timeout makes workers retire while jobs arrive: the race to cover.
        for idle in [
            Duration::ZERO,
            Duration::from_micros(200),
            Duration::from_secs(5),
        ] {
            let pool = Arc::new(Pool::new("race", options(3, idle)));
            let count = Arc::new(AtomicUsize::new(0));
            const PER_THREAD: usize = 2000;
            let callers: Vec<_> = (0..2)
                .map(|_| {
                    let pool = Arc::clone(&pool);
                    let count = Arc::clone(&count);
                    std::thread::spawn(move || {
                        for _ in 0..PER_THREAD {
                            let count = Arc::clone(&count);
                            pool.run(Box::new(move || {
                                count.fetch_add(1, Ordering::SeqCst);
                            }))
                            .unwrap();
                            assert!(pool.threads() <= 3);
                        }
                    })
                })
                .collect();
            for c in callers {
                c.join().unwrap();
            }
            assert!(
                eventually(|| count.load(Ordering::SeqCst) == 2 * PER_THREAD),
                "idle {idle:?}: {} of {} jobs ran; {pool:?}",
                count.load(Ordering::SeqCst),
                2 * PER_THREAD
            );
        }
    }

    #[test]
    fn shutdown_joins_finished_and_detaches_blocked() {
        let pool = Pool::new(
            "shut",
            PoolOptions {
                max_threads: 4,
                idle_timeout: Duration::from_secs(60),
                join_timeout: Duration::from_secs(2),
            },
        );
        // One job blocked until after the shutdown, one quick job (its worker then idles).
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel();
        let (ended_tx, ended_rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = started_tx.send(());
            let _ = release_rx.recv();
            let _ = ended_tx.send(());
        }))
        .unwrap();
        started_rx.recv_timeout(SOON).unwrap();
        let (quick_tx, quick_rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = quick_tx.send(());
        }))
        .unwrap();
        quick_rx.recv_timeout(SOON).unwrap();
        assert!(eventually(|| pool.idle() == 1));
        assert_eq!(pool.threads(), 2);
        let shared = Arc::clone(&pool.shared);
        let report = pool.shutdown();
        assert_eq!(
            report,
            Shutdown {
                joined: 1,
                detached: 1,
                dropped: 0
            }
        );
        // The blocked job is still blocked: shutdown did not wait for it.
        assert!(ended_rx.try_recv().is_err());
        release_tx.send(()).unwrap();
        ended_rx.recv_timeout(SOON).unwrap();
        // Its worker then exits cleanly.
        assert!(eventually(|| shared.lock().threads == 0));
    }

    #[test]
    fn shutdown_drops_queued_jobs_and_refuses_new_ones() {
        let pool = Pool::new("drop", options(1, Duration::from_secs(60)));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = started_tx.send(());
            let _ = release_rx.recv();
        }))
        .unwrap();
        started_rx.recv_timeout(SOON).unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        let (unrun_tx, unrun_rx) = mpsc::channel::<()>();
        for _ in 0..2 {
            let ran = Arc::clone(&ran);
            let unrun_tx = unrun_tx.clone();
            let placed = pool.run(Box::new(move || {
                ran.fetch_add(1, Ordering::SeqCst);
                let _ = unrun_tx.send(());
            }));
            assert_eq!(placed.unwrap(), Started::Queued);
        }
        drop(unrun_tx);
        assert_eq!(pool.queued(), 2);
        pool.close();
        // The queued jobs were dropped: the channel they held is disconnected.
        assert!(matches!(
            unrun_rx.recv_timeout(SOON),
            Err(mpsc::RecvTimeoutError::Disconnected)
        ));
        assert_eq!(pool.queued(), 0);
        let refused = pool.run(Box::new(|| {}));
        assert!(matches!(refused, Err(PoolError::Closed { .. })));
        // The job given back can still be run by the caller.
        let flag = Arc::new(AtomicUsize::new(0));
        let f = Arc::clone(&flag);
        let refused = pool.run(Box::new(move || {
            f.fetch_add(1, Ordering::SeqCst);
        }));
        (refused.unwrap_err().into_job())();
        assert_eq!(flag.load(Ordering::SeqCst), 1);
        release_tx.send(()).unwrap();
        let report = pool.shutdown();
        assert_eq!(
            report,
            Shutdown {
                joined: 1,
                detached: 0,
                dropped: 2
            }
        );
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn drop_from_a_job_does_not_wait_for_itself() {
        let pool = Pool::new(
            "self",
            PoolOptions {
                max_threads: 2,
                idle_timeout: Duration::from_secs(60),
                join_timeout: Duration::from_secs(30),
            },
        );
        let slot = Arc::new(Mutex::new(None::<Pool>));
        let shared = Arc::clone(&pool.shared);
        let (report_tx, report_rx) = mpsc::channel();
        let job_slot = Arc::clone(&slot);
        *slot.lock().unwrap() = Some(pool);
        // Held until the job is placed, so the job cannot take the pool before.
        let guard = slot.lock().unwrap();
        let pool = guard.as_ref().unwrap();
        pool.run(Box::new(move || {
            let pool = job_slot
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            let started = Instant::now();
            let report = pool.map(Pool::shutdown);
            let _ = report_tx.send((report, started.elapsed()));
        }))
        .unwrap();
        drop(guard);
        let (report, took) = report_rx.recv_timeout(SOON).unwrap();
        assert_eq!(
            report,
            Some(Shutdown {
                joined: 0,
                detached: 1,
                dropped: 0
            })
        );
        // Far below the 30 s join timeout it would have waited for itself.
        assert!(took < Duration::from_secs(15), "{took:?}");
        assert!(eventually(|| shared.lock().threads == 0));
    }

    #[test]
    fn panicking_job_leaves_the_pool_usable() {
        let pool = Pool::new("panic", options(1, Duration::from_secs(60)));
        pool.run(Box::new(|| panic!("a job panics (expected in this test)")))
            .unwrap();
        let (tx, rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = tx.send(std::thread::current().name().map(str::to_string));
        }))
        .unwrap();
        // The same (only) worker ran the next job.
        assert_eq!(rx.recv_timeout(SOON).unwrap().as_deref(), Some("panic-1"));
        assert_eq!(pool.threads(), 1);
        assert!(eventually(|| pool.idle() == 1));
        assert_eq!(
            pool.shutdown(),
            Shutdown {
                joined: 1,
                detached: 0,
                dropped: 0
            }
        );
    }

    #[test]
    fn unrepresentable_timeouts_mean_no_limit() {
        let pool = Pool::new(
            "forever",
            PoolOptions {
                max_threads: 2,
                idle_timeout: Duration::MAX,
                join_timeout: Duration::MAX,
            },
        );
        let (tx, rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = tx.send(());
        }))
        .unwrap();
        rx.recv_timeout(SOON).unwrap();
        assert!(eventually(|| pool.idle() == 1));
        assert_eq!(pool.shutdown().joined, 1);
    }

    #[test]
    fn zero_max_threads_counts_as_one() {
        let pool = Pool::new("zero", options(0, Duration::from_secs(60)));
        assert_eq!(pool.options().max_threads, 1);
        let (tx, rx) = mpsc::channel();
        pool.run(Box::new(move || {
            let _ = tx.send(());
        }))
        .unwrap();
        rx.recv_timeout(SOON).unwrap();
    }
}
