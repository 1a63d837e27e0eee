//! choreo-base: what every layer shares and no layer owns.
//!
//! - [`value`]: the one dynamic value type (qi's AnyValue, NAOqi's ALValue): links, robot
//!   calls, Python and the qi codec all carry it.
//! - [`pool`]: worker threads for jobs that may block (box hooks, qi methods).
//! - [`slice`](mod@slice): the shortest time slice, for threads that hand turns to one another.
//! - [`sync`]: the poison-tolerant lock.
//! - [`path`]: where a path really is, its links followed.
//!
//! It depends on no other choreo crate. Its one unsafe call is `slice`'s `sched_setattr(2)`,
//! which no safe wrapper offers.

pub mod path;
pub mod pool;
pub mod slice;
pub mod sync;
pub mod value;

pub use sync::lock;
pub use value::Value;
