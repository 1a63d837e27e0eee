//! Building a runner: the behaviors, their declared delegates and linked behaviors resolved
//! (anonymous behaviors first, then the global ids) and frozen (R2), and how it runs.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use choreo_engine::Robot;

use crate::core::behavior::{Behavior, BehaviorId};
use crate::core::condition::Condition;
use crate::core::error::SetupError;
use crate::core::input::Inbox;
use crate::core::runner::Runner;
use crate::core::state::{Core, Slot, State};
use crate::core::trace::Trace;
use crate::core::world::World;

/// How far the linked behaviors of one behavior are followed (P3).
const LINKED_BOUND: usize = 1000;

/// How a runner runs.
#[derive(Default)]
pub struct Options {
    /// Keep every trace event in memory ([`Runner::trace`]): tests and the checker.
    pub keep_trace: bool,
    /// The tick period (the stack's time advances by it each tick); 60 ms if zero.
    pub period: Duration,
    /// A tick longer than this is a `tick_overrun` event naming the behaviors that took
    /// the time (hooks are then timed: two clock reads each).
    pub budget: Option<Duration>,
    /// When the base cancels itself, push it again at the next tick (if it wants) instead of
    /// finishing (R7).
    pub reinstall_base: bool,
    /// The robot actions and conditions use.
    pub robot: Option<Arc<dyn Robot>>,
}

/// The behaviors' names, the named ones by id, and each owner's anonymous ones by id.
type Ids = (
    Vec<String>,
    HashMap<String, BehaviorId>,
    Vec<Vec<(String, BehaviorId)>>,
);

/// The behaviors to run, added one by one, then [`Builder::build`].
#[derive(Default)]
pub struct Builder {
    entries: Vec<Entry>,
}

struct Entry {
    id: String,
    owner: Option<String>,
    behavior: Box<dyn Behavior>,
    wtba_conditions: Vec<Box<dyn Condition>>,
    cancel_conditions: Vec<Box<dyn Condition>>,
}

impl Builder {
    /// No behaviors yet.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Adds behavior `id`.
    pub fn add(&mut self, id: &str, behavior: Box<dyn Behavior>) -> &mut Builder {
        self.add_entry(id.to_string(), None, behavior)
    }

    /// Adds an anonymous behavior `name` of `owner` (private to it, found by its name before
    /// the global ids; labelled `@name`).
    pub fn add_anonymous(
        &mut self,
        owner: &str,
        name: &str,
        behavior: Box<dyn Behavior>,
    ) -> &mut Builder {
        self.add_entry(name.to_string(), Some(owner.to_string()), behavior)
    }

    fn add_entry(
        &mut self,
        id: String,
        owner: Option<String>,
        behavior: Box<dyn Behavior>,
    ) -> &mut Builder {
        self.entries.push(Entry {
            id,
            owner,
            behavior,
            wtba_conditions: Vec::new(),
            cancel_conditions: Vec::new(),
        });
        self
    }

    /// Gives the behavior added last its conditions: `wtba` (all must hold for it to want to
    /// be activated, K3) and `cancel` (any cancels it once active, C6).
    pub fn conditions(
        &mut self,
        wtba: Vec<Box<dyn Condition>>,
        cancel: Vec<Box<dyn Condition>>,
    ) -> &mut Builder {
        if let Some(e) = self.entries.last_mut() {
            e.wtba_conditions = wtba;
            e.cancel_conditions = cancel;
        }
        self
    }

    /// Every behavior's id: the names (an anonymous one as `@id`), the named behaviors by
    /// id, and each owner's anonymous behaviors. Ids are unique among the named, and among
    /// an owner's anonymous behaviors and the named.
    fn ids(&self) -> Result<Ids, SetupError> {
        let mut names = Vec::with_capacity(self.entries.len());
        let mut ids = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            let id = BehaviorId(u32::try_from(i).unwrap_or(u32::MAX));
            match &e.owner {
                None => {
                    if ids.insert(e.id.clone(), id).is_some() {
                        return Err(SetupError::DuplicateId(e.id.clone()));
                    }
                    names.push(e.id.clone());
                }
                Some(_) => names.push(format!("@{}", e.id)),
            }
        }
        // Anonymous behaviors, by owner.
        let mut anonymous: Vec<Vec<(String, BehaviorId)>> = vec![Vec::new(); self.entries.len()];
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(owner) = &e.owner {
                let Some(&o) = ids.get(owner) else {
                    return Err(SetupError::UnknownBehavior {
                        behavior: format!("@{}", e.id),
                        named: owner.clone(),
                        what: "owner",
                    });
                };
                let me = BehaviorId(u32::try_from(i).unwrap_or(u32::MAX));
                if ids.contains_key(&e.id) || anonymous[o.index()].iter().any(|(n, _)| *n == e.id) {
                    return Err(SetupError::DuplicateId(format!("@{}", e.id)));
                }
                anonymous[o.index()].push((e.id.clone(), me));
            }
        }
        Ok((names, ids, anonymous))
    }

    /// Resolves every declared delegate and linked behavior (frozen from then on, R2) and
    /// gives a runner whose first tick initializes every behavior (L1, unless
    /// [`Runner::start`] did) and pushes `base`.
    pub fn build(self, base: &str, options: Options) -> Result<Runner, SetupError> {
        let (names, ids, mut anonymous) = self.ids()?;
        let resolve = |i: usize, named: &str, what: &'static str| {
            anonymous[i]
                .iter()
                .find(|(n, _)| n == named)
                .map(|(_, id)| *id)
                .or_else(|| ids.get(named).copied())
                .ok_or_else(|| SetupError::UnknownBehavior {
                    behavior: names[i].clone(),
                    named: named.to_string(),
                    what,
                })
        };
        let mut delegates = Vec::with_capacity(self.entries.len());
        let mut direct_linked = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            let mut d = Vec::new();
            for n in e.behavior.delegates() {
                let id = resolve(i, &n, "delegate")?;
                if !d.contains(&id) {
                    d.push(id);
                }
            }
            delegates.push(d);
            let mut l = Vec::new();
            for n in e.behavior.linked() {
                let id = resolve(i, &n, "linked behavior")?;
                if !l.contains(&id) {
                    l.push(id);
                }
            }
            direct_linked.push(l);
        }
        if let Some(cycle) = find_cycle(&delegates, &direct_linked) {
            return Err(SetupError::Cycle(
                cycle.iter().map(|b| names[b.index()].clone()).collect(),
            ));
        }
        let base = *ids
            .get(base)
            .ok_or_else(|| SetupError::UnknownBase(base.to_string()))?;
        let mut slots = Vec::with_capacity(self.entries.len());
        let mut behaviors = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.into_iter().enumerate() {
            let linked = closure(i, &direct_linked)
                .ok_or_else(|| SetupError::LinkedTooDeep(names[i].clone()))?;
            slots.push(Slot {
                delegates: std::mem::take(&mut delegates[i]),
                linked,
                anonymous: std::mem::take(&mut anonymous[i]),
                always_delegates: e.behavior.always_delegates(),
                subscriptions: e.behavior.subscriptions(),
                state: State::NotInitialized,
                scope_refs: 0,
                last_update: 0,
                wtba: (0, false),
                veto_tick: 0,
                callback: None,
                action: None,
                action_started: false,
                action_done: None,
                wtba_conditions: e.wtba_conditions,
                cancel_conditions: e.cancel_conditions,
                spent: Duration::ZERO,
            });
            behaviors.push(Some(e.behavior));
        }
        let period = if options.period.is_zero() {
            Duration::from_millis(60)
        } else {
            options.period
        };
        let timing = options.budget.is_some();
        Ok(Runner {
            behaviors,
            core: Core::start(names, ids, slots, options.keep_trace, options.robot, timing),
            base,
            period,
            budget: options.budget,
            reinstall_base: options.reinstall_base,
            inbox: Inbox::default(),
            reset: None,
            finished: false,
        })
    }
}

impl Core {
    /// The state of a stack about to run: nothing on it, nothing in scope, tick 0.
    fn start(
        names: Vec<String>,
        ids: HashMap<String, BehaviorId>,
        slots: Vec<Slot>,
        keep_trace: bool,
        robot: Option<Arc<dyn Robot>>,
        timing: bool,
    ) -> Core {
        Core {
            names,
            ids,
            slots,
            stack: Vec::new(),
            projected: Vec::new(),
            queue: VecDeque::new(),
            trace: Trace::new(keep_trace),
            world: World {
                tick: 0,
                now: Duration::ZERO,
                inputs: Vec::new(),
                finished: HashMap::new(),
                robot,
            },
            in_scope: Vec::new(),
            root: false,
            timing,
            with_actions: Vec::new(),
            charged: Vec::new(),
        }
    }
}

/// The transitive closure of `i`'s linked behaviors (without `i`), in the order found;
/// `None` past [`LINKED_BOUND`] steps.
fn closure(i: usize, direct: &[Vec<BehaviorId>]) -> Option<Vec<BehaviorId>> {
    let mut out: Vec<BehaviorId> = Vec::new();
    let mut next = 0;
    let mut steps = 0;
    let mut frontier: Vec<BehaviorId> = direct.get(i).cloned().unwrap_or_default();
    loop {
        for b in frontier.drain(..) {
            steps += 1;
            if steps > LINKED_BOUND {
                return None;
            }
            if b.index() != i && !out.contains(&b) {
                out.push(b);
            }
        }
        let Some(&b) = out.get(next) else {
            return Some(out);
        };
        next += 1;
        frontier.extend(direct.get(b.index()).into_iter().flatten().copied());
    }
}

/// A cycle of the graph whose edges go from each behavior to its delegates and linked
/// behaviors, as the path around it (the first behavior again at the end); none if there is
/// none. Depth-first, with a stack of its own (the input sets the depth).
fn find_cycle(
    delegates: &[Vec<BehaviorId>],
    linked: &[Vec<BehaviorId>],
) -> Option<Vec<BehaviorId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let n = delegates.len();
    let edges = |i: usize| {
        delegates
            .get(i)
            .into_iter()
            .flatten()
            .chain(linked.get(i).into_iter().flatten())
            .copied()
    };
    let mut mark = vec![Mark::New; n];
    for start in 0..n {
        if mark[start] != Mark::New {
            continue;
        }
        // (node, index of its next edge)
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::OnPath;
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            match edges(node).nth(*next) {
                Some(to) => {
                    *next += 1;
                    let t = to.index();
                    match mark.get(t) {
                        Some(Mark::New) => {
                            mark[t] = Mark::OnPath;
                            path.push((t, 0));
                        }
                        Some(Mark::OnPath) => {
                            let from = path.iter().position(|(x, _)| *x == t).unwrap_or(0);
                            let mut cycle: Vec<BehaviorId> =
                                path[from..].iter().map(|(x, _)| id(*x)).collect();
                            cycle.push(id(t));
                            return Some(cycle);
                        }
                        _ => {}
                    }
                }
                None => {
                    mark[node] = Mark::Done;
                    path.pop();
                }
            }
        }
    }
    None
}

fn id(i: usize) -> BehaviorId {
    BehaviorId(u32::try_from(i).unwrap_or(u32::MAX))
}
