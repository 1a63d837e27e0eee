//! The dialog engine's core (issue 14, part 2, started): loaded and activated topics, the
//! focus, subrule scope, variables, proposals, bookmarks and `^goto`, event rules, and the
//! robot's answer rendered from a rule's output. No robot here: ALDialog on the simulated
//! robot and `choreo chat` will drive it.
//!
//! Which rule answers an input, in this order (the first that matches):
//! 1. the subrules of the rule that answered last, if it has any (its scope);
//! 2. the user rules of the topic in focus, in file order;
//! 3. the user rules of the other active topics, in the order they were activated.
//!
//! The topic of the rule that answered takes the focus; the rule's subrules become the scope
//! (none: no scope). Output choices `[a b c]` go through their alternatives in order, one per
//! answer, starting again after the last (our reading where the documentation is silent);
//! `^rand[...]` picks with a seeded generator (the same seed, the same conversation);
//! `^first[...]` takes the first alternative whose conditions hold.

use std::collections::HashMap;

use crate::ast::{
    Alternative, Args, Builtin, Condition, Operand, OutputKind, OutputNode, PatternKind,
    PatternNode, Rule, RuleKind, Topic,
};
use crate::error::Span;
use crate::matcher::{Lookup, compare, match_pattern};

/// How many `^goto` and `^nextProposal` jumps one answer may make.
const MAX_JUMPS: usize = 16;

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

/// The robot's answer to an input, an event or a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The topic of the rule that answered.
    pub topic: String,
    /// Where that rule is.
    pub rule: Span,
    /// What the robot says (words joined by single spaces).
    pub text: String,
    /// What it does besides.
    pub actions: Vec<Action>,
}

/// The conversation state over loaded topics.
#[derive(Debug, Default)]
pub struct Dialog {
    topics: Vec<Topic>,
    /// Active topics (indices), in activation order.
    active: Vec<usize>,
    focus: Option<usize>,
    /// The rule that answered last, if it has subrules: (topic, path of indices).
    scope: Option<(usize, Vec<usize>)>,
    variables: HashMap<String, String>,
    dynamic: HashMap<String, Vec<String>>,
    /// How many times each output choice (by topic and place) was said.
    said: HashMap<(usize, Span), usize>,
    /// The next proposal of each topic.
    next_proposal: HashMap<usize, usize>,
    rng: u64,
}

/// Where a rule is: its topic and the path of indices from the topic's rules down.
type RulePath = (usize, Vec<usize>);

impl Dialog {
    /// An empty dialog whose `^rand` follows `seed`.
    pub fn new(seed: u64) -> Dialog {
        Dialog {
            rng: seed.max(1),
            ..Dialog::default()
        }
    }

    /// Loads `topic` (not active yet); its name.
    pub fn load(&mut self, topic: Topic) -> String {
        let name = topic.name.clone();
        self.topics.retain(|t| t.name != name);
        self.topics.push(topic);
        name
    }

    /// Activates topic `name`; false if it is not loaded.
    pub fn activate(&mut self, name: &str) -> bool {
        let Some(i) = self.topics.iter().position(|t| t.name == name) else {
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
        if let Some(i) = self.topics.iter().position(|t| t.name == name) {
            self.active.retain(|a| *a != i);
            if self.focus == Some(i) {
                self.focus = self.active.first().copied();
            }
            if self.scope.as_ref().is_some_and(|(t, _)| *t == i) {
                self.scope = None;
            }
        }
    }

    /// The topic in focus.
    pub fn focus(&self) -> Option<&str> {
        self.focus
            .and_then(|i| self.topics.get(i))
            .map(|t| t.name.as_str())
    }

    /// The value of `$name`.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// Sets `$name` (as ALMemory would).
    pub fn set_variable(&mut self, name: &str, value: &str) {
        self.variables.insert(name.to_string(), value.to_string());
    }

    /// Sets dynamic concept `name` (`ALDialog.setConcept`).
    pub fn set_concept(&mut self, name: &str, phrases: Vec<String>) {
        self.dynamic.insert(name.to_string(), phrases);
    }

    /// The answer to what the human said, if a rule matches it.
    pub fn input(&mut self, said: &str) -> Option<Answer> {
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
                    if r.kind == RuleKind::User {
                        candidates.push((t, vec![k]));
                    }
                }
            }
        }
        for (t, path) in candidates {
            let Some(rule) = self.rule(t, &path) else {
                continue;
            };
            let Some(m) = match_pattern(&rule.pattern, said, &View(self)) else {
                continue;
            };
            return Some(self.answer(t, path, &m.captures));
        }
        None
    }

    /// The answer to ALMemory event `name` (an `e:` rule of an active topic), if any.
    pub fn event(&mut self, name: &str) -> Option<Answer> {
        for &t in &self.active.clone() {
            let Some(topic) = self.topics.get(t) else {
                continue;
            };
            let found = topic.rules.iter().position(|r| {
                r.kind == RuleKind::Event
                    && matches!(r.pattern.first(), Some(PatternNode { kind: PatternKind::Event(e), .. }) if e == name)
            });
            if let Some(k) = found {
                return Some(self.answer(t, vec![k], &[]));
            }
        }
        None
    }

    /// The next proposal of the topic in focus (`^nextProposal`, or the robot starting the
    /// conversation), if it has one left.
    pub fn propose(&mut self) -> Option<Answer> {
        let t = self.focus?;
        let path = self.proposal_path(t)?;
        Some(self.answer(t, path, &[]))
    }

    fn rule(&self, t: usize, path: &[usize]) -> Option<&Rule> {
        let (first, rest) = path.split_first()?;
        let mut rule = self.topics.get(t)?.rules.get(*first)?;
        for k in rest {
            rule = rule.subrules.get(*k)?;
        }
        Some(rule)
    }

    /// The path of topic `t`'s next proposal, advancing its counter.
    fn proposal_path(&mut self, t: usize) -> Option<Vec<usize>> {
        let topic = self.topics.get(t)?;
        let proposals: Vec<usize> = topic
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == RuleKind::Proposal)
            .map(|(k, _)| k)
            .collect();
        let n = self.next_proposal.entry(t).or_insert(0);
        let k = *proposals.get(*n)?;
        *n += 1;
        Some(vec![k])
    }

    /// The rule at `path` of topic `t` answers: its output rendered, focus and scope moved.
    fn answer(&mut self, t: usize, path: Vec<usize>, captures: &[String]) -> Answer {
        let mut out = Rendered::default();
        let mut current = (t, path);
        let mut jumps = 0;
        let rule_span;
        loop {
            let Some(rule) = self.rule(current.0, &current.1).cloned() else {
                rule_span = Span::default();
                break;
            };
            let next = self.render(current.0, &rule.output, captures, &mut out);
            let has_subrules = !rule.subrules.is_empty();
            self.focus = Some(current.0);
            self.scope = has_subrules.then(|| current.clone());
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
        Answer {
            topic: self
                .topics
                .get(t)
                .map(|x| x.name.clone())
                .unwrap_or_default(),
            rule: rule_span,
            text: out.words.join(" "),
            actions: out.actions,
        }
    }

    /// Renders `nodes` of topic `t` into `out`; a jump asked for (`^goto`, `^nextProposal`).
    fn render(
        &mut self,
        t: usize,
        nodes: &[OutputNode],
        captures: &[String],
        out: &mut Rendered,
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
                    let value = self.variables.get(v).cloned().unwrap_or_default();
                    out.say(&value);
                }
                OutputKind::Assign { variable, value } => {
                    let v = self.operand(value, captures).unwrap_or_default();
                    self.variables.insert(variable.clone(), v);
                }
                OutputKind::Condition(c) => {
                    if !self.holds(c, captures) {
                        break;
                    }
                }
                OutputKind::Choice(alternatives) => {
                    let valid: Vec<&Alternative<OutputNode>> = alternatives
                        .iter()
                        .filter(|a| self.leading_conditions_hold(&a.nodes, captures))
                        .collect();
                    if !valid.is_empty() {
                        let count = self.said.entry((t, node.span)).or_insert(0);
                        let pick = valid[*count % valid.len()].nodes.clone();
                        *count += 1;
                        jump = jump.or(self.render(t, &pick, captures, out));
                    }
                }
                OutputKind::Concept(name) => {
                    // Its items in order, one per answer, as a choice goes (the syntax
                    // page: `do you want ~alcohol?` says "beer", then "red wine").
                    let items = self.concept_items(name);
                    if !items.is_empty() {
                        let count = self.said.entry((t, node.span)).or_insert(0);
                        let item = items[*count % items.len()].clone();
                        *count += 1;
                        out.say(&item);
                    }
                }
                OutputKind::Bookmark(_) => {}
                OutputKind::Script(_) => out.actions.push(Action::Unsupported("%script".into())),
                OutputKind::Function(f) => {
                    let arg = match &f.args {
                        Args::List(a) => a.first().cloned().unwrap_or_default(),
                        _ => String::new(),
                    };
                    match (f.builtin, &f.args) {
                        (Some(Builtin::Rand), Args::Choice(alts)) if !alts.is_empty() => {
                            let i = self.random(alts.len());
                            let pick = alts[i].nodes.clone();
                            jump = jump.or(self.render(t, &pick, captures, out));
                        }
                        (Some(Builtin::First), Args::Choice(alts)) => {
                            if let Some(a) = alts
                                .iter()
                                .find(|a| self.leading_conditions_hold(&a.nodes, captures))
                            {
                                let pick = a.nodes.clone();
                                jump = jump.or(self.render(t, &pick, captures, out));
                            }
                        }
                        (Some(Builtin::Goto), _) => jump = jump.or(self.bookmark(t, &arg)),
                        (Some(Builtin::NextProposal), _) => {
                            jump = jump.or(self.proposal_path(t).map(|p| (t, p)));
                        }
                        (Some(Builtin::Start), _) => out.actions.push(Action::Start(arg)),
                        (Some(Builtin::Run), _) => out.actions.push(Action::Run(arg)),
                        (Some(Builtin::Stop), _) => out.actions.push(Action::Stop(arg)),
                        (Some(Builtin::Wait), _) => out.actions.push(Action::Wait(arg)),
                        (Some(Builtin::EndDiscuss), _) => out.actions.push(Action::EndDiscuss(arg)),
                        _ => out.actions.push(Action::Unsupported(f.name.clone())),
                    }
                }
            }
        }
        jump
    }

    /// The rule of topic `t` that bookmark `%tag` marks (a proposal tag, or a bookmark in an
    /// output).
    fn bookmark(&self, t: usize, tag: &str) -> Option<RulePath> {
        let topic = self.topics.get(t)?;
        topic
            .rules
            .iter()
            .position(|r| r.tag.as_deref() == Some(tag) || r.bookmarks().contains(&tag))
            .map(|k| (t, vec![k]))
    }

    /// The phrases concept `name` stands for, in order: its body expanded (a choice gives
    /// each of its items, words around it are kept: `[red white] wine` is "red wine", "white
    /// wine"; a concept inside is expanded in turn), or its dynamic phrases. At most
    /// [`MAX_ITEMS`] phrases, concepts [`MAX_CONCEPT_DEPTH`] deep.
    fn concept_items(&self, name: &str) -> Vec<String> {
        let view = View(self);
        match view.concept(name) {
            Some(body) => expand(&view, body, 0),
            None => self.dynamic.get(name).cloned().unwrap_or_default(),
        }
    }

    fn leading_conditions_hold(&self, nodes: &[OutputNode], captures: &[String]) -> bool {
        nodes
            .iter()
            .take_while(|n| matches!(n.kind, OutputKind::Condition(_)))
            .all(|n| match &n.kind {
                OutputKind::Condition(c) => self.holds(c, captures),
                _ => true,
            })
    }

    fn operand(&self, o: &Operand, captures: &[String]) -> Option<String> {
        match o {
            Operand::Variable(v) => self.variables.get(v).cloned(),
            Operand::CaptureRef(n) => usize::try_from(*n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| captures.get(i).cloned()),
            Operand::Literal(l) => Some(l.clone()),
        }
    }

    fn holds(&self, c: &Condition, captures: &[String]) -> bool {
        compare(
            c.op,
            self.operand(&c.left, captures),
            self.operand(&c.right, captures),
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

/// Words and actions collected for one answer.
#[derive(Default)]
struct Rendered {
    words: Vec<String>,
    actions: Vec<Action>,
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
}

/// The dialog as the matcher sees it: concepts of every loaded topic, dynamic concepts and
/// variables.
struct View<'a>(&'a Dialog);

impl Lookup for View<'_> {
    fn concept(&self, name: &str) -> Option<&[PatternNode]> {
        self.0
            .topics
            .iter()
            .find_map(|t| t.concepts.iter().find(|c| c.name == name))
            .map(|c| c.body.as_slice())
    }
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        self.0.dynamic.get(name).cloned()
    }
    fn variable(&self, name: &str) -> Option<String> {
        self.0.variables.get(name).cloned()
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
