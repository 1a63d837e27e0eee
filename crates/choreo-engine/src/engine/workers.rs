//! Worker threads for box hooks that may block (C1).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};

use crate::context::BoxContext;
use crate::engine::command::Command;
use crate::hook::Hook;
use crate::host::BoxCode;

/// A pool of worker threads that grows when every worker is busy (a blocked hook never
/// stops another one from running, C1).
pub(super) struct Workers {
    pub(super) jobs: Sender<Job>,
    pub(super) receiver: Receiver<Job>,
    pub(super) idle: Arc<AtomicUsize>,
    pub(super) threads: Vec<JoinHandle<()>>,
}

pub(super) struct Job {
    pub(super) code: Arc<dyn BoxCode>,
    pub(super) hook: Hook,
    pub(super) ctx: BoxContext,
    pub(super) ticket: u64,
}

impl Workers {
    pub(super) fn new() -> Workers {
        let (jobs, receiver) = crossbeam_channel::unbounded();
        Workers {
            jobs,
            receiver,
            idle: Arc::new(AtomicUsize::new(0)),
            threads: Vec::new(),
        }
    }

    pub(super) fn run(&mut self, job: Job) {
        if self.idle.load(Ordering::SeqCst) == 0 {
            let receiver = self.receiver.clone();
            let idle = Arc::clone(&self.idle);
            self.threads.push(std::thread::spawn(move || {
                while let Ok(job) = receiver.recv() {
                    idle.fetch_sub(1, Ordering::SeqCst);
                    run_job(job, &idle);
                }
            }));
            self.idle.fetch_add(1, Ordering::SeqCst);
        }
        let _ = self.jobs.send(job);
    }
}

/// Calls a hook, turning a panic into an error; returns (ok, error text).
pub(super) fn call_guarded(code: &dyn BoxCode, hook: &Hook, ctx: &BoxContext) -> (bool, String) {
    match std::panic::catch_unwind(AssertUnwindSafe(|| code.call(hook, ctx))) {
        Ok(Ok(())) => (true, String::new()),
        Ok(Err(e)) => (false, e.to_string()),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "box code panicked".to_string());
            (false, format!("panic: {text}"))
        }
    }
}

/// Runs a job on a worker; the worker counts as idle again before the control thread hears
/// of the result, so the next job reuses it instead of starting a new thread.
pub(super) fn run_job(job: Job, idle: &AtomicUsize) {
    let (ok, text) = call_guarded(job.code.as_ref(), &job.hook, &job.ctx);
    idle.fetch_add(1, Ordering::SeqCst);
    let shared = &job.ctx.shared;
    // Posted before the count drops, so "nothing in flight" implies "its result is queued".
    shared.post(Command::HookDone {
        ticket: job.ticket,
        ok,
        text,
    });
    shared.time.end();
}
