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
//! **Watching** ([`Watched`], around the receiving half): the session's keep-alive. The
//! socket's read timeout makes every read return at least once per tick; when nothing was
//! received for a while, the watch sends a probe call the peer always answers, and when
//! nothing at all arrives within the limit after a probe, the read fails, which makes the
//! reader close the link exactly as for a socket closed by the peer (see `session`).
//!
//! **TLS** keeps that design: the rustls connection is behind a mutex held only while
//! sealing or opening records, never across a blocking socket call. The writer seals the
//! queued frames under the lock, then writes the ciphertext unlocked; records the reader
//! makes the connection send (alerts, key updates) are sealed and written by whichever
//! thread holds the writer role next, so records always reach the socket in the order they
//! were sealed.

use std::io::{self, BufRead, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use choreo_base::lock;

use crate::codec::header::{Address, Flags, HEADER_SIZE, MessageType};
use crate::codec::message::{Message, next_id};
use crate::error::Error;
use crate::transport::delay::{DelayLine, Lane, Latency};

/// The sending half of a connection.
pub(crate) struct Outbox {
    stream: TcpStream,
    tls: Option<Mutex<rustls::Connection>>,
    state: Mutex<OutState>,
    /// The socket is in non-blocking mode (a server's reactor, `crate::reactor`): what it
    /// cannot take stays queued until [`Outbox::resume`].
    nonblocking: bool,
    /// Frames held back by a simulated network delay (`crate::delay`).
    delayed: Option<Delayed>,
}

/// Where an outbox's frames wait out their delay, and the outbox they then go to.
struct Delayed {
    line: Arc<DelayLine>,
    lane: Lane,
    me: Weak<Outbox>,
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
    /// Counts [`Outbox::resume`] calls: a writer that found the socket full retries when
    /// it changed meanwhile (the socket became writable while it was writing).
    resumed: u64,
    /// Frames are queued, not written, until [`Outbox::release`] (see [`Outbox::hold`]).
    held: bool,
}

/// Buffers larger than this are not kept for reuse.
const KEEP: usize = 1 << 20;

/// A non-blocking outbox whose peer lets this much pile up is closed.
const MOST_QUEUED: usize = 256 << 20;

/// A held outbox writes anyway once this much is queued.
const MOST_HELD: usize = 64 << 10;

impl Outbox {
    /// An outbox writing to `stream` (a clone of the socket the reader uses).
    pub fn new(stream: TcpStream) -> Outbox {
        Outbox {
            stream,
            tls: None,
            state: Mutex::new(OutState::default()),
            nonblocking: false,
            delayed: None,
        }
    }

    /// A non-blocking outbox (see [`Outbox::nonblocking`]) whose frames each wait a delay
    /// drawn from `latency` (seeded with `seed`) on `line` before they are written.
    pub fn delayed(
        stream: TcpStream,
        line: Arc<DelayLine>,
        latency: Latency,
        seed: u64,
    ) -> Arc<Outbox> {
        Arc::new_cyclic(|me| Outbox {
            delayed: Some(Delayed {
                line,
                lane: Lane::new(latency, seed),
                me: me.clone(),
            }),
            ..Outbox::nonblocking(stream)
        })
    }

    /// An outbox writing to `stream`, a socket in non-blocking mode: a send never waits for
    /// the socket; what it cannot take is written by a later send or [`Outbox::resume`].
    pub fn nonblocking(stream: TcpStream) -> Outbox {
        Outbox {
            nonblocking: true,
            ..Outbox::new(stream)
        }
    }

    /// The socket became writable: writes what is queued.
    pub fn resume(&self) -> Result<(), Error> {
        let mut st = lock(&self.state);
        st.resumed = st.resumed.wrapping_add(1);
        if st.closed.is_some() || st.queued.is_empty() {
            return Ok(());
        }
        self.pump(st)
    }

    /// Queues the frames sent from now on until [`Outbox::release`], so that the answers to
    /// the requests of one read go out in one write: one system call for the server, one
    /// segment and one wake-up for the peer, however many requests it pipelined. Frames
    /// still go out once [`MOST_HELD`] bytes wait.
    pub fn hold(&self) {
        lock(&self.state).held = true;
    }

    /// Ends [`Outbox::hold`]: writes what it queued.
    pub fn release(&self) -> Result<(), Error> {
        let mut st = lock(&self.state);
        st.held = false;
        if st.closed.is_some() || st.queued.is_empty() {
            return Ok(());
        }
        self.pump(st)
    }

    /// An outbox sealing frames with `tls` (handshake done) before writing them to `stream`.
    pub fn with_tls(stream: TcpStream, tls: rustls::Connection) -> Outbox {
        Outbox {
            stream,
            tls: Some(Mutex::new(tls)),
            state: Mutex::new(OutState::default()),
            nonblocking: false,
            delayed: None,
        }
    }

    /// Sends one message.
    pub fn send(&self, message: &Message) -> Result<(), Error> {
        self.send_parts(&message.header.encode(), &message.payload)
    }

    /// Sends a header and its payload (after the simulated delay, if there is one).
    pub fn send_parts(&self, header: &[u8; HEADER_SIZE], payload: &[u8]) -> Result<(), Error> {
        let Some(delayed) = &self.delayed else {
            return self.write_frame(header, payload);
        };
        if let Some(why) = &lock(&self.state).closed {
            return Err(Error::Disconnected(why.clone()));
        }
        let mut frame = Vec::with_capacity(HEADER_SIZE + payload.len());
        frame.extend_from_slice(header);
        frame.extend_from_slice(payload);
        let me = delayed.me.clone();
        delayed.line.at(
            delayed.lane.due(),
            Box::new(move || {
                if let Some(out) = me.upgrade() {
                    let _ = out.write_frame(&frame, &[]);
                }
            }),
        );
        Ok(())
    }

    /// Queues a frame (its header and payload) and writes what the socket takes.
    fn write_frame(&self, header: &[u8], payload: &[u8]) -> Result<(), Error> {
        let mut st = lock(&self.state);
        if let Some(why) = &st.closed {
            return Err(Error::Disconnected(why.clone()));
        }
        st.queued.extend_from_slice(header);
        st.queued.extend_from_slice(payload);
        if st.held && st.queued.len() < MOST_HELD {
            return Ok(());
        }
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
            let resumed = st.resumed;
            let mut sealed = std::mem::take(&mut st.sealed);
            drop(st);
            let mut took = chunk.len();
            let written = match &self.tls {
                None if self.nonblocking => write_some(&self.stream, &chunk).map(|n| took = n),
                None => (&self.stream).write_all(&chunk),
                Some(tls) => {
                    seal(tls, &chunk, &mut sealed).and_then(|()| (&self.stream).write_all(&sealed))
                }
            };
            if written.is_ok() && took < chunk.len() {
                // The socket is full: the rest goes back before what was queued meanwhile.
                st = lock(&self.state);
                let mut rest = chunk.split_off(took);
                rest.append(&mut st.queued);
                st.queued = rest;
                if st.queued.len() > MOST_QUEUED {
                    drop(st);
                    self.close("the peer takes no data");
                    return Err(Error::Disconnected("the peer takes no data".into()));
                }
                if st.resumed == resumed {
                    // The reactor calls `resume` once the socket is writable again.
                    st.writing = false;
                    return Ok(());
                }
                continue;
            }
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
                st.closed = Some(if is_timeout(&e) {
                    // The send timeout (set with the keep-alive): the peer took nothing.
                    "write failed: the peer accepted no data within the send timeout".to_string()
                } else {
                    format!("write failed: {e}")
                });
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

    /// Why sends fail, once the outbox is closed.
    pub fn closed_reason(&self) -> Option<String> {
        lock(&self.state).closed.clone()
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

/// Writes as much of `bytes` as the non-blocking `stream` takes now; how much.
fn write_some(mut stream: &TcpStream, bytes: &[u8]) -> io::Result<usize> {
    let mut done = 0;
    while let Some(rest) = bytes.get(done..).filter(|r| !r.is_empty()) {
        match stream.write(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
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

/// A read or write that ended because the socket's timeout expired (`EAGAIN` on Unix,
/// `TimedOut` on Windows).
pub(crate) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// What a [`Watched`] reader does when the link is quiet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watch {
    /// Send a probe after this long without receiving anything.
    pub interval: Duration,
    /// Fail when nothing at all arrives for this long after a probe.
    pub timeout: Duration,
    /// The probe: a call with no arguments the peer answers (a Reply or an Error: any byte
    /// will do).
    pub probe: Address,
}

/// The receiving half of a connection under a keep-alive [`Watch`] (none: a plain pass-
/// through). The socket's read timeout must be set (to a fraction of the watch's periods):
/// each expiry is a chance to probe, or to declare the link dead.
pub(crate) struct Watched {
    inner: Incoming,
    out: Arc<Outbox>,
    watch: Option<Watch>,
    /// When the last bytes arrived.
    last: Instant,
    /// When the probe still unanswered was sent.
    probing: Option<Instant>,
    /// A quiet tick ends the read (with the timeout) instead of watching: a caller reading
    /// for its own answer gives the socket back to the reader thread rather than keep it.
    impatient: bool,
}

impl Watched {
    /// `inner`, with probes sent through `out`; unwatched until [`Watched::arm`].
    pub fn new(inner: Incoming, out: Arc<Outbox>) -> Watched {
        Watched {
            inner,
            out,
            watch: None,
            last: Instant::now(),
            probing: None,
            impatient: false,
        }
    }

    /// Whether a quiet tick ends the read (see the field).
    pub fn set_impatient(&mut self, on: bool) {
        self.impatient = on;
    }

    /// Starts watching (from now).
    pub fn arm(&mut self, watch: Watch) {
        self.watch = Some(watch);
        self.last = Instant::now();
        self.probing = None;
    }

    /// A read timed out: probe, or give up on the link.
    fn quiet(&mut self, watch: Watch) -> io::Result<()> {
        let now = Instant::now();
        match self.probing {
            Some(sent) if now.duration_since(sent) >= watch.timeout => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "keep-alive: nothing received for {:.1?}, {:.1?} after a probe: the link is dead",
                    now.duration_since(self.last),
                    now.duration_since(sent)
                ),
            )),
            Some(_) => Ok(()),
            None if now.duration_since(self.last) >= watch.interval => {
                self.probing = Some(now);
                let probe = Message::new(
                    MessageType::Call,
                    next_id(),
                    watch.probe,
                    Flags::default(),
                    Vec::new(),
                );
                // No answer slot: the reader drops the answer; its bytes are what counts.
                self.out
                    .send(&probe)
                    .map_err(|e| io::Error::new(io::ErrorKind::BrokenPipe, e.to_string()))
            }
            None => Ok(()),
        }
    }
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.last = Instant::now();
                    self.probing = None;
                    return Ok(n);
                }
                Err(e) if is_timeout(&e) && self.impatient => return Err(e),
                Err(e) if is_timeout(&e) => match self.watch {
                    Some(watch) => self.quiet(watch)?,
                    None => return Err(e),
                },
                Err(e) => return Err(e),
            }
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

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use std::io::{ErrorKind, Read};
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    use super::{MOST_HELD, Outbox};
    use crate::codec::header::HEADER_SIZE;

    /// A connected pair: an outbox in non-blocking mode, and the peer's socket.
    fn pair() -> (Outbox, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        let ours = TcpStream::connect(addr).expect("connect");
        let (peer, _) = listener.accept().expect("accept");
        ours.set_nonblocking(true).expect("non-blocking");
        peer.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        (Outbox::nonblocking(ours), peer)
    }

    fn frame(byte: u8) -> ([u8; HEADER_SIZE], Vec<u8>) {
        ([byte; HEADER_SIZE], vec![byte; 10])
    }

    /// Reads exactly `n` bytes (30 s at most).
    fn read_n(peer: &mut TcpStream, n: usize) -> Vec<u8> {
        let mut got = vec![0; n];
        peer.read_exact(&mut got).expect("the frames arrive");
        got
    }

    #[test]
    fn a_held_outbox_writes_its_frames_in_order_only_when_released() {
        let (out, mut peer) = pair();
        out.hold();
        for byte in [1, 2, 3] {
            let (h, p) = frame(byte);
            out.send_parts(&h, &p).expect("queued");
        }
        // Nothing may have been written: a peer that finds bytes fails, under any load.
        std::thread::sleep(Duration::from_millis(50));
        peer.set_nonblocking(true).expect("non-blocking");
        let mut probe = [0u8; 1];
        let early = peer.read(&mut probe);
        assert!(
            matches!(&early, Err(e) if e.kind() == ErrorKind::WouldBlock),
            "a held frame went out: {early:?}"
        );
        peer.set_nonblocking(false).expect("blocking");
        out.release().expect("written");
        let size = HEADER_SIZE + 10;
        let got = read_n(&mut peer, 3 * size);
        for (i, byte) in [1u8, 2, 3].into_iter().enumerate() {
            let part = got.get(i * size..(i + 1) * size).expect("a whole frame");
            assert!(part.iter().all(|b| *b == byte), "frame {i} out of order");
        }
        // Released, it writes at once again.
        let (h, p) = frame(4);
        out.send_parts(&h, &p).expect("written");
        assert!(read_n(&mut peer, size).iter().all(|b| *b == 4));
    }

    #[test]
    fn a_held_outbox_writes_once_enough_waits() {
        let (out, mut peer) = pair();
        out.hold();
        let header = [7u8; HEADER_SIZE];
        let payload = vec![7u8; MOST_HELD];
        out.send_parts(&header, &payload).expect("written");
        // Still held, yet the large frame went out without a release.
        let got = read_n(&mut peer, HEADER_SIZE + MOST_HELD);
        assert!(got.iter().all(|b| *b == 7));
    }
}
