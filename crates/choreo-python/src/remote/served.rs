//! The box host's side: the boxes it holds, the orders it runs, and the engine as its box
//! code reaches it ([`Remote`], an [`EngineSide`] whose every call is a request on the lane
//! of the order it runs for).
//!
//! Each lane has a thread of its own here, paired with the thread of choreo's that opened
//! it: a hook runs on the lane of the engine's worker that called it, a thread box code
//! starts on the lane of the engine's activity that stands for it. While a request waits for
//! its answer, the lane may bring an order first (the engine's side, handling the request,
//! called box code again: a nested behavior's box constructed on this thread): it is run
//! there and then, and the wait goes on.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{EngineError, RobotError, TimelineCommand, Value};

use super::channel::Control;
use super::control::Record;
use super::lane::{Lane, LaneError};
use super::message::{Answer, HostOptions, Message, Order};
use super::request::Request;
use crate::confinement::{Confinement, judge_here};
use crate::host::{PythonBox, PythonHost};
use crate::side::{ClockFacts, Deliver, EngineSide, Work};
use crate::stack::{HookAnswer, Hooked};
use pyo3::{Py, PyAny};
use std::path::Path;

/// What the box host holds.
pub(crate) struct Served {
    pub(crate) control: Arc<Control>,
    confinement: Arc<Confinement>,
    hosts: Mutex<Vec<Arc<PythonHost>>>,
    boxes: Mutex<HashMap<u64, Arc<PythonBox>>>,
    works: Mutex<HashMap<u64, Work>>,
    next_work: AtomicU64,
    delivers: Mutex<HashMap<u64, Arc<Deliver>>>,
    /// A stack's Python behaviors, by handle.
    stacked: Mutex<HashMap<u64, Arc<Py<PyAny>>>>,
    /// A run in virtual time was constructed here: a lane waiting for its next order looks
    /// for it a moment before sleeping, as choreo's side does for an answer (`Lane::recv_soon`).
    virtual_time: std::sync::atomic::AtomicBool,
}

thread_local! {
    /// The lane of this thread of the box host (none on its control thread).
    static LANE: RefCell<Option<Rc<Lane>>> = const { RefCell::new(None) };
}

impl Served {
    pub(crate) fn new(control: Arc<Control>, confinement: Arc<Confinement>) -> Arc<Served> {
        Arc::new(Served {
            control,
            confinement,
            hosts: Mutex::new(Vec::new()),
            boxes: Mutex::new(HashMap::new()),
            works: Mutex::new(HashMap::new()),
            next_work: AtomicU64::new(1),
            delivers: Mutex::new(HashMap::new()),
            stacked: Mutex::new(HashMap::new()),
            virtual_time: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Serves the lane on these ends on a thread of its own, until choreo closes it.
    pub(crate) fn open_lane(self: &Arc<Self>, ends: super::channel::Ends) {
        let me = Arc::clone(self);
        let started = std::thread::Builder::new()
            .name("choreo-lane".to_string())
            .spawn(move || me.serve_lane(Lane::new(ends)));
        if let Err(e) = started {
            // The lane's socket is closed with the closure: choreo's side sees it end.
            eprintln!("choreo box host: cannot start a lane's thread: {e}");
        }
    }

    fn serve_lane(self: Arc<Self>, lane: Lane) {
        // First, which thread this is (choreo's side judges it while it waits).
        let hello = Message::Answer(Answer::Number(choreo_base::thread::current_id()));
        if lane.send(&hello).is_err() {
            return;
        }
        let lane = Rc::new(lane);
        LANE.with(|l| *l.borrow_mut() = Some(Rc::clone(&lane)));
        loop {
            let got = if self.virtual_time.load(std::sync::atomic::Ordering::Relaxed) {
                lane.recv_soon()
            } else {
                lane.recv()
            };
            match got {
                Ok(Message::Order(order)) => {
                    let answer = self.run(order);
                    if lane.send(&Message::Answer(answer)).is_err() {
                        break;
                    }
                }
                Ok(other) => {
                    eprintln!("choreo box host: a lane brought {other:?} where an order was due");
                    break;
                }
                Err(LaneError::Closed) => break,
                Err(e) => {
                    eprintln!("choreo box host: {e}");
                    break;
                }
            }
        }
        LANE.with(|l| l.borrow_mut().take());
    }

    /// A box or a stack's behavior is gone (choreo dropped it).
    pub(crate) fn drop_box(&self, handle: u64) {
        // Dropped here, the box's state closes: its background work stops acting.
        drop(choreo_base::lock(&self.boxes).remove(&handle));
        drop(choreo_base::lock(&self.stacked).remove(&handle));
    }

    /// Runs `order`; its answer.
    fn run(self: &Arc<Self>, order: Order) -> Answer {
        match order {
            Order::NewHost(options) => Answer::Number(self.new_host(options)),
            Order::Prepare { host, scripts } => {
                if let Some(h) = self.host(host) {
                    h.prepare_scripts(scripts.iter().map(|(c, p)| (c.as_str(), p.as_str())));
                }
                Answer::Done
            }
            Order::Construct {
                host,
                handle,
                info,
                clock,
            } => {
                if clock.virtual_time {
                    (self.virtual_time).store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let Some(h) = self.host(host) else {
                    return Answer::Script(Err(choreo_engine::ScriptError::new(format!(
                        "the box host has no Python host {host}"
                    ))));
                };
                let side = Arc::new(Remote {
                    handle,
                    served: Arc::clone(self),
                    clock,
                    path: info.path.clone(),
                    outputs: info.outputs.clone(),
                });
                match h.make_box(side, info, clock) {
                    Ok(b) => {
                        let answer = Answer::Constructed(b.has_script(), b.optional().to_vec());
                        choreo_base::lock(&self.boxes).insert(handle, Arc::new(b));
                        answer
                    }
                    Err(e) => Answer::Script(Err(e)),
                }
            }
            Order::Call { handle, hook } => {
                let found = choreo_base::lock(&self.boxes).get(&handle).cloned();
                Answer::Script(match found {
                    Some(b) => b.run_hook(&hook),
                    None => Ok(()),
                })
            }
            Order::Deliver { id, key, value } => {
                let found = choreo_base::lock(&self.delivers).get(&id).cloned();
                if let Some(deliver) = found {
                    deliver(key, value);
                }
                Answer::Done
            }
            Order::Work(id) => {
                let work = choreo_base::lock(&self.works).remove(&id);
                if let Some(work) = work {
                    work();
                }
                Answer::Done
            }
            Order::DialogScript(code) => Answer::Printed(
                crate::run_dialog_script(&code, Some(&self.confinement)).map_err(|e| e.exception),
            ),
            Order::StackLoad {
                handle,
                file,
                class,
                params,
                source,
            } => {
                // Project code that is no box's: judged on this thread, as it runs here.
                judge_here(&self.confinement);
                let made = crate::stack::make(Path::new(&file), &class, &params, &source);
                Answer::Stack(HookAnswer::Loaded(made.map(|(object, declared)| {
                    choreo_base::lock(&self.stacked).insert(handle, Arc::new(object));
                    declared
                })))
            }
            Order::StackHook { handle, name, args } => {
                let Some(object) = choreo_base::lock(&self.stacked).get(&handle).cloned() else {
                    return Answer::Stack(HookAnswer::Hooked(Hooked::Raised(format!(
                        "the box host holds no behavior {handle}"
                    ))));
                };
                judge_here(&self.confinement);
                // Its `cx` asks on this lane; the runner answers on the thread that ordered.
                let me = Arc::clone(self);
                let link: crate::stack::Link =
                    Box::new(move |request| match me.ask(Request::Stack(request)) {
                        Some(Answer::Stack(answer)) => Some(answer),
                        _ => None,
                    });
                Answer::Stack(HookAnswer::Hooked(crate::stack::call(
                    &object, &name, &args, link,
                )))
            }
        }
    }

    /// Sends `request` on this thread's lane and waits for its answer (running the orders
    /// that come first); `None` for a request that has none, or when this thread has no
    /// lane or the lane failed (choreo's side is gone: the box host ends with it).
    fn ask(self: &Arc<Self>, request: Request) -> Option<Answer> {
        let lane = LANE.with(|l| l.borrow().clone())?;
        let answered = request.answered();
        lane.send(&Message::Request(request)).ok()?;
        if !answered {
            return None;
        }
        loop {
            let got = if self.virtual_time.load(Ordering::Relaxed) {
                lane.recv_soon()
            } else {
                lane.recv()
            };
            match got.ok()? {
                Message::Answer(answer) => return Some(answer),
                Message::Order(order) => {
                    let answer = self.run(order);
                    lane.send(&Message::Answer(answer)).ok()?;
                }
                Message::Request(_) => return None,
            }
        }
    }

    fn new_host(&self, options: HostOptions) -> u64 {
        let host = PythonHost::new(crate::PythonOptions {
            behavior_path: options.behavior_path,
            package_uid: options.package_uid,
            behavior_relative_path: options.behavior_relative_path,
            robot_root: options.robot_root,
            confinement: Some(Arc::clone(&self.confinement)),
        });
        let mut hosts = choreo_base::lock(&self.hosts);
        hosts.push(Arc::new(host));
        hosts.len() as u64 - 1
    }

    fn host(&self, id: u32) -> Option<Arc<PythonHost>> {
        choreo_base::lock(&self.hosts).get(id as usize).cloned()
    }
}

/// The engine as a box's code reaches it from the box host: each call a request on this
/// thread's lane.
struct Remote {
    handle: u64,
    served: Arc<Served>,
    clock: ClockFacts,
    /// The box's path and outputs (a fire is checked here).
    path: String,
    outputs: Vec<String>,
}

impl Remote {
    /// The box's request on this thread's lane, answered ([`Served::ask`]).
    fn ask(&self, request: Request) -> Option<Answer> {
        self.served.ask(request)
    }

    fn ask_bool(&self, request: Request) -> bool {
        matches!(self.ask(request), Some(Answer::Bool(true)))
    }
}

/// The error box code gets when choreo's side is gone or answered out of turn.
fn lost() -> RobotError {
    RobotError::Disconnected("choreo's process does not answer the box host".to_string())
}

impl EngineSide for Remote {
    fn fire(&self, name: &str, value: Value) -> Result<(), EngineError> {
        // Checked here, so that firing needs no answer.
        if !self.outputs.iter().any(|o| o == name) {
            return Err(EngineError::NoOutput {
                path: self.path.clone(),
                output: name.to_string(),
            });
        }
        self.ask(Request::Fire(self.handle, name.to_string(), value));
        Ok(())
    }

    fn parameter(&self, name: &str) -> Option<Value> {
        match self.ask(Request::Parameter(self.handle, name.to_string())) {
            Some(Answer::MaybeValue(v)) => v,
            _ => None,
        }
    }

    fn set_parameter(&self, name: &str, value: Value) -> bool {
        self.ask_bool(Request::SetParameter(self.handle, name.to_string(), value))
    }

    fn timeline(&self, command: TimelineCommand) {
        self.ask(Request::Timeline(self.handle, command));
    }

    fn parent_timeline(&self, command: TimelineCommand) -> bool {
        self.ask_bool(Request::ParentTimeline(self.handle, command))
    }

    fn fps(&self) -> u32 {
        match self.ask(Request::Fps(self.handle)) {
            Some(Answer::Number(n)) => u32::try_from(n).unwrap_or(u32::MAX),
            _ => 0,
        }
    }

    fn parent_fps(&self) -> Option<u32> {
        match self.ask(Request::ParentFps(self.handle)) {
            Some(Answer::MaybeNumber(n)) => n.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            _ => None,
        }
    }

    fn call_robot(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<Value, RobotError> {
        let request = Request::Call(self.handle, service.into(), method.into(), args);
        match self.ask(request) {
            Some(Answer::Robot(r)) => r,
            _ => Err(lost()),
        }
    }

    fn post_robot(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        let request = Request::Post(self.handle, service.into(), method.into(), args);
        match self.ask(request) {
            Some(Answer::Robot(Ok(Value::Int(id)))) => Ok(id),
            Some(Answer::Robot(Err(e))) => Err(e),
            _ => Err(lost()),
        }
    }

    fn has_robot(&self) -> bool {
        // Every run has one; without, each call says so.
        true
    }

    fn has_service(&self, service: &str) -> bool {
        self.ask_bool(Request::HasService(self.handle, service.to_string()))
    }

    fn log_cut(&self, level: &str, message: &str, left_out: usize) {
        // A flood is cut here, before it is copied into a frame: the line's first
        // characters, and how many more (the engine's side says it as one process would).
        let limit = choreo_engine::context::LOG_LINE_MAX;
        let (head, more) = match message.char_indices().nth(limit) {
            Some((at, _)) => (&message[..at], message[at..].chars().count()),
            None => (message, 0),
        };
        let request = Request::Log(
            self.handle,
            level.to_string(),
            head.to_string(),
            (left_out + more) as u64,
        );
        self.ask(request);
    }

    fn uncaught(&self, source: &str, text: &str) {
        self.ask(Request::Uncaught(
            self.handle,
            source.to_string(),
            text.to_string(),
        ));
    }

    fn now(&self) -> Duration {
        match self.ask(Request::Now(self.handle)) {
            Some(Answer::Number(ns)) => Duration::from_nanos(ns),
            _ => Duration::ZERO,
        }
    }

    fn sleep(&self, d: Duration) -> Duration {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        match self.ask(Request::Sleep(self.handle, ns)) {
            Some(Answer::Number(now)) => Duration::from_nanos(now),
            _ => Duration::ZERO,
        }
    }

    fn pass_turn(&self) {
        self.ask(Request::PassTurn(self.handle));
    }

    fn draw(&self, of: u64, drew: u64) -> u64 {
        match self.ask(Request::Draw(self.handle, of, drew)) {
            Some(Answer::Number(outcome)) => outcome,
            _ => drew,
        }
    }

    fn clock(&self) -> ClockFacts {
        self.clock
    }

    fn spawn(&self, name: &str, work: Work) -> std::io::Result<()> {
        let id = self.served.next_work.fetch_add(1, Ordering::SeqCst);
        choreo_base::lock(&self.served.works).insert(id, work);
        match self.ask(Request::Spawn(self.handle, name.to_string(), id)) {
            Some(Answer::Unit(Ok(()))) => Ok(()),
            other => {
                choreo_base::lock(&self.served.works).remove(&id);
                Err(std::io::Error::other(match other {
                    Some(Answer::Unit(Err(e))) => e,
                    _ => lost().to_string(),
                }))
            }
        }
    }

    fn subscribe(&self, key: &str, id: u64, deliver: Deliver) -> Result<(), RobotError> {
        choreo_base::lock(&self.served.delivers).insert(id, Arc::new(deliver));
        let answer = self.ask(Request::Subscribe(self.handle, key.to_string(), id));
        self.subscribed(id, answer)
    }

    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: u64,
        deliver: Deliver,
    ) -> Result<(), RobotError> {
        choreo_base::lock(&self.served.delivers).insert(id, Arc::new(deliver));
        let request = Request::ConnectSignal(self.handle, service.into(), signal.into(), id);
        let answer = self.ask(request);
        self.subscribed(id, answer)
    }

    fn unsubscribe(&self, id: u64) {
        choreo_base::lock(&self.served.delivers).remove(&id);
        self.ask(Request::Unsubscribe(self.handle, id));
    }

    fn install_package(&self, name: &str) -> Option<String> {
        match self.ask(Request::Install(self.handle, name.to_string())) {
            Some(Answer::MaybeText(why)) => why,
            _ => Some(lost().to_string()),
        }
    }
}

/// In the box host, on a thread with a lane and no box (the load's scripts compiled before
/// any box is): NAOqi OS's package imported as `name` installed by choreo's process, which
/// may write the cache (`Some(None)`, or `Some(why not)`); `None` elsewhere.
pub(crate) fn install_without_a_box(name: &str) -> Option<Option<String>> {
    let lane = LANE.with(|l| l.borrow().clone())?;
    lane.send(&Message::Request(Request::Install(0, name.to_string())))
        .ok()?;
    // choreo's thread is waiting for this lane's order (a compile) to be answered: the
    // install's answer is the only thing it sends meanwhile.
    match lane.recv().ok()? {
        Message::Answer(Answer::MaybeText(why)) => Some(why),
        _ => Some(Some(lost().to_string())),
    }
}

impl Remote {
    /// A subscription's answer: on failure, its callback is forgotten.
    fn subscribed(&self, id: u64, answer: Option<Answer>) -> Result<(), RobotError> {
        let result = match answer {
            Some(Answer::Robot(Ok(_))) => Ok(()),
            Some(Answer::Robot(Err(e))) => Err(e),
            _ => Err(lost()),
        };
        if result.is_err() {
            choreo_base::lock(&self.served.delivers).remove(&id);
        }
        result
    }
}

/// Serves choreo's control socket until it closes: lanes opened, boxes dropped, barriers
/// answered.
pub(crate) fn serve_control(served: &Arc<Served>) {
    loop {
        match served.control.recv() {
            Ok(Some((Record::NewLane, Some(ends)))) => served.open_lane(ends),
            Ok(Some((Record::DropBox(handle), _))) => served.drop_box(handle),
            Ok(Some((Record::Sync(n), _))) => {
                if served.control.send(&Record::Synced(n)).is_err() {
                    return;
                }
            }
            Ok(Some((other, _))) => {
                eprintln!("choreo box host: an unexpected control record {other:?}");
                return;
            }
            Ok(None) => return,
            Err(e) => {
                eprintln!("choreo box host: {e}");
                return;
            }
        }
    }
}
