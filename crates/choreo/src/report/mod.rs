//! The report of a run, as `choreo run` prints it and a Rust or Python caller can make it:
//! what the trace showed while the behavior ran ([`Tally`]: boxes run, robot calls, errors
//! box code raised or logged, summarized from their tracebacks as [`Failure`]s), the report's
//! text ([`Report::text`]), repeated lines folded so that a person can read a run
//! ([`fold`]), the lines shown while it runs ([`live`]), and the report of a run box code
//! ended ([`abnormal`]); a run's trace watched for all of it ([`Watch`]).

mod abnormal;
mod failure;
pub mod fold;
pub mod live;
mod summary;
mod tally;
mod watch;

pub use abnormal::abnormal;
pub use failure::{Failure, Logged, logged_error, summarize};
pub use summary::Report;
pub use tally::Tally;
pub use watch::{Watch, show_box_event};
