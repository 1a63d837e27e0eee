//! The box host: box code in a process of its own (docs/security.md, The box host).
//!
//! choreo's process keeps the engine, the robot, the trace and the report; the box host
//! runs the embedded CPython and nothing else — box scripts, the project's modules — and
//! is confined as a whole before its first line of box code: on Linux namespaces of its
//! own, the kernel's Landlock rules on every thread, a seccomp filter, hard limits, no
//! descriptor but its sockets and standard streams; everywhere the environment a robot's
//! box code sees (docs/platforms.md says what macOS and Windows lack).
//!
//! - `process`: [`BoxHost`], the process started, its control socket read, how it ended.
//! - `proxy`: the engine's `ScriptHost` and `BoxCode` across it, a lane per thread.
//! - `served`: the box host's side; `main`: its start and confinement.
//! - `stack`: the behavior stack's own Python behaviors in it; `stack_wire`: their bytes.
//! - `control`, `lane`, `message`, `request`, `wire`: the protocol and its bytes;
//!   `channel` (`channel_linux`, `channel_mux`): how its records and lanes travel on each
//!   platform; `frame`: a lane's frames.
//! - `walls` (`walls_linux`, `walls_other`): what confines the box host's process on each
//!   platform.
//! - `executable`: which program is started as the box host.

// How records and lanes travel: Linux's sockets and pipes; elsewhere the standard streams
// (the mux, which Linux may use too: `channel`).
mod channel;
#[cfg(target_os = "linux")]
mod channel_either;
#[cfg(target_os = "linux")]
mod channel_linux;
mod channel_mux;
mod control;
mod executable;
mod frame;
mod lane;
mod main;
mod message;
mod process;
mod proxy;
mod request;
mod served;
mod stack;
mod stack_wire;
// What confines the box host's process: Linux's namespaces, seccomp and Landlock; elsewhere
// what the platform has.
mod walls;
#[cfg(target_os = "linux")]
mod walls_linux;
#[cfg(not(target_os = "linux"))]
mod walls_other;
mod wire;

pub use executable::{BOX_HOST_VARIABLE, Executable, NoExecutable};
pub use main::{serve_box_host, serve_box_host_here};
pub use message::VERSION;
pub use process::{Ahead, BoxHost, Ended, QUIET, STRETCH, StartError};
pub use proxy::{OrderError, RemoteHost};
