//! What the simulated robot shows, into a trace (trace.md): what it says, its LED colours
//! and its posture from its events ([`record`]), and, while a monitor's page watches, its
//! joints sampled every [`SAMPLE_EVERY`] whatever moves them ([`Sampler`]): a box's ALMotion
//! call, a posture, a nested behavior's timeline. Timeline frames are `joints`' own business.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use choreo_engine::Trace;
use choreo_engine::clock::Time;
use choreo_engine::trace::Step;
use choreo_naoqi::{RobotEvent, SimRobot};

/// How often a [`Sampler`] reads the joints (real time).
pub const SAMPLE_EVERY: Duration = Duration::from_millis(40);

/// A joint that moved less than this (radians) since the last sample is not sent again.
const STILL: f64 = 1e-4;

/// Records into `trace`, at `at`, what robot event `e` changed of what the robot shows:
/// `said`, `leds` (the colours the shown groups reach, read from `robot`) and `posture`.
pub fn record(trace: &Trace, robot: &SimRobot, at: Time, e: &RobotEvent) {
    let step = match e {
        RobotEvent::Said { text, duration } => Step::Said {
            text: text.clone(),
            seconds: *duration,
        },
        RobotEvent::LedsChanged { duration, .. } => {
            let seconds = duration.max(0.0);
            let end = Time(at.0.saturating_add((seconds * 1e9) as u64));
            let (groups, rgb) = robot.led_colours(end).into_iter().unzip();
            Step::Leds {
                groups,
                rgb,
                seconds,
            }
        }
        RobotEvent::PostureChanged { posture } => Step::Posture {
            name: posture.clone(),
        },
        // A fall is in every trace (the monitor shows it; a test can assert on it).
        RobotEvent::Fell { text, .. } => Step::Log {
            level: "warning".into(),
            message: text.clone(),
        },
        _ => return,
    };
    trace.record(at, "", step);
}

/// A fall's words with the timelines then playing and their frames: `NAO fell forwards at
/// 2.42 s: ... by 0.1 cm, while root/Lean played frame 61` (`frames`: box path, frame).
pub fn while_playing(text: &str, frames: &[(String, i64)]) -> String {
    let played: Vec<String> = frames
        .iter()
        .enumerate()
        .map(|(i, (path, frame))| {
            if i == 0 {
                format!("{path} played frame {frame}")
            } else {
                format!("{path} frame {frame}")
            }
        })
        .collect();
    match played.as_slice() {
        [] => text.to_string(),
        [one] => format!("{text}, while {one}"),
        [first @ .., last] => format!("{text}, while {} and {last}", first.join(", ")),
    }
}

/// Samples the simulated robot's joints into a trace every [`SAMPLE_EVERY`] on a thread of
/// its own, until dropped: every joint first (where the robot starts), then those that moved.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling `robot` into `trace`; `None` when no thread can be made (the page
    /// then shows the joints of timeline frames only).
    pub fn start(robot: SimRobot, trace: Trace) -> Option<Sampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("choreo-joints".into())
            .spawn(move || {
                let names: Vec<String> = robot
                    .model()
                    .joints()
                    .iter()
                    .map(|j| j.name.to_string())
                    .collect();
                // What each joint was last sent as.
                let mut last: Vec<Option<f64>> = vec![None; names.len()];
                while !stopped.load(Ordering::SeqCst) {
                    let (now, angles) = robot.joint_angles();
                    let (mut n, mut v) = (Vec::new(), Vec::new());
                    for ((name, a), sent) in names.iter().zip(&angles).zip(&mut last) {
                        if sent.is_none_or(|l| (l - a).abs() > STILL) {
                            *sent = Some(*a);
                            n.push(name.clone());
                            v.push(*a);
                        }
                    }
                    if !n.is_empty() {
                        trace.record(
                            now,
                            "",
                            Step::Joints {
                                names: n,
                                values: v,
                            },
                        );
                    }
                    std::thread::sleep(SAMPLE_EVERY);
                }
            })
            .ok()?;
        Some(Sampler {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
