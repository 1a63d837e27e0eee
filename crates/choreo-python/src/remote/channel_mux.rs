//! The box host's channel where Linux's cannot be made (macOS: no `SOCK_SEQPACKET` local
//! sockets; Windows: no descriptors passed over a socket): one pipe each way, the box
//! host's standard input and output, carrying the frames of every lane, lane 0 the control
//! records. A reader thread on each side hands each frame to its lane's queue.
//!
//! Why the standard streams: every platform's process start hands them over, and they have
//! no name box code in another process could open. The cost, beside Linux's lanes: a
//! hand-over from the reader thread per message (Linux's wake their thread directly).
//!
//! A frame: its length (u32), its lane (u64), its kind (data, a lane opened, a lane closed),
//! then its bytes. choreo's side opens lanes; a box host that opens one, or sends a frame
//! past its bound, ends the channel (choreo then sees it gone).
//!
//! On Linux it is chosen with `CHOREO_BOX_HOST_CHANNEL=mux` (`super::channel`), so that the
//! channel of macOS and Windows is tried here with a real box host.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

use super::control::{ControlError, MAX_RECORD, Record};
use super::frame::{LaneError, MAX_FRAME, closed};

/// The control records' lane.
const CONTROL: u64 = 0;
/// A frame's kinds.
const DATA: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
/// A frame's header: length, lane, kind.
const HEADER: usize = 4 + 8 + 1;

/// The frames a lane's queue holds before the reader waits for its thread to take one: a
/// lane carries a request and its answer at a time, so a full queue is a box host
/// flooding a lane, held back rather than taking choreo's memory.
const QUEUED: usize = 256;

/// What the control queue brings: a record's bytes, or a lane choreo opened (the box host's
/// side).
enum Incoming {
    Record(Vec<u8>),
    Lane(Ends),
}

/// One side's channel: where it writes, its lanes' queues.
struct Mux {
    writer: Mutex<Box<dyn Write + Send>>,
    lanes: Mutex<HashMap<u64, Sender<Vec<u8>>>>,
    next: AtomicU64,
    /// This is the box host's side: lanes are opened by the other.
    host: bool,
}

impl Mux {
    fn write(&self, lane: u64, kind: u8, bytes: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
        let mut frame = Vec::with_capacity(HEADER + bytes.len());
        frame.extend_from_slice(&len.to_le_bytes());
        frame.extend_from_slice(&lane.to_le_bytes());
        frame.push(kind);
        frame.extend_from_slice(bytes);
        let mut writer = choreo_base::lock(&self.writer);
        writer.write_all(&frame)?;
        writer.flush()
    }

    /// Lane `id`'s end on this side, its queue made.
    fn lane(self: &Arc<Self>, id: u64) -> Ends {
        let (sender, frames) = bounded(QUEUED);
        choreo_base::lock(&self.lanes).insert(id, sender);
        Ends {
            mux: Arc::clone(self),
            id,
            frames,
        }
    }
}

/// A frame as read: its lane, its kind, its bytes.
type Frame = (u64, u8, Vec<u8>);

/// Reads one frame; `None` at the channel's end or a frame past its bound.
fn read_frame(input: &mut impl Read) -> Option<Frame> {
    let mut header = [0; HEADER];
    input.read_exact(&mut header).ok()?;
    let [l0, l1, l2, l3, i0, i1, i2, i3, i4, i5, i6, i7, kind] = header;
    let len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
    let lane = u64::from_le_bytes([i0, i1, i2, i3, i4, i5, i6, i7]);
    let bound = if lane == CONTROL {
        MAX_RECORD
    } else {
        MAX_FRAME
    };
    if len > bound {
        return None;
    }
    let mut bytes = vec![0; len];
    input.read_exact(&mut bytes).ok()?;
    Some((lane, kind, bytes))
}

/// Hands `frame` to its lane's queue, or to the control queue; `false` when it breaks the
/// protocol (the channel then ends).
fn deliver(mux: &Arc<Mux>, (lane, kind, bytes): Frame, control: &Sender<Incoming>) -> bool {
    match (lane, kind) {
        (CONTROL, DATA) => control.send(Incoming::Record(bytes)).is_ok(),
        (CONTROL, _) => false,
        (id, OPEN) if mux.host => control.send(Incoming::Lane(mux.lane(id))).is_ok(),
        (id, DATA) => {
            let queue = choreo_base::lock(&mux.lanes).get(&id).cloned();
            // A lane this side closed already: its late frame is dropped.
            if let Some(queue) = queue {
                let _ = queue.send(bytes);
            }
            true
        }
        (id, CLOSE) => {
            choreo_base::lock(&mux.lanes).remove(&id);
            true
        }
        _ => false,
    }
}

/// Reads frames from `input` until it ends or breaks the protocol, each to its lane's queue;
/// then every lane is closed, and the control queue with them. Holds the channel weakly: a
/// side that let go of all its ends closes its writing pipe, and the other side sees it.
fn read_frames(mux: &std::sync::Weak<Mux>, mut input: impl Read, control: &Sender<Incoming>) {
    while let Some(frame) = read_frame(&mut input) {
        let Some(mux) = mux.upgrade() else {
            return;
        };
        if !deliver(&mux, frame, control) {
            break;
        }
    }
    if let Some(mux) = mux.upgrade() {
        choreo_base::lock(&mux.lanes).clear();
    }
}

/// What a side reads, until its reader thread takes it.
type Input = Box<dyn Read + Send>;

/// One end of the control channel.
pub struct Control {
    mux: Arc<Mux>,
    incoming: Mutex<Receiver<Incoming>>,
    /// The box host's input and the control queue's sender, until a lane opens: its first
    /// records are read by the thread that asks, and its reader thread starts with its
    /// first lane (Linux's namespaces, taken in between, need a process of one thread).
    pending: Mutex<Option<(Input, Sender<Incoming>)>>,
    /// The descriptors it reads and writes (Unix), which the box host keeps open when it
    /// closes all others.
    fds: Vec<i32>,
}

impl Control {
    /// Starts `command` (the box host) with the channel as its standard input and output;
    /// on Unix in a process group of its own, which choreo ends as a whole.
    pub fn spawn(command: &mut Command) -> std::io::Result<(Control, Child)> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(command, 0);
        let mut child = command.spawn()?;
        let (Some(input), Some(output)) = (child.stdout.take(), child.stdin.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("its standard streams were not piped"));
        };
        let control = match Control::over(Box::new(input), output, false, Vec::new()) {
            Ok(control) => control,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        Ok((control, child))
    }

    /// The box host's end: its standard input and output as choreo started it, taken (in
    /// their place, the null device: what box code prints goes nowhere, as on Linux).
    pub fn inherited() -> Option<Control> {
        let input = clone_stream(&std::io::stdin()).ok()?;
        let output = clone_stream(&std::io::stdout()).ok()?;
        #[cfg(unix)]
        let fds = {
            use std::os::fd::AsRawFd;
            vec![input.as_raw_fd(), output.as_raw_fd()]
        };
        #[cfg(not(unix))]
        let fds = Vec::new();
        let (input, output) = (std::fs::File::from(input), std::fs::File::from(output));
        let control = Control::over(Box::new(input), output, true, fds).ok()?;
        let quieted = pyo3::Python::attach(|py| {
            py.run(
                c"import os\nnull = os.open(os.devnull, os.O_RDWR)\nos.dup2(null, 0)\nos.dup2(null, 1)\nos.close(null)",
                None,
                None,
            )
        });
        quieted.ok().map(|()| control)
    }

    /// The channel on `input` and `output`; choreo's side reads on a thread of its own
    /// from the start, the box host's from its first lane.
    fn over(
        input: Input,
        output: impl Write + Send + 'static,
        host: bool,
        fds: Vec<i32>,
    ) -> std::io::Result<Control> {
        let mux = Arc::new(Mux {
            writer: Mutex::new(Box::new(output)),
            lanes: Mutex::new(HashMap::new()),
            next: AtomicU64::new(CONTROL + 1),
            host,
        });
        let (sender, incoming) = unbounded();
        let control = Control {
            mux,
            incoming: Mutex::new(incoming),
            pending: Mutex::new(None),
            fds,
        };
        if host {
            *choreo_base::lock(&control.pending) = Some((input, sender));
        } else {
            control.start_reading(input, sender)?;
        }
        Ok(control)
    }

    fn start_reading(&self, input: Input, sender: Sender<Incoming>) -> std::io::Result<()> {
        let reading = Arc::downgrade(&self.mux);
        std::thread::Builder::new()
            .name("choreo-box-host-channel".to_string())
            .spawn(move || read_frames(&reading, input, &sender))?;
        Ok(())
    }

    /// The descriptors it reads and writes (Unix; none on Windows).
    pub fn kept_descriptors(&self) -> Vec<i32> {
        self.fds.clone()
    }

    /// Sends `record`.
    pub fn send(&self, record: &Record) -> Result<(), ControlError> {
        let bytes = record.encode();
        if bytes.len() > MAX_RECORD {
            return Err(ControlError::TooLarge);
        }
        self.mux.write(CONTROL, DATA, &bytes)?;
        Ok(())
    }

    /// Opens a new lane (choreo's side): this side's end.
    pub fn new_lane(&self) -> Result<Ends, ControlError> {
        let id = self.mux.next.fetch_add(1, Ordering::SeqCst);
        let ends = self.mux.lane(id);
        self.mux.write(id, OPEN, &[])?;
        Ok(ends)
    }

    /// The next record, with a new lane's ends when it is one; `None` once the other end is
    /// closed.
    pub fn recv(&self) -> Result<Option<(Record, Option<Ends>)>, ControlError> {
        {
            let mut pending = choreo_base::lock(&self.pending);
            if let Some((input, sender)) = pending.as_mut() {
                match read_frame(input) {
                    None => {
                        *pending = None;
                        return Ok(None);
                    }
                    Some((CONTROL, DATA, bytes)) => {
                        return Ok(Some((Record::decode(&bytes)?, None)));
                    }
                    Some(frame) => {
                        // The first lane: from now on the reader thread reads.
                        let delivered = deliver(&self.mux, frame, sender);
                        if let Some((input, sender)) = pending.take()
                            && delivered
                        {
                            self.start_reading(input, sender)?;
                        }
                    }
                }
            }
        }
        let next = choreo_base::lock(&self.incoming).recv();
        match next {
            Err(_) => Ok(None),
            Ok(Incoming::Record(bytes)) => Ok(Some((Record::decode(&bytes)?, None))),
            Ok(Incoming::Lane(ends)) => Ok(Some((Record::NewLane, Some(ends)))),
        }
    }
}

/// A standard stream's handle, owned anew (not inherited by what the box host starts).
#[cfg(unix)]
fn clone_stream(stream: &impl std::os::fd::AsFd) -> std::io::Result<std::os::fd::OwnedFd> {
    stream.as_fd().try_clone_to_owned()
}

#[cfg(windows)]
fn clone_stream(
    stream: &impl std::os::windows::io::AsHandle,
) -> std::io::Result<std::os::windows::io::OwnedHandle> {
    stream.as_handle().try_clone_to_owned()
}

/// One side's end of a lane: its queue, and the channel it writes.
pub struct Ends {
    mux: Arc<Mux>,
    id: u64,
    frames: Receiver<Vec<u8>>,
}

impl Ends {
    /// Sends one frame.
    pub fn send(&self, bytes: &[u8]) -> Result<(), LaneError> {
        if bytes.len() > MAX_FRAME {
            return Err(LaneError::TooLarge(bytes.len()));
        }
        self.mux.write(self.id, DATA, bytes).map_err(closed)
    }

    /// The next frame; [`LaneError::Closed`] once the other side closed the lane or the
    /// channel ended.
    pub fn recv(&self) -> Result<Vec<u8>, LaneError> {
        self.frames.recv().map_err(|_| LaneError::Closed)
    }

    /// Whether a frame is there to read.
    pub fn ready(&self) -> bool {
        !self.frames.is_empty()
    }
}

impl Drop for Ends {
    fn drop(&mut self) {
        choreo_base::lock(&self.mux.lanes).remove(&self.id);
        let _ = self.mux.write(self.id, CLOSE, &[]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn records_and_lanes_cross_one_pipe_each_way() {
        let (host_reads, choreo_writes) = std::io::pipe().unwrap();
        let (choreo_reads, host_writes) = std::io::pipe().unwrap();
        let choreo = Control::over(Box::new(choreo_reads), choreo_writes, false, vec![]).unwrap();
        let host = Control::over(Box::new(host_reads), host_writes, true, vec![]).unwrap();
        choreo.send(&Record::DropBox(3)).unwrap();
        let lane = choreo.new_lane().unwrap();
        assert_eq!(host.recv().unwrap().unwrap().0, Record::DropBox(3));
        let (got, theirs) = host.recv().unwrap().unwrap();
        assert_eq!(got, Record::NewLane);
        let theirs = theirs.unwrap();
        theirs.send(b"seven").unwrap();
        assert_eq!(lane.recv().unwrap(), b"seven");
        lane.send(b"back").unwrap();
        assert_eq!(theirs.recv().unwrap(), b"back");
        host.send(&Record::Note("n".into())).unwrap();
        assert_eq!(choreo.recv().unwrap().unwrap().0, Record::Note("n".into()));
        drop(theirs);
        assert!(matches!(lane.recv(), Err(LaneError::Closed)));
        drop(choreo);
        drop(lane);
        assert!(host.recv().unwrap().is_none());
    }
}
