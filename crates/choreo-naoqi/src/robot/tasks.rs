//! Tasks: every method that takes time (a `say`, a fade, a motion) runs as a task with an
//! int id, whether it was called (the caller drives it) or posted (a background activity
//! drives it). This is what the generic ALModule API (`wait`, `stop`, `isRunning`, §1.3 of
//! docs/simulated-robot.md) acts on.
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
use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_base::lock;
use choreo_engine::Value;
use choreo_engine::clock::Time;

/// How often (behavior time) a sleeping driver checks for a stop: one 25 fps frame, the
/// "one engine tick" of B3. Drivers wake on multiples of it, so the instants are the same
/// in real and virtual time.
pub const STOP_POLL: Duration = Duration::from_millis(40);

/// Something a task does at a given time; runs without any robot lock held.
pub(crate) type Effect<S> = Box<dyn FnOnce(&S) + Send>;

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
pub(crate) struct Plan<S> {
    steps: Vec<(Time, Effect<S>)>,
    end: Option<Time>,
    on_stop: Option<Effect<S>>,
    value: Value,
    stopped_value: Value,
    claim: Claim,
}

impl<S: 'static> Plan<S> {
    /// A task that ends at `end`.
    pub fn until(end: Time) -> Plan<S> {
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
    pub fn forever() -> Plan<S> {
        Plan {
            end: None,
            ..Plan::until(Time(0))
        }
    }

    /// Runs `effect` at `at` (at once if `at` has passed).
    pub fn at(mut self, at: Time, effect: impl FnOnce(&S) + Send + 'static) -> Plan<S> {
        self.steps.push((at, Box::new(effect)));
        self
    }

    /// Runs `effect` when the task is stopped before its end (after the stop effects given
    /// before).
    pub fn on_stop(mut self, effect: impl FnOnce(&S) + Send + 'static) -> Plan<S> {
        self.on_stop = Some(match self.on_stop.take() {
            Some(first) => Box::new(move |sim: &S| {
                first(sim);
                effect(sim);
            }),
            None => Box::new(effect),
        });
        self
    }

    /// Ends at `end` if that is later than its end (a task that runs until stopped stays
    /// so).
    pub fn lasting_until(mut self, end: Time) -> Plan<S> {
        self.end = self.end.map(|e| e.max(end));
        self
    }

    /// What a blocking call returns at the end (default `None`).
    pub fn returning(mut self, value: Value) -> Plan<S> {
        self.value = value;
        self
    }

    /// What a blocking call returns when the task was stopped (default `None`).
    pub fn stopped_returns(mut self, value: Value) -> Plan<S> {
        self.stopped_value = value;
        self
    }

    /// What the task holds exclusively.
    pub fn claim(mut self, claim: Claim) -> Plan<S> {
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

struct TaskState<S> {
    steps: VecDeque<(Time, Effect<S>)>,
    end: Option<Time>,
    on_stop: Option<Effect<S>>,
    phase: Phase,
}

/// One running task.
pub(crate) struct Task<S> {
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
    state: Mutex<TaskState<S>>,
    /// Where its background driver sleeps: woken when the task is stopped, so that a task
    /// replaced at once (a loop posting motions) leaves no sleeping thread behind.
    pub background: choreo_engine::activity::Nap,
}

/// What driving a task came to.
pub(crate) enum Driven {
    /// The task ended (or was stopped): the value the blocking call returns.
    Finished(Value),
    /// The wait's timeout came first.
    TimedOut,
}

impl<S> Task<S> {
    /// The task's phase.
    pub fn phase(&self) -> Phase {
        lock(&self.state).phase
    }

    /// Takes the first effect due at `now`, if any (the caller runs it without the lock).
    pub fn pop_due(&self, now: Time) -> Option<Effect<S>> {
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
    pub fn try_end(&self, now: Time) -> bool {
        let mut s = lock(&self.state);
        let due =
            s.phase == Phase::Running && s.steps.is_empty() && s.end.is_some_and(|end| end <= now);
        if due {
            s.phase = Phase::Ended;
        }
        due
    }

    /// Marks the task stopped; its stop effect if this call made the change.
    pub fn try_stop(&self) -> Option<Option<Effect<S>>> {
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
    pub fn rush(&self) -> Vec<Effect<S>> {
        let mut s = lock(&self.state);
        s.end = Some(Time(0));
        s.steps.drain(..).map(|(_, e)| e).collect()
    }

    /// When the driver should wake next: the next effect, the end, the deadline or the next
    /// stop poll, whichever comes first.
    pub fn next_wake(&self, now: Time, deadline: Option<Time>) -> Time {
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
    pub fn result(&self) -> Value {
        match self.phase() {
            Phase::Stopped => self.stopped_value.clone(),
            _ => self.value.clone(),
        }
    }
}

/// The tasks of every module: ids unique per module, never reused.
pub(crate) struct Tasks<S> {
    modules: Mutex<HashMap<String, ModuleTasks<S>>>,
}

struct ModuleTasks<S> {
    next_id: i64,
    running: BTreeMap<i64, Arc<Task<S>>>,
}

impl<S> Default for Tasks<S> {
    fn default() -> Self {
        Tasks {
            modules: Mutex::new(HashMap::new()),
        }
    }
}

impl<S> Default for ModuleTasks<S> {
    fn default() -> Self {
        ModuleTasks {
            next_id: 0,
            running: BTreeMap::new(),
        }
    }
}

impl<S> Tasks<S> {
    /// A fresh id of `service` for a call that finished at once (a posted instant method).
    pub fn fresh_id(&self, service: &str) -> i64 {
        let mut m = lock(&self.modules);
        let module = m.entry(service.to_string()).or_default();
        module.next_id += 1;
        module.next_id
    }

    /// Registers a task for `plan`, started now.
    pub fn start(
        &self,
        service: &str,
        method: &str,
        args: &[Value],
        plan: Plan<S>,
    ) -> Arc<Task<S>> {
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
    pub fn get(&self, service: &str, id: i64) -> Option<Arc<Task<S>>> {
        lock(&self.modules)
            .get(service)
            .and_then(|m| m.running.get(&id))
            .cloned()
    }

    /// Running tasks, filtered.
    pub fn running(&self, mut keep: impl FnMut(&Task<S>) -> bool) -> Vec<Arc<Task<S>>> {
        lock(&self.modules)
            .values()
            .flat_map(|m| m.running.values())
            .filter(|t| keep(t))
            .cloned()
            .collect()
    }

    /// Running tasks whose claim overlaps `claim`.
    pub fn claiming(&self, claim: &Claim) -> Vec<Arc<Task<S>>> {
        self.running(|t| t.claim.overlaps(claim))
    }

    pub fn forget(&self, task: &Task<S>) {
        if let Some(m) = lock(&self.modules).get_mut(&task.service) {
            m.running.remove(&task.id);
        }
    }
}
