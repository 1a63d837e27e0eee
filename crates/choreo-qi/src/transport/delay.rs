//! A network's delay, simulated (`choreo sim --latency`): every message a server receives or
//! sends on a connection waits its [`Latency`] (a base delay plus or minus a random jitter)
//! before it is handled or written, as on a robot reached over Wi-Fi. TCP never reorders: a
//! message is never due before the one before it in the same direction, whatever its
//! jitter. One thread per server (the `DelayLine`) runs what falls due.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use choreo_base::lock;

/// How long each message waits each way: `base` ± `jitter` (uniform), and, with a
/// [`LatencyChange`], another delay from some time after the connection opened (a robot walking
/// away from its access point mid-dance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Latency {
    /// The mean one-way delay.
    pub base: Duration,
    /// The most a delay moves from `base`, either way (never below zero).
    pub jitter: Duration,
    /// The delay becomes another one, once.
    pub change: Option<LatencyChange>,
}

/// A delay that changes: from `after` the connection opened, `base` ± `jitter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyChange {
    /// From the connection's opening.
    pub after: Duration,
    /// The mean one-way delay from then on.
    pub base: Duration,
    /// Its jitter.
    pub jitter: Duration,
}

impl Latency {
    /// Reads `MS`, `MS±JITTER` or `MS+-JITTER` in milliseconds (`50`, `50±20`, `20.5+-5`),
    /// optionally followed by `>MS[±JITTER]@SECONDS`: that delay from so many seconds after
    /// the connection opened (`5±2>100±20@4`).
    pub fn parse(text: &str) -> Result<Latency, LatencyError> {
        let text = text.trim();
        let fault = |problem| LatencyError {
            text: text.to_string(),
            problem,
        };
        let (first, change) = match text.split_once('>') {
            Some((first, rest)) => {
                let (then, after) = rest
                    .split_once('@')
                    .ok_or_else(|| fault(LatencyProblem::NoChangeTime))?;
                let seconds: f64 = after
                    .trim()
                    .strip_suffix('s')
                    .unwrap_or(after.trim())
                    .parse()
                    .map_err(|_| fault(LatencyProblem::NotSeconds(after.to_string())))?;
                if !(0.0..=86_400.0).contains(&seconds) {
                    return Err(fault(LatencyProblem::SecondsOutOfRange(seconds)));
                }
                let (base, jitter) = delay(then).map_err(fault)?;
                let after = Duration::from_secs_f64(seconds);
                (
                    first,
                    Some(LatencyChange {
                        after,
                        base,
                        jitter,
                    }),
                )
            }
            None => (text, None),
        };
        let (base, jitter) = delay(first).map_err(fault)?;
        Ok(Latency {
            base,
            jitter,
            change,
        })
    }

    /// The base and jitter in force `since` the connection opened.
    fn at(&self, since: Duration) -> (Duration, Duration) {
        match self.change {
            Some(c) if since >= c.after => (c.base, c.jitter),
            _ => (self.base, self.jitter),
        }
    }
}

/// A latency that cannot be read: the text, and what is wrong in it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{text:?}: {problem}")]
pub struct LatencyError {
    /// The latency as given.
    pub text: String,
    /// What is wrong.
    pub problem: LatencyProblem,
}

/// What is wrong in a latency's text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LatencyProblem {
    /// `>` without `@SECONDS`.
    #[error("a change is written >MS[±JITTER]@SECONDS")]
    NoChangeTime,
    /// The time of a change is not a number.
    #[error("{0:?} is not a number of seconds")]
    NotSeconds(String),
    /// The time of a change is out of range.
    #[error("{0} s is not between 0 and 86,400")]
    SecondsOutOfRange(f64),
    /// A delay is not a number.
    #[error("{0:?} is not a number of milliseconds")]
    NotMilliseconds(String),
    /// A delay is out of range.
    #[error("{0} ms is not between 0 and 60,000")]
    MillisecondsOutOfRange(f64),
}

/// `MS[±JITTER]`, a part of a latency.
fn delay(part: &str) -> Result<(Duration, Duration), LatencyProblem> {
    let (base, jitter) = match part.split_once('±').or_else(|| part.split_once("+-")) {
        Some((b, j)) => (b, Some(j)),
        None => (part, None),
    };
    let ms = |s: &str| -> Result<Duration, LatencyProblem> {
        let s = s.trim();
        let s = s.strip_suffix("ms").unwrap_or(s).trim();
        let v: f64 = s
            .parse()
            .map_err(|_| LatencyProblem::NotMilliseconds(s.to_string()))?;
        if !(0.0..=60_000.0).contains(&v) {
            return Err(LatencyProblem::MillisecondsOutOfRange(v));
        }
        Ok(Duration::from_secs_f64(v / 1000.0))
    };
    Ok((ms(base)?, jitter.map(ms).transpose()?.unwrap_or_default()))
}

/// `base` ± `jitter`, drawn with `draw` (uniform in [0, 1)).
fn draw((base, jitter): (Duration, Duration), draw: f64) -> Duration {
    let low = base.saturating_sub(jitter);
    let high = base + jitter;
    low + (high - low).mul_f64(draw)
}

fn write_delay(f: &mut fmt::Formatter<'_>, base: Duration, jitter: Duration) -> fmt::Result {
    write!(f, "{} ms", base.as_secs_f64() * 1000.0)?;
    if !jitter.is_zero() {
        write!(f, " ± {} ms", jitter.as_secs_f64() * 1000.0)?;
    }
    Ok(())
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_delay(f, self.base, self.jitter)?;
        if let Some(c) = self.change {
            write!(f, ", then ")?;
            write_delay(f, c.base, c.jitter)?;
            write!(f, " from {} s", c.after.as_secs_f64())?;
        }
        Ok(())
    }
}

/// One direction of one connection: when its last message is due, and its jitter's draws.
pub(crate) struct Lane {
    latency: Latency,
    opened: Instant,
    state: Mutex<(Instant, u64)>,
}

impl Lane {
    /// A lane of `latency` whose draws start from `seed`.
    pub fn new(latency: Latency, seed: u64) -> Lane {
        let opened = Instant::now();
        Lane {
            latency,
            opened,
            state: Mutex::new((opened, seed | 1)),
        }
    }

    /// When a message sent now is due: now plus a delay drawn, never before the last one.
    pub fn due(&self) -> Instant {
        let mut st = lock(&self.state);
        // xorshift64: a fast, good enough draw for a jitter.
        let mut x = st.1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        st.1 = x;
        let draw = (x >> 11) as f64 / (1u64 << 53) as f64;
        let now = Instant::now();
        let delay = self::draw(self.latency.at(now - self.opened), draw);
        let due = (now + delay).max(st.0);
        st.0 = due;
        due
    }
}

/// What falls due.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

struct Timed {
    due: Instant,
    seq: u64,
    job: Job,
}

impl PartialEq for Timed {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl Eq for Timed {}
impl PartialOrd for Timed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(other.due, other.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Timed>>,
    seq: u64,
}

/// Runs jobs when they fall due, in due order (ties in the order given), on one thread that
/// ends once the line is dropped.
pub(crate) struct DelayLine {
    queue: Mutex<Queue>,
    wake: Condvar,
}

impl DelayLine {
    /// Starts the line's thread.
    pub fn start() -> std::io::Result<Arc<DelayLine>> {
        let line = Arc::new(DelayLine {
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
        });
        let weak = Arc::downgrade(&line);
        std::thread::Builder::new()
            .name("qi-delay".into())
            .spawn(move || run(&weak))?;
        Ok(line)
    }

    /// Runs `job` at `due`.
    pub fn at(&self, due: Instant, job: Job) {
        let mut q = lock(&self.queue);
        q.seq += 1;
        let seq = q.seq;
        q.heap.push(Reverse(Timed { due, seq, job }));
        drop(q);
        self.wake.notify_one();
    }
}

fn run(weak: &Weak<DelayLine>) {
    loop {
        let Some(line) = weak.upgrade() else {
            return;
        };
        let mut q = lock(&line.queue);
        let now = Instant::now();
        let ready = q.heap.peek().is_some_and(|Reverse(t)| t.due <= now);
        if ready {
            if let Some(Reverse(t)) = q.heap.pop() {
                drop(q);
                (t.job)();
            }
            continue;
        }
        // At most a second at a time, so that a dropped line is seen.
        let wait = q
            .heap
            .peek()
            .map_or(Duration::from_secs(1), |Reverse(t)| t.due - now)
            .min(Duration::from_secs(1));
        let _ = line
            .wake
            .wait_timeout(q, wait)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn latencies_read_as_written_and_bad_ones_are_refused() {
        let ms = Duration::from_millis;
        assert_eq!(
            Latency::parse("50").unwrap(),
            Latency {
                base: ms(50),
                jitter: ms(0),
                change: None
            }
        );
        assert_eq!(
            Latency::parse("50±20").unwrap(),
            Latency {
                base: ms(50),
                jitter: ms(20),
                change: None
            }
        );
        assert_eq!(Latency::parse(" 100ms +- 5ms ").unwrap().jitter, ms(5));
        assert_eq!(
            Latency::parse("0.5").unwrap().base,
            Duration::from_micros(500)
        );
        assert_eq!(
            Latency::parse("5±2>100±20@4").unwrap().change,
            Some(LatencyChange {
                after: ms(4000),
                base: ms(100),
                jitter: ms(20)
            })
        );
        assert_eq!(
            Latency::parse("5 > 100 @ 2.5s").unwrap().to_string(),
            "5 ms, then 100 ms from 2.5 s"
        );
        for bad in [
            "", "fast", "-5", "50±", "1e9", "50±x", "5>100", "5>100@", "5>@3", "5>100@-1",
        ] {
            assert!(Latency::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Latency::parse("50±20").unwrap().to_string(),
            "50 ms ± 20 ms"
        );
    }

    #[test]
    fn a_lane_takes_the_changed_delay_once_its_time_came() {
        let lane = Lane::new(Latency::parse("1>200@0.5").unwrap(), 3);
        // 1 ms (due counts from its own call, a moment after this one).
        let sent = Instant::now();
        let before = lane.due().duration_since(sent);
        assert!(before < Duration::from_millis(100), "{before:?}");
        std::thread::sleep(
            (lane.opened + Duration::from_millis(600)).duration_since(Instant::now()),
        );
        let sent = Instant::now();
        let after = lane.due().duration_since(sent);
        assert!(
            (Duration::from_millis(200)..Duration::from_millis(300)).contains(&after),
            "{after:?}"
        );
    }

    #[test]
    fn a_lane_keeps_the_order_and_stays_within_its_jitter() {
        let latency = Latency::parse("30±25").unwrap();
        let lane = Lane::new(latency, 7);
        let start = Instant::now();
        let mut last = start;
        for _ in 0..1000 {
            let due = lane.due();
            assert!(due >= last);
            last = due;
        }
        // Never before 5 ms after the first draw; the last no later than 55 ms after it
        // plus the time the loop took.
        assert!(last.duration_since(start) >= Duration::from_millis(5));
        assert!(last.duration_since(start) <= Duration::from_millis(55) + start.elapsed());
    }
}
