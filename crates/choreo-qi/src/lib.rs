//! choreo-qi: qi messaging, the binary protocol NAOqi robots speak (libqi), in Rust.
//!
//! The wire format follows docs/qi-protocol.md (checked against libqi 4.0.3).
//!
//! - [`header`]: the 28-byte header, message types and flags; [`message`]: framing and ids.
//! - [`signature`]: type signatures; [`value`]: the binary codec between signatures and the
//!   engine's [`choreo_base::Value`]; [`metaobject`]: MetaObjects and object references.
//! - [`capability`]: capabilities and authentication; [`generation`]: what each NAOqi
//!   release's libqi says on the wire (2.1, 2.5, 2.8, 2.9); [`directory`]: the ServiceDirectory's
//!   API and `ServiceInfo`.
//! - [`session`]: the client ([`Session`], [`RemoteObject`]) over `tcp://` or `tcps://`;
//!   [`tls`]: TLS for `tcps://` (certificate checks, server identities).
//! - [`server`]: a server hosting services written in Rust ([`Server`]), standalone with its
//!   own ServiceDirectory or registered into another one; [`object`]: the objects it serves
//!   ([`ObjectBuilder`], [`ServedObject`]).
//! - [`Arg`]: objects a client passes as arguments, which the peer calls back over the
//!   client's socket; [`file`](mod@file): libqicore's `qi::File` served from memory ([`FileObject`]).
//! - [`robot`]: [`RemoteRobot`] (a robot over qi for the engine) and [`serve_robot`] (any
//!   [`choreo_engine::Robot`] served as NAOqi modules); [`naoqi`]: the module catalogue.

mod arg;
pub mod capability;
pub mod delay;
pub mod directory;
mod dispatch;
pub mod error;
pub mod file;
pub mod generation;
pub mod header;
pub mod message;
pub mod metaobject;
pub mod naoqi;
pub mod object;
mod peer;
mod reactor;
mod reader;
pub mod robot;
pub mod server;
pub mod session;
pub mod signature;
mod socket;
pub mod tls;
pub mod value;

pub use arg::Arg;
pub use delay::{Latency, LatencyChange, LatencyError, LatencyProblem};
pub use error::{Error, Result};
pub use file::{FileObject, Progress, TransferStatus};
pub use generation::Generation;
pub use metaobject::{MetaObject, ObjectRef};
pub use object::{Caller, MethodError, ObjectBuilder, Out, ServedObject};
pub use robot::{CallLog, CallReport, DEFAULT_LISTEN, RemoteRobot, RobotServer, serve_robot};
pub use server::{Server, ServerEvent, ServerLog, ServerOptions};
pub use session::{PendingCall, RemoteObject, Session, SessionOptions, SignalLink};
pub use signature::Signature;
pub use tls::{Fingerprint, Pem, ServerTls, TlsVerify};
