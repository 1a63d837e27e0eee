//! A fleet's shared frame clock: the timelines of one behavior running on several robots
//! start together.
//!
//! Each robot's run asks [`FleetSync`] before a timeline starts playing (the engine's
//! [`TimelineSync`]). The n-th start of the timeline at one box path is a rendezvous of every
//! robot still running: when the last one arrives, all are told to start at the same
//! instant, the next tick of a frame grid counted from the fleet's start (at the timeline's
//! frame rate) at least [`MARGIN`] away, so that every engine has the time to schedule it.
//! Robots that ran ahead wait for the late ones (a robot that took longer to stand up does
//! not dance a bar behind); a robot that ended or was lost is no longer waited for; and no
//! robot waits more than [`MAX_WAIT`] for the others (a robot whose behavior took another
//! path never arrives): those arrived start then, a later arrival starts at once.
//!
//! Why a rendezvous and not only a common start: on real robots the same box takes a
//! different time on each (a `wakeUp`, a speech, the network), so timelines started "when
//! the behavior gets there" drift apart by seconds; motion orders are sent when a timeline
//! starts, so starting the timelines together is what keeps the dance together.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use choreo_engine::engine::sync::{Go, TimelineSync};

/// Time given to every engine between the release and the start.
pub const MARGIN: Duration = Duration::from_millis(20);

/// The longest a robot waits at a rendezvous for the others.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One timeline start waited for: who arrived, since when.
struct Rendezvous {
    arrived: Vec<(usize, Go)>,
    since: Instant,
    fps: u32,
}

struct State {
    /// Per robot: its run goes on.
    running: Vec<bool>,
    /// By (box path, occurrence).
    pending: HashMap<(String, u32), Rendezvous>,
    /// Rendezvous already released: a late arrival starts at once.
    released: HashSet<(String, u32)>,
    /// How many starts were released with every running robot there.
    together: u64,
    /// How many were released by [`MAX_WAIT`] without some robots.
    partial: u64,
}

/// The fleet's rendezvous of timeline starts.
pub struct FleetSync {
    epoch: Instant,
    state: Mutex<State>,
}

impl FleetSync {
    /// A sync for `robots` robots, its frame grid counted from now; a watchdog thread ends
    /// rendezvous past [`MAX_WAIT`] (it stops when the sync is dropped).
    pub fn new(robots: usize) -> Arc<FleetSync> {
        let sync = Arc::new(FleetSync {
            epoch: Instant::now(),
            state: Mutex::new(State {
                running: vec![true; robots],
                pending: HashMap::new(),
                released: HashSet::new(),
                together: 0,
                partial: 0,
            }),
        });
        let weak = Arc::downgrade(&sync);
        let _ = std::thread::Builder::new()
            .name("fleet-sync".into())
            .spawn(move || watchdog(&weak));
        sync
    }

    /// The engine-side sync of robot `index`.
    pub fn member(self: &Arc<Self>, index: usize) -> Arc<dyn TimelineSync> {
        Arc::new(Member {
            fleet: Arc::clone(self),
            index,
        })
    }

    /// Robot `index`'s run ended: nobody waits for it any more.
    pub fn leave(&self, index: usize) {
        let mut state = lock(&self.state);
        if let Some(r) = state.running.get_mut(index) {
            *r = false;
        }
        self.release_ready(&mut state, false);
    }

    /// (starts released with every running robot, starts released without some).
    pub fn counts(&self) -> (u64, u64) {
        let state = lock(&self.state);
        (state.together, state.partial)
    }

    fn arrive(&self, index: usize, key: (String, u32), fps: u32, go: Go) {
        let mut state = lock(&self.state);
        if state.released.contains(&key) {
            drop(state);
            go(Duration::ZERO);
            return;
        }
        state
            .pending
            .entry(key)
            .or_insert_with(|| Rendezvous {
                arrived: Vec::new(),
                since: Instant::now(),
                fps,
            })
            .arrived
            .push((index, go));
        self.release_ready(&mut state, false);
    }

    /// Releases every rendezvous all running robots reached (`timed_out`: also those
    /// waiting longer than [`MAX_WAIT`]).
    fn release_ready(&self, state: &mut State, timed_out: bool) {
        let now = Instant::now();
        let ready: Vec<(String, u32)> = state
            .pending
            .iter()
            .filter(|(_, r)| {
                let all = state
                    .running
                    .iter()
                    .enumerate()
                    .all(|(i, running)| !running || r.arrived.iter().any(|(a, _)| *a == i));
                all || (timed_out && now.duration_since(r.since) >= MAX_WAIT)
            })
            .map(|(k, _)| k.clone())
            .collect();
        for key in ready {
            let Some(r) = state.pending.remove(&key) else {
                continue;
            };
            let complete = state
                .running
                .iter()
                .enumerate()
                .all(|(i, running)| !running || r.arrived.iter().any(|(a, _)| *a == i));
            if complete {
                state.together += 1;
            } else {
                state.partial += 1;
            }
            state.released.insert(key);
            let delay = self.delay_to_tick(now, r.fps);
            for (_, go) in r.arrived {
                go(delay);
            }
        }
    }

    /// From `now` to the first tick of the frame grid (`fps`, from the epoch) at least
    /// [`MARGIN`] away.
    fn delay_to_tick(&self, now: Instant, fps: u32) -> Duration {
        let earliest = now.duration_since(self.epoch) + MARGIN;
        let period = 1_000_000_000u128 / u128::from(fps.max(1));
        let ticks = earliest.as_nanos().div_ceil(period);
        let tick = Duration::from_nanos(u64::try_from(ticks * period).unwrap_or(u64::MAX));
        tick.saturating_sub(now.duration_since(self.epoch))
    }
}

fn watchdog(sync: &Weak<FleetSync>) {
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let Some(sync) = sync.upgrade() else {
            return;
        };
        let mut state = lock(&sync.state);
        sync.release_ready(&mut state, true);
    }
}

/// One robot's view of the fleet's sync.
struct Member {
    fleet: Arc<FleetSync>,
    index: usize,
}

impl TimelineSync for Member {
    fn arrive(&self, path: &str, occurrence: u32, fps: u32, go: Go) {
        self.fleet
            .arrive(self.index, (path.to_string(), occurrence), fps, go);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn robots_start_together_on_a_frame_tick_once_all_arrived() {
        let sync = FleetSync::new(3);
        let (tx, rx) = mpsc::channel();
        let go = |robot: usize| -> Go {
            let tx = tx.clone();
            Box::new(move |delay| {
                let _ = tx.send((robot, Instant::now() + delay));
            })
        };
        let key = |n| ("root/Dance".to_string(), n);
        sync.arrive(0, key(1), 25, go(0));
        sync.arrive(1, key(1), 25, go(1));
        assert!(rx.try_recv().is_err(), "released before robot 2 arrived");
        sync.arrive(2, key(1), 25, go(2));
        let starts: Vec<(usize, Instant)> = (0..3).map(|_| rx.recv().unwrap()).collect();
        let first = starts.iter().map(|s| s.1).min().unwrap();
        let last = starts.iter().map(|s| s.1).max().unwrap();
        // One instant for all (the callbacks ran microseconds apart), on the 40 ms grid.
        assert!(
            last - first < Duration::from_millis(5),
            "{:?}",
            last - first
        );
        let offset = (first - sync.epoch).as_nanos() % 40_000_000;
        assert!(
            !(1_000_000..39_000_000).contains(&offset),
            "{offset} ns off the grid"
        );
        assert_eq!(sync.counts(), (1, 0));
        // A robot that left is not waited for; a late arrival starts at once.
        sync.leave(1);
        sync.arrive(0, key(2), 25, go(0));
        sync.arrive(2, key(2), 25, go(2));
        assert_eq!(rx.recv().unwrap().0 + rx.recv().unwrap().0, 2);
        sync.arrive(1, key(2), 25, go(1));
        let (robot, at) = rx.recv().unwrap();
        assert_eq!(robot, 1);
        assert!(at <= Instant::now());
        assert_eq!(sync.counts(), (2, 0));
    }
}
