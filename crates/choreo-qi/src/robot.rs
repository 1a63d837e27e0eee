//! Robots over qi: [`RemoteRobot`] drives a real (or libqi-hosted) robot for the engine, and
//! [`serve_robot`] serves any [`Robot`] (the simulated robot) as NAOqi modules.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use choreo_base::Value;
use choreo_base::lock;
use choreo_engine::{MemorySink, Robot, RobotError, SubscriptionId};

use crate::codec::value::signature_of;
use crate::error::Error;
use crate::naoqi::{Catalogue, MODULE_BASE};
use crate::server::object::{MethodError, ObjectBuilder, Out, ServedObject};
use crate::server::{Server, ServerOptions};
use crate::session::{Canceler, RemoteObject, Session, SessionOptions, SignalLink};

/// Where a served robot listens unless told otherwise (loopback, NAOqi's port).
pub const DEFAULT_LISTEN: &str = "tcp://127.0.0.1:9559";

/// A robot reached over qi: every call goes to the module of that name on the robot.
///
/// - [`Robot::call`] resolves the module through the ServiceDirectory (cached until the
///   session reconnects) and the overload by the arguments' types.
/// - [`Robot::post`] runs the call in the background and returns a local task id; the
///   module's `wait`, `isRunning` and `stop` called with such an id act on it here (`stop`
///   cancels the remote call).
/// - [`Robot::subscribe`] uses `ALMemory.subscriber(key)` and its `signal`;
///   [`Robot::connect_signal`] links to the module's own signal (`registerEvent`); both are
///   made again after a reconnection.
///
/// While the link is down, calls fail at once with [`RobotError::Disconnected`]; a call with
/// no answer in time fails with [`RobotError::Timeout`]; a module or method the robot lacks
/// with [`RobotError::UnknownService`] or [`RobotError::UnknownMethod`]; the method's own
/// error with [`RobotError::Failed`].
pub struct RemoteRobot {
    state: Arc<RemoteState>,
}

struct RemoteState {
    session: Session,
    services: Mutex<HashMap<String, (u64, RemoteObject)>>,
    subscriptions: Mutex<HashMap<SubscriptionId, Subscription>>,
    tasks: Mutex<HashMap<i64, Arc<Task>>>,
    next_task: AtomicI64,
}

struct Subscription {
    source: Source,
    sink: MemorySink,
    live: Option<(RemoteObject, SignalLink)>,
}

/// What a subscription listens to.
#[derive(Clone)]
enum Source {
    /// An ALMemory key, through `ALMemory.subscriber(key).signal`.
    Memory(String),
    /// A module's signal.
    Signal { service: String, signal: String },
}

struct Task {
    done: Mutex<Option<Result<Value, String>>>,
    ended: Condvar,
    cancel: Mutex<Option<Canceler>>,
}

/// Task ids handed out by [`RemoteRobot::post`] start here, away from the small ids of
/// a robot's own tasks.
const FIRST_TASK: i64 = 100_000;

impl RemoteRobot {
    /// Connects to the robot at `url` (`tcp://host:9559`).
    pub fn connect(url: &str, options: SessionOptions) -> Result<RemoteRobot, Error> {
        Ok(RemoteRobot::new(Session::connect_with(url, options)?))
    }

    /// A robot over an existing session.
    pub fn new(session: Session) -> RemoteRobot {
        let state = Arc::new(RemoteState {
            session: session.clone(),
            services: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            tasks: Mutex::new(HashMap::new()),
            next_task: AtomicI64::new(FIRST_TASK),
        });
        let weak = Arc::downgrade(&state);
        session.on_reconnect(move |_| {
            if let Some(state) = weak.upgrade() {
                state.resubscribe();
            }
        });
        RemoteRobot { state }
    }

    /// The session under this robot.
    pub fn session(&self) -> &Session {
        &self.state.session
    }

    /// Looks up `services` now (each a round trip or two, then kept), so that their first
    /// calls do not wait for it: a fleet does it before its robots start together.
    pub fn prepare(&self, services: &[&str]) {
        for name in services {
            let _ = self.state.service(name);
        }
    }
}

/// A qi error of the call `service.method(args)` as a robot error:
///
/// - a link that is down or failed (`Disconnected`, `Io`) → [`RobotError::Disconnected`];
///   no answer in time → [`RobotError::Timeout`];
/// - a method the object does not have (`NotFound`, or a peer's error saying it cannot find
///   the method) → [`RobotError::UnknownMethod`]; a peer's error saying it cannot find the
///   service → [`RobotError::UnknownService`];
/// - arguments no overload takes (`Type`) → [`RobotError::BadArguments`];
/// - any other error of the peer (the method raised) and the rest → [`RobotError::Failed`].
///
/// The messages name the call, as `service.method: ...`.
fn robot_error(service: &str, method: &str, args: &[Value], error: Error) -> RobotError {
    let unknown_method = || RobotError::UnknownMethod {
        service: service.to_string(),
        method: method.to_string(),
        signature: signature_of(&Value::Tuple(args.to_vec())).to_string(),
        detail: String::new(),
    };
    match error {
        Error::NotFound(_) => unknown_method(),
        Error::Type(_) => RobotError::BadArguments(format!("{service}.{method}: {error}")),
        Error::Remote(text) if says_missing(&text, "service") => {
            RobotError::UnknownService(service.to_string())
        }
        Error::Remote(text) if says_missing(&text, "method") => unknown_method(),
        other => link_error(&format!("{service}.{method}"), other),
    }
}

/// A qi error of `what` that says nothing of services or methods: a lost link, a timeout, or
/// a failure (named after `what`).
fn link_error(what: &str, error: Error) -> RobotError {
    match error {
        Error::Disconnected(why) => RobotError::Disconnected(format!("{what}: {why}")),
        Error::Io(e) => RobotError::Disconnected(format!("{what}: {e}")),
        Error::Timeout(after) => RobotError::Timeout(after),
        other => RobotError::Failed(format!("{what}: {other}")),
    }
}

/// Whether a peer's error text says it cannot find a `what` (`Can't find service: X`,
/// libqi's `Can't find method: m`, choreo's `Cannot find service 'X' in index`).
fn says_missing(text: &str, what: &str) -> bool {
    ["Can't find ", "Cannot find "]
        .iter()
        .any(|lead| text.contains(&format!("{lead}{what}")))
}

impl RemoteState {
    fn service(&self, name: &str) -> Result<RemoteObject, RobotError> {
        let generation = self.session.generation();
        if let Some((g, o)) = lock(&self.services).get(name)
            && *g == generation
            && o.is_connected()
        {
            return Ok(o.clone());
        }
        let o = self.session.service(name).map_err(|e| match e {
            Error::NotFound(_) | Error::Remote(_) => RobotError::UnknownService(name.to_string()),
            other => link_error(name, other),
        })?;
        lock(&self.services).insert(name.to_string(), (generation, o.clone()));
        Ok(o)
    }

    fn call(&self, service: &str, method: &str, args: &[Value]) -> Result<Value, RobotError> {
        self.service(service)?
            .call(method, args)
            .map_err(|e| robot_error(service, method, args, e))
    }

    fn subscribe_live(
        &self,
        key: &str,
        sink: &MemorySink,
    ) -> Result<(RemoteObject, SignalLink), RobotError> {
        let memory = self.service("ALMemory")?;
        let args = [Value::String(key.to_string())];
        let subscriber = memory
            .call_object("subscriber", &args)
            .map_err(|e| robot_error("ALMemory", "subscriber", &args, e))?;
        let (sink, name) = (Arc::clone(sink), key.to_string());
        let link = subscriber
            .connect("signal", move |args| {
                sink(&name, args.into_iter().next().unwrap_or_default());
            })
            .map_err(|e| match e {
                // The subscriber object has no `signal`: the robot's ALMemory is not NAOqi's.
                Error::NotFound(text) => {
                    RobotError::Failed(format!("ALMemory.subscriber({key:?}).signal: {text}"))
                }
                other => robot_error("ALMemory", "subscriber", &args, other),
            })?;
        Ok((subscriber, link))
    }

    /// Links `sink` to signal `signal` of module `service`: the sink gets the signal's name
    /// and its arguments as a list, as a simulated module's signal gives them.
    fn connect_live(
        &self,
        service: &str,
        signal: &str,
        sink: &MemorySink,
    ) -> Result<(RemoteObject, SignalLink), RobotError> {
        let object = self.service(service)?;
        let (sink, name) = (Arc::clone(sink), signal.to_string());
        let link = object
            .connect(signal, move |args| sink(&name, Value::List(args)))
            .map_err(|e| match e {
                Error::NotFound(_) => {
                    RobotError::Failed(format!("{service}.{signal}: the module has no such signal"))
                }
                other => link_error(service, other),
            })?;
        Ok((object, link))
    }

    fn live(
        &self,
        source: &Source,
        sink: &MemorySink,
    ) -> Result<(RemoteObject, SignalLink), RobotError> {
        match source {
            Source::Memory(key) => self.subscribe_live(key, sink),
            Source::Signal { service, signal } => self.connect_live(service, signal, sink),
        }
    }

    fn resubscribe(&self) {
        let mut subs = lock(&self.subscriptions);
        for sub in subs.values_mut() {
            sub.live = self.live(&sub.source, &sub.sink).ok();
        }
    }

    /// Keeps subscription `id` to `source`, linked now.
    fn keep(&self, id: SubscriptionId, source: Source, sink: MemorySink) -> Result<(), RobotError> {
        let live = self.live(&source, &sink)?;
        lock(&self.subscriptions).insert(
            id,
            Subscription {
                source,
                sink,
                live: Some(live),
            },
        );
        Ok(())
    }

    fn task(&self, args: &[Value]) -> Option<Arc<Task>> {
        match args.first() {
            Some(Value::Int(id)) if *id >= FIRST_TASK => lock(&self.tasks).get(id).cloned(),
            _ => None,
        }
    }
}

impl Task {
    /// Waits up to `timeout` (`None`: for ever); true if the task ended.
    fn wait(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut done = lock(&self.done);
        while done.is_none() {
            match deadline {
                None => {
                    done = self
                        .ended
                        .wait(done)
                        .unwrap_or_else(PoisonError::into_inner)
                }
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    done = self
                        .ended
                        .wait_timeout(done, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
        true
    }
}

impl Robot for RemoteRobot {
    fn is_connected(&self) -> bool {
        self.session().is_connected()
    }

    fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        if let Some(task) = self.state.task(&args) {
            match method {
                "wait" => {
                    let ms = match args.get(1) {
                        Some(Value::Int(ms)) if *ms > 0 => Some(Duration::from_millis(*ms as u64)),
                        _ => None,
                    };
                    // True if the timeout expired, False if the task ended.
                    return Ok(Value::Bool(!task.wait(ms)));
                }
                "isRunning" => return Ok(Value::Bool(lock(&task.done).is_none())),
                "stop" => {
                    if let Some(c) = lock(&task.cancel).as_ref() {
                        c.cancel();
                    }
                    return Ok(Value::None);
                }
                _ => {}
            }
        }
        self.state.call(service, method, &args)
    }

    fn post(&self, service: &str, method: &str, args: Vec<Value>) -> Result<i64, RobotError> {
        let object = self.state.service(service)?;
        let pending = object
            .call_async(method, &args)
            .map_err(|e| robot_error(service, method, &args, e))?;
        let id = self.state.next_task.fetch_add(1, Ordering::SeqCst);
        let task = Arc::new(Task {
            done: Mutex::new(None),
            ended: Condvar::new(),
            cancel: Mutex::new(Some(pending.canceler())),
        });
        lock(&self.state.tasks).insert(id, Arc::clone(&task));
        let weak: Weak<RemoteState> = Arc::downgrade(&self.state);
        let name = format!("{service}.{method}#{id}");
        std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                let result = pending
                    .wait_for(None)
                    .map(|d| d.value)
                    .map_err(|e| e.to_string());
                *lock(&task.done) = Some(result);
                task.ended.notify_all();
                // Keep finished tasks a while for `wait`/`isRunning`, then forget them.
                std::thread::sleep(Duration::from_secs(60));
                if let Some(state) = weak.upgrade() {
                    lock(&state.tasks).remove(&id);
                }
            })
            .map_err(|e| {
                RobotError::Failed(format!("{service}.post.{method}: cannot start a task: {e}"))
            })?;
        Ok(id)
    }

    fn subscribe(&self, key: &str, id: SubscriptionId, sink: MemorySink) -> Result<(), RobotError> {
        self.state.keep(id, Source::Memory(key.to_string()), sink)
    }

    fn connect_signal(
        &self,
        service: &str,
        signal: &str,
        id: SubscriptionId,
        sink: MemorySink,
    ) -> Result<(), RobotError> {
        let source = Source::Signal {
            service: service.to_string(),
            signal: signal.to_string(),
        };
        self.state.keep(id, source, sink)
    }

    fn unsubscribe(&self, id: SubscriptionId) {
        let sub = lock(&self.state.subscriptions).remove(&id);
        if let Some(Subscription {
            live: Some((object, link)),
            ..
        }) = sub
        {
            let _ = object.disconnect(link);
        }
    }
}

/// One call a served robot received, for [`CallLog`].
#[derive(Debug)]
pub struct CallReport<'a> {
    /// Module name.
    pub service: &'a str,
    /// Method name.
    pub method: &'a str,
    /// Arguments as received.
    pub args: &'a [Value],
    /// What the robot answered (the task id for `pCall`).
    pub result: &'a Result<Value, RobotError>,
    /// When the robot began to handle the call (the report comes when it returned: a
    /// blocking call, such as a motion, returns when it is done).
    pub received: std::time::SystemTime,
}

/// Receives every call a served robot handles (printing them, counting them).
pub type CallLog = Arc<dyn Fn(&CallReport<'_>) + Send + Sync>;

/// A robot served over qi: the server and the URL it listens on.
pub struct RobotServer {
    /// The server (standalone, with its ServiceDirectory).
    pub server: Server,
    /// The URL bound.
    pub url: String,
}

impl RobotServer {
    /// Stops serving.
    pub fn stop(&self) {
        self.server.stop();
    }
}

/// Serves `robot` at `url` (`tcp://127.0.0.1:9559`, or port 0 for a free one) as NAOqi
/// modules: those of NAOqi's catalogue ([`crate::naoqi`]) the robot has
/// ([`Robot::has_service`]), each with the ALModule base methods and the catalogue's
/// methods and signatures; `ALMemory.subscriber`
/// returns objects with a `signal(m)` fed by the robot's memory. Every call is reported to
/// `on_call`.
pub fn serve_robot(
    robot: Arc<dyn Robot>,
    url: &str,
    on_call: Option<CallLog>,
    options: ServerOptions,
) -> Result<RobotServer, Error> {
    let server = Server::standalone(options)?;
    for module in Catalogue::naoqi().modules() {
        if robot.has_service(module.name) {
            let object = module_object(&robot, module.name, &module.methods, on_call.clone())?;
            server.register_service(module.name, object)?;
        }
    }
    let url = server.listen(url)?;
    Ok(RobotServer { server, url })
}

fn report(
    on_call: &Option<CallLog>,
    (service, method): (&str, &str),
    args: &[Value],
    result: &Result<Value, RobotError>,
    received: std::time::SystemTime,
) {
    if let Some(log) = on_call {
        log(&CallReport {
            service,
            method,
            args,
            result,
            received,
        });
    }
}

static NEXT_SUBSCRIPTION: AtomicI64 = AtomicI64::new(1 << 40);

fn module_object(
    robot: &Arc<dyn Robot>,
    module: &'static str,
    methods: &[crate::naoqi::Method],
    on_call: Option<CallLog>,
) -> Result<Arc<ServedObject>, Error> {
    let mut b = ObjectBuilder::new(&format!("{module} (choreo simulated robot)"));
    let names: Vec<Value> = methods
        .iter()
        .map(|m| Value::String(m.name.to_string()))
        .collect();
    for (name, params, returns) in MODULE_BASE {
        let (robot, log) = (Arc::clone(robot), on_call.clone());
        let names = names.clone();
        let handler = move |args: Vec<Value>| -> Result<Out, MethodError> {
            let received = std::time::SystemTime::now();
            let result = match name {
                "exit" => Ok(Value::None),
                "version" => Ok(Value::String("2.5.0 (choreo)".into())),
                "ping" => Ok(Value::Bool(true)),
                "getMethodList" => Ok(Value::List(names.clone())),
                "getMethodHelp" | "getUsage" => Ok(Value::String(format!(
                    "{module}.{}",
                    args.first().unwrap_or(&Value::None)
                ))),
                "getModuleHelp" => Ok(Value::String(module.to_string())),
                "getBrokerName" => Ok(Value::String("choreo".into())),
                "pCall" | "__pCall" => {
                    let call = match args.last() {
                        Some(Value::List(v) | Value::Tuple(v)) => v.clone(),
                        _ => Vec::new(),
                    };
                    match call.split_first() {
                        Some((Value::String(method), rest)) => {
                            robot.post(module, method, rest.to_vec()).map(Value::Int)
                        }
                        _ => Err(RobotError::BadArguments(format!(
                            "{module}.pCall: expects [method, args...]"
                        ))),
                    }
                }
                _ => robot.call(module, name, args.clone()),
            };
            report(&log, (module, name), &args, &result, received);
            // The robot's error becomes the text of the qi error reply.
            result.map(Out::Value).map_err(|e| e.to_string().into())
        };
        b = b.method(name, params, returns, handler);
    }
    // ALMemory.subscriber returns an object: served below.
    let own = methods
        .iter()
        .filter(|m| !(module == "ALMemory" && m.name == "subscriber"));
    for m in own {
        let (robot, log) = (Arc::clone(robot), on_call.clone());
        let name = m.name;
        let void = m.returns == "v";
        b = b.method(m.name, m.params, m.returns, move |args| {
            let received = std::time::SystemTime::now();
            let result = robot.call(module, name, args.clone());
            report(&log, (module, name), &args, &result, received);
            result
                .map(|v| Out::Value(if void { Value::None } else { v }))
                .map_err(|e| e.to_string().into())
        });
    }
    if module == "ALMemory" {
        let robot = Arc::clone(robot);
        let log = on_call;
        b = b.method("subscriber", "(s)", "o", move |args| {
            let key = match args.first() {
                Some(Value::String(k)) => k.clone(),
                _ => return Err("ALMemory.subscriber: the key must be a string".into()),
            };
            let id = NEXT_SUBSCRIPTION.fetch_add(1, Ordering::Relaxed) as u64;
            let unsubscriber = Arc::clone(&robot);
            let object = ObjectBuilder::new(&format!("ALMemory subscriber of {key}"))
                .signal("signal", "(m)")
                .on_drop(move || unsubscriber.unsubscribe(id))
                .build()
                .map_err(|e| e.to_string())?;
            let weak = Arc::downgrade(&object);
            let sink: MemorySink = Arc::new(move |_key: &str, value: Value| {
                if let Some(o) = weak.upgrade() {
                    let _ = o.emit("signal", vec![value]);
                }
            });
            let received = std::time::SystemTime::now();
            let result = robot.subscribe(&key, id, sink).map(|()| Value::None);
            report(&log, ("ALMemory", "subscriber"), &args, &result, received);
            result
                .map(|_| Out::Object(object))
                .map_err(|e| e.to_string().into())
        });
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(error: Error) -> RobotError {
        robot_error("ALMotion", "moveTo", &[Value::Float(1.0)], error)
    }

    #[test]
    fn a_lost_link_and_a_timeout_are_connection_losses() {
        let e = map(Error::Disconnected("tcp://robot:9559: reset".into()));
        assert_eq!(
            e,
            RobotError::Disconnected("ALMotion.moveTo: tcp://robot:9559: reset".into())
        );
        let e = map(Error::Io(std::io::Error::other("broken pipe")));
        assert!(matches!(&e, RobotError::Disconnected(m) if m.ends_with("broken pipe")));
        assert!(e.is_connection_lost());
        let e = map(Error::Timeout(Duration::from_secs(3)));
        assert_eq!(e, RobotError::Timeout(Duration::from_secs(3)));
        assert!(e.is_connection_lost());
    }

    #[test]
    fn missing_services_and_methods_are_told_from_failures() {
        assert_eq!(
            map(Error::Remote("Can't find service: ALMotion".into())),
            RobotError::UnknownService("ALMotion".into())
        );
        let unknown = RobotError::UnknownMethod {
            service: "ALMotion".into(),
            method: "moveTo".into(),
            signature: "(d)".into(),
            detail: String::new(),
        };
        assert_eq!(
            map(Error::NotFound("ALMotion: no method moveTo".into())),
            unknown
        );
        assert_eq!(
            map(Error::Remote("Can't find method: moveTo".into())),
            unknown
        );
        assert!(matches!(
            map(Error::Type("ALMotion.moveTo: no overload takes (d)".into())),
            RobotError::BadArguments(_)
        ));
        let e = map(Error::Remote("the robot fell".into()));
        assert_eq!(
            e,
            RobotError::Failed("ALMotion.moveTo: the robot fell".into())
        );
        assert!(!e.is_connection_lost());
        assert!(matches!(map(Error::Canceled), RobotError::Failed(_)));
    }
}
