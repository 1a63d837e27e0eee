//! Tasks: every method that takes time (a `say`, a fade, a motion) runs as a task with an
//! int id, whether it was called (the caller drives it) or posted (a background activity
//! drives it). This is what the generic ALModule API (`wait`, `stop`, `isRunning`, §1.3 of
//! naoqi-services.md) acts on.
//!
//! A task is a [`Plan`]: effects due at given behavior times (TextStarted at the start,
//! TextDone at the end, ...), an end time (or none: a sound in a loop), and what to do if it
//! is stopped. State that changes continuously (joint angles, LED colours, the robot's
//! position) is not stepped: it is stored as a path over time and read at any instant, so a
//! task needs one sleep, and a stop freezes the state where it had got to (B3).
//!
//! Whoever drives a task (its background activity, a `wait`er, the blocked caller) runs the
//! effects that are due, each exactly once, and notices the end; so a `wait` returns at the
//! end instant itself, after the end effects, whichever thread the clock wakes first.
//!
//! Stopping: drivers sleep at most until the next multiple of [`STOP_POLL`] of behavior
//! time, check whether the task was stopped, and sleep again, so a `wait`er sees a stop
//! within one poll period, in real and in virtual time alike. A task's own background
//! driver, which nobody sees, is woken at once in virtual time (`Activity::wake_nap`): a
//! loop that posts motion after motion, each stopping the one before, in an instant that
//! virtual time does not leave, must not pile up sleeping threads.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use choreo_engine::clock::Time;
use choreo_engine::{RobotError, Value};

/// How often (behavior time) a sleeping driver checks for a stop: one 25 fps frame, the
/// "one engine tick" of B3. Drivers wake on multiples of it, so the instants are the same
/// in real and virtual time.
pub const STOP_POLL: Duration = Duration::from_millis(40);

/// Something a task does at a given time; runs without any robot lock held.
pub(crate) type Effect = Box<dyn FnOnce(&crate::sim::Sim) + Send>;

/// What a task holds, so that a newer command can cancel an older one (B4).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Claim {
    /// Nothing exclusive.
    Nothing,
    /// These joint indices (motion, postures).
    Joints(Vec<usize>),
    /// The mobile base (moveTo, navigateTo).
    Base,
}

impl Claim {
    fn overlaps(&self, other: &Claim) -> bool {
        match (self, other) {
            (Claim::Joints(a), Claim::Joints(b)) => a.iter().any(|j| b.contains(j)),
            (Claim::Base, Claim::Base) => true,
            _ => false,
        }
    }
}

/// What a timed method will do: built by the service, run by a task.
pub(crate) struct Plan {
    steps: Vec<(Time, Effect)>,
    end: Option<Time>,
    on_stop: Option<Effect>,
    value: Value,
    stopped_value: Value,
    claim: Claim,
}

impl Plan {
    /// A task that ends at `end`.
    pub fn until(end: Time) -> Plan {
        Plan {
            steps: Vec::new(),
            end: Some(end),
            on_stop: None,
            value: Value::None,
            stopped_value: Value::None,
            claim: Claim::Nothing,
        }
    }

    /// A task that runs until stopped (a sound in a loop).
    pub fn forever() -> Plan {
        Plan {
            end: None,
            ..Plan::until(Time(0))
        }
    }

    /// Runs `effect` at `at` (at once if `at` has passed).
    pub fn at(mut self, at: Time, effect: impl FnOnce(&crate::sim::Sim) + Send + 'static) -> Plan {
        self.steps.push((at, Box::new(effect)));
        self
    }

    /// Runs `effect` when the task is stopped before its end (after the stop effects given
    /// before).
    pub fn on_stop(mut self, effect: impl FnOnce(&crate::sim::Sim) + Send + 'static) -> Plan {
        self.on_stop = Some(match self.on_stop.take() {
            Some(first) => Box::new(move |sim: &crate::sim::Sim| {
                first(sim);
                effect(sim);
            }),
            None => Box::new(effect),
        });
        self
    }

    /// Ends at `end` if that is later than its end (a task that runs until stopped stays
    /// so).
    pub fn lasting_until(mut self, end: Time) -> Plan {
        self.end = self.end.map(|e| e.max(end));
        self
    }

    /// What a blocking call returns at the end (default `None`).
    pub fn returning(mut self, value: Value) -> Plan {
        self.value = value;
        self
    }

    /// What a blocking call returns when the task was stopped (default `None`).
    pub fn stopped_returns(mut self, value: Value) -> Plan {
        self.stopped_value = value;
        self
    }

    /// What the task holds exclusively.
    pub fn claim(mut self, claim: Claim) -> Plan {
        self.claim = claim;
        self
    }
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Running.
    Running,
    /// Reached its end.
    Ended,
    /// Stopped before its end.
    Stopped,
}

struct TaskState {
    steps: VecDeque<(Time, Effect)>,
    end: Option<Time>,
    on_stop: Option<Effect>,
    phase: Phase,
}

/// One running task.
pub(crate) struct Task {
    /// Its id, unique within its module.
    pub id: i64,
    /// The module.
    pub service: String,
    /// The method.
    pub method: String,
    /// The call's arguments (scenario triggers match on them).
    pub args: Vec<Value>,
    claim: Claim,
    value: Value,
    stopped_value: Value,
    state: Mutex<TaskState>,
    /// Where its background driver sleeps: woken when the task is stopped, so that a task
    /// replaced at once (a loop posting motions) leaves no sleeping thread behind.
    background: choreo_engine::activity::Nap,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What driving a task came to.
pub(crate) enum Driven {
    /// The task ended (or was stopped): the value the blocking call returns.
    Finished(Value),
    /// The wait's timeout came first.
    TimedOut,
}

impl Task {
    /// The task's phase.
    pub fn phase(&self) -> Phase {
        lock(&self.state).phase
    }

    /// Takes the first effect due at `now`, if any (the caller runs it without the lock).
    fn pop_due(&self, now: Time) -> Option<Effect> {
        let mut s = lock(&self.state);
        if s.phase != Phase::Running {
            return None;
        }
        match s.steps.front() {
            Some((at, _)) if *at <= now => s.steps.pop_front().map(|(_, e)| e),
            _ => None,
        }
    }

    /// Marks the task ended if its time has come and nothing is left to do; true if this
    /// call made the change (so the caller runs what follows an end, once).
    fn try_end(&self, now: Time) -> bool {
        let mut s = lock(&self.state);
        let due =
            s.phase == Phase::Running && s.steps.is_empty() && s.end.is_some_and(|end| end <= now);
        if due {
            s.phase = Phase::Ended;
        }
        due
    }

    /// Marks the task stopped; its stop effect if this call made the change.
    fn try_stop(&self) -> Option<Option<Effect>> {
        let mut s = lock(&self.state);
        if s.phase != Phase::Running {
            return None;
        }
        s.phase = Phase::Stopped;
        s.steps.clear();
        Some(s.on_stop.take())
    }

    /// Runs every remaining effect at once: for a caller that cannot sleep (inline code on
    /// the engine's control thread, where virtual time cannot move).
    fn rush(&self) -> Vec<Effect> {
        let mut s = lock(&self.state);
        s.end = Some(Time(0));
        s.steps.drain(..).map(|(_, e)| e).collect()
    }

    /// When the driver should wake next: the next effect, the end, the deadline or the next
    /// stop poll, whichever comes first.
    fn next_wake(&self, now: Time, deadline: Option<Time>) -> Time {
        let s = lock(&self.state);
        let poll = STOP_POLL.as_nanos() as u64;
        let mut next = Time((now.0 / poll + 1).saturating_mul(poll));
        for t in [s.steps.front().map(|(t, _)| *t), s.end, deadline]
            .into_iter()
            .flatten()
        {
            next = next.min(t);
        }
        next
    }

    /// The value a blocked caller gets, once the task is over.
    fn result(&self) -> Value {
        match self.phase() {
            Phase::Stopped => self.stopped_value.clone(),
            _ => self.value.clone(),
        }
    }
}

/// The tasks of every module: ids unique per module, never reused.
#[derive(Default)]
pub(crate) struct Tasks {
    modules: Mutex<HashMap<String, ModuleTasks>>,
}

#[derive(Default)]
struct ModuleTasks {
    next_id: i64,
    running: BTreeMap<i64, Arc<Task>>,
}

impl Tasks {
    /// A fresh id of `service` for a call that finished at once (a posted instant method).
    pub fn fresh_id(&self, service: &str) -> i64 {
        let mut m = lock(&self.modules);
        let module = m.entry(service.to_string()).or_default();
        module.next_id += 1;
        module.next_id
    }

    /// Registers a task for `plan`, started now.
    pub fn start(&self, service: &str, method: &str, args: &[Value], plan: Plan) -> Arc<Task> {
        let mut steps = plan.steps;
        steps.sort_by_key(|(t, _)| *t);
        let mut m = lock(&self.modules);
        let module = m.entry(service.to_string()).or_default();
        module.next_id += 1;
        let task = Arc::new(Task {
            id: module.next_id,
            service: service.to_string(),
            method: method.to_string(),
            args: args.to_vec(),
            claim: plan.claim,
            value: plan.value,
            stopped_value: plan.stopped_value,
            state: Mutex::new(TaskState {
                steps: steps.into(),
                end: plan.end,
                on_stop: plan.on_stop,
                phase: Phase::Running,
            }),
            background: choreo_engine::activity::Nap::default(),
        });
        module.running.insert(task.id, Arc::clone(&task));
        task
    }

    /// The running task `id` of `service`.
    pub fn get(&self, service: &str, id: i64) -> Option<Arc<Task>> {
        lock(&self.modules)
            .get(service)
            .and_then(|m| m.running.get(&id))
            .cloned()
    }

    /// Running tasks, filtered.
    pub fn running(&self, mut keep: impl FnMut(&Task) -> bool) -> Vec<Arc<Task>> {
        lock(&self.modules)
            .values()
            .flat_map(|m| m.running.values())
            .filter(|t| keep(t))
            .cloned()
            .collect()
    }

    /// Running tasks whose claim overlaps `claim`.
    pub fn claiming(&self, claim: &Claim) -> Vec<Arc<Task>> {
        self.running(|t| t.claim.overlaps(claim))
    }

    fn forget(&self, task: &Task) {
        if let Some(m) = lock(&self.modules).get_mut(&task.service) {
            m.running.remove(&task.id);
        }
    }
}

impl crate::sim::Sim {
    /// Starts `plan` as a task of `service.method` and runs what is due at once.
    pub(crate) fn start_task(
        &self,
        service: &str,
        method: &str,
        args: &[Value],
        plan: Plan,
    ) -> Arc<Task> {
        let task = self.tasks.start(service, method, args, plan);
        self.run_due(&task, self.now());
        task
    }

    /// Drives `task` on a background activity named `name`, then runs `then` with what it
    /// returned.
    pub(crate) fn drive_in_background(
        &self,
        name: &str,
        task: Arc<Task>,
        then: impl FnOnce(&crate::sim::Sim, Value) + Send + 'static,
    ) -> Result<(), String> {
        let time = self.time()?;
        let me = self.arc().ok_or("the robot is gone")?;
        time.spawn(name, move || {
            if let Driven::Finished(value) = me.drive_with(&task, None, true) {
                then(&me, value);
            }
        })
        .map_err(|e| format!("cannot start a task: {e}"))
    }

    /// Drives `task` until it is over or `deadline` passes (see the module documentation).
    pub(crate) fn drive(&self, task: &Arc<Task>, deadline: Option<Time>) -> Driven {
        self.drive_with(task, deadline, false)
    }

    /// [`Sim::drive`]; `background`: the task's own driver, whose sleeps a stop cuts short
    /// (a waiter's end is seen at the next poll, as in real time).
    fn drive_with(&self, task: &Arc<Task>, deadline: Option<Time>, background: bool) -> Driven {
        let Ok(time) = self.time() else {
            // No clock: nothing can wait; finish what there is.
            self.rush(task);
            return Driven::Finished(task.result());
        };
        loop {
            let now = time.now();
            self.run_due(task, now);
            if task.phase() != Phase::Running {
                return Driven::Finished(task.result());
            }
            if deadline.is_some_and(|d| d <= now) {
                return Driven::TimedOut;
            }
            let next = task.next_wake(now, deadline);
            if background {
                time.nap_until(next, &task.background);
                if task.phase() != Phase::Running {
                    continue;
                }
            } else {
                time.sleep_until(next);
            }
            if time.is_virtual() && time.now() < next {
                // Sleeping returned at once: we are on the engine's control thread (inline
                // box code), where virtual time cannot move. Do not spin.
                self.rush(task);
            }
        }
    }

    /// Runs the effects of `task` due at `now`, then ends it if its time has come.
    fn run_due(&self, task: &Arc<Task>, now: Time) {
        while let Some(effect) = task.pop_due(now) {
            effect(self);
        }
        if task.try_end(now) {
            self.tasks.forget(task);
            self.task_over(task);
        }
    }

    fn rush(&self, task: &Arc<Task>) {
        for effect in task.rush() {
            effect(self);
        }
        if task.try_end(Time(u64::MAX)) {
            self.tasks.forget(task);
            self.task_over(task);
        }
    }

    /// Stops `task` (no effect if it is over): runs its stop effect; its drivers return
    /// within one [`STOP_POLL`].
    pub(crate) fn stop_task(&self, task: &Arc<Task>) {
        if let Some(on_stop) = task.try_stop() {
            if let Ok(time) = self.time() {
                time.wake_nap(&task.background);
            }
            self.tasks.forget(task);
            if let Some(effect) = on_stop {
                effect(self);
            }
            self.observe(crate::observe::RobotEvent::TaskStopped {
                service: task.service.clone(),
                method: task.method.clone(),
                id: task.id,
            });
            self.task_over(task);
        }
    }

    /// Stops every task whose claim overlaps `claim` (B4: the newest command wins).
    pub(crate) fn stop_claiming(&self, claim: &Claim) {
        for task in self.tasks.claiming(claim) {
            self.stop_task(&task);
        }
    }

    /// Stops every running task of `service` whose method is one of `methods` (all if
    /// empty).
    pub(crate) fn stop_all(&self, service: &str, methods: &[&str]) {
        for task in self.tasks.running(|t| {
            t.service == service && (methods.is_empty() || methods.contains(&t.method.as_str()))
        }) {
            self.stop_task(&task);
        }
    }

    /// The generic ALModule methods (§1.3) on `service`; `None` if `method` is not one.
    pub(crate) fn generic(
        &self,
        service: &str,
        method: &str,
        a: &crate::args::Args<'_>,
    ) -> Option<Result<Value, RobotError>> {
        let bad = RobotError::BadArguments;
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
            "stop" => a.int(0).map_err(bad).map(|id| {
                if let Some(task) = self.tasks.get(service, id) {
                    self.stop_task(&task);
                }
                Value::None
            }),
            // isRunning() without an id is the module's own, where it has one
            // (ALBasicAwareness).
            "isRunning"
                if a.len() == 0 && crate::catalogue::methods(service).contains(&"isRunning") =>
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
                self.post_call(service, target, a.values[1..].to_vec())
                    .map(Value::Int)
            })(),
            "ping" => Ok(Value::Bool(true)),
            "version" => Ok(Value::from(crate::sim::naoqi_version(self.model))),
            "getBrokerName" => Ok(Value::from("choreo-sim")),
            "getMethodList" => Ok(Value::List(
                crate::sim::methods_of(service)
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
