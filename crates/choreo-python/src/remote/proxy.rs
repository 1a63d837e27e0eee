//! choreo's side of the box host: the engine's [`ScriptHost`] and [`BoxCode`] for box code
//! that runs in the box host ([`RemoteHost`], [`RemoteBox`]), and the requests box code
//! sends answered with the box's own [`BoxContext`].
//!
//! Each thread of choreo's that calls box code has a lane of its own to the box host (made
//! at its first call, closed when the thread ends). Calling box code is sending an order
//! and serving the lane until its answer comes: every request box code makes meanwhile is
//! handled on this very thread, as the call would have been in one process — so a sleep
//! sleeps on this thread's turn, a robot call is traced from this thread, and virtual time
//! sees no difference.
//!
//! Nothing the box host sends is trusted: a malformed frame, an answer out of turn or a
//! lane closed midway ends the box host (it is killed), and the calls waiting on it return
//! an error naming it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use choreo_engine::graph::{BoxNode, Graph};
use choreo_engine::{BoxCode, BoxContext, Hook, ScriptError, ScriptHost, Value};

use super::control::Record;
use super::lane::{Lane, LaneError};
use super::message::{Answer, HostOptions, Message, Order};
use super::process::{BoxHost, Entry};
use super::request::Request;
use crate::side::{BoxInfo, clock_of};
use crate::stack::{HookAnswer, HookRequest};

/// How long a box host whose lane closed has to end (real time) before choreo takes the
/// lane's close for box code's doing and stops it.
const CLOSED_LANE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// A thread's lane to one box host.
struct ThreadLane {
    /// The host's number.
    host: u64,
    /// Alive while the host is.
    alive: std::sync::Weak<()>,
    lane: Rc<Lane>,
    /// The box host's thread at its other end, as this process's `/proc` names it.
    thread: Option<u64>,
}

thread_local! {
    /// This thread's lanes, by box host.
    static LANES: RefCell<Vec<ThreadLane>> = const { RefCell::new(Vec::new()) };
}

/// Why an order to the box host got no answer.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    /// The lane failed (the box host died, or broke the protocol and was stopped).
    #[error("box code's process (the box host) {0}")]
    Lane(String),
}

impl BoxHost {
    /// This thread's lane to the box host, made at the first call.
    fn lane(&self) -> Result<(Rc<Lane>, Option<u64>), OrderError> {
        let found = LANES.with(|lanes| {
            let mut lanes = lanes.borrow_mut();
            // The lanes of box hosts that are gone are closed here.
            lanes.retain(|l| l.alive.strong_count() > 0);
            lanes
                .iter()
                .find(|l| l.host == self.id)
                .map(|l| (Rc::clone(&l.lane), l.thread))
        });
        if let Some(found) = found {
            return Ok(found);
        }
        // The first lane waits for the process to be ready (it was started without waiting).
        self.wait_ready()
            .map_err(|e| OrderError::Lane(e.to_string()))?;
        let lane = self
            .control
            .new_lane()
            .map(Lane::new)
            .map_err(|e| self.broken(&e.to_string()))?;
        // Its thread says which it is (its id in its namespace), first.
        let thread = match lane.recv().map_err(|e| self.lane_failed(&e))? {
            Message::Answer(Answer::Number(inner)) => self.outer_thread(inner),
            _ => return Err(self.broken("opened a lane out of turn")),
        };
        let lane = Rc::new(lane);
        LANES.with(|lanes| {
            lanes.borrow_mut().push(ThreadLane {
                host: self.id,
                alive: Arc::downgrade(&self.alive),
                lane: Rc::clone(&lane),
                thread,
            });
        });
        Ok((lane, thread))
    }

    /// Sends `order` on this thread's lane and serves the box code's requests until its
    /// answer comes.
    pub(crate) fn order(self: &Arc<Self>, order: &Order) -> Result<Answer, OrderError> {
        self.order_serving(order, &mut |_| {
            HookAnswer::Unit(Err("no behavior of a stack is running here".to_string()))
        })
    }

    /// [`Self::order`], the requests of a stack's behavior's `cx` answered by `serve`.
    pub(crate) fn order_serving(
        self: &Arc<Self>,
        order: &Order,
        serve: &mut dyn FnMut(HookRequest) -> HookAnswer,
    ) -> Result<Answer, OrderError> {
        // Made first: it reads `/proc`, which a confined thread may not.
        let (lane, thread) = self.lane()?;
        let holds_box_code_s_rules = matches!(
            order,
            Order::Construct { .. }
                | Order::Call { .. }
                | Order::Deliver { .. }
                | Order::Work(_)
                | Order::DialogScript(_)
        );
        if holds_box_code_s_rules && let Some(c) = &self.confinement {
            // What this thread does for box code (the robot's reads) is held to box code's
            // rules, as on the thread that ran box code in one process. (A new host or a
            // compile runs none; a stack's behavior asks the stack's runner, whose thread
            // this is and stays choreo's: the robot's work for it is held apart,
            // `crate::stack::held`.)
            c.confine_this_thread();
        }
        self.ordered();
        lane.send_order(order).map_err(|e| self.lane_failed(&e))?;
        let virtual_time = self.virtual_time.load(std::sync::atomic::Ordering::Relaxed);
        loop {
            // While it waits, the box host's thread is the one the turns judge (computing,
            // it keeps this thread's turn; blocked, it loses it), not this one, asleep.
            let stand_in = (self.host_pid().zip(thread))
                .map(|(pid, tid)| choreo_engine::activity::stand_in(pid, tid));
            let got = if virtual_time {
                lane.recv_soon()
            } else {
                lane.recv()
            };
            drop(stand_in);
            match got.map_err(|e| self.lane_failed(&e))? {
                Message::Answer(answer) => return Ok(answer),
                Message::Request(Request::Stack(request)) => {
                    lane.send(&Message::Answer(Answer::Stack(serve(request))))
                        .map_err(|e| self.lane_failed(&e))?;
                }
                Message::Request(request) => {
                    let answered = request.answered();
                    let answer = self.answer(request);
                    if answered {
                        lane.send(&Message::Answer(answer))
                            .map_err(|e| self.lane_failed(&e))?;
                    }
                }
                Message::Order(_) => return Err(self.broken("sent an order")),
            }
        }
    }

    /// Runs a dialog's `%script` in the box host: what it printed, or the exception it
    /// raised (`ValueError: no`). On a thread of its own, as box code's requests are served
    /// on the thread that ordered and held to box code's rules there: the caller's (the
    /// dialog's) stays choreo's.
    pub fn dialog_script(self: &Arc<Self>, code: &str) -> Result<String, crate::DialogScriptError> {
        let order = Order::DialogScript(code.to_string());
        let ran = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("choreo-dialog-script".to_string())
                .spawn_scoped(scope, || self.order(&order))
                .map(|t| t.join())
        });
        let failed = |exception: String| crate::DialogScriptError { exception };
        match ran {
            Ok(Ok(Ok(Answer::Printed(printed)))) => printed.map_err(failed),
            Ok(Ok(Ok(_))) => Err(failed(
                self.broken("answered a %script out of turn").to_string(),
            )),
            Ok(Ok(Err(e))) => Err(failed(e.to_string())),
            Ok(Err(_)) => Err(failed("the %script's thread panicked".to_string())),
            Err(e) => Err(failed(format!("no thread for the %script: {e}"))),
        }
    }

    /// The id, in this process's `/proc`, of the box host's thread whose id in its own
    /// namespace is `inner` (its `NSpid` line ends with it); `None` when it cannot be told.
    fn outer_thread(&self, inner: u64) -> Option<u64> {
        let pid = self.host_pid()?;
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .ok()?
            .filter_map(Result::ok)
            .find_map(|task| {
                let status = std::fs::read_to_string(task.path().join("status")).ok()?;
                let nspid = status.lines().find_map(|l| l.strip_prefix("NSpid:"))?;
                let last: u64 = nspid.split_whitespace().last()?.parse().ok()?;
                (last == inner)
                    .then(|| task.file_name().to_str()?.parse().ok())
                    .flatten()
            })
    }

    fn lane_failed(&self, e: &LaneError) -> OrderError {
        match e {
            // A lane closes when the process ends (it closes every descriptor), or when box
            // code closes it: the first is told as the process's end once it is reaped,
            // the second is a broken protocol.
            LaneError::Closed if self.ends_within(CLOSED_LANE_GRACE) => {
                OrderError::Lane(self.gone_text())
            }
            LaneError::Closed => self.broken("closed a lane and went on"),
            other => self.broken(&other.to_string()),
        }
    }

    /// The box host broke the protocol: it is stopped, and the error says why.
    pub(super) fn broken(&self, why: &str) -> OrderError {
        self.stop(&format!("broke its protocol ({why})"));
        OrderError::Lane(self.gone_text())
    }

    /// Answers box code's `request` with its box's context (`Answer::Done` for a box
    /// that is gone, or a request that has no answer).
    fn answer(self: &Arc<Self>, request: Request) -> Answer {
        let handle = request_box(&request);
        let Some(ctx) = self.context(handle) else {
            return match request {
                // An install is choreo's own work, a box's or not: the packages a load's
                // scripts import are installed before any box is (handle 0).
                Request::Install(_, name) => install(name),
                request => gone_answer(&request),
            };
        };
        match request {
            Request::Fire(_, name, value) => {
                // The box host checked the output: an error here is an engine's that
                // nobody waits for.
                let _ = ctx.fire(&name, value);
                Answer::Done
            }
            Request::Parameter(_, name) => Answer::MaybeValue(ctx.parameter(&name)),
            Request::SetParameter(_, name, value) => Answer::Bool(ctx.set_parameter(&name, value)),
            Request::Timeline(_, command) => {
                ctx.timeline(command);
                Answer::Done
            }
            Request::ParentTimeline(_, command) => Answer::Bool(ctx.parent_timeline(command)),
            Request::Fps(_) => Answer::Number(u64::from(ctx.fps())),
            Request::ParentFps(_) => Answer::MaybeNumber(ctx.parent_fps().map(u64::from)),
            Request::Call(_, service, method, args) => {
                Answer::Robot(ctx.call_robot(&service, &method, args))
            }
            Request::Post(_, service, method, args) => {
                Answer::Robot(ctx.post_robot(&service, &method, args).map(Value::Int))
            }
            Request::HasService(_, service) => {
                Answer::Bool(ctx.robot().is_none_or(|r| r.has_service(&service)))
            }
            Request::Log(_, level, text, cut) => {
                ctx.log_cut(&level, &text, usize::try_from(cut).unwrap_or(usize::MAX));
                Answer::Done
            }
            Request::Uncaught(_, source, text) => {
                ctx.uncaught(&source, &text);
                Answer::Done
            }
            Request::Now(_) => Answer::Number(ctx.now().0),
            Request::Sleep(_, ns) => {
                ctx.sleep(std::time::Duration::from_nanos(ns));
                Answer::Number(ctx.now().0)
            }
            Request::PassTurn(_) => {
                ctx.activity().pass_turn();
                Answer::Done
            }
            Request::Draw(_, of, drew) => Answer::Number(ctx.draw(of, drew)),
            Request::Spawn(_, name, work) => Answer::Unit(self.spawn(&ctx, &name, work)),
            Request::Subscribe(_, key, id) => {
                Answer::Robot(
                    self.subscribe(&ctx, handle, id, |r, sink| r.subscribe(&key, id, sink)),
                )
            }
            Request::ConnectSignal(_, service, signal, id) => {
                Answer::Robot(self.subscribe(&ctx, handle, id, |r, sink| {
                    r.connect_signal(&service, &signal, id, sink)
                }))
            }
            Request::Unsubscribe(_, id) => {
                self.unsubscribe(handle, id);
                Answer::Done
            }
            Request::Install(_, name) => install(name),
            // `order_serving` hands these to the stack's runner before they reach here.
            Request::Stack(_) => gone_answer(&request),
        }
    }

    fn context(&self, handle: u64) -> Option<BoxContext> {
        choreo_base::lock(&self.boxes)
            .get(&handle)
            .map(|entry| entry.ctx.clone())
    }

    /// Starts an activity of the engine that runs box code's work `work` on a lane of its
    /// own.
    fn spawn(self: &Arc<Self>, ctx: &BoxContext, name: &str, work: u64) -> Result<(), String> {
        let me = Arc::clone(self);
        // Started from a confined thread, it is confined already: its order must not stack
        // the rules again (a thread has at most 16 layers; a timer that starts the next one
        // would reach them).
        let confined = choreo_sandbox::landlock::this_thread_confined();
        ctx.activity()
            .spawn(name, move || {
                choreo_sandbox::landlock::inherit(confined);
                // An error is the box host's end, which its waiter reports.
                let _ = me.order(&Order::Work(work));
            })
            .map_err(|e| e.to_string())
    }

    /// A subscription of box `handle` made by `connect` (the robot, the sink), its updates
    /// handed to the box host in order on an activity of their own.
    fn subscribe(
        self: &Arc<Self>,
        ctx: &BoxContext,
        handle: u64,
        id: u64,
        connect: impl FnOnce(
            &Arc<dyn choreo_engine::Robot>,
            choreo_engine::MemorySink,
        ) -> Result<(), choreo_engine::RobotError>,
    ) -> Result<Value, choreo_engine::RobotError> {
        let robot = ctx.robot().ok_or(choreo_engine::RobotError::NoRobot)?;
        let me = Arc::downgrade(self);
        let deliver: crate::side::Deliver = Box::new(move |key, value| {
            if let Some(me) = me.upgrade() {
                let _ = me.order(&Order::Deliver { id, key, value });
            }
        });
        connect(
            robot,
            crate::mailbox::Mailbox::sink(ctx.activity(), deliver),
        )?;
        if let Some(entry) = choreo_base::lock(&self.boxes).get_mut(&handle) {
            entry.subscriptions.push(id);
        }
        Ok(Value::None)
    }

    fn unsubscribe(&self, handle: u64, id: u64) {
        let ctx = {
            let mut boxes = choreo_base::lock(&self.boxes);
            let Some(entry) = boxes.get_mut(&handle) else {
                return;
            };
            entry.subscriptions.retain(|s| *s != id);
            entry.ctx.clone()
        };
        if let Some(robot) = ctx.robot() {
            robot.unsubscribe(id);
        }
    }
}

/// The box a request names.
fn request_box(r: &Request) -> u64 {
    match r {
        Request::Fire(h, ..)
        | Request::Parameter(h, ..)
        | Request::SetParameter(h, ..)
        | Request::Timeline(h, ..)
        | Request::ParentTimeline(h, ..)
        | Request::Fps(h)
        | Request::ParentFps(h)
        | Request::Call(h, ..)
        | Request::Post(h, ..)
        | Request::HasService(h, ..)
        | Request::Log(h, ..)
        | Request::Uncaught(h, ..)
        | Request::Now(h)
        | Request::Sleep(h, ..)
        | Request::PassTurn(h)
        | Request::Draw(h, ..)
        | Request::Spawn(h, ..)
        | Request::Subscribe(h, ..)
        | Request::ConnectSignal(h, ..)
        | Request::Unsubscribe(h, ..)
        | Request::Install(h, ..) => *h,
        // Answered by the stack's runner, never here.
        Request::Stack(_) => 0,
    }
}

/// A NAOqi OS package installed for box code, by choreo's helper thread (outside box code's
/// rules; pip itself confined: `installer.rs`): `None`, or why not.
fn install(name: String) -> Answer {
    Answer::MaybeText(choreo_sandbox::landlock::helped(move || {
        crate::packages::install(&name)
    }))
}

/// The answer to a request of a box that is gone (its behavior unloaded while box code's
/// thread went on): as an unloaded box's calls answer.
fn gone_answer(r: &Request) -> Answer {
    let gone = || choreo_engine::RobotError::Failed("the behavior was unloaded".to_string());
    match r {
        Request::Parameter(..) => Answer::MaybeValue(None),
        Request::SetParameter(..) | Request::ParentTimeline(..) | Request::HasService(..) => {
            Answer::Bool(false)
        }
        Request::Fps(..) | Request::Now(..) => Answer::Number(0),
        Request::ParentFps(..) => Answer::MaybeNumber(None),
        Request::Call(..)
        | Request::Post(..)
        | Request::Subscribe(..)
        | Request::ConnectSignal(..) => Answer::Robot(Err(gone())),
        Request::Spawn(..) => Answer::Unit(Err("the behavior was unloaded".to_string())),
        _ => Answer::Done,
    }
}

/// The script host of one run whose box code runs in the box host.
pub struct RemoteHost {
    host: Arc<BoxHost>,
    /// What the box host's side of it is made with: at the first order (so that a run's
    /// load goes on while the box host starts).
    options: HostOptions,
    /// Its number in the box host, once made; or why it could not be.
    number: std::sync::OnceLock<Result<u32, String>>,
}

impl RemoteHost {
    /// A Python host in `host` for a run with `options`; made there at its first use.
    pub fn new(host: &Arc<BoxHost>, options: &crate::PythonOptions) -> RemoteHost {
        RemoteHost {
            host: Arc::clone(host),
            options: HostOptions {
                behavior_path: options.behavior_path.clone(),
                package_uid: options.package_uid.clone(),
                behavior_relative_path: options.behavior_relative_path.clone(),
                robot_root: options.robot_root.clone(),
            },
            number: std::sync::OnceLock::new(),
        }
    }

    /// Its number in the box host, made there the first time.
    fn number(&self) -> Result<u32, ScriptError> {
        let made = self.number.get_or_init(|| {
            let host = &self.host;
            match host.order(&Order::NewHost(self.options.clone())) {
                Ok(Answer::Number(n)) => {
                    u32::try_from(n).map_err(|_| host.broken("a host number past u32").to_string())
                }
                Ok(_) => Err(host.broken("answered a new host out of turn").to_string()),
                Err(e) => Err(e.to_string()),
            }
        });
        made.clone().map_err(ScriptError::new)
    }
}

impl ScriptHost for RemoteHost {
    fn generated_code(&self, def: &choreo_xar::BoxDef) -> Option<String> {
        crate::plugins::generated_code(def)
    }

    fn prepare(&self, graph: &Graph) {
        let mut seen = std::collections::HashSet::new();
        let scripts = graph
            .boxes
            .iter()
            .filter(|n| !n.code.trim().is_empty() && seen.insert(n.code.as_str()))
            .map(|n| (n.code.clone(), n.path.clone()))
            .collect();
        // A failure here only loses the head start: construct reports.
        if let Ok(host) = self.number() {
            let _ = self.host.order(&Order::Prepare { host, scripts });
        }
    }

    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, ScriptError> {
        let handle = self.host.next_handle.fetch_add(1, Ordering::SeqCst);
        choreo_base::lock(&self.host.boxes).insert(
            handle,
            Entry {
                ctx: ctx.clone(),
                subscriptions: Vec::new(),
            },
        );
        let clock = clock_of(ctx);
        if clock.virtual_time {
            (self.host.virtual_time).store(true, Ordering::Relaxed);
        }
        let number = match self.number() {
            Ok(n) => n,
            Err(e) => {
                choreo_base::lock(&self.host.boxes).remove(&handle);
                return Err(e);
            }
        };
        let order = Order::Construct {
            host: number,
            handle,
            info: BoxInfo::of(node, ctx.id().0),
            clock,
        };
        let failed = match self.host.order(&order) {
            Ok(Answer::Constructed(has_script, optional)) => {
                return Ok(Arc::new(RemoteBox {
                    host: Arc::clone(&self.host),
                    handle,
                    has_script,
                    optional,
                }));
            }
            Ok(Answer::Script(Err(e))) => e,
            Ok(_) => ScriptError::new(
                self.host
                    .broken("answered a construction out of turn")
                    .to_string(),
            ),
            Err(e) => ScriptError::new(e.to_string()),
        };
        choreo_base::lock(&self.host.boxes).remove(&handle);
        Err(failed)
    }
}

/// A box whose code runs in the box host.
struct RemoteBox {
    host: Arc<BoxHost>,
    handle: u64,
    has_script: bool,
    optional: Vec<String>,
}

impl BoxCode for RemoteBox {
    fn call(&self, hook: &Hook, _ctx: &BoxContext) -> Result<(), ScriptError> {
        if !self.has_script {
            return Ok(());
        }
        let order = Order::Call {
            handle: self.handle,
            hook: hook.clone(),
        };
        match self.host.order(&order) {
            Ok(Answer::Script(result)) => result,
            Ok(_) => Err(ScriptError::new(
                self.host.broken("answered a hook out of turn").to_string(),
            )),
            Err(e) => Err(ScriptError::new(e.to_string())),
        }
    }

    fn defines(&self, hook: &Hook) -> bool {
        self.optional.contains(&hook.script_name())
    }

    fn runs_inline(&self) -> bool {
        !self.has_script
    }
}

impl Drop for RemoteBox {
    fn drop(&mut self) {
        let entry = choreo_base::lock(&self.host.boxes).remove(&self.handle);
        if let Some(entry) = entry
            && let Some(robot) = entry.ctx.robot()
        {
            for id in entry.subscriptions {
                robot.unsubscribe(id);
            }
        }
        // The box host may be gone: nothing to tell it then.
        if !self.host.killed.load(Ordering::SeqCst) {
            let _ = self.host.control.send(&Record::DropBox(self.handle));
        }
    }
}
