//! The box host's control socket: records (`SOCK_SEQPACKET`, so each is whole or absent)
//! that are no lane's — the beginning and the start, a new lane's socket, a box dropped, and from the box host
//! its readiness, box code's refusals and what box code is about to do to its process.
//!
//! A new lane's pipes travel as owned descriptors (`SCM_RIGHTS`), attached to its record.

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::PathBuf;

use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType, recvmsg, sendmsg, socketpair,
};

use super::wire::{Reader, WireError, Writer};
use crate::confinement::Allowed;

/// The most one record may hold (the start's lists of paths are its longest).
const MAX_RECORD: usize = 1 << 20;

/// The most descriptors one record carries (a lane's two).
const MAX_FDS: usize = 2;

/// What the box host begins with, before its run is known: what it needs to take its
/// namespaces and set its interpreter up (choreo may start it ahead of its run, while the
/// run's files are laid out: [`super::BoxHost::start_ahead`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Begin {
    /// The protocol's version (`super::message::VERSION`).
    pub version: u32,
    /// Whether to take namespaces of its own (user, PID, IPC, and network unless `net`).
    pub isolate: bool,
    /// Whether box code may reach the network (`--allow-net`): its network namespace is
    /// then the machine's.
    pub net: bool,
}

/// What the box host is started with once its run is known: its confinement, its bounds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Start {
    /// The protocol's version (`super::message::VERSION`).
    pub version: u32,
    /// What box code may read (resolved: the project, the run's folders, the flags').
    pub read: Vec<PathBuf>,
    /// What box code may write.
    pub write: Vec<PathBuf>,
    /// The flags.
    pub allowed: Allowed,
    /// The bound on its memory, in bytes.
    pub memory: Option<u64>,
    /// The bound on its open files.
    pub open_files: u64,
}

/// The box host is ready: how it is confined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ready {
    /// The protocol's version.
    pub version: u32,
    /// Why it has no namespaces of its own (`None`: it has them).
    pub no_namespaces: Option<String>,
    /// What the kernel's Landlock could not do (`None`: all of it).
    pub no_landlock: Option<String>,
}

/// A record of the control socket.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// choreo begins the box host.
    Begin(Begin),
    /// choreo starts the box host's run.
    Start(Start),
    /// A lane's pipes (attached: the box host's reading end, then its writing end).
    NewLane,
    /// The box of this handle is gone.
    DropBox(u64),
    /// The box host is ready.
    Ready(Ready),
    /// Box code was refused this (a line of the report).
    Refused(String),
    /// Box code is about to end its process so (`root/Box line 4: os._exit(0)`).
    Note(String),
}

impl Record {
    fn encode(&self) -> Vec<u8> {
        let paths = |w: &mut Writer, p: &[PathBuf]| {
            let texts: Vec<String> = p.iter().map(|p| p.display().to_string()).collect();
            w.strs(&texts);
        };
        let w = match self {
            Record::Begin(b) => {
                let mut w = Writer::tagged(b'B');
                w.u32(b.version).bool(b.isolate).bool(b.net);
                w
            }
            Record::Start(s) => {
                let mut w = Writer::tagged(b'S');
                w.u32(s.version);
                paths(&mut w, &s.read);
                paths(&mut w, &s.write);
                paths(&mut w, &s.allowed.read);
                paths(&mut w, &s.allowed.write);
                match &s.allowed.net {
                    Some(hosts) => w.u8(1).strs(hosts),
                    None => w.u8(0),
                };
                w.bool(s.allowed.run).opt_u64(s.memory).u64(s.open_files);
                w
            }
            Record::NewLane => Writer::tagged(b'L'),
            Record::DropBox(h) => {
                let mut w = Writer::tagged(b'D');
                w.u64(*h);
                w
            }
            Record::Ready(r) => {
                let mut w = Writer::tagged(b'R');
                w.u32(r.version)
                    .opt_str(r.no_namespaces.as_deref())
                    .opt_str(r.no_landlock.as_deref());
                w
            }
            Record::Refused(t) => {
                let mut w = Writer::tagged(b'F');
                w.str(t);
                w
            }
            Record::Note(t) => {
                let mut w = Writer::tagged(b'N');
                w.str(t);
                w
            }
        };
        w.bytes
    }

    fn decode(bytes: &[u8]) -> Result<Record, WireError> {
        let mut r = Reader::new(bytes);
        let paths = |r: &mut Reader<'_>| -> Result<Vec<PathBuf>, WireError> {
            Ok(r.strs()?.into_iter().map(PathBuf::from).collect())
        };
        let record = match r.u8()? {
            b'B' => Record::Begin(Begin {
                version: r.u32()?,
                isolate: r.bool()?,
                net: r.bool()?,
            }),
            b'S' => Record::Start(Start {
                version: r.u32()?,
                read: paths(&mut r)?,
                write: paths(&mut r)?,
                allowed: Allowed {
                    read: paths(&mut r)?,
                    write: paths(&mut r)?,
                    net: if r.bool()? { Some(r.strs()?) } else { None },
                    run: r.bool()?,
                },
                memory: r.opt_u64()?,
                open_files: r.u64()?,
            }),
            b'L' => Record::NewLane,
            b'D' => Record::DropBox(r.u64()?),
            b'R' => Record::Ready(Ready {
                version: r.u32()?,
                no_namespaces: r.opt_str()?,
                no_landlock: r.opt_str()?,
            }),
            b'F' => Record::Refused(r.str()?),
            b'N' => Record::Note(r.str()?),
            t => return Err(WireError(format!("no control record has tag {t}"))),
        };
        r.finish()?;
        Ok(record)
    }
}

/// Why the control socket failed.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The socket.
    #[error("the box host's control socket failed: {0}")]
    Io(#[from] std::io::Error),
    /// A record that is no record.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// A record past the bound.
    #[error("a control record past {MAX_RECORD} bytes")]
    TooLarge,
}

/// One end of the control socket.
pub struct Control {
    fd: OwnedFd,
    /// Where records are received: made once (a record may be 1 MiB; most are a few
    /// bytes, and a buffer made per record would cost each its size).
    buffer: std::sync::Mutex<Vec<u8>>,
}

impl Control {
    /// Both ends (close-on-exec: the box host's is made its fd 3 by the spawner).
    pub fn pair() -> std::io::Result<(Control, OwnedFd)> {
        let (a, b) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )?;
        Ok((Control::from_fd(a), b))
    }

    /// The control socket on `fd`.
    pub fn from_fd(fd: OwnedFd) -> Control {
        Control {
            fd,
            buffer: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Sends `record`, with `fds` attached (at most [`MAX_FDS`]).
    pub fn send(&self, record: &Record, fds: &[BorrowedFd<'_>]) -> Result<(), ControlError> {
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

    /// The next record and the descriptors attached to it; `None` once the other end is
    /// closed.
    pub fn recv(&self) -> Result<Option<(Record, Vec<OwnedFd>)>, ControlError> {
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
        Ok(Some((record, fds)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn records_and_a_lanes_pipes_cross_the_control_socket() {
        let (a, b) = Control::pair().unwrap();
        let b = Control::from_fd(b);
        let begin = Record::Begin(Begin {
            version: 1,
            isolate: true,
            net: false,
        });
        a.send(&begin, &[]).unwrap();
        let start = Record::Start(Start {
            version: 1,
            read: vec!["/p".into()],
            write: vec!["/w".into()],
            allowed: Allowed {
                read: vec![],
                write: vec!["/tmp".into()],
                net: Some(vec!["h:1".into()]),
                run: true,
            },
            memory: Some(1 << 30),
            open_files: 4096,
        });
        a.send(&start, &[]).unwrap();
        let (lane, theirs) = crate::remote::lane::Lane::pair().unwrap();
        a.send(&Record::NewLane, &[theirs[0].as_fd(), theirs[1].as_fd()])
            .unwrap();
        drop(a);
        assert_eq!(b.recv().unwrap().unwrap().0, begin);
        let (got, fds) = b.recv().unwrap().unwrap();
        assert_eq!(got, start);
        assert!(fds.is_empty());
        let (got, fds) = b.recv().unwrap().unwrap();
        assert_eq!(got, Record::NewLane);
        // The descriptors received are the lane's other ends: what one side sends, the
        // other reads.
        let mut fds = fds.into_iter();
        let (Some(reader), Some(writer)) = (fds.next(), fds.next()) else {
            panic!("two descriptors expected");
        };
        let theirs = crate::remote::lane::Lane::new(reader, writer);
        let message =
            crate::remote::message::Message::Answer(crate::remote::message::Answer::Number(7));
        theirs.send(&message).unwrap();
        assert_eq!(lane.recv().unwrap(), message);
        assert!(b.recv().unwrap().is_none());
    }
}
