//! The control queue: commands posted by box code, workers, robot jobs and the engine's
//! handle, taken in order by the control thread, its only reader.
//!
//! A lock around a deque rather than a channel: an inline signal hop posts one command and
//! takes one, and an uncontended lock each way costs a third of what the unbounded channel's
//! atomics did (issue 33, part 4). The reader sleeps only in [`Receiver::recv_timeout`], and
//! a post wakes it only then.
//!
//! A command the control thread posts to its own queue (an inline hook firing an output)
//! skips the lock: it goes to the thread's own list ([`OWN`]) when nothing from another
//! thread is queued, and the reader takes that list first. Every command in the list was
//! posted before every command in the shared deque (one goes to the list only when the
//! deque is empty), so the order posted is the order taken, as with one deque. The reader
//! ([`Reader`], made on its thread) holds the list itself, so taking a command looks up no
//! thread-local; a post finds it through [`OWN`].
//!
//! In that list an output fired with a bang, the hop's command, is a plain word, made and
//! read in registers ([`Sender::send_bang`], [`Reader::try_bang`]): a whole [`Command`]
//! moved in and out of a list is stored in pieces and loaded whole, and each load waits
//! for the stores before it (measured, those waits were a tenth of an inline hop).
//!
//! Unbounded, and argued: the control thread drains it at once but while it runs a budget
//! of steps; what is queued meanwhile is one command per hook return, timer, fired output
//! or memory event, each bounded by the work that produced it.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::engine::command::Command;
use crate::graph::BoxId;

thread_local! {
    /// The queue this thread reads (by address; 0: none), checked first and cheaply: a
    /// plain value, no lookup of the list.
    static READS: Cell<usize> = const { Cell::new(0) };
    /// The commands the reader posted to itself (its [`Reader`] holds the same list).
    static OWN: RefCell<Option<Rc<Own>>> = const { RefCell::new(None) };
}

/// The commands the reader posted to itself, in order.
type Own = RefCell<OwnList>;

/// The reader's own posts: a word each, in order: an output fired with a bang
/// ([`fire_word`]), or [`WHOLE`], whose command is the next in `commands`.
#[derive(Default)]
struct OwnList {
    order: VecDeque<u64>,
    commands: VecDeque<Command>,
}

/// In [`OwnList::order`]: the next command of [`OwnList::commands`].
const WHOLE: u64 = 0;

/// In [`OwnList::order`]: output `output` of box `b` fired with a bang (never [`WHOLE`]).
#[inline(always)]
fn fire_word(b: BoxId, output: u16) -> u64 {
    1 | u64::from(output) << 16 | u64::from(b.0) << 32
}

impl OwnList {
    fn push(&mut self, c: Command) {
        self.order.push_back(WHOLE);
        self.commands.push_back(c);
    }

    /// The oldest post if it is a bang: `(box, output)`.
    #[inline(always)]
    fn pop_bang(&mut self) -> Option<(BoxId, u16)> {
        match self.order.front() {
            Some(&word) if word != WHOLE => {
                self.order.pop_front();
                Some((BoxId((word >> 32) as u32), (word >> 16) as u16))
            }
            _ => None,
        }
    }

    /// The oldest post, whole.
    fn pop(&mut self) -> Option<Command> {
        if let Some((b, output)) = self.pop_bang() {
            return Some(Command::Fire {
                b,
                output,
                value: choreo_base::Value::None,
            });
        }
        self.order.pop_front()?;
        self.commands.pop_front()
    }
}

/// What the posting side and the reader share.
struct Queue {
    state: Mutex<State>,
    /// Signalled by a post while the reader sleeps.
    posted: Condvar,
    /// The deque holds commands (kept with it, under its lock): the reader's own posts go
    /// to its list only while it does not.
    queued: AtomicBool,
}

struct State {
    commands: VecDeque<Command>,
    /// The reader sleeps in [`Receiver::recv_timeout`].
    sleeping: bool,
    /// The reader is gone: posts are dropped (robot jobs may outlive their run).
    closed: bool,
}

impl Queue {
    /// This queue's identity, as the reader's thread keeps it.
    fn address(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// Whether the calling thread reads this queue.
    #[inline(always)]
    fn read_here(&self) -> bool {
        READS.get() == self.address()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every state the lock guards is consistent between statements.
        choreo_base::lock(&self.state)
    }
}

/// Posts commands to the control thread. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Sender(Arc<Queue>);

/// The control thread's end, until it becomes that thread's [`Reader`]. Dropped so, it
/// closes the queue.
pub(crate) struct Receiver(Option<Arc<Queue>>);

/// The control thread's end, on its thread: takes commands in the order they were posted.
pub(crate) struct Reader {
    queue: Arc<Queue>,
    own: Rc<Own>,
}

/// A new, empty queue.
pub(crate) fn queue() -> (Sender, Receiver) {
    let q = empty();
    (Sender(Arc::clone(&q)), Receiver(Some(q)))
}

fn empty() -> Arc<Queue> {
    Arc::new(Queue {
        state: Mutex::new(State {
            commands: VecDeque::new(),
            sleeping: false,
            closed: false,
        }),
        posted: Condvar::new(),
        queued: AtomicBool::new(false),
    })
}

impl Sender {
    /// Posts `c` after every command posted before it; `Err(c)` once the reader is gone.
    #[inline(always)]
    pub(crate) fn send(&self, c: Command) -> Result<(), Command> {
        match self.to_own(c, OwnList::push) {
            Ok(()) => Ok(()),
            Err(c) => self.send_shared(c),
        }
    }

    /// Posts output `output` of box `b` fired with a bang, as [`Sender::send`] would.
    #[inline(always)]
    pub(crate) fn send_bang(&self, b: BoxId, output: u16) -> Result<(), Command> {
        match self.to_own(fire_word(b, output), |own, word| own.order.push_back(word)) {
            Ok(()) => Ok(()),
            Err(_) => self.send_shared(Command::Fire {
                b,
                output,
                value: choreo_base::Value::None,
            }),
        }
    }

    /// Puts `item` on the reader's own list with `push` if the caller is the reader and
    /// nothing from another thread is queued (see the module's doc); else gives it back.
    #[inline(always)]
    fn to_own<T>(&self, item: T, push: impl FnOnce(&mut OwnList, T)) -> Result<(), T> {
        if self.0.queued.load(Ordering::Acquire) || !self.0.read_here() {
            return Err(item);
        }
        OWN.with(|own| {
            let Ok(own) = own.try_borrow() else {
                return Err(item);
            };
            let Some(Ok(mut list)) = own.as_deref().map(RefCell::try_borrow_mut) else {
                return Err(item);
            };
            push(&mut list, item);
            Ok(())
        })
    }

    /// Posts `c` to the deque the reader shares with the other threads.
    fn send_shared(&self, c: Command) -> Result<(), Command> {
        let mut s = self.0.lock();
        if s.closed {
            return Err(c);
        }
        s.commands.push_back(c);
        self.0.queued.store(true, Ordering::Release);
        if s.sleeping {
            self.0.posted.notify_one();
        }
        Ok(())
    }
}

impl Receiver {
    /// Makes the calling thread this queue's reader: what it posts to the queue itself goes
    /// to its own list (see the module's doc).
    pub(crate) fn reader(mut self) -> Reader {
        // Always there: only this takes it, and it consumes the receiver.
        let queue = self.0.take().unwrap_or_else(empty);
        READS.set(queue.address());
        let own = Rc::new(Own::default());
        OWN.with(|o| {
            if let Ok(mut o) = o.try_borrow_mut() {
                *o = Some(Rc::clone(&own));
            }
        });
        Reader { queue, own }
    }
}

impl Drop for Receiver {
    /// Never made a reader: the queue is closed, what was posted dropped.
    fn drop(&mut self) {
        if let Some(q) = self.0.take() {
            close(&q, OwnList::default());
        }
    }
}

/// The run is over: what was posted and never taken is dropped now (`own`, and the deque),
/// and what is posted from now on at once.
fn close(q: &Queue, own: OwnList) {
    let mut s = q.lock();
    s.closed = true;
    let unread = std::mem::take(&mut s.commands);
    q.queued.store(false, Ordering::Release);
    drop(s);
    drop((own, unread));
}

impl Reader {
    /// The oldest command this thread posted to itself.
    fn own_command(&self) -> Option<Command> {
        self.own.try_borrow_mut().ok()?.pop()
    }

    /// The oldest command posted, if it is an output this thread fired with a bang:
    /// `(box, output)`, in registers (see the module's doc).
    #[inline(always)]
    pub(crate) fn try_bang(&self) -> Option<(BoxId, u16)> {
        self.own.try_borrow_mut().ok()?.pop_bang()
    }

    /// Takes the deque's oldest command.
    fn pop(&self, s: &mut State) -> Option<Command> {
        let c = s.commands.pop_front();
        if s.commands.is_empty() {
            self.queue.queued.store(false, Ordering::Release);
        }
        c
    }

    /// The oldest command posted, if any.
    pub(crate) fn try_recv(&self) -> Option<Command> {
        if let Some(c) = self.own_command() {
            return Some(c);
        }
        if !self.queue.queued.load(Ordering::Acquire) {
            return None;
        }
        self.pop(&mut self.queue.lock())
    }

    /// Whether nothing is posted.
    pub(crate) fn is_empty(&self) -> bool {
        self.own.try_borrow().is_ok_and(|own| own.order.is_empty())
            && self.queue.lock().commands.is_empty()
    }

    /// The oldest command posted, waiting up to `timeout` for one; `None` if none came.
    pub(crate) fn recv_timeout(&self, timeout: Duration) -> Option<Command> {
        if let Some(c) = self.own_command() {
            return Some(c);
        }
        let deadline = Instant::now().checked_add(timeout);
        let mut s = self.queue.lock();
        loop {
            if let Some(c) = self.pop(&mut s) {
                return Some(c);
            }
            let left = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => timeout,
            };
            if left.is_zero() {
                return None;
            }
            s.sleeping = true;
            s = match self.queue.posted.wait_timeout(s, left) {
                Ok((s, _)) => s,
                Err(poisoned) => poisoned.into_inner().0,
            };
            s.sleeping = false;
        }
    }
}

impl Drop for Reader {
    /// What was posted and never taken is dropped now, and what is posted from now on at
    /// once: the run is over.
    fn drop(&mut self) {
        if self.queue.read_here() {
            READS.set(0);
            OWN.with(|o| {
                if let Ok(mut o) = o.try_borrow_mut() {
                    *o = None;
                }
            });
        }
        let own = self
            .own
            .try_borrow_mut()
            .map(|mut own| std::mem::take(&mut *own))
            .unwrap_or_default();
        close(&self.queue, own);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::BoxId;

    fn fire(output: u16) -> Command {
        Command::Fire {
            b: BoxId(0),
            output,
            value: choreo_base::Value::None,
        }
    }

    fn output(c: Option<Command>) -> Option<u16> {
        match c {
            Some(Command::Fire { output, .. }) => Some(output),
            _ => None,
        }
    }

    #[test]
    fn commands_come_out_in_the_order_posted_from_several_threads() {
        let (tx, rx) = queue();
        let rx = rx.reader();
        let threads: Vec<_> = (0..4u16)
            .map(|t| {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for i in 0..1000u16 {
                        assert!(tx.send(fire(t * 1000 + i)).is_ok());
                    }
                })
            })
            .collect();
        let mut last = [None::<u16>; 4];
        let mut taken = 0;
        while taken < 4000 {
            let Some(o) = output(rx.recv_timeout(Duration::from_secs(60))) else {
                panic!("a command posted was never taken");
            };
            let t = usize::from(o / 1000);
            assert!(last[t].is_none_or(|l| l < o), "thread {t}'s order kept");
            last[t] = Some(o);
            taken += 1;
        }
        for t in threads {
            assert!(t.join().is_ok());
        }
        assert!(rx.is_empty());
        assert!(rx.try_recv().is_none());
    }

    #[test]
    fn the_readers_own_posts_keep_their_place_among_the_others() {
        let (tx, rx) = queue();
        let rx = rx.reader();
        let other = |o: u16| {
            let tx = tx.clone();
            assert!(
                std::thread::spawn(move || tx.send(fire(o)).is_ok())
                    .join()
                    .unwrap_or(false)
            );
        };
        // Its own list while nothing else is queued, the deque after another's post.
        assert!(tx.send(fire(1)).is_ok());
        assert!(tx.send(fire(2)).is_ok());
        other(3);
        assert!(tx.send(fire(4)).is_ok());
        assert!(!rx.is_empty());
        let taken: Vec<_> = std::iter::from_fn(|| output(rx.try_recv())).collect();
        assert_eq!(taken, [1, 2, 3, 4]);
        assert!(rx.is_empty());
        // The deque emptied, its own posts go to its list again, still in order.
        other(5);
        assert_eq!(output(rx.recv_timeout(Duration::from_secs(60))), Some(5));
        assert!(tx.send(fire(6)).is_ok());
        other(7);
        assert_eq!(output(rx.recv_timeout(Duration::from_secs(60))), Some(6));
        assert_eq!(output(rx.try_recv()), Some(7));
        assert!(tx.send(fire(8)).is_ok());
        // Bangs, kept as words, in their place among whole commands; taken as bangs only
        // when they come first.
        assert!(tx.send_bang(BoxId(0), 9).is_ok());
        assert!(tx.send(fire(10)).is_ok());
        assert!(tx.send_bang(BoxId(0), 11).is_ok());
        other(12);
        assert!(tx.send_bang(BoxId(0), 13).is_ok());
        assert_eq!(output(rx.try_recv()), Some(8));
        assert_eq!(rx.try_bang(), Some((BoxId(0), 9)));
        assert_eq!(rx.try_bang(), None);
        let taken: Vec<_> = std::iter::from_fn(|| output(rx.try_recv())).collect();
        assert_eq!(taken, [10, 11, 12, 13]);
        assert!(rx.is_empty());
        assert!(tx.send(fire(8)).is_ok());
        drop(rx);
        assert!(
            tx.send(fire(9)).is_err() && tx.send_bang(BoxId(0), 9).is_err(),
            "the reader is gone, its list with it"
        );
    }

    #[test]
    fn a_sleeping_reader_is_woken_by_a_post_and_a_quiet_one_times_out() {
        let (tx, rx) = queue();
        let rx = rx.reader();
        assert!(output(rx.recv_timeout(Duration::from_millis(1))).is_none());
        let poster = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            assert!(tx.send(fire(7)).is_ok());
            tx
        });
        // Far longer than the post takes even on a loaded machine: a missed wake-up shows
        // as a timeout.
        assert_eq!(output(rx.recv_timeout(Duration::from_secs(120))), Some(7));
        let tx = poster.join().ok();
        drop(rx);
        let Some(tx) = tx else {
            panic!("the poster panicked");
        };
        assert!(tx.send(fire(8)).is_err(), "the reader is gone");
    }
}
