//! One path: the behavior run from its start in virtual time with the path's inputs as a
//! scenario, and what the run showed — its trace, where it waited and for what, what went
//! wrong. Replayed from the start every time (docs/explore.md says why not from a snapshot).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::trace::{Event, Step as TraceStep};
use choreo_naoqi::{DialogCoverage, Heard, Listening, SimRobot};

use super::inputs::{Drawn, Input, Step, WAIT_SECONDS, scenario};
use super::why::Leads;
use crate::{Clock, Ending, Setup};

/// How long after the robot starts listening a person acts: long enough for what the
/// behavior does at that instant (a `say` posted, a subscription beside) to be done, short
/// enough to come before a choice's timeout (the stock Choice box waits 6 s).
pub const REPLY_SECONDS: f64 = 0.5;

/// The longest a path's run may take in real time before it is given up (a behavior that
/// never ends in virtual time is stopped by its time limit long before).
const REAL_TIME_BOUND: Duration = Duration::from_secs(300);

/// A point where the behavior waited: what it listened for, from when.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wait {
    /// When it began to listen for this, in seconds of behavior time.
    pub time: f64,
    /// What it listened for.
    pub listening: Listening,
    /// The last thing the robot said before.
    pub said: Option<String>,
    /// The boxes under way when a person acts ([`REPLY_SECONDS`] after it began): an input
    /// stimulated and no output since, as the run report's "waiting for" (two boxes that
    /// listen for the same keys are two states).
    pub running: BTreeSet<String>,
}

/// Something that went wrong on a path.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Finding {
    /// `error` (box code raised), `refused` (the sandbox refused), `fall` (the robot fell),
    /// `ended` (box code's process ended, the run crashed or lost its robot).
    pub kind: String,
    /// The box, when one is to blame.
    pub path: String,
    /// What was said of it (an error's first line).
    pub text: String,
}

/// What one path's run showed: all the search needs of it, as data (a path run by another
/// process or machine sends it back as JSON: [`super::explore_with`]).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Ran {
    /// Whether it reached its horizon still doing something (not idle, not ended): time
    /// passing may show more.
    pub busy: bool,
    /// Every box constructed (the boxes its diagrams loaded).
    pub loaded: BTreeSet<String>,
    /// Every box one of whose inputs was stimulated.
    pub entered: BTreeSet<String>,
    /// The points after the path's last input where it waited, each once the behavior
    /// listened for it long enough for a person to act.
    pub waits: Vec<Wait>,
    /// What went wrong.
    pub findings: BTreeSet<Finding>,
    /// The dialog's rules, and those that answered.
    pub dialog: DialogCoverage,
    /// Behavior time at the end, in seconds.
    pub time: f64,
    /// The ways into each box of the behavior, to tell why one was never entered.
    pub leads: Leads,
    /// Box code's draws by chance, in order ([`super::inputs::other_draws`]).
    #[serde(default)]
    pub draws: Vec<Drawn>,
    /// When box code first asked the robot's posture ([`super::inputs::other_postures`]).
    #[serde(default)]
    pub posture_read: Option<f64>,
    /// When box code first analyzed a face ([`super::inputs::other_faces`]).
    pub face_read: Option<f64>,
}

/// Runs `setup`'s behavior with `steps`, for at most `horizon` of behavior time after the
/// last of them ([`WAIT_SECONDS`] after a wait).
pub fn run(setup: &Setup, steps: &[Step], horizon: Duration) -> crate::Result<Ran> {
    let limit = match steps.last() {
        Some(Step {
            at,
            input: Input::Wait,
        }) => Duration::from_secs_f64(at + WAIT_SECONDS),
        Some(last) => Duration::from_secs_f64(last.at) + horizon,
        None => horizon,
    };
    // Listened to from before the load, whose constructions are events too.
    let trace = crate::Trace::unkept(None);
    let events: Arc<Mutex<Vec<Event>>> = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&events);
    trace.add_listener(Arc::new(move |e: &Event| {
        choreo_base::lock(&kept).push(e.clone());
    }));
    let run = setup
        .clone()
        .scenario(scenario(steps, "explore"))
        .clock(Clock::Virtual)
        .time_limit(limit)
        .trace(trace)
        .load()?;
    let leads = Leads::of(run.engine().graph());
    let sim = run.simulated_robot().cloned();
    if let Some(sim) = &sim {
        sim.log_listening();
    }
    run.start()?;
    // The log as the run left it, before the unload unsubscribes everything: an idle run
    // or one at its limit stays loaded until stopped (as `wait_end` would stop it).
    let outcome = run.wait(REAL_TIME_BOUND)?;
    let log = sim
        .as_ref()
        .map(SimRobot::listening_log)
        .unwrap_or_default();
    let at_end = sim.as_ref().map(SimRobot::listening);
    let time = run.now().as_secs_f64();
    let ending = match outcome {
        crate::Outcome::Idle => {
            let awaiting = run.awaited();
            run.stop();
            run.wait_end(REAL_TIME_BOUND)?;
            Ending::Idle { awaiting }
        }
        crate::Outcome::TimeLimit => {
            run.stop();
            run.wait_end(REAL_TIME_BOUND)?;
            Ending::TimeLimit
        }
        _ => run.wait_end(REAL_TIME_BOUND)?,
    };
    let refused = run.refused();
    run.close();
    let events = std::mem::take(&mut *choreo_base::lock(&events));
    let dialog = sim
        .as_ref()
        .map(SimRobot::dialog_coverage)
        .unwrap_or_default();
    // Idle or at its limit, the behavior would have waited on: its last state lasts.
    let end = match ending {
        Ending::Idle { .. } | Ending::TimeLimit => f64::INFINITY,
        _ => time,
    };
    let mut waits = waits(&log, end);
    if end.is_infinite()
        && let Some(w) = at_end.and_then(|now| still(&log, now, time, &events))
    {
        waits.push(w);
    }
    for w in &mut waits {
        w.running = running(&events, w.time + REPLY_SECONDS);
    }
    let mut ran = Ran {
        busy: matches!(ending, Ending::TimeLimit),
        loaded: BTreeSet::new(),
        entered: BTreeSet::new(),
        waits,
        findings: BTreeSet::new(),
        dialog,
        time,
        leads,
        draws: Vec::new(),
        posture_read: None,
        face_read: None,
    };
    tally(&mut ran, &events);
    ran.findings = findings(&events, refused, &ending);
    if let Some(hang) = hang(&ending, &log, &events, time) {
        ran.findings.insert(hang);
    }
    Ok(ran)
}

/// The calls that ask the robot which posture it is in: ALRobotPose's (2.1; the stock 1.x
/// Stand Up and Sit Down boxes) and ALRobotPosture's.
const POSTURE_READS: &[&str] = &[
    "ALRobotPose.getActualPoseAndTime",
    "ALRobotPosture.getPosture",
    "ALRobotPosture.getPostureFamily",
];

/// The call that reads a person's face (ALFaceCharacteristics's analysis, which box code
/// reads back from ALMemory).
const FACE_READ: &str = "ALFaceCharacteristics.analyzeFaceCharacteristics";

/// The boxes loaded and entered, the draws by chance and the first posture and face read,
/// from the trace's `events`.
fn tally(ran: &mut Ran, events: &[Event]) {
    for e in events {
        match &e.step {
            TraceStep::Chance { draw, of, outcome } => ran.draws.push(Drawn {
                time: e.time_ns as f64 / 1e9,
                draw: *draw,
                of: *of,
                outcome: *outcome,
            }),
            TraceStep::RobotCall { method, .. }
                if ran.posture_read.is_none() && POSTURE_READS.contains(&method.as_str()) =>
            {
                ran.posture_read = Some(e.time_ns as f64 / 1e9);
            }
            TraceStep::RobotCall { method, .. }
                if ran.face_read.is_none() && method == FACE_READ =>
            {
                ran.face_read = Some(e.time_ns as f64 / 1e9);
            }
            TraceStep::New => {
                ran.loaded.insert(e.path.clone());
            }
            TraceStep::In { .. } => {
                ran.entered.insert(e.path.clone());
            }
            _ => {}
        }
    }
}

/// What went wrong on a path: box code's errors and the robot's falls in its trace, the
/// sandbox's refusals, an ending that is a fault.
fn findings(events: &[Event], refused: Vec<String>, ending: &Ending) -> BTreeSet<Finding> {
    let mut out = BTreeSet::new();
    for e in events {
        match &e.step {
            TraceStep::Err { text, .. } => {
                out.insert(Finding {
                    kind: "error".into(),
                    path: e.path.clone(),
                    text: last_line(text),
                });
            }
            TraceStep::Log { level, message } if e.path.is_empty() && fell(level, message) => {
                out.insert(Finding {
                    kind: "fall".into(),
                    path: String::new(),
                    text: first_line(message),
                });
            }
            _ => {}
        }
    }
    // The count of refusals past those kept is left out: a box that retries a refused
    // connection without sleeping (the stock Internet Connection box, offline) makes as
    // many attempts as real time allows, so the count is no finding that repeats.
    for text in refused
        .into_iter()
        .filter(|t| !choreo_python::confinement::is_count(t))
    {
        out.insert(Finding {
            kind: "refused".into(),
            path: String::new(),
            text,
        });
    }
    if let Some(text) = ended_badly(ending) {
        out.insert(Finding {
            kind: "ended".into(),
            path: String::new(),
            text,
        });
    }
    out
}

/// A hang: the run ended idle (nothing scheduled, not finished), subscribed to no key and
/// listening for nothing, with boxes still under way — nothing a person or the world does can
/// move them, and on a robot they would stay so until someone stops the behavior. Named by
/// the innermost box under way. (Nothing under way is no hang: a library box run alone
/// fired its last output, which is not its behavior's end.)
fn hang(ending: &Ending, log: &[Heard], events: &[Event], time: f64) -> Option<Finding> {
    let Ending::Idle { awaiting } = ending else {
        return None;
    };
    let listening = log.iter().rev().find_map(|h| match h {
        Heard::Listening { listening, .. } => Some(listening),
        Heard::Acted { .. } => None,
    });
    if !awaiting.is_empty() || !listening.is_none_or(Listening::is_empty) {
        return None;
    }
    // The innermost boxes under way (their enclosing boxes are under way too).
    let all = running(events, time);
    let under_way: Vec<String> = all
        .iter()
        .filter(|b| !all.iter().any(|c| c.starts_with(&format!("{b}/"))))
        .cloned()
        .collect();
    Some(Finding {
        kind: "hang".into(),
        path: under_way.first()?.clone(),
        text: format!(
            "nothing can happen any more, and the behavior has not ended; under way: {}",
            under_way.join(", ")
        ),
    })
}

/// The boxes under way at `time` (seconds): an input stimulated and neither an output
/// fired nor the box unloaded since; before the behavior is stopped (the run's end).
fn running(events: &[Event], time: f64) -> BTreeSet<String> {
    // Rounded: a time read back from seconds may fall a fraction of a nanosecond short of
    // the event it was read from (16.82142857 s gives 16821428569.99 ns), which would leave
    // out the last event, as the box's own end.
    let until = (time * 1e9).round() as u64;
    let mut out = BTreeSet::new();
    for e in events.iter().take_while(|e| e.time_ns <= until) {
        match &e.step {
            TraceStep::Behavior { what } if what == "stop" => break,
            TraceStep::In { .. } => {
                out.insert(e.path.clone());
            }
            TraceStep::Out { .. } => {
                out.remove(&e.path);
            }
            TraceStep::Call { hook } if hook == "onUnload" => {
                out.remove(&e.path);
            }
            _ => {}
        }
    }
    out
}

/// The simulated robot's fall, as the trace logs it (docs/trace.md, `log`: "NAO fell
/// backwards at ...").
fn fell(level: &str, message: &str) -> bool {
    let by = |m: crate::Model| message.starts_with(&format!("{} fell ", m.name()));
    level == "warning" && (by(crate::Model::Nao) || by(crate::Model::Pepper))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// A Python error's last line: the exception and its message (the traceback is above it).
fn last_line(text: &str) -> String {
    let line = text.lines().rev().find(|l| !l.trim().is_empty());
    line.unwrap_or_default().trim().to_string()
}

/// An ending that is a fault: box code's process gone, choreo crashed, the robot lost.
fn ended_badly(ending: &Ending) -> Option<String> {
    match ending {
        Ending::BoxHostEnded { how, .. } => Some(format!("box code's process ended: {how}")),
        Ending::Crashed { message } => Some(format!("choreo crashed: {message}")),
        Ending::Failed { path, message, .. } => Some(format!("{path}: {message}")),
        _ => None,
    }
}

/// What the robot listens for at the run's end (`now`, at `time`) as one more wait, when it
/// is not what the log last saw: a dialog's answer opens its subrules' scope with no call the
/// log sees. The last thing said is the robot's last sentence in the trace.
fn still(log: &[Heard], now: Listening, time: f64, events: &[Event]) -> Option<Wait> {
    let logged = log.iter().rev().find_map(|h| match h {
        Heard::Listening { listening, .. } => Some(listening),
        Heard::Acted { .. } => None,
    });
    if now.is_empty() || logged == Some(&now) {
        return None;
    }
    let said = events.iter().rev().find_map(|e| match &e.step {
        TraceStep::Said { text, .. } => Some(text.clone()),
        _ => None,
    });
    Some(Wait {
        time,
        listening: now,
        said,
        running: BTreeSet::new(),
    })
}

/// The waits after the path's last input: from the robot's log, each change of what it
/// listens for after the last action, kept when it lasted at least [`REPLY_SECONDS`] (a
/// vocabulary set a moment before the subscription is no point to answer at) and when
/// anything is listened for. `end`: when the last change stops lasting (the run's end, or
/// never when the run ended waiting).
fn waits(log: &[Heard], end: f64) -> Vec<Wait> {
    let after = log
        .iter()
        .rposition(|h| matches!(h, Heard::Acted { .. }))
        .map_or(0, |i| i + 1);
    let changes: Vec<Wait> = log[after..]
        .iter()
        .filter_map(|h| match h {
            Heard::Listening {
                time,
                listening,
                said,
            } => Some(Wait {
                time: *time,
                listening: listening.clone(),
                said: said.clone(),
                running: BTreeSet::new(),
            }),
            Heard::Acted { .. } => None,
        })
        .collect();
    let mut out = Vec::new();
    for (i, w) in changes.iter().enumerate() {
        let until = changes.get(i + 1).map_or(end, |next| next.time);
        if until - w.time >= REPLY_SECONDS && !w.listening.is_empty() {
            out.push(w.clone());
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn listening(word: &str) -> Listening {
        Listening {
            words: vec![word.to_string()],
            ..Listening::default()
        }
    }

    fn heard(time: f64, word: &str) -> Heard {
        Heard::Listening {
            time,
            listening: listening(word),
            said: None,
        }
    }

    #[test]
    fn a_wait_counts_after_the_last_action_and_when_it_lasts() {
        let log = vec![
            heard(0.0, "a"),
            Heard::Acted { time: 1.0 },
            // Set and replaced at once: no time to answer it.
            heard(2.0, "b"),
            heard(2.1, "c"),
            heard(5.0, "d"),
        ];
        let times: Vec<(f64, String)> = waits(&log, 5.2)
            .into_iter()
            .map(|w| (w.time, w.listening.words[0].clone()))
            .collect();
        // "d" lasts 0.2 s to the end: too short as well.
        assert_eq!(times, [(2.1, "c".to_string())]);
    }

    /// A box that ended at the very time the run went idle is not under way then, though
    /// that time, read in seconds, falls short of its nanoseconds (the stock Say Text of
    /// "NAO is Disappointed" was reported as a hang).
    #[test]
    fn a_box_that_ended_as_the_run_went_idle_is_not_under_way() {
        let at = |seq: u64, time_ns: u64, path: &str, step: TraceStep| Event {
            seq,
            time_ns,
            path: path.into(),
            step,
        };
        let end_ns = 16_821_428_570;
        let events = [
            at(
                0,
                0,
                "root",
                TraceStep::In {
                    port: "onStart".into(),
                    value: choreo_engine::Value::None,
                },
            ),
            at(
                1,
                12_296_428_571,
                "root/Say",
                TraceStep::In {
                    port: "onStart".into(),
                    value: choreo_engine::Value::None,
                },
            ),
            at(
                2,
                end_ns,
                "root/Say",
                TraceStep::Out {
                    port: "onStopped".into(),
                    value: choreo_engine::Value::None,
                },
            ),
        ];
        let time = end_ns as f64 / 1e9;
        assert!(
            ((time * 1e9) as u64) < end_ns,
            "the case: seconds fall short"
        );
        assert_eq!(running(&events, time), BTreeSet::from(["root".to_string()]));
    }

    #[test]
    fn the_fall_log_is_told_from_other_warnings() {
        assert!(fell(
            "warning",
            "NAO fell backwards at 12.40 s: the centre of mass left the feet"
        ));
        assert!(fell("warning", "Pepper fell forwards at 3.00 s: ..."));
        assert!(!fell("warning", "root/Say fell silent"));
        assert!(!fell("info", "NAO fell backwards"));
    }
}
