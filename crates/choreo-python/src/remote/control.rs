//! The box host's control records: those that are no lane's — the beginning and the start,
//! a new lane, a box dropped, a barrier, and from the box host its readiness, box code's
//! refusals, what box code is about to do to its process and the barrier's answer. How
//! they travel is the platform's (`super::channel`: on Linux a `SOCK_SEQPACKET` socket with
//! a lane's pipes attached, elsewhere lane 0 of the box host's standard streams).

use super::wire::{Reader, WireError, Writer};
use crate::confinement::Allowed;
use std::path::PathBuf;

/// The most one record may hold (the start's lists of paths are its longest).
pub(crate) const MAX_RECORD: usize = 1 << 20;

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
    /// A new lane (its ends come with it: `super::channel`).
    NewLane,
    /// The box of this handle is gone.
    DropBox(u64),
    /// The box host is ready.
    Ready(Ready),
    /// Box code was refused this (a line of the report).
    Refused(String),
    /// Box code is about to end its process so (`root/Box line 4: os._exit(0)`).
    Note(String),
    /// choreo asks the box host to answer [`Record::Synced`] with this number: what the box
    /// host sent on this channel before the answer (a refusal) is then known to choreo.
    Sync(u64),
    /// The box host's answer to [`Record::Sync`].
    Synced(u64),
}

impl Record {
    pub(crate) fn encode(&self) -> Vec<u8> {
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
            Record::Sync(n) => {
                let mut w = Writer::tagged(b'Y');
                w.u64(*n);
                w
            }
            Record::Synced(n) => {
                let mut w = Writer::tagged(b'y');
                w.u64(*n);
                w
            }
        };
        w.bytes
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Record, WireError> {
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
            b'Y' => Record::Sync(r.u64()?),
            b'y' => Record::Synced(r.u64()?),
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

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn every_record_reads_back_as_written() {
        let records = [
            Record::Begin(Begin {
                version: 1,
                isolate: true,
                net: false,
            }),
            Record::Start(Start {
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
            }),
            Record::NewLane,
            Record::DropBox(7),
            Record::Ready(Ready {
                version: 1,
                no_namespaces: Some("none here".into()),
                no_landlock: None,
            }),
            Record::Refused("open('/etc/shadow')".into()),
            Record::Note("root/Box line 4: os._exit(0)".into()),
            Record::Sync(3),
            Record::Synced(u64::MAX),
        ];
        for record in records {
            assert_eq!(Record::decode(&record.encode()).unwrap(), record);
        }
        assert!(Record::decode(b"Z").is_err());
        assert!(Record::decode(b"D\x01").is_err());
    }
}
