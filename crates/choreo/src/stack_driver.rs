//! The behavior that drives a behavior stack (`choreo stack run`): one native box that ticks
//! the stack's runner every period and sleeps on the engine's clock in between, so that the
//! stack, the robot's durations, the scenario and the Choregraphe behaviors it plays share
//! one time. Also what the stack's trace file holds ([`json_lines`], [`engine_lines`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::clock::Time;
use choreo_engine::{Engine, NativeHost, Options, Outcome, Value};
use std::collections::HashSet;
use std::io::Write as _;
use std::path::Path;
use std::sync::LazyLock;

use crate::exit;

use choreo_base::lock;
use choreo_stack::builtins::robot::PlayChoregraphe;
use choreo_stack::core::trace::Record;
use choreo_stack::definitions::definition::{Definition, Spec};
use choreo_stack::{Behavior, Classes, DefinitionError, Runner, Tick};
use choreo_xar::source::{FilesOnDisk, Project};

use crate::nested::BoxCode;

/// The driver behavior did not read or load: a bug of choreo's.
#[derive(Debug, thiserror::Error)]
#[error("internal error: the driver behavior {0}")]
pub struct DriverError(String);
use choreo_monitor::stack::{StackNode, StackShape};

/// The behavior that drives the stack: a root holding the native box `Stack`, started by the
/// root and stopping it.
const DRIVER: &str = r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>
<Box name="Stack" id="1">
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>
</Box>
<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#;

/// The driver behavior, read.
pub fn driver_xar() -> Result<choreo_xar::XarFile, DriverError> {
    choreo_xar::read_xar("stack.xar", DRIVER.as_bytes())
        .map(|x| x.value)
        .map_err(|e| DriverError(format!("does not read: {e}")))
}

/// The first ALMemory subscription id of the driver (far from the engine's own).
const SUBSCRIPTIONS: u64 = 0x5354_4143_0000_0000;

/// The engine of the driver behavior, its `Stack` box ticking `driver`'s runner.
pub fn load_driver(
    xar: &choreo_xar::XarFile,
    driver: &Arc<Driver>,
    options: Options,
) -> Result<Engine, DriverError> {
    let host = {
        let start = Arc::clone(driver);
        let unload = Arc::clone(driver);
        NativeHost::new().with("Stack", move |hook, ctx| {
            match hook.script_name().as_str() {
                "onInput_onStart" => start.drive(ctx),
                "onUnload" => unload.stop.store(true, Ordering::SeqCst),
                _ => {}
            }
            Ok(())
        })
    };
    Engine::load(xar, &host, options).map_err(|e| DriverError(format!("does not load: {e}")))
}

/// The stack's behaviors and their delegates, for the monitor's Stack view.
pub fn shape(runner: &Runner, defs: &[Definition]) -> StackShape {
    let names = runner.names();
    let name = |b: &choreo_stack::BehaviorId| names.get(b.index()).cloned().unwrap_or_default();
    let behaviors = (0..names.len())
        .filter_map(|i| {
            let b = runner.id(names.get(i)?)?;
            let n = name(&b);
            let class = defs
                .iter()
                .find(|d| d.id == n || n.ends_with(&format!("/@{}", d.id)))
                .map_or_else(String::new, |d| d.class.clone());
            Some(StackNode {
                class,
                delegates: runner.delegates_of(b).iter().map(&name).collect(),
                name: n,
            })
        })
        .collect();
    StackShape {
        base: name(&runner.base()),
        behaviors,
    }
}

/// The behavior time of tick `tick` (tick 1 at 0).
pub fn tick_time(period: Duration, tick: u64) -> Time {
    Time(
        u64::try_from(period.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_mul(tick.saturating_sub(1)),
    )
}

/// The runner, owned by the driver box's hook while it runs.
pub struct Driver {
    /// The stack's runner (the box's hook holds it while it runs).
    pub runner: Mutex<Option<Runner>>,
    /// Set by the box's `onUnload` (a stop, the time limit, Ctrl-C).
    pub stop: AtomicBool,
    /// The tick period.
    pub period: Duration,
    /// How the stack ended.
    pub ended: Mutex<Option<StackEnd>>,
    /// How the process of the stack's own Python behaviors ended, if it did (a crash, an
    /// `os._exit`): the stack stops at the tick that saw it, as a run whose box host ended.
    pub box_code_ended: Box<dyn Fn() -> Option<String> + Send + Sync>,
}

/// How the stack ended.
pub enum StackEnd {
    /// It emptied, or was cancelled.
    Done,
    /// It could not start: why.
    NotStarted(String),
    /// Its own Python behaviors' process ended under it: how.
    BoxCodeEnded(String),
}

impl Driver {
    /// Ticks the stack every period of the engine's clock until it finishes or the box is
    /// unloaded, then fires the box's `onStopped`.
    pub fn drive(&self, ctx: &choreo_engine::BoxContext) {
        let Some(mut runner) = choreo_base::lock(&self.runner).take() else {
            return;
        };
        let subscribed = subscribe(&runner, ctx);
        let period = u64::try_from(self.period.as_nanos())
            .unwrap_or(u64::MAX)
            .max(1);
        let start = ctx.now().0;
        let mut n: u64 = 0;
        let result = loop {
            if self.stop.load(Ordering::SeqCst) {
                runner.cancel_all();
                break StackEnd::Done;
            }
            match runner.tick() {
                Ok(Tick::Running) => {}
                Ok(Tick::Finished) => break StackEnd::Done,
                Err(e) => break StackEnd::NotStarted(e.to_string()),
            }
            if let Some(how) = (self.box_code_ended)() {
                runner.cancel_all();
                break StackEnd::BoxCodeEnded(how);
            }
            n += 1;
            let now = ctx.now().0;
            // Two periods or more behind: skip ahead rather than burst (§11).
            if now.saturating_sub(start) / period > n + 1 {
                n = now.saturating_sub(start) / period;
            }
            ctx.activity()
                .sleep_until(Time(start.saturating_add(n.saturating_mul(period))));
        };
        if let Some(robot) = ctx.robot() {
            for id in subscribed {
                robot.unsubscribe(id);
            }
        }
        *choreo_base::lock(&self.ended) = Some(result);
        *choreo_base::lock(&self.runner) = Some(runner);
        let _ = ctx.fire("onStopped", Value::None);
    }
}

/// Subscribes to every input the stack's behaviors and conditions watch (ALMemory keys and
/// events of the robot), each update posted to the stack's inbox; the subscription ids.
fn subscribe(runner: &Runner, ctx: &choreo_engine::BoxContext) -> Vec<u64> {
    let Some(robot) = ctx.robot() else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for (i, name) in runner.input_names().into_iter().enumerate() {
        let inbox = runner.inbox();
        let id = SUBSCRIPTIONS + i as u64;
        let sink = Arc::new(move |key: &str, value: Value| inbox.post(key, value));
        match robot.subscribe(&name, id, sink) {
            Ok(()) => ids.push(id),
            Err(e) => ctx.log("warning", &format!("cannot watch {name}: {e}")),
        }
    }
    ids
}

/// A Choregraphe behavior a `PlayChoregraphe` leaf plays: loaded, its files on disk, and the
/// name it is installed under on the simulated robot.
pub struct Installed {
    /// The name it is installed under.
    pub name: String,
    /// Its project.
    pub project: Arc<Project>,
    /// The behavior's index in the project.
    pub index: usize,
    /// The project's files on disk.
    pub files: FilesOnDisk,
}

impl Installed {
    /// The prefix of its events' paths (`Dance:` for `Dance:root/Say`).
    pub fn prefix(&self) -> String {
        format!("{}:", self.name.trim_start_matches("stack/"))
    }
}

/// The behaviors the stack's leaves play, as the monitor draws them.
pub fn played(installed: &[Installed]) -> crate::monitored::Played {
    installed
        .iter()
        .filter_map(|i| {
            let b = i.project.behaviors.get(i.index)?;
            Some((
                i.prefix(),
                Arc::new(choreo_engine::graph::Graph::new(&b.xar)),
            ))
        })
        .collect()
}

/// The name a `PlayChoregraphe` leaf's behavior is installed under on the simulated robot.
pub fn installed_name(def: &Definition) -> String {
    match &def.owner {
        Some(owner) => format!("stack/{owner}/@{}", def.id),
        None => format!("stack/{}", def.id),
    }
}

/// Where the stack's own Python behaviors run, made at the first one (a stack without one
/// starts no box host), or why it cannot be.
pub type OwnCode =
    LazyLock<Result<BoxCode, NoBoxCode>, Box<dyn FnOnce() -> Result<BoxCode, NoBoxCode> + Send>>;

/// Why the stack's own Python behaviors have nowhere to run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoBoxCode(pub String);

/// The built-in classes, with `PlayChoregraphe` also taking a `path` (installed), and
/// `Python`: a class of a `.py` file of the stack's folder (`file`, `class`, `params`), its
/// code run where `own` says.
pub fn classes(dir: &Path, installed: &[Installed], own: Arc<OwnCode>) -> Classes {
    let mut classes = Classes::builtin();
    let folder = dir.to_path_buf();
    classes.register(
        "Python",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let file = folder.join(spec.string("file")?);
                let class = spec.string("class")?;
                let params = spec
                    .get("params")
                    .map_or(Value::None, choreo_stack::builtins::conditions::json_value);
                if !matches!(params, Value::None | Value::Map(_)) {
                    return Err(spec.error("params", "must be an object (keyword arguments)"));
                }
                let own = own
                    .as_ref()
                    .as_ref()
                    .map_err(|e| spec.error("file", e.to_string()))?;
                choreo_python::stack::PythonBehavior::load(
                    &file,
                    &class,
                    &params,
                    own.confinement.clone(),
                    own.host.clone(),
                )
                .map(|b| Box::new(b) as Box<dyn Behavior>)
                .map_err(|e| spec.error("file", e.to_string()))
            },
        ),
    );
    let names: HashSet<String> = installed.iter().map(|i| i.name.clone()).collect();
    classes.register(
        "PlayChoregraphe",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let name = if spec.get("path").is_some() {
                    let _ = spec.get("behaviorName");
                    let name = installed_name(spec.definition());
                    if !names.contains(&name) {
                        return Err(spec.error("path", "was not loaded"));
                    }
                    name
                } else {
                    spec.string("installed")?
                };
                Ok(Box::new(PlayChoregraphe::new(&name)))
            },
        ),
    );
    classes
}

/// The `--trace` file, written by the stack's listener and the engines' trace.
pub type TraceFile = Arc<Mutex<std::io::BufWriter<std::fs::File>>>;

/// A listener writing each stack event as a JSON line, the behaviors named, with its tick's
/// time (ticks every `period`); flushed at each, so that a stack cut short keeps its trace.
pub fn json_lines(out: TraceFile, period: Duration) -> choreo_stack::core::trace::Listener {
    Box::new(move |r: &Record, names: &[String]| {
        let value = record_json(r, names, period);
        let mut out = lock(&out);
        // A trace that cannot be written must not stop the stack.
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    })
}

/// A listener writing each event of the engines (the driver's, the played behaviors', what
/// the robot shows) as `choreo run --trace` does: a line with `seq` and `path`, no `tick`.
pub fn engine_lines(out: TraceFile) -> choreo_engine::trace::Listener {
    Arc::new(move |e: &choreo_engine::trace::Event| {
        if let Ok(line) = serde_json::to_string(e) {
            let _ = writeln!(lock(&out), "{line}");
        }
    })
}

/// A stack event as JSON, each behavior index (`b`, `from`, `to`, `by`, `owner`, `base`)
/// replaced by its name, with `time_ns`, its tick's time (ticks every `period`): a line of
/// `--trace`, an event of the monitor.
pub fn record_json(r: &Record, names: &[String], period: Duration) -> serde_json::Value {
    let mut value = serde_json::to_value(r).unwrap_or_default();
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("time_ns".into(), tick_time(period, r.tick).0.into());
        for key in ["b", "from", "to", "by", "owner", "base"] {
            if let Some(v) = map.get_mut(key)
                && let Some(i) = v.as_u64()
                && let Some(name) = usize::try_from(i).ok().and_then(|i| names.get(i))
            {
                *v = serde_json::Value::String(name.clone());
            }
        }
    }
    value
}

/// How the process of the stack's own Python behaviors ended, and where, once it has
/// (none while it runs, or when none was started).
pub fn box_code_ended(own: Arc<OwnCode>) -> Box<dyn Fn() -> Option<String> + Send + Sync> {
    Box::new(move || {
        let made = std::sync::LazyLock::get(&own)?;
        let host = made.as_ref().ok()?.host.as_ref()?;
        let how = crate::ended::box_host_how(&host.ended())?;
        Some(match crate::ended::box_frame(&host.stderr_tail()) {
            Some(at) => format!("{how}, at {at}"),
            None => how,
        })
    })
}

/// How the monitor's page names the end of a stack run that exits with `code`.
pub fn outcome_word(code: u8) -> &'static str {
    match code {
        exit::OK => "finished",
        exit::INTERRUPTED => "stopped",
        exit::TIMEOUT => "time limit",
        _ => "error",
    }
}

/// The exit code of the stack's run ([`crate::exit`]), and its report line: how it ended
/// (`outcome` of the driver behavior's engine, `stopped_for`: the exit code of the stop made,
/// if one was), ticks made, stack time `time`, real time since `started`.
pub fn report(
    driver: &Driver,
    outcome: &Outcome,
    stopped_for: Option<u8>,
    time: Time,
    started: Instant,
) -> (u8, String) {
    let ended = choreo_base::lock(&driver.ended).take();
    let ticks = choreo_base::lock(&driver.runner)
        .as_ref()
        .map_or(0, Runner::tick_count);
    let code = match (stopped_for, &ended, outcome) {
        (_, Some(StackEnd::NotStarted(_)), _) => exit::LOAD,
        (_, Some(StackEnd::BoxCodeEnded(_)), _) => exit::ABNORMAL,
        (_, _, Outcome::RobotLost) => exit::ROBOT,
        (Some(code), _, _) => code,
        (None, _, Outcome::Finished) => exit::OK,
        (None, _, _) => exit::RUNTIME,
    };
    let why = match (&ended, stopped_for) {
        (Some(StackEnd::NotStarted(e)), _) => format!("could not start: {e}"),
        (Some(StackEnd::BoxCodeEnded(how)), _) => {
            format!("stopped (the stack cancelled top-down): {how}")
        }
        (_, Some(exit::INTERRUPTED)) => "interrupted (the stack cancelled top-down)".into(),
        (_, Some(_)) => "stopped at the time limit (the stack cancelled top-down)".into(),
        (Some(StackEnd::Done), None) => "finished (the stack emptied)".into(),
        (None, None) => format!("ended: {outcome:?}"),
    };
    let report = format!(
        "stack {why}: {ticks} ticks, {:.2} s of stack time in {:.2} s real time",
        time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    (code, report)
}
