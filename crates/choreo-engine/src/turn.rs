//! Whose turn it is to run, in virtual time: one activity at a time.
//!
//! Counting activities (see [`crate::activity`]) tells the control thread when everything
//! waits, but not in which order two activities that run at the same instant act: a hook
//! and the thread it started, a box's call and the robot task it posted, two threads of one
//! box's Python code. Left to the OS, their events interleave differently on every run.
//! So in virtual time activities take turns: each one is enlisted by whoever starts or
//! wakes it (a deterministic moment: that party holds the turn, or is the control thread
//! acting alone), runs only while it holds the turn, and passes it on when it waits (sleeps
//! on the clock, waits for a run to start or end, returns). The next in the queue goes on.
//!
//! An activity that holds the turn and waits on something else (a lock, a queue, real I/O)
//! would stop every other one; so would one that never waits (a busy loop polling a flag
//! another box sets). Both are told apart from a slow one by what the OS says of its thread,
//! not by how long it took: blocked in the kernel for [`BLOCKED`] of real time, or
//! [`SPINNING`] of its own CPU time used since it took the turn. It then loses the turn
//! (runs "outside" until it next waits) and the run says so; a machine under load only
//! makes an activity slower, never changes the order.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// An activity's place in the turns.
pub(crate) type TurnId = u64;

/// How long (real time) the holder may be blocked in the kernel (not running, not runnable)
/// before it loses the turn.
const BLOCKED: Duration = Duration::from_secs(2);

/// How much CPU time the holder may use without waiting (counted from the first look at it,
/// [`LOOK`] after it took the turn) before it loses the turn.
const SPINNING: Duration = Duration::from_secs(5);

/// How often (real time) a waiter looks at the holder's thread.
const LOOK: Duration = Duration::from_millis(20);

thread_local! {
    /// The turn this thread runs under: (the [`Turns`]' address, its id), if any.
    static MINE: std::cell::Cell<Option<(usize, TurnId)>> = const { std::cell::Cell::new(None) };
}

/// A thread's turn, lent to another while it waits for it ([`Turns::lend`]).
pub(crate) struct LentTurn(Option<(usize, TurnId)>);

/// The turns of one time base.
pub(crate) struct Turns {
    state: Mutex<State>,
    /// Real work done for box code (a nested behavior's load, a program started:
    /// `Activity::at_work`) may take long, however it waits (it is not a stall), so the
    /// holder is left alone meanwhile.
    patient: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct State {
    next: TurnId,
    holder: Option<Holder>,
    queue: VecDeque<TurnId>,
    /// Enlisted turns whose thread was not started (every worker busy): they line up when
    /// they come.
    withdrawn: HashSet<TurnId>,
    /// Turns taken from a holder that waited on something else or never waited; they run
    /// beside the others until they next wait.
    outside: HashSet<TurnId>,
    /// Turns are off (the clock was released: the run is over).
    off: bool,
    /// What was said of holders that lost the turn, for the control thread to trace.
    notices: Vec<(TurnId, String)>,
    /// The threads waiting in [`Turns::take_unless`], each on its own condition variable:
    /// a change of holder wakes the one next in line, not every waiter (with many threads
    /// in line, waking all of them to see whose turn it is cost most of a run's time).
    waiting: HashMap<TurnId, Arc<Condvar>>,
}

impl State {
    /// Wakes the waiter next in line if the turn is free.
    fn wake_next(&self) {
        if self.holder.is_none()
            && let Some(cv) = self.queue.front().and_then(|id| self.waiting.get(id))
        {
            cv.notify_one();
        }
    }

    /// Wakes every waiter: to see that turns are off, or to check what aborts its wait.
    fn wake_all(&self) {
        for cv in self.waiting.values() {
            cv.notify_one();
        }
    }
}

struct Holder {
    id: TurnId,
    tid: u64,
    /// The thread's CPU time when first looked at in this turn (read then, not when
    /// it took the turn: most turns end before anyone looks, and a read costs a file).
    cpu_then: Option<Duration>,
    blocked_since: Option<Instant>,
    looked: Instant,
}

impl Turns {
    pub(crate) fn new() -> Turns {
        Turns {
            state: Mutex::new(State::default()),
            patient: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        choreo_base::lock(&self.state)
    }

    fn key(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// A new activity lines up: it runs once those before it have waited.
    pub(crate) fn enlist(&self) -> TurnId {
        let mut s = self.state();
        s.next += 1;
        let id = s.next;
        if !s.off {
            s.queue.push_back(id);
            s.wake_next();
        }
        id
    }

    /// An activity that waited lines up again (woken by whoever enlists it).
    pub(crate) fn enlist_again(&self, id: TurnId) {
        let mut s = self.state();
        if !s.off && !s.queue.contains(&id) && s.holder.as_ref().is_none_or(|h| h.id != id) {
            s.queue.push_back(id);
            s.wake_next();
        }
    }

    /// An enlisted activity will not start soon (no thread for it yet): it lines up when it
    /// takes its turn.
    pub(crate) fn withdraw(&self, id: TurnId) {
        let mut s = self.state();
        if let Some(i) = s.queue.iter().position(|&q| q == id) {
            s.queue.remove(i);
            s.withdrawn.insert(id);
            s.wake_next();
        }
    }

    /// Waits for turn `id`, then runs under it (this thread's turn from now on).
    pub(crate) fn take(&self, id: TurnId) {
        self.take_unless(id, || false);
    }

    /// [`Turns::take`], unless `abort` becomes true first (checked whenever the turns
    /// change, see [`Turns::nudge`]): then the turn is given up and false returned.
    pub(crate) fn take_unless(&self, id: TurnId, abort: impl Fn() -> bool) -> bool {
        let cv = Arc::new(Condvar::new());
        let mut s = self.state();
        s.waiting.insert(id, Arc::clone(&cv));
        let taken = loop {
            if s.withdrawn.remove(&id) {
                s.queue.push_back(id);
            }
            if s.off {
                break true;
            }
            if abort() {
                s.queue.retain(|&q| q != id);
                s.wake_next();
                break false;
            }
            if s.holder.is_none() && s.queue.front() == Some(&id) {
                s.queue.pop_front();
                let tid = choreo_base::thread::current_id();
                s.holder = Some(Holder {
                    id,
                    tid,
                    cpu_then: None,
                    blocked_since: None,
                    looked: Instant::now(),
                });
                break true;
            }
            self.look(&mut s);
            s = cv
                .wait_timeout(s, LOOK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        s.waiting.remove(&id);
        if taken {
            MINE.with(|m| m.set(Some((self.key(), id))));
        }
        taken
    }

    /// Wakes the threads waiting for a turn, to look at what they wait for again.
    pub(crate) fn nudge(&self) {
        self.state().wake_all();
    }

    /// What this thread runs under (any time base's turn), to lend to a thread that works
    /// for it while it waits ([`Turns::borrow`]).
    pub(crate) fn lend() -> LentTurn {
        LentTurn(MINE.with(std::cell::Cell::get))
    }

    /// This thread runs under `lent`, the turn of a thread that waits for it.
    pub(crate) fn borrow(lent: LentTurn) {
        MINE.with(|m| m.set(lent.0));
    }

    /// This thread's turn, if it runs under one.
    pub(crate) fn mine(&self) -> Option<TurnId> {
        MINE.with(|m| m.get())
            .filter(|(key, _)| *key == self.key())
            .map(|(_, id)| id)
    }

    /// This thread waits: the next in line goes on. It keeps its place in the turns (its
    /// id), to line up again when it is woken.
    pub(crate) fn give(&self) {
        let Some(id) = self.mine() else {
            return;
        };
        let mut s = self.state();
        if s.holder.as_ref().is_some_and(|h| h.id == id) {
            s.holder = None;
            s.wake_next();
        }
        s.outside.remove(&id);
    }

    /// This thread's activity is over.
    pub(crate) fn leave(&self) {
        self.give();
        if self.mine().is_some() {
            MINE.with(|m| m.set(None));
        }
    }

    /// How many activities run outside the turns (they lost theirs and have not waited
    /// since): the control thread does not wait for them.
    pub(crate) fn outside(&self) -> usize {
        self.state().outside.len()
    }

    /// Whether some activity holds the turn or waits in line for it.
    pub(crate) fn any(&self) -> bool {
        let s = self.state();
        !s.off && (s.holder.is_some() || !s.queue.is_empty())
    }

    /// Turns are over: everything runs as the OS schedules it (the clock was released).
    pub(crate) fn off(&self) {
        let mut s = self.state();
        s.off = true;
        s.holder = None;
        s.queue.clear();
        s.wake_all();
    }

    /// Looks at the holder (for a waiter): takes the turn from it if it waits on something
    /// other than the turns or never waits.
    pub(crate) fn watch(&self) {
        let mut s = self.state();
        self.look(&mut s);
    }

    /// What was said of holders that lost the turn since the last call: their turn, why.
    pub(crate) fn notices(&self) -> Vec<(TurnId, String)> {
        std::mem::take(&mut self.state().notices)
    }

    /// Whether turn `id` runs outside the turns (it lost its turn and has not waited since).
    pub(crate) fn is_outside(&self, id: TurnId) -> bool {
        self.state().outside.contains(&id)
    }

    /// While real work is done for box code, the holder keeps its turn however it waits
    /// (see [`Turns::patient`]); `false` ends one such work.
    pub(crate) fn be_patient(&self, working: bool) {
        use std::sync::atomic::Ordering;
        if working {
            self.patient.fetch_add(1, Ordering::SeqCst);
        } else {
            self.patient.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn look(&self, s: &mut State) {
        let Some(h) = s.holder.as_mut() else {
            return;
        };
        let now = Instant::now();
        if now.duration_since(h.looked) < LOOK {
            return;
        }
        h.looked = now;
        let Some(choreo_base::thread::Look { asleep, cpu }) = thread_stat(h.tid) else {
            return;
        };
        if self.patient.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            // Counted from the end of the load.
            h.blocked_since = None;
            h.cpu_then = Some(cpu);
            return;
        }
        if h.cpu_then.is_none() {
            h.cpu_then = Some(cpu);
        }
        let why = if asleep {
            let since = *h.blocked_since.get_or_insert(now);
            (now.duration_since(since) >= BLOCKED).then(|| {
                format!(
                    "waited {} s of real time on something other than the clock (a lock, a \
                     queue, I/O)",
                    BLOCKED.as_secs()
                )
            })
        } else {
            h.blocked_since = None;
            h.cpu_then
                .is_some_and(|then| cpu.saturating_sub(then) >= SPINNING)
                .then(|| {
                    format!(
                        "ran {} s of CPU time without waiting (a busy loop?)",
                        SPINNING.as_secs()
                    )
                })
        };
        if let Some(why) = why {
            let id = h.id;
            s.holder = None;
            s.outside.insert(id);
            s.notices.push((id, why));
            s.wake_next();
        }
    }
}

/// Threads of this process that wait while a thread of another process acts for them (box
/// code in a process of its own, running a hook this thread called): this thread's id, and
/// the process and thread to look at instead (see [`stand_in`]).
static STAND_INS: Mutex<Vec<(u64, u32, u64)>> = Mutex::new(Vec::new());

/// While it lives, the turns judge the calling thread by thread `tid` of process `pid`
/// (running, blocked, its CPU time): the thread that runs the box code this one waits for.
/// So box code computing in another process keeps its turn as it would in this one, and
/// one blocked there loses it.
pub struct StandIn(u64);

/// Makes thread `tid` of process `pid` stand in for the calling thread (see [`StandIn`]).
pub fn stand_in(pid: u32, tid: u64) -> StandIn {
    let me = choreo_base::thread::current_id();
    choreo_base::lock(&STAND_INS).push((me, pid, tid));
    StandIn(me)
}

impl Drop for StandIn {
    fn drop(&mut self) {
        choreo_base::lock(&STAND_INS).retain(|(me, _, _)| *me != self.0);
    }
}

/// What the kernel says of thread `tid`, or of the thread standing in for it, if one does
/// (`None` where the platform does not say: choreo_base's `thread`).
fn thread_stat(tid: u64) -> Option<choreo_base::thread::Look> {
    let stand_in = choreo_base::lock(&STAND_INS)
        .iter()
        .find(|(me, _, _)| *me == tid)
        .map(|&(_, pid, other)| (pid, other));
    match stand_in {
        Some((pid, other)) => choreo_base::thread::look(Some(pid), other),
        None => choreo_base::thread::look(None, tid),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn this_thread_reads_as_running_with_its_cpu_time() {
        let look = thread_stat(choreo_base::thread::current_id()).expect("/proc of this thread");
        assert!(!look.asleep);
    }

    #[test]
    fn turns_go_in_the_order_they_were_enlisted() {
        let turns = std::sync::Arc::new(Turns::new());
        let order = std::sync::Arc::new(Mutex::new(Vec::new()));
        let ids: Vec<TurnId> = (0..4).map(|_| turns.enlist()).collect();
        // Started in reverse: each still runs in its enlisted place.
        let threads: Vec<_> = ids
            .iter()
            .rev()
            .map(|&id| {
                let (turns, order) = (std::sync::Arc::clone(&turns), std::sync::Arc::clone(&order));
                std::thread::spawn(move || {
                    turns.take(id);
                    order.lock().unwrap().push(id);
                    turns.leave();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), ids);
    }

    /// Linux's: elsewhere the kernel is not asked whether a holder is blocked, and it keeps
    /// the turn (docs/platforms.md).
    #[test]
    #[cfg(target_os = "linux")]
    fn a_holder_blocked_on_something_else_loses_the_turn() {
        let turns = std::sync::Arc::new(Turns::new());
        let (a, b) = (turns.enlist(), turns.enlist());
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let t = std::sync::Arc::clone(&turns);
        let holder = std::thread::spawn(move || {
            t.take(a);
            // Blocked on a channel nobody sends to until b has run.
            let _ = rx.recv();
            t.leave();
        });
        turns.take(b);
        assert_eq!(turns.outside(), 1);
        assert_eq!(turns.notices().len(), 1);
        turns.leave();
        drop(tx);
        holder.join().unwrap();
        assert_eq!(turns.outside(), 0);
    }
}
