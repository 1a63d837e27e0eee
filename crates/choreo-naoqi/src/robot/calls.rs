//! The path of every call and post of the simulated robot: counted, a scenario's stub
//! first, refused when the module or the method is not served, the generic ALModule methods
//! (`wait`, `stop`, `isRunning`, ...) served here for every module, the rest asked of the
//! services; a method that takes time runs as a task, driven by the caller or, posted, in
//! the background.

use choreo_engine::clock::Time;
use choreo_engine::{RobotError, Value};

use crate::robot::args::{Args, signature};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::playing;
use crate::robot::scenario::When;
use crate::robot::tasks::{Driven, Phase};
use crate::services::core::behaviors::waits_for_a_run;
use crate::services::core::service_manager;

impl Sim {
    /// Whether the robot has module `service`: one it serves that its model has (a NAO has
    /// no ALTabletService: the catalogue's one-robot modules), or one a scenario stubs.
    pub fn has_service(&self, service: &str) -> bool {
        let served = self.services.has(service)
            && choreo_robot::naoqi::Catalogue::naoqi().on_robot(service, self.model);
        served || playing::stubs_service(self, service) || self.package_service(service)
    }

    /// Whether `service` is one a package service's program registered (and no module of
    /// the robot's own): its calls go to that program.
    pub(crate) fn package_service(&self, service: &str) -> bool {
        !self.services.has(service)
            && service_manager::host(self).is_some_and(|h| h.has_module(service))
    }

    /// The methods `service` has besides the generic ones (empty for an unknown module).
    pub(crate) fn methods_of(&self, service: &str) -> Vec<&'static str> {
        let listed = crate::robot::catalogue::methods(service);
        if listed.is_empty() {
            // A module served from a table that the catalogue lacks still lists what it
            // serves (a test keeps the two in step:
            // `every_method_a_table_serves_is_in_the_catalogue`).
            return self.services.table_methods(service);
        }
        listed
    }

    /// A call of a module or a method the robot does not serve: counted, observed, and the
    /// error NAOqi raises for it.
    fn unsupported(&self, service: &str, method: &str, args: &[Value]) -> RobotError {
        self.count(service, method, Some("unsupported"));
        let signature = signature(args);
        self.observe(RobotEvent::Unsupported {
            service: service.to_string(),
            method: method.to_string(),
            signature: signature.clone(),
        });
        if self.has_service(service) {
            RobotError::UnknownMethod {
                service: service.to_string(),
                method: method.to_string(),
                signature,
                detail: crate::robot::catalogue::not_served(service, method),
            }
        } else {
            RobotError::UnknownService(service.to_string())
        }
    }

    /// A call that failed: counted and observed.
    fn failed(&self, service: &str, method: &str, error: RobotError) -> RobotError {
        self.count(service, method, Some("failed"));
        self.observe(RobotEvent::CallFailed {
            service: service.to_string(),
            method: method.to_string(),
            error: error.to_string(),
        });
        error
    }

    /// The start of every call and post: counts it, serves the generic methods, asks the
    /// service.
    fn begin(&self, service: &str, method: &str, args: &[Value]) -> Result<Reply, RobotError> {
        // A scenario's stub stands in for the robot (docs/scenarios.md), also for a method
        // the simulated robot does not serve or NAOqi's catalogue does not know.
        if let Some(value) = playing::stub(self, service, method, args) {
            self.count(service, method, None);
            playing::on_call(self, service, method, args, When::Start);
            return Ok(Reply::Now(value));
        }
        if self.package_service(service)
            && let Some(host) = service_manager::host(self)
        {
            self.count(service, method, None);
            return host
                .call(service, method, args.to_vec())
                .map(Reply::Now)
                .map_err(|e| self.failed(service, method, e));
        }
        if !self.has_service(service) || !crate::robot::catalogue::may_have(service, method) {
            return Err(self.unsupported(service, method, args));
        }
        let a = Args::new(service, method, args);
        let reply = match self.generic(service, method, &a) {
            Some(result) => result.map(Reply::Generic),
            None => self
                .services
                .serve(self, service, method, &a)
                .map_err(|e| e.into_robot_error(&a.name)),
        };
        match reply {
            Ok(Reply::NotServed) => Err(self.unsupported(service, method, args)),
            Ok(reply) => {
                self.count(service, method, None);
                if !matches!(reply, Reply::Generic(_)) {
                    playing::on_call(self, service, method, args, When::Start);
                }
                Ok(reply)
            }
            Err(e) => Err(self.failed(service, method, e)),
        }
    }

    /// A blocking call.
    pub fn call(&self, service: &str, method: &str, args: Vec<Value>) -> Result<Value, RobotError> {
        match self.begin(service, method, &args)? {
            Reply::Generic(value) => Ok(value),
            Reply::Timed(plan) => {
                let task = self.start_task(service, method, &args, plan);
                match self.drive(&task, None) {
                    Driven::Finished(v) => Ok(v),
                    Driven::TimedOut => Ok(Value::None),
                }
            }
            Reply::Now(value) => {
                playing::on_call(self, service, method, &args, When::End);
                Ok(value)
            }
            Reply::NotServed => Err(self.unsupported(service, method, &args)),
        }
    }

    /// A posted call: a task driven in the background; its id at once.
    pub fn post_call(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<i64, RobotError> {
        if waits_for_a_run(service, method) {
            return self
                .post_in_background(service, method, args)
                .map_err(|e| e.into_robot_error(&format!("{service}.{method}")));
        }
        match self.begin(service, method, &args)? {
            Reply::Timed(plan) => {
                let task = self.start_task(service, method, &args, plan);
                let id = task.id;
                if task.phase() == Phase::Running {
                    self.drive_in_background(&format!("{service}.{method}#{id}"), task, |_, _| {})
                        .map_err(|e| RobotError::Failed(format!("{service}.post.{method}: {e}")))?;
                }
                Ok(id)
            }
            Reply::Now(_) | Reply::Generic(_) => {
                playing::on_call(self, service, method, &args, When::End);
                Ok(self.tasks.fresh_id(service))
            }
            Reply::NotServed => Err(self.unsupported(service, method, &args)),
        }
    }

    /// A post of box code (`proxy.post.method(...)`, `proxy.pCall("method", ...)`): NAOqi
    /// makes the posted method a task of its own and returns the task's id ("Each post call
    /// generates a task id", NAOqi's developer guide, "Blocking and non-blocking calls").
    /// What stops the task from being made is raised to the caller: a module or a method
    /// the robot does not have, arguments no overload takes. A method that fails once
    /// started (a sound file that is not there) fails in its task: the caller has the id,
    /// `wait` returns, the failure is the robot's log ([`RobotEvent::CallFailed`]), as over
    /// qi messaging.
    pub fn post_task(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<i64, RobotError> {
        match self.post_call(service, method, args) {
            Err(RobotError::Failed(_)) => Ok(self.tasks.fresh_id(service)),
            posted => posted,
        }
    }

    /// The generic ALModule methods (§1.3) on `service`; `None` if `method` is not one.
    pub(crate) fn generic(
        &self,
        service: &str,
        method: &str,
        a: &Args<'_>,
    ) -> Option<Result<Value, RobotError>> {
        let bad = |e: CallError| e.into_robot_error(&a.name);
        let result = match method {
            "wait" => (|| {
                let id = a.int(0).map_err(bad)?;
                let timeout_ms = if a.len() > 1 {
                    a.int(1).map_err(bad)?
                } else {
                    0
                };
                let Some(task) = self.tasks.get(service, id) else {
                    return Ok(Value::Bool(false));
                };
                let deadline = (timeout_ms > 0)
                    .then(|| Time(self.now().0.saturating_add(timeout_ms as u64 * 1_000_000)));
                Ok(Value::Bool(matches!(
                    self.drive(&task, deadline),
                    Driven::TimedOut
                )))
            })(),
            // stop(name) is the module's own, where it has one (2.8's ALServiceManager).
            "stop"
                if matches!(a.values.first(), Some(Value::String(_)))
                    && crate::robot::catalogue::methods(service).contains(&"stop") =>
            {
                return None;
            }
            "stop" => a.int(0).map_err(bad).map(|id| {
                if let Some(task) = self.tasks.get(service, id) {
                    self.stop_task(&task);
                }
                Value::None
            }),
            // isRunning() without an id is the module's own, where it has one
            // (ALBasicAwareness).
            "isRunning"
                if a.len() == 0
                    && crate::robot::catalogue::methods(service).contains(&"isRunning") =>
            {
                return None;
            }
            "isRunning" => a.int(0).map_err(bad).map(|id| {
                Value::Bool(
                    self.tasks
                        .get(service, id)
                        .is_some_and(|t| t.phase() == Phase::Running),
                )
            }),
            "pCall" => (|| {
                let target = a.str(0).map_err(bad)?;
                self.post_task(service, target, a.values[1..].to_vec())
                    .map(Value::Int)
            })(),
            "ping" => Ok(Value::Bool(true)),
            "version" => Ok(Value::from(self.naoqi_release())),
            "getBrokerName" => Ok(Value::from("choreo-sim")),
            "getMethodList" => Ok(Value::List(
                self.methods_of(service)
                    .iter()
                    .chain(GENERIC)
                    .map(|m| Value::from(*m))
                    .collect(),
            )),
            "exit" => Ok(Value::None),
            _ => return None,
        };
        Some(result)
    }
}

/// The generic methods every module serves.
pub(crate) const GENERIC: &[&str] = &[
    "wait",
    "stop",
    "isRunning",
    "pCall",
    "ping",
    "version",
    "getBrokerName",
    "getMethodList",
    "exit",
];
