//! The box host: box code in a process of its own (docs/security.md, The box host).
//!
//! choreo's process keeps the engine, the robot, the trace and the report; the box host
//! runs the embedded CPython and nothing else — box scripts, the project's modules — and
//! is confined as a whole before its first line of box code: namespaces of its own, the
//! kernel's Landlock rules on every thread, a seccomp filter, hard limits, no descriptor but
//! its sockets and standard streams, and the environment a robot's box code sees.
//!
//! - `process`: [`BoxHost`], the process started, its control socket read, how it ended.
//! - `proxy`: the engine's `ScriptHost` and `BoxCode` across it, a lane per thread.
//! - `served`: the box host's side; `main`: its start and confinement.
//! - `stack`: the behavior stack's own Python behaviors in it; `stack_wire`: their bytes.
//! - `control`, `lane`, `message`, `request`, `wire`: the protocol and its bytes.
//! - `executable`: which program is started as the box host.

mod control;
mod executable;
mod lane;
mod main;
mod message;
mod process;
mod proxy;
mod request;
mod served;
mod stack;
mod stack_wire;
mod wire;

pub use executable::{BOX_HOST_VARIABLE, Executable, NoExecutable};
pub use main::{serve_box_host, serve_box_host_here};
pub use message::VERSION;
pub use process::{Ahead, BoxHost, Ended, QUIET, STRETCH, StartError};
pub use proxy::{OrderError, RemoteHost};
