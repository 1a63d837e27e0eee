//! The dispatchers (behavior-stack.md §10.2): structural behaviors that choose which of their
//! children runs. Each update, if activated and with no delegate (or allowed to interrupt),
//! a dispatcher picks the child it wants; if that differs from the one running, it cancels
//! its delegates and delegates to it. It always delegates (C6): with nothing to run, it is
//! cancelled.

use std::time::Duration;

use crate::core::behavior::Context;
use crate::core::behavior::{Behavior, BehaviorId};

/// How a dispatcher chooses.
#[derive(Debug, Clone)]
pub enum Rule {
    /// The first child (in order) that is running or wants to (`DispatcherStrictPriority`;
    /// with cooldowns, `DispatcherStrictPriorityWithCooldown`). `once`: choose one child
    /// only, then end when it ends (`actAsSelector`).
    Priority {
        /// Choose once (`actAsSelector`).
        once: bool,
    },
    /// Each child in order that wants to, once, then end (`DispatcherQueue`, never
    /// interrupts).
    Queue,
    /// A weighted random choice among the children that want to (`DispatcherRandom`);
    /// `one_shot`: end after one child (the original's only behavior, bug 11).
    Random {
        /// The seed of the choice.
        seed: u64,
        /// End after one child.
        one_shot: bool,
    },
    /// The child with the highest score among those that want to (`DispatcherScoring`).
    Scoring,
    /// One delegate, `runs` times (−1: for ever) (`DispatcherRerun`).
    Rerun {
        /// How many runs (−1: no end).
        runs: i64,
    },
    /// One delegate, always in linked scope; wants what it wants (`DispatcherPassThrough`).
    PassThrough,
}

/// A child of a dispatcher with its options.
#[derive(Debug, Clone)]
pub struct Child {
    /// Its behavior id.
    pub id: String,
    /// Weight (Random).
    pub weight: f64,
    /// Score (Scoring).
    pub score: f64,
    /// Time before it may run again after it ran (`cooldown_s`; `None`: only once).
    pub cooldown: Option<Duration>,
}

impl Child {
    /// A child with no weight, score or cooldown of note.
    pub fn plain(id: &str) -> Child {
        Child {
            id: id.to_string(),
            weight: 1.0,
            score: 0.0,
            cooldown: Some(Duration::ZERO),
        }
    }
}

/// A dispatcher.
#[derive(Debug)]
pub struct Dispatcher {
    rule: Rule,
    children: Vec<Child>,
    /// Its children enter scope with it (`linkScope`), so that its own
    /// `wants_to_be_activated` can ask theirs.
    link_scope: bool,
    /// Re-choose every tick, preempting a lower child (`interruptActiveBehavior`).
    interrupt: bool,
    /// When each child last ended (for cooldowns), and whether it ever ran.
    last_ended: Vec<Option<Duration>>,
    /// The child running now (its index).
    running: Option<usize>,
    /// Queue: the next index; Rerun: runs made; Priority once: chosen.
    progress: i64,
    /// Random's state.
    rng: u64,
}

impl Dispatcher {
    /// A dispatcher choosing among `children` by `rule`.
    pub fn new(rule: Rule, children: Vec<Child>, link_scope: bool, interrupt: bool) -> Dispatcher {
        let rng = match rule {
            Rule::Random { seed, .. } => seed.max(1),
            _ => 1,
        };
        let link_scope = link_scope || matches!(rule, Rule::PassThrough);
        Dispatcher {
            last_ended: vec![None; children.len()],
            rule,
            children,
            link_scope,
            interrupt,
            running: None,
            progress: 0,
            rng,
        }
    }

    fn ids(&self, cx: &Context<'_>) -> Vec<Option<BehaviorId>> {
        self.children.iter().map(|c| cx.find(&c.id)).collect()
    }

    /// Whether child `i` is out of its cooldown now.
    fn ready(&self, i: usize, now: Duration) -> bool {
        match (
            self.last_ended.get(i).copied().flatten(),
            self.children[i].cooldown,
        ) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(ended), Some(cool)) => now.saturating_sub(ended) >= cool,
        }
    }

    /// Child `i` is running or wants to (asked now).
    fn wants(&self, cx: &mut Context<'_>, i: usize, id: BehaviorId) -> bool {
        Some(i) == self.running && cx.delegate_above() == Some(id)
            || (self.ready(i, cx.now()) && cx.wants(id) == Ok(true))
    }

    /// splitmix64: a small, seeded, portable generator.
    fn next_random(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The child to run now, if any.
    fn choose(&mut self, cx: &mut Context<'_>) -> Option<usize> {
        let ids = self.ids(cx);
        let wanting = |d: &Self, cx: &mut Context<'_>, i: usize| {
            ids.get(i)
                .copied()
                .flatten()
                .is_some_and(|id| d.wants(cx, i, id))
        };
        match self.rule.clone() {
            Rule::Priority { once } => {
                if once && self.progress > 0 {
                    return self.running;
                }
                (0..self.children.len()).find(|&i| wanting(self, cx, i))
            }
            Rule::Queue => {
                let start = usize::try_from(self.progress).unwrap_or(usize::MAX);
                let found = (start..self.children.len()).find(|&i| wanting(self, cx, i));
                self.progress = found.map_or(i64::MAX, |i| i as i64 + 1);
                found
            }
            Rule::Random { one_shot, .. } => {
                if one_shot && self.progress > 0 {
                    return None;
                }
                let candidates: Vec<usize> = (0..self.children.len())
                    .filter(|&i| wanting(self, cx, i) && self.children[i].weight > 0.0)
                    .collect();
                let total: f64 = candidates.iter().map(|&i| self.children[i].weight).sum();
                let mut r = self.next_random() * total;
                let pick = candidates.iter().copied().find(|&i| {
                    r -= self.children[i].weight;
                    r < 0.0
                });
                pick.or_else(|| candidates.last().copied())
            }
            Rule::Scoring => (0..self.children.len())
                .filter(|&i| wanting(self, cx, i))
                .max_by(|&a, &b| self.children[a].score.total_cmp(&self.children[b].score)),
            Rule::Rerun { runs } => {
                if runs >= 0 && self.progress >= runs {
                    return None;
                }
                (!self.children.is_empty() && wanting(self, cx, 0)).then_some(0)
            }
            Rule::PassThrough => (!self.children.is_empty() && wanting(self, cx, 0)).then_some(0),
        }
    }
}

impl Dispatcher {
    /// Why child `pick` was chosen, in words (the live output's "why a dispatcher chose it").
    fn why(&self, pick: usize) -> String {
        let child = &self.children[pick];
        match &self.rule {
            Rule::Priority { .. } => {
                let ids: Vec<&str> = self.children.iter().map(|c| c.id.as_str()).collect();
                format!("the first of [{}] that wants to run", ids.join(", "))
            }
            Rule::Queue => format!(
                "next in its queue ({} of {})",
                pick + 1,
                self.children.len()
            ),
            Rule::Random { .. } => format!(
                "a random pick among those that want to run (weight {})",
                child.weight
            ),
            Rule::Scoring => format!(
                "the highest score among those that want to run ({})",
                child.score
            ),
            Rule::Rerun { runs } if *runs < 0 => format!("run {}, for ever", self.progress + 1),
            Rule::Rerun { runs } => format!("run {} of {runs}", self.progress + 1),
            Rule::PassThrough => "its one delegate, which wants to run".to_string(),
        }
    }
}

impl Behavior for Dispatcher {
    fn delegates(&self) -> Vec<String> {
        self.children.iter().map(|c| c.id.clone()).collect()
    }

    fn linked(&self) -> Vec<String> {
        if self.link_scope {
            self.delegates()
        } else {
            Vec::new()
        }
    }

    /// True unless its scope is linked; then, whether a child wants to (bug 10 of the
    /// original, kept and documented: an unlinked dispatcher cannot know).
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.link_scope {
            return true;
        }
        let ids = self.ids(cx);
        (0..self.children.len())
            .any(|i| ids[i].is_some_and(|id| self.ready(i, cx.now()) && cx.wants(id) == Ok(true)))
    }

    fn on_activated(&mut self, _cx: &mut Context<'_>) {
        self.running = None;
        self.progress = 0;
    }

    fn update(&mut self, cx: &mut Context<'_>) {
        if !cx.is_activated() {
            return;
        }
        // The child that was running ended (it left the stack).
        if let Some(i) = self.running
            && !cx.is_control_delegated()
        {
            self.last_ended[i] = Some(cx.now());
            self.running = None;
        }
        let interrupting = self.interrupt && !matches!(self.rule, Rule::Queue);
        if cx.is_control_delegated() && !interrupting {
            return;
        }
        let Some(pick) = self.choose(cx) else {
            return;
        };
        if self.running == Some(pick) {
            return;
        }
        if let Some(i) = self.running {
            self.last_ended[i] = Some(cx.now());
        }
        let Some(id) = cx.find(&self.children[pick].id) else {
            return;
        };
        if cx.is_control_delegated() {
            cx.cancel_delegates(false);
        }
        if cx.delegate(id).is_ok() {
            let why = self.why(pick);
            cx.log("info", &format!("chose {}: {why}", self.children[pick].id));
            self.running = Some(pick);
            if matches!(
                self.rule,
                Rule::Rerun { .. } | Rule::Random { .. } | Rule::Priority { once: true }
            ) {
                self.progress += 1;
            }
        } else {
            self.running = None;
        }
    }
}

/// A leaf that waits `seconds` of stack time once activated, then ends (`Wait`).
#[derive(Debug)]
pub struct Wait {
    seconds: Duration,
    started: Duration,
}

impl Wait {
    /// Waits `seconds`.
    pub fn new(seconds: Duration) -> Wait {
        Wait {
            seconds,
            started: Duration::ZERO,
        }
    }
}

impl Behavior for Wait {
    fn always_delegates(&self) -> bool {
        false
    }
    fn wants_to_be_activated(&mut self, _: &mut Context<'_>) -> bool {
        true
    }
    fn on_activated(&mut self, cx: &mut Context<'_>) {
        self.started = cx.now();
    }
    fn update(&mut self, cx: &mut Context<'_>) {
        if cx.is_activated() && cx.now().saturating_sub(self.started) >= self.seconds {
            let _ = cx.cancel_self();
        }
    }
}
