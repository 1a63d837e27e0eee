//! A lane: a channel between a thread of choreo's and a thread of the box host's, carrying
//! [`Message`]s as frames; how its ends are made is the platform's (`super::channel`: a pair
//! of pipes on Linux, a lane of the box host's standard streams elsewhere).

use super::channel::Ends;
use super::message::Message;

pub use super::frame::LaneError;

/// One end of a lane.
pub struct Lane {
    ends: Ends,
}

impl Lane {
    /// The lane on these ends (made by `super::channel::Control`).
    pub fn new(ends: Ends) -> Lane {
        Lane { ends }
    }

    /// Sends `message`.
    pub fn send(&self, message: &Message) -> Result<(), LaneError> {
        self.ends.send(&message.encode())
    }

    /// Sends `order` (as [`Lane::send`] of it as a message, without copying it first).
    pub fn send_order(&self, order: &super::message::Order) -> Result<(), LaneError> {
        self.ends.send(&order.encode())
    }

    /// The next message (blocks until it comes).
    pub fn recv(&self) -> Result<Message, LaneError> {
        let bytes = self.ends.recv()?;
        Ok(Message::decode(&bytes)?)
    }

    /// The next message, an answer due soon in virtual time: looked for [`SPIN`] before
    /// sleeping. (In real time a sleep's wake-up costs nothing a behavior sees, and the CPU
    /// a spin takes is another run's: there, [`Lane::recv`].)
    pub fn recv_soon(&self) -> Result<Message, LaneError> {
        spin_for_data(&self.ends);
        self.recv()
    }
}

/// How long a thread waiting on its lane in virtual time looks for the answer before it
/// sleeps (real time). An answer that comes within it (most do: a robot call of the
/// simulated robot, a log, a short hook) costs neither side a sleep and a wake-up, which on
/// a virtual machine cost tens of microseconds each; the engine's own hand-offs spin as
/// long (`activity.rs`).
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// A yield that took longer than this handed the CPU to another program for its slice: the
/// machine is crowded.
const CROWDED_YIELD: std::time::Duration = std::time::Duration::from_micros(200);

/// How many waits skip the spin once the machine was seen crowded.
const CROWDED_WAITS: u32 = 1000;

thread_local! {
    /// The waits left that go straight to sleep on the pipe (see [`spin_for_data`]).
    static CROWDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Waits up to [`SPIN`] for `ends` to have a frame to read (then a read does not sleep),
/// yielding between looks so that the other side runs if it shares this CPU. On a crowded
/// machine a yield hands the CPU to another program for its whole slice (milliseconds),
/// where a sleep on the lane is woken at once: once a yield took that long, the next
/// [`CROWDED_WAITS`] waits do not spin.
fn spin_for_data(ends: &Ends) {
    if CROWDED.with(|c| c.get()) > 0 {
        CROWDED.with(|c| c.set(c.get() - 1));
        return;
    }
    let started = std::time::Instant::now();
    loop {
        if ends.ready() || started.elapsed() >= SPIN {
            return;
        }
        let before = std::time::Instant::now();
        std::thread::yield_now();
        if before.elapsed() > CROWDED_YIELD {
            CROWDED.with(|c| c.set(CROWDED_WAITS));
            return;
        }
    }
}
