//! Dead (half-open) links: a TCP proxy between our client and a server forwards bytes, then
//! on command turns into a black hole (nothing forwarded either way, both sockets kept
//! open), as when a robot's Wi-Fi drops. The session's keep-alive must notice within its
//! documented bound, fail the calls in flight, and reconnect; a healthy link must stay up,
//! idle or busy with a long call. Also: the call timeout's default and its clean-up, and
//! libqi answering the probes.

use crate::support;
use choreo_testkit::wait_until;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::Value;
use choreo_qi::session::Keepalive;
use choreo_qi::{
    Error, ObjectBuilder, Out, Pem, Server, ServerOptions, ServerTls, Session, SessionOptions,
};

/// The keep-alive of these tests: probe after 300 ms of silence, give up 1.5 s later.
fn quick() -> Keepalive {
    Keepalive {
        interval: Duration::from_millis(300),
        timeout: Duration::from_millis(1500),
    }
}

/// Test session options: quick keep-alive, a call timeout far beyond it, fast reconnection.
fn options() -> SessionOptions {
    SessionOptions {
        connect_timeout: Duration::from_secs(2),
        call_timeout: Some(Duration::from_secs(60)),
        keepalive: Some(quick()),
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(200),
        ..SessionOptions::default()
    }
}

/// How long a dead link may go unnoticed here: 3 times the documented bound, plus 2 s for a
/// loaded machine.
fn noticed_within() -> Duration {
    quick().detection_bound() * 3 + Duration::from_secs(2)
}

/// Polls `done` every 5 ms for up to `limit`; true if it held.
/// A TCP proxy that can turn into a black hole.
struct Proxy {
    url: String,
    /// Connections accepted from now on start black.
    black_new: Arc<AtomicBool>,
    /// Each connection's switch.
    links: Arc<Mutex<Vec<Arc<AtomicBool>>>>,
    /// Bytes forwarded to the server, and to the client.
    to_server: Arc<AtomicU64>,
    to_client: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards every connection to `target`; its URL
    /// has `scheme` (the proxy forwards bytes, TLS or not).
    fn start(target: SocketAddr, scheme: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("{scheme}://{}", listener.local_addr().unwrap());
        let proxy = Proxy {
            url,
            black_new: Arc::new(AtomicBool::new(false)),
            links: Arc::new(Mutex::new(Vec::new())),
            to_server: Arc::new(AtomicU64::new(0)),
            to_client: Arc::new(AtomicU64::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (black_new, links, stop) = (
            Arc::clone(&proxy.black_new),
            Arc::clone(&proxy.links),
            Arc::clone(&proxy.stop),
        );
        let (to_server, to_client) = (Arc::clone(&proxy.to_server), Arc::clone(&proxy.to_client));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let client = match listener.accept() {
                    Ok((c, _)) => c,
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                let black = Arc::new(AtomicBool::new(black_new.load(Ordering::SeqCst)));
                links.lock().unwrap().push(Arc::clone(&black));
                for (from, to, count) in [
                    (
                        client.try_clone().unwrap(),
                        server.try_clone().unwrap(),
                        &to_server,
                    ),
                    (server, client, &to_client),
                ] {
                    let (black, stop, count) =
                        (Arc::clone(&black), Arc::clone(&stop), Arc::clone(count));
                    std::thread::spawn(move || pump(from, to, &black, &stop, &count));
                }
            }
        });
        proxy
    }

    /// From now on nothing passes on the connections open, nor on later ones; every socket
    /// stays open.
    fn black_hole(&self) {
        self.black_new.store(true, Ordering::SeqCst);
        for link in self.links.lock().unwrap().iter() {
            link.store(true, Ordering::SeqCst);
        }
    }

    /// New connections pass again (the black-holed ones stay black, as half-open links do).
    fn heal_new(&self) {
        self.black_new.store(false, Ordering::SeqCst);
    }

    fn to_server(&self) -> u64 {
        self.to_server.load(Ordering::SeqCst)
    }

    fn to_client(&self) -> u64 {
        self.to_client.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Forwards `from` to `to` until either closes, or (black) holds everything, sockets open,
/// until the proxy stops.
fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    black: &AtomicBool,
    stop: &AtomicBool,
    count: &AtomicU64,
) {
    from.set_read_timeout(Some(Duration::from_millis(10)))
        .unwrap();
    let mut buf = vec![0u8; 1 << 16];
    while !stop.load(Ordering::SeqCst) {
        if black.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        match from.read(&mut buf) {
            Ok(0) => {
                let _ = to.shutdown(Shutdown::Write);
                return;
            }
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
                count.fetch_add(n as u64, Ordering::SeqCst);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => {
                let _ = to.shutdown(Shutdown::Both);
                return;
            }
        }
    }
}

/// Our server with a `Sleeper` service: `ping(i)`, `nap(i ms)` (sleeps, on a worker) and
/// `hang()` (blocks until `release` is set, 60 s at most).
struct Fixture {
    server: Server,
    proxy: Proxy,
    release: Arc<AtomicBool>,
}

impl Fixture {
    fn start() -> Fixture {
        Fixture::serve(None)
    }

    /// Like [`Fixture::start`], serving `tcps://` with `tls`.
    fn serve(tls: Option<ServerTls>) -> Fixture {
        let release = Arc::new(AtomicBool::new(false));
        let r = Arc::clone(&release);
        let object = ObjectBuilder::new("sleeper")
            .method_inline("ping", "(i)", "i", |a| {
                Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
            })
            .method("nap", "(i)", "i", |a| {
                let ms = match a.first() {
                    Some(Value::Int(ms)) => *ms,
                    _ => 0,
                };
                std::thread::sleep(Duration::from_millis(ms as u64));
                Ok(Out::Value(Value::Int(ms)))
            })
            .method("hang", "()", "v", move |_| {
                let deadline = Instant::now() + Duration::from_secs(60);
                while !r.load(Ordering::SeqCst) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(Out::Value(Value::None))
            })
            .build()
            .unwrap();
        let scheme = if tls.is_some() { "tcps" } else { "tcp" };
        let server = Server::standalone(ServerOptions {
            tls,
            ..ServerOptions::default()
        })
        .unwrap();
        server.register_service("Sleeper", object).unwrap();
        let url = server.listen(&format!("{scheme}://127.0.0.1:0")).unwrap();
        let target: SocketAddr = url
            .trim_start_matches(&format!("{scheme}://"))
            .parse()
            .unwrap();
        Fixture {
            server,
            proxy: Proxy::start(target, scheme),
            release,
        }
    }

    /// A session through the proxy, and a counter of its reconnections.
    fn session(&self, options: SessionOptions) -> (Session, Arc<AtomicUsize>) {
        let session = Session::connect_with(&self.proxy.url, options).unwrap();
        let reconnections = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&reconnections);
        session.on_reconnect(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
        });
        (session, reconnections)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.release.store(true, Ordering::SeqCst);
        self.server.stop();
    }
}

#[test]
fn defaults_bound_every_wait() {
    let o = SessionOptions::default();
    assert_eq!(o.call_timeout, Some(Duration::from_secs(3600)));
    let k = o.keepalive.unwrap();
    assert_eq!(k, Keepalive::default());
    assert_eq!(k.interval, Duration::from_secs(4));
    assert_eq!(k.timeout, Duration::from_secs(8));
    assert_eq!(k.tick(), Duration::from_millis(500));
    assert_eq!(k.detection_bound(), Duration::from_secs(13));
    assert!(quick().detection_bound() < Duration::from_secs(2));
}

#[test]
fn a_call_in_flight_fails_when_the_link_goes_silent() {
    let f = Fixture::start();
    let (session, _) = f.session(options());
    let sleeper = session.service("Sleeper").unwrap();
    let pending = sleeper.call_async("hang", &[]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(session.pending_calls(), 1);

    f.proxy.black_hole();
    let start = Instant::now();
    let result = pending.wait();
    let took = start.elapsed();
    match &result {
        Err(Error::Disconnected(why)) => assert!(why.contains("keep-alive"), "{why}"),
        other => panic!("expected Disconnected, got {other:?}"),
    }
    assert!(took < noticed_within(), "noticed after {took:?}");
    assert!(!session.is_connected());
    assert!(!sleeper.is_connected());
    assert_eq!(session.pending_calls(), 0);
    // While the link is down, calls fail at once.
    let start = Instant::now();
    assert!(matches!(
        sleeper.call("ping", &[Value::Int(1)]),
        Err(Error::Disconnected(_))
    ));
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[test]
fn an_idle_session_notices_a_silent_link_and_reconnects() {
    let f = Fixture::start();
    let (session, reconnections) = f.session(options());
    assert!(session.is_connected());
    let generation = session.generation();

    f.proxy.black_hole();
    let start = Instant::now();
    assert!(
        wait_until(noticed_within(), || !session.is_connected()),
        "still connected after {:?}",
        start.elapsed()
    );
    assert_eq!(reconnections.load(Ordering::SeqCst), 0);

    // The reconnection logic runs as for a closed socket: once the way is open, it succeeds.
    f.proxy.heal_new();
    assert!(wait_until(Duration::from_secs(15), || {
        reconnections.load(Ordering::SeqCst) == 1 && session.is_connected()
    }));
    assert!(session.generation() > generation);
    let sleeper = session.service("Sleeper").unwrap();
    assert_eq!(
        sleeper.call("ping", &[Value::Int(7)]).unwrap(),
        Value::Int(7)
    );
}

#[test]
fn a_healthy_idle_link_stays_up() {
    let f = Fixture::start();
    let (session, reconnections) = f.session(options());
    let sleeper = session.service("Sleeper").unwrap();
    let generation = session.generation();
    let (sent, received) = (f.proxy.to_server(), f.proxy.to_client());

    // Ten keep-alive intervals without a call.
    std::thread::sleep(Duration::from_secs(3));

    assert!(session.is_connected());
    assert!(sleeper.is_connected());
    assert_eq!(session.generation(), generation);
    assert_eq!(reconnections.load(Ordering::SeqCst), 0);
    // Probes went out and were answered: at least three 28-byte headers each way.
    assert!(f.proxy.to_server() >= sent + 3 * 28, "no probes sent");
    assert!(
        f.proxy.to_client() >= received + 3 * 28,
        "no probes answered"
    );
    assert_eq!(
        sleeper.call("ping", &[Value::Int(3)]).unwrap(),
        Value::Int(3)
    );
}

#[test]
fn a_call_longer_than_the_keepalive_interval_succeeds() {
    let f = Fixture::start();
    let (session, reconnections) = f.session(options());
    let sleeper = session.service("Sleeper").unwrap();
    let generation = session.generation();
    let sent = f.proxy.to_server();

    let start = Instant::now();
    let answer = sleeper.call("nap", &[Value::Int(3000)]);
    assert_eq!(answer.unwrap(), Value::Int(3000));
    assert!(start.elapsed() >= Duration::from_secs(3));

    assert!(session.is_connected());
    assert_eq!(session.generation(), generation);
    assert_eq!(reconnections.load(Ordering::SeqCst), 0);
    // Besides the call (32 bytes), probes went out while it ran.
    assert!(
        f.proxy.to_server() >= sent + 32 + 3 * 28,
        "no probes during the call"
    );
}

#[test]
fn a_call_that_times_out_is_forgotten() {
    let f = Fixture::start();
    let (session, _) = f.session(SessionOptions {
        call_timeout: Some(Duration::from_millis(300)),
        ..options()
    });
    let sleeper = session.service("Sleeper").unwrap();
    let result = sleeper.call("nap", &[Value::Int(2000)]);
    assert!(
        matches!(result, Err(Error::Timeout(t)) if t == Duration::from_millis(300)),
        "{result:?}"
    );
    assert_eq!(session.pending_calls(), 0);
    // A call dropped without waiting leaves nothing behind either.
    drop(sleeper.call_async("nap", &[Value::Int(10)]).unwrap());
    assert_eq!(session.pending_calls(), 0);
    assert_eq!(
        sleeper.call("ping", &[Value::Int(4)]).unwrap(),
        Value::Int(4)
    );
    assert!(session.is_connected());
}

#[test]
fn without_keepalive_a_silent_link_goes_unnoticed() {
    // The control experiment: the black hole really is silent.
    let f = Fixture::start();
    let (session, _) = f.session(SessionOptions {
        keepalive: None,
        ..options()
    });
    f.proxy.black_hole();
    std::thread::sleep(quick().detection_bound() * 2);
    assert!(session.is_connected());
}

#[test]
fn a_socket_to_another_process_is_probed_too() {
    // A second server registered into the first: its service is reached on a second
    // socket, probed through that service; idle for many intervals, it stays up.
    let f = Fixture::start();
    let (session, _) = f.session(options());
    let directory_url = f.server.endpoints().into_iter().next().unwrap();
    let far = Server::attached(&directory_url, ServerOptions::default(), options()).unwrap();
    far.listen("tcp://127.0.0.1:0").unwrap();
    far.register_service("Far", support::rust_service())
        .unwrap();
    let info = session.service_info("Far").unwrap();
    assert!(
        !info
            .endpoints
            .iter()
            .any(|e| e.starts_with("qi:ServiceDirectory")),
        "{info:?}"
    );
    let service = session.service("Far").unwrap();
    assert_eq!(
        service.call("ping", &[Value::Int(5)]).unwrap(),
        Value::Int(5)
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(service.is_connected());
    assert_eq!(
        service.call("ping", &[Value::Int(6)]).unwrap(),
        Value::Int(6)
    );
    far.stop();
}

#[test]
fn libqi_answers_the_probes() {
    let Some(py) = support::python("libqi_answers_the_probes") else {
        return;
    };
    let (_peer, url) = support::libqi_server(&py);
    let session = Session::connect_with(&url, options()).unwrap();
    let generation = session.generation();
    let test = session.service("ChoreoTest").unwrap();
    // Idle for many intervals: machineId probes to libqi's directory are answered.
    std::thread::sleep(Duration::from_secs(3));
    assert!(session.is_connected());
    assert_eq!(session.generation(), generation);
    // A call that never ends: the link stays up, the call times out (not Disconnected).
    let result = test
        .call_async("slow", &[])
        .unwrap()
        .wait_for(Some(Duration::from_secs(4)));
    assert!(matches!(result, Err(Error::Timeout(_))), "{result:?}");
    assert!(session.is_connected());
    assert_eq!(test.call("ping", &[Value::Int(9)]).unwrap(), Value::Int(9));
}

#[test]
fn a_libqi_provider_answers_the_probes() {
    // A libqi process serving a service on its own endpoint (a second socket for us),
    // registered into our directory: isStatsEnabled probes are answered.
    let Some(py) = support::python("a_libqi_provider_answers_the_probes") else {
        return;
    };
    let f = Fixture::start();
    let directory_url = f.server.endpoints().into_iter().next().unwrap();
    let (_peer, _) = support::Peer::start(
        &py,
        "libqi_provider.py",
        std::slice::from_ref(&directory_url),
        "READY",
    );
    let session = Session::connect_with(&directory_url, options()).unwrap();
    let provider = session.service("PyProvider").unwrap();
    let info = session.service_info("PyProvider").unwrap();
    assert!(
        !info
            .endpoints
            .iter()
            .any(|e| e == &directory_url || e == "qi:ServiceDirectory"),
        "{info:?}"
    );
    assert_eq!(
        provider.call("ping", &[Value::Int(5)]).unwrap(),
        Value::Int(5)
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(provider.is_connected());
    assert_eq!(
        provider.call("ping", &[Value::Int(6)]).unwrap(),
        Value::Int(6)
    );
}

#[test]
fn over_tls_probes_are_answered_and_a_silent_link_is_noticed() {
    let key =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let f = Fixture::serve(Some(ServerTls {
        certificate: Pem::Bytes(key.cert.pem().into_bytes()),
        key: Pem::Bytes(key.signing_key.serialize_pem().into_bytes()),
    }));
    assert!(f.proxy.url.starts_with("tcps://"));
    let (session, reconnections) = f.session(options());
    let sleeper = session.service("Sleeper").unwrap();
    let generation = session.generation();

    // Idle, then a call longer than the interval: the link stays up.
    std::thread::sleep(Duration::from_secs(3));
    assert!(session.is_connected());
    assert_eq!(
        sleeper.call("nap", &[Value::Int(2500)]).unwrap(),
        Value::Int(2500)
    );
    assert_eq!(session.generation(), generation);
    assert_eq!(reconnections.load(Ordering::SeqCst), 0);

    // Silence with a call in flight: noticed.
    let pending = sleeper.call_async("hang", &[]).unwrap();
    f.proxy.black_hole();
    let start = Instant::now();
    let result = pending.wait();
    assert!(matches!(result, Err(Error::Disconnected(_))), "{result:?}");
    assert!(
        start.elapsed() < noticed_within(),
        "noticed after {:?}",
        start.elapsed()
    );
    assert!(!session.is_connected());
}
