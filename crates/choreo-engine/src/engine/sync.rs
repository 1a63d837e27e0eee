//! Timelines kept in step with other runs (a fleet of robots playing one behavior): before a
//! timeline starts playing, the run asks a [`TimelineSync`] when to start, and plays then.
//!
//! The control thread never waits: it hands the sync a callback, goes on with everything
//! else, and plays the timeline when the callback's answer (a delay) has run out (the
//! control side is in `timeline`). A stop or an unload meanwhile voids the start (the
//! timeline's stop count moved on). Meant for real time: in virtual time nothing would count
//! the wait as an activity.

use std::time::Duration;

/// What a sync calls once it knows when a timeline starts: with how long after the call.
pub type Go = Box<dyn FnOnce(Duration) + Send>;

/// Decides when timelines start, across several runs.
pub trait TimelineSync: Send + Sync {
    /// The timeline of the box at `path` is about to start playing, for the `occurrence`th
    /// time in this run (from 1), at `fps` frames per second. `go` must be called once (from
    /// any thread, possibly before `arrive` returns).
    fn arrive(&self, path: &str, occurrence: u32, fps: u32, go: Go);
}
