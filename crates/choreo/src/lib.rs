//! choreo as a library: run Choregraphe behaviors (NAO, Pepper) from Rust.
//!
//! Open any input choreo reads ([`Project::open`]: a `.xar`, a behavior or project folder,
//! a `.pml`, a `.crg`/`.cbl`/`.pkg` archive, a split folder), set up a run of one of its
//! behaviors ([`Setup`]: the robot, the clock, a time limit, parameters), load it
//! ([`Setup::load`]) and drive the [`Run`]: start and stop it, stimulate any box's input,
//! observe every trace event or a box's outputs, read and set parameters, play, pause and
//! move timelines, read what the simulated robot did (joints, LEDs, what it said, ALMemory)
//! and wait for the end with a timeout. Errors are [`Error`]s that name the file, the box or
//! the robot. The `choreo` command runs behaviors through this API.
//!
//! ```
//! use std::time::Duration;
//! use choreo::{Clock, Ending, Project};
//!
//! # fn main() -> Result<(), choreo::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/hello");
//! // examples/hello: Wake Up, then Say Hello, then Nod.
//! let project = Project::open(path)?;
//! let run = project
//!     .behavior(None)?                      // the first behavior
//!     .clock(Clock::Virtual)                // as fast as the machine goes
//!     .param("Say Hello", "Text", "Hi from Rust!")
//!     .load()?;                             // on a simulated NAO
//! let events = run.events();                // every trace event from now on
//! run.start()?;
//! assert_eq!(run.wait_end(Duration::from_secs(30))?, Ending::Finished);
//! assert_eq!(run.said()?, ["Hi from Rust!"]);
//! assert_eq!(run.robot_state()?.posture, "StandInit");
//! let outputs = events
//!     .filter(|e| matches!(&e.step, choreo::Step::Out { port, .. } if port == "onStopped"))
//!     .count();
//! assert_eq!(outputs, 4); // three boxes and the behavior
//! # Ok(())
//! # }
//! ```
//!
//! A behavior that waits for the world (examples/interactive asks for a head touch): the
//! world answered by stimulating a box's input, and its output observed:
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use std::time::Duration;
//! use choreo::{Clock, Ending, Outcome, Setup};
//!
//! # fn main() -> Result<(), choreo::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/interactive");
//! let run = Setup::open(path)?.clock(Clock::Virtual).load()?;
//! let answered = Arc::new(Mutex::new(0));
//! let seen = Arc::clone(&answered);
//! run.on_output("Answer", "onStopped", move |_| *seen.lock().unwrap() += 1)?;
//! run.start()?;
//! assert_eq!(run.wait(Duration::from_secs(30))?, Outcome::Idle); // it waits
//! assert_eq!(run.awaited(), ["FrontTactilTouched"]);
//! run.stimulate("Answer", "touched", 1.0)?; // what the head touch would do
//! assert_eq!(run.wait_end(Duration::from_secs(30))?, Ending::Finished);
//! assert_eq!(*answered.lock().unwrap(), 1);
//! run.close();
//! assert!(matches!(run.start(), Err(choreo::Error::Closed)));
//! # Ok(())
//! # }
//! ```
//!
//! The crate also holds the `choreo` command itself ([`cli::main`]), and the parts the
//! command, the Python package and the tests share: the project's behaviors as
//! ALBehaviorManager runs them and the script host ([`nested`]), the robot's model and
//! language a project implies ([`implied`]), what the simulated robot shows, recorded into a
//! trace ([`looks`]), a manifest's services run as ServiceManager runs them
//! ([`package_services`]), a fleet's shared frame clock ([`fleet`]), the check of files
//! without running them ([`check`]) and the exit codes ([`exit`]).

mod api;
pub mod chat;
pub mod check;
pub mod cli;
pub mod convert_output;
mod ended;
pub mod exit;
pub mod explore;
pub mod export_python;
pub mod fleet;
pub mod implied;
pub mod inspect;
pub mod joints;
pub mod looks;
pub mod monitored;
pub mod motion_csv;
pub mod nested;
pub mod package_services;
pub mod play;
pub mod plot;
pub mod report;
pub mod robot_install;
pub mod robot_query;
pub mod served;
pub mod stack_driver;
pub mod trace_file;

pub use api::*;
pub use choreo_engine::trace::{Event, ListenerId, Step};
pub use choreo_engine::{Outcome, Trace, Value};
pub use choreo_naoqi::{RobotEvent, Scenario, SimRobot, Snapshot};
pub use choreo_robot::Model;
