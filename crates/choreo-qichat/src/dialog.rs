//! The dialog engine: loaded and activated topics, the focus, subrule scope, variables in a
//! [`Memory`] (ALMemory on a robot), proposals used once, bookmarks and jumps, event rules,
//! and the robot's answer rendered from a rule's output as ordered [`Step`]s. No robot here:
//! ALDialog on the simulated robot and `choreo chat` drive it.
//!
//! Which rule answers an input or an event, in this order (the first that matches):
//! 1. the subrules of the rule that answered last, if it has any (its scope);
//! 2. the rules of the topic in focus, in file order;
//! 3. the rules of the other active topics, in the order they were activated
//!    (`^private` rules answer only in the topic in focus).
//!
//! The topic of the rule that answered takes the focus; the rule's subrules become the scope
//! (none: no scope, unless the output says `^stayInScope`). A proposal, once said, is used:
//! `^nextProposal` and `^goto` skip it, `^gotoReactivate` makes it available again. Output
//! choices `[a b c]` go through their alternatives in order, one per answer, starting again
//! after the last (our reading where the documentation is silent); `^rand[...]` picks with
//! a seeded generator (the same seed, the same conversation); `^first[...]` takes the first
//! alternative whose conditions hold.
use std::collections::{HashMap, HashSet};

use crate::ast::{
    Args, Builtin, Condition, Operand, OutputKind, OutputNode, PatternKind, PatternNode, Rule,
    RuleKind, Topic,
};
use crate::error::Span;
use crate::matcher::{Lookup, compare, match_pattern};

/// How many jumps (`^goto`, `^nextProposal`, ...) one answer may make.
const MAX_JUMPS: usize = 16;

/// Where `$variables` live: ALMemory on a robot, a map for `choreo chat`. A value written
/// must be read back by the same answer (`$a=1 ... $a`).
pub trait Memory {
    /// The value of `key`, if it has one.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets `key`; `None` clears it (`^clear`).
    fn set(&mut self, key: &str, value: Option<&str>);
}

impl Memory for HashMap<String, String> {
    fn get(&self, key: &str) -> Option<String> {
        HashMap::get(self, key).cloned()
    }
    fn set(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => {
                self.insert(key.to_string(), v.to_string());
            }
            None => {
                self.remove(key);
            }
        }
    }
}

/// What the robot does besides speaking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `^start(path)`: start a behavior.
    Start(String),
    /// `^run(path)`: run a behavior and wait for it.
    Run(String),
    /// `^stop(path)`: stop a behavior.
    Stop(String),
    /// `^wait(path)`: wait for a behavior to end.
    Wait(String),
    /// `^endDiscuss(reason)`: the conversation ends.
    EndDiscuss(String),
    /// A function this engine does not run (QiSDK-only, `%script`, unknown names), by name.
    Unsupported(String),
}

/// One thing the robot does for an answer, in the order the output says them: a robot
/// speaks up to a `^start`, starts the behavior, goes on speaking, and sets `$var` when its
/// speech gets there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Say these words.
    Say(String),
    /// Do this.
    Do(Action),
    /// Memory `key` (a `$variable`'s, see [`Dialog::set_variable_path`])
    /// gets `value`; `None`: cleared.
    Set {
        /// The memory key.
        key: String,
        /// The new value.
        value: Option<String>,
    },
}

/// The robot's answer to an input, an event or a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The topic of the rule that answered.
    pub topic: String,
    /// Where that rule is (the last one, after jumps).
    pub rule: Span,
    /// Everything the robot says (words joined by single spaces).
    pub text: String,
    /// What it says and does, in order.
    pub steps: Vec<Step>,
}

impl Answer {
    /// The actions among the steps, in order.
    pub fn actions(&self) -> Vec<&Action> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Do(a) => Some(a),
                _ => None,
            })
            .collect()
    }
}

/// The conversation state over loaded topics.
#[derive(Debug, Default)]
pub struct Dialog {
    topics: Vec<Topic>,
    /// Active topics (indices), in activation order.
    active: Vec<usize>,
    focus: Option<usize>,
    /// The rule that answered last, if it has subrules: (topic, path of indices).
    scope: Option<RulePath>,
    dynamic: HashMap<String, Vec<String>>,
    /// Per topic, variables and events read from another memory key than their name
    /// (`ALDialog.setVariablePath`).
    paths: HashMap<usize, HashMap<String, String>>,
    /// How many times each output choice (by topic and place) was said.
    said: HashMap<(usize, Span), usize>,
    /// Proposals said (and not reactivated since).
    used: HashSet<RulePath>,
    /// Proposals in the order they were said.
    proposals: Vec<RulePath>,
    rng: u64,
}

/// Where a rule is: its topic and the path of indices from the topic's rules down.
type RulePath = (usize, Vec<usize>);

/// What a rule is asked to match.
enum Stimulus<'a> {
    /// What the human said.
    Said(&'a str),
    /// An ALMemory event, by key.
    Event(&'a str),
}

impl Dialog {
    /// An empty dialog whose `^rand` follows `seed`.
    pub fn new(seed: u64) -> Dialog {
        Dialog {
            rng: seed.max(1),
            ..Dialog::default()
        }
    }

    /// Loads `topic` (not active yet), replacing a topic of the same name; its name.
    pub fn load(&mut self, topic: Topic) -> String {
        let name = topic.name.clone();
        match self.topics.iter().position(|t| t.name == name) {
            Some(i) => {
                self.topics[i] = topic;
                self.forget(i);
            }
            None => self.topics.push(topic),
        }
        name
    }

    /// Unloads topic `name` (deactivated first); false if it is not loaded. The indices of
    /// the others stay: the slot keeps an empty topic.
    pub fn unload(&mut self, name: &str) -> bool {
        let Some(i) = self.index(name) else {
            return false;
        };
        self.deactivate(name);
        self.topics[i] = Topic::default();
        self.forget(i);
        true
    }

    /// In topic `topic`, `$name` and `e:name` are memory key `key` (`ALDialog
    /// .setVariablePath`): the stock Dialog box gives its inputs and outputs (`e:onStart`,
    /// `$onStopped=1`) keys of its own, so two boxes never mix. False if the topic is not
    /// loaded.
    pub fn set_variable_path(&mut self, topic: &str, name: &str, key: &str) -> bool {
        let Some(i) = self.index(topic) else {
            return false;
        };
        self.paths
            .entry(i)
            .or_default()
            .insert(name.to_string(), key.to_string());
        true
    }

    /// Activates topic `name`; false if it is not loaded.
    pub fn activate(&mut self, name: &str) -> bool {
        let Some(i) = self.index(name) else {
            return false;
        };
        if !self.active.contains(&i) {
            self.active.push(i);
        }
        if self.focus.is_none() {
            self.focus = Some(i);
        }
        true
    }

    /// Deactivates topic `name` (it keeps its state).
    pub fn deactivate(&mut self, name: &str) {
        if let Some(i) = self.index(name) {
            self.active.retain(|a| *a != i);
            if self.focus == Some(i) {
                self.focus = self.active.first().copied();
            }
            if self.scope.as_ref().is_some_and(|(t, _)| *t == i) {
                self.scope = None;
            }
        }
    }

    /// Gives the focus to topic `name` (`ALDialog.setFocus`); false if it is not active.
    pub fn set_focus(&mut self, name: &str) -> bool {
        match self.index(name) {
            Some(i) if self.active.contains(&i) => {
                if self.focus != Some(i) {
                    self.focus = Some(i);
                    self.scope = None;
                }
                true
            }
            _ => false,
        }
    }

    /// The topic in focus.
    pub fn focus(&self) -> Option<&str> {
        self.focus
            .and_then(|i| self.topics.get(i))
            .map(|t| t.name.as_str())
    }

    /// The memory keys whose events an `e:` rule (or `u:(e:...)`) of an active topic
    /// answers.
    pub fn events(&self) -> Vec<String> {
        let mut out = Vec::new();
        for &t in &self.active {
            if let Some(topic) = self.topics.get(t) {
                visit_rules(&topic.rules, &mut |r| {
                    if let Some(e) = event_of(r) {
                        out.push(self.key(t, e));
                    }
                });
            }
        }
        out
    }

    /// Sets dynamic concept `name` (`ALDialog.setConcept`).
    pub fn set_concept(&mut self, name: &str, phrases: Vec<String>) {
        self.dynamic.insert(name.to_string(), phrases);
    }

    /// The answer to what the human said, if a rule matches it.
    pub fn input(&mut self, said: &str, memory: &mut dyn Memory) -> Option<Answer> {
        self.respond(&Stimulus::Said(said), memory)
    }

    /// The answer to ALMemory event `key` (an `e:` rule or a `u:(e:...)` rule), if any.
    pub fn event(&mut self, key: &str, memory: &mut dyn Memory) -> Option<Answer> {
        self.respond(&Stimulus::Event(key), memory)
    }

    /// The next proposal of the topic in focus (the robot starting the conversation), if
    /// it has one not used yet.
    pub fn propose(&mut self, memory: &mut dyn Memory) -> Option<Answer> {
        let t = self.focus?;
        let path = self.next_proposal(t)?;
        Some(self.answer((t, path), &[], memory))
    }

    /// Goes to the rule of topic `topic` marked `%tag` (`ALDialog.gotoTag`), reactivating
    /// it; its answer, or `None` if there is no such tag.
    pub fn goto_tag(&mut self, topic: &str, tag: &str, memory: &mut dyn Memory) -> Option<Answer> {
        let t = self.index(topic)?;
        let target = self.bookmark(t, tag)?;
        self.used.remove(&target);
        Some(self.answer(target, &[], memory))
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.topics
            .iter()
            .position(|t| t.name == name && !name.is_empty())
    }

    /// Topic `i` was replaced or unloaded: what was kept about it goes.
    fn forget(&mut self, i: usize) {
        self.active.retain(|a| *a != i);
        if self.focus == Some(i) {
            self.focus = self.active.first().copied();
        }
        if self.scope.as_ref().is_some_and(|(t, _)| *t == i) {
            self.scope = None;
        }
        self.paths.remove(&i);
        self.said.retain(|(t, _), _| *t != i);
        self.used.retain(|(t, _)| *t != i);
        self.proposals.retain(|(t, _)| *t != i);
    }

    /// The memory key of `$name` or `e:name` in topic `t`.
    fn key(&self, t: usize, name: &str) -> String {
        self.paths
            .get(&t)
            .and_then(|p| p.get(name))
            .map_or_else(|| name.to_string(), Clone::clone)
    }

    /// The rules that may answer now, in order (see the module docs).
    fn candidates(&self) -> Vec<RulePath> {
        let mut candidates: Vec<RulePath> = Vec::new();
        if let Some((t, path)) = &self.scope
            && let Some(rule) = self.rule(*t, path)
        {
            for (k, sub) in rule.subrules.iter().enumerate() {
                if sub.kind == RuleKind::User {
                    let mut p = path.clone();
                    p.push(k);
                    candidates.push((*t, p));
                }
            }
        }
        let mut order: Vec<usize> = self.focus.into_iter().collect();
        order.extend(
            self.active
                .iter()
                .copied()
                .filter(|a| Some(*a) != self.focus),
        );
        for t in order {
            if let Some(topic) = self.topics.get(t) {
                for (k, r) in topic.rules.iter().enumerate() {
                    let private = r
                        .modifiers
                        .iter()
                        .any(|m| m.builtin == Some(Builtin::Private));
                    if matches!(r.kind, RuleKind::User | RuleKind::Event)
                        && (!private || Some(t) == self.focus)
                    {
                        candidates.push((t, vec![k]));
                    }
                }
            }
        }
        candidates
    }

    fn respond(&mut self, stimulus: &Stimulus<'_>, memory: &mut dyn Memory) -> Option<Answer> {
        for (t, path) in self.candidates() {
            let Some(rule) = self.rule(t, &path) else {
                continue;
            };
            let captures = match stimulus {
                Stimulus::Said(said) => {
                    let view = View {
                        dialog: self,
                        memory: &*memory,
                        topic: t,
                    };
                    match match_pattern(&rule.pattern, said, &view) {
                        Some(m) => m.captures,
                        None => continue,
                    }
                }
                Stimulus::Event(key) => match event_of(rule) {
                    Some(e) if self.key(t, e) == *key => Vec::new(),
                    _ => continue,
                },
            };
            return Some(self.answer((t, path), &captures, memory));
        }
        None
    }

    fn rule(&self, t: usize, path: &[usize]) -> Option<&Rule> {
        let (first, rest) = path.split_first()?;
        let mut rule = self.topics.get(t)?.rules.get(*first)?;
        for k in rest {
            rule = rule.subrules.get(*k)?;
        }
        Some(rule)
    }

    /// The path of topic `t`'s first proposal not used yet.
    fn next_proposal(&self, t: usize) -> Option<Vec<usize>> {
        let topic = self.topics.get(t)?;
        topic
            .rules
            .iter()
            .enumerate()
            .find(|(k, r)| r.kind == RuleKind::Proposal && !self.used.contains(&(t, vec![*k])))
            .map(|(k, _)| vec![k])
    }

    /// The rule at `at` answers: its output rendered (and the outputs of the rules it jumps
    /// to), focus and scope moved, proposals marked used.
    fn answer(&mut self, at: RulePath, captures: &[String], memory: &mut dyn Memory) -> Answer {
        let mut out = Rendered::default();
        let mut current = at;
        let first_topic = current.0;
        let mut jumps = 0;
        let rule_span;
        loop {
            let Some(rule) = self.rule(current.0, &current.1).cloned() else {
                rule_span = Span::default();
                break;
            };
            if rule.kind == RuleKind::Proposal {
                self.used.insert(current.clone());
                self.proposals.push(current.clone());
            }
            out.stay = false;
            let next = self.render(current.0, &rule.output, captures, &mut out, memory);
            self.focus = Some(current.0);
            if !rule.subrules.is_empty() {
                self.scope = Some(current.clone());
            } else if !out.stay {
                self.scope = None;
            }
            match next {
                Some(target) if jumps < MAX_JUMPS => {
                    jumps += 1;
                    current = target;
                }
                _ => {
                    rule_span = rule.span;
                    break;
                }
            }
        }
        out.flush();
        Answer {
            topic: self
                .topics
                .get(first_topic)
                .map(|x| x.name.clone())
                .unwrap_or_default(),
            rule: rule_span,
            text: out.words.join(" "),
            steps: out.steps,
        }
    }

    /// Renders `nodes` of topic `t` into `out`; a jump asked for (`^goto`, `^nextProposal`).
    fn render(
        &mut self,
        t: usize,
        nodes: &[OutputNode],
        captures: &[String],
        out: &mut Rendered,
        memory: &mut dyn Memory,
    ) -> Option<RulePath> {
        let mut jump = None;
        for node in nodes {
            match &node.kind {
                OutputKind::Text(text) => out.say(text),
                OutputKind::CaptureRef(n) => {
                    let i = usize::try_from(*n).unwrap_or(0).saturating_sub(1);
                    out.say(captures.get(i).map_or("", String::as_str));
                }
                OutputKind::Variable(v) => {
                    let value = memory.get(&self.key(t, v)).unwrap_or_default();
                    out.say(&value);
                }
                OutputKind::Assign { variable, value } => {
                    let v = self.operand(t, value, captures, memory).unwrap_or_default();
                    let key = self.key(t, variable);
                    memory.set(&key, Some(&v));
                    out.step(Step::Set {
                        key,
                        value: Some(v),
                    });
                }
                OutputKind::Condition(_)
                | OutputKind::Function(crate::ast::Function {
                    builtin: Some(Builtin::Exist | Builtin::NotExist),
                    ..
                }) => {
                    if self.condition(t, node, captures, memory) == Some(false) {
                        break;
                    }
                }
                OutputKind::Choice(alternatives) => {
                    // The alternatives in turn from where the last answer left off, skipping
                    // those whose conditions do not hold.
                    let n = alternatives.len();
                    let from = self.said.get(&(t, node.span)).copied().unwrap_or(0);
                    let pick = (0..n).map(|k| (from + k) % n.max(1)).find(|&i| {
                        self.leading_conditions_hold(t, &alternatives[i].nodes, captures, memory)
                    });
                    if let Some(i) = pick {
                        self.said.insert((t, node.span), i + 1);
                        let nodes = alternatives[i].nodes.clone();
                        jump = jump.or(self.render(t, &nodes, captures, out, memory));
                    }
                }
                OutputKind::Concept(name) => {
                    // Its items in order, one per answer, as a choice goes (the syntax
                    // page: `do you want ~alcohol?` says "beer", then "red wine").
                    let items = self.concept_items(t, name, memory);
                    if !items.is_empty() {
                        let count = self.said.entry((t, node.span)).or_insert(0);
                        let item = items[*count % items.len()].clone();
                        *count += 1;
                        out.say(&item);
                    }
                }
                OutputKind::Bookmark(_) => {}
                OutputKind::Script(_) => out.act(Action::Unsupported("%script".into())),
                OutputKind::Function(f) => {
                    let args: &[String] = match &f.args {
                        Args::List(a) => a,
                        _ => &[],
                    };
                    match (f.builtin, &f.args) {
                        (Some(Builtin::Rand), Args::Choice(alts)) if !alts.is_empty() => {
                            let i = self.random(alts.len());
                            let pick = alts[i].nodes.clone();
                            jump = jump.or(self.render(t, &pick, captures, out, memory));
                        }
                        (Some(Builtin::First), Args::Choice(alts)) => {
                            if let Some(a) = alts.iter().find(|a| {
                                self.leading_conditions_hold(t, &a.nodes, captures, memory)
                            }) {
                                let pick = a.nodes.clone();
                                jump = jump.or(self.render(t, &pick, captures, out, memory));
                            }
                        }
                        (Some(builtin), _) => {
                            let asked = self.function(t, builtin, &f.name, args, out, memory);
                            jump = jump.or(asked);
                        }
                        (None, _) => out.act(Action::Unsupported(f.name.clone())),
                    }
                }
            }
        }
        jump
    }

    /// A function of an output other than `^rand` and `^first`: its action, or the jump it
    /// asks for.
    fn function(
        &mut self,
        t: usize,
        builtin: Builtin,
        name: &str,
        args: &[String],
        out: &mut Rendered,
        memory: &mut dyn Memory,
    ) -> Option<RulePath> {
        let arg = args.first().cloned().unwrap_or_default();
        let usable = |d: &Dialog, target: RulePath| (!d.used.contains(&target)).then_some(target);
        match builtin {
            // A used proposal is not gone to again: `^gotoReactivate` is for that.
            Builtin::Goto => return self.bookmark(t, &arg).and_then(|p| usable(self, p)),
            Builtin::GotoReactivate => {
                let target = self.bookmark(t, &arg)?;
                self.used.remove(&target);
                return Some(target);
            }
            Builtin::GotoRandom => {
                let tagged: Vec<RulePath> = self
                    .tagged(t, &arg)
                    .into_iter()
                    .filter(|p| !self.used.contains(p))
                    .collect();
                if tagged.is_empty() {
                    return None;
                }
                let i = self.random(tagged.len());
                return tagged.into_iter().nth(i);
            }
            Builtin::NextProposal => return self.next_proposal(t).map(|p| (t, p)),
            Builtin::SameProposal => return self.proposals.last().cloned(),
            Builtin::PreviousProposal => {
                let n = self.proposals.len();
                return n
                    .checked_sub(2)
                    .and_then(|i| self.proposals.get(i).cloned());
            }
            Builtin::TopicTag => {
                let other = self.index(&arg)?;
                let tag = args.get(1)?;
                return self.bookmark(other, tag).and_then(|p| usable(self, p));
            }
            Builtin::Clear => {
                let key = self.key(t, arg.trim_start_matches('$'));
                memory.set(&key, None);
                out.step(Step::Set { key, value: None });
            }
            Builtin::StayInScope => out.stay = true,
            Builtin::Start => out.act(Action::Start(arg)),
            Builtin::Run => out.act(Action::Run(arg)),
            Builtin::Stop => out.act(Action::Stop(arg)),
            Builtin::Wait => out.act(Action::Wait(arg)),
            Builtin::EndDiscuss => out.act(Action::EndDiscuss(arg)),
            _ => out.act(Action::Unsupported(name.to_string())),
        }
        None
    }

    /// The rule of topic `t` that bookmark `%tag` marks (a proposal tag, or a bookmark in an
    /// output).
    fn bookmark(&self, t: usize, tag: &str) -> Option<RulePath> {
        self.tagged(t, tag).into_iter().next()
    }

    /// Every top-level rule of topic `t` marked `%tag`, in file order.
    fn tagged(&self, t: usize, tag: &str) -> Vec<RulePath> {
        let Some(topic) = self.topics.get(t) else {
            return Vec::new();
        };
        topic
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tag.as_deref() == Some(tag) || r.bookmarks().contains(&tag))
            .map(|(k, _)| (t, vec![k]))
            .collect()
    }

    /// The phrases concept `name` stands for, in order: its body expanded (a choice gives
    /// each of its items, words around it are kept: `[red white] wine` is "red wine", "white
    /// wine"; a concept inside is expanded in turn), or its dynamic phrases. At most
    /// [`MAX_ITEMS`] phrases, concepts [`MAX_CONCEPT_DEPTH`] deep.
    ///
    /// [`MAX_CONCEPT_DEPTH`]: crate::matcher::MAX_CONCEPT_DEPTH
    fn concept_items(&self, t: usize, name: &str, memory: &dyn Memory) -> Vec<String> {
        let view = View {
            dialog: self,
            memory,
            topic: t,
        };
        match view.concept(name) {
            Some(body) => expand(&view, body, 0),
            None => self.dynamic.get(name).cloned().unwrap_or_default(),
        }
    }

    fn leading_conditions_hold(
        &self,
        t: usize,
        nodes: &[OutputNode],
        captures: &[String],
        memory: &dyn Memory,
    ) -> bool {
        nodes
            .iter()
            .map_while(|n| self.condition(t, n, captures, memory))
            .all(|holds| holds)
    }

    /// Whether output node `n` holds, if it is a condition: `$v==x` (and the other
    /// comparisons), `^exist(v)`, `^notExist(v)`.
    fn condition(
        &self,
        t: usize,
        n: &OutputNode,
        captures: &[String],
        memory: &dyn Memory,
    ) -> Option<bool> {
        match &n.kind {
            OutputKind::Condition(c) => Some(self.holds(t, c, captures, memory)),
            OutputKind::Function(f) => {
                let exists = |f: &crate::ast::Function<OutputNode>| match &f.args {
                    Args::List(a) => a.first().is_some_and(|v| {
                        memory
                            .get(&self.key(t, v.trim_start_matches('$')))
                            .is_some()
                    }),
                    _ => false,
                };
                match f.builtin {
                    Some(Builtin::Exist) => Some(exists(f)),
                    Some(Builtin::NotExist) => Some(!exists(f)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn operand(
        &self,
        t: usize,
        o: &Operand,
        captures: &[String],
        memory: &dyn Memory,
    ) -> Option<String> {
        match o {
            Operand::Variable(v) => memory.get(&self.key(t, v)),
            Operand::CaptureRef(n) => usize::try_from(*n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| captures.get(i).cloned()),
            Operand::Literal(l) => Some(l.clone()),
        }
    }

    fn holds(&self, t: usize, c: &Condition, captures: &[String], memory: &dyn Memory) -> bool {
        compare(
            c.op,
            self.operand(t, &c.left, captures, memory),
            self.operand(t, &c.right, captures, memory),
        )
    }

    /// A number below `n` from the seeded generator (splitmix64).
    fn random(&mut self, n: usize) -> usize {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        usize::try_from(z % n.max(1) as u64).unwrap_or(0)
    }
}

/// The event a rule answers: `e:Name`, or `u:(e:Name)`.
fn event_of(rule: &Rule) -> Option<&str> {
    match rule.pattern.as_slice() {
        [
            PatternNode {
                kind: PatternKind::Event(e),
                ..
            },
        ] => Some(e.as_str()),
        _ => None,
    }
}

/// Calls `f` on every rule of `rules` and their subrules, depth first, without recursion.
fn visit_rules<'a>(rules: &'a [Rule], f: &mut dyn FnMut(&'a Rule)) {
    let mut stack: Vec<&Rule> = rules.iter().rev().collect();
    while let Some(r) = stack.pop() {
        f(r);
        stack.extend(r.subrules.iter().rev());
    }
}

/// Words and steps collected for one answer.
#[derive(Default)]
struct Rendered {
    words: Vec<String>,
    steps: Vec<Step>,
    /// How many of `words` are in `steps` already.
    flushed: usize,
    /// The output said `^stayInScope`.
    stay: bool,
}

impl Rendered {
    /// Adds `text`'s words; punctuation that starts a piece (`, what is`) goes with the word
    /// before it, as written text would.
    fn say(&mut self, text: &str) {
        for word in text.split_whitespace() {
            match self.words.last_mut() {
                Some(last) if word.starts_with([',', '.', '!', '?', ';', ':']) => {
                    last.push_str(word)
                }
                _ => self.words.push(word.to_string()),
            }
        }
    }

    /// The words not yet in a step become a [`Step::Say`].
    fn flush(&mut self) {
        if self.words.len() > self.flushed {
            let text = self.words[self.flushed..].join(" ");
            self.steps.push(Step::Say(text));
            self.flushed = self.words.len();
        }
    }

    fn step(&mut self, step: Step) {
        self.flush();
        self.steps.push(step);
    }

    fn act(&mut self, action: Action) {
        self.step(Step::Do(action));
    }
}

/// The dialog as the matcher sees it from topic `topic`: concepts (its own first, then every
/// loaded topic's), dynamic concepts, and variables in memory (under the topic's keys).
struct View<'a> {
    dialog: &'a Dialog,
    memory: &'a dyn Memory,
    topic: usize,
}

impl Lookup for View<'_> {
    /// The topic's own concept of that name, else the first loaded topic's (concepts are
    /// global, but two topics of one behavior may each define `~first`).
    fn concept(&self, name: &str) -> Option<&[PatternNode]> {
        let own = self.dialog.topics.get(self.topic).into_iter();
        own.chain(self.dialog.topics.iter())
            .find_map(|t| t.concepts.iter().find(|c| c.name == name))
            .map(|c| c.body.as_slice())
    }
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        self.dialog.dynamic.get(name).cloned()
    }
    fn variable(&self, name: &str) -> Option<String> {
        self.memory.get(&self.dialog.key(self.topic, name))
    }
}

/// How many phrases a concept said in an output expands to at most.
const MAX_ITEMS: usize = 1000;

/// The phrases a sequence of pattern nodes can say, in order (see [`Dialog::concept_items`]).
/// Optional parts and anything that says nothing fixed (wildcards, conditions) are left out.
fn expand(view: &View<'_>, nodes: &[PatternNode], depth: usize) -> Vec<String> {
    let mut phrases = vec![String::new()];
    for node in nodes {
        let options: Vec<String> = match &node.kind {
            PatternKind::Word(w) => vec![w.clone()],
            PatternKind::Phrase(items) => expand(view, items, depth),
            PatternKind::Choice(items) => items
                .iter()
                .flat_map(|i| expand(view, std::slice::from_ref(i), depth))
                .collect(),
            PatternKind::Concept(c) if depth < crate::matcher::MAX_CONCEPT_DEPTH => {
                match view.concept(c) {
                    Some(body) => expand(view, body, depth + 1),
                    None => view.dynamic(c).unwrap_or_default(),
                }
            }
            PatternKind::Function(f) => match &f.args {
                Args::Choice(alts) => alts
                    .iter()
                    .flat_map(|a| expand(view, &a.nodes, depth))
                    .collect(),
                _ => continue,
            },
            _ => continue,
        };
        if options.is_empty() {
            continue;
        }
        let mut next = Vec::new();
        'all: for p in &phrases {
            for o in &options {
                if next.len() >= MAX_ITEMS {
                    break 'all;
                }
                next.push(if p.is_empty() {
                    o.clone()
                } else {
                    format!("{p} {o}")
                });
            }
        }
        phrases = next;
    }
    phrases.retain(|p| !p.is_empty());
    phrases
}
