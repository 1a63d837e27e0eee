//! Both halves of a qi socket, plain TCP or TLS.
//!
//! **Sending** ([`Outbox`], shared by every thread that writes): frames are appended to one
//! buffer; the thread that finds no write in progress becomes the writer and flushes
//! everything queued meanwhile in one system call. A lone caller writes its frame at once
//! (no hand-off to another thread), while many callers in flight share system calls. Both
//! clients and servers use it.
//!
//! **Receiving** ([`Incoming`], owned by the socket's reader thread): a plain socket is read
//! as is; a TLS socket is read raw (unlocked, blocking) and decrypted under the TLS lock.
//!
//! **TLS** keeps that design: the rustls connection is behind a mutex held only while
//! sealing or opening records, never across a blocking socket call. The writer seals the
//! queued frames under the lock, then writes the ciphertext unlocked; records the reader
//! makes the connection send (alerts, key updates) are sealed and written by whichever
//! thread holds the writer role next, so records always reach the socket in the order they
//! were sealed.

use std::io::{self, BufRead, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::Error;
use crate::header::HEADER_SIZE;
use crate::message::Message;

/// The sending half of a connection.
pub(crate) struct Outbox {
    stream: TcpStream,
    tls: Option<Mutex<rustls::Connection>>,
    state: Mutex<OutState>,
}

#[derive(Default)]
struct OutState {
    queued: Vec<u8>,
    spare: Vec<u8>,
    /// Ciphertext buffer kept between writes (TLS).
    sealed: Vec<u8>,
    writing: bool,
    /// The TLS connection has records to send that no frame carried (TLS).
    tls_pending: bool,
    closed: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Buffers larger than this are not kept for reuse.
const KEEP: usize = 1 << 20;

impl Outbox {
    /// An outbox writing to `stream` (a clone of the socket the reader uses).
    pub fn new(stream: TcpStream) -> Outbox {
        Outbox {
            stream,
            tls: None,
            state: Mutex::new(OutState::default()),
        }
    }

    /// An outbox sealing frames with `tls` (handshake done) before writing them to `stream`.
    pub fn with_tls(stream: TcpStream, tls: rustls::Connection) -> Outbox {
        Outbox {
            stream,
            tls: Some(Mutex::new(tls)),
            state: Mutex::new(OutState::default()),
        }
    }

    /// Sends one message.
    pub fn send(&self, message: &Message) -> Result<(), Error> {
        self.send_parts(&message.header.encode(), &message.payload)
    }

    /// Sends a header and its payload.
    pub fn send_parts(&self, header: &[u8; HEADER_SIZE], payload: &[u8]) -> Result<(), Error> {
        let mut st = lock(&self.state);
        if let Some(why) = &st.closed {
            return Err(Error::Disconnected(why.clone()));
        }
        st.queued.extend_from_slice(header);
        st.queued.extend_from_slice(payload);
        self.pump(st)
    }

    /// Sends what the TLS connection has to send by itself (after the reader processed
    /// records).
    fn flush_tls(&self) -> Result<(), Error> {
        let mut st = lock(&self.state);
        if st.closed.is_some() {
            return Ok(());
        }
        st.tls_pending = true;
        self.pump(st)
    }

    /// Becomes the writer unless another thread is, and writes until nothing is queued.
    fn pump<'a>(&'a self, mut st: MutexGuard<'a, OutState>) -> Result<(), Error> {
        if st.writing {
            return Ok(());
        }
        st.writing = true;
        loop {
            let mut chunk = std::mem::take(&mut st.spare);
            std::mem::swap(&mut chunk, &mut st.queued);
            st.tls_pending = false;
            let mut sealed = std::mem::take(&mut st.sealed);
            drop(st);
            let written = match &self.tls {
                None => (&self.stream).write_all(&chunk),
                Some(tls) => {
                    seal(tls, &chunk, &mut sealed).and_then(|()| (&self.stream).write_all(&sealed))
                }
            };
            chunk.clear();
            sealed.clear();
            st = lock(&self.state);
            if chunk.capacity() <= KEEP {
                st.spare = chunk;
            }
            if sealed.capacity() <= KEEP {
                st.sealed = sealed;
            }
            if let Err(e) = written {
                st.writing = false;
                st.closed = Some(format!("write failed: {e}"));
                st.queued.clear();
                drop(st);
                let _ = self.stream.shutdown(Shutdown::Both);
                return Err(e.into());
            }
            if st.queued.is_empty() && !st.tls_pending {
                st.writing = false;
                return Ok(());
            }
        }
    }

    /// Closes the socket (both directions); later sends fail with `why`.
    pub fn close(&self, why: &str) {
        let mut st = lock(&self.state);
        if st.closed.is_none() {
            st.closed = Some(why.to_string());
        }
        drop(st);
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// Seals `plain` into TLS records appended to `out`, with any records the connection had
/// pending before.
fn seal(tls: &Mutex<rustls::Connection>, plain: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let mut conn = lock(tls);
    let mut rest = plain;
    loop {
        while conn.wants_write() {
            conn.write_tls(out)?;
        }
        if rest.is_empty() {
            return Ok(());
        }
        let n = conn.writer().write(rest)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "the TLS connection accepts no more data",
            ));
        }
        rest = rest.get(n..).unwrap_or_default();
    }
}

/// The receiving half of a connection (the reader thread's).
pub(crate) enum Incoming {
    /// A plain socket.
    Tcp(TcpStream),
    /// A TLS socket.
    Tls(TlsIncoming),
}

impl Incoming {
    /// The receiving half of a TLS socket whose sending half is `out`.
    pub fn tls(stream: TcpStream, out: Arc<Outbox>) -> Incoming {
        Incoming::Tls(TlsIncoming {
            stream,
            out,
            raw: vec![0; RAW_READ].into_boxed_slice(),
            plain: Vec::new(),
            at: 0,
            closed: false,
            primed: false,
        })
    }
}

impl Read for Incoming {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Incoming::Tcp(s) => s.read(buf),
            Incoming::Tls(t) => t.read(buf),
        }
    }
}

/// Ciphertext read per system call.
const RAW_READ: usize = 1 << 15;

/// Reads and decrypts a TLS socket.
pub(crate) struct TlsIncoming {
    stream: TcpStream,
    out: Arc<Outbox>,
    raw: Box<[u8]>,
    /// Decrypted bytes not yet handed out: `plain[at..]`.
    plain: Vec<u8>,
    at: usize,
    /// The peer sent close_notify.
    closed: bool,
    /// Plaintext that arrived with the handshake's last records was taken.
    primed: bool,
}

impl Read for TlsIncoming {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(rest) = self.plain.get(self.at..)
                && !rest.is_empty()
            {
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                self.at += n;
                return Ok(n);
            }
            self.plain.clear();
            self.at = 0;
            if self.closed {
                return Ok(0);
            }
            if !self.primed {
                // The peer's first frames may have come with the end of the handshake.
                self.primed = true;
                self.open(0)?;
                continue;
            }
            let n = match self.stream.read(&mut self.raw) {
                Ok(0) => return Ok(0),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.open(n)?;
        }
    }
}

impl TlsIncoming {
    /// Decrypts the `n` raw bytes read into `plain` (with `n` = 0, takes the plaintext the
    /// connection holds).
    fn open(&mut self, n: usize) -> io::Result<()> {
        let Some(tls) = &self.out.tls else {
            return Err(io::Error::other("a TLS reader without a TLS connection"));
        };
        let mut conn = lock(tls);
        let mut data = self.raw.get(..n).unwrap_or_default();
        let mut failed = None;
        let mut first = true;
        while (first || !data.is_empty()) && failed.is_none() {
            if !data.is_empty() {
                // Each call takes what fits in rustls's record buffer; processing frees it.
                conn.read_tls(&mut data)?;
                if let Err(e) = conn.process_new_packets() {
                    failed = Some(e);
                }
            }
            first = false;
            let mut reader = conn.reader();
            loop {
                match reader.fill_buf() {
                    Ok([]) => {
                        self.closed = true;
                        break;
                    }
                    Ok(chunk) => {
                        let len = chunk.len();
                        self.plain.extend_from_slice(chunk);
                        reader.consume(len);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
            if self.closed {
                break;
            }
        }
        let wants_write = conn.wants_write();
        drop(conn);
        if wants_write {
            // An alert, or an answer to a key update: written by the outbox's writer.
            let _ = self.out.flush_tls();
        }
        match failed {
            Some(e) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("TLS: {e}"),
            )),
            None => Ok(()),
        }
    }
}
