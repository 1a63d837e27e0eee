//! The rendezvous of timeline starts, and each robot's delay and clock measured (see
//! [`crate::fleet`]).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use choreo_base::lock;
use choreo_engine::Value;
use choreo_engine::engine::sync::{Go, Start, TimelineSync};

/// Time given to every engine between the release and the start.
pub const MARGIN: Duration = Duration::from_millis(20);

/// The longest a robot waits at a rendezvous for the others.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// How often each robot's round trip is measured.
pub const PROBE_EVERY: Duration = Duration::from_millis(200);

/// How often each robot's clock is read: less often than its round trip is measured, as
/// every message on a connection waits for the one before it (TCP), and the clock needs few.
pub const CLOCK_EVERY: Duration = Duration::from_secs(5);

/// How many round trips the delay is the median of.
pub const PROBE_KEPT: usize = 7;

/// A delay above this is taken as this (a robot so far away is not waited for longer).
const MOST_DELAY: Duration = Duration::from_secs(2);

/// A delay that moved more than this during the run is reported with where it started.
const MOVED: Duration = Duration::from_millis(20);

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
    /// Per robot: its one-way delay as last measured (zero until measured).
    delays: Vec<Duration>,
    /// Per robot: the slowest of its recent round trips (zero until measured).
    slowest: Vec<Duration>,
    /// Per robot: its delay once first measured (three round trips).
    first: Vec<Option<Duration>>,
    /// Per robot: probed, and not measured yet.
    unmeasured: Vec<bool>,
    /// Per robot: half the spread of its recent round trips.
    jitter: Vec<Duration>,
    /// Per robot: its clock less the fleet's, in ms, and within how many ms (unknown without
    /// a DCM).
    clocks: Vec<Option<(f64, f64)>>,
    /// Per timeline start, in the order of the first robot's: when each robot's first orders
    /// reach it (its start frame played, plus its delay then).
    reached: Vec<((String, u32), Vec<Instant>)>,
}

/// What one probe's round trip measured.
enum Sample {
    /// A `machineId()` round trip, for the delay.
    Delay(Duration),
    /// A `DCM.getTime(0)` round trip, asked at `asked`, that took `took`: the robot's clock
    /// was `ms` somewhere within it.
    Clock {
        asked: Instant,
        took: Duration,
        ms: i64,
    },
}

/// Keeps `sample` among the last [`PROBE_KEPT`].
fn keep<T>(kept: &mut VecDeque<T>, sample: T) {
    kept.push_back(sample);
    if kept.len() > PROBE_KEPT {
        kept.pop_front();
    }
}

impl State {
    /// Robot `index`'s recent round trips were `kept`: its delay is half their median, its
    /// jitter half their spread.
    fn measured(&mut self, index: usize, kept: &VecDeque<Duration>) {
        let mut sorted: Vec<Duration> = kept.iter().copied().collect();
        sorted.sort();
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or_default();
        let delay = (median / 2).min(MOST_DELAY);
        let slowest = sorted.last().copied().unwrap_or_default();
        let quickest = sorted.first().copied().unwrap_or_default();
        if let Some(j) = self.jitter.get_mut(index) {
            *j = (slowest - quickest) / 2;
        }
        if let Some(d) = self.delays.get_mut(index) {
            *d = delay;
        }
        if let Some(s) = self.slowest.get_mut(index) {
            *s = slowest.min(MOST_DELAY * 2);
        }
        if kept.len() >= 3 {
            if let Some(u) = self.unmeasured.get_mut(index) {
                *u = false;
            }
            if let Some(f) = self.first.get_mut(index) {
                f.get_or_insert(delay);
            }
        }
    }

    /// Robot `index`'s recent clock round trips were `kept` (how long each took, and the
    /// robot's clock less the fleet's at its middle, in ms): the quickest says the offset,
    /// within half of it and the DCM's whole ms.
    fn clocked(&mut self, index: usize, kept: &VecDeque<(Duration, f64)>) {
        let quickest = kept.iter().min_by_key(|(took, _)| *took);
        if let (Some((took, offset)), Some(slot)) = (quickest, self.clocks.get_mut(index)) {
            *slot = Some((*offset, took.as_secs_f64() * 500.0 + 1.0));
        }
    }
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
                delays: vec![Duration::ZERO; robots],
                jitter: vec![Duration::ZERO; robots],
                clocks: vec![None; robots],
                reached: Vec::new(),
                slowest: vec![Duration::ZERO; robots],
                first: vec![None; robots],
                unmeasured: vec![false; robots],
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

    /// Follows robot `index`, reached over qi: its delay and clock measured all along
    /// ([`FleetSync::probe`]), and the modules a timeline's start calls looked up now, on a
    /// thread of their own (a robot far away would otherwise start late by these round
    /// trips).
    pub fn follow(self: &Arc<Self>, index: usize, remote: &Arc<choreo_qi::RemoteRobot>) {
        self.probe(index, remote.session().clone());
        let remote = Arc::clone(remote);
        let _ = std::thread::Builder::new()
            .name("fleet-prepare".into())
            .spawn(move || remote.prepare(&["ALMotion", "ALMemory"]));
    }

    /// Measures robot `index`'s one-way delay over `session` on a thread of its own, and its
    /// clock on another (where it has a DCM), until the robot's run ends or the sync is
    /// dropped (a failed probe is skipped: the run itself reports a lost robot).
    pub fn probe(self: &Arc<Self>, index: usize, session: choreo_qi::Session) {
        if let Some(u) = lock(&self.state).unmeasured.get_mut(index) {
            *u = true;
        }
        let directory = session.clone();
        self.every(index, "fleet-probe", PROBE_EVERY, move || {
            let started = Instant::now();
            let answered = directory.machine_id().is_ok();
            answered.then(|| Sample::Delay(started.elapsed()))
        });
        let mut dcm = None;
        self.every(index, "fleet-clock", CLOCK_EVERY, move || {
            if dcm.is_none() {
                // Once only: a robot without a DCM is probed for its delay alone.
                dcm = Some(session.service("DCM").ok());
            }
            let asked = Instant::now();
            let answer = dcm.as_ref()?.as_ref()?.call("getTime", &[Value::Int(0)]);
            let Ok(Value::Int(ms)) = answer else {
                return None;
            };
            Some(Sample::Clock {
                asked,
                took: asked.elapsed(),
                ms,
            })
        });
    }

    /// Runs `round` every `period` on a thread of its own and keeps the last [`PROBE_KEPT`]
    /// samples it gives for robot `index`, until the robot's run ends or the sync is dropped.
    fn every(
        self: &Arc<Self>,
        index: usize,
        name: &str,
        period: Duration,
        mut round: impl FnMut() -> Option<Sample> + Send + 'static,
    ) {
        let weak = Arc::downgrade(self);
        let _ = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let (mut delays, mut clocks) = (VecDeque::new(), VecDeque::new());
                loop {
                    let started = Instant::now();
                    let sample = round();
                    let Some(sync) = weak.upgrade() else { return };
                    let mut state = lock(&sync.state);
                    if !state.running.get(index).copied().unwrap_or(false) {
                        return;
                    }
                    match sample {
                        Some(Sample::Delay(round_trip)) => {
                            keep(&mut delays, round_trip);
                            state.measured(index, &delays);
                        }
                        Some(Sample::Clock { asked, took, ms }) => {
                            let middle = (asked + took / 2).duration_since(sync.epoch);
                            keep(
                                &mut clocks,
                                (took, ms as f64 - middle.as_secs_f64() * 1000.0),
                            );
                            state.clocked(index, &clocks);
                        }
                        None => {}
                    }
                    drop(state);
                    drop(sync);
                    std::thread::sleep(period.saturating_sub(started.elapsed()));
                }
            });
    }

    /// Waits until every probed robot's delay was measured three times (up to `limit`: a
    /// robot that does not answer is left to its run), so that the first timelines already
    /// start early by it.
    pub fn wait_measured(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while lock(&self.state).unmeasured.iter().any(|u| *u) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The report's lines on the network and the starts: each robot's delay and clock, and
    /// how far apart the timelines started (see the module documentation).
    pub fn report(&self) -> Vec<String> {
        let numbered = |said: Vec<String>| -> String {
            let all: Vec<String> = said
                .iter()
                .enumerate()
                .map(|(i, d)| format!("{}: {d}", i + 1))
                .collect();
            all.join(", ")
        };
        let mut lines = vec![
            format!(
                "delays         {} (one way, measured, ± jitter; orders sent early by them)",
                numbered(self.delays_said())
            ),
            format!(
                "clocks         {} (each robot's DCM time less the fleet's)",
                numbered(self.clocks_said())
            ),
        ];
        let spreads = self.spreads();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        if let Some(worst) = spreads.iter().map(|s| s.3).max() {
            let said: Vec<String> = spreads
                .iter()
                .take(3)
                .map(|(path, n, robots, spread)| {
                    format!("{path} ({n}): {:.1} ms, {robots} robots", ms(*spread))
                })
                .collect();
            lines.push(format!(
                "start spread   {:.1} ms at most over {} timeline starts: {}{} (first orders \
                 reaching the robots: start frame played plus delay; the jitter comes on top)",
                ms(worst),
                spreads.len(),
                said.join("; "),
                if spreads.len() > 3 { "; ..." } else { "" }
            ));
        }
        lines
    }

    /// Each robot's delay for the report: `5.1 ms ±0.4`, or `5.1 → 99.8 ms ±0.4` when it
    /// moved more than [`MOVED`] since first measured (± its jitter).
    fn delays_said(&self) -> Vec<String> {
        let state = lock(&self.state);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        state
            .delays
            .iter()
            .zip(&state.first)
            .zip(&state.jitter)
            .map(|((last, first), jitter)| match first {
                Some(f) if f.abs_diff(*last) > MOVED => {
                    format!("{:.1} → {:.1} ms ±{:.1}", ms(*f), ms(*last), ms(*jitter))
                }
                _ => format!("{:.1} ms ±{:.1}", ms(*last), ms(*jitter)),
            })
            .collect()
    }

    /// Each robot's clock against the fleet's for the report: `+1234.5 ms ±0.6`, or `?`
    /// (no DCM, or not measured).
    fn clocks_said(&self) -> Vec<String> {
        lock(&self.state)
            .clocks
            .iter()
            .map(|c| match c {
                Some((offset, within)) => format!("{offset:+.1} ms ±{within:.1}"),
                None => "?".to_string(),
            })
            .collect()
    }

    /// How far apart the robots' first orders of each timeline start reached them (see the
    /// module documentation): (box path, occurrence, robots, spread), in the order of the
    /// starts.
    fn spreads(&self) -> Vec<(String, u32, usize, Duration)> {
        lock(&self.state)
            .reached
            .iter()
            .map(|((path, occurrence), at)| {
                let first = at.iter().min().copied();
                let last = at.iter().max().copied();
                let spread = match (first, last) {
                    (Some(f), Some(l)) => l - f,
                    _ => Duration::ZERO,
                };
                (path.clone(), *occurrence, at.len(), spread)
            })
            .collect()
    }

    /// Robot `index` played the start frame of `key`'s timeline start now: its orders reach
    /// it after its delay.
    fn played(&self, index: usize, key: (String, u32)) {
        let mut state = lock(&self.state);
        let at = Instant::now() + state.delays.get(index).copied().unwrap_or_default();
        match state.reached.iter_mut().find(|(k, _)| *k == key) {
            Some((_, reached)) => reached.push(at),
            None => state.reached.push((key, vec![at])),
        }
    }

    fn lead(&self, index: usize) -> Duration {
        lock(&self.state)
            .delays
            .get(index)
            .copied()
            .unwrap_or_default()
    }

    /// (starts released with every running robot, starts released without some).
    pub fn counts(&self) -> (u64, u64) {
        let state = lock(&self.state);
        (state.together, state.partial)
    }

    fn arrive(&self, index: usize, key: (String, u32), fps: u32, go: Go) {
        let mut state = lock(&self.state);
        if state.released.contains(&key) {
            let lead = state.delays.get(index).copied().unwrap_or_default();
            drop(state);
            go(Start {
                after: Duration::ZERO,
                lead,
            });
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
            // The orders leave early by each robot's delay, so that they all arrive at the
            // tick; the tick is far enough for each robot to read its angles (its slowest
            // recent round trip) before its order leaves.
            let delay_of = |i: usize| state.delays.get(i).copied().unwrap_or_default();
            let slowest = |i: usize| state.slowest.get(i).copied().unwrap_or_default();
            let lead = r
                .arrived
                .iter()
                .map(|(i, _)| delay_of(*i) + slowest(*i))
                .max()
                .unwrap_or_default();
            let delay = self.delay_to_tick(now, r.fps, lead);
            for (i, go) in r.arrived {
                go(Start {
                    after: delay.saturating_sub(delay_of(i)),
                    lead: delay_of(i),
                });
            }
        }
    }

    /// From `now` to the first tick of the frame grid (`fps`, from the epoch) at least
    /// [`MARGIN`] and `lead` away.
    fn delay_to_tick(&self, now: Instant, fps: u32, lead: Duration) -> Duration {
        let earliest = now.duration_since(self.epoch) + MARGIN + lead;
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

    fn lead(&self) -> Duration {
        self.fleet.lead(self.index)
    }

    fn played(&self, path: &str, occurrence: u32) {
        self.fleet
            .played(self.index, (path.to_string(), occurrence));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn robots_start_together_on_a_frame_tick_once_all_arrived() {
        let sync = FleetSync::new(3);
        let (tx, rx) = mpsc::channel();
        let go = |robot: usize| -> Go {
            let tx = tx.clone();
            Box::new(move |start: Start| {
                let _ = tx.send((robot, Instant::now() + start.after));
            })
        };
        let key = |n| ("root/Dance".to_string(), n);
        sync.arrive(0, key(1), 25, go(0));
        sync.arrive(1, key(1), 25, go(1));
        assert!(rx.try_recv().is_err(), "released before robot 2 arrived");
        // The callbacks add `after` to the instant they run at: each start is the tick plus
        // however late its callback ran, at most the time the last arrival took (a busy
        // machine may preempt it for milliseconds).
        let before = Instant::now();
        sync.arrive(2, key(1), 25, go(2));
        let late = before.elapsed();
        let starts: Vec<(usize, Instant)> = (0..3).map(|_| rx.recv().unwrap()).collect();
        let first = starts.iter().map(|s| s.1).min().unwrap();
        let last = starts.iter().map(|s| s.1).max().unwrap();
        // One instant for all, on the 40 ms grid.
        assert!(
            last - first <= late,
            "{:?} apart, {late:?} late",
            last - first
        );
        let offset = (first - sync.epoch).as_nanos() % 40_000_000;
        let late = late.as_nanos() + 1_000_000;
        assert!(
            offset <= late || offset >= 40_000_000 - 1_000_000,
            "{offset} ns off the grid, {late} ns late at most"
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

    #[test]
    fn a_robot_far_away_is_told_earlier_by_its_delay() {
        let sync = FleetSync::new(2);
        {
            let mut state = lock(&sync.state);
            state.delays = vec![Duration::from_millis(5), Duration::from_millis(100)];
            state.slowest = vec![Duration::from_millis(12), Duration::from_millis(230)];
        }
        let (tx, rx) = mpsc::channel();
        for robot in 0..2 {
            let tx = tx.clone();
            sync.arrive(
                robot,
                ("root/Dance".to_string(), 1),
                25,
                Box::new(move |start: Start| {
                    let _ = tx.send((robot, start));
                }),
            );
        }
        let mut told: Vec<(usize, Start)> = (0..2).map(|_| rx.recv().unwrap()).collect();
        told.sort_by_key(|(robot, _)| *robot);
        let (near, far) = (told[0].1, told[1].1);
        // Robot 2 is told 95 ms before robot 1 (the callbacks ran at one instant), each
        // runs ahead by its own delay, and robot 2's order leaves after its angles are
        // read: its slowest round trip (230 ms) and the 20 ms margin.
        assert_eq!(near.after - far.after, Duration::from_millis(95));
        assert_eq!(
            (near.lead, far.lead),
            (Duration::from_millis(5), Duration::from_millis(100))
        );
        assert!(
            far.after >= Duration::from_millis(230) + MARGIN,
            "{:?}",
            far.after
        );
        assert_eq!(sync.member(1).lead(), Duration::from_millis(100));
    }

    /// A robot 30 ms away (±20 ms each way, so the two ways differ): its clock's offset, as
    /// the probes measure it, is within its stated bound of the truth, read in this process
    /// from the robot's own DCM clock between two readings of the fleet's (microseconds
    /// apart). The bound holds whatever the two ways take: the robot read its clock
    /// somewhere inside the round trip. And a start played is reported with its spread.
    #[test]
    fn a_robot_s_clock_is_measured_within_half_a_round_trip() {
        use choreo_engine::robot::Robot;
        let robot = Arc::new(choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Nao));
        let served = choreo_qi::serve_robot(
            Arc::clone(&robot) as Arc<dyn Robot>,
            "tcp://127.0.0.1:0",
            None,
            choreo_qi::ServerOptions {
                latency: Some(choreo_qi::Latency::parse("30±20").unwrap()),
                ..choreo_qi::ServerOptions::default()
            },
        )
        .unwrap();
        let session = choreo_qi::Session::connect(&served.url).unwrap();
        let sync = Arc::new(FleetSync::new(1));
        sync.probe(0, session);
        let deadline = Instant::now() + Duration::from_secs(30);
        while lock(&sync.state).clocks[0].is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let (offset, within) = lock(&sync.state).clocks[0].expect("measured");
        let before = Instant::now();
        let Value::Int(robot_ms) = robot.call("DCM", "getTime", vec![Value::Int(0)]).unwrap()
        else {
            panic!("DCM.getTime is not an int");
        };
        let after = Instant::now();
        let ms = |t: Instant| t.duration_since(sync.epoch).as_secs_f64() * 1000.0;
        // The DCM's ms are whole: the truth is within 1 ms below what it says.
        let (lowest, highest) = (
            robot_ms as f64 - ms(after) - 1.0,
            robot_ms as f64 - ms(before),
        );
        assert!(
            offset + within >= lowest && offset - within <= highest,
            "measured {offset:.2} ± {within:.2} ms, the truth within [{lowest:.2}, {highest:.2}]"
        );
        // Half of the quickest round trip (two ways of at least 10 ms each), plus the DCM's
        // ms.
        assert!(within >= 10.99, "{within}");
        assert_eq!(sync.clocks_said().len(), 1);
        // A start played: its first orders reach the robot after its delay.
        sync.member(0).played("root/Dance", 1);
        let spreads = sync.spreads();
        assert_eq!(
            spreads,
            vec![("root/Dance".to_string(), 1, 1, Duration::ZERO)]
        );
        sync.leave(0);
    }
}
