//! The engine's clocks: virtual time (exact, deterministic) and real time (order, cancel,
//! clean shutdown). Real-time tests assert lateness only loosely: the timing targets are
//! measured by `benches/frame_clock.rs`, not asserted here.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use choreo_engine::clock::{Clock, Priority, RealClock, Time, TimerToken, VirtualClock, WakeSink};

const MS: u64 = 1_000_000;

/// A sink recording every delivered token.
fn recorder() -> (WakeSink, Arc<Mutex<Vec<TimerToken>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink_log = Arc::clone(&log);
    let sink: WakeSink = Arc::new(move |token| sink_log.lock().unwrap().push(token));
    (sink, log)
}

fn taken(log: &Mutex<Vec<TimerToken>>) -> Vec<TimerToken> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// Polls `cond` until it holds or `limit` passes; returns whether it held.
fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        thread::sleep(Duration::from_millis(1));
    }
    cond()
}

// ------------------------------------------------------------------------------ Time

#[test]
fn frame_deadline_is_exact() {
    let start = Time(0);
    assert_eq!(Time::frame_deadline(start, 3, 30), Time(100 * MS));
    assert_eq!(Time::frame_deadline(start, 0, 30), start);
    assert_eq!(Time::frame_deadline(start, 1, 30), Time(33_333_333));
    assert_eq!(Time::frame_deadline(start, 30, 30), Time(1_000_000_000));
    assert_eq!(Time::frame_deadline(Time(7), 25, 25), Time(1_000_000_007));
    // fps 0 is treated as 1 (no division by zero).
    assert_eq!(Time::frame_deadline(start, 2, 0), Time(2_000_000_000));
}

#[test]
fn frame_deadline_does_not_drift() {
    for fps in [10u32, 15, 24, 25, 30, 50, 60, 100] {
        let n = 1_000_000u64;
        let deadline = Time::frame_deadline(Time(5), n, fps);
        // Exactly n / fps seconds, floored to the nanosecond, after the start.
        let expected = 5 + (u128::from(n) * 1_000_000_000 / u128::from(fps)) as u64;
        assert_eq!(deadline, Time(expected), "fps {fps}");
        // Every whole second lands on the second exactly.
        assert_eq!(
            Time::frame_deadline(Time(0), u64::from(fps) * 1_000_000, fps),
            Time(1_000_000 * 1_000_000_000)
        );
        // Deadlines never go backwards and never skip more than one period (+1 ns rounding).
        let period = 1_000_000_000 / u64::from(fps);
        let mut previous = Time::frame_deadline(Time(0), 999_000, fps);
        for n in 999_001..1_000_000 {
            let next = Time::frame_deadline(Time(0), n, fps);
            let step = next.0 - previous.0;
            assert!(step == period || step == period + 1, "fps {fps} n {n}");
            previous = next;
        }
    }
}

#[test]
fn frame_deadline_saturates_instead_of_panicking() {
    assert_eq!(
        Time::frame_deadline(Time(u64::MAX - 1), u64::MAX, 25),
        Time(u64::MAX)
    );
}

// ------------------------------------------------------------------------------ virtual

#[test]
fn virtual_starts_at_zero_and_idles_false_when_empty() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    assert_eq!(clock.now(), Time(0));
    assert_eq!(clock.sleepers(), 0);
    assert!(!clock.on_idle());
    assert_eq!(clock.now(), Time(0));
    assert!(taken(&log).is_empty());
}

#[test]
fn virtual_delivers_in_deadline_order_one_instant_per_idle() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    clock.schedule(Time(30 * MS), 3);
    clock.schedule(Time(10 * MS), 1);
    clock.schedule(Time(20 * MS), 2);

    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(10 * MS));
    assert_eq!(taken(&log), [1]);
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(20 * MS));
    assert_eq!(taken(&log), [2]);
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(30 * MS));
    assert_eq!(taken(&log), [3]);
    assert!(!clock.on_idle());
    assert_eq!(clock.now(), Time(30 * MS));
}

#[test]
fn virtual_ties_fire_in_scheduling_order_in_one_idle() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    for token in [9, 4, 7, 1] {
        clock.schedule(Time(MS), token);
    }
    clock.schedule(Time(2 * MS), 100);
    assert!(clock.on_idle());
    assert_eq!(taken(&log), [9, 4, 7, 1]);
    assert!(clock.on_idle());
    assert_eq!(taken(&log), [100]);
}

#[test]
fn virtual_cancel_forgets_every_pending_wakeup_of_the_token() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    clock.schedule(Time(MS), 1);
    clock.schedule(Time(2 * MS), 2);
    clock.schedule(Time(3 * MS), 2);
    clock.schedule(Time(4 * MS), 3);
    clock.cancel(2);
    clock.cancel(42); // unknown: no effect
    while clock.on_idle() {}
    assert_eq!(taken(&log), [1, 3]);
    assert_eq!(clock.now(), Time(4 * MS));
    // Cancelling after firing has no effect; the token can be scheduled again.
    clock.cancel(1);
    clock.schedule(Time(5 * MS), 1);
    assert!(clock.on_idle());
    assert_eq!(taken(&log), [1]);
}

#[test]
fn virtual_time_never_goes_backwards() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    clock.schedule(Time(10 * MS), 1);
    assert!(clock.on_idle());
    // A deadline already past is delivered at the next idle, without moving time back.
    clock.schedule(Time(MS), 2);
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(10 * MS));
    assert_eq!(taken(&log), [1, 2]);
}

#[test]
fn virtual_sink_may_schedule_and_cancel_reentrantly() {
    // The sink is called without the clock's lock: a frame sink scheduling the next frame,
    // and cancelling a sibling due at the same instant, must work.
    let slot: Arc<Mutex<Option<Arc<VirtualClock>>>> = Arc::new(Mutex::new(None));
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink: WakeSink = {
        let slot = Arc::clone(&slot);
        let log = Arc::clone(&log);
        Arc::new(move |token| {
            log.lock().unwrap().push(token);
            let clock = slot.lock().unwrap().clone().unwrap();
            if token < 5 {
                let next = Time::frame_deadline(Time(0), token + 1, 25);
                clock.schedule(next, token + 1);
                if token == 1 {
                    // A sibling at the same instant, after frame 2; frame 2 cancels it.
                    clock.schedule(next, 1000);
                }
            }
            if token == 2 {
                clock.cancel(1000);
            }
        })
    };
    let clock = VirtualClock::new(sink);
    *slot.lock().unwrap() = Some(Arc::clone(&clock));
    clock.schedule(Time(0), 0);
    let mut instants = Vec::new();
    while clock.on_idle() {
        instants.push(clock.now());
    }
    assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3, 4, 5]);
    let expected: Vec<Time> = (0..6)
        .map(|n| Time::frame_deadline(Time(0), n, 25))
        .collect();
    assert_eq!(instants, expected);
    *slot.lock().unwrap() = None; // break the cycle
}

#[test]
fn virtual_sleep_until_past_returns_at_once() {
    let (sink, _log) = recorder();
    let clock = VirtualClock::new(sink);
    clock.sleep_until(Time(0));
    clock.schedule(Time(5 * MS), 1);
    assert!(clock.on_idle());
    clock.sleep_until(Time(5 * MS));
    clock.sleep_until(Time(MS));
    assert_eq!(clock.sleepers(), 0);
}

#[test]
fn virtual_sleepers_are_counted_and_woken_in_order_from_other_threads() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    let woke = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    for (i, deadline) in [(0u64, 30 * MS), (1, 10 * MS), (2, 10 * MS)] {
        let clock = Arc::clone(&clock);
        let woke = Arc::clone(&woke);
        handles.push(thread::spawn(move || {
            clock.sleep_until(Time(deadline));
            woke.lock().unwrap().push((i, clock.now()));
        }));
    }
    assert!(eventually(Duration::from_secs(10), || clock.sleepers() == 3));
    // Nothing moves until the engine says it is idle.
    thread::sleep(Duration::from_millis(20));
    assert_eq!(clock.now(), Time(0));
    assert!(woke.lock().unwrap().is_empty());

    clock.schedule(Time(20 * MS), 7);
    // First jump: to the two sleepers at 10 ms; they wake one per call (the engine lets each
    // run until it yields), and the count drops before on_idle returns.
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(10 * MS));
    assert_eq!(clock.sleepers(), 2);
    assert!(eventually(Duration::from_secs(10), || {
        woke.lock().unwrap().len() == 1
    }));
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(10 * MS));
    assert_eq!(clock.sleepers(), 1);
    assert!(taken(&log).is_empty());
    assert!(eventually(Duration::from_secs(10), || {
        woke.lock().unwrap().len() == 2
    }));
    // Second jump: the token at 20 ms, the last sleeper still asleep.
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(20 * MS));
    assert_eq!(taken(&log), [7]);
    assert_eq!(clock.sleepers(), 1);
    // Third: the sleeper at 30 ms.
    assert!(clock.on_idle());
    assert_eq!(clock.now(), Time(30 * MS));
    assert_eq!(clock.sleepers(), 0);
    assert!(!clock.on_idle());
    for handle in handles {
        handle.join().unwrap();
    }
    let mut woke = woke.lock().unwrap().clone();
    woke.sort();
    assert_eq!(
        woke,
        [(0, Time(30 * MS)), (1, Time(10 * MS)), (2, Time(10 * MS))]
    );
}

#[test]
fn virtual_token_and_sleeper_at_the_same_instant_both_go() {
    let (sink, log) = recorder();
    let clock = VirtualClock::new(sink);
    let sleeper = {
        let clock = Arc::clone(&clock);
        thread::spawn(move || clock.sleep_until(Time(MS)))
    };
    assert!(eventually(Duration::from_secs(10), || clock.sleepers() == 1));
    clock.schedule(Time(MS), 1);
    assert!(clock.on_idle());
    assert_eq!(clock.sleepers(), 0);
    assert_eq!(taken(&log), [1]);
    sleeper.join().unwrap();
    assert!(!clock.on_idle());
}

/// Runs one scripted scenario, returning (time, token) per delivery.
fn virtual_script() -> Vec<(Time, TimerToken)> {
    let deliveries = Arc::new(Mutex::new(Vec::new()));
    let slot: Arc<Mutex<Option<Arc<VirtualClock>>>> = Arc::new(Mutex::new(None));
    let sink: WakeSink = {
        let deliveries = Arc::clone(&deliveries);
        let slot = Arc::clone(&slot);
        Arc::new(move |token| {
            let clock = slot.lock().unwrap().clone().unwrap();
            deliveries.lock().unwrap().push((clock.now(), token));
            // Every token reschedules itself a pseudo-random distance ahead a few times.
            if token % 1000 < 20 {
                let step = (token * 7919 + clock.now().0) % (7 * MS) + 1;
                clock.schedule(Time(clock.now().0 + step), token + 1);
            }
        })
    };
    let clock = VirtualClock::new(sink);
    *slot.lock().unwrap() = Some(Arc::clone(&clock));
    for stream in 0..10u64 {
        clock.schedule(Time(stream % 3 * MS), stream * 1000);
    }
    clock.cancel(5000);
    while clock.on_idle() {}
    *slot.lock().unwrap() = None;
    deliveries.lock().unwrap().clone()
}

#[test]
fn virtual_is_deterministic() {
    let first = virtual_script();
    assert_eq!(first.len(), 9 * 21);
    assert!(first.windows(2).all(|w| w[0].0 <= w[1].0));
    for _ in 0..5 {
        assert_eq!(virtual_script(), first);
    }
}

// ------------------------------------------------------------------------------ real

/// A sink recording (token, clock time at delivery); the clock is reached through a slot
/// filled after creation.
#[allow(clippy::type_complexity)]
fn timed_recorder() -> (
    WakeSink,
    Arc<Mutex<Option<std::sync::Weak<RealClock>>>>,
    Arc<Mutex<Vec<(TimerToken, Time)>>>,
) {
    let slot: Arc<Mutex<Option<std::sync::Weak<RealClock>>>> = Arc::new(Mutex::new(None));
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink: WakeSink = {
        let slot = Arc::clone(&slot);
        let log = Arc::clone(&log);
        Arc::new(move |token| {
            let clock = slot.lock().unwrap().as_ref().and_then(|w| w.upgrade());
            let now = clock.map_or(Time(0), |c| c.now());
            log.lock().unwrap().push((token, now));
        })
    };
    (sink, slot, log)
}

#[test]
fn real_fires_in_order_and_never_early() {
    let (sink, slot, log) = timed_recorder();
    let clock = RealClock::new(sink).unwrap();
    *slot.lock().unwrap() = Some(Arc::downgrade(&clock));
    let base = clock.now().0 + 20 * MS;
    let deadlines: Vec<(TimerToken, Time)> = [(3, 60), (1, 20), (2, 40), (4, 60), (0, 0)]
        .iter()
        .map(|&(token, ms)| (token, Time(base + ms * MS)))
        .collect();
    for &(token, deadline) in &deadlines {
        clock.schedule(deadline, token);
    }
    assert!(eventually(Duration::from_secs(10), || log
        .lock()
        .unwrap()
        .len()
        == 5));
    let got = log.lock().unwrap().clone();
    let order: Vec<TimerToken> = got.iter().map(|&(t, _)| t).collect();
    assert_eq!(order, [0, 1, 2, 3, 4]);
    for (token, at) in got {
        let deadline = deadlines.iter().find(|d| d.0 == token).unwrap().1;
        assert!(at >= deadline, "token {token} early: {at:?} < {deadline:?}");
        // Loose: a VM stall can be tens of ms; the bench measures the real numbers.
        assert!(
            at.0 - deadline.0 < 2_000 * MS,
            "token {token} {} ms late",
            (at.0 - deadline.0) / MS
        );
    }
    // `now` is monotonic and close to the wall clock.
    let a = clock.now();
    thread::sleep(Duration::from_millis(5));
    assert!(clock.now().0 - a.0 >= 5 * MS);
}

#[test]
fn real_earlier_deadline_preempts_a_long_wait() {
    let (sink, slot, log) = timed_recorder();
    let clock = RealClock::new(sink).unwrap();
    *slot.lock().unwrap() = Some(Arc::downgrade(&clock));
    clock.schedule(Time(clock.now().0 + 60_000 * MS), 1);
    thread::sleep(Duration::from_millis(10)); // the thread is now waiting a minute
    let soon = Time(clock.now().0 + 10 * MS);
    clock.schedule(soon, 2);
    assert!(eventually(Duration::from_secs(10), || !log
        .lock()
        .unwrap()
        .is_empty()));
    let got = log.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 2);
    assert!(got[0].1 >= soon);
}

#[test]
fn real_cancel_prevents_delivery() {
    let (sink, log) = recorder();
    let clock = RealClock::new(sink).unwrap();
    let now = clock.now().0;
    clock.schedule(Time(now + 30 * MS), 1);
    clock.schedule(Time(now + 40 * MS), 2);
    clock.schedule(Time(now + 50 * MS), 3);
    clock.cancel(2);
    clock.cancel(1);
    assert!(eventually(Duration::from_secs(10), || !log
        .lock()
        .unwrap()
        .is_empty()));
    thread::sleep(Duration::from_millis(50));
    assert_eq!(taken(&log), [3]);
}

#[test]
fn real_sink_can_drive_frames_from_its_own_thread() {
    // The frame pattern: each delivery schedules the next absolute frame deadline.
    let count = Arc::new(AtomicUsize::new(0));
    let slot: Arc<Mutex<Option<std::sync::Weak<RealClock>>>> = Arc::new(Mutex::new(None));
    let start = Arc::new(Mutex::new(Time(0)));
    let sink: WakeSink = {
        let (count, slot, start) = (Arc::clone(&count), Arc::clone(&slot), Arc::clone(&start));
        Arc::new(move |frame| {
            count.fetch_add(1, Ordering::SeqCst);
            if frame < 9
                && let Some(clock) = slot.lock().unwrap().as_ref().and_then(|w| w.upgrade())
            {
                let t0 = *start.lock().unwrap();
                clock.schedule(Time::frame_deadline(t0, frame + 1, 100), frame + 1);
            }
        })
    };
    let clock = RealClock::new(sink).unwrap();
    *slot.lock().unwrap() = Some(Arc::downgrade(&clock));
    let t0 = Time(clock.now().0 + 5 * MS);
    *start.lock().unwrap() = t0;
    clock.schedule(t0, 0);
    assert!(eventually(Duration::from_secs(10), || {
        count.load(Ordering::SeqCst) == 10
    }));
    assert!(clock.now() >= Time::frame_deadline(t0, 9, 100));
}

#[test]
fn real_sleep_until_blocks_to_the_deadline() {
    let (sink, _log) = recorder();
    let clock = RealClock::new(sink).unwrap();
    let deadline = Time(clock.now().0 + 15 * MS);
    clock.sleep_until(deadline);
    assert!(clock.now() >= deadline);
    clock.sleep_until(Time(0)); // past: at once
    assert_eq!(clock.sleepers(), 0);
    assert!(!clock.on_idle());
}

#[test]
fn real_reports_its_scheduling() {
    let (sink, _log) = recorder();
    let clock = RealClock::new(sink).unwrap();
    let scheduling = clock.scheduling();
    assert_eq!(scheduling.requested, Priority::Fifo(50));
    // FIFO when privileged, else a fallback; either way it says which.
    let text = scheduling.to_string();
    assert!(text.contains("SCHED_"), "{text}");
    assert_eq!(
        scheduling.is_fifo(),
        matches!(scheduling.got, Priority::Fifo(50))
    );

    let (sink, _log) = recorder();
    let plain = RealClock::with_priority(sink, Priority::Inherited).unwrap();
    assert_eq!(plain.scheduling().got, Priority::Inherited);
    assert!(!plain.scheduling().is_fifo());
}

#[test]
fn real_drop_stops_and_joins_the_thread() {
    let (sink, log) = recorder();
    let probe = Arc::clone(&sink);
    let clock = RealClock::new(sink).unwrap();
    clock.schedule(Time(clock.now().0 + 60_000 * MS), 1);
    assert_eq!(Arc::strong_count(&probe), 2);
    let before = Instant::now();
    drop(clock);
    // Joined: the thread's share of the sink is gone the moment drop returns, and the
    // minute-long wait did not hold it up.
    assert_eq!(Arc::strong_count(&probe), 1);
    assert!(before.elapsed() < Duration::from_secs(30));
    assert!(taken(&log).is_empty());
}

#[test]
fn real_drop_from_inside_the_sink_does_not_deadlock() {
    let holder: Arc<Mutex<Option<Arc<RealClock>>>> = Arc::new(Mutex::new(None));
    let dropped = Arc::new(AtomicBool::new(false));
    let sink: WakeSink = {
        let holder = Arc::clone(&holder);
        let dropped = Arc::clone(&dropped);
        Arc::new(move |_| {
            // The last handle dies here, on the timer thread.
            let clock = holder.lock().unwrap().take();
            drop(clock);
            dropped.store(true, Ordering::SeqCst);
        })
    };
    let probe = Arc::clone(&sink);
    let clock = RealClock::new(sink).unwrap();
    // The holder has its handle before the wake-up is scheduled: a test thread preempted
    // for the millisecond between the two (a busy machine) would leave the sink nothing to
    // drop, and the clock running.
    *holder.lock().unwrap() = Some(Arc::clone(&clock));
    clock.schedule(Time(clock.now().0 + MS), 1);
    drop(clock);
    assert!(eventually(Duration::from_secs(10), || dropped.load(Ordering::SeqCst)));
    // The detached thread ends by itself right after the sink returns.
    assert!(eventually(Duration::from_secs(10), || Arc::strong_count(
        &probe
    ) == 1));
}

#[test]
fn real_survives_a_panicking_sink() {
    let count = Arc::new(AtomicUsize::new(0));
    let sink: WakeSink = {
        let count = Arc::clone(&count);
        Arc::new(move |token| {
            count.fetch_add(1, Ordering::SeqCst);
            assert!(token != 1, "sink failure (expected by the test)");
        })
    };
    let clock = RealClock::new(sink).unwrap();
    let now = clock.now().0;
    clock.schedule(Time(now + MS), 1);
    clock.schedule(Time(now + 5 * MS), 2);
    assert!(eventually(Duration::from_secs(10), || {
        count.load(Ordering::SeqCst) == 2
    }));
}
