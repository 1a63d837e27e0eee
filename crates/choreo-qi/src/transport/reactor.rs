//! The plain-TCP connections of a server, all served by one thread: sockets in non-blocking
//! mode watched with epoll (through `mio`), so a connection costs memory, never a thread.
//!
//! The reactor thread reads what each socket has, parses the frames as they complete (a
//! connection's partial frame waits in its own buffer, grown only as bytes arrive: a header
//! declaring 2 GiB costs nothing until they come) and hands each message to the server in
//! the connection's order. The answers to what one read brought are held and go out in one
//! write ([`Outbox::hold`]). Answers go out through the connection's [`Outbox`] in
//! non-blocking mode: what the socket cannot take stays queued, and the reactor resumes the
//! writing when the socket becomes writable again. Methods that block run on the server's
//! workers, never here (inline methods promise not to block).
//!
//! **Limits**, so that idle or hostile clients cannot exhaust the server: a connection that
//! has not finished its handshake (a first message handled and the peer authenticated)
//! within [`Limits::handshake`] is closed; when more than [`Limits::max_pending`] are
//! waiting for theirs, the oldest is closed; beyond [`Limits::max_connections`], a new
//! connection is closed at once. Each is reported to the server, which counts them.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read};
use std::net::TcpStream as StdStream;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use choreo_base::join::ThreadSet;
use crossbeam_channel::{Receiver, Sender};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token, Waker};

use crate::codec::header::{HEADER_SIZE, Header};
use crate::codec::message::Message;
use crate::error::Error;
use crate::transport::socket::Outbox;

/// How many connections a server keeps, and how long a new one may take to handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest payload accepted.
    pub max_payload: u32,
    /// Connections served at once (handshaken or not).
    pub max_connections: usize,
    /// Connections waiting for their handshake at once.
    pub max_pending: usize,
    /// How long a connection may take to handshake.
    pub handshake: Duration,
}

/// Why the reactor closed a connection of its own accord.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No handshake within [`Limits::handshake`].
    Handshake,
    /// Too many connections waiting for their handshake: the oldest was closed.
    Pending,
    /// [`Limits::max_connections`] reached.
    Full,
}

impl Refusal {
    /// What a log says.
    pub fn describe(self, limits: &Limits) -> String {
        match self {
            Refusal::Handshake => format!(
                "no handshake within {:?}: closed (more such connections are counted, not logged)",
                limits.handshake
            ),
            Refusal::Pending => format!(
                "more than {} connections waiting for their handshake: the oldest closed \
                 (more are counted, not logged)",
                limits.max_pending
            ),
            Refusal::Full => format!(
                "{} connections open: a new one refused (more are counted, not logged)",
                limits.max_connections
            ),
        }
    }
}

/// What a reactor serves (the server).
pub(crate) trait Served: Send + Sync + 'static {
    /// A connection's state, as the server keeps it.
    type Conn: Send + 'static;
    /// The limits in force.
    fn limits(&self) -> Limits;
    /// Whether the server stopped (the reactor then closes everything and ends).
    fn stopped(&self) -> bool;
    /// The sending half of a new connection, `stream` in non-blocking mode.
    fn outbox(&self, stream: StdStream) -> Arc<Outbox>;
    /// A connection opened from `peer`, answered through `out`.
    fn open(self: &Arc<Self>, out: Arc<Outbox>, peer: &str) -> Self::Conn;
    /// A message arrived; an error closes the connection.
    fn message(self: &Arc<Self>, conn: &Self::Conn, m: Message) -> Result<(), Error>;
    /// Whether the connection's peer authenticated.
    fn authenticated(&self, conn: &Self::Conn) -> bool;
    /// A connection closed: `error` says why when it was not a clean close; `handshaken`
    /// says whether it had finished its handshake.
    fn closed(&self, conn: Self::Conn, peer: String, error: Option<String>, handshaken: bool);
    /// The reactor refused or closed a connection by a limit.
    fn refused(&self, why: Refusal);
}

/// The token of the reactor's waker.
const WAKE: Token = Token(0);

/// Bytes read per system call (one buffer for every connection).
const SCRATCH: usize = 1 << 16;

/// A connection's buffer above this capacity is given back once it is empty.
const KEEP: usize = 1 << 16;

/// The handle to a reactor thread.
pub(crate) struct Reactor {
    add: Sender<StdStream>,
    waker: Arc<Waker>,
}

impl Reactor {
    /// Starts the reactor thread serving `served` (until it is dropped or stopped), kept in
    /// `threads`.
    pub fn start<S: Served>(served: Weak<S>, threads: &ThreadSet) -> io::Result<Reactor> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKE)?);
        let (add, added) = crossbeam_channel::unbounded();
        threads.spawn("qi-reactor", move || Loop::new(served, poll, added).run())?;
        Ok(Reactor { add, waker })
    }

    /// Serves `stream` (a freshly accepted connection).
    pub fn add(&self, stream: StdStream) {
        if self.add.send(stream).is_ok() {
            let _ = self.waker.wake();
        }
    }

    /// Makes the thread look at the server's state now (after a stop).
    pub fn wake(&self) {
        let _ = self.waker.wake();
    }
}

/// One connection on the reactor.
struct Open<C> {
    stream: TcpStream,
    out: Arc<Outbox>,
    conn: C,
    peer: String,
    /// Bytes of a frame not complete yet.
    buf: Vec<u8>,
    /// A message was handled and the peer authenticated.
    handshaken: bool,
    /// A message arrived (it may be handled later: a simulated delay).
    heard: bool,
}

/// The reactor thread's state.
struct Loop<S: Served> {
    served: Weak<S>,
    poll: Poll,
    added: Receiver<StdStream>,
    open: HashMap<Token, Open<S::Conn>>,
    /// Connections waiting for their handshake, oldest first, with when they opened (some
    /// may have handshaken or closed since: skipped).
    waiting: VecDeque<(Instant, Token)>,
    /// How many connections have not handshaken.
    pending: usize,
    next: usize,
    scratch: Vec<u8>,
}

impl<S: Served> Loop<S> {
    fn new(served: Weak<S>, poll: Poll, added: Receiver<StdStream>) -> Loop<S> {
        Loop {
            served,
            poll,
            added,
            open: HashMap::new(),
            waiting: VecDeque::new(),
            pending: 0,
            next: 1,
            scratch: vec![0; SCRATCH],
        }
    }

    fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = self.next_deadline();
            match self.poll.poll(&mut events, Some(timeout)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            let Some(served) = self.served.upgrade() else {
                break;
            };
            if served.stopped() {
                self.close_all(&served);
                return;
            }
            for event in &events {
                let token = event.token();
                if token == WAKE {
                    while let Ok(stream) = self.added.try_recv() {
                        self.admit(&served, stream);
                    }
                    continue;
                }
                if event.is_writable()
                    && let Some(o) = self.open.get(&token)
                    && o.out.resume().is_err()
                {
                    let error = o.out.closed_reason();
                    self.close(&served, token, error);
                    continue;
                }
                if (event.is_readable() || event.is_read_closed() || event.is_error())
                    && let Some(ended) = self.read(&served, token)
                {
                    self.close(&served, token, ended);
                }
            }
            self.expire(&served);
        }
        if let Some(served) = self.served.upgrade() {
            self.close_all(&served);
        }
    }

    /// How long the next wait may last: until the oldest handshake deadline (at most 1 s,
    /// so that a stopped or dropped server is seen).
    fn next_deadline(&self) -> Duration {
        let second = Duration::from_secs(1);
        let Some(limits) = self.served.upgrade().map(|s| s.limits()) else {
            return Duration::ZERO;
        };
        self.waiting
            .front()
            .map_or(second, |(opened, _)| {
                (*opened + limits.handshake).saturating_duration_since(Instant::now())
            })
            .min(second)
    }

    /// Takes a new connection in, or refuses it when the server is full.
    fn admit(&mut self, served: &Arc<S>, stream: StdStream) {
        let limits = served.limits();
        if self.open.len() >= limits.max_connections {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            served.refused(Refusal::Full);
            return;
        }
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        let _ = stream.set_nodelay(true);
        if stream.set_nonblocking(true).is_err() {
            return;
        }
        let Ok(write_half) = stream.try_clone() else {
            return;
        };
        let out = served.outbox(write_half);
        let mut stream = TcpStream::from_std(stream);
        let token = Token(self.next);
        self.next += 1;
        if self
            .poll
            .registry()
            .register(&mut stream, token, Interest::READABLE | Interest::WRITABLE)
            .is_err()
        {
            return;
        }
        let conn = served.open(Arc::clone(&out), &peer);
        self.open.insert(
            token,
            Open {
                stream,
                out,
                conn,
                peer,
                buf: Vec::new(),
                handshaken: false,
                heard: false,
            },
        );
        self.pending += 1;
        self.waiting.push_back((Instant::now(), token));
        while self.pending > limits.max_pending {
            let Some((_, oldest)) = self.waiting.pop_front() else {
                break;
            };
            if self.waiting(served, oldest) {
                self.close(served, oldest, Some("too many connections waiting".into()));
                served.refused(Refusal::Pending);
            }
        }
    }

    /// Reads what connection `token` has; `Some(why)` when it must close (`None` inside: a
    /// clean close by the peer).
    fn read(&mut self, served: &Arc<S>, token: Token) -> Option<Option<String>> {
        let limits = served.limits();
        let o = self.open.get_mut(&token)?;
        let was = o.handshaken;
        let ended = loop {
            match o.stream.read(&mut self.scratch) {
                Ok(0) => break Some(ended_inside(&o.buf, limits.max_payload)),
                Ok(n) => {
                    o.buf
                        .extend_from_slice(self.scratch.get(..n).unwrap_or_default());
                    if let Err(e) = deliver(served, o, limits.max_payload) {
                        break Some(Some(e.to_string()));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break None,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Some(Some(e.to_string())),
            }
        };
        if o.handshaken && !was {
            self.pending = self.pending.saturating_sub(1);
        }
        ended
    }

    /// Closes the connections whose handshake is overdue.
    fn expire(&mut self, served: &Arc<S>) {
        let limits = served.limits();
        let now = Instant::now();
        while let Some(&(opened, token)) = self.waiting.front() {
            let waiting = self.waiting(served, token);
            if waiting && now.duration_since(opened) < limits.handshake {
                break;
            }
            self.waiting.pop_front();
            if waiting {
                self.close(served, token, Some("no handshake in time".into()));
                served.refused(Refusal::Handshake);
            }
        }
    }

    /// Whether connection `token` is open and still waiting for its handshake (one that
    /// finished it since its last message, handled after a delay, is marked so now).
    fn waiting(&mut self, served: &Arc<S>, token: Token) -> bool {
        let Some(o) = self.open.get_mut(&token) else {
            return false;
        };
        if !o.handshaken && o.heard && served.authenticated(&o.conn) {
            o.handshaken = true;
            self.pending = self.pending.saturating_sub(1);
        }
        !o.handshaken
    }

    fn close(&mut self, served: &Arc<S>, token: Token, error: Option<String>) {
        let Some(mut o) = self.open.remove(&token) else {
            return;
        };
        if !o.handshaken {
            self.pending = self.pending.saturating_sub(1);
        }
        let _ = self.poll.registry().deregister(&mut o.stream);
        o.out.close(error.as_deref().unwrap_or("closed"));
        served.closed(o.conn, o.peer, error, o.handshaken);
    }

    /// Closes every connection (the server stopped: a close of ours, not an error).
    fn close_all(&mut self, served: &Arc<S>) {
        let tokens: Vec<Token> = self.open.keys().copied().collect();
        for token in tokens {
            self.close(served, token, None);
        }
    }
}

/// Hands the complete frames of `o.buf` to the server, in order.
fn deliver<S: Served>(
    served: &Arc<S>,
    o: &mut Open<S::Conn>,
    max_payload: u32,
) -> Result<(), Error> {
    let mut at = 0;
    o.out.hold();
    let result = loop {
        match Message::parse(o.buf.get(at..).unwrap_or_default(), max_payload) {
            Ok(Some((m, used))) => {
                at += used;
                o.heard = true;
                if let Err(e) = served.message(&o.conn, m) {
                    break Err(e);
                }
                if !o.handshaken && served.authenticated(&o.conn) {
                    o.handshaken = true;
                }
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    let result = result.and(o.out.release());
    o.buf.drain(..at.min(o.buf.len()));
    if o.buf.is_empty() && o.buf.capacity() > KEEP {
        o.buf = Vec::new();
    }
    result
}

/// Why a connection that ended with `rest` unread is an error (none: it ended between
/// frames).
fn ended_inside(rest: &[u8], max_payload: u32) -> Option<String> {
    if rest.is_empty() {
        return None;
    }
    let Some(head) = rest.first_chunk::<HEADER_SIZE>() else {
        return Some(format!(
            "connection closed inside a header ({} of {HEADER_SIZE} bytes)",
            rest.len()
        ));
    };
    Some(match Header::decode(head, max_payload) {
        Ok(h) => format!(
            "connection closed inside a payload ({} of {} bytes)",
            rest.len() - HEADER_SIZE,
            h.size
        ),
        Err(e) => e.to_string(),
    })
}
