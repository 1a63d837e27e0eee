//! choreo-qi: qi messaging, the binary protocol NAOqi robots speak (libqi), in Rust.
//!
//! The wire format follows docs/qi-protocol.md (checked against libqi 4.0.3). Four layers,
//! each a folder:
//!
//! - [`codec`]: what goes on the wire: the 28-byte header and message framing, type
//!   signatures, the binary codec between signatures and [`choreo_base::Value`],
//!   MetaObjects and object references.
//! - [`transport`]: connections: sockets, the server's reactor, TLS for `tcps://`, the
//!   handshake (capabilities, authentication), what each NAOqi release's libqi says on the
//!   wire (2.1, 2.5, 2.8, 2.9), a link's simulated latency.
//! - [`session`]: the client ([`Session`], [`RemoteObject`]) over `tcp://` or `tcps://`, and
//!   the objects it passes as arguments ([`Arg`]), which the peer calls back.
//! - [`server`]: a server hosting services written in Rust ([`Server`]), standalone with its
//!   own ServiceDirectory or registered into another one; the objects it serves
//!   ([`ObjectBuilder`], [`ServedObject`]), their dispatcher, libqicore's `qi::File` served
//!   from memory ([`FileObject`]).
//!
//! Beside them: [`robot`]: [`RemoteRobot`] (a robot over qi for the engine) and
//! [`serve_robot`] (any [`choreo_engine::Robot`] served as NAOqi modules); [`naoqi`]: the
//! module catalogue; [`error`].

pub mod codec;
pub mod error;
pub mod naoqi;
pub mod robot;
pub mod server;
pub mod session;
pub mod transport;

pub use codec::metaobject::{MetaObject, ObjectRef};
pub use codec::signature::Signature;
pub use error::{Error, Result};
pub use robot::{CallLog, CallReport, DEFAULT_LISTEN, RemoteRobot, RobotServer, serve_robot};
pub use server::file::{FileObject, Progress, TransferStatus};
pub use server::object::{Caller, MethodError, ObjectBuilder, Out, ServedObject};
pub use server::{Server, ServerEvent, ServerLog, ServerOptions};
pub use session::arg::Arg;
pub use session::{PendingCall, RemoteObject, Session, SessionOptions, SignalLink};
pub use transport::delay::{Latency, LatencyChange, LatencyError, LatencyProblem};
pub use transport::generation::Generation;
pub use transport::tls::{Fingerprint, Pem, ServerTls, TlsVerify};
