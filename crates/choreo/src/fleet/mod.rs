//! A fleet's shared frame clock: the timelines of one behavior running on several robots
//! start together.
//!
//! Each robot's run asks [`FleetSync`] before a timeline starts playing (the engine's
//! [`TimelineSync`](choreo_engine::engine::sync::TimelineSync)). The n-th start of the timeline at one box path is a rendezvous of every
//! robot still running: when the last one arrives, all are told to start at the same
//! instant, the next tick of a frame grid counted from the fleet's start (at the timeline's
//! frame rate) at least [`MARGIN`] away, so that every engine has the time to schedule it.
//! Robots that ran ahead wait for the late ones (a robot that took longer to stand up does
//! not dance a bar behind); a robot that ended or was lost is no longer waited for; and no
//! robot waits more than [`MAX_WAIT`] for the others (a robot whose behavior took another
//! path never arrives): those arrived start then, a later arrival starts at once.
//!
//! **Robots far away.** Each robot's one-way delay is measured all along on the connection it
//! already has ([`FleetSync::probe`]: a `ServiceDirectory.machineId()` round trip every
//! [`PROBE_EVERY`], half the median of the last [`PROBE_KEPT`]), and each robot is told to
//! start its timeline that much earlier, the common instant pushed back by the largest
//! delay: the orders then reach every robot at the same instant, a robot 100 ms away no
//! later than one next door (up to the network's jitter, which nothing sent in advance can
//! undo). A timeline's first order starts from the robot's angles, read as soon as the
//! rendezvous is released: the common instant leaves every robot the time of its slowest
//! recent round trip for it. A delay that changes is followed within a few probes, also
//! while a timeline plays: its frames (and the orders its boxes send) move by the change
//! ([`TimelineSync::lead`](choreo_engine::engine::sync::TimelineSync::lead)).
//!
//! Where the robot has a DCM (every NAO and Pepper), the fleet also asks `DCM.getTime(0)`,
//! the robot's own clock in ms, so that each robot's clock offset against the fleet's is
//! known too: the robot's time less the fleet's at the round trip's middle, from the
//! quickest of the recent round trips (within half of it). A round trip of its own, every
//! [`CLOCK_EVERY`] on another thread: a module call may wait behind the robot's own work,
//! which must not hold up or count in the delay (`machineId()` is answered by the robot's
//! service directory at once). The report gives each robot's delay, its jitter (half the
//! spread of its recent round trips) and its clock, and how far apart the timelines started:
//! each robot's start frame played ([`TimelineSync::played`](choreo_engine::engine::sync::TimelineSync::played)) plus its delay, the instant its
//! first orders reach it, up to the network's jitter, which only the robot could see.
//!
//! Why a rendezvous and not only a common start: on real robots the same box takes a
//! different time on each (a `wakeUp`, a speech, the network), so timelines started "when
//! the behavior gets there" drift apart by seconds; motion orders are sent when a timeline
//! starts, so starting the timelines together is what keeps the dance together.

mod runs;
mod sync;

pub use runs::{Fleet, MEASURED_WITHIN};
pub use sync::{CLOCK_EVERY, FleetSync, MARGIN, MAX_WAIT, PROBE_EVERY, PROBE_KEPT};
