//! The client session (qi-protocol.md §8–§10): connect, authenticate, the ServiceDirectory,
//! remote objects (calls by name with overload resolution, post, cancel, signals,
//! properties), timeouts, and reconnection with backoff.
//!
//! **Threads, not an async runtime.** The engine is thread-based and calls
//! [`choreo_engine::Robot::call`] synchronously from its worker threads; a session therefore
//! serves blocking callers. Each socket has one reader thread that routes answers to the
//! waiting callers (a one-slot channel per call), events to their handlers, and the peer's
//! calls on objects this client passed it ([`Arg::Object`]) to the dispatcher servers use
//! (methods that may block run on the link's workers); callers write
//! their own frames (see `socket`), so a call costs no hand-off to a writer thread and many
//! calls in flight share system calls. A robot session holds one or two sockets, so a thread
//! per socket is cheap, and no runtime has to be started inside a library that callers
//! use from plain threads.
//!
//! **URLs.** `tcp://host:port` (port 9559 by default; a bare `host[:port]` means tcp too)
//! and `tcps://host:port` (TLS, port 9503 by default: NAOqi 2.9's Pepper). How a tcps
//! client checks the server's certificate is [`SessionOptions::tls`] (by default it accepts
//! any, like libqi: see [`crate::tls`]). A tcps session opens its other sockets (to services
//! living in other processes) only to `tcps://` endpoints, so credentials never travel in
//! clear; a tcp session prefers `tcp://` endpoints and falls back to `tcps://` ones.
//!
//! **Dead links.** A robot that vanishes without closing its sockets (Wi-Fi lost, power
//! cut) leaves them half-open: TCP alone reports nothing for many minutes. Two bounds keep
//! callers from waiting forever:
//!
//! - **Keep-alive** ([`SessionOptions::keepalive`], on by default): every socket's reader
//!   wakes at least once per tick (an eighth of the shorter of the two periods below).
//!   When nothing was received for [`Keepalive::interval`] (4 s), it sends a probe call
//!   the peer always answers: `machineId()` on the ServiceDirectory for the main socket,
//!   the reserved `isStatsEnabled()` (action 80) of the service a socket was opened for
//!   otherwise (libqi answers both with a few bytes and logs nothing; an Error answer would
//!   do as well). When not one byte arrives within [`Keepalive::timeout`] (8 s) of the
//!   probe, the link is declared dead: the reader stops and the link closes exactly as if
//!   the peer had closed it (the socket is shut down, every waiting call fails with
//!   [`Error::Disconnected`], [`Session::is_connected`] turns false, reconnection starts).
//!   A dead link is thus noticed within [`Keepalive::detection_bound`] (13 s by default)
//!   of the last byte received, whether calls are in flight or not, while a call may run
//!   for as long as it needs as long as the peer answers the probes. Sockets get a send
//!   timeout of [`Keepalive::timeout`] too, so a write that makes no progress for that
//!   long (the peer's window stays shut) fails and closes the link instead of blocking.
//!   Why an application probe rather than TCP keep-alive: TCP keep-alive stays silent
//!   while sent data is unacknowledged (a call just sent to a vanished robot), and needs
//!   per-platform socket options; the probe works with every libqi peer (no heartbeat
//!   message exists in the protocol) and also notices a peer whose process hangs. Its cost
//!   is one 28-byte call and a short answer per interval of silence. A single frame that
//!   takes longer than the timeout to send (megabytes over a slow link) delays the probe
//!   behind it and can trip the watch: raise the timeout for such uses.
//! - **Call timeout** ([`SessionOptions::call_timeout`], 1 hour by default): the last
//!   resort for a peer that stays alive but never answers one call. It is long on purpose:
//!   robot methods block for as long as their action lasts (`ALTextToSpeech.say` for the
//!   speech, `ALMotion.moveTo` for the walk, `ALAudioPlayer.playFile` for a whole track,
//!   `ALBehaviorManager.runBehavior` for a whole behavior), and a call that times out is
//!   canceled on the robot. A call that times out fails with [`Error::Timeout`], asks the
//!   peer to cancel it and forgets its answer slot (a late answer is dropped).

use std::collections::HashMap;
use std::io::BufReader;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::Duration;

use choreo_engine::Value;
use crossbeam_channel::{Receiver, Sender, bounded};

use crate::arg::{self, Arg, ArgRef, Served};
use crate::capability::{self, AUTH_CONTINUE, AUTH_DONE, AUTH_STATE, CapabilityMap, Shared};
use crate::directory::{self, SERVICE_INFO_SIGNATURE, SERVICE_INFO_SIGNATURE_6, ServiceInfo};
use crate::dispatch;
use crate::error::{Error, Result};
use crate::generation::Generation;
use crate::header::{Address, DEFAULT_MAX_PAYLOAD, Flags, MessageType};
use crate::message::error_text;
use crate::message::{Message, next_id};
use crate::metaobject::{self, MetaObject, ObjectRef};
use crate::peer::Peer;
use crate::signature::Signature;
use crate::socket::{Incoming, Outbox, Watch, Watched};
use crate::tls::{self, Fingerprint, TlsVerify};
use crate::value::{self, Decoded};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The keep-alive of a session's sockets (see the module doc): probe a quiet link, and
/// declare it dead when a probe gets no byte back in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keepalive {
    /// Silence (nothing received) after which a probe is sent; 4 s by default.
    pub interval: Duration,
    /// How long after a probe, with nothing at all received, the link is declared dead
    /// (and how long a write may make no progress); 8 s by default, room for a Wi-Fi
    /// stall and TCP's retransmission backoff.
    pub timeout: Duration,
}

impl Default for Keepalive {
    fn default() -> Self {
        Keepalive {
            interval: Duration::from_secs(4),
            timeout: Duration::from_secs(8),
        }
    }
}

impl Keepalive {
    /// How often a quiet reader wakes: an eighth of the shorter period (at least 1 ms).
    pub fn tick(&self) -> Duration {
        (self.interval.min(self.timeout) / 8).max(Duration::from_millis(1))
    }

    /// The longest a dead link goes unnoticed after the last byte received:
    /// `interval + timeout + 2 × tick` (13 s by default).
    pub fn detection_bound(&self) -> Duration {
        self.interval + self.timeout + 2 * self.tick()
    }
}

/// Answer time allowed to the calls that set up objects (MetaObject fetches, directory
/// lookups): they answer at once, unless the link is in trouble.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The reserved `isStatsEnabled()` member every bound object answers (qi-protocol.md §4).
const IS_STATS_ENABLED: u32 = 80;

/// How a session connects and behaves.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// `auth_user` sent when authenticating (NAOqi 2.9: normally `nao`).
    pub user: Option<String>,
    /// `auth_token` sent when authenticating (NAOqi 2.9: the robot's password).
    pub token: Option<String>,
    /// Limit for connecting and authenticating.
    pub connect_timeout: Duration,
    /// Limit for every call's answer; `None` waits as long as the method runs. 1 hour by
    /// default: a last resort, as robot methods block for as long as their action lasts
    /// (a `say` until the speech ends, `runBehavior` until the behavior does); dead links
    /// are the keep-alive's business. Object set-up calls wait at most 30 s.
    pub call_timeout: Option<Duration>,
    /// Detection of dead (half-open) links; `None` disables it (a vanished peer is then
    /// noticed only when TCP gives up, or by the call timeout).
    pub keepalive: Option<Keepalive>,
    /// Largest payload accepted from the peer.
    pub max_payload: u32,
    /// Reconnect in the background when the link drops (callers get
    /// [`Error::Disconnected`] meanwhile).
    pub reconnect: bool,
    /// First delay between reconnection attempts; doubles up to `max_backoff`.
    pub min_backoff: Duration,
    /// Longest delay between reconnection attempts.
    pub max_backoff: Duration,
    /// How `tcps://` links check the server's certificate (default: accept any, as libqi
    /// does; see [`crate::tls`]).
    pub tls: TlsVerify,
    /// The protocol generation this client speaks (2.9, libqi 4.x, by default). Whatever
    /// it is, the client also understands older peers: a 2.1 peer's refused
    /// authentication, 6-field ServiceInfos. Speaking 2.1 means no `authenticate` call:
    /// the capabilities go in a Capability message, as NAOqi 2.1's clients sent them.
    pub generation: Generation,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            user: None,
            token: None,
            connect_timeout: Duration::from_secs(5),
            call_timeout: Some(Duration::from_secs(3600)),
            keepalive: Some(Keepalive::default()),
            max_payload: DEFAULT_MAX_PAYLOAD,
            reconnect: true,
            min_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            tls: TlsVerify::AcceptAny,
            generation: Generation::V2_9,
        }
    }
}

/// Receives one event: the raw message and the object format of its link.
type EventHandler = Arc<dyn Fn(&Message, &Link) + Send + Sync>;

type AnswerSlot = Sender<Result<Message>>;

/// One authenticated socket and its reader thread.
pub(crate) struct Link {
    url: String,
    /// The server certificate's fingerprint (tcps).
    certificate: Option<Fingerprint>,
    /// The peer: the socket, what both ends share, the protocol generation spoken on the
    /// link (the peer's, or ours when older; 2.1: no authentication step, see
    /// [`LEGACY_REFUSAL`]), the MetaObjectCache.
    peer: Arc<Peer>,
    /// The objects this client serves the peer on this link.
    served: Arc<Served>,
    pending: Mutex<HashMap<u32, AnswerSlot>>,
    handlers: RwLock<HashMap<Address, Vec<(u64, EventHandler)>>>,
    dead: Mutex<Option<String>>,
}

/// A parsed qi URL: `tcp://host:port` or `tcps://host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QiUrl {
    /// `tcps`: TLS.
    pub tls: bool,
    /// `host:port` (an IPv6 host in brackets).
    pub address: String,
}

impl QiUrl {
    /// The host without the port.
    pub fn host(&self) -> &str {
        self.address
            .rsplit_once(':')
            .map_or(self.address.as_str(), |(h, _)| h)
    }

    /// The URL written back (`tcp://host:port` or `tcps://host:port`).
    pub fn url(&self) -> String {
        format!(
            "{}://{}",
            if self.tls { "tcps" } else { "tcp" },
            self.address
        )
    }
}

/// Default port of `tcp://` URLs (NAOqi).
pub const DEFAULT_TCP_PORT: u16 = 9559;
/// Default port of `tcps://` URLs (NAOqi 2.9's Pepper).
pub const DEFAULT_TCPS_PORT: u16 = 9503;

/// Parses `tcp://host[:port]`, `tcps://host[:port]`, or a bare `host[:port]` (tcp); the port
/// defaults to 9559 for tcp and 9503 for tcps.
pub fn parse_url(url: &str) -> Result<QiUrl> {
    let (tls, rest) = if let Some(rest) = url.strip_prefix("tcp://") {
        (false, rest)
    } else if let Some(rest) = url.strip_prefix("tcps://") {
        (true, rest)
    } else if url.contains("://") {
        return Err(Error::Disconnected(format!(
            "{url}: unknown URL scheme (tcp:// or tcps://)"
        )));
    } else {
        (false, url)
    };
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        return Err(Error::Disconnected(format!("{url}: no host")));
    }
    let has_port = rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        && !rest.ends_with(']');
    let address = if has_port {
        rest.to_string()
    } else {
        let port = if tls {
            DEFAULT_TCPS_PORT
        } else {
            DEFAULT_TCP_PORT
        };
        format!("{rest}:{port}")
    };
    Ok(QiUrl { tls, address })
}

impl Link {
    /// Connects to `url`, authenticates, and starts the reader; `on_close` runs once when
    /// the link dies. `probe` is the keep-alive's call (see the module doc).
    fn connect(
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
        let mut last = Error::Disconnected(format!("{url}: no address"));
        let mut stream = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, options.connect_timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Error::Disconnected(format!("{url}: {e}")),
            }
        }
        let stream = stream.ok_or(last)?;
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
        });
        let me = Arc::clone(&link);
        let max = options.max_payload;
        std::thread::Builder::new()
            .name("qi-client".into())
            .spawn(move || {
                let why = me.read_loop(&mut reader, max);
                me.die(&why);
                on_close(why);
            })?;
        Ok(link)
    }

    fn read_loop(&self, reader: &mut BufReader<Watched>, max: u32) -> String {
        loop {
            let m = match Message::read_from(reader, max) {
                Ok(Some(m)) => m,
                // Our own shutdown (a failed write, a close) also ends here: say why.
                Ok(None) => match self.peer.out().closed_reason() {
                    Some(why) => return format!("{}: {why}", self.url),
                    None => return format!("{}: connection closed by the peer", self.url),
                },
                Err(e) => return format!("{}: {e}", self.url),
            };
            match m.header.kind {
                MessageType::Reply | MessageType::Error | MessageType::Canceled => {
                    let slot = lock(&self.pending).remove(&m.header.id);
                    if let Some(slot) = slot {
                        let _ = slot.send(Ok(m));
                    }
                }
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
                        return format!("{}: {e}", self.url);
                    }
                }
                MessageType::Cancel => {
                    if let Err(e) = dispatch::cancel(&self.peer, &m) {
                        return format!("{}: {e}", self.url);
                    }
                }
                MessageType::Capability => {}
            }
        }
    }

    /// Decodes a payload received on this link; object references go through its
    /// MetaObjectCache.
    fn decode(&self, payload: &[u8], sig: &Signature) -> Result<Decoded> {
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

    fn check_alive(&self) -> Result<()> {
        match &*lock(&self.dead) {
            Some(why) => Err(Error::Disconnected(why.clone())),
            None => Ok(()),
        }
    }

    /// Sends a call; its answer arrives on the returned receiver.
    fn call(
        self: &Arc<Self>,
        address: Address,
        payload: &[u8],
        flags: Flags,
    ) -> Result<(u32, Receiver<Result<Message>>)> {
        self.check_alive()?;
        let id = next_id();
        let (tx, rx) = bounded(1);
        lock(&self.pending).insert(id, tx);
        let header = crate::header::Header {
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

    fn post(&self, address: Address, payload: Vec<u8>) -> Result<()> {
        self.check_alive()?;
        self.peer.send(&Message::new(
            MessageType::Post,
            next_id(),
            address,
            Flags::default(),
            payload,
        ))
    }

    fn cancel(&self, id: u32, address: Address) {
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

    fn add_handler(&self, address: Address, key: u64, handler: EventHandler) {
        self.handlers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(address)
            .or_default()
            .push((key, handler));
    }

    fn remove_handler(&self, address: Address, key: u64) {
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

/// A call on its way: wait for its answer, or cancel it.
pub struct PendingCall {
    id: u32,
    address: Address,
    rx: Receiver<Result<Message>>,
    link: Arc<Link>,
    returns: Signature,
    timeout: Option<Duration>,
}

impl PendingCall {
    /// The call's message id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// A handle that cancels this call from any thread.
    pub fn canceler(&self) -> Canceler {
        Canceler {
            id: self.id,
            address: self.address,
            link: Arc::clone(&self.link),
        }
    }

    /// Asks the callee to cancel the call; the answer then is [`Error::Canceled`] (or the
    /// result, if it was already on its way).
    pub fn cancel(&self) {
        self.link.cancel(self.id, self.address);
    }

    /// Waits for the answer (up to the session's call timeout).
    pub fn wait(self) -> Result<Decoded> {
        let timeout = self.timeout;
        self.wait_for(timeout)
    }

    /// Waits for the answer up to `timeout` (`None`: without limit); on timeout the call is
    /// canceled and its answer slot forgotten.
    pub fn wait_for(self, timeout: Option<Duration>) -> Result<Decoded> {
        let answer = self.answer(timeout)?;
        decode_answer(&answer, &self.returns, &self.link)
    }

    /// The raw answer within `timeout`; on timeout, asks the peer to cancel.
    fn answer(&self, timeout: Option<Duration>) -> Result<Message> {
        match timeout {
            None => self
                .rx
                .recv()
                .map_err(|_| Error::Disconnected(self.link.url.clone()))?,
            Some(t) => match self.rx.recv_timeout(t) {
                Ok(a) => a,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    lock(&self.link.pending).remove(&self.id);
                    self.cancel();
                    Err(Error::Timeout(t))
                }
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    Err(Error::Disconnected(self.link.url.clone()))
                }
            },
        }
    }
}

impl Drop for PendingCall {
    /// A call nobody waits for any more leaves no answer slot behind.
    fn drop(&mut self) {
        lock(&self.link.pending).remove(&self.id);
    }
}

/// Cancels one call (see [`PendingCall::canceler`]).
#[derive(Clone)]
pub struct Canceler {
    id: u32,
    address: Address,
    link: Arc<Link>,
}

impl Canceler {
    /// Asks the callee to cancel the call.
    pub fn cancel(&self) {
        self.link.cancel(self.id, self.address);
    }
}

fn decode_answer(m: &Message, returns: &Signature, link: &Link) -> Result<Decoded> {
    match m.header.kind {
        MessageType::Reply => {
            if m.header.flags.contains(Flags::DYNAMIC_PAYLOAD) {
                link.decode(&m.payload, &Signature::Dynamic)
            } else if m.payload.is_empty() && *returns == Signature::Void {
                Ok(Decoded::default())
            } else {
                link.decode(&m.payload, returns)
            }
        }
        MessageType::Error => Err(Error::Remote(error_text(&m.payload))),
        MessageType::Canceled => Err(Error::Canceled),
        other => Err(Error::Protocol(format!(
            "unexpected {other:?} as an answer"
        ))),
    }
}

/// A method's uid and parsed signatures.
#[derive(Debug, Clone)]
struct MethodSig {
    uid: u32,
    params: Signature,
    returns: Signature,
}

/// Identifies one signal subscription, for [`RemoteObject::disconnect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignalLink {
    /// The signal's uid.
    pub uid: u32,
    /// The link id sent in `registerEvent` (`(uid << 32) | counter`).
    pub link: u64,
}

static LINK_COUNTER: AtomicU32 = AtomicU32::new(1);

/// An object on the peer: a service's main object, or one returned by reference.
#[derive(Clone)]
pub struct RemoteObject {
    inner: Arc<ObjectInner>,
}

struct ObjectInner {
    link: Arc<Link>,
    name: String,
    service: u32,
    object: u32,
    meta: MetaObject,
    methods: HashMap<String, Vec<MethodSig>>,
    timeout: Option<Duration>,
    /// Returned by reference: terminated when the last handle is dropped.
    owned: bool,
}

impl Drop for ObjectInner {
    fn drop(&mut self) {
        if self.owned {
            let mut payload = Vec::new();
            payload.extend_from_slice(&self.object.to_le_bytes());
            let _ = self.link.post(
                Address::new(self.service, self.object, metaobject::TERMINATE),
                payload,
            );
        }
    }
}

impl RemoteObject {
    fn new(
        link: Arc<Link>,
        name: String,
        service: u32,
        object: u32,
        meta: MetaObject,
        timeout: Option<Duration>,
        owned: bool,
    ) -> RemoteObject {
        let mut methods: HashMap<String, Vec<MethodSig>> = HashMap::new();
        for m in meta.methods.values() {
            let (Ok(params), Ok(returns)) = (
                Signature::parse(&m.parameters_signature),
                Signature::parse(&m.return_signature),
            ) else {
                continue;
            };
            methods.entry(m.name.clone()).or_default().push(MethodSig {
                uid: m.uid,
                params,
                returns,
            });
        }
        RemoteObject {
            inner: Arc::new(ObjectInner {
                link,
                name,
                service,
                object,
                meta,
                methods,
                timeout,
                owned,
            }),
        }
    }

    /// Fetches the MetaObject of `(service, object)` and builds the handle.
    fn fetch(
        link: &Arc<Link>,
        name: &str,
        service: u32,
        object: u32,
        timeout: Option<Duration>,
    ) -> Result<RemoteObject> {
        let (id, rx) = link.call(
            Address::new(service, object, metaobject::META_OBJECT),
            &0u32.to_le_bytes(),
            Flags::default(),
        )?;
        let pending = PendingCall {
            id,
            address: Address::new(service, object, metaobject::META_OBJECT),
            rx,
            link: Arc::clone(link),
            returns: Signature::Void,
            timeout,
        };
        let answer = pending.answer(timeout)?;
        let meta = match answer.header.kind {
            MessageType::Reply => MetaObject::decode(&answer.payload)?,
            MessageType::Error => return Err(Error::Remote(error_text(&answer.payload))),
            _ => return Err(Error::Canceled),
        };
        Ok(RemoteObject::new(
            Arc::clone(link),
            name.to_string(),
            service,
            object,
            meta,
            timeout,
            false,
        ))
    }

    /// A handle on an object received by reference (on this object's socket). The object
    /// is terminated on the peer when the last handle is dropped.
    pub fn object(&self, reference: ObjectRef) -> RemoteObject {
        RemoteObject::new(
            Arc::clone(&self.inner.link),
            format!("{}/object {}", self.inner.name, reference.object),
            reference.service,
            reference.object,
            reference.meta,
            self.inner.timeout,
            reference.object > 1,
        )
    }

    /// The object's MetaObject.
    pub fn meta_object(&self) -> &MetaObject {
        &self.inner.meta
    }

    /// Service id and object id.
    pub fn address(&self) -> (u32, u32) {
        (self.inner.service, self.inner.object)
    }

    /// Whether the socket under this handle still works.
    pub fn is_connected(&self) -> bool {
        self.inner.link.check_alive().is_ok()
    }

    /// Picks the overload of `method` that fits `args` best and encodes them (objects
    /// among them are bound on this object's socket).
    fn resolve(&self, method: &str, args: &[ArgRef<'_>]) -> Result<(&MethodSig, Vec<u8>)> {
        let candidates =
            self.inner.methods.get(method).ok_or_else(|| {
                Error::NotFound(format!("{}: no method {method}", self.inner.name))
            })?;
        let best = candidates
            .iter()
            .filter_map(|m| arg::fit(args, &m.params).map(|c| (c, m)))
            .min_by_key(|(c, m)| (*c, m.uid))
            .map(|(_, m)| m)
            .ok_or_else(|| {
                let sigs: Vec<String> = candidates.iter().map(|m| m.params.to_string()).collect();
                Error::Type(format!(
                    "{}.{method}: no overload takes {} (candidates: {})",
                    self.inner.name,
                    arg::signature(args),
                    sigs.join(", ")
                ))
            })?;
        let mut payload = Vec::new();
        let link = &self.inner.link;
        arg::encode(
            args,
            &best.params,
            self.inner.service,
            &link.served,
            &link.peer,
            &mut payload,
        )?;
        Ok((best, payload))
    }

    /// Sends the call of overload `m` with `payload`.
    fn send_call(&self, m: &MethodSig, payload: &[u8]) -> Result<PendingCall> {
        let address = Address::new(self.inner.service, self.inner.object, m.uid);
        let (id, rx) = self.inner.link.call(address, payload, Flags::default())?;
        Ok(PendingCall {
            id,
            address,
            rx,
            link: Arc::clone(&self.inner.link),
            returns: m.returns.clone(),
            timeout: self.inner.timeout,
        })
    }

    /// Starts `method(args)`, choosing the overload by the arguments' types.
    pub fn call_async(&self, method: &str, args: &[Value]) -> Result<PendingCall> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::Value).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.send_call(m, &payload)
    }

    /// Starts `method(args)` where arguments may be objects this client serves
    /// ([`Arg::Object`]): each is bound on this object's socket, and the peer may call it
    /// back until it terminates it or the link closes. Overloads are chosen as by
    /// [`RemoteObject::call_async`]; an object fits an `o` parameter (or an `m`).
    pub fn call_args_async(&self, method: &str, args: &[Arg]) -> Result<PendingCall> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::from).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.send_call(m, &payload)
    }

    /// Calls `method(args)` with objects among the arguments (see
    /// [`RemoteObject::call_args_async`]) and waits for its value and the objects it
    /// returned.
    pub fn call_args(&self, method: &str, args: &[Arg]) -> Result<Decoded> {
        self.call_args_async(method, args)?.wait()
    }

    /// Calls `method(args)` and waits for its value and the objects it returned.
    pub fn call_decoded(&self, method: &str, args: &[Value]) -> Result<Decoded> {
        self.call_async(method, args)?.wait()
    }

    /// Calls `method(args)` and waits for its value.
    pub fn call(&self, method: &str, args: &[Value]) -> Result<Value> {
        Ok(self.call_decoded(method, args)?.value)
    }

    /// Calls a method returning an object (`o`) and gives a handle on it.
    pub fn call_object(&self, method: &str, args: &[Value]) -> Result<RemoteObject> {
        let decoded = self.call_decoded(method, args)?;
        let reference = decoded.objects.into_iter().next().ok_or_else(|| {
            Error::Type(format!(
                "{}.{method} returned {} and no object",
                self.inner.name, decoded.value
            ))
        })?;
        Ok(self.object(reference))
    }

    /// Posts `method(args)`: it runs on the peer and nothing comes back.
    pub fn post(&self, method: &str, args: &[Value]) -> Result<()> {
        let args: Vec<ArgRef<'_>> = args.iter().map(ArgRef::Value).collect();
        let (m, payload) = self.resolve(method, &args)?;
        self.inner.link.post(
            Address::new(self.inner.service, self.inner.object, m.uid),
            payload,
        )
    }

    /// Emits signal `name` on the peer's object (libqi posts to the signal uid).
    pub fn emit(&self, name: &str, args: &[Value]) -> Result<()> {
        let (uid, sig) = self.signal(name)?;
        let mut payload = Vec::new();
        value::encode(&Value::Tuple(args.to_vec()), &sig, &mut payload)?;
        self.inner.link.post(
            Address::new(self.inner.service, self.inner.object, uid),
            payload,
        )
    }

    fn signal(&self, name: &str) -> Result<(u32, Signature)> {
        let meta = &self.inner.meta;
        let (uid, text) = if let Some(s) = meta.signal(name) {
            (s.uid, s.signature.clone())
        } else if let Some(p) = meta.property(name) {
            (p.uid, format!("({})", p.signature))
        } else {
            return Err(Error::NotFound(format!(
                "{}: no signal {name}",
                self.inner.name
            )));
        };
        Ok((uid, Signature::parse(&text)?))
    }

    /// Subscribes to signal (or property) `name`: `handler` gets each event's arguments, on
    /// the socket's reader thread (keep it short). Events are routed from the moment the
    /// subscription is sent, as the peer may emit before its reply.
    pub fn connect(
        &self,
        name: &str,
        handler: impl Fn(Vec<Value>) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        let (uid, sig) = self.signal(name)?;
        let link_id =
            (u64::from(uid) << 32) | u64::from(LINK_COUNTER.fetch_add(1, Ordering::Relaxed));
        let address = Address::new(self.inner.service, self.inner.object, uid);
        let handler: EventHandler = Arc::new(move |m: &Message, link: &Link| {
            let sig = if m.header.flags.contains(Flags::DYNAMIC_PAYLOAD) {
                &Signature::Dynamic
            } else {
                &sig
            };
            if let Ok(d) = link.decode(&m.payload, sig) {
                handler(match d.value {
                    Value::Tuple(v) => v,
                    other => vec![other],
                });
            }
        });
        self.inner.link.add_handler(address, link_id, handler);
        let args = [
            Value::Int(i64::from(self.inner.service)),
            Value::Int(i64::from(uid)),
            Value::Int(link_id as i64),
        ];
        if let Err(e) = self.reserved(metaobject::REGISTER_EVENT, "(IIL)", &args, "L") {
            self.inner.link.remove_handler(address, link_id);
            return Err(e);
        }
        Ok(SignalLink { uid, link: link_id })
    }

    /// Ends a subscription made with [`RemoteObject::connect`].
    pub fn disconnect(&self, link: SignalLink) -> Result<()> {
        let address = Address::new(self.inner.service, self.inner.object, link.uid);
        self.inner.link.remove_handler(address, link.link);
        let args = [
            Value::Int(i64::from(self.inner.service)),
            Value::Int(i64::from(link.uid)),
            Value::Int(link.link as i64),
        ];
        self.reserved(metaobject::UNREGISTER_EVENT, "(IIL)", &args, "v")
            .map(|_| ())
    }

    /// Reads property `name`.
    pub fn property(&self, name: &str) -> Result<Value> {
        self.reserved(
            metaobject::PROPERTY,
            "(m)",
            &[Value::String(name.to_string())],
            "m",
        )
    }

    /// Sets property `name`; subscribers get a change event.
    pub fn set_property(&self, name: &str, value: Value) -> Result<()> {
        self.reserved(
            metaobject::SET_PROPERTY,
            "(mm)",
            &[Value::String(name.to_string()), value],
            "v",
        )
        .map(|_| ())
    }

    /// The names of the object's properties.
    pub fn properties(&self) -> Result<Vec<String>> {
        match self.reserved(metaobject::PROPERTIES, "()", &[], "[s]")? {
            Value::List(v) => Ok(v
                .into_iter()
                .filter_map(|x| match x {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect()),
            other => Err(Error::Protocol(format!("properties() returned {other}"))),
        }
    }

    /// Calls a reserved member (§4) with a known signature.
    fn reserved(&self, action: u32, params: &str, args: &[Value], returns: &str) -> Result<Value> {
        let params = Signature::parse(params)?;
        let returns = Signature::parse(returns)?;
        let mut payload = Vec::new();
        value::encode(&Value::Tuple(args.to_vec()), &params, &mut payload)?;
        let address = Address::new(self.inner.service, self.inner.object, action);
        let (id, rx) = self.inner.link.call(address, &payload, Flags::default())?;
        let pending = PendingCall {
            id,
            address,
            rx,
            link: Arc::clone(&self.inner.link),
            returns,
            timeout: self.inner.timeout,
        };
        Ok(pending.wait()?.value)
    }
}

/// The state of a session's main link.
enum State {
    Connected(Arc<Link>),
    Reconnecting(String),
    Closed,
}

/// A client session with a qi ServiceDirectory (a robot, or any libqi process). Clones
/// share it; dropping the last clone closes its sockets (objects obtained from it then fail
/// with [`Error::Disconnected`]).
#[derive(Clone)]
pub struct Session {
    inner: Arc<SessionInner>,
}

type ReconnectHook = Arc<dyn Fn(&Session) + Send + Sync>;

struct SessionInner {
    url: String,
    options: SessionOptions,
    state: Mutex<State>,
    generation: AtomicU64,
    directory: Mutex<Option<(u64, RemoteObject)>>,
    extra: Mutex<HashMap<String, Arc<Link>>>,
    hooks: Mutex<Vec<ReconnectHook>>,
    closing: AtomicBool,
}

impl Drop for SessionInner {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        if let State::Connected(link) = &*lock(&self.state) {
            link.peer.out().close("session closed");
        }
        for link in lock(&self.extra).values() {
            link.peer.out().close("session closed");
        }
    }
}

impl Session {
    /// Connects to `url` (`tcp://host:port` or `tcps://host:port`) with default options.
    pub fn connect(url: &str) -> Result<Session> {
        Session::connect_with(url, SessionOptions::default())
    }

    /// Connects to `url` and authenticates; fails if the first connection fails.
    pub fn connect_with(url: &str, options: SessionOptions) -> Result<Session> {
        let inner = Arc::new(SessionInner {
            url: url.to_string(),
            options,
            state: Mutex::new(State::Reconnecting("connecting".into())),
            generation: AtomicU64::new(0),
            directory: Mutex::new(None),
            extra: Mutex::new(HashMap::new()),
            hooks: Mutex::new(Vec::new()),
            closing: AtomicBool::new(false),
        });
        let link = Session::open_main(&inner)?;
        *lock(&inner.state) = State::Connected(link);
        Ok(Session { inner })
    }

    fn open_main(inner: &Arc<SessionInner>) -> Result<Arc<Link>> {
        let weak = Arc::downgrade(inner);
        let generation = inner.generation.load(Ordering::SeqCst);
        Link::connect(
            &inner.url,
            &inner.options,
            Address::new(directory::SERVICE_ID, 1, directory::MACHINE_ID),
            Box::new(move |why| Session::lost(weak, generation, why)),
        )
    }

    /// The main link of generation `generation` died: reconnect in the background.
    fn lost(weak: Weak<SessionInner>, generation: u64, why: String) {
        let Some(inner) = weak.upgrade() else {
            return;
        };
        if inner.closing.load(Ordering::SeqCst)
            || inner.generation.load(Ordering::SeqCst) != generation
        {
            return;
        }
        let mut state = lock(&inner.state);
        if matches!(*state, State::Closed) {
            return;
        }
        if !inner.options.reconnect {
            *state = State::Reconnecting(format!("{why} (reconnection is off)"));
            return;
        }
        *state = State::Reconnecting(why);
        drop(state);
        let weak = Arc::downgrade(&inner);
        drop(inner);
        let _ = std::thread::Builder::new()
            .name("qi-reconnect".into())
            .spawn(move || Session::reconnect(weak));
    }

    fn reconnect(weak: Weak<SessionInner>) {
        let mut delay = match weak.upgrade() {
            Some(inner) => inner.options.min_backoff,
            None => return,
        };
        loop {
            std::thread::sleep(delay);
            let Some(inner) = weak.upgrade() else {
                return;
            };
            if inner.closing.load(Ordering::SeqCst) || matches!(*lock(&inner.state), State::Closed)
            {
                return;
            }
            inner.generation.fetch_add(1, Ordering::SeqCst);
            match Session::open_main(&inner) {
                Ok(link) => {
                    *lock(&inner.state) = State::Connected(link);
                    let hooks: Vec<ReconnectHook> = lock(&inner.hooks).clone();
                    let session = Session { inner };
                    for hook in hooks {
                        hook(&session);
                    }
                    return;
                }
                Err(e) => {
                    if let State::Reconnecting(why) = &mut *lock(&inner.state) {
                        *why = format!("reconnecting to {} (last attempt: {e})", inner.url);
                    }
                    delay = (delay * 2).min(inner.options.max_backoff);
                }
            }
        }
    }

    /// The URL this session connects to.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The options in effect.
    pub fn options(&self) -> &SessionOptions {
        &self.inner.options
    }

    /// The SHA-256 fingerprint of the server's certificate on the main link (`tcps://`
    /// sessions while connected; `None` otherwise): the value to pin with
    /// [`TlsVerify::Pinned`].
    pub fn peer_certificate(&self) -> Option<Fingerprint> {
        match &*lock(&self.inner.state) {
            State::Connected(link) => link.certificate,
            _ => None,
        }
    }

    /// Whether the main link is up.
    pub fn is_connected(&self) -> bool {
        matches!(&*lock(&self.inner.state), State::Connected(l) if l.check_alive().is_ok())
    }

    /// Whether the peer speaks the protocol of NAOqi 2.1 (it has no authentication step:
    /// no capabilities were exchanged, and credentials given in the options were not used).
    pub fn is_legacy(&self) -> bool {
        self.peer_generation() == Some(Generation::V2_1)
    }

    /// The protocol generation spoken with the peer (its own, or ours when older), from the
    /// handshake; `None` while disconnected.
    pub fn peer_generation(&self) -> Option<Generation> {
        match &*lock(&self.inner.state) {
            State::Connected(l) => Some(l.peer.generation()),
            _ => None,
        }
    }

    /// Counts reconnections: objects from an older generation belong to a dead link.
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    /// Runs `hook` after every successful reconnection (to subscribe again, say).
    pub fn on_reconnect(&self, hook: impl Fn(&Session) + Send + Sync + 'static) {
        lock(&self.inner.hooks).push(Arc::new(hook));
    }

    /// Closes the session: links are shut, reconnection stops.
    pub fn close(&self) {
        self.inner.closing.store(true, Ordering::SeqCst);
        let old = std::mem::replace(&mut *lock(&self.inner.state), State::Closed);
        if let State::Connected(link) = old {
            link.peer.out().close("session closed");
        }
        for (_, link) in lock(&self.inner.extra).drain() {
            link.peer.out().close("session closed");
        }
    }

    fn link(&self) -> Result<Arc<Link>> {
        match &*lock(&self.inner.state) {
            State::Connected(link) => {
                link.check_alive()?;
                Ok(Arc::clone(link))
            }
            State::Reconnecting(why) => Err(Error::Disconnected(format!(
                "not connected to {}: {why}",
                self.inner.url
            ))),
            State::Closed => Err(Error::Disconnected(format!(
                "the session with {} is closed",
                self.inner.url
            ))),
        }
    }

    /// Calls waiting for an answer, on every socket of this session (a diagnostic: calls
    /// that time out or whose socket dies leave none behind).
    pub fn pending_calls(&self) -> usize {
        let main = match &*lock(&self.inner.state) {
            State::Connected(link) => lock(&link.pending).len(),
            _ => 0,
        };
        let extra: usize = lock(&self.inner.extra)
            .values()
            .map(|l| lock(&l.pending).len())
            .sum();
        main + extra
    }

    /// Objects this client serves its peers ([`Arg::Object`], and the objects their
    /// methods returned), on every socket of this session: each is let go when the peer
    /// terminates it or its socket closes.
    pub fn served_objects(&self) -> usize {
        let main = match &*lock(&self.inner.state) {
            State::Connected(link) => link.served.len(),
            _ => 0,
        };
        let extra: usize = lock(&self.inner.extra)
            .values()
            .map(|l| l.served.len())
            .sum();
        main + extra
    }

    /// The bound on object set-up calls: [`SETUP_TIMEOUT`], or the call timeout if shorter.
    fn setup_timeout(&self) -> Duration {
        self.inner
            .options
            .call_timeout
            .map_or(SETUP_TIMEOUT, |t| t.min(SETUP_TIMEOUT))
    }

    /// The ServiceDirectory object (service 1, object 1).
    pub fn directory(&self) -> Result<RemoteObject> {
        let generation = self.generation();
        if let Some((g, sd)) = &*lock(&self.inner.directory)
            && *g == generation
            && sd.is_connected()
        {
            return Ok(sd.clone());
        }
        let link = self.link()?;
        let sd = RemoteObject::fetch(
            &link,
            "ServiceDirectory",
            directory::SERVICE_ID,
            1,
            Some(self.setup_timeout()),
        )?;
        *lock(&self.inner.directory) = Some((generation, sd.clone()));
        Ok(sd)
    }

    /// Every registered service.
    pub fn services(&self) -> Result<Vec<ServiceInfo>> {
        match self.directory()?.call("services", &[])? {
            Value::List(v) => v.iter().map(ServiceInfo::from_value).collect(),
            other => Err(Error::Protocol(format!("services() returned {other}"))),
        }
    }

    /// The ServiceDirectory's record of service `name`.
    pub fn service_info(&self, name: &str) -> Result<ServiceInfo> {
        let v = self
            .directory()?
            .call("service", &[Value::String(name.to_string())])
            .map_err(|e| match e {
                Error::Remote(text) => Error::NotFound(format!("service {name}: {text}")),
                other => other,
            })?;
        ServiceInfo::from_value(&v)
    }

    /// A handle on service `name`'s main object. A service living with the directory
    /// (`qi:ServiceDirectory` among its endpoints, or this session's URL) uses the session's
    /// socket; otherwise a socket to the service's first reachable endpoint is opened (and
    /// kept for later services there): `tcps://` ones only for a tcps session, `tcp://`
    /// ones first for a tcp session.
    pub fn service(&self, name: &str) -> Result<RemoteObject> {
        let info = self.service_info(name)?;
        if info.endpoints.is_empty() {
            return Err(Error::NotFound(format!(
                "service {name}: No endpoints returned"
            )));
        }
        let same = info.endpoints.iter().any(|e| {
            e == "qi:ServiceDirectory" || parse_url(e).ok() == parse_url(&self.inner.url).ok()
        });
        let link = if same {
            self.link()?
        } else {
            self.extra_link(&info.endpoints, info.service_id)?
        };
        RemoteObject::fetch(&link, name, info.service_id, 1, Some(self.setup_timeout())).map(|o| {
            RemoteObject::new(
                Arc::clone(&o.inner.link),
                name.to_string(),
                info.service_id,
                1,
                o.inner.meta.clone(),
                self.inner.options.call_timeout,
                false,
            )
        })
    }

    /// A socket to one of `endpoints`, where service `service` lives (its keep-alive
    /// probes that service).
    fn extra_link(&self, endpoints: &[String], service: u32) -> Result<Arc<Link>> {
        let mut last = Error::NotFound(format!("no reachable endpoint among {endpoints:?}"));
        let secure = parse_url(&self.inner.url).is_ok_and(|u| u.tls);
        let tcps = endpoints.iter().filter(|e| e.starts_with("tcps://"));
        let tcp = endpoints.iter().filter(|e| e.starts_with("tcp://"));
        let candidates: Vec<&String> = if secure {
            tcps.collect()
        } else {
            tcp.chain(tcps).collect()
        };
        if candidates.is_empty() && secure {
            return Err(Error::NotFound(format!(
                "no tcps:// endpoint among {endpoints:?} (a tcps session does not fall back to tcp)"
            )));
        }
        for url in candidates {
            if let Some(link) = lock(&self.inner.extra).get(url)
                && link.check_alive().is_ok()
            {
                return Ok(Arc::clone(link));
            }
            let weak = Arc::downgrade(&self.inner);
            let key = url.clone();
            let on_close = Box::new(move |_why: String| {
                if let Some(inner) = weak.upgrade() {
                    lock(&inner.extra).remove(&key);
                }
            });
            let probe = Address::new(service, 1, IS_STATS_ENABLED);
            match Link::connect(url, &self.inner.options, probe, on_close) {
                Ok(link) => {
                    lock(&self.inner.extra).insert(url.clone(), Arc::clone(&link));
                    return Ok(link);
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Calls `handler(id, name)` on every `serviceAdded` signal.
    pub fn on_service_added(
        &self,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory_signal("serviceAdded", handler)
    }

    /// Calls `handler(id, name)` on every `serviceRemoved` signal.
    pub fn on_service_removed(
        &self,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory_signal("serviceRemoved", handler)
    }

    fn directory_signal(
        &self,
        signal: &str,
        handler: impl Fn(u32, String) + Send + Sync + 'static,
    ) -> Result<SignalLink> {
        self.directory()?.connect(signal, move |args| {
            if let [Value::Int(id), Value::String(name)] = args.as_slice() {
                handler(u32::try_from(*id).unwrap_or_default(), name.clone());
            }
        })
    }

    /// Registers a service hosted at `endpoints` with the directory; returns its id.
    pub fn register_service(&self, info: &ServiceInfo) -> Result<u32> {
        // The directory says which ServiceInfo it reads: 7 fields, or 6 before NAOqi 2.9.
        let sd = self.directory()?;
        let seven = Signature::parse(SERVICE_INFO_SIGNATURE)?;
        let (sig, value) = match sd.meta_object().methods_named("registerService").next() {
            Some(m) if !m.parameters_signature.contains(SERVICE_INFO_SIGNATURE) => (
                Signature::parse(SERVICE_INFO_SIGNATURE_6)?,
                Generation::V2_8.adapt_value(info.to_value(), &seven),
            ),
            _ => (seven, info.to_value()),
        };
        let args = Value::Tuple(vec![value]);
        let mut payload = Vec::new();
        value::encode(&args, &Signature::tuple(vec![sig]), &mut payload)?;
        let link = self.link()?;
        let address = Address::new(directory::SERVICE_ID, 1, directory::REGISTER_SERVICE);
        let (id, rx) = link.call(address, &payload, Flags::default())?;
        let pending = PendingCall {
            id,
            address,
            rx,
            link,
            returns: Signature::UInt32,
            timeout: Some(self.setup_timeout()),
        };
        match pending.wait()?.value {
            Value::Int(id) => {
                u32::try_from(id).map_err(|_| Error::Protocol(format!("service id {id}")))
            }
            other => Err(Error::Protocol(format!("registerService returned {other}"))),
        }
    }

    /// Tells the directory that service `id` is ready (it then emits `serviceAdded`).
    pub fn service_ready(&self, id: u32) -> Result<()> {
        self.directory()?
            .call("serviceReady", &[Value::Int(i64::from(id))])
            .map(|_| ())
    }

    /// Removes service `id` from the directory.
    pub fn unregister_service(&self, id: u32) -> Result<()> {
        self.directory()?
            .call("unregisterService", &[Value::Int(i64::from(id))])
            .map(|_| ())
    }

    /// The directory's machine id.
    pub fn machine_id(&self) -> Result<String> {
        match self.directory()?.call("machineId", &[])? {
            Value::String(s) => Ok(s),
            other => Err(Error::Protocol(format!("machineId() returned {other}"))),
        }
    }
}
