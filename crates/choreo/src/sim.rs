//! `choreo sim`: the simulated robot served over qi messaging, so any qi client can drive it.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use choreo_engine::{Activity, Robot};
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use choreo_qi::{CallReport, ServerOptions, ServerTls};

use crate::exit;
use crate::fold::Line;
use crate::live::{Kind, Live, Verbosity};

/// Serves a simulated `model` at `listen` until Ctrl-C; prints what the robot does and every
/// call it receives. Returns the exit code.
pub fn run(
    listen: &str,
    model: Model,
    events: Option<&Path>,
    tls: Option<ServerTls>,
    quiet: bool,
) -> u8 {
    let robot = Arc::new(SimRobot::new(model));
    let time = match Activity::real() {
        Ok(t) => t,
        Err(e) => {
            errln!("cannot start the clock: {e}");
            return exit::ROBOT;
        }
    };
    // Real time: a `say` takes as long as on the robot.
    robot.attach(Arc::clone(&time));
    if let Some(file) = events {
        match choreo_naoqi::Scenario::from_path(file) {
            Ok(s) => robot.load_scenario(s),
            Err(e) => {
                errln!("{e}");
                return exit::LOAD;
            }
        }
    }
    let live = Live::new(Verbosity::from_flags(quiet, false));
    {
        let live = live.clone();
        let time = Arc::clone(&time);
        robot.set_observer(Arc::new(move |e: &RobotEvent| {
            live.robot_event(time.now(), e)
        }));
    }
    let log = {
        let live = live.clone();
        let time = Arc::clone(&time);
        Arc::new(move |c: &CallReport<'_>| {
            let args: Vec<String> = c.args.iter().map(ToString::to_string).collect();
            let result = match c.result {
                Ok(v) => format!("-> {v}"),
                Err(e) => format!("-> error: {e}"),
            };
            live.line(
                time.now(),
                Kind::Info,
                Line::call(
                    format!("{}.{}", c.service, c.method),
                    format!("({}) {result}", args.join(", ")),
                ),
            );
        })
    };
    let served = match choreo_qi::serve_robot(
        Arc::clone(&robot) as Arc<dyn Robot>,
        listen,
        Some(log),
        ServerOptions {
            tls,
            ..ServerOptions::default()
        },
    ) {
        Ok(s) => s,
        Err(e) => {
            errln!("{listen}: cannot serve: {e}");
            return exit::ROBOT;
        }
    };
    errln!(
        "serving a simulated {} at {}: any qi client can drive it; Ctrl-C stops",
        model.name(),
        served.url
    );
    let interrupts = Arc::new(AtomicUsize::new(0));
    {
        let interrupts = Arc::clone(&interrupts);
        let _ = ctrlc::set_handler(move || {
            interrupts.fetch_add(1, Ordering::SeqCst);
        });
    }
    while interrupts.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(100));
        live.tick(time.now());
    }
    served.stop();
    live.finish();
    let stats = robot.stats();
    let total: u64 = stats.per_service.values().sum();
    errln!("stopped after {total} call(s)");
    exit::OK
}
