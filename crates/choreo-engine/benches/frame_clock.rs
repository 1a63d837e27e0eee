//! Frame clock punctuality: `RealClock` delivering absolute frame deadlines, side by side with
//! the reference implementation's method (a relative `sleep(1000 / fps ms)` per frame).
//!
//! For each fps (25, 50, 100) and each method, frames 1..=N (N = seconds × fps) after a start
//! `t0` are timed:
//! - `clock FIFO`: `RealClock::new` (asks `SCHED_FIFO` 50 and timer slack 1 ns; the table
//!   says what it got); the sink schedules frame n+1 at `Time::frame_deadline(t0, n+1, fps)`;
//! - `clock plain`: the same with `Priority::Inherited` (`SCHED_OTHER`, slack 1 ns): what an
//!   unprivileged user gets when nice −15 is refused too;
//! - `naive sleep`: a thread doing `thread::sleep(Duration::from_millis(1000 / fps))` per
//!   frame, timed against the ideal deadline `t0 + n / fps`.
//!
//! Lateness = delivery time − ideal deadline (µs). Drift = frames that should have been
//! delivered by the time of the last delivery (`floor((t_last − t0) · fps)`) minus frames
//! delivered. Targets: p99 ≤ 1 ms, drift 0 frames.
//!
//! Run: `cargo bench -p choreo-engine --bench frame_clock` (60 s per method and fps, about
//! 9 minutes). `FRAME_CLOCK_SECONDS=20` shortens it; `FRAME_CLOCK_FPS=25,100` picks the
//! rates. Without `--bench` (e.g. `cargo test --benches`) each run lasts 2 s.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread;
use std::time::{Duration, Instant};

use choreo_engine::clock::{Clock, Priority, RealClock, Time, WakeSink};

/// One method's run at one fps.
struct Run {
    method: &'static str,
    /// Lateness of frames 1..=N, ns (negative = early).
    lateness: Vec<i64>,
    /// Drift in frames at the last delivery (positive = behind).
    drift: i64,
}

struct Stats {
    p50: f64,
    p99: f64,
    max: f64,
    min: f64,
    /// Deliveries later than one frame period.
    over_period: usize,
}

fn stats(lateness: &[i64], fps: u32) -> Stats {
    let mut sorted = lateness.to_vec();
    sorted.sort_unstable();
    let rank = |p: f64| {
        let n = sorted.len();
        let index = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        sorted[index] as f64 / 1e3
    };
    let period = 1_000_000_000 / i64::from(fps);
    Stats {
        p50: rank(0.50),
        p99: rank(0.99),
        max: sorted.last().copied().unwrap_or(0) as f64 / 1e3,
        min: sorted.first().copied().unwrap_or(0) as f64 / 1e3,
        over_period: lateness.iter().filter(|&&l| l > period).count(),
    }
}

/// Frames that should have been delivered by `at` (nanoseconds after `t0`), frame 0 excluded.
fn frames_due(at_ns: u64, fps: u32) -> i64 {
    (u128::from(at_ns) * u128::from(fps) / 1_000_000_000) as i64
}

struct FrameLog {
    t0: Time,
    lateness: Vec<i64>,
    last_at: Time,
}

fn run_clock(fps: u32, frames: u64, priority: Priority) -> (Run, String) {
    let log = Arc::new(Mutex::new(FrameLog {
        t0: Time(0),
        lateness: Vec::with_capacity(frames as usize + 1),
        last_at: Time(0),
    }));
    let handle: Arc<OnceLock<Weak<RealClock>>> = Arc::new(OnceLock::new());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let done_tx = Mutex::new(done_tx);
    let sink: WakeSink = {
        let (log, handle) = (Arc::clone(&log), Arc::clone(&handle));
        Arc::new(move |frame| {
            let Some(clock) = handle.get().and_then(Weak::upgrade) else {
                return;
            };
            let now = clock.now();
            let mut log = log.lock().unwrap();
            let t0 = log.t0;
            if frame > 0 {
                let deadline = Time::frame_deadline(t0, frame, fps);
                log.lateness.push(now.0 as i64 - deadline.0 as i64);
                log.last_at = now;
            }
            drop(log);
            if frame < frames {
                clock.schedule(Time::frame_deadline(t0, frame + 1, fps), frame + 1);
            } else {
                let _ = done_tx.lock().unwrap().send(());
            }
        })
    };
    let clock = RealClock::with_priority(sink, priority).expect("spawn the clock thread");
    handle.set(Arc::downgrade(&clock)).ok();
    let scheduling = clock.scheduling().to_string();
    // Start 50 ms from now: the schedule is in place before frame 0 is due.
    let t0 = Time(clock.now().0 + 50_000_000);
    log.lock().unwrap().t0 = t0;
    clock.schedule(t0, 0);
    let budget = Duration::from_secs(frames / u64::from(fps) + 60);
    done_rx
        .recv_timeout(budget)
        .expect("the clock delivered every frame");
    drop(clock);
    let log = log.lock().unwrap();
    let delivered = log.lateness.len() as i64;
    let drift = frames_due(log.last_at.0 - t0.0, fps) - delivered;
    let method = if matches!(priority, Priority::Fifo(_)) {
        "clock FIFO"
    } else {
        "clock plain"
    };
    let run = Run {
        method,
        lateness: log.lateness.clone(),
        drift,
    };
    (run, scheduling)
}

fn run_naive(fps: u32, frames: u64) -> Run {
    // A fresh thread, as the reference runs its timeline: default policy and timer slack.
    thread::spawn(move || {
        let period = Duration::from_millis(u64::from(1000 / fps));
        let mut lateness = Vec::with_capacity(frames as usize);
        let t0 = Instant::now();
        let mut last_at = 0;
        for frame in 1..=frames {
            thread::sleep(period);
            let now = t0.elapsed().as_nanos() as u64;
            let deadline = Time::frame_deadline(Time(0), frame, fps);
            lateness.push(now as i64 - deadline.0 as i64);
            last_at = now;
        }
        let drift = frames_due(last_at, fps) - lateness.len() as i64;
        Run {
            method: "naive sleep",
            lateness,
            drift,
        }
    })
    .join()
    .expect("naive loop")
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let bench_mode = std::env::args().any(|a| a == "--bench");
    let seconds: u64 = std::env::var("FRAME_CLOCK_SECONDS")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(if bench_mode { 60 } else { 2 });
    let rates: Vec<u32> = std::env::var("FRAME_CLOCK_FPS")
        .ok()
        .map(|s| s.split(',').filter_map(|f| f.trim().parse().ok()).collect())
        .filter(|v: &Vec<u32>| !v.is_empty())
        .unwrap_or_else(|| vec![25, 50, 100]);
    println!(
        "frame clock: {seconds} s per method and fps; load average at start {}",
        loadavg()
    );
    println!(
        "{:>4} | {:<11} | {:>6} | {:>9} | {:>9} | {:>9} | {:>7} | {:>8} | {:>5}",
        "fps", "method", "frames", "p50 µs", "p99 µs", "max µs", "min µs", ">period", "drift"
    );
    let mut summary = Vec::new();
    let mut scheduling_seen = Vec::new();
    for &fps in &rates {
        let frames = seconds * u64::from(fps);
        let (fifo, got) = run_clock(fps, frames, RealClock::DEFAULT_PRIORITY);
        scheduling_seen.push(format!("clock FIFO at {fps} fps: {got}"));
        let (plain, got) = run_clock(fps, frames, Priority::Inherited);
        scheduling_seen.push(format!("clock plain at {fps} fps: {got}"));
        let naive = run_naive(fps, frames);
        let mut row_stats = Vec::new();
        for run in [&fifo, &plain, &naive] {
            let s = stats(&run.lateness, fps);
            println!(
                "{fps:>4} | {:<11} | {:>6} | {:>9.1} | {:>9.1} | {:>9.1} | {:>7.1} | {:>8} | {:>5}",
                run.method,
                run.lateness.len(),
                s.p50,
                s.p99,
                s.max,
                s.min,
                s.over_period,
                run.drift
            );
            row_stats.push(s);
        }
        let (c, n) = (&row_stats[0], &row_stats[2]);
        let target = c.p99 <= 1000.0 && fifo.drift == 0;
        summary.push(format!(
            "{fps:>4} fps: naive / clock FIFO lateness p50 {:.0}×, p99 {:.0}×, max {:.1}×; \
             drift naive {} frames vs clock {}; target p99 ≤ 1 ms and drift 0: {}",
            n.p50 / c.p50.max(0.001),
            n.p99 / c.p99.max(0.001),
            n.max / c.max.max(0.001),
            naive.drift,
            fifo.drift,
            if target { "met" } else { "MISSED" }
        ));
    }
    println!();
    for line in summary {
        println!("{line}");
    }
    for line in scheduling_seen {
        println!("{line}");
    }
    println!("load average at end {}", loadavg());
}
