//! A run's trace watched as `choreo run` watches it: each event counted into the report's
//! [`Tally`] and shown live, folded ([`crate::report::live`]).

use std::sync::Mutex;

use choreo_engine::clock::Time;
use choreo_engine::trace::{Event, Step};
use choreo_naoqi::Scenario;

use crate::report::fold::Line;
use crate::report::live::{Kind, Live};
use crate::report::{Failure, Tally, logged_error};

/// What a run's trace is watched with ([`Watch::see`]): the tally, the live output, the
/// stubs to recognize.
pub struct Watch {
    /// What the report will say.
    pub tally: Mutex<Tally>,
    /// The lines shown.
    pub live: Live,
    /// The scenario loaded in the simulated robot (its stubs answer calls).
    pub scenario: Option<Scenario>,
    /// Running on a real robot: its calls are shown.
    pub remote: bool,
    /// What starts each live line: the robot of a fleet (`robot 2: `), or nothing.
    pub who: String,
}

/// Shows what a box's code said live: an error escaping a hook, or a line it logged (`who`
/// before it); false for any other event.
pub fn show_box_event(live: &Live, who: &str, e: &Event) -> bool {
    let at = Time(e.time_ns);
    match &e.step {
        Step::Err { hook, text } => {
            let failure = Failure::new(&e.path, hook, text);
            let line = Line::plain(format!("{who}error in {failure}"));
            live.line(at, Kind::Error, line);
            live.details(text);
        }
        Step::Log { level, message } => {
            let kind = if logged_error(&e.path, &e.step).is_some() {
                Kind::Error
            } else {
                Kind::Info
            };
            // Different messages of a box say different things: only repeats fold. The run's
            // own messages have no box.
            let line = if e.path.is_empty() {
                Line::plain(format!("{who}{level}: {message}"))
            } else {
                Line::plain(format!("{who}{level} {}: {message}", e.path))
            };
            live.line(at, kind, line);
        }
        _ => return false,
    }
    true
}

impl Watch {
    /// Event `e` of the trace: counted, and shown as it happens.
    pub fn see(&self, e: &Event) {
        see(e, self);
    }
}

fn see(e: &Event, watch: &Watch) {
    let stub = match (&e.step, &watch.scenario) {
        (Step::RobotCall { method, args }, Some(scenario)) => {
            let service = method.split('.').next().unwrap_or_default();
            let name = method.rsplit('.').next().unwrap_or_default();
            scenario.reply_to(service, name, args)
        }
        _ => None,
    };
    let over = {
        let mut tally = choreo_base::lock(&watch.tally);
        let over = tally.is_over();
        tally.record(e, stub.is_some());
        over
    };
    if over {
        return;
    }
    let at = Time(e.time_ns);
    let live = &watch.live;
    let who = watch.who.as_str();
    let line = |mut line: Line| {
        line.head.insert_str(0, who);
        line
    };
    if show_box_event(live, who, e) {
        return;
    }
    match &e.step {
        Step::RobotCall { method, args } => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            let args = args.join(", ");
            if let Some(reply) = stub {
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(
                        format!("stub: {method}"),
                        format!("({args}) -> {reply}"),
                    )),
                );
            } else if watch.remote {
                // The simulated robot says what it does; a real one is shown its calls.
                live.line(
                    at,
                    Kind::Info,
                    line(Line::call(format!("calls {method}"), format!("({args})"))),
                );
            }
            if let Some(logged) = logged_error(&e.path, &e.step) {
                live.line(
                    at,
                    Kind::Error,
                    line(Line::plain(format!("error {logged}"))),
                );
            }
        }
        Step::Frame { frame } => live.frame(&format!("{who}{}", e.path), *frame),
        _ => {}
    }
}
