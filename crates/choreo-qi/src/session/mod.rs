//! The client session (qi-protocol.md §8–§10): connect, authenticate, the ServiceDirectory,
//! remote objects (calls by name with overload resolution, post, cancel, signals,
//! properties), timeouts, and reconnection with backoff.
//!
//! **Threads, not an async runtime.** The engine is thread-based and calls
//! [`choreo_engine::Robot::call`] synchronously from its worker threads; a session therefore
//! serves blocking callers. Each socket has one reader thread that routes answers to the
//! waiting callers (a one-slot channel per call), events to their handlers, and the peer's
//! calls on objects this client passed it ([`Arg::Object`](crate::Arg::Object)) to the
//! dispatcher servers use (methods that may block run on the link's workers); callers write
//! their own frames (see `socket`), so a call costs no hand-off to a writer thread and many
//! calls in flight share system calls. A robot session holds one or two sockets, so a thread
//! per socket is cheap, and no runtime has to be started inside a library that callers
//! use from plain threads.
//!
//! **URLs.** `tcp://host:port` (port 9559 by default; a bare `host[:port]` means tcp too)
//! and `tcps://host:port` (TLS, port 9503 by default: NAOqi 2.9's Pepper). How a tcps
//! client checks the server's certificate is [`SessionOptions::tls`] (by default it accepts
//! any, like libqi: see [`crate::transport::tls`]). A tcps session opens its other sockets (to services
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

//!
//! **Where things are.** [`SessionOptions`] and [`Keepalive`] in `options.rs`; URLs in
//! `url.rs`; one authenticated socket and its reader thread (`Link`) in `link.rs`; a call on
//! its way ([`PendingCall`]) in `call.rs`; objects on the peer ([`RemoteObject`]) in
//! `remoteobject.rs`; the ServiceDirectory's side of the session (services, their
//! sockets, registration) in `services.rs`; the session itself (connecting, losing and
//! regaining the link) here.

pub(crate) mod arg;
mod call;
mod link;
mod options;
mod remoteobject;
mod services;
mod url;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use choreo_base::lock;

pub use call::{Canceler, PendingCall};
pub use options::{Keepalive, SessionOptions};
pub use remoteobject::{RemoteObject, SignalLink};
pub use url::{DEFAULT_TCP_PORT, DEFAULT_TCPS_PORT, QiUrl, parse_url};

use crate::codec::directory;
use crate::codec::header::Address;
use crate::error::{Error, Result};
use crate::transport::generation::Generation;
use crate::transport::tls::Fingerprint;
use link::Link;

/// Answer time allowed to the calls that set up objects (MetaObject fetches, directory
/// lookups): they answer at once, unless the link is in trouble.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

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

/// How long closing a session waits for each link's reader thread to end (it ends as soon
/// as it sees its socket closed; a signal handler of the caller's may hold it longer).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

impl Drop for SessionInner {
    /// Closes every link and waits for their reader threads (see [`choreo_base::join`]).
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        let mut links: Vec<Arc<Link>> = lock(&self.extra).values().cloned().collect();
        if let State::Connected(link) = &*lock(&self.state) {
            links.push(Arc::clone(link));
        }
        for link in &links {
            link.peer.out().close("session closed");
        }
        for link in links {
            link.join_reader(CLOSE_WAIT);
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
    /// [`TlsVerify::Pinned`](crate::TlsVerify::Pinned).
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

    /// Runs `hook` after every successful reconnection (to subscribe again, say), on the
    /// reconnecting thread once the new link is up: [`is_connected`](Self::is_connected)
    /// may turn true while hooks still run.
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

    /// Objects this client serves its peers ([`Arg::Object`](crate::Arg::Object), and the
    /// objects their methods returned), on every socket of this session: each is let go
    /// when the peer terminates it or its socket closes.
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
}
