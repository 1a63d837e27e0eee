//! The invariant checker (behavior-stack.md §12, "ours", 2): reads a trace and the frozen
//! tree (delegates and linked closures) and reports every event that breaks a rule of the
//! contract. It replays the trace on its own, from the rules alone, without the runner's
//! code: it is the oracle of the trace tests and the property tests.
//!
//! Checked: L1, L2, L4, L6, L7, L8, L10/T3, T1, T4, R1, R2, R4, R5/S4, R6, S1, S3, P2, C1–C4,
//! A1, K1, K2. (L5 and R3 are checked by the tests that provoke them: a refused request
//! leaves no trace but its `err`.)

use std::collections::BTreeMap;

use crate::core::behavior::BehaviorId;
use crate::core::runner::Runner;
use crate::core::trace::{Event, Record};

/// What the checker needs to know of the behaviors beside the trace.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Names, by index.
    pub names: Vec<String>,
    /// Declared delegates, by index.
    pub delegates: Vec<Vec<BehaviorId>>,
    /// Linked closures, by index.
    pub linked: Vec<Vec<BehaviorId>>,
    /// Which behaviors have wtba / cancel conditions: (count of wtba, count of cancel).
    pub conditions: Vec<(usize, usize)>,
}

impl Tree {
    /// The tree of `runner`.
    pub fn of(runner: &Runner) -> Tree {
        let n = runner.names().len();
        let ids = (0..n).map(|i| BehaviorId(u32::try_from(i).unwrap_or(u32::MAX)));
        Tree {
            names: runner.names().to_vec(),
            delegates: ids
                .clone()
                .map(|b| runner.delegates_of(b).to_vec())
                .collect(),
            linked: ids.clone().map(|b| runner.linked_of(b).to_vec()).collect(),
            conditions: ids.map(|b| runner.condition_counts(b)).collect(),
        }
    }
}

/// A broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule (`"T3"`).
    pub rule: &'static str,
    /// The event's sequence number.
    pub seq: u64,
    /// Its tick.
    pub tick: u64,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at tick {} (#{}): {}",
            self.rule, self.tick, self.seq, self.what
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    New,
    Out,
    In,
    Active,
}

#[derive(Default)]
struct Per {
    inits: u32,
    refs: u32,
    updates_this_tick: u32,
    /// The most recent wtba of this tick.
    wtba: Option<(u64, bool)>,
    /// Tokens of callbacks it may still receive.
    tokens: Vec<u64>,
    /// The tick its last delegation ended in.
    ended: Option<u64>,
    action: bool,
    action_done: bool,
    /// Open condition windows.
    open: BTreeMap<String, bool>,
}

/// Checks `records` against the rules, for the behaviors of `tree`. The root entry (whose
/// delegate set is the base) is read from the trace: the scope reference a behavior gets
/// while the stack is empty and no root is there.
pub fn check(records: &[Record], tree: &Tree) -> Vec<Violation> {
    Checker::new(tree).run(records)
}

struct Checker<'a> {
    tree: &'a Tree,
    /// The base, once the root entry referenced it.
    base: Option<BehaviorId>,
    st: Vec<St>,
    per: Vec<Per>,
    stack: Vec<BehaviorId>,
    projected: Vec<BehaviorId>,
    root: bool,
    /// Delegations made ok and not yet pushed.
    pushes: Vec<BehaviorId>,
    /// Stack-pass position of the last update this tick, and whether the in-scope pass began.
    last_pos: Option<usize>,
    in_scope_pass: bool,
    /// The behavior whose pop is under way and the scope decrements it still owes.
    popping: Option<(BehaviorId, Vec<BehaviorId>)>,
    out: Vec<Violation>,
    tick: u64,
    seq: u64,
}

impl<'a> Checker<'a> {
    fn new(tree: &'a Tree) -> Checker<'a> {
        let n = tree.names.len();
        Checker {
            tree,
            base: None,
            st: vec![St::New; n],
            per: (0..n).map(|_| Per::default()).collect(),
            stack: Vec::new(),
            projected: Vec::new(),
            root: false,
            pushes: Vec::new(),
            last_pos: None,
            in_scope_pass: false,
            popping: None,
            out: Vec::new(),
            tick: 0,
            seq: 0,
        }
    }

    fn bad(&mut self, rule: &'static str, what: String) {
        self.out.push(Violation {
            rule,
            seq: self.seq,
            tick: self.tick,
            what,
        });
    }

    fn name(&self, b: BehaviorId) -> &str {
        self.tree.names.get(b.index()).map_or("?", String::as_str)
    }

    /// What an entry with delegate set `delegates` keeps in scope: its delegates, then the
    /// linked closure of each (§5.1).
    fn scope_of_set(&self, delegates: &[BehaviorId]) -> Vec<BehaviorId> {
        let mut v = delegates.to_vec();
        for d in delegates {
            v.extend(self.tree.linked.get(d.index()).into_iter().flatten());
        }
        v
    }

    /// What stack element `b` keeps in scope.
    fn scope_of(&self, b: BehaviorId) -> Vec<BehaviorId> {
        let delegates = self
            .tree
            .delegates
            .get(b.index())
            .cloned()
            .unwrap_or_default();
        self.scope_of_set(&delegates)
    }

    fn run(mut self, records: &[Record]) -> Vec<Violation> {
        for r in records {
            self.tick = r.tick;
            self.seq = r.seq;
            if let Some(b) = subject(&r.event)
                && b.index() >= self.st.len()
            {
                self.bad("trace", format!("unknown behavior {b}"));
                continue;
            }
            self.event(&r.event);
        }
        self.out
    }

    fn event(&mut self, e: &Event) {
        // L1: init comes before anything else of a behavior.
        if let Some(b) = subject(e)
            && !matches!(e, Event::Init { .. })
            && self.st[b.index()] == St::New
        {
            let n = self.name(b).to_string();
            self.bad("L1", format!("{n}: an event before its init"));
        }
        match e {
            Event::TickBegin => self.tick_begin(),
            Event::TickEnd => self.tick_end(),
            Event::Init { b } => self.init(*b),
            Event::ScopeRefInc { b, count } => self.scope_inc(*b, *count),
            Event::ScopeRefDec { b, count } => self.scope_dec(*b, *count),
            Event::EnteredScope { b } => {
                if self.per[b.index()].refs != 1 {
                    let n = self.name(*b).to_string();
                    self.bad("L2", format!("entered_scope({n}) without a 0→1 transition"));
                }
            }
            Event::LeftScope { b } => {
                if self.per[b.index()].refs != 0 {
                    let n = self.name(*b).to_string();
                    self.bad("L2", format!("left_scope({n}) without a 1→0 transition"));
                }
            }
            Event::Wtba { b, wants } => {
                if self.st[b.index()] != St::In {
                    let n = self.name(*b).to_string();
                    self.bad("L4", format!("wtba({n}) while not in scope (or activated)"));
                }
                self.per[b.index()].wtba = Some((self.tick, *wants));
            }
            Event::Push { b } => self.push(*b),
            Event::Pop { b } => self.pop(*b),
            Event::Activated { b } => self.activated(*b),
            Event::Deactivated { b } => self.deactivated(*b),
            Event::Update { b } => self.update(*b),
            Event::Delegate {
                from,
                to,
                token,
                result,
            } => {
                if result.is_ok() {
                    self.delegate_ok(*from, *to, *token);
                }
            }
            Event::DelegateAction {
                from,
                token,
                result,
                ..
            } => {
                if result.is_ok() {
                    self.action_ok(*from, *token);
                }
            }
            Event::ActionDone { owner, .. } => self.action_done(*owner),
            Event::CancelDelegates {
                by,
                allow_callback,
                result,
            } => self.cancel_delegates(*by, *allow_callback, *result),
            Event::CancelSelf { by, result } => {
                let on = self.projected.iter().position(|x| x == by);
                match (on, result) {
                    (Some(i), Ok(())) => self.projected.truncate(i),
                    (None, Ok(())) => self.bad("R6", "cancel_self ok off the stack".into()),
                    _ => {}
                }
            }
            Event::Callback { b, token, .. } => self.callback(*b, *token),
            Event::CondActive {
                owner,
                cond,
                active,
            } => {
                self.per[owner.index()].open.insert(cond.clone(), *active);
            }
            Event::CondEval { owner, cond, .. } => {
                if self.per[owner.index()].open.get(cond) != Some(&true) {
                    let n = self.name(*owner).to_string();
                    self.bad("K1", format!("{n}.{cond} evaluated outside its window"));
                }
            }
            Event::StackEmpty => {
                if !self.stack.is_empty() {
                    self.bad("R7", "stack_empty with elements".into());
                }
            }
            Event::Reset { .. } => {}
            Event::Input { .. } | Event::Log { .. } | Event::TickOverrun { .. } => {}
        }
    }

    /// `owner`'s action ended: its behavior may end now.
    fn action_done(&mut self, owner: BehaviorId) {
        let tick = self.tick;
        let p = &mut self.per[owner.index()];
        p.action = false;
        p.action_done = true;
        p.ended = Some(tick);
    }

    /// L1: a behavior is initialized once, and then out of scope.
    fn init(&mut self, b: BehaviorId) {
        let p = &mut self.per[b.index()];
        p.inits += 1;
        if p.inits > 1 {
            let n = self.name(b).to_string();
            self.bad("L1", format!("{n} initialized twice"));
        }
        self.st[b.index()] = St::Out;
    }

    /// R5: `cancel_delegates` by `by` pops what is above it, and says whether there was
    /// anything to cancel.
    fn cancel_delegates(&mut self, by: BehaviorId, allow_callback: bool, result: bool) {
        if !allow_callback {
            self.per[by.index()].tokens.clear();
        }
        if let Some(i) = self.projected.iter().position(|x| *x == by) {
            let had = i + 1 < self.projected.len() || self.per[by.index()].action;
            if had != result {
                self.bad(
                    "R5",
                    format!("cancel_delegates returned {result}, expected {had}"),
                );
            }
            self.projected.truncate(i + 1);
            if self.per[by.index()].action {
                self.per[by.index()].action = false;
                if allow_callback {
                    self.per[by.index()].ended = Some(self.tick);
                }
            }
        } else if result {
            self.bad("R5", "cancel_delegates off the stack returned true".into());
        }
    }

    fn tick_begin(&mut self) {
        for p in &mut self.per {
            p.updates_this_tick = 0;
            p.action_done = false;
        }
        self.last_pos = None;
        self.in_scope_pass = false;
    }

    fn tick_end(&mut self) {
        // T3: exactly one update for whoever is in scope or activated.
        for i in 0..self.st.len() {
            let live = matches!(self.st[i], St::In | St::Active);
            let n = self.per[i].updates_this_tick;
            if live && n != 1 {
                let name = self.tree.names[i].clone();
                self.bad(
                    "T3",
                    format!("{name} in scope at tick end with {n} updates"),
                );
            }
        }
        if self.projected != self.stack || !self.pushes.is_empty() {
            self.bad(
                "R4",
                "changes asked for were not all made by the tick's end".into(),
            );
            self.projected.clone_from(&self.stack);
            self.pushes.clear();
        }
        self.check_p2();
        self.check_k2();
    }

    /// P2: states and counts agree with the stack.
    fn check_p2(&mut self) {
        let mut expected = vec![0u32; self.st.len()];
        if self.root
            && let Some(base) = self.base
        {
            for d in self.scope_of_set(&[base]) {
                if let Some(e) = expected.get_mut(d.index()) {
                    *e += 1;
                }
            }
        }
        for b in self.stack.clone() {
            for d in self.scope_of(b) {
                if let Some(e) = expected.get_mut(d.index()) {
                    *e += 1;
                }
            }
        }
        for (i, &members) in expected.iter().enumerate() {
            let b = BehaviorId(u32::try_from(i).unwrap_or(u32::MAX));
            let on = self.stack.contains(&b);
            let name = self.tree.names[i].clone();
            if (self.st[i] == St::Active) != on {
                self.bad(
                    "P2",
                    format!(
                        "{name}: activated {} but on the stack {on}",
                        self.st[i] == St::Active
                    ),
                );
            }
            if self.per[i].refs != members {
                self.bad(
                    "P2",
                    format!(
                        "{name}: scope count {} but {} memberships",
                        self.per[i].refs, members
                    ),
                );
            }
            if (members > 0) != matches!(self.st[i], St::In | St::Active) {
                self.bad(
                    "P2",
                    format!(
                        "{name}: in scope {} but state {:?}",
                        members > 0,
                        self.st[i]
                    ),
                );
            }
        }
    }

    /// K2: wtba windows open exactly while in scope and not activated, cancel windows while
    /// activated.
    fn check_k2(&mut self) {
        for i in 0..self.st.len() {
            let (w, c) = self.tree.conditions.get(i).copied().unwrap_or_default();
            let name = self.tree.names[i].clone();
            for (kind, n, want) in [
                ("wtba", w, self.st[i] == St::In),
                ("cancel", c, self.st[i] == St::Active),
            ] {
                for k in 0..n {
                    let open = self.per[i].open.get(&format!("{kind}[{k}]")) == Some(&true);
                    if open != want {
                        self.bad(
                            "K2",
                            format!("{name}.{kind}[{k}] open {open} in state {:?}", self.st[i]),
                        );
                    }
                }
            }
        }
    }

    fn scope_inc(&mut self, b: BehaviorId, count: u32) {
        let i = b.index();
        if self.st[i] == St::New {
            let n = self.name(b).to_string();
            self.bad("L2", format!("scope_ref_inc({n}) before init"));
        }
        self.per[i].refs += 1;
        if self.per[i].refs != count {
            self.bad(
                "L2",
                format!("scope count {count}, expected {}", self.per[i].refs),
            );
        }
        if self.per[i].refs == 1 && self.st[i] == St::Out {
            self.st[i] = St::In;
        }
        if self.stack.is_empty() && !self.root {
            self.root = true;
            self.base = Some(b);
        }
    }

    fn scope_dec(&mut self, b: BehaviorId, count: u32) {
        let i = b.index();
        if self.st[i] != St::In {
            let n = self.name(b).to_string();
            self.bad(
                "L8",
                format!("scope_ref_dec({n}) in state {:?}", self.st[i]),
            );
        }
        if let Some((_, owed)) = &mut self.popping
            && let Some(k) = owed.iter().position(|x| *x == b)
        {
            owed.remove(k);
        }
        self.per[i].refs = self.per[i].refs.saturating_sub(1);
        if self.per[i].refs != count {
            self.bad(
                "L2",
                format!("scope count {count}, expected {}", self.per[i].refs),
            );
        }
        if self.per[i].refs == 0 {
            self.st[i] = St::Out;
            if self.stack.is_empty() && self.base == Some(b) {
                self.root = false;
            }
        }
    }

    fn delegate_ok(&mut self, from: BehaviorId, to: BehaviorId, token: Option<u64>) {
        if self.projected.last() != Some(&from) {
            let n = self.name(from).to_string();
            self.bad("R1", format!("delegate ok from {n}, not the top"));
        }
        if !self.tree.delegates[from.index()].contains(&to) {
            let (a, b) = (self.name(from).to_string(), self.name(to).to_string());
            self.bad("R2", format!("{b} is not a declared delegate of {a}"));
        }
        self.projected.push(to);
        self.pushes.push(to);
        self.per[from.index()].tokens = token.into_iter().collect();
    }

    fn action_ok(&mut self, from: BehaviorId, token: Option<u64>) {
        let i = from.index();
        let top = self.projected.last() == Some(&from);
        if !top || self.st[i] != St::Active || self.per[i].action || self.per[i].action_done {
            let n = self.name(from).to_string();
            self.bad(
                "A1",
                format!(
                    "delegate_action ok from {n}: top {top}, state {:?}",
                    self.st[i]
                ),
            );
        }
        self.per[i].action = true;
        self.per[i].tokens = token.into_iter().collect();
    }

    fn push(&mut self, b: BehaviorId) {
        // R4: the next push after a delegation is its delegate.
        match self.pushes.first() {
            Some(&next) if next == b => {
                self.pushes.remove(0);
            }
            _ if self.stack.is_empty() => {}
            _ => {
                let n = self.name(b).to_string();
                self.bad("R4", format!("push({n}) that no delegation asked for"));
            }
        }
        if self.stack.is_empty() && self.projected.is_empty() {
            self.projected.push(b);
        }
        self.stack.push(b);
    }

    fn activated(&mut self, b: BehaviorId) {
        let i = b.index();
        // L6: a true wtba in this tick, in scope before.
        if self.per[i].wtba != Some((self.tick, true)) {
            let n = self.name(b).to_string();
            self.bad(
                "L6",
                format!("activated({n}) without a true wtba this tick"),
            );
        }
        if self.st[i] != St::In {
            let n = self.name(b).to_string();
            self.bad("L6", format!("activated({n}) from state {:?}", self.st[i]));
        }
        // S1: its delegates and linked behaviors are in scope before it is activated.
        for d in self.scope_of(b) {
            if self.per[d.index()].refs == 0 {
                let (a, c) = (self.name(b).to_string(), self.name(d).to_string());
                self.bad("S1", format!("activated({a}) before {c} entered scope"));
            }
        }
        self.st[i] = St::Active;
        self.per[i].tokens.clear();
        self.per[i].ended = None;
    }

    fn pop(&mut self, b: BehaviorId) {
        if self.stack.last() != Some(&b) {
            let n = self.name(b).to_string();
            self.bad("S4", format!("pop({n}) is not the top"));
        }
        self.popping = Some((b, self.scope_of(b)));
        // A pop no request asked for (the stack cleared, S6) leaves the projection too.
        if let Some(i) = self.projected.iter().position(|x| *x == b) {
            self.projected.truncate(i);
        }
    }

    fn deactivated(&mut self, b: BehaviorId) {
        let i = b.index();
        if self.st[i] != St::Active {
            let n = self.name(b).to_string();
            self.bad("L7", format!("deactivated({n}) in state {:?}", self.st[i]));
        }
        match self.popping.take() {
            Some((p, owed)) if p == b => {
                if !owed.is_empty() {
                    let n = self.name(b).to_string();
                    self.bad(
                        "S3",
                        format!("deactivated({n}) before its delegates left scope"),
                    );
                }
            }
            _ => {
                let n = self.name(b).to_string();
                self.bad("S4", format!("deactivated({n}) without its pop"));
            }
        }
        self.st[i] = St::In;
        // C3: no callback after deactivation.
        self.per[i].tokens.clear();
        self.per[i].action = false;
        if self.stack.last() == Some(&b) {
            self.stack.pop();
        }
        if let Some(&d) = self.stack.last() {
            self.per[d.index()].ended = Some(self.tick);
        }
    }

    fn update(&mut self, b: BehaviorId) {
        let i = b.index();
        self.per[i].updates_this_tick += 1;
        if self.per[i].updates_this_tick > 1 {
            let n = self.name(b).to_string();
            self.bad("T3", format!("a second update of {n} in one tick"));
        }
        if !matches!(self.st[i], St::In | St::Active) {
            let n = self.name(b).to_string();
            self.bad("L10", format!("update({n}) out of scope"));
        }
        match self.stack.iter().position(|x| *x == b) {
            Some(pos) => {
                if self.in_scope_pass {
                    let n = self.name(b).to_string();
                    self.bad(
                        "T4",
                        format!("update({n}) of the stack after the in-scope pass began"),
                    );
                }
                if self.last_pos.is_some_and(|last| pos <= last) {
                    let n = self.name(b).to_string();
                    self.bad(
                        "T1",
                        format!("update({n}) at stack index {pos}, not above the last"),
                    );
                }
                self.last_pos = Some(pos);
            }
            None => self.in_scope_pass = true,
        }
    }

    fn callback(&mut self, b: BehaviorId, token: u64) {
        let i = b.index();
        let n = self.name(b).to_string();
        if self.st[i] != St::Active {
            self.bad("C3", format!("callback({n}) while not activated"));
        }
        match self.per[i].tokens.iter().position(|t| *t == token) {
            Some(k) => {
                self.per[i].tokens.remove(k);
            }
            None => self.bad("C2", format!("callback({n}, {token}) not owed")),
        }
        if self.per[i].ended.is_none_or(|e| e >= self.tick) {
            self.bad(
                "C1",
                format!("callback({n}) in the tick its delegation ended"),
            );
        }
    }
}

/// The behavior an event is about (its first behavior field).
fn subject(e: &Event) -> Option<BehaviorId> {
    match e {
        Event::Init { b }
        | Event::ScopeRefInc { b, .. }
        | Event::ScopeRefDec { b, .. }
        | Event::EnteredScope { b }
        | Event::LeftScope { b }
        | Event::Wtba { b, .. }
        | Event::Push { b }
        | Event::Pop { b }
        | Event::Activated { b }
        | Event::Deactivated { b }
        | Event::Update { b }
        | Event::Input { b, .. }
        | Event::Log { b, .. }
        | Event::Callback { b, .. } => Some(*b),
        Event::Delegate { from, .. } | Event::DelegateAction { from, .. } => Some(*from),
        Event::ActionDone { owner, .. }
        | Event::CondActive { owner, .. }
        | Event::CondEval { owner, .. } => Some(*owner),
        Event::CancelDelegates { by, .. } | Event::CancelSelf { by, .. } => Some(*by),
        Event::Reset { base } => Some(*base),
        Event::TickBegin | Event::TickEnd | Event::StackEmpty | Event::TickOverrun { .. } => None,
    }
}
