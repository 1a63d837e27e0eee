//! The command loop: commands in, operations run, virtual time moved, outcomes out.
//!
//! The loop runs supervised (`supervise`): a panic becomes `Outcome::Crashed`. It moves virtual
//! time, keeps strict mode, the time limit and the robot lost. A nested engine's loop never
//! moves time; it counts as an activity from the first command posted to it until it has
//! nothing left to do (`Shared::post`, `settle`).

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use crate::activity::ON_CONTROL_THREAD;
use crate::clock::Time;
use crate::engine::command::Command;
use crate::engine::op::Step;
use crate::engine::outcome::Outcome;
use crate::engine::queue::Reader;
use crate::engine::state::{Control, LOOP_STEPS, STALL, STEP_BUDGET, Timer};
use crate::engine::workers::{self, Handed, Job, call_guarded};
use crate::graph::{BoxId, Graph};
use crate::hook::Hook;
use crate::trace::{Compact, HookRef, Step as TraceStep};
use choreo_base::Value;

/// After a crash of the control thread, how long (real time) it waits for the onUnload hooks
/// it calls on workers before it destroys every box anyway.
const CRASH_UNLOAD: Duration = Duration::from_secs(5);

impl Control {
    /// The control thread: [`Control::run`] under supervision. A panic anywhere on this
    /// thread (the engine itself, box code called inline, an observer) ends the run with
    /// [`Outcome::Crashed`] after a best-effort unload, so `wait` and `stop` always return.
    pub(super) fn supervise(mut self, commands: &Reader) {
        workers::hooks_run_here(Some(&self.shared));
        if !self.shared.time.is_virtual()
            && let Some(l) = self.time_limit
        {
            let at = Time(u64::try_from(l.as_nanos()).unwrap_or(u64::MAX));
            self.schedule(at, Timer::Limit);
        }
        let run = std::panic::catch_unwind(AssertUnwindSafe(|| self.run(commands)));
        if let Err(panic) = run {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the control thread panicked".to_string());
            self.crashed(message, commands);
        }
        self.close(commands);
        workers::hooks_run_here(None);
    }

    /// The control thread ends. A nested engine closes its queue (nothing posted from now on
    /// is delivered), stops counting as an activity, and cancels its clock tokens: the time
    /// base it shares goes on without it.
    fn close(&mut self, commands: &Reader) {
        let Some(accounted) = &self.shared.accounted else {
            return;
        };
        crate::trace::flush_thread_buffer();
        let mut accounted = choreo_base::lock(accounted);
        accounted.open = false;
        while commands.try_recv().is_some() {}
        if std::mem::take(&mut accounted.counted) {
            self.shared
                .counting
                .store(false, std::sync::atomic::Ordering::SeqCst);
            self.shared.time.withdraw_turn(accounted.turn.take());
            self.shared.time.nested_end();
        }
        drop(accounted);
        self.shared.time.leave_turn();
        let timers: Vec<_> = self.wakeups.timers.keys().copied().collect();
        for token in timers {
            self.cancel_timer(token);
        }
    }

    /// Nested engine with nothing left to do (no ready operation) and nothing queued: it
    /// stops counting as an activity (once the trace has what it recorded) until the next
    /// command is posted.
    fn settle(&mut self, commands: &Reader) {
        let Some(accounted) = &self.shared.accounted else {
            return;
        };
        crate::trace::flush_thread_buffer();
        let mut accounted = choreo_base::lock(accounted);
        if accounted.counted && commands.is_empty() {
            accounted.counted = false;
            self.shared
                .counting
                .store(false, std::sync::atomic::Ordering::SeqCst);
            // Taken or not (nothing came to act on), its place in line is over.
            self.shared.time.withdraw_turn(accounted.turn.take());
            self.shared.time.nested_end();
            drop(accounted);
            self.shared.time.leave_turn();
        }
    }

    /// A nested engine's control thread acts in its turn (crate::turn) while it counts as an
    /// activity: from the first command posted to it until it settles.
    #[inline(always)]
    fn my_turn(&self) {
        if self.shared.accounted.is_some() {
            self.my_turn_nested();
        }
    }

    fn my_turn_nested(&self) {
        let Some(accounted) = &self.shared.accounted else {
            return;
        };
        if self.shared.time.turns().mine().is_some()
            || self
                .shared
                .quitting
                .load(std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let turn = {
            let accounted = choreo_base::lock(accounted);
            if accounted.counted {
                accounted.turn
            } else {
                None
            }
        };
        if let Some(turn) = turn {
            // Dropped meanwhile (by box code that holds a turn and waits for this thread to
            // end): it quits without one.
            let quitting = || {
                self.shared
                    .quitting
                    .load(std::sync::atomic::Ordering::SeqCst)
            };
            self.shared.time.turns().take_unless(turn, quitting);
        }
    }

    /// Best-effort unload after a panic: every loaded box gets its onUnload (deepest first;
    /// those on workers are waited for up to [`CRASH_UNLOAD`]), then every box is destroyed
    /// and the outcome is [`Outcome::Crashed`].
    fn crashed(&mut self, message: String, commands: &Reader) {
        self.mark_ended();
        self.shared.trace.record(
            self.now(),
            "",
            TraceStep::Err {
                hook: "engine".into(),
                text: format!("the control thread panicked: {message}; unloading what it can"),
            },
        );
        let mut pending = std::collections::HashMap::new();
        if !self.life.destroyed {
            for i in (0..self.boxes.len()).rev() {
                if !self.boxes[i].loaded {
                    continue;
                }
                self.boxes[i].loaded = false;
                let b = BoxId(i as u32);
                self.shared.set_loaded(b, false);
                let Some(code) = self.code.get(i).cloned() else {
                    continue;
                };
                self.compact(b, Compact::Call(HookRef::Unload));
                let ctx = crate::context::BoxContext {
                    shared: std::sync::Arc::clone(&self.shared),
                    id: b,
                };
                if code.runs_inline() {
                    let ok = call_guarded(code.as_ref(), &Hook::Unload, &ctx).is_ok();
                    self.compact(b, Compact::Ret(HookRef::Unload, ok));
                    continue;
                }
                let ticket = self.pending.next_ticket;
                self.pending.next_ticket += 1;
                self.shared.time.begin();
                crate::trace::flush_thread_buffer();
                let handed = self.workers.run(Job {
                    code,
                    hook: Hook::Unload,
                    ctx,
                    ticket,
                    progress: crate::activity::HookYield::new(),
                    // After a crash, order no longer matters: it runs as soon as it can.
                    turn: None,
                });
                if !matches!(handed, Handed::Failed) {
                    pending.insert(ticket, b);
                }
            }
        }
        let deadline = Instant::now() + CRASH_UNLOAD;
        while !pending.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            match commands.recv_timeout(left) {
                Some(Command::HookDone { ticket, returned }) => {
                    if let Some(b) = pending.remove(&ticket) {
                        self.compact(b, Compact::Ret(HookRef::Unload, returned.is_ok()));
                    }
                }
                Some(_) => {}
                None => break,
            }
        }
        if !self.life.destroyed {
            self.life.destroyed = true;
            for b in 0..self.shared.graph.boxes.len() {
                self.record(BoxId(b as u32), TraceStep::Del);
            }
        }
        if self.owns_time {
            self.shared.trace.close();
        }
        self.finish(Outcome::Crashed { message });
    }

    /// Stops the behavior (R4): unload everything, then destroy. `reason`: the outcome to
    /// report once unloaded, if not [`Outcome::Stopped`]. A second stop while one is under
    /// way changes nothing.
    pub(super) fn stop_behavior(&mut self, reason: Option<Outcome>) {
        if self.life.destroyed || self.life.stopping {
            return;
        }
        self.life.stopping = true;
        self.life.stop_reason = reason;
        self.mark_ended();
        // Unloading may need time to move (an onUnload that sleeps).
        self.time_limit = None;
        self.record_behavior("stop");
        self.uncapped = true;
        self.spawn_op(vec![
            Step::AfterRootLoad,
            Step::UnloadBox(Graph::ROOT),
            Step::Destroy,
        ]);
        self.uncapped = false;
    }

    /// Boxes are being constructed (by [`crate::Engine::load`], on its caller's thread).
    fn constructing(&self) -> bool {
        self.shared
            .constructing
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Remembers now as the end of the run (the first time only).
    pub(super) fn mark_ended(&self) {
        let _ = self.ended_at.compare_exchange(
            u64::MAX,
            self.now().0,
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
        );
    }

    /// An error escaped box code or a box's request failed (E1, E3): traced, and in strict
    /// mode the behavior stops right here.
    pub(super) fn box_error(&mut self, b: BoxId, hook: String, text: String) {
        if self.strict && self.life.stop_reason.is_none() {
            let reason = Outcome::Failed {
                path: self.shared.graph.node(b).path.clone(),
                hook: hook.clone(),
                message: text.clone(),
            };
            self.record(b, TraceStep::Err { hook, text });
            self.tell_owner(&reason);
            self.stop_behavior(Some(reason));
        } else {
            self.record(b, TraceStep::Err { hook, text });
        }
    }

    /// A nested run nobody waits for ([`crate::Engine::fails_its_owner`]) tells the run that
    /// owns the time base that it failed, once its error is in the trace, with the path as
    /// that run's trace shows it (`greet:root/Say`).
    fn tell_owner(&self, reason: &Outcome) {
        let Outcome::Failed {
            path,
            hook,
            message,
        } = reason
        else {
            return;
        };
        if !self
            .shared
            .fails_owner
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        crate::trace::flush_thread_buffer();
        self.shared.time.nested_failed(
            format!("{}{path}", self.shared.trace.path_prefix()),
            hook.clone(),
            message.clone(),
        );
    }

    /// A nested run nobody waits for failed: a strict run stops with its outcome, as if the
    /// error had escaped one of its own boxes (the nested run's trace holds the error).
    fn nested_failed(&mut self, outcome: Outcome) {
        if !self.strict || self.life.stop_reason.is_some() || self.life.stopping {
            return;
        }
        if let Outcome::Failed { path, .. } = &outcome {
            self.log_run(
                "info",
                format!("{path} failed in a behavior nobody waits for: the run stops (strict)"),
            );
        }
        self.stop_behavior(Some(outcome));
    }

    /// Real time: the time limit came.
    pub(super) fn limit_reached(&mut self) {
        if self.time_limit.is_none() {
            return;
        }
        self.mark_ended();
        self.finish(Outcome::TimeLimit);
        // After the outcome: the load, which checks it once the constructors return, must
        // not find them done before it is set.
        if self.constructing() {
            self.shared
                .time
                .release_sleepers(crate::clock::Later::AtOnce);
        }
    }

    /// The robot cannot be reached any more: the behavior stops ([`Outcome::RobotLost`]).
    fn check_robot(&mut self) {
        if self.life.stopping || self.life.destroyed || !(self.life.started || self.constructing())
        {
            return;
        }
        if self
            .shared
            .robot
            .as_ref()
            .is_some_and(|r| !r.is_connected())
        {
            self.log_run(
                "error",
                "the robot cannot be reached any more: stopping the behavior".to_string(),
            );
            self.stop_behavior(Some(Outcome::RobotLost));
        }
    }

    pub(super) fn run(&mut self, commands: &Reader) {
        ON_CONTROL_THREAD.with(|c| c.set(true));
        loop {
            self.my_turn();
            if !self.work.ready.is_empty() {
                match self.run_budget(commands) {
                    Flow::Again => continue,
                    Flow::Quit => break,
                    Flow::Drained => {}
                }
            }
            if let Some((b, output)) = commands.try_bang() {
                self.count_steps(1);
                self.handle_bang(b, output);
                continue;
            }
            let command = match commands.try_recv() {
                // Commands that keep coming (a loop of links through box code posts one per
                // hop) keep the engine busy just as ready operations do.
                Some(c) => {
                    self.count_steps(1);
                    c
                }
                None => {
                    // A pause ends a loop's count only when nothing runs and nothing is
                    // queued: box code in flight that will post the next hop is part of the
                    // loop, however long the OS takes to run it (that the queue was empty
                    // for a moment is the OS's doing, and must not decide the trace).
                    if self.quiet() && commands.is_empty() {
                        self.watch.looped = None;
                    }
                    // Virtual time stands still until the behavior starts: a scenario event due
                    // at 1.5 s must not fire between the load and the start.
                    self.check_robot();
                    if !self.work.ready.is_empty() {
                        continue;
                    }
                    // Time moves while boxes are constructed and once the behavior started.
                    // While boxes are constructed, only when the constructor sleeps on the
                    // clock: a slow load is not a stalled hook.
                    // Only the engine that owns the clock moves it (a nested one waits), and
                    // only virtual time is moved (a hook blocked in real time is no stall).
                    let may_move = if !self.owns_time || !self.shared.time.is_virtual() {
                        false
                    } else if self.life.started {
                        self.quiet_or_stalled()
                    } else {
                        self.constructing() && self.quiet()
                    };
                    // The queue is looked at again after the look at the activities: box
                    // code posts a command (an uncaught error) before it stops counting, so a
                    // thread that ended since the first look left its command there, and it
                    // must be handled at this instant, before the clock moves.
                    if self.shared.time.is_virtual() && may_move && commands.is_empty() {
                        if self.move_virtual_time(false) {
                            // Time moved: whatever comes next is no longer the same instant's.
                            self.watch.looped = None;
                            // A woken hook runs until it yields before anything else happens.
                            self.shared.time.wait_for_yield(0);
                            continue;
                        }
                        // Idle: nothing runs, nothing is due, nothing is queued (a hook that
                        // just returned posts its result before it stops counting as running).
                        // Operations may still wait: for resources that nobody will release,
                        // say; only the world (or a stop) can move them now.
                        if self.life.started && commands.is_empty() && !self.life.idle_reported {
                            self.life.idle_reported = true;
                            self.finish(Outcome::Idle);
                        }
                    }
                    // A hook about to sleep on the virtual clock is polled for soon.
                    let busy = self.shared.time.any_in_flight();
                    let poll = if self.shared.time.is_virtual() && busy {
                        1
                    } else {
                        50
                    };
                    crate::trace::flush_thread_buffer();
                    // The start and what followed are done: whoever waits for it goes on.
                    self.life.start_gate = None;
                    self.settle(commands);
                    let Some(c) = commands.recv_timeout(Duration::from_millis(poll)) else {
                        continue;
                    };
                    // Counted as if it had been queued already: whether box code posted it
                    // before or after the look at the queue is the OS's doing.
                    self.count_steps(1);
                    c
                }
            };
            if !self.handle(command) {
                break;
            }
        }
        crate::trace::flush_thread_buffer();
    }

    /// Runs one budget of ready operations. Past it with operations still ready (a loop of
    /// links that never waits), the commands queued so far get their turn before the next
    /// budget.
    fn run_budget(&mut self, commands: &Reader) -> Flow {
        self.run_ready(STEP_BUDGET);
        if self.work.ready.is_empty() {
            return Flow::Drained;
        }
        // Still going after a whole budget: a loop of links that never waits,
        // as an endless loop ran in NAOqi. Commands (a stop) get their turn
        // between budgets; virtual time, which moves only when everything
        // waits, goes on beside the loop after a while, so a time limit holds.
        self.count_steps(STEP_BUDGET as u64);
        // Every command queued so far gets its turn (box code a loop keeps busy
        // posts one per hop: one per budget would leave a stop behind them all),
        // up to one budget's worth, so the loop still advances.
        let mut handled = 0;
        while handled < STEP_BUDGET {
            if let Some((b, output)) = commands.try_bang() {
                handled += 1;
                self.count_steps(1);
                self.handle_bang(b, output);
                continue;
            }
            let Some(command) = commands.try_recv() else {
                break;
            };
            handled += 1;
            self.count_steps(1);
            if !self.handle(command) {
                return Flow::Quit;
            }
        }
        Flow::Again
    }

    /// Virtual time: moves the clock to what is due next, or to the time limit when nothing
    /// is due before it (then [`Outcome::TimeLimit`], once). True if the clock woke someone.
    /// `busy`: the engine still has work (a loop of links), so with nothing due at all time
    /// goes to the limit; otherwise nothing due means the behavior is idle.
    fn move_virtual_time(&mut self, busy: bool) -> bool {
        let limit = self.time_limit.map(|l| Time(l.as_nanos() as u64));
        let clock = self.shared.time.clock();
        let next = clock.next_due();
        if let Some(l) = limit
            && self.now() < l
            && (next.is_some_and(|next| next > l) || (busy && next.is_none()))
        {
            // Nothing is due before the limit: time stops exactly there.
            clock.advance_to(l);
        }
        if limit.is_some_and(|l| self.now() >= l) {
            if !self.life.idle_reported {
                self.life.idle_reported = true;
                self.mark_ended();
                self.finish(Outcome::TimeLimit);
            }
            if self.constructing() {
                // Constructors sleeping on the clock wake up (once the outcome is set, which
                // the load checks when they return): time will not move again.
                self.shared
                    .time
                    .release_sleepers(crate::clock::Later::AtOnce);
            }
            return false;
        }
        // What this thread recorded comes before what the tokens due and the sleepers woken
        // make other threads record (a nested engine's control thread among them).
        crate::trace::flush_thread_buffer();
        clock.on_idle()
    }

    /// `n` more steps without a pause (ready operations, or commands: each command counts
    /// once, whichever way it is taken from the queue, so the count at each step is the
    /// behavior's, not the OS's); then [`Control::time_beside_loop`]. Counted from the
    /// behavior's start: before it, whether the load's last command and the caller's start
    /// meet in one count or are parted by a pause is the OS's doing.
    #[inline(always)]
    fn count_steps(&mut self, n: u64) {
        if !self.life.started {
            return;
        }
        *self.watch.looped.get_or_insert(0) += n;
        // What `time_beside_loop` acts on, looked at here: a hop counts one step, and most
        // never stop nor run beside a loud link.
        if self.life.stopping || self.watch.rates.any_loud() {
            self.time_beside_loop();
        }
    }

    /// Virtual time beside a loop of links that has kept the control thread busy for
    /// [`LOOP_STEPS`] steps: said once in the trace, then time moves on as if everything
    /// waited, so timers fire and a time limit is reached. Time moves again after as many
    /// steps. Once the behavior stops, time moves at every turn (beside a loop not loud yet,
    /// after every [`STEP_BUDGET`] steps): what is left is to unload, and an onUnload that
    /// sleeps gets its time at once.
    fn time_beside_loop(&mut self) {
        // Only a loop: a link gone loud (see `rate`), the engine busy without a pause for
        // LOOP_STEPS. A long load or a busy start is neither, and keeps virtual time exact.
        if !self.shared.time.is_virtual() || !self.owns_time {
            return;
        }
        if !self.watch.rates.any_loud() {
            // Stopping beside a loop not loud (yet): the unload's sleepers get their time
            // after each budget of steps, rather than the loop running on until it is loud.
            // Counted in steps, whether the loop runs on operations or through box code on
            // workers (which keeps the ready stack empty between hops).
            if self.life.stopping && self.watch.looped.is_some_and(|n| n >= STEP_BUDGET as u64) {
                self.move_time_beside_loop();
                // Everything else due at that instant comes due too (each woken hook runs
                // until it yields), not one wake-up per budget: the unload waits for them.
                // At most a budget's worth: box code that sleeps 0 s in a loop is due again
                // at once, and commands (a quit) must still get their turn.
                let clock = std::sync::Arc::clone(self.shared.time.clock());
                for _ in 0..STEP_BUDGET {
                    if clock.next_due() != Some(self.now()) || !self.move_virtual_time(true) {
                        break;
                    }
                    self.shared.time.wait_for_yield(0);
                }
            }
            return;
        }
        let stalled = self.watch.looped.is_some_and(|n| n >= LOOP_STEPS);
        if !stalled && !self.life.stopping {
            return;
        }
        if stalled && !self.watch.loop_reported {
            // What is in flight now acts before the notice, as it would before any move of
            // virtual time: where its events fall is the engine's choice.
            self.shared.time.wait_for_yield(0);
            self.watch.loop_reported = true;
            self.log_run(
                "warning",
                format!(
                    "signals have kept the engine busy for {LOOP_STEPS} steps without a pause \
                     (a loop of links?): virtual time goes on beside them"
                ),
            );
        }
        self.move_time_beside_loop();
    }

    /// Moves virtual time beside a loop (see [`Control::time_beside_loop`]): what is in
    /// flight acts first, then the next timer is due.
    fn move_time_beside_loop(&mut self) {
        if !self.shared.time.is_virtual() || !self.owns_time {
            return;
        }
        self.shared.time.wait_for_yield(0);
        self.watch.looped = Some(0);
        if self.move_virtual_time(true) {
            self.shared.time.wait_for_yield(0);
        }
    }

    /// Acts on one command; false when the engine is told to quit. An output fired, a
    /// signal hop's, is acted on here, the other commands apart ([`Control::act_on`]): the
    /// hop does not pay for their frame.
    #[inline(always)]
    fn handle(&mut self, command: Command) -> bool {
        self.handling(|c| match command {
            Command::Fire { b, output, value } => {
                c.fire(b, output, value);
                true
            }
            command => c.act_on(command),
        })
    }

    /// Acts on output `output` of box `b` fired with a bang, the hop's command, taken from
    /// the queue without a [`Command`] made of it ([`Reader::try_bang`]).
    #[inline(always)]
    fn handle_bang(&mut self, b: BoxId, output: u16) {
        self.handling(|c| {
            c.fire(b, output, Value::None);
            true
        });
    }

    /// What acting on any command takes: `act`, and what it made ready put in order.
    #[inline(always)]
    fn handling(&mut self, act: impl FnOnce(&mut Control) -> bool) -> bool {
        self.my_turn();
        self.life.idle_reported = false;
        self.watch.stalled_since = None;
        let mark = self.work.ready.len();
        let go_on = act(self);
        // What the command made ready runs in the order it was made ready.
        if self.work.ready.len() > mark {
            self.work.ready[mark..].reverse();
        }
        go_on
    }

    /// [`Control::handle`]'s commands other than an output fired.
    #[inline(never)]
    fn act_on(&mut self, command: Command) -> bool {
        match command {
            Command::Quit => return false,
            Command::Start(gate) => {
                self.life.start_gate = gate;
                self.life.started = true;
                self.record_behavior("start");
                self.diagrams.root_loading = true;
                self.uncapped = true;
                self.spawn_op(vec![
                    Step::LoadBox(Graph::ROOT),
                    Step::RootLoaded,
                    Step::StartRoot,
                ]);
                self.uncapped = false;
            }
            Command::Stop => self.stop_behavior(None),
            Command::BoxError { b, hook, text } => self.box_error(b, hook.into(), text.into()),
            Command::NestedFailed(outcome) => self.nested_failed(*outcome),
            Command::Constructed => {
                self.code = std::mem::take(&mut *choreo_base::lock(&self.code_slot));
                let nodes = &self.shared.graph.boxes;
                for ((state, code), node) in self.boxes.iter_mut().zip(&self.code).zip(nodes) {
                    state.inline = code.runs_inline();
                    state.starts_inline = state.inline && node.resources.is_empty();
                }
            }
            Command::Stimulate { b, input, value } => self.stimulate(b, input, value, false),
            Command::Fire { b, output, value } => self.fire(b, output, value),
            Command::HookDone { ticket, returned } => self.hook_done(ticket, returned),
            Command::Wake(token) => self.wake(token),
            Command::Timeline { b, command } => self.timeline_command(b, command),
            Command::Motion { b, epoch, sent } => self.motion_reply(b, epoch, sent),
            Command::Synced { b, stops, start } => self.synced(b, stops, *start),
            Command::Memory { d, input, value } => {
                if self.diagrams.links_on[d.0 as usize] {
                    let owner = self.shared.graph.diagram(d).owner;
                    self.compact(owner, Compact::In(input, &value));
                    self.spawn_op(vec![Step::ForwardInto(d, input, value)]);
                }
            }
        }
        true
    }

    /// Virtual time may move: no hook is running except those sleeping on the clock.
    pub(super) fn quiet(&self) -> bool {
        self.shared.time.busy() == 0
    }

    /// [`Control::quiet`], or nothing has happened for [`STALL`] of real time while some
    /// counted activity that takes no turns (none should) neither returns nor sleeps on the
    /// clock: virtual time goes on without it, or a run would hang. The hooks still running
    /// are named in the trace, once each.
    pub(super) fn quiet_or_stalled(&mut self) -> bool {
        let turns = self.shared.time.turns();
        turns.watch();
        self.report_turns();
        if self.quiet() {
            self.watch.stalled_since = None;
            return true;
        }
        if self.shared.time.turns().any() || self.shared.time.is_at_work() {
            // Something runs in its turn, however slowly (crate::turn: one that waits on
            // something else loses it), or real work is done for box code (a nested
            // behavior's load, a program started: Activity::at_work).
            self.watch.stalled_since = None;
            return false;
        }
        let since = *self
            .watch
            .stalled_since
            .get_or_insert_with(std::time::Instant::now);
        if since.elapsed() < STALL {
            return false;
        }
        let mut running: Vec<(u64, BoxId, HookRef)> = self
            .pending
            .waiting
            .iter()
            .filter(|(ticket, _)| !self.watch.stall_reported.contains(*ticket))
            .map(|(ticket, p)| (*ticket, p.b, p.hook))
            .collect();
        running.sort_by_key(|(ticket, _, _)| *ticket);
        if self.pending.waiting.is_empty() && !self.watch.stall_reported.contains(&u64::MAX) {
            // No hook: background work (a robot task, a thread of box code) is what waits.
            // Said once per run (the key `u64::MAX` is no hook's ticket).
            self.watch.stall_reported.insert(u64::MAX);
            self.log_run(
                "warning",
                format!(
                    "background work (a robot task or a thread of box code) has neither \
                         finished nor slept for {} s of real time: virtual time goes on",
                    STALL.as_secs()
                ),
            );
        }
        {
            for (ticket, b, hook) in running {
                self.watch.stall_reported.insert(ticket);
                let hook = hook.name(&self.shared.graph, b);
                self.record(
                    b,
                    TraceStep::Log {
                        level: "warning".into(),
                        message: format!(
                            "{hook} has neither returned nor slept for {} s of real time: it \
                             waits on something other than the clock; virtual time goes on",
                            STALL.as_secs()
                        ),
                    },
                );
            }
        }
        true
    }

    /// Reports an outcome: Finished and Stopped are final; Idle only until then.
    pub(super) fn finish(&mut self, outcome: Outcome) {
        crate::trace::flush_thread_buffer();
        self.outcome.set(outcome, &self.shared.time);
    }
}

/// What the command loop does after a budget of ready operations.
enum Flow {
    /// Operations are still ready: another budget.
    Again,
    /// A command ended the loop.
    Quit,
    /// Nothing is ready any more: the loop goes on to its commands and the clock.
    Drained,
}
