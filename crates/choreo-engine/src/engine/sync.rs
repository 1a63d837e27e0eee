//! Timelines kept in step with other runs (a fleet of robots playing one behavior): before a
//! timeline starts playing, the run asks a [`TimelineSync`] when to start, and plays then.
//!
//! The control thread never waits: it hands the sync a callback, goes on with everything
//! else, and plays the timeline when the callback's answer (a delay) has run out (the
//! control side is in `timeline`). A stop or an unload meanwhile voids the start (the
//! timeline's stop count moved on). Meant for real time: in virtual time nothing would count
//! the wait as an activity.
//!
//! The answer ([`Start`]) says when, and the run's lead: the angles the first order starts from
//! are read as soon as it comes, and the frames then follow the lead ([`TimelineSync::lead`]).

use std::time::Duration;

/// When a timeline starts, as a sync says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Start {
    /// How long after the sync's call.
    pub after: Duration,
    /// How far this run plays ahead of the common instant: its robot's one-way delay, so
    /// that what it sends arrives at that instant. While the timeline plays, the run
    /// follows [`TimelineSync::lead`]: its frames come earlier (or later) by what the lead
    /// grew (or shrank).
    pub lead: Duration,
}

/// What a sync calls once it knows when a timeline starts.
pub type Go = Box<dyn FnOnce(Start) + Send>;

/// Decides when timelines start, across several runs.
pub trait TimelineSync: Send + Sync {
    /// The timeline of the box at `path` is about to start playing, for the `occurrence`th
    /// time in this run (from 1), at `fps` frames per second. `go` must be called once (from
    /// any thread, possibly before `arrive` returns).
    ///
    /// When a timeline with motion is told to start, the run reads its robot's angles at
    /// once (the posture its first order starts from, a round trip away), so a sync gives
    /// it the time of a round trip before [`Start::after`] runs out.
    fn arrive(&self, path: &str, occurrence: u32, fps: u32, go: Go);

    /// This run's lead as measured now (see [`Start::lead`]), read at every frame of a
    /// timeline it started.
    fn lead(&self) -> Duration {
        Duration::ZERO
    }

    /// The start told by `go` came: the timeline of the box at `path` plays its start frame
    /// now (its `occurrence`th start), and its first orders leave. A fleet measures from
    /// these how far apart its robots started.
    fn played(&self, _path: &str, _occurrence: u32) {}
}
