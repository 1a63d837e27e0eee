//! Worker threads for box hooks that may block (C1).
//!
//! A hook runs guarded (`call_guarded`): a panic becomes a failed hook. An input hook still
//! queued when its box is unloaded returns without running. The control thread is marked once
//! as running its engine's hooks, and calls its inline hooks with one kept context
//! (`call_unmarked`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::activity::{HookYield, running_hook};
use crate::context::BoxContext;
use crate::engine::command::{Command, Returned};
use crate::engine::shared::Shared;
use crate::hook::Hook;
use crate::host::BoxCode;
use choreo_base::pool::{Pool, PoolError, PoolOptions, Started};

/// How long the engine's end waits for hooks still running. Every hook of the behavior
/// returned or was waited for by the unload (R13) before the engine ends: one still running
/// then outlives the run (a loop that never looks at the stop), and its thread is detached
/// after this (a hook about to return has the time to); waiting longer only delays the
/// report (by the pool default's 5 s at every run stopped beside such a loop).
const JOIN_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(200);

/// The worker threads of one engine: the workspace's [`Pool`], which grows while every
/// worker is busy (a blocked hook never stops another one from running, C1) up to a cap,
/// retires idle workers, and joins them (with a deadline) when the engine is dropped.
pub(super) struct Workers {
    pool: Pool,
}

/// A hook to run on a worker; its result comes back as [`Command::HookDone`].
pub(super) struct Job {
    pub(super) code: Arc<dyn BoxCode>,
    pub(super) hook: Hook,
    pub(super) ctx: BoxContext,
    pub(super) ticket: u64,
    /// Where the hook is, for the control thread that waits for it to yield.
    pub(super) progress: Arc<HookYield>,
    /// Virtual time: its place in the turns (see `crate::turn`).
    pub(super) turn: Option<crate::turn::TurnId>,
}

/// What happened to a job handed to the workers.
pub(super) enum Handed {
    /// A worker runs it now.
    Running,
    /// Every worker is busy and the pool is at its cap: it waits for one to free.
    Queued,
    /// No worker could take it (no thread could start): it failed, and said so.
    Failed,
}

impl Workers {
    pub(super) fn new() -> Workers {
        Workers {
            pool: Pool::new(
                "choreo-worker",
                PoolOptions {
                    join_timeout: JOIN_TIMEOUT,
                    ..PoolOptions::default()
                },
            ),
        }
    }

    /// Runs `job` on a worker. The caller counted it as an activity; if no worker can take
    /// it, the hook is reported failed (and the activity ended) as if it had raised.
    pub(super) fn run(&mut self, job: Job) -> Handed {
        let shared = Arc::clone(&job.ctx.shared);
        let ticket = job.ticket;
        let turn = job.turn;
        let progress = Arc::clone(&job.progress);
        match self.pool.run(Box::new(move || run_job(job))) {
            Ok(Started::Now) => Handed::Running,
            Ok(Started::Queued) => {
                // It starts when a worker frees, at a moment the OS decides: it lines up then.
                shared.time.withdraw_turn(turn);
                Handed::Queued
            }
            Err(e) => {
                let text = match &e {
                    PoolError::Spawn { error, .. } => {
                        format!("no worker thread could start for this hook: {error}")
                    }
                    PoolError::Closed { .. } => "the engine's workers are shut down".to_string(),
                };
                drop(e.into_job());
                shared.time.withdraw_turn(turn);
                shared.post(Command::HookDone {
                    ticket,
                    returned: Err(text),
                });
                progress.returned();
                shared.time.end();
                Handed::Failed
            }
        }
    }
}

thread_local! {
    /// The engine whose hook this thread runs, if any.
    static RUNNING_HOOK_OF: std::cell::RefCell<Option<Arc<Shared>>> =
        const { std::cell::RefCell::new(None) };
}

/// Whether this thread runs a hook of the engine whose shared state is `shared`.
pub(super) fn runs_hook_of(shared: &Arc<Shared>) -> bool {
    RUNNING_HOOK_OF.with(|c| c.borrow().as_ref().is_some_and(|s| Arc::ptr_eq(s, shared)))
}

/// Whether this thread runs a hook of any engine.
pub(super) fn runs_any_hook() -> bool {
    RUNNING_HOOK_OF.with(|c| c.borrow().is_some())
}

/// The engines whose hooks (transitively) run the code on this thread, as their "counts as
/// an activity" flags, outermost first: a behavior loaded here is nested in them.
pub(super) fn hook_lineage() -> Vec<Arc<AtomicBool>> {
    RUNNING_HOOK_OF.with(|c| {
        c.borrow()
            .as_ref()
            .map(|s| {
                let mut lineage = s.ancestors.clone();
                lineage.push(Arc::clone(&s.counting));
                lineage
            })
            .unwrap_or_default()
    })
}

/// Marks the calling thread, an engine's control thread, as running the hooks of that
/// engine (`Some`) for as long as it lives, so that each inline hook it calls need not mark
/// it again ([`call_unmarked`]); `None` when it ends.
pub(super) fn hooks_run_here(shared: Option<&Arc<Shared>>) {
    RUNNING_HOOK_OF.with(|c| *c.borrow_mut() = shared.map(Arc::clone));
}

/// Calls a hook, turning a panic into an error.
pub(super) fn call_guarded(code: &dyn BoxCode, hook: &Hook, ctx: &BoxContext) -> Returned {
    let outer = RUNNING_HOOK_OF.with(|c| c.replace(Some(Arc::clone(&ctx.shared))));
    let result = call_unmarked(code, hook, ctx);
    RUNNING_HOOK_OF.with(|c| *c.borrow_mut() = outer);
    result
}

/// [`call_guarded`] on a thread already marked as running the hooks of `ctx`'s engine
/// ([`hooks_run_here`]). Inlined: an inline hop calls it once.
#[inline(always)]
pub(super) fn call_unmarked(code: &dyn BoxCode, hook: &Hook, ctx: &BoxContext) -> Returned {
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| code.call(hook, ctx)));
    match result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(panic) => Err(panic_text(panic.as_ref())),
    }
}

/// What a hook's panic said.
#[cold]
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "box code panicked".to_string());
    format!("panic: {text}")
}

/// Runs a job on a worker and reports its result to the control thread.
pub(super) fn run_job(job: Job) {
    let shared = &job.ctx.shared;
    shared.time.take_turn(job.turn);
    // An input hook waited in the pool's queue (every worker busy) while its box was
    // unloaded: no hook of an unloaded box runs (a stop beside a loop of signals through
    // worker boxes would otherwise wait for every queued one to run first). It returns at
    // once, as a call the unload overtook.
    let returned = if matches!(job.hook, Hook::Input { .. }) && !shared.is_loaded(job.ctx.id) {
        Ok(())
    } else {
        running_hook(&job.progress, || {
            call_guarded(job.code.as_ref(), &job.hook, &job.ctx)
        })
    };
    // The control thread may hand out the next hook as soon as it hears of this one: this
    // worker takes it (it only has the count below left to do).
    choreo_base::pool::finishing();
    // Posted before the count drops, so "nothing in flight" implies "its result is queued".
    shared.post(Command::HookDone {
        ticket: job.ticket,
        returned,
    });
    job.progress.returned();
    shared.time.leave_turn();
    shared.time.end();
}
