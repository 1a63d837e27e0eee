//! How a session connects and behaves: credentials, timeouts, the keep-alive of its
//! sockets, reconnection, TLS checks and the protocol generation it speaks.

use std::time::Duration;

use crate::codec::header::DEFAULT_MAX_PAYLOAD;
use crate::transport::generation::Generation;
use crate::transport::tls::TlsVerify;

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
    /// [`Error::Disconnected`](crate::Error::Disconnected) meanwhile).
    pub reconnect: bool,
    /// First delay between reconnection attempts; doubles up to `max_backoff`.
    pub min_backoff: Duration,
    /// Longest delay between reconnection attempts.
    pub max_backoff: Duration,
    /// How `tcps://` links check the server's certificate (default: accept any, as libqi
    /// does; see [`crate::transport::tls`]).
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
