//! One authenticated socket of a session and its reader thread (libqi's client-side
//! `MessageSocket`): connecting (TCP or TLS), the opening exchange of capabilities, routing
//! answers to their callers, events to their handlers and the peer's calls on objects this
//! client passed it to the dispatcher, and dying exactly once.
//!
//! **Who reads the socket.** A caller waiting for its answer reads the socket itself when
//! nobody else does (leader/follower): the answer then wakes one thread, the caller, instead
//! of waking the reader thread, which then wakes the caller. That halves the wake-ups of
//! sequential calls, which on a loaded machine are most of a call's cost. The reading half
//! is a token ([`ReadState::reader`]):
//! - a caller that finds it free reads until its own answer is in, routes the answers of
//!   other calls to their slots, and gives it back; anything else (an event, a call on an
//!   object this client serves, the end of the link) it hands to the reader thread with the
//!   token, so handlers and served objects run on the reader thread, in the order received;
//! - a caller that finds it taken waits for its answer on its slot (a follower);
//! - the reader thread takes it when it is handed work, when followers wait, or when it has
//!   been free for [`GRACE`] (what a quiet link costs an event: at most that long); it gives
//!   it back as it delivers the answer the only waiting caller waits for, so that this
//!   caller's next wait can lead (answers nobody waits for yet it goes on reading);
//! - a leader gives it back after one keep-alive tick of silence (the watch then goes on in
//!   the reader thread) or when its call's deadline comes near. Without a keep-alive the
//!   socket has no read timeout, so callers never lead.
//!
//! Callers with calls in flight lead too: a thread that sends calls and reads the oldest
//! answer itself keeps a pipeline as full as a reader thread beside it did, and each answer
//! then wakes one thread instead of two (docs/benchmarks.md, issue 33 part 2, session 34).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use choreo_base::Value;
use choreo_base::join::ThreadSet;
use choreo_base::lock;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded};

use super::options::SessionOptions;
use super::url::parse_url;
use crate::codec::header::{Address, Flags, HEADER_SIZE, MessageType};
use crate::codec::message::{Message, error_text, next_id};
use crate::codec::signature::Signature;
use crate::codec::value::{self, Decoded};
use crate::error::{Error, Result};
use crate::server::dispatch;
use crate::session::arg::Served;
use crate::transport::capability::{
    self, AUTH_CONTINUE, AUTH_DONE, AUTH_STATE, CapabilityMap, Shared,
};
use crate::transport::generation::Generation;
use crate::transport::peer::Peer;
use crate::transport::socket::{Incoming, Outbox, Watch, Watched, is_timeout};
use crate::transport::tls::{self, Fingerprint};

/// Receives one event: the raw message and the object format of its link.
pub(super) type EventHandler = Arc<dyn Fn(&Message, &Link) + Send + Sync>;

type AnswerSlot = Sender<Result<Message>>;

/// How long the reading half may lie free after a caller read its answer, before the reader
/// thread takes it back: long enough for the next call of a sequence to find it, short
/// enough that an event on a quiet link is not noticeably late.
const GRACE: Duration = Duration::from_millis(1);

/// The socket's reading half, passed between threads.
type Reader = Box<BufReader<Watched>>;

/// What a leading caller read that is the reader thread's to handle: a message (an event,
/// a call from the peer) or why the link ended.
type Handed = std::result::Result<Message, String>;

/// The reading half of the socket and who holds it (see the module doc).
struct Reading {
    state: Mutex<ReadState>,
    /// The reader thread waits here for the reading half.
    back: Condvar,
    /// Largest payload accepted.
    max: u32,
    /// The socket's read timeout (the keep-alive's tick); callers lead only with one.
    tick: Option<Duration>,
    /// How many followers [`ReadState::followers`] holds, read without its lock.
    following: AtomicUsize,
}

struct ReadState {
    /// The socket's reading half; `None` while a thread reads it.
    reader: Option<Reader>,
    /// When it was last given back with nothing left to read.
    freed: Instant,
    /// The reader thread is to take it now.
    urgent: bool,
    /// Handed to the reader thread with the reading half, to handle before reading on.
    handed: Option<Handed>,
    /// The calls whose callers wait on their slots for an answer someone else reads; an id
    /// leaves when its answer is delivered (or its caller stops waiting).
    followers: Vec<u32>,
}

/// One authenticated socket and its reader thread.
pub(crate) struct Link {
    pub(super) url: String,
    /// The server certificate's fingerprint (tcps).
    pub(super) certificate: Option<Fingerprint>,
    /// The peer: the socket, what both ends share, the protocol generation spoken on the
    /// link (the peer's, or ours when older; 2.1: no authentication step, see
    /// [`LEGACY_REFUSAL`]), the MetaObjectCache.
    pub(super) peer: Arc<Peer>,
    /// The objects this client serves the peer on this link.
    pub(super) served: Arc<Served>,
    pub(super) pending: Mutex<HashMap<u32, AnswerSlot>>,
    handlers: RwLock<HashMap<Address, Vec<(u64, EventHandler)>>>,
    dead: Mutex<Option<String>>,
    reading: Reading,
    /// The reader thread, waited for when the session closes ([`Link::join_reader`]).
    reader: ThreadSet,
}

impl Link {
    /// Connects to `url`, authenticates, and starts the reader; `on_close` runs once when
    /// the link dies. `probe` is the keep-alive's call (see the module doc).
    pub(super) fn connect(
        url: &str,
        options: &SessionOptions,
        probe: Address,
        on_close: Box<dyn FnOnce(String) + Send>,
    ) -> Result<Arc<Link>> {
        let target = parse_url(url)?;
        let addrs: Vec<_> = target
            .address
            .to_socket_addrs()
            .map_err(|e| Error::Disconnected(format!("{url}: {e}")))?
            .collect();
        // Opened as choreo's own work even when box code's call asks for it: a robot's
        // service in another process of the robot has an endpoint of its own, which box
        // code's confinement (no ports) would refuse (docs/security.md).
        let (shown, timeout) = (url.to_string(), options.connect_timeout);
        let stream = choreo_sandbox::landlock::helped(move || open_tcp(&shown, addrs, timeout))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(options.connect_timeout))?;
        let (incoming, out, peer) = if target.tls {
            let done = tls::connect(&stream, target.host(), &options.tls).map_err(|e| match e {
                Error::Authentication(why) => Error::Authentication(format!("{url}: {why}")),
                Error::Tls(why) => Error::Tls(format!("{url}: {why}")),
                Error::Io(e) => Error::Disconnected(format!("{url}: {e}")),
                other => other,
            })?;
            let out = Arc::new(Outbox::with_tls(stream.try_clone()?, done.conn));
            let incoming = Incoming::tls(stream.try_clone()?, Arc::clone(&out));
            (incoming, out, done.peer)
        } else {
            let out = Arc::new(Outbox::new(stream.try_clone()?));
            (Incoming::Tcp(stream.try_clone()?), out, None)
        };
        let mut reader =
            BufReader::with_capacity(1 << 16, Watched::new(incoming, Arc::clone(&out)));

        let (remote, generation) = handshake(&mut reader, &out, url, options, target.tls)?;
        let tick = options.keepalive.map(|k| k.tick());
        match options.keepalive {
            Some(k) => {
                stream.set_read_timeout(Some(k.tick()))?;
                stream.set_write_timeout(Some(k.timeout.max(Duration::from_millis(1))))?;
                reader.get_mut().arm(Watch {
                    interval: k.interval,
                    timeout: k.timeout,
                    probe,
                });
            }
            None => stream.set_read_timeout(None)?,
        }
        let link = Arc::new(Link {
            url: url.to_string(),
            certificate: peer,
            peer: Arc::new(Peer::new(
                out,
                Shared::between(options.generation, &remote),
                generation,
            )),
            served: Arc::new(Served::default()),
            pending: Mutex::new(HashMap::new()),
            handlers: RwLock::new(HashMap::new()),
            dead: Mutex::new(None),
            reading: Reading {
                state: Mutex::new(ReadState {
                    reader: Some(Box::new(reader)),
                    freed: Instant::now(),
                    urgent: true,
                    handed: None,
                    followers: Vec::new(),
                }),
                back: Condvar::new(),
                max: options.max_payload,
                tick,
                following: AtomicUsize::new(0),
            },
            reader: ThreadSet::default(),
        });
        let me = Arc::clone(&link);
        link.reader.spawn("qi-client", move || {
            let why = me.reader_thread();
            me.die(&why);
            on_close(why);
        })?;
        Ok(link)
    }

    /// Waits (at most `wait`) for the reader thread to end, unless called from it: after
    /// the socket's close, it is ending.
    pub(super) fn join_reader(&self, wait: Duration) {
        self.reader.join(wait);
    }

    /// The reader thread: reads and routes whenever it holds the reading half; returns why
    /// the link ended.
    fn reader_thread(&self) -> String {
        loop {
            let (mut reader, handed) = self.reader_back();
            match handed {
                Some(Ok(m)) => {
                    if let Err(why) = self.route(m) {
                        return why;
                    }
                }
                Some(Err(why)) => return why,
                None => {}
            }
            loop {
                let m = match self.read_one(&mut reader) {
                    Ok(m) => m,
                    Err(why) => return why,
                };
                // The answer the only waiting caller waits for: its next call, if it comes
                // at once, is to find the reading half free and read its own answer.
                let m = match self.hand_over(reader, m) {
                    Ok(()) => break,
                    Err((r, m)) => {
                        reader = r;
                        m
                    }
                };
                if let Err(why) = self.route(m) {
                    return why;
                }
            }
        }
    }

    /// Gives the reading half back as it delivers `m`, when `m` answers the only caller
    /// waiting (a sequence of calls, or a pipeline's thread) and nothing more is buffered;
    /// else returns both.
    fn hand_over(&self, reader: Reader, m: Message) -> std::result::Result<(), (Reader, Message)> {
        let id = m.header.id;
        if !is_answer(&m) || self.reading.tick.is_none() || !reader.buffer().is_empty() {
            return Err((reader, m));
        }
        {
            let mut st = lock(&self.reading.state);
            if st.followers != [id] {
                return Err((reader, m));
            }
            st.followers.clear();
            self.reading.following.store(0, Ordering::Release);
            st.reader = Some(reader);
            st.freed = Instant::now();
        }
        let slot = lock(&self.pending).remove(&id);
        if let Some(slot) = slot {
            let _ = slot.send(Ok(m));
        }
        Ok(())
    }

    /// Waits until the reader thread is to read (see the module doc); takes the reading
    /// half and what was handed with it.
    fn reader_back(&self) -> (Reader, Option<Handed>) {
        let mut st = lock(&self.reading.state);
        loop {
            let idle = st.freed.elapsed();
            let due = st.urgent || st.handed.is_some() || !st.followers.is_empty() || idle >= GRACE;
            if due && let Some(reader) = st.reader.take() {
                st.urgent = false;
                return (reader, st.handed.take());
            }
            let wait = if st.reader.is_some() {
                GRACE.saturating_sub(idle)
            } else {
                GRACE
            };
            st = self
                .reading
                .back
                .wait_timeout(st, wait)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Gives the reading half back; with `handed`, or with callers waiting, the reader
    /// thread is woken to go on at once. A message partly read stays for the next caller
    /// (calls in flight: the same thread, about to wait for the next answer) or the reader
    /// thread after [`GRACE`].
    fn give_back(&self, reader: Reader, handed: Option<Handed>) {
        let mut st = lock(&self.reading.state);
        st.reader = Some(reader);
        st.freed = Instant::now();
        if handed.is_some() || !st.followers.is_empty() {
            st.urgent = true;
            st.handed = handed;
            self.reading.back.notify_one();
        }
    }

    /// Reads one message; on failure, why the link ended.
    fn read_one(&self, reader: &mut BufReader<Watched>) -> std::result::Result<Message, String> {
        match Message::read_from(reader, self.reading.max) {
            Ok(Some(m)) => Ok(m),
            // Our own shutdown (a failed write, a close) also ends here: say why.
            Ok(None) => match self.peer.out().closed_reason() {
                Some(why) => Err(format!("{}: {why}", self.url)),
                None => Err(format!("{}: connection closed by the peer", self.url)),
            },
            Err(e) => Err(format!("{}: {e}", self.url)),
        }
    }

    /// Waits for the answer to call `id` (slot `rx`) until `deadline`: read by this caller
    /// when the reading half is free, else by whoever holds it.
    pub(super) fn wait_answer(
        &self,
        id: u32,
        rx: &Receiver<Result<Message>>,
        deadline: Option<Instant>,
    ) -> std::result::Result<Result<Message>, RecvTimeoutError> {
        // Already routed (by a leader reading for another call, or the reader thread).
        if let Ok(answer) = rx.try_recv() {
            return Ok(answer);
        }
        if let Some(answer) = self.lead(id, rx, deadline) {
            return Ok(answer);
        }
        // A follower (counted by `lead`).
        let got = match deadline {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => rx.recv_deadline(d),
        };
        self.unfollow(id);
        got
    }

    /// Reads the socket for the answer to `id` if the reading half is free; `None`: it is
    /// not (or no longer), and this caller is counted among the followers.
    fn lead(
        &self,
        id: u32,
        rx: &Receiver<Result<Message>>,
        deadline: Option<Instant>,
    ) -> Option<Result<Message>> {
        let tick = self.reading.tick;
        let near = |now: Instant| tick.is_none_or(|t| deadline.is_some_and(|d| now + 2 * t >= d));
        let mut reader = {
            let mut st = lock(&self.reading.state);
            let free = !st.urgent && st.handed.is_none() && !near(Instant::now());
            match st.reader.take_if(|_| free) {
                Some(reader) => reader,
                None => {
                    st.followers.push(id);
                    self.reading
                        .following
                        .store(st.followers.len(), Ordering::Release);
                    if st.reader.is_some() {
                        st.urgent = true;
                        self.reading.back.notify_one();
                    }
                    return None;
                }
            }
        };
        loop {
            // Routed here before this caller took the reading half.
            if let Ok(answer) = rx.try_recv() {
                self.give_back(reader, None);
                return Some(answer);
            }
            if near(Instant::now()) || !self.bytes_within_a_tick(&mut reader) {
                self.follow(id, reader, None);
                return None;
            }
            let m = match self.read_one(&mut reader) {
                Ok(m) => m,
                Err(why) => {
                    self.follow(id, reader, Some(Err(why)));
                    return None;
                }
            };
            if !is_answer(&m) {
                self.follow(id, reader, Some(Ok(m)));
                return None;
            }
            if m.header.id == id {
                lock(&self.pending).remove(&id);
                let handed = self.route_whole_answers(&mut reader);
                self.give_back(reader, handed);
                return Some(Ok(m));
            }
            self.deliver(m);
        }
    }

    /// Waits up to one keep-alive tick for bytes to read; false on silence (the watch then
    /// belongs to the reader thread). An end or error is left for the read to report.
    fn bytes_within_a_tick(&self, reader: &mut BufReader<Watched>) -> bool {
        if !reader.buffer().is_empty() {
            return true;
        }
        reader.get_mut().set_impatient(true);
        let filled = reader.fill_buf().map(|_| ());
        reader.get_mut().set_impatient(false);
        !matches!(filled, Err(e) if is_timeout(&e))
    }

    /// Routes the answers already whole in the buffer, up to the first message that is the
    /// reader thread's (returned).
    fn route_whole_answers(&self, reader: &mut BufReader<Watched>) -> Option<Handed> {
        while whole_message(reader.buffer()) {
            let m = match self.read_one(reader) {
                Ok(m) => m,
                Err(why) => return Some(Err(why)),
            };
            if !is_answer(&m) {
                return Some(Ok(m));
            }
            self.deliver(m);
        }
        None
    }

    /// Sends an answer to its caller's slot; its caller, if it followed, no longer waits for
    /// a reader.
    fn deliver(&self, m: Message) {
        let id = m.header.id;
        let slot = lock(&self.pending).remove(&id);
        self.unfollow(id);
        if let Some(slot) = slot {
            let _ = slot.send(Ok(m));
        }
    }

    /// Call `id`'s caller no longer waits for a reader. A follower count read as zero while
    /// a follower registers leaves its id until the follower removes it itself, which only
    /// makes the reader thread read a little early.
    fn unfollow(&self, id: u32) {
        if self.reading.following.load(Ordering::Acquire) > 0 {
            let mut st = lock(&self.reading.state);
            st.followers.retain(|f| *f != id);
            self.reading
                .following
                .store(st.followers.len(), Ordering::Release);
        }
    }

    /// A leader becomes a follower: the reading half goes back to the reader thread.
    fn follow(&self, id: u32, reader: Reader, handed: Option<Handed>) {
        let mut st = lock(&self.reading.state);
        st.reader = Some(reader);
        st.freed = Instant::now();
        st.urgent = true;
        st.handed = handed;
        st.followers.push(id);
        self.reading
            .following
            .store(st.followers.len(), Ordering::Release);
        self.reading.back.notify_one();
    }

    /// Routes one message received; `Err`: why the link ends.
    fn route(&self, m: Message) -> std::result::Result<(), String> {
        match m.header.kind {
            MessageType::Reply | MessageType::Error | MessageType::Canceled => self.deliver(m),
            MessageType::Event => {
                let handlers: Vec<EventHandler> = self
                    .handlers
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&m.header.address)
                    .map(|v| v.iter().map(|(_, h)| Arc::clone(h)).collect())
                    .unwrap_or_default();
                for h in handlers {
                    h(&m, self);
                }
            }
            // The peer calls back an object this client passed it.
            MessageType::Call | MessageType::Post => {
                if let Err(e) = dispatch::call(&self.served, &self.peer, m) {
                    return Err(format!("{}: {e}", self.url));
                }
            }
            MessageType::Cancel => {
                if let Err(e) = dispatch::cancel(&self.peer, &m) {
                    return Err(format!("{}: {e}", self.url));
                }
            }
            MessageType::Capability => {}
        }
        Ok(())
    }

    /// Decodes a payload received on this link; object references go through its
    /// MetaObjectCache.
    pub(super) fn decode(&self, payload: &[u8], sig: &Signature) -> Result<Decoded> {
        let mut decoded = value::decode(payload, sig, self.peer.format())?;
        let mut cache = lock(&self.peer.cache);
        for r in &mut decoded.objects {
            cache.receive(r)?;
        }
        Ok(decoded)
    }

    /// Marks the link dead and fails every waiting call.
    fn die(&self, why: &str) {
        *lock(&self.dead) = Some(why.to_string());
        self.peer.out().close(why);
        self.served.clear(self.peer.id());
        let pending: Vec<AnswerSlot> = lock(&self.pending).drain().map(|(_, s)| s).collect();
        for slot in pending {
            let _ = slot.send(Err(Error::Disconnected(why.to_string())));
        }
    }

    pub(super) fn check_alive(&self) -> Result<()> {
        match &*lock(&self.dead) {
            Some(why) => Err(Error::Disconnected(why.clone())),
            None => Ok(()),
        }
    }

    /// Sends a call; its answer arrives on the returned receiver.
    pub(super) fn call(
        self: &Arc<Self>,
        address: Address,
        payload: &[u8],
        flags: Flags,
    ) -> Result<(u32, Receiver<Result<Message>>)> {
        self.check_alive()?;
        let id = next_id();
        let (tx, rx) = bounded(1);
        lock(&self.pending).insert(id, tx);
        let header = crate::codec::header::Header {
            id,
            size: u32::try_from(payload.len())
                .map_err(|_| Error::Type("payload exceeds 4 GiB".into()))?,
            kind: MessageType::Call,
            flags,
            address,
        };
        if let Err(e) = self.peer.out().send_parts(&header.encode(), payload) {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        // The reader may have died between the check and the insert: do not wait forever.
        if let Err(e) = self.check_alive() {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        Ok((id, rx))
    }

    pub(super) fn post(&self, address: Address, payload: Vec<u8>) -> Result<()> {
        self.check_alive()?;
        self.peer.send(&Message::new(
            MessageType::Post,
            next_id(),
            address,
            Flags::default(),
            payload,
        ))
    }

    pub(super) fn cancel(&self, id: u32, address: Address) {
        if self.peer.shared().remote_cancel {
            let _ = self.peer.send(&Message::new(
                MessageType::Cancel,
                next_id(),
                Address::new(address.service, address.object, 0),
                Flags::default(),
                id.to_le_bytes().to_vec(),
            ));
        }
    }

    pub(super) fn add_handler(&self, address: Address, key: u64, handler: EventHandler) {
        self.handlers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(address)
            .or_default()
            .push((key, handler));
    }

    pub(super) fn remove_handler(&self, address: Address, key: u64) {
        let mut handlers = self
            .handlers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = handlers.get_mut(&address) {
            v.retain(|(k, _)| *k != key);
            if v.is_empty() {
                handlers.remove(&address);
            }
        }
    }
}

/// The first of `addrs` that accepts a TCP connection within `timeout` (a socket that met
/// itself is no server: refused).
fn open_tcp(url: &str, addrs: Vec<std::net::SocketAddr>, timeout: Duration) -> Result<TcpStream> {
    let mut last = Error::Disconnected(format!("{url}: no address"));
    let mut stream = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            // TCP's simultaneous open: a local port nothing listens on, picked as the
            // socket's own port, connects the socket to itself. That is no server, and
            // holding it would keep the port from the server that comes back.
            Ok(s) if met_itself(&s) => {
                last = Error::Disconnected(format!(
                    "{url}: connection refused (the socket met itself: nothing listens there)"
                ));
            }
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Error::Disconnected(format!("{url}: {e}")),
        }
    }
    stream.ok_or(last)
}

/// The opening exchange on a new socket: the capabilities both ends advertise and the
/// peer's generation. A client speaking 2.1 sends a Capability message and waits for the
/// peer's; a newer one authenticates, and takes a refusal by a 2.1 peer (which announced
/// its capabilities in a Capability message when the socket opened) as that generation,
/// then tells it its own capabilities the 2.1 way.
fn handshake(
    reader: &mut BufReader<Watched>,
    out: &Outbox,
    url: &str,
    options: &SessionOptions,
    tls: bool,
) -> Result<(CapabilityMap, Generation)> {
    let hint = if tls {
        ""
    } else {
        " (if the server speaks TLS, use tcps://)"
    };
    let mut read = || match Message::read_from(reader, options.max_payload) {
        Ok(Some(m)) => Ok(m),
        Ok(None) => Err(Error::Authentication(format!(
            "{url}: connection closed while authenticating{hint}"
        ))),
        Err(Error::Protocol(why)) => Err(Error::Protocol(format!(
            "{url}: while authenticating: {why}{hint}"
        ))),
        Err(e) => Err(e),
    };
    let advertise = || {
        out.send(&Message::new(
            MessageType::Capability,
            next_id(),
            Address::default(),
            Flags::default(),
            capability::encode(options.generation, &[]),
        ))
    };
    if !options.generation.authenticates() {
        advertise()?;
        loop {
            let m = read()?;
            if m.header.kind == MessageType::Capability {
                let remote = CapabilityMap::decode(&m.payload)?;
                let peer = Generation::of_peer(&remote, false).min(options.generation);
                return Ok((remote, peer));
            }
        }
    }
    let mut credentials = Vec::new();
    if let Some(user) = &options.user {
        credentials.push(("auth_user", Value::String(user.clone())));
    }
    if let Some(token) = &options.token {
        credentials.push(("auth_token", Value::String(token.clone())));
    }
    let id = next_id();
    out.send(&Message::new(
        MessageType::Call,
        id,
        Address::new(0, 0, capability::AUTHENTICATE),
        Flags::default(),
        capability::encode(options.generation, &credentials),
    ))?;
    // What a 2.1 peer announces as the socket opens, before it refuses the call.
    let mut announced = CapabilityMap::default();
    let answer = loop {
        let m = read()?;
        if m.header.kind == MessageType::Capability {
            announced.0.extend(CapabilityMap::decode(&m.payload)?.0);
        } else if m.header.id == id {
            break m;
        }
    };
    let remote = match answer.header.kind {
        MessageType::Reply => CapabilityMap::decode(&answer.payload)?,
        MessageType::Error if error_text(&answer.payload).starts_with(LEGACY_REFUSAL) => {
            // NAOqi 2.1: no credentials can be checked (the caller says so to the user).
            advertise()?;
            return Ok((announced, Generation::V2_1));
        }
        MessageType::Error => return Err(Error::Authentication(error_text(&answer.payload))),
        other => {
            return Err(Error::Protocol(format!(
                "unexpected {other:?} answering authenticate"
            )));
        }
    };
    match remote.get(AUTH_STATE) {
        None | Some(Value::Int(AUTH_DONE)) => {}
        Some(Value::Int(AUTH_CONTINUE)) => {
            return Err(Error::Authentication(format!(
                "{url}: the server asks for another authentication step, which is not supported"
            )));
        }
        Some(state) => {
            return Err(Error::Authentication(format!(
                "{url}: refused (state {state})"
            )));
        }
    }
    let peer = Generation::of_peer(&remote, false).min(options.generation);
    Ok((remote, peer))
}

/// How a NAOqi 2.1 peer answers the authentication call: it has no object for service 0
/// (libqi 2.1, `src/messaging/server.cpp`: `can't find service, address: {0.0.8, id:1}`),
/// and the link stays open.
pub(crate) const LEGACY_REFUSAL: &str = "can't find service";

/// Whether `m` answers a call.
fn is_answer(m: &Message) -> bool {
    matches!(
        m.header.kind,
        MessageType::Reply | MessageType::Error | MessageType::Canceled
    )
}

/// Whether `bytes` start with a whole message (header and payload).
fn whole_message(bytes: &[u8]) -> bool {
    match bytes.get(8..12) {
        Some(size) if bytes.len() >= HEADER_SIZE => {
            let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
            bytes.len() - HEADER_SIZE >= size
        }
        _ => false,
    }
}

/// Whether `stream` is connected to itself (TCP's simultaneous open on a free local port).
fn met_itself(stream: &TcpStream) -> bool {
    matches!((stream.local_addr(), stream.peer_addr()), (Ok(a), Ok(b)) if a == b)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_connected_to_itself_is_no_server() {
        // A port free a moment ago, bound and connected to by one socket: Linux joins the
        // socket to itself, as a reconnecting client's ephemeral port may.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket.bind(&port.into()).unwrap();
        socket.connect(&port.into()).unwrap();
        let stream: TcpStream = socket.into();
        assert!(met_itself(&stream));
        // A real server's connection is not.
        let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(server.local_addr().unwrap()).unwrap();
        assert!(!met_itself(&client));
    }
}
