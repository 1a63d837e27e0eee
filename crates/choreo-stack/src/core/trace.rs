//! The stack's event trace (behavior-stack.md §1): every lifecycle call, stack change,
//! delegation and its result, as `(tick, seq, event)`. The rules of the contract are stated
//! over it and [`crate::core::check`] checks them; `choreo stack run --trace` writes it.

use std::fmt;

use crate::core::error::StackError;
use crate::core::types::{BehaviorId, Completed};

/// One event of the stack.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// Tick `n` begins (the tick is the record's).
    TickBegin,
    /// Tick `n` ends.
    TickEnd,
    /// `init` ran.
    Init {
        /// The behavior.
        b: BehaviorId,
    },
    /// The runner raised the behavior's scope count to `count`.
    ScopeRefInc {
        /// The behavior.
        b: BehaviorId,
        /// The count afterwards.
        count: u32,
    },
    /// The runner lowered the behavior's scope count to `count`.
    ScopeRefDec {
        /// The behavior.
        b: BehaviorId,
        /// The count afterwards.
        count: u32,
    },
    /// `on_entered_scope` ran (0→1).
    EnteredScope {
        /// The behavior.
        b: BehaviorId,
    },
    /// `on_left_scope` ran (1→0).
    LeftScope {
        /// The behavior.
        b: BehaviorId,
    },
    /// `wants_to_be_activated` was evaluated (conditions, veto and the behavior's own answer).
    Wtba {
        /// The behavior.
        b: BehaviorId,
        /// The answer.
        wants: bool,
    },
    /// The behavior became an element of the stack.
    Push {
        /// The behavior.
        b: BehaviorId,
    },
    /// The behavior stopped being an element of the stack.
    Pop {
        /// The behavior.
        b: BehaviorId,
    },
    /// `on_activated` ran.
    Activated {
        /// The behavior.
        b: BehaviorId,
    },
    /// `on_deactivated` ran.
    Deactivated {
        /// The behavior.
        b: BehaviorId,
    },
    /// `update` ran.
    Update {
        /// The behavior.
        b: BehaviorId,
    },
    /// An input was handed to a subscriber.
    Input {
        /// The subscriber.
        b: BehaviorId,
        /// The input's name.
        name: String,
    },
    /// `from` asked to hand control to `to`.
    Delegate {
        /// The delegator.
        from: BehaviorId,
        /// The delegate.
        to: BehaviorId,
        /// The callback token, if it asked for a callback.
        token: Option<u64>,
        /// Ok, or why not (the stack is then unchanged, R3).
        #[serde(serialize_with = "result_text")]
        result: Result<(), StackError>,
    },
    /// `from` asked to run an action.
    DelegateAction {
        /// The delegator (the action's owner).
        from: BehaviorId,
        /// The action's tag.
        tag: String,
        /// The callback token, if it asked for a callback.
        token: Option<u64>,
        /// Ok, or why not (the action is then dropped).
        #[serde(serialize_with = "result_text")]
        result: Result<(), StackError>,
    },
    /// An action finished (seen when the action list updated).
    ActionDone {
        /// Its owner.
        owner: BehaviorId,
        /// Its tag.
        tag: String,
        /// How it ended.
        result: Completed,
    },
    /// `by` cancelled its delegates.
    CancelDelegates {
        /// Who asked.
        by: BehaviorId,
        /// Whether its callback is kept (fires with `Canceled`).
        allow_callback: bool,
        /// Whether anything was (or will be) popped or cancelled.
        result: bool,
    },
    /// `by` asked to leave the stack.
    CancelSelf {
        /// Who asked.
        by: BehaviorId,
        /// Ok, or why not.
        #[serde(serialize_with = "result_text")]
        result: Result<(), StackError>,
    },
    /// The behavior's delegation callback fired.
    Callback {
        /// The delegator.
        b: BehaviorId,
        /// Its token.
        token: u64,
        /// What it received.
        payload: Completed,
    },
    /// A condition's evaluation window opened or closed (K1, K2).
    CondActive {
        /// Its owner.
        owner: BehaviorId,
        /// Which of the owner's conditions (`wtba[0]`, `cancel[1]`, ...).
        cond: String,
        /// Open or closed.
        active: bool,
    },
    /// A condition was evaluated.
    CondEval {
        /// Its owner.
        owner: BehaviorId,
        /// Which of the owner's conditions.
        cond: String,
        /// Its value.
        met: bool,
    },
    /// A behavior logged something (a Python behavior's exception is an `error`).
    Log {
        /// The behavior.
        b: BehaviorId,
        /// `info`, `warning` or `error`.
        level: String,
        /// What it said.
        text: String,
    },
    /// The stack became empty (R7): the base cancelled itself.
    StackEmpty,
    /// A deferred reset installed `base` (R8).
    Reset {
        /// The new base.
        base: BehaviorId,
    },
    /// A tick took longer than its budget; `slowest` are the behaviors whose hooks took the
    /// most, with their time in microseconds.
    TickOverrun {
        /// The tick's length, microseconds.
        took_us: u64,
        /// The budget, microseconds.
        budget_us: u64,
        /// The behaviors that took the time, slowest first.
        slowest: Vec<(BehaviorId, u64)>,
    },
}

/// A request's result in JSON: `"ok"`, or the refusal's text.
fn result_text<S: serde::Serializer>(r: &Result<(), StackError>, s: S) -> Result<S::Ok, S::Error> {
    match r {
        Ok(()) => s.serialize_str("ok"),
        Err(e) => s.serialize_str(&e.to_string()),
    }
}

/// An event with its place: the tick and a sequence number over the whole run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Record {
    /// The tick it happened in (0: before the first tick, while behaviors are initialized).
    pub tick: u64,
    /// Its sequence number (0, 1, 2, ...): the order within a tick.
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// A listener of the trace: called for each event as it is recorded, with the behaviors'
/// names (a live view, a JSON Lines writer).
pub type Listener = Box<dyn FnMut(&Record, &[String]) + Send>;

/// The trace of a runner: kept in memory (for tests and the checker) and/or told to
/// listeners as it grows.
pub struct Trace {
    keep: bool,
    records: Vec<Record>,
    listeners: Vec<Listener>,
    seq: u64,
}

impl Trace {
    /// A trace that keeps every event (`keep`) or none.
    pub fn new(keep: bool) -> Trace {
        Trace {
            keep,
            records: Vec::new(),
            listeners: Vec::new(),
            seq: 0,
        }
    }

    /// Whether events are recorded at all: kept, or some listener wants them.
    pub(crate) fn on(&self) -> bool {
        self.keep || !self.listeners.is_empty()
    }

    pub(crate) fn add_listener(&mut self, listener: Listener) {
        self.listeners.push(listener);
    }

    pub(crate) fn record(&mut self, tick: u64, event: Event, names: &[String]) {
        let record = Record {
            tick,
            seq: self.seq,
            event,
        };
        self.seq += 1;
        for l in &mut self.listeners {
            l(&record, names);
        }
        if self.keep {
            self.records.push(record);
        }
    }

    /// The kept events.
    pub fn records(&self) -> &[Record] {
        &self.records
    }
}

/// A short line for `record`, the behaviors named (`names[id]`): what the live output and
/// test failures show.
pub fn describe(record: &Record, names: &[String]) -> String {
    let n = |b: &BehaviorId| {
        names
            .get(b.index())
            .cloned()
            .unwrap_or_else(|| b.to_string())
    };
    let result = |r: &Result<(), StackError>| match r {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("err({e})"),
    };
    let what = match &record.event {
        Event::TickBegin => "tick_begin".to_string(),
        Event::TickEnd => "tick_end".to_string(),
        Event::Init { b } => format!("init({})", n(b)),
        Event::ScopeRefInc { b, count } => format!("scope_ref_inc({}, {count})", n(b)),
        Event::ScopeRefDec { b, count } => format!("scope_ref_dec({}, {count})", n(b)),
        Event::EnteredScope { b } => format!("entered_scope({})", n(b)),
        Event::LeftScope { b } => format!("left_scope({})", n(b)),
        Event::Wtba { b, wants } => format!("wtba({}) = {wants}", n(b)),
        Event::Push { b } => format!("push({})", n(b)),
        Event::Pop { b } => format!("pop({})", n(b)),
        Event::Activated { b } => format!("activated({})", n(b)),
        Event::Deactivated { b } => format!("deactivated({})", n(b)),
        Event::Update { b } => format!("update({})", n(b)),
        Event::Input { b, name } => format!("input({}, {name})", n(b)),
        Event::Delegate {
            from,
            to,
            result: r,
            ..
        } => {
            format!("delegate({}, {}) = {}", n(from), n(to), result(r))
        }
        Event::DelegateAction {
            from,
            tag,
            result: r,
            ..
        } => {
            format!("delegate_action({}, {tag}) = {}", n(from), result(r))
        }
        Event::ActionDone { owner, tag, result } => {
            format!("action_done({}, {tag}, {result})", n(owner))
        }
        Event::CancelDelegates {
            by,
            allow_callback,
            result,
        } => format!("cancel_delegates({}, {allow_callback}) = {result}", n(by)),
        Event::CancelSelf { by, result: r } => format!("cancel_self({}) = {}", n(by), result(r)),
        Event::Callback { b, token, payload } => {
            format!("callback({}, {token}, {payload})", n(b))
        }
        Event::CondActive {
            owner,
            cond,
            active,
        } => format!("cond_active({}.{cond}, {active})", n(owner)),
        Event::CondEval { owner, cond, met } => format!("cond_eval({}.{cond}) = {met}", n(owner)),
        Event::Log { b, level, text } => format!("log({}, {level}: {text})", n(b)),
        Event::StackEmpty => "stack_empty".to_string(),
        Event::Reset { base } => format!("reset({})", n(base)),
        Event::TickOverrun {
            took_us,
            budget_us,
            slowest,
        } => {
            let who: Vec<String> = slowest
                .iter()
                .map(|(b, us)| format!("{} {us} µs", n(b)))
                .collect();
            format!(
                "tick_overrun({took_us} µs > {budget_us} µs: {})",
                who.join(", ")
            )
        }
    };
    format!("{:>5} {what}", record.tick)
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("keep", &self.keep)
            .field("records", &self.records.len())
            .field("listeners", &self.listeners.len())
            .finish()
    }
}
