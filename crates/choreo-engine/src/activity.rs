//! The engine's time as seen by everything that runs beside the control thread: box hooks on
//! workers, and work a robot does in the background (a `post`ed `say`, a scenario event due
//! at some time).
//!
//! Virtual time may only jump when every such activity waits on the clock, so each one is
//! counted here while it runs; a sleep through [`Activity::sleep_until`] tells the control
//! thread the activity now waits on the clock.
//!
//! One time base may serve several engines: a behavior run by another one (ALBehaviorManager)
//! is loaded on its parent's [`Activity`] (`Options::time_base`), so that its hooks and robot
//! work are counted by the same counter and sleep on the same clock. Each engine has a
//! route: the clock tokens it schedules carry its number in their top bits, and come
//! back to it alone.
//!
//! Box construction counts as an activity too. Box code that waits for another run on the same
//! time base (its start or its end) is parked: no longer counted, so that time may move for that
//! run, and counted again by whoever ends the wait, before it wakes. A hook's own state
//! (`HookYield`: running, waiting or returned) lets the control thread wait for that hook, and
//! for the nested engines with work, rather than for a count that other hooks ending could
//! satisfy.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::Duration;

use choreo_base::lock;

use crate::clock::{Clock, Later, RealClock, Time, TimerToken, VirtualClock, WakeSink};
pub use crate::turn::{StandIn, stand_in};
use crate::turn::{TurnId, Turns};

thread_local! {
    /// True on the control thread, where inline box code runs and must never sleep.
    pub(crate) static ON_CONTROL_THREAD: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// How long, in real time, the control thread waits for a counted activity that takes no
/// turns (none should) to finish or sleep before it goes on without it. Activities that take
/// turns are waited for however long they run (see [`crate::turn`]).
const YIELD_WAIT: Duration = Duration::from_secs(2);

/// How long the control thread spins, in real time, for an activity to yield before it
/// sleeps (see [`Activity::wait_for_yield`]).
const YIELD_SPIN: Duration = Duration::from_micros(50);

/// The seed of a run in virtual time when none is given: the same every run.
pub const DEFAULT_SEED: u64 = 1;

/// The wall clock at behavior time 0 of a run in virtual time when none is given, in ms
/// since the Unix epoch: Monday 5 January 2026, 10:00 UTC (a morning, a weekday: what a
/// demonstration on a robot would meet).
pub const DEFAULT_START: u64 = 1_767_607_200_000;

/// How many bits of a clock token number it within its engine; the bits above name the
/// engine's [`Route`].
const ROUTE_SHIFT: u32 = 48;

/// The clock of one engine (and of the engines nested in it), and the count of activities
/// running beside their control threads.
pub struct Activity {
    clock: Arc<dyn Clock>,
    /// The same clock when it is virtual, read without a call through `clock`'s table:
    /// every trace event reads the time.
    virtual_clock: Option<Arc<VirtualClock>>,
    /// Activities started and not finished (including those sleeping on the clock).
    in_flight: AtomicUsize,
    /// Counted activities waiting for a run on this time base to end (see
    /// [`Activity::park`]): they do not count as running.
    parked: AtomicUsize,
    /// Signalled when an activity finishes or starts sleeping.
    progress: (Mutex<u64>, Condvar),
    /// Real work done for box code that the clock does not see (see [`Activity::at_work`]).
    at_work: AtomicUsize,
    /// Nested engines whose control threads count as activities (see
    /// [`Activity::nested_busy`]).
    nested_busy: AtomicUsize,
    /// Where each engine's clock tokens go, by route number.
    routes: Mutex<HashMap<u16, Destination>>,
    /// Virtual time: whose turn it is to run.
    turns: Turns,
    /// See [`Activity::seed`].
    seed: u64,
    /// See [`Activity::chance`].
    chance: crate::chance::Chance,
    /// See [`Activity::wall_ms`]: the wall clock at behavior time 0 (ms since the epoch).
    start_ms: u64,
    /// Told when a nested run nobody waits for fails (see [`Activity::nested_failed`]): the
    /// engine that owns this time base.
    owner: Mutex<Option<FailureSink>>,
    /// The clock was released to real time: the engine is gone (see
    /// [`Activity::release_sleepers`]).
    gone: std::sync::atomic::AtomicBool,
}

/// Where the failure of a nested run nobody waits for goes (see [`Activity::nested_failed`]):
/// the failing box's path as the trace shows it, the hook, the message.
pub(crate) type FailureSink = Arc<dyn Fn(String, String, String) + Send + Sync>;

/// An engine's clock tokens: where they go, and whether the clock waits for it to act on
/// each one (see [`Activity::route`]).
#[derive(Clone)]
struct Destination {
    sink: WakeSink,
    settle: bool,
}

impl Activity {
    /// A time base with a clock of its own, real or virtual; tokens go to the engines
    /// routed on it. Fails only if the real clock's thread cannot start.
    /// `seed`, `start_ms`: see [`crate::Options::seed`] and [`crate::Options::start_time`].
    pub(crate) fn owned(
        virtual_time: bool,
        seed: Option<u64>,
        start_ms: Option<u64>,
    ) -> std::io::Result<Arc<Activity>> {
        // The clock needs its sink first, and the sink the time base it serves.
        let target: Arc<std::sync::OnceLock<Weak<Activity>>> = Arc::default();
        let sink_target = Arc::clone(&target);
        let sink: WakeSink = Arc::new(move |token| {
            if let Some(time) = sink_target.get().and_then(Weak::upgrade) {
                time.deliver(token);
            }
        });
        let virtual_clock = virtual_time.then(|| VirtualClock::new(Arc::clone(&sink)));
        let clock: Arc<dyn Clock> = match &virtual_clock {
            Some(clock) => Arc::clone(clock) as Arc<dyn Clock>,
            None => RealClock::new(sink)?,
        };
        let (seed, start_ms) = if virtual_time {
            (
                seed.unwrap_or(DEFAULT_SEED),
                start_ms.unwrap_or(DEFAULT_START),
            )
        } else {
            (
                seed.unwrap_or_else(random_seed),
                start_ms.unwrap_or_else(wall_now_ms),
            )
        };
        let time = Arc::new(Activity::with_clock(clock, virtual_clock, seed, start_ms));
        let _ = target.set(Arc::downgrade(&time));
        Ok(time)
    }

    fn with_clock(
        clock: Arc<dyn Clock>,
        virtual_clock: Option<Arc<VirtualClock>>,
        seed: u64,
        start_ms: u64,
    ) -> Activity {
        Activity {
            seed,
            chance: crate::chance::Chance::default(),
            start_ms,
            clock,
            virtual_clock,
            in_flight: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            progress: (Mutex::new(0), Condvar::new()),
            at_work: AtomicUsize::new(0),
            nested_busy: AtomicUsize::new(0),
            routes: Mutex::new(HashMap::new()),
            turns: Turns::new(),
            owner: Mutex::new(None),
            gone: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The engine that owns this time base hears of the failures of nested runs nobody
    /// waits for through `sink`.
    pub(crate) fn set_owner(&self, sink: FailureSink) {
        *lock(&self.owner) = Some(sink);
    }

    /// A nested run nobody waits for (a behavior started, not run:
    /// `crate::Engine::fails_its_owner`) failed (`Outcome::Failed`'s parts): the engine that
    /// owns this time base is told. Nothing happens on a time base without an owner (a
    /// robot's own).
    pub(crate) fn nested_failed(&self, path: String, hook: String, message: String) {
        let owner = lock(&self.owner).clone();
        if let Some(owner) = owner {
            owner(path, hook, message);
        }
    }

    /// Real time with no engine: for a robot that runs on its own (served over qi, say).
    /// Fails only if the clock thread cannot start.
    pub fn real() -> std::io::Result<Arc<Activity>> {
        let clock = RealClock::new(Arc::new(|_| {}))?;
        Ok(Arc::new(Activity::with_clock(
            clock,
            None,
            random_seed(),
            wall_now_ms(),
        )))
    }

    /// The seed of the run's chance (see [`crate::Options::seed`]): box code's `random`, the
    /// dialog's random choices, anything random the robot does.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Box code's draws, counted, some set by the run ([`crate::chance`]).
    pub fn chance(&self) -> &crate::chance::Chance {
        &self.chance
    }

    /// The wall clock at behavior time 0, in ms since the Unix epoch (UTC).
    pub fn start_ms(&self) -> u64 {
        self.start_ms
    }

    /// The wall clock now, in ms since the Unix epoch (UTC): the start plus behavior time,
    /// so that in virtual time the date moves with the run's clock and nothing else.
    pub fn wall_ms(&self) -> u64 {
        self.start_ms.saturating_add(self.now().0 / 1_000_000)
    }

    /// Gives an engine a route: the tokens it schedules (numbered from [`Route::first_token`])
    /// are handed to `sink`. `settle`: virtual time, the clock waits after each hand-over
    /// until everything it started has finished or sleeps (a nested engine, whose control
    /// thread counts as an activity while it has work), so that what happens at one instant
    /// happens in one order. `None` when every route number is taken.
    pub(crate) fn route(self: &Arc<Self>, sink: WakeSink, settle: bool) -> Option<Route> {
        let mut routes = lock(&self.routes);
        let n = (0..=u16::MAX).find(|n| !routes.contains_key(n))?;
        routes.insert(n, Destination { sink, settle });
        Some(Route {
            n,
            time: Arc::downgrade(self),
        })
    }

    /// A token came due: to the engine whose route it names (none: that engine is gone).
    fn deliver(&self, token: TimerToken) {
        let n = (token >> ROUTE_SHIFT) as u16;
        let Some(to) = lock(&self.routes).get(&n).cloned() else {
            return;
        };
        if to.settle && self.virtual_clock.is_some() {
            let base = self.busy();
            (to.sink)(token);
            self.wait_for_yield(base);
        } else {
            (to.sink)(token);
        }
    }

    /// The calling activity (counted) waits for another run on this time base, which is
    /// counted while it has work: it no longer counts as running, so virtual time may move
    /// for that run. Whoever ends the wait calls [`Activity::unpark`] while it is counted
    /// itself, so that time never moves in between.
    pub(crate) fn park(&self) {
        self.parked.fetch_add(1, Ordering::SeqCst);
        self.notify_progress();
    }

    /// How many nested engines' control threads count as activities now (they have
    /// commands to act on).
    pub(crate) fn nested_busy(&self) -> usize {
        self.nested_busy.load(Ordering::SeqCst)
    }

    /// A nested engine's control thread counts as an activity from now on.
    pub(crate) fn nested_begin(&self) {
        self.nested_busy.fetch_add(1, Ordering::SeqCst);
        self.begin();
    }

    /// A nested engine's control thread no longer counts as an activity.
    pub(crate) fn nested_end(&self) {
        self.nested_busy.fetch_sub(1, Ordering::SeqCst);
        self.end();
    }

    /// Whether some [`Activity::at_work`] guard lives.
    pub(crate) fn is_at_work(&self) -> bool {
        self.at_work.load(Ordering::SeqCst) > 0
    }

    /// Real work done for box code, in real time, that the clock does not see: a nested
    /// behavior's boxes being constructed, a program the robot starts and waits for
    /// (ALServiceManager.startService). The box code waiting for it neither sleeps on the
    /// clock nor computes, which would otherwise read as a stall (the run ends idle) or as
    /// a hook blocked on something else (it loses its turn). Counted until the guard drops.
    pub fn at_work(self: &Arc<Self>) -> AtWork {
        self.at_work.fetch_add(1, Ordering::SeqCst);
        self.turns.be_patient(true);
        AtWork(Arc::clone(self))
    }

    /// `n` parked activities run again (see [`Activity::park`]).
    pub(crate) fn unpark(&self, n: usize) {
        if n > 0 {
            self.parked.fetch_sub(n, Ordering::SeqCst);
        }
    }

    /// Whether time is virtual (jumps when everything waits on the clock).
    pub fn is_virtual(&self) -> bool {
        self.virtual_clock.is_some()
    }

    /// Now, in behavior time.
    #[inline]
    pub fn now(&self) -> Time {
        match &self.virtual_clock {
            Some(clock) => clock.now(),
            None => self.clock.now(),
        }
    }

    /// Sleeps until `deadline` of behavior time. The caller must be a counted activity (a
    /// hook, or a thread from [`Activity::spawn`]); on the control thread it returns at once,
    /// as sleeping there would stop everything.
    pub fn sleep_until(&self, deadline: Time) {
        self.nap_until(deadline, &Nap::default());
    }

    /// [`Activity::sleep_until`] that another activity may cut short with
    /// [`Activity::wake_nap`] (virtual time; in real time the sleep lasts to its deadline):
    /// a robot task's driver, woken when the task is stopped rather than at its next poll.
    pub fn nap_until(&self, deadline: Time, nap: &Nap) {
        if ON_CONTROL_THREAD.with(std::cell::Cell::get) {
            return;
        }
        waiting(|| {
            self.notify_progress();
            if self.virtual_clock.is_none() {
                self.clock.sleep_until(deadline);
                return;
            }
            // The turn passes on once this sleep has its place among those due with it.
            let mine = self.turns.mine();
            let mut gave = false;
            self.clock.sleep_until_then(deadline, &mut |ticket| {
                *lock(&nap.0) = Some((ticket, mine));
                self.turns.give();
                gave = true;
            });
            *lock(&nap.0) = None;
            if gave && let Some(id) = mine {
                // Woken by the control thread while nothing else runs, or by the activity
                // that holds the turn (which put it in line): in line at once.
                self.turns.enlist_again(id);
                self.turns.take(id);
            }
        });
    }

    /// Ends the sleep of `nap` now (see [`Activity::nap_until`]), if a thread sleeps in it:
    /// that thread runs after the caller, in the caller's turn's order.
    pub fn wake_nap(&self, nap: &Nap) {
        let Some((ticket, turn)) = lock(&nap.0).take() else {
            return;
        };
        self.wake_turn(turn);
        self.clock.cut_short(ticket);
    }

    /// Virtual time: lets the activities waiting for their turn at this instant run first
    /// (a thread this one just started, say), then goes on, time unmoved. For box code that
    /// waits for another activity by polling: it looks again before sleeping. No effect in
    /// real time, or on a thread that runs under no turn.
    pub fn pass_turn(&self) {
        if self.virtual_clock.is_none() || ON_CONTROL_THREAD.with(std::cell::Cell::get) {
            return;
        }
        if let Some(id) = self.turns.mine() {
            self.turns.give();
            self.turns.enlist_again(id);
            self.turns.take(id);
        }
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
        // What the control thread recorded comes before what the new thread records.
        crate::trace::flush_thread_buffer();
        let base = self.busy();
        self.begin();
        // In line now, after whoever starts it: it runs when they wait.
        let turn = self.enlist_turn();
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                choreo_base::slice::ask_short_slice();
                me.take_turn(turn);
                // Counted down even if `work` panics: a lost count would freeze virtual time.
                let _done = Finished(&me);
                work();
            });
        if let Err(e) = spawned {
            self.withdraw_turn(turn);
            self.end();
            return Err(e);
        }
        if self.virtual_clock.is_some() && ON_CONTROL_THREAD.with(std::cell::Cell::get) {
            self.wait_for_yield(base);
        }
        Ok(())
    }

    /// Counts one more activity until the returned guard is dropped (also on unwinding: a
    /// lost count would freeze virtual time). For work handed to another thread, which takes
    /// its turn ([`Counted::take_turn`]) before it runs; the guard leaves the turns on the
    /// thread that drops it.
    pub(crate) fn counted(self: &Arc<Self>) -> Counted {
        self.begin();
        Counted(Arc::clone(self), self.enlist_turn())
    }

    /// Virtual time: a new activity lines up for its turn (see [`crate::turn`]); `None` in
    /// real time, where there are no turns.
    pub(crate) fn enlist_turn(&self) -> Option<TurnId> {
        self.virtual_clock.is_some().then(|| self.turns.enlist())
    }

    /// Runs this thread under turn `id` from now on, once it comes.
    pub(crate) fn take_turn(&self, id: Option<TurnId>) {
        if let Some(id) = id {
            self.turns.take(id);
        }
    }

    /// An enlisted activity will not start soon: it lines up when it takes its turn.
    pub(crate) fn withdraw_turn(&self, id: Option<TurnId>) {
        if let Some(id) = id {
            self.turns.withdraw(id);
        }
    }

    /// This thread's activity is over: the next in line runs.
    pub(crate) fn leave_turn(&self) {
        self.turns.leave();
    }

    /// Work on this thread runs under a turn until the guard is dropped: its own if it has
    /// none yet (box constructors, virtual time), else the one it runs under.
    pub(crate) fn turn_here(&self) -> TurnHere<'_> {
        let taken = self.turns.mine().is_none() && self.virtual_clock.is_some();
        if taken {
            self.take_turn(Some(self.turns.enlist()));
        }
        TurnHere(self, taken)
    }

    /// The turns of this time base.
    pub(crate) fn turns(&self) -> &Turns {
        &self.turns
    }

    /// This thread waits (for another run to start or end): the next in line runs. It
    /// lines up again when whoever wakes it enlists it ([`Activity::wake_turn`]).
    pub(crate) fn give_turn(&self) -> Option<TurnId> {
        let mine = self.turns.mine();
        self.turns.give();
        mine
    }

    /// Wakes a thread that gave its turn to wait: in line now, after whoever wakes it.
    pub(crate) fn wake_turn(&self, id: Option<TurnId>) {
        if let Some(id) = id {
            self.turns.enlist_again(id);
        }
    }

    /// Wakes every thread sleeping on the clock at once (see [`Clock::release_sleepers`]);
    /// turns are over: what runs from now on runs as the OS schedules it.
    pub(crate) fn release_sleepers(&self, later: Later) {
        if later == Later::RealTime {
            self.gone.store(true, Ordering::SeqCst);
            self.notify_progress();
        }
        self.turns.off();
        self.clock.release_sleepers(later);
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

    /// Activities running right now: started, not finished, not sleeping on the clock, not
    /// parked.
    pub(crate) fn busy(&self) -> usize {
        self.in_flight
            .load(Ordering::SeqCst)
            .saturating_sub(self.clock.sleepers())
            .saturating_sub(self.parked.load(Ordering::SeqCst))
            .saturating_sub(self.turns.outside())
    }

    /// Virtual time: waits until at most `base` activities are running, i.e. the one just
    /// started or woken has finished or sleeps on the clock (see [`Activity::wait_until`]).
    pub(crate) fn wait_for_yield(&self, base: usize) -> bool {
        self.wait_until(|| self.busy() <= base)
    }

    /// Virtual time: waits until `ready` (activities finished or asleep), however long the
    /// activities that take turns run; one that waits on something else or never waits loses
    /// its turn (see [`crate::turn`]) and no longer counts. False when it gave up: a counted
    /// activity outside the turns kept running for [`YIELD_WAIT`] of real time. A thread
    /// that runs under a turn (a nested engine's control thread) gives it while it waits.
    /// Polled, as a sleeper is counted by the clock a moment after it signals.
    pub(crate) fn wait_until(&self, ready: impl Fn() -> bool) -> bool {
        crate::trace::flush_thread_buffer();
        let mine = self.give_turn();
        // Most hooks return or sleep within microseconds: poll a little before sleeping on
        // the condition variable, as waking a sleeping thread costs far more on a VM.
        // Yielding (not spinning) lets the hook's thread run when it shares our CPU.
        let spin = std::time::Instant::now() + YIELD_SPIN;
        while !ready() && std::time::Instant::now() < spin {
            std::thread::yield_now();
        }
        let mut outside_since: Option<std::time::Instant> = None;
        let (lock, cv) = &self.progress;
        let mut guard = choreo_base::lock(lock);
        let done = loop {
            if ready() {
                break true;
            }
            // The engine is gone: box code still running outlives the run, and its sleeps
            // now take real time; nothing waits for it to yield any more.
            if self.gone.load(Ordering::SeqCst) {
                break false;
            }
            self.turns.watch();
            if self.turns.any() {
                outside_since = None;
            } else if outside_since
                .get_or_insert_with(std::time::Instant::now)
                .elapsed()
                >= YIELD_WAIT
            {
                break false;
            }
            guard = cv
                .wait_timeout(guard, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        drop(guard);
        if let Some(id) = mine {
            self.turns.enlist_again(id);
            self.turns.take(id);
        }
        done
    }

    fn notify_progress(&self) {
        let (lock, cv) = &self.progress;
        let mut n = choreo_base::lock(lock);
        *n += 1;
        cv.notify_all();
    }

    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

/// A sleep that can be cut short (see [`Activity::nap_until`]): the sleeping thread's clock
/// ticket and turn while it sleeps.
#[derive(Default)]
pub struct Nap(Mutex<Option<(u64, Option<TurnId>)>>);

/// Where a hook handed to a worker is, for the control thread that waits for it to yield
/// (virtual time): running, waiting (asleep on the clock, or parked), or returned.
pub(crate) struct HookYield(std::sync::atomic::AtomicU8);

const RUNNING: u8 = 0;
const WAITING: u8 = 1;
const RETURNED: u8 = 2;

thread_local! {
    /// The hook this thread runs, if any (see [`running_hook`]).
    static HOOK: std::cell::RefCell<Option<Arc<HookYield>>> =
        const { std::cell::RefCell::new(None) };
}

impl HookYield {
    /// A hook about to run.
    pub(crate) fn new() -> Arc<HookYield> {
        Arc::new(HookYield(std::sync::atomic::AtomicU8::new(RUNNING)))
    }

    /// The hook has returned.
    pub(crate) fn returned(&self) {
        self.0.store(RETURNED, Ordering::SeqCst);
    }

    /// Whether the hook has returned or waits (on the clock, or parked).
    pub(crate) fn yielded(&self) -> bool {
        self.0.load(Ordering::SeqCst) != RUNNING
    }
}

/// Runs `f` (a hook) with `hook` as this thread's hook, so that its waits mark it waiting.
pub(crate) fn running_hook<R>(hook: &Arc<HookYield>, f: impl FnOnce() -> R) -> R {
    let outer = HOOK.with(|h| h.replace(Some(Arc::clone(hook))));
    let result = f();
    HOOK.with(|h| *h.borrow_mut() = outer);
    result
}

/// What this thread runs under — its turn, its hook — lent to a thread that works for it
/// while it waits (a load's constructors, on the load's own thread, `engine::Engine::load`).
pub(crate) struct Lent(crate::turn::LentTurn, Option<Arc<HookYield>>);

/// This thread's turn and hook, to lend ([`borrow`]).
pub(crate) fn lend() -> Lent {
    Lent(Turns::lend(), HOOK.with(|h| h.borrow().clone()))
}

/// This thread runs under `lent`, as the thread that lent it, which waits meanwhile: its
/// turn (no other activity runs) and its hook (a wait here marks that hook waiting).
pub(crate) fn borrow(lent: Lent) {
    Turns::borrow(lent.0);
    HOOK.with(|h| *h.borrow_mut() = lent.1);
}

/// Runs `f`, a wait on the clock or on another run, with this thread's hook (if any)
/// marked waiting.
pub(crate) fn waiting<R>(f: impl FnOnce() -> R) -> R {
    let hook = HOOK.with(|h| h.borrow().clone());
    if let Some(h) = &hook {
        h.0.store(WAITING, Ordering::SeqCst);
    }
    let result = f();
    if let Some(h) = &hook {
        h.0.store(RUNNING, Ordering::SeqCst);
    }
    result
}

/// A seed nobody chose: the process's hash keys mixed with the time.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// The wall clock now, in ms since the Unix epoch.
fn wall_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// An engine's place on a time base (see [`Activity::route`]); gone when dropped.
pub(crate) struct Route {
    n: u16,
    time: Weak<Activity>,
}

impl Route {
    /// The first token of this route; the next ones follow it.
    pub(crate) fn first_token(&self) -> TimerToken {
        u64::from(self.n) << ROUTE_SHIFT
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        if let Some(time) = self.time.upgrade() {
            lock(&time.routes).remove(&self.n);
        }
    }
}

/// See [`Activity::at_work`].
pub struct AtWork(Arc<Activity>);

impl Drop for AtWork {
    fn drop(&mut self) {
        self.0.at_work.fetch_sub(1, Ordering::SeqCst);
        self.0.turns.be_patient(false);
    }
}

/// See [`Activity::counted`].
pub(crate) struct Counted(Arc<Activity>, Option<TurnId>);

impl Counted {
    /// The work's place in the turns.
    pub(crate) fn turn(&self) -> Option<TurnId> {
        self.1
    }

    /// The thread that does the work runs under the work's turn from now on.
    pub(crate) fn take_turn(&self) {
        self.0.take_turn(self.1);
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        // On the thread that did the work, its turn is over; dropped unrun elsewhere, its
        // place in line is given up.
        if self.1.is_some() && self.0.turns.mine() == self.1 {
            self.0.leave_turn();
        } else {
            self.0.withdraw_turn(self.1);
        }
        self.0.end();
    }
}

/// See [`Activity::turn_here`].
pub(crate) struct TurnHere<'a>(&'a Activity, bool);

impl Drop for TurnHere<'_> {
    fn drop(&mut self) {
        if self.1 {
            self.0.leave_turn();
        }
    }
}

/// Ends an activity when dropped (also on unwinding).
struct Finished<'a>(&'a Activity);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.leave_turn();
        self.0.end();
    }
}
