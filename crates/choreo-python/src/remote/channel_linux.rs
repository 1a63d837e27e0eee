//! The box host's channel on Linux: control records on a `SOCK_SEQPACKET` socket (each
//! record whole or absent), made the box host's descriptor 3; a lane is a pair of pipes, the
//! box host's ends handed over as owned descriptors (`SCM_RIGHTS`) attached to its
//! `NewLane` record.
//!
//! Why pipes per lane rather than one shared socket: the thread waiting for an answer reads
//! its own pipe, so an answer wakes exactly the thread it is for, with no reader thread and
//! no hand-over between. Why pipes rather than a socket pair: reading a socket wakes its
//! writer's side too (the kernel tells the writer there is room again), and that writer is
//! the other thread, asleep on the same socket: every message cost a second, useless
//! wake-up (measured: twice the context switches). A pipe's reader wakes only for data.

use std::io::{IoSlice, IoSliceMut, PipeReader, PipeWriter, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::process::{Child, Command};

use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType, recvmsg, sendmsg, socketpair,
};

use super::control::{ControlError, MAX_RECORD, Record};
use super::frame::{LaneError, MAX_FRAME, closed};

/// The most descriptors one record carries (a lane's two).
const MAX_FDS: usize = 2;

/// One end of the control socket.
pub struct Control {
    fd: OwnedFd,
    /// Where records are received: made once (a record may be 1 MiB; most are a few
    /// bytes, and a buffer made per record would cost each its size).
    buffer: std::sync::Mutex<Vec<u8>>,
}

impl Control {
    /// Starts `command` (the box host) with the other end of a new control socket as its
    /// descriptor 3, dying with the thread that starts it (`choreo_sandbox::spawn`).
    pub fn spawn(command: &mut Command) -> std::io::Result<(Control, Child)> {
        let (ours, theirs) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )?;
        let child = choreo_sandbox::spawn::with_socket(command, theirs)?;
        Ok((Control::from_fd(ours), child))
    }

    /// The box host's end, which choreo gave it as descriptor 3 (`None`: it was not
    /// started by choreo).
    pub fn inherited() -> Option<Control> {
        choreo_sandbox::spawn::inherited_socket().map(Control::from_fd)
    }

    fn from_fd(fd: OwnedFd) -> Control {
        Control {
            fd,
            buffer: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The descriptors the box host keeps open when it closes all others.
    pub fn kept_descriptors(&self) -> Vec<i32> {
        vec![choreo_sandbox::spawn::SOCKET_FD]
    }

    /// Sends `record`.
    pub fn send(&self, record: &Record) -> Result<(), ControlError> {
        self.send_with(record, &[])
    }

    /// Opens a new lane: its pipes made, the other side's ends sent; this side's end.
    pub fn new_lane(&self) -> Result<Ends, ControlError> {
        let (our_reader, their_writer) = std::io::pipe()?;
        let (their_reader, our_writer) = std::io::pipe()?;
        self.send_with(
            &Record::NewLane,
            &[their_reader.as_fd(), their_writer.as_fd()],
        )?;
        Ok(Ends {
            reader: our_reader,
            writer: our_writer,
        })
    }

    fn send_with(&self, record: &Record, fds: &[BorrowedFd<'_>]) -> Result<(), ControlError> {
        let bytes = record.encode();
        let iov = [IoSlice::new(&bytes)];
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !fds.is_empty() {
            control.push(SendAncillaryMessage::ScmRights(
                &fds[..fds.len().min(MAX_FDS)],
            ));
        }
        sendmsg(&self.fd, &iov, &mut control, SendFlags::NOSIGNAL).map_err(std::io::Error::from)?;
        Ok(())
    }

    /// The next record, with a new lane's ends when it is one; `None` once the other end is
    /// closed.
    pub fn recv(&self) -> Result<Option<(Record, Option<Ends>)>, ControlError> {
        let mut buf = choreo_base::lock(&self.buffer);
        if buf.len() < MAX_RECORD {
            buf.resize(MAX_RECORD, 0);
        }
        let mut iov = [IoSliceMut::new(&mut buf)];
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let got = loop {
            match recvmsg(&self.fd, &mut iov, &mut control, RecvFlags::CMSG_CLOEXEC) {
                Err(rustix::io::Errno::INTR) => continue,
                other => break other.map_err(std::io::Error::from)?,
            }
        };
        if got.bytes == 0 {
            return Ok(None);
        }
        if got.flags.contains(rustix::net::ReturnFlags::TRUNC) || got.bytes > MAX_RECORD {
            return Err(ControlError::TooLarge);
        }
        let mut fds = Vec::new();
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(received) = message {
                fds.extend(received);
            }
        }
        let record = Record::decode(&buf[..got.bytes])?;
        // A lane's record without its two pipes (or with more) opens none.
        let ends = match (&record, <[OwnedFd; 2]>::try_from(fds)) {
            (Record::NewLane, Ok([reader, writer])) => Some(Ends {
                reader: PipeReader::from(reader),
                writer: PipeWriter::from(writer),
            }),
            _ => None,
        };
        Ok(Some((record, ends)))
    }
}

/// One side's ends of a lane: the pipe it reads, the pipe it writes.
pub struct Ends {
    reader: PipeReader,
    writer: PipeWriter,
}

impl Ends {
    /// Writes one frame: its length, then `bytes`, in one system call when it fits.
    pub fn send(&self, bytes: &[u8]) -> Result<(), LaneError> {
        if bytes.len() > MAX_FRAME {
            return Err(LaneError::TooLarge(bytes.len()));
        }
        let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes();
        let mut frame = Vec::with_capacity(4 + bytes.len());
        frame.extend_from_slice(&len);
        frame.extend_from_slice(bytes);
        (&self.writer).write_all(&frame).map_err(closed)
    }

    /// Reads one frame, refusing one past [`MAX_FRAME`] before allocating it.
    pub fn recv(&self) -> Result<Vec<u8>, LaneError> {
        let mut len = [0; 4];
        (&self.reader).read_exact(&mut len).map_err(closed)?;
        let n = u32::from_le_bytes(len) as usize;
        if n > MAX_FRAME {
            return Err(LaneError::TooLarge(n));
        }
        let mut bytes = vec![0; n];
        (&self.reader).read_exact(&mut bytes).map_err(closed)?;
        Ok(bytes)
    }

    /// Whether a frame (or the lane's end) is there to read: a read then does not sleep.
    pub fn ready(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, poll};
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let mut fds = [PollFd::new(&self.reader, PollFlags::IN)];
        !matches!(poll(&mut fds, Some(&zero)), Ok(0))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn records_and_a_lanes_pipes_cross_the_control_socket() {
        let (a, b) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        let (a, b) = (Control::from_fd(a), Control::from_fd(b));
        a.send(&Record::DropBox(3)).unwrap();
        let lane = a.new_lane().unwrap();
        drop(a);
        let (got, ends) = b.recv().unwrap().unwrap();
        assert_eq!(got, Record::DropBox(3));
        assert!(ends.is_none());
        let (got, ends) = b.recv().unwrap().unwrap();
        assert_eq!(got, Record::NewLane);
        // The descriptors received are the lane's other ends: what one side sends, the
        // other reads.
        let theirs = ends.unwrap();
        assert!(!lane.ready());
        theirs.send(b"seven").unwrap();
        assert!(lane.ready());
        assert_eq!(lane.recv().unwrap(), b"seven");
        lane.send(b"back").unwrap();
        assert_eq!(theirs.recv().unwrap(), b"back");
        drop(theirs);
        assert!(matches!(lane.recv(), Err(LaneError::Closed)));
        assert!(b.recv().unwrap().is_none());
    }
}
