//! A fleet for a program: one behavior loaded on several robots, each robot's run its own
//! [`Run`], their timelines started together through one [`FleetSync`]. What `choreo run
//! --robot A --robot B` does, without its live lines and report.

use std::sync::Arc;
use std::time::Duration;

use super::sync::FleetSync;
use crate::{Ending, Error, Result, Run, Setup, Target};

/// How long loading a fleet waits for every robot's delay to be measured: a robot that does
/// not answer by then is left to its run.
pub const MEASURED_WITHIN: Duration = Duration::from_secs(3);

/// The runs of one behavior on several robots, timelines started together. Dropping it
/// closes every run.
pub struct Fleet {
    sync: Arc<FleetSync>,
    runs: Vec<Arc<Run>>,
}

impl Fleet {
    /// Loads each of `setups` (one per robot, in order; [`Setup::robot_url`] names the
    /// robot) with the fleet's sync. A robot reached over qi is connected first, its delay
    /// then measured all along ([`FleetSync::follow`]); loading returns once every delay was
    /// measured (at most [`MEASURED_WITHIN`]). The first robot that cannot be reached or
    /// loaded ends it, and the runs loaded before it are closed.
    pub fn load(setups: Vec<Setup>) -> Result<Fleet> {
        let sync = FleetSync::new(setups.len());
        let mut runs = Vec::with_capacity(setups.len());
        for (i, mut setup) in setups.into_iter().enumerate() {
            if let Some(Target::Url { url, options }) = &setup.target {
                let remote =
                    choreo_qi::RemoteRobot::connect(url, options.clone()).map_err(|source| {
                        Error::Robot {
                            url: url.clone(),
                            source,
                        }
                    })?;
                setup.target = Some(Target::Remote(Arc::new(remote)));
            }
            if let Some(Target::Remote(remote)) = &setup.target {
                sync.follow(i, remote);
            }
            runs.push(Arc::new(setup.timeline_sync(sync.member(i)).load()?));
        }
        sync.wait_measured(MEASURED_WITHIN);
        Ok(Fleet { sync, runs })
    }

    /// Each robot's run, in the setups' order.
    pub fn runs(&self) -> &[Arc<Run>] {
        &self.runs
    }

    /// Starts the behavior on every robot, one after the other at once.
    pub fn start(&self) -> Result<()> {
        self.runs.iter().try_for_each(|r| r.start())
    }

    /// Waits at most `timeout` (real time) for every run's end ([`Run::wait_end`]), in the
    /// robots' order. A run that ends leaves the fleet's rendezvous at once: the others no
    /// longer wait for it.
    pub fn wait_end(&self, timeout: Duration) -> Result<Vec<Ending>> {
        std::thread::scope(|scope| {
            let waits: Vec<_> = self
                .runs
                .iter()
                .enumerate()
                .map(|(i, run)| {
                    let sync = &self.sync;
                    scope.spawn(move || {
                        let ending = run.wait_end(timeout);
                        if ending.is_ok() {
                            sync.leave(i);
                        }
                        ending
                    })
                })
                .collect();
            waits
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|_| {
                        Ok(Ending::Crashed {
                            message: "waiting for a robot's run panicked".to_string(),
                        })
                    })
                })
                .collect()
        })
    }

    /// (timeline starts released with every running robot, starts released without some).
    pub fn counts(&self) -> (u64, u64) {
        self.sync.counts()
    }

    /// The report's lines on the network and the starts ([`FleetSync::report`]).
    pub fn report(&self) -> Vec<String> {
        self.sync.report()
    }

    /// Closes every run ([`Run::close`]).
    pub fn close(&self) {
        for (i, run) in self.runs.iter().enumerate() {
            run.close();
            self.sync.leave(i);
        }
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.close();
    }
}
