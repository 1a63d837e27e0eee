//! choreo-base: what every layer shares and no layer owns.
//!
//! - [`value`]: the one dynamic value type (qi's AnyValue, NAOqi's ALValue): links, robot
//!   calls, Python and the qi codec all carry it.
//! - [`pool`]: worker threads for jobs that may block (box hooks, qi methods).
//! - [`join`]: the threads an object waits for at its end (a qi server's, a session's).
//! - [`slice`](mod@slice): the shortest time slice, for threads that hand turns to one another.
//! - [`sync`]: the poison-tolerant lock.
//! - [`path`]: where a path really is, its links followed.
//! - [`thread`]: the operating system's side of a thread (its id, asleep or not, how
//!   punctually it wakes), each platform's means in one place.
//!
//! It depends on no other choreo crate. Its unsafe calls are the system calls no safe
//! wrapper offers: `slice`'s `sched_setattr(2)`, `thread`'s macOS and Windows ids.

pub mod join;
pub mod path;
pub mod pool;
pub mod slice;
pub mod sync;
pub mod thread;
pub mod value;

pub use sync::lock;
pub use value::Value;
