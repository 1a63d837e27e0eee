//! Driving the robot's tasks (see `tasks.rs`): a task starts with what is due at once, its
//! caller, a `wait`er or a background activity runs its effects as their times come, and a
//! stop runs its stop effect and frees what it held.

use std::sync::Arc;

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::core::{Plan, Sim, Task};
use crate::robot::error::CallError;
use crate::robot::playing;
use crate::robot::scenario::When;
use crate::robot::tasks::{Claim, Driven, Phase};

impl Sim {
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
        then: impl FnOnce(&Sim, Value) + Send + 'static,
    ) -> Result<(), CallError> {
        let time = self.time()?;
        let me = self
            .arc()
            .ok_or_else(|| CallError::Failed("the robot is gone".into()))?;
        time.spawn(name, move || {
            if let Driven::Finished(value) = me.drive_with(&task, None, true) {
                then(&me, value);
            }
        })
        .map_err(|e| CallError::Failed(format!("cannot start a task: {e}")))
    }

    /// Posts a method that blocks its caller until something else ends (a behavior's run,
    /// `ALBehaviorManager.runBehavior`): NAOqi makes a posted method a task of its own, so
    /// the call is made on a background activity and the poster has the task's id at once.
    /// The task has no end of its own: it ends when the call returns (its waiters see it at
    /// their next [`STOP_POLL`](crate::robot::tasks::STOP_POLL)); a failure of the call is
    /// the robot's log, as for any posted method.
    pub(crate) fn post_in_background(
        &self,
        service: &str,
        method: &str,
        args: Vec<Value>,
    ) -> Result<i64, CallError> {
        let time = self.time()?;
        let me = self
            .arc()
            .ok_or_else(|| CallError::Failed("the robot is gone".into()))?;
        let task = self.tasks.start(service, method, &args, Plan::forever());
        let id = task.id;
        let (service, method) = (service.to_string(), method.to_string());
        let name = format!("{service}.{method}#{id}");
        time.spawn(&name, move || {
            // Failed: counted and observed (the robot's log); the task ends all the same.
            let _ = me.call(&service, &method, args);
            me.rush(&task);
        })
        .map_err(|e| CallError::Failed(format!("cannot start a task: {e}")))?;
        Ok(id)
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

    /// Runs what is left of `task` now and ends it (unless it was stopped).
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
            self.observe(crate::robot::observe::RobotEvent::TaskStopped {
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

    /// What follows the end (or stop) of a task.
    pub fn task_over(&self, task: &Task) {
        playing::on_call(self, &task.service, &task.method, &task.args, When::End);
    }
}
