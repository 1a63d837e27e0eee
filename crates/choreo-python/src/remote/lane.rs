//! A lane: a pair of pipes between a thread of choreo's and a thread of the box host's, one
//! each way, carrying [`Message`]s as frames (a length, then the bytes).
//!
//! Why a lane per pair of threads rather than one shared channel: the thread waiting for an
//! answer reads its own pipe, so an answer wakes exactly the thread it is for, with no
//! reader thread and no hand-over between. Why pipes rather than a socket pair: reading a
//! socket wakes its writer's side too (the kernel tells the writer there is room again), and
//! that writer is the other thread, asleep on the same socket: every message cost a second,
//! useless wake-up (measured: twice the context switches). A pipe's reader wakes only for
//! data. The box host's ends are handed to it over the control socket (`super::control`).

use std::io::{PipeReader, PipeWriter, Read, Write};
use std::os::fd::OwnedFd;

use super::message::Message;
use super::wire::WireError;

/// The most one frame may hold: a robot call's image, a long log line, with room to spare;
/// a larger frame is a broken box host, not a big message.
pub const MAX_FRAME: usize = 64 << 20;

/// Why a lane could not carry a message.
#[derive(Debug, thiserror::Error)]
pub enum LaneError {
    /// The other side closed it (its thread or its process ended).
    #[error("the lane was closed")]
    Closed,
    /// The socket failed.
    #[error("the lane failed: {0}")]
    Io(#[from] std::io::Error),
    /// A frame past [`MAX_FRAME`].
    #[error("a frame of {0} bytes is past the bound of {MAX_FRAME}")]
    TooLarge(usize),
    /// A frame that is no message.
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// One end of a lane: what it reads, what it writes.
pub struct Lane {
    reader: PipeReader,
    writer: PipeWriter,
}

impl Lane {
    /// The lane on these pipe ends (the box host's, received from choreo).
    pub fn new(reader: OwnedFd, writer: OwnedFd) -> Lane {
        Lane {
            reader: PipeReader::from(reader),
            writer: PipeWriter::from(writer),
        }
    }

    /// A new lane: this side's end, and the other side's reading and writing ends.
    pub fn pair() -> std::io::Result<(Lane, [OwnedFd; 2])> {
        let (our_reader, their_writer) = std::io::pipe()?;
        let (their_reader, our_writer) = std::io::pipe()?;
        let lane = Lane {
            reader: our_reader,
            writer: our_writer,
        };
        Ok((lane, [their_reader.into(), their_writer.into()]))
    }

    /// Sends `message`.
    pub fn send(&self, message: &Message) -> Result<(), LaneError> {
        send_frame(&self.writer, &message.encode())
    }

    /// Sends `order` (as [`Lane::send`] of it as a message, without copying it first).
    pub fn send_order(&self, order: &super::message::Order) -> Result<(), LaneError> {
        send_frame(&self.writer, &order.encode())
    }

    /// The next message (blocks until it comes).
    pub fn recv(&self) -> Result<Message, LaneError> {
        let bytes = recv_frame(&self.reader)?;
        Ok(Message::decode(&bytes)?)
    }

    /// The next message, an answer due soon in virtual time: looked for [`SPIN`] before
    /// sleeping. (In real time a sleep's wake-up costs nothing a behavior sees, and the CPU
    /// a spin takes is another run's: there, [`Lane::recv`].)
    pub fn recv_soon(&self) -> Result<Message, LaneError> {
        spin_for_data(&self.reader);
        self.recv()
    }
}

/// Writes one frame: its length, then `bytes`, in one system call when it fits.
pub fn send_frame(mut stream: &PipeWriter, bytes: &[u8]) -> Result<(), LaneError> {
    if bytes.len() > MAX_FRAME {
        return Err(LaneError::TooLarge(bytes.len()));
    }
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes();
    let mut frame = Vec::with_capacity(4 + bytes.len());
    frame.extend_from_slice(&len);
    frame.extend_from_slice(bytes);
    stream.write_all(&frame).map_err(closed)
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

/// Waits up to [`SPIN`] for `stream` to have bytes to read (then a read does not sleep),
/// yielding between looks so that the other side runs if it shares this CPU. On a crowded
/// machine a yield hands the CPU to another program for its whole slice (milliseconds),
/// where a sleep on the pipe is woken at once: once a yield took that long, the next
/// [`CROWDED_WAITS`] waits do not spin.
fn spin_for_data(stream: &PipeReader) {
    use rustix::event::{PollFd, PollFlags, poll};
    if CROWDED.with(|c| c.get()) > 0 {
        CROWDED.with(|c| c.set(c.get() - 1));
        return;
    }
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let started = std::time::Instant::now();
    loop {
        let mut fds = [PollFd::new(stream, PollFlags::IN)];
        if !matches!(poll(&mut fds, Some(&zero)), Ok(0)) || started.elapsed() >= SPIN {
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

/// Reads one frame, refusing one past [`MAX_FRAME`] before allocating it.
pub fn recv_frame(mut stream: &PipeReader) -> Result<Vec<u8>, LaneError> {
    let mut len = [0; 4];
    stream.read_exact(&mut len).map_err(closed)?;
    let n = u32::from_le_bytes(len) as usize;
    if n > MAX_FRAME {
        return Err(LaneError::TooLarge(n));
    }
    let mut bytes = vec![0; n];
    stream.read_exact(&mut bytes).map_err(closed)?;
    Ok(bytes)
}

/// An end of file or a reset is the other side gone.
fn closed(e: std::io::Error) -> LaneError {
    use std::io::ErrorKind::{BrokenPipe, ConnectionReset, UnexpectedEof};
    match e.kind() {
        UnexpectedEof | BrokenPipe | ConnectionReset => LaneError::Closed,
        _ => LaneError::Io(e),
    }
}
