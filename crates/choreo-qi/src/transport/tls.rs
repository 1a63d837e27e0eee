//! TLS for `tcps://` URLs (qi-protocol.md §1; NAOqi 2.9 serves `tcps://<robot>:9503` with
//! user/token authentication), with rustls and the *ring* crypto provider.
//!
//! **Client: what is checked.** Robots present self-signed certificates, and libqi's own
//! client does not verify the server's certificate for `tcps` at all (OpenSSL's
//! `verify_none`; only its mutual-TLS scheme `tcpsm` verifies). [`TlsVerify::AcceptAny`], the
//! default, does the same so that `tcps://robot:9503` just works: the link is encrypted, but
//! an active man-in-the-middle could pose as the robot and read the user/token sent to it.
//! The handshake's signatures are still checked, so the peer holds the key of the
//! certificate it shows. To authenticate the robot:
//!
//! - [`TlsVerify::Pinned`]: accept only certificates with these SHA-256 fingerprints (the
//!   robot's self-signed certificate; [`crate::Session::peer_certificate`] tells the
//!   fingerprint seen, `openssl x509 -noout -fingerprint -sha256` prints the same form);
//! - [`TlsVerify::Roots`]: verify the chain against these CA certificates and the URL's host
//!   name (or IP address), as a browser would.
//!
//! **Server** ([`crate::Server::listen`] with `tcps://`): the certificate chain and private
//! key come from [`ServerTls`] (PEM files or bytes); TLS 1.2 (what libqi speaks) and 1.3 are
//! offered; clients are not asked for certificates.
//!
//! **Threads.** A TLS link keeps the design of plain ones (a reader thread per socket,
//! callers write their own frames): the rustls connection state sits behind a mutex taken
//! only to encrypt or decrypt, never across a blocking socket call. The reader reads the raw
//! socket unlocked, then decrypts under the lock; a writer encrypts under the lock and
//! writes the ciphertext unlocked, holding the outbox's single writer role so records reach
//! the socket in the order they were sealed (see `socket`).

use std::fmt;
use std::io;
use std::net::TcpStream;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, ServerConfig, SignatureScheme};

use crate::error::{Error, Result};

/// PEM data: a file to read, or the bytes themselves.
#[derive(Clone, PartialEq, Eq)]
pub enum Pem {
    /// A PEM file.
    File(PathBuf),
    /// PEM text.
    Bytes(Vec<u8>),
}

impl fmt::Debug for Pem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Never print the bytes: they may hold a private key.
            Pem::File(p) => write!(f, "Pem::File({})", p.display()),
            Pem::Bytes(b) => write!(f, "Pem::Bytes({} bytes)", b.len()),
        }
    }
}

impl Pem {
    fn bytes(&self) -> Result<Vec<u8>> {
        match self {
            Pem::File(path) => std::fs::read(path)
                .map_err(|e| Error::Tls(format!("cannot read {}: {e}", path.display()))),
            Pem::Bytes(b) => Ok(b.clone()),
        }
    }

    fn name(&self) -> String {
        match self {
            Pem::File(path) => path.display().to_string(),
            Pem::Bytes(_) => "the PEM bytes".to_string(),
        }
    }

    fn certificates(&self) -> Result<Vec<CertificateDer<'static>>> {
        let bytes = self.bytes()?;
        let certs = CertificateDer::pem_slice_iter(&bytes)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::Tls(format!("{}: {e}", self.name())))?;
        if certs.is_empty() {
            return Err(Error::Tls(format!("{}: no certificate", self.name())));
        }
        Ok(certs)
    }

    fn private_key(&self) -> Result<PrivateKeyDer<'static>> {
        let bytes = self.bytes()?;
        PrivateKeyDer::from_pem_slice(&bytes)
            .map_err(|e| Error::Tls(format!("{}: no usable private key ({e})", self.name())))
    }
}

/// The SHA-256 fingerprint of a certificate (of its DER bytes), written as 32 colon-separated
/// hex pairs like `openssl x509 -fingerprint -sha256` does. Parsing accepts upper or lower
/// case, with or without colons.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of(der: &[u8]) -> Fingerprint {
        let digest = ring::digest::digest(&ring::digest::SHA256, der);
        let mut out = [0u8; 32];
        out.copy_from_slice(digest.as_ref());
        Fingerprint(out)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{b:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

impl FromStr for Fingerprint {
    type Err = Error;

    fn from_str(s: &str) -> Result<Fingerprint> {
        let bad = || {
            Error::Tls(format!(
                "{s:?} is not a SHA-256 fingerprint (64 hex digits, colons allowed)"
            ))
        };
        let digits: Vec<u8> = s
            .trim()
            .bytes()
            .filter(|c| *c != b':')
            .map(|c| match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                b'A'..=b'F' => Some(c - b'A' + 10),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        if digits.len() != 64 {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (o, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
            *o = (pair[0] << 4) | pair[1];
        }
        Ok(Fingerprint(out))
    }
}

/// How a `tcps://` client checks the server's certificate (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TlsVerify {
    /// Any certificate, as libqi does for `tcps` (robots use self-signed certificates): the
    /// link is encrypted but the server is not authenticated.
    #[default]
    AcceptAny,
    /// Only certificates with one of these SHA-256 fingerprints (pin the robot's
    /// self-signed certificate).
    Pinned(Vec<Fingerprint>),
    /// Certificates chaining to one of these CA certificates and valid for the URL's host.
    Roots(Pem),
}

/// A `tcps://` server's identity: its certificate chain (leaf first) and private key (PKCS#8,
/// PKCS#1 or SEC1), in PEM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTls {
    /// The certificate chain.
    pub certificate: Pem,
    /// The private key.
    pub key: Pem,
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn tls_error(e: impl fmt::Display) -> Error {
    Error::Tls(e.to_string())
}

/// How long a server waits for a client's TLS handshake.
pub(crate) const SERVER_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds a server configuration (certificate and key loaded now, so errors show at listen).
pub(crate) fn server_config(tls: &ServerTls) -> Result<Arc<ServerConfig>> {
    let certs = tls.certificate.certificates()?;
    let key = tls.key.private_key()?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            Error::Tls(format!(
                "certificate {} and key {}: {e}",
                tls.certificate.name(),
                tls.key.name()
            ))
        })?;
    // No session tickets: nothing to send after the handshake, and clients reconnect rarely.
    config.send_tls13_tickets = 0;
    Ok(Arc::new(config))
}

/// Accepts a client's TLS handshake on `stream` (bounded by [`SERVER_HANDSHAKE_TIMEOUT`]).
pub(crate) fn accept(stream: &TcpStream, config: Arc<ServerConfig>) -> Result<rustls::Connection> {
    let mut conn = rustls::ServerConnection::new(config).map_err(tls_error)?;
    stream.set_read_timeout(Some(SERVER_HANDSHAKE_TIMEOUT))?;
    let mut io = stream;
    while conn.is_handshaking() {
        conn.complete_io(&mut io).map_err(|e| handshake_error(&e))?;
    }
    stream.set_read_timeout(None)?;
    conn.set_buffer_limit(None);
    Ok(rustls::Connection::Server(conn))
}

fn handshake_error(e: &io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            Error::Tls("TLS handshake timed out".into())
        }
        io::ErrorKind::UnexpectedEof => {
            Error::Tls("TLS handshake failed: the peer closed the connection".into())
        }
        _ => Error::Tls(format!("TLS handshake failed: {e}")),
    }
}

/// A finished client handshake: the connection and the fingerprint of the server's
/// certificate.
pub(crate) struct ClientHandshake {
    pub conn: rustls::Connection,
    pub peer: Option<Fingerprint>,
}

/// Connects TLS over `stream` to `host` (a name or an IP address, for SNI and
/// [`TlsVerify::Roots`]); the caller bounds the handshake with a read timeout.
pub(crate) fn connect(
    stream: &TcpStream,
    host: &str,
    verify: &TlsVerify,
) -> Result<ClientHandshake> {
    let provider = provider();
    let algorithms = provider.signature_verification_algorithms;
    let rejected = Arc::new(Mutex::new(None));
    let verifier: Arc<dyn ServerCertVerifier> = match verify {
        TlsVerify::AcceptAny => Arc::new(Verifier {
            pins: None,
            algorithms,
            rejected: Arc::clone(&rejected),
        }),
        TlsVerify::Pinned(pins) => Arc::new(Verifier {
            pins: Some(pins.clone()),
            algorithms,
            rejected: Arc::clone(&rejected),
        }),
        TlsVerify::Roots(pem) => {
            let mut roots = RootCertStore::empty();
            for cert in pem.certificates()? {
                roots
                    .add(cert)
                    .map_err(|e| Error::Tls(format!("{}: {e}", pem.name())))?;
            }
            rustls::client::WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots),
                Arc::clone(&provider),
            )
            .build()
            .map_err(tls_error)?
        }
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let name = server_name(host)?;
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).map_err(tls_error)?;
    let mut io = stream;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut io) {
            if let Some(fp) = *choreo_base::lock(&rejected) {
                return Err(Error::Authentication(format!(
                    "the server's certificate (SHA-256 {fp}) is not among the pinned ones"
                )));
            }
            if let Some(rustls::Error::InvalidCertificate(why)) = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            {
                return Err(Error::Authentication(format!(
                    "the server's certificate is not trusted: {why:?}"
                )));
            }
            return Err(handshake_error(&e));
        }
    }
    conn.set_buffer_limit(None);
    let peer = conn
        .peer_certificates()
        .and_then(|c| c.first())
        .map(|c| Fingerprint::of(c));
    Ok(ClientHandshake {
        conn: rustls::Connection::Client(conn),
        peer,
    })
}

/// The TLS server name of `host`: an IP address (brackets allowed) or a DNS name.
fn server_name(host: &str) -> Result<ServerName<'static>> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        return Ok(ServerName::IpAddress(ip.into()));
    }
    ServerName::try_from(bare.to_string())
        .map_err(|_| Error::Tls(format!("{host:?} is not a valid TLS server name")))
}

/// Accepts any certificate, or only pinned ones; always checks the handshake signatures.
#[derive(Debug)]
struct Verifier {
    pins: Option<Vec<Fingerprint>>,
    algorithms: WebPkiSupportedAlgorithms,
    /// The fingerprint of a certificate refused for not being pinned.
    rejected: Arc<Mutex<Option<Fingerprint>>>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(pins) = &self.pins else {
            return Ok(ServerCertVerified::assertion());
        };
        let seen = Fingerprint::of(end_entity);
        if pins.contains(&seen) {
            return Ok(ServerCertVerified::assertion());
        }
        *choreo_base::lock(&self.rejected) = Some(seen);
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::ApplicationVerificationFailure,
        ))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_print_and_parse() {
        let fp = Fingerprint::of(b"abc");
        let text = fp.to_string();
        assert_eq!(
            text,
            "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD"
        );
        assert_eq!(text.parse::<Fingerprint>().ok(), Some(fp));
        assert_eq!(
            text.replace(':', "")
                .to_lowercase()
                .parse::<Fingerprint>()
                .ok(),
            Some(fp)
        );
        assert!("AB:CD".parse::<Fingerprint>().is_err());
        assert!(text.replace('B', "G").parse::<Fingerprint>().is_err());
    }

    #[test]
    fn server_names() {
        assert!(matches!(
            server_name("127.0.0.1"),
            Ok(ServerName::IpAddress(_))
        ));
        assert!(matches!(server_name("[::1]"), Ok(ServerName::IpAddress(_))));
        assert!(matches!(
            server_name("pepper.local"),
            Ok(ServerName::DnsName(_))
        ));
        assert!(server_name("bad name").is_err());
    }

    #[test]
    fn bad_pem_is_reported() {
        let tls = ServerTls {
            certificate: Pem::Bytes(b"not a certificate".to_vec()),
            key: Pem::Bytes(Vec::new()),
        };
        assert!(matches!(server_config(&tls), Err(Error::Tls(t)) if t.contains("no certificate")));
        let missing = ServerTls {
            certificate: Pem::File("/nonexistent/cert.pem".into()),
            key: Pem::File("/nonexistent/key.pem".into()),
        };
        assert!(
            matches!(server_config(&missing), Err(Error::Tls(t)) if t.contains("/nonexistent/cert.pem"))
        );
    }
}
