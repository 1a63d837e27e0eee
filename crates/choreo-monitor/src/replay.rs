//! A recorded trace played to the pages: play, pause, speed, seek to an event, step event
//! by event. Events are released when the replay's clock reaches their `time_ns`.

use std::time::Instant;

use serde_json::{Value, json};

/// Slowest and fastest speeds.
const SPEEDS: (f64, f64) = (0.05, 100.0);

/// Whether `e` is an event of a behavior stack (`tick`, no `path`), not of an engine.
pub fn is_stack_event(e: &Value) -> bool {
    e.get("tick").is_some() && e.get("path").is_none()
}

/// The replay's position and controls.
#[derive(Debug)]
pub struct Replay {
    events: Vec<Value>,
    /// They are a behavior stack's trace (`choreo stack run --trace`): its own events and,
    /// between them, its engines' ([`is_stack_event`] tells them apart). Two numberings
    /// then: the replay's position is the event's index, not its `seq`.
    stack: bool,
    /// Index of the next event to release.
    next: usize,
    playing: bool,
    speed: f64,
    /// The replay's clock, behavior time in ns.
    clock_ns: f64,
    last_tick: Option<Instant>,
    jump: bool,
    steps: usize,
    changed: bool,
}

/// What one tick releases.
pub(crate) struct Step {
    /// Events to send.
    pub events: Vec<Value>,
    /// The position jumped: the pages get a snapshot.
    pub resync: bool,
    /// The position or the controls changed: the pages get a `replay` message.
    pub report: bool,
}

fn time_of(e: &Value) -> f64 {
    e.get("time_ns").and_then(Value::as_u64).unwrap_or(0) as f64
}

impl Replay {
    /// A replay of `events` (a trace's, in order; a behavior stack's when `stack`), paused
    /// at the start.
    pub fn new(events: Vec<Value>, stack: bool) -> Replay {
        Replay {
            events,
            stack,
            next: 0,
            playing: false,
            speed: 1.0,
            clock_ns: 0.0,
            last_tick: None,
            jump: false,
            steps: 0,
            changed: true,
        }
    }

    /// Whether the events are a behavior stack's.
    pub fn is_stack(&self) -> bool {
        self.stack
    }

    /// How many events there are.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Plays from where it is (from the start again at the end).
    pub fn play(&mut self) {
        if self.next >= self.events.len() {
            self.seek_index(0);
        }
        self.playing = true;
        self.last_tick = None;
        self.changed = true;
    }

    /// Pauses.
    pub fn pause(&mut self) {
        self.playing = false;
        self.changed = true;
    }

    /// Sets the speed (clamped to 0.05..100).
    pub fn set_speed(&mut self, speed: f64) {
        if speed.is_finite() {
            self.speed = speed.clamp(SPEEDS.0, SPEEDS.1);
            self.changed = true;
        }
    }

    /// Goes to just after the event numbered `seq` (before every event for a `seq` below
    /// the first); in a stack's replay, just after the event at index `seq`.
    pub fn seek(&mut self, seq: u64) {
        if self.stack {
            let index = usize::try_from(seq).map_or(usize::MAX, |i| i.saturating_add(1));
            self.seek_index(index);
            return;
        }
        let index = self
            .events
            .iter()
            .position(|e| {
                e.get("seq")
                    .and_then(Value::as_u64)
                    .is_some_and(|s| s > seq)
            })
            .unwrap_or(self.events.len());
        self.seek_index(index);
    }

    fn seek_index(&mut self, index: usize) {
        self.next = index.min(self.events.len());
        self.clock_ns = match self.next {
            0 => 0.0,
            n => self.events.get(n - 1).map_or(0.0, time_of),
        };
        self.jump = true;
        self.changed = true;
        self.last_tick = None;
    }

    /// Releases the next `count` events at the next tick.
    pub fn step(&mut self, count: usize) {
        self.steps = self.steps.saturating_add(count);
        self.playing = false;
        self.changed = true;
    }

    /// The events before the position (what a snapshot after a jump is made of).
    pub(crate) fn before(&self) -> &[Value] {
        &self.events[..self.next]
    }

    /// What this tick releases.
    pub(crate) fn advance(&mut self) -> Step {
        let resync = std::mem::take(&mut self.jump);
        let start = self.next;
        if self.steps > 0 {
            self.next = (self.next + std::mem::take(&mut self.steps)).min(self.events.len());
            if let Some(e) = self.next.checked_sub(1).and_then(|i| self.events.get(i)) {
                self.clock_ns = time_of(e);
            }
        } else if self.playing {
            let now = Instant::now();
            if let Some(last) = self.last_tick {
                self.clock_ns += now.duration_since(last).as_secs_f64() * 1e9 * self.speed;
            }
            self.last_tick = Some(now);
            while self
                .events
                .get(self.next)
                .is_some_and(|e| time_of(e) <= self.clock_ns)
            {
                self.next += 1;
            }
            if self.next >= self.events.len() {
                self.playing = false;
                self.changed = true;
            }
        }
        let events = self.events[start..self.next].to_vec();
        let report = std::mem::take(&mut self.changed) || !events.is_empty();
        Step {
            events,
            resync,
            report,
        }
    }

    /// The `replay` message: where it is.
    pub fn position(&self) -> Value {
        let seq = |i: usize| match self.stack {
            true => (i < self.events.len()).then(|| json!(i)),
            false => self.events.get(i).and_then(|e| e.get("seq")).cloned(),
        };
        json!({
            "type": "replay",
            "seq": self.next.checked_sub(1).and_then(seq),
            "last": self.events.len().checked_sub(1).and_then(seq),
            "playing": self.playing,
            "speed": self.speed,
            "time_ns": self.clock_ns as u64,
        })
    }
}
