//! The server: hosts [`ServedObject`]s as services, either standalone with its own
//! ServiceDirectory (service 1), or registered into another directory (a robot's, or any
//! libqi process's).
//!
//! Threads: one accepting thread per listening socket, one reactor thread serving every
//! plain-TCP connection (`crate::transport::reactor`: a connection costs memory, not a
//! thread), and a pool of workers ([`choreo_base::pool::Pool`]) that grows when every
//! worker is busy (methods may block for as long as a robot action lasts) and shrinks when
//! workers stay idle. Methods built with [`crate::ObjectBuilder::method_inline`] run on the
//! reactor thread itself. [`Server::stop`] waits (at most [`STOP_WAIT`]) until the accepting
//! threads, the reactor and the TLS connections' threads have ended.
//!
//! Bytes that break the protocol (bad magic, version, sizes, unreadable payloads) close the
//! connection with an error reported through [`ServerOptions::log`]; other connections go on.
//!
//! **Limits** ([`ServerOptions::max_connections`], [`ServerOptions::max_pending`],
//! [`ServerOptions::handshake_timeout`]): a connection that does not handshake in time, the
//! oldest of too many waiting for theirs, and a connection beyond the maximum are closed.
//! Those, and every connection that closes before its handshake (garbage, a half header),
//! are counted ([`Server::refused`]) and reported once per server and reason, so that ten
//! thousand hostile connections make one log line, not ten thousand.
//!
//! **TLS.** [`Server::listen`] on `tcps://host:port` serves TLS with the certificate and key of
//! [`ServerOptions::tls`] (see [`crate::transport::tls`]); each TLS connection has a thread of its own
//! (at most [`TLS_CONNECTIONS`] at once; more are refused), whose handshake is bounded by
//! 10 s, so a client speaking plain qi, or nothing, to a tcps port is closed with a logged
//! error and holds up no one.

pub(crate) mod dispatch;
pub mod file;
pub mod object;

use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

use choreo_base::Value;
use choreo_base::join::ThreadSet;
use choreo_base::lock;
use choreo_base::pool::Pool;

use crate::codec::directory::{self, SERVICE_INFO_SIGNATURE, ServiceInfo};
use crate::codec::header::{DEFAULT_MAX_PAYLOAD, MessageType};
use crate::codec::message::Message;
use crate::error::Error;
use crate::server::dispatch::Host;
use crate::server::object::{Caller, MethodError, ObjectBuilder, Out, ServedObject};
use crate::session::{Session, SessionOptions, parse_url};
use crate::transport::capability::{self, AUTH_DONE, AUTHENTICATE, CapabilityMap, Shared};
use crate::transport::delay::{DelayLine, Lane, Latency};
use crate::transport::generation::Generation;
use crate::transport::peer::Peer;
use crate::transport::reactor::{Limits, Reactor, Refusal, Served};
use crate::transport::socket::{Incoming, Outbox};
use crate::transport::tls::{self, ServerTls};

fn read<T>(m: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(m: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(PoisonError::into_inner)
}

/// What a server reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// Listening on `url`.
    Listening(String),
    /// A client connected from `peer`.
    Connected(String),
    /// A client's connection ended; `error` says why when it was not a clean close.
    Closed {
        /// The client's address.
        peer: String,
        /// The protocol or socket error that closed it.
        error: Option<String>,
    },
    /// A service was registered: name and id.
    ServiceAdded(String, u32),
    /// A service was unregistered: name and id.
    ServiceRemoved(String, u32),
    /// Connections are being refused or closed before their handshake: said once per
    /// server and reason (the count is [`Server::refused`]).
    Refused(String),
}

/// Receives [`ServerEvent`]s (from server threads; keep it short).
pub type ServerLog = Arc<dyn Fn(&ServerEvent) + Send + Sync>;

/// How a server behaves.
#[derive(Clone)]
pub struct ServerOptions {
    /// Largest payload accepted from a client.
    pub max_payload: u32,
    /// When set, clients must authenticate with this `(user, token)`.
    pub credentials: Option<(String, String)>,
    /// Where events go; by default connection errors are printed on stderr.
    pub log: ServerLog,
    /// The certificate and key served on `tcps://` URLs (required to listen on one).
    pub tls: Option<ServerTls>,
    /// The protocol generation the server speaks (2.9 by default). Each client is also
    /// answered in its own generation when older: 6-field ServiceInfos, members it cannot
    /// parse left out of MetaObjects. A 2.1 server has no authentication (`credentials`
    /// are not checked): it announces its capabilities when a client connects and answers
    /// `authenticate` as NAOqi 2.1 did, `can't find service`.
    pub generation: Generation,
    /// Plain-TCP connections served at once; a new one beyond is closed.
    pub max_connections: usize,
    /// Connections waiting for their handshake at once; beyond, the oldest is closed.
    pub max_pending: usize,
    /// How long a connection may take to handshake: a first message handled, and the
    /// peer authenticated (libqi clients send `authenticate` as they connect).
    pub handshake_timeout: Duration,
    /// A simulated network delay (`choreo sim --latency`): every message received on a
    /// plain-TCP connection waits it before it is handled, every message sent before it is
    /// written (`crate::delay`). None: messages go at once.
    pub latency: Option<Latency>,
}

/// TLS connections served at once (each has its thread); more are refused.
pub const TLS_CONNECTIONS: usize = 32;

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            max_payload: DEFAULT_MAX_PAYLOAD,
            credentials: None,
            log: Arc::new(|e| match e {
                ServerEvent::Closed {
                    peer,
                    error: Some(error),
                } => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "qi server: connection from {peer} closed: {error}"
                    );
                }
                ServerEvent::Refused(why) => {
                    let _ = writeln!(std::io::stderr(), "qi server: {why}");
                }
                _ => {}
            }),
            tls: None,
            generation: Generation::V2_9,
            max_connections: 4096,
            max_pending: 256,
            handshake_timeout: Duration::from_secs(5),
            latency: None,
        }
    }
}

/// One client connection: the peer the dispatcher answers, and whether it authenticated.
pub(crate) struct Connection {
    peer: Arc<Peer>,
    authenticated: AtomicBool,
    /// The simulated delay of what arrives (with [`ServerOptions::latency`]).
    arriving: Option<Lane>,
}

/// Where services are registered.
enum Registry {
    /// Our own ServiceDirectory.
    Local,
    /// Another process's directory, through a client session.
    Remote(Session),
}

struct ServiceRecord {
    info: ServiceInfo,
    /// The connection that registered it (remote providers), 0 for our own services.
    owner: u64,
}

struct BoundObject {
    object: Arc<ServedObject>,
    /// The connection it was returned to (objects by reference die with it); 0 for services.
    owner: u64,
}

struct ServerInner {
    options: ServerOptions,
    registry: Registry,
    objects: RwLock<HashMap<(u32, u32), BoundObject>>,
    services: RwLock<BTreeMap<u32, ServiceRecord>>,
    endpoints: RwLock<Vec<String>>,
    next_service: AtomicU32,
    next_object: AtomicU32,
    machine_id: String,
    session_id: String,
    connections: Mutex<HashMap<u64, Weak<Connection>>>,
    listeners: Mutex<Vec<TcpListener>>,
    /// Serves the plain-TCP connections (started with the first listener).
    reactor: Mutex<Option<Reactor>>,
    /// Connections refused or closed before their handshake.
    refused: AtomicU64,
    /// Reasons already reported (a bit per reason).
    reported: AtomicU32,
    /// TLS connections being served.
    tls_connections: AtomicUsize,
    /// Runs delayed messages (with [`ServerOptions::latency`]).
    delay: Option<Arc<DelayLine>>,
    /// Lanes of delay made: each seeds its jitter with its number (a repeatable run).
    lanes: AtomicU64,
    stopped: AtomicBool,
    /// The accepting threads, the reactor's, the TLS connections': waited for by a stop.
    threads: ThreadSet,
    workers: Pool,
    directory: Mutex<Option<Arc<ServedObject>>>,
}

/// A qi server (see the module documentation).
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

/// A UUID-shaped id, random enough to tell processes and runs apart.
fn uuid_like() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut words = [0u64; 2];
    for w in &mut words {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(u64::from(std::process::id()));
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        *w = h.finish();
    }
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

impl Server {
    fn with_registry(options: ServerOptions, registry: Registry) -> Result<Server, Error> {
        let delay = match options.latency {
            Some(_) => Some(DelayLine::start()?),
            None => None,
        };
        Ok(Server {
            inner: Arc::new(ServerInner {
                options,
                registry,
                objects: RwLock::new(HashMap::new()),
                services: RwLock::new(BTreeMap::new()),
                endpoints: RwLock::new(Vec::new()),
                next_service: AtomicU32::new(2),
                next_object: AtomicU32::new(2),
                machine_id: uuid_like(),
                session_id: uuid_like(),
                connections: Mutex::new(HashMap::new()),
                listeners: Mutex::new(Vec::new()),
                reactor: Mutex::new(None),
                refused: AtomicU64::new(0),
                reported: AtomicU32::new(0),
                tls_connections: AtomicUsize::new(0),
                delay,
                lanes: AtomicU64::new(0),
                stopped: AtomicBool::new(false),
                threads: ThreadSet::default(),
                workers: dispatch::workers("qi-worker"),
                directory: Mutex::new(None),
            }),
        })
    }

    /// A server with its own ServiceDirectory (service 1): a complete qi endpoint, like
    /// `qi.Application --qi-standalone` or a robot.
    pub fn standalone(options: ServerOptions) -> Result<Server, Error> {
        let server = Server::with_registry(options, Registry::Local)?;
        let sd = directory_object(Arc::downgrade(&server.inner))?;
        sd.bind((directory::SERVICE_ID, 1));
        write(&server.inner.objects).insert(
            (directory::SERVICE_ID, 1),
            BoundObject {
                object: Arc::clone(&sd),
                owner: 0,
            },
        );
        write(&server.inner.services).insert(
            directory::SERVICE_ID,
            ServiceRecord {
                info: ServiceInfo {
                    name: "ServiceDirectory".into(),
                    service_id: directory::SERVICE_ID,
                    machine_id: server.inner.machine_id.clone(),
                    process_id: std::process::id(),
                    endpoints: Vec::new(),
                    session_id: "0".into(),
                    object_uid: Vec::new(),
                },
                owner: 0,
            },
        );
        *lock(&server.inner.directory) = Some(sd);
        Ok(server)
    }

    /// A server whose services are registered into the directory at `directory_url`
    /// (call [`Server::listen`] before registering: the directory hands our endpoint out).
    pub fn attached(
        directory_url: &str,
        options: ServerOptions,
        session: SessionOptions,
    ) -> Result<Server, Error> {
        let session = Session::connect_with(
            directory_url,
            SessionOptions {
                reconnect: false,
                ..session
            },
        )?;
        Server::with_registry(options, Registry::Remote(session))
    }

    /// Listens on `url` (`tcp://127.0.0.1:0` picks a free port; `tcps://…` serves TLS with
    /// [`ServerOptions::tls`]) and serves clients there; returns the URL actually bound.
    pub fn listen(&self, url: &str) -> Result<String, Error> {
        let target = parse_url(url)?;
        let tls = match (&self.inner.options.tls, target.tls) {
            (_, false) => None,
            (Some(identity), true) => Some(tls::server_config(identity)?),
            (None, true) => {
                return Err(Error::Tls(format!(
                    "{url}: listening on tcps needs a certificate and key (ServerOptions::tls)"
                )));
            }
        };
        let listener = TcpListener::bind(&target.address)?;
        let local = listener.local_addr()?;
        {
            let mut reactor = lock(&self.inner.reactor);
            if reactor.is_none() {
                *reactor = Some(Reactor::start(
                    Arc::downgrade(&self.inner),
                    &self.inner.threads,
                )?);
            }
        }
        let bound = format!("{}://{local}", if target.tls { "tcps" } else { "tcp" });
        write(&self.inner.endpoints).push(bound.clone());
        lock(&self.inner.listeners).push(listener.try_clone()?);
        let weak = Arc::downgrade(&self.inner);
        self.inner
            .threads
            .spawn("qi-accept", move || accept_loop(&weak, &listener, tls))?;
        (self.inner.options.log)(&ServerEvent::Listening(bound.clone()));
        Ok(bound)
    }

    /// The URLs listened on.
    pub fn endpoints(&self) -> Vec<String> {
        read(&self.inner.endpoints).clone()
    }

    /// How many connections were refused or closed before their handshake (by a limit, or
    /// for breaking the protocol before it).
    pub fn refused(&self) -> u64 {
        self.inner.refused.load(Ordering::Relaxed)
    }

    /// The machine id this server reports.
    pub fn machine_id(&self) -> &str {
        &self.inner.machine_id
    }

    /// Registers `object` as service `name`; returns its id.
    pub fn register_service(&self, name: &str, object: Arc<ServedObject>) -> Result<u32, Error> {
        match &self.inner.registry {
            Registry::Local => {
                if read(&self.inner.services)
                    .values()
                    .any(|r| r.info.name == name)
                {
                    return Err(Error::Type(format!("service {name} already registered")));
                }
                let id = self.inner.next_service.fetch_add(1, Ordering::SeqCst);
                object.bind((id, 1));
                let object_uid = object.uid.to_vec();
                write(&self.inner.objects).insert((id, 1), BoundObject { object, owner: 0 });
                let info = ServiceInfo {
                    name: name.to_string(),
                    service_id: id,
                    machine_id: self.inner.machine_id.clone(),
                    process_id: std::process::id(),
                    endpoints: Vec::new(),
                    session_id: self.inner.session_id.clone(),
                    object_uid,
                };
                write(&self.inner.services).insert(id, ServiceRecord { info, owner: 0 });
                self.inner.service_added(id, name);
                Ok(id)
            }
            Registry::Remote(session) => {
                let endpoints = self.endpoints();
                if endpoints.is_empty() {
                    return Err(Error::Type(
                        "listen before registering into another directory".into(),
                    ));
                }
                let info = ServiceInfo {
                    name: name.to_string(),
                    service_id: 0,
                    machine_id: session.machine_id()?,
                    process_id: std::process::id(),
                    endpoints,
                    session_id: self.inner.session_id.clone(),
                    object_uid: object.uid.to_vec(),
                };
                let id = session.register_service(&info)?;
                object.bind((id, 1));
                write(&self.inner.objects).insert((id, 1), BoundObject { object, owner: 0 });
                session.service_ready(id)?;
                (self.inner.options.log)(&ServerEvent::ServiceAdded(name.to_string(), id));
                Ok(id)
            }
        }
    }

    /// Unregisters service `id`.
    pub fn unregister_service(&self, id: u32) -> Result<(), Error> {
        write(&self.inner.objects).remove(&(id, 1));
        match &self.inner.registry {
            Registry::Local => self.inner.remove_service(id),
            Registry::Remote(session) => session.unregister_service(id),
        }
    }

    /// Stops listening and closes every connection; returns once the server's threads have
    /// ended (at most [`STOP_WAIT`] later: a thread still busy then is left to end alone).
    /// Methods running on the workers are not waited for.
    pub fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        for l in lock(&self.inner.listeners).drain(..) {
            // Wake the accepting thread: it sees `stopped` and returns.
            if let Ok(a) = l.local_addr() {
                let _ = TcpStream::connect_timeout(&a, Duration::from_millis(200));
            }
        }
        let conns: Vec<_> = lock(&self.inner.connections).drain().collect();
        for (_, c) in conns {
            if let Some(c) = c.upgrade() {
                c.peer.out().close("server stopped");
            }
        }
        if let Some(reactor) = lock(&self.inner.reactor).as_ref() {
            reactor.wake();
        }
        self.inner.threads.join(STOP_WAIT);
    }
}

/// How long [`Server::stop`] waits for the server's threads to end. Those of closed
/// connections end at once; a TLS connection still in its handshake is not among the
/// connections a stop closes, and ends with it (bounded by 10 s).
pub const STOP_WAIT: Duration = Duration::from_secs(5);

impl ServerInner {
    /// The seed of the next lane of delay.
    fn next_lane(&self) -> u64 {
        self.lanes
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// Counts a connection refused or closed before its handshake; reports the first of
    /// each kind (`bit`).
    fn refuse(&self, bit: u32, why: impl FnOnce() -> String) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        if self.reported.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            (self.options.log)(&ServerEvent::Refused(why()));
        }
    }

    fn service_added(&self, id: u32, name: &str) {
        (self.options.log)(&ServerEvent::ServiceAdded(name.to_string(), id));
        if let Some(sd) = lock(&self.directory).as_ref() {
            let _ = sd.emit(
                "serviceAdded",
                vec![Value::Int(i64::from(id)), Value::String(name.to_string())],
            );
        }
    }

    fn remove_service(&self, id: u32) -> Result<(), Error> {
        let record = write(&self.services)
            .remove(&id)
            .ok_or_else(|| Error::NotFound(format!("no service with id {id}")))?;
        let name = record.info.name;
        (self.options.log)(&ServerEvent::ServiceRemoved(name.clone(), id));
        if let Some(sd) = lock(&self.directory).as_ref() {
            let _ = sd.emit(
                "serviceRemoved",
                vec![Value::Int(i64::from(id)), Value::String(name)],
            );
        }
        Ok(())
    }

    /// The record of service `name` as clients see it: our own services list the
    /// relative endpoints and every URL we listen on.
    fn service_info(&self, record: &ServiceRecord) -> ServiceInfo {
        let mut info = record.info.clone();
        if record.owner == 0 {
            let mut endpoints = vec!["qi:ServiceDirectory".to_string()];
            if info.name != "ServiceDirectory" {
                endpoints.push(format!("qi:{}", info.name));
            }
            endpoints.extend(read(&self.endpoints).iter().cloned());
            info.endpoints = endpoints;
        }
        info
    }

    /// Binds an object returned by reference from service `service` to `owner`.
    fn bind_to(&self, service: u32, object: &Arc<ServedObject>, owner: u64) -> (u32, u32) {
        if let Some(at) = object.address() {
            return at;
        }
        let id = self.next_object.fetch_add(1, Ordering::SeqCst);
        let at = object.bind((service, id));
        write(&self.objects).insert(
            at,
            BoundObject {
                object: Arc::clone(object),
                owner,
            },
        );
        at
    }

    fn connection_closed(&self, id: u64) {
        lock(&self.connections).remove(&id);
        let mut objects = write(&self.objects);
        objects.retain(|_, b| b.owner != id);
        for b in objects.values() {
            b.object.drop_connection(id);
        }
        drop(objects);
        let owned: Vec<u32> = read(&self.services)
            .iter()
            .filter(|(_, r)| r.owner == id)
            .map(|(k, _)| *k)
            .collect();
        for sid in owned {
            let _ = self.remove_service(sid);
        }
    }
}

impl Host for ServerInner {
    fn label(&self) -> &'static str {
        "qi server"
    }

    fn object(&self, service: u32, object: u32) -> Option<Arc<ServedObject>> {
        read(&self.objects)
            .get(&(service, object))
            .map(|b| Arc::clone(&b.object))
    }

    fn no_such_object(&self) -> &'static str {
        if self.options.generation == Generation::V2_1 {
            // libqi of NAOqi 2.1 (`src/messaging/server.cpp`): how a 2.1 peer refuses
            // the `authenticate` call of newer clients, which they recognise.
            "can't find service, address:"
        } else {
            "No such object"
        }
    }

    fn terminate(&self, service: u32, object: u32) {
        // A service's main object (1) stays.
        if object > 1 {
            write(&self.objects).remove(&(service, object));
        }
    }

    fn bind_returned(&self, service: u32, object: &Arc<ServedObject>, peer: &Peer) -> (u32, u32) {
        self.bind_to(service, object, peer.id())
    }

    fn workers(&self) -> &Pool {
        &self.workers
    }
}

fn accept_loop(
    weak: &Weak<ServerInner>,
    listener: &TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    for stream in listener.incoming() {
        let Some(inner) = weak.upgrade() else {
            return;
        };
        if inner.stopped.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            continue;
        };
        let Some(config) = tls.clone() else {
            if let Some(reactor) = lock(&inner.reactor).as_ref() {
                reactor.add(stream);
            }
            continue;
        };
        if inner.tls_connections.fetch_add(1, Ordering::SeqCst) >= TLS_CONNECTIONS {
            inner.tls_connections.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.shutdown(std::net::Shutdown::Both);
            inner.refuse(REFUSED_TLS, || {
                format!(
                    "{TLS_CONNECTIONS} TLS connections open: a new one refused (more are \
                     counted, not logged)"
                )
            });
            continue;
        }
        let spawned = inner.threads.spawn("qi-server-tls", {
            let inner = Arc::clone(&inner);
            move || {
                serve_tls(&inner, stream, config);
                inner.tls_connections.fetch_sub(1, Ordering::SeqCst);
            }
        });
        if spawned.is_err() {
            inner.tls_connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The bits of [`ServerInner::reported`].
const REFUSED_TLS: u32 = 1;
const REFUSED_EARLY: u32 = 2;

fn refusal_bit(why: Refusal) -> u32 {
    match why {
        Refusal::Handshake => 4,
        Refusal::Pending => 8,
        Refusal::Full => 16,
    }
}

impl ServerInner {
    /// A connection opened from `peer`, answered through `out`.
    fn open_connection(&self, out: Arc<Outbox>, peer: &str) -> Arc<Connection> {
        let link = Arc::new(Peer::new(out, Shared::default(), self.options.generation));
        let conn = Arc::new(Connection {
            arriving: self.options.latency.map(|l| Lane::new(l, self.next_lane())),
            peer: link,
            authenticated: AtomicBool::new(false),
        });
        if !self.options.generation.authenticates() {
            // NAOqi 2.1: both ends announce their capabilities as the socket opens.
            conn.peer.announce(self.options.generation);
            conn.authenticated.store(true, Ordering::SeqCst);
        }
        lock(&self.connections).insert(conn.peer.id(), Arc::downgrade(&conn));
        (self.options.log)(&ServerEvent::Connected(peer.to_string()));
        conn
    }

    /// A connection ended (`handshaken`: after its handshake; before it, a close with an
    /// error is counted and reported once).
    fn close_connection(
        &self,
        conn: &Connection,
        peer: String,
        error: Option<String>,
        handshaken: bool,
    ) {
        conn.peer.out().close(error.as_deref().unwrap_or("closed"));
        self.connection_closed(conn.peer.id());
        match error {
            Some(error) if !handshaken => {
                let mut first = false;
                self.refuse(REFUSED_EARLY, || {
                    first = true;
                    "a connection closed before its handshake (next line); more such \
                     connections are counted, not logged"
                        .to_string()
                });
                if first {
                    (self.options.log)(&ServerEvent::Closed {
                        peer,
                        error: Some(error),
                    });
                }
            }
            error => (self.options.log)(&ServerEvent::Closed { peer, error }),
        }
    }
}

impl Served for ServerInner {
    type Conn = Arc<Connection>;

    fn limits(&self) -> Limits {
        Limits {
            max_payload: self.options.max_payload,
            max_connections: self.options.max_connections,
            max_pending: self.options.max_pending,
            handshake: self.options.handshake_timeout,
        }
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    fn outbox(&self, stream: TcpStream) -> Arc<Outbox> {
        match (&self.delay, self.options.latency) {
            (Some(line), Some(latency)) => {
                Outbox::delayed(stream, Arc::clone(line), latency, self.next_lane())
            }
            _ => Arc::new(Outbox::nonblocking(stream)),
        }
    }

    fn open(self: &Arc<Self>, out: Arc<Outbox>, peer: &str) -> Arc<Connection> {
        self.open_connection(out, peer)
    }

    /// Handles `m` now, or once its simulated delay has passed (an error then closes the
    /// connection).
    fn message(self: &Arc<Self>, conn: &Arc<Connection>, m: Message) -> Result<(), Error> {
        let (Some(line), Some(lane)) = (&self.delay, &conn.arriving) else {
            return handle(self, conn, m);
        };
        let (inner, conn) = (Arc::clone(self), Arc::clone(conn));
        line.at(
            lane.due(),
            Box::new(move || {
                if let Err(e) = handle(&inner, &conn, m) {
                    conn.peer.out().close(&e.to_string());
                }
            }),
        );
        Ok(())
    }

    fn authenticated(&self, conn: &Arc<Connection>) -> bool {
        conn.authenticated.load(Ordering::SeqCst)
    }

    fn closed(&self, conn: Arc<Connection>, peer: String, error: Option<String>, handshaken: bool) {
        self.close_connection(&conn, peer, error, handshaken);
    }

    fn refused(&self, why: Refusal) {
        let limits = self.limits();
        self.refuse(refusal_bit(why), || why.describe(&limits));
    }
}

/// Serves one TLS connection on the calling thread until it closes.
fn serve_tls(inner: &Arc<ServerInner>, stream: TcpStream, config: Arc<rustls::ServerConfig>) {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_string(), |a| a.to_string());
    let _ = stream.set_nodelay(true);
    let (Ok(read_half), Ok(write_half)) = (stream.try_clone(), stream.try_clone()) else {
        return;
    };
    let (incoming, out) = match tls::accept(&stream, config) {
        Ok(tls) => {
            let out = Arc::new(Outbox::with_tls(write_half, tls));
            (Incoming::tls(read_half, Arc::clone(&out)), out)
        }
        Err(e) => {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            (inner.options.log)(&ServerEvent::Connected(peer.clone()));
            (inner.options.log)(&ServerEvent::Closed {
                peer,
                error: Some(e.to_string()),
            });
            return;
        }
    };
    let conn = inner.open_connection(out, &peer);
    if inner.stopped.load(Ordering::SeqCst) {
        // Stopped during the handshake: the stop may have looked at the connections before
        // this one was among them (it was, if it looked after: closing twice is harmless).
        conn.peer.out().close("server stopped");
    }
    let mut reader = BufReader::with_capacity(1 << 16, incoming);
    let error = loop {
        match Message::read_from(&mut reader, inner.options.max_payload) {
            Ok(Some(m)) => {
                if let Err(e) = handle(inner, &conn, m) {
                    break Some(e.to_string());
                }
            }
            Ok(None) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };
    inner.close_connection(&conn, peer, error, true);
}

/// Handles one message; an error closes the connection.
fn handle(inner: &Arc<ServerInner>, conn: &Arc<Connection>, m: Message) -> Result<(), Error> {
    let own = inner.options.generation;
    let a = m.header.address;
    if a.service == 0
        && a.action == AUTHENTICATE
        && m.header.kind == MessageType::Call
        && own.authenticates()
    {
        return authenticate(inner, conn, &m);
    }
    if !conn.authenticated.load(Ordering::SeqCst) {
        if inner.options.credentials.is_some() {
            conn.peer
                .error(&m, "Authentication failed: authenticate first");
            return Err(Error::Authentication("no authenticate call".into()));
        }
        // A first message that is not `authenticate` (a NAOqi 2.1 client's Capability
        // message): as libqi 4 does when authentication is not enforced, the socket counts
        // as authenticated and gets our capabilities; a call is not handled.
        conn.authenticated.store(true, Ordering::SeqCst);
        conn.peer.advertised(own, &CapabilityMap::default(), true);
        conn.peer.announce(own);
        if m.header.kind == MessageType::Call {
            conn.peer
                .error(&m, "The call request could not be handled.");
            return Ok(());
        }
    }
    match m.header.kind {
        MessageType::Call | MessageType::Post => dispatch::call(inner, &conn.peer, m),
        MessageType::Cancel => dispatch::cancel(&conn.peer, &m),
        MessageType::Capability => {
            let legacy = conn.peer.generation() == Generation::V2_1;
            conn.peer
                .advertised(own, &CapabilityMap::decode(&m.payload)?, legacy);
            Ok(())
        }
        MessageType::Reply | MessageType::Error | MessageType::Canceled | MessageType::Event => {
            Ok(())
        }
    }
}

fn authenticate(
    inner: &Arc<ServerInner>,
    conn: &Arc<Connection>,
    m: &Message,
) -> Result<(), Error> {
    let remote = CapabilityMap::decode(&m.payload)?;
    // Once authenticated (credentials checked, or none needed), a repeated call succeeds
    // again, as libqi answers it.
    if let Some((user, token)) = &inner.options.credentials
        && !conn.authenticated.load(Ordering::SeqCst)
        && (remote.string("auth_user") != Some(user) || remote.string("auth_token") != Some(token))
    {
        conn.peer
            .error(m, "Authentication failed: bad user or token");
        return Err(Error::Authentication("bad user or token".into()));
    }
    let own = inner.options.generation;
    conn.peer.advertised(own, &remote, false);
    conn.authenticated.store(true, Ordering::SeqCst);
    conn.peer.answer(
        m,
        MessageType::Reply,
        capability::encode_reply(own, AUTH_DONE as u32),
    );
    Ok(())
}

/// The service id a ServiceDirectory method `method` is given as its first argument.
fn service_id(args: &[Value], method: &str) -> Result<u32, MethodError> {
    match args.first() {
        Some(Value::Int(i)) => Ok(u32::try_from(*i).map_err(|_| "bad id")?),
        _ => Err(format!("{method}(id): id must be an integer").into()),
    }
}

/// The ServiceDirectory object of a standalone server.
fn directory_object(weak: Weak<ServerInner>) -> Result<Arc<ServedObject>, Error> {
    let info = SERVICE_INFO_SIGNATURE;
    let list = format!("[{info}]");
    let w = weak.clone();
    let service = move |args: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let name = match args.first() {
            Some(Value::String(s)) => s.clone(),
            _ => return Err("service(name): name must be a string".into()),
        };
        let services = read(&inner.services);
        let record = services
            .values()
            .find(|r| r.info.name == name)
            .ok_or_else(|| format!("Cannot find service '{name}' in index"))?;
        Ok(Out::Value(inner.service_info(record).to_value()))
    };
    let w = weak.clone();
    let services = move |_: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let services = read(&inner.services);
        Ok(Out::Value(Value::List(
            services
                .values()
                .map(|r| inner.service_info(r).to_value())
                .collect(),
        )))
    };
    let w = weak.clone();
    let register = move |caller: &Caller, args: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let mut info = ServiceInfo::from_value(args.first().unwrap_or(&Value::None))
            .map_err(|e| e.to_string())?;
        let mut services = write(&inner.services);
        if services.values().any(|r| r.info.name == info.name) {
            return Err(format!("Service \"{}\" (#0) is already registered", info.name).into());
        }
        let id = inner.next_service.fetch_add(1, Ordering::SeqCst);
        info.service_id = id;
        services.insert(
            id,
            ServiceRecord {
                info,
                owner: caller.connection,
            },
        );
        Ok(Out::Value(Value::Int(i64::from(id))))
    };
    let w = weak.clone();
    let unregister = move |args: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let id = service_id(&args, "unregisterService")?;
        inner.remove_service(id).map_err(|e| e.to_string())?;
        Ok(Out::Value(Value::None))
    };
    let w = weak.clone();
    let ready = move |args: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let id = service_id(&args, "serviceReady")?;
        let name = read(&inner.services)
            .get(&id)
            .map(|r| r.info.name.clone())
            .ok_or_else(|| format!("no service with id {id}"))?;
        inner.service_added(id, &name);
        Ok(Out::Value(Value::None))
    };
    let w = weak.clone();
    let update = move |args: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        let info = ServiceInfo::from_value(args.first().unwrap_or(&Value::None))
            .map_err(|e| e.to_string())?;
        match write(&inner.services).get_mut(&info.service_id) {
            Some(r) => {
                r.info = info;
                Ok(Out::Value(Value::None))
            }
            None => Err(format!("no service with id {}", info.service_id).into()),
        }
    };
    let w = weak;
    let machine = move |_: Vec<Value>| -> Result<Out, MethodError> {
        let inner = w.upgrade().ok_or("server stopped")?;
        Ok(Out::Value(Value::String(inner.machine_id.clone())))
    };
    ObjectBuilder::new("")
        .method_inline("service", "(s)", info, service)
        .method_inline("services", "()", &list, services)
        .method_with_caller("registerService", &format!("({info})"), "I", true, register)
        .method_inline("unregisterService", "(I)", "v", unregister)
        .method_inline("serviceReady", "(I)", "v", ready)
        .method_inline("updateServiceInfo", &format!("({info})"), "v", update)
        .signal("serviceAdded", "(Is)")
        .signal("serviceRemoved", "(Is)")
        .method_inline("machineId", "()", "s", machine)
        .method_inline("_socketOfService", "(I)", "o", |_| {
            Err("_socketOfService is not served".into())
        })
        .build()
}
