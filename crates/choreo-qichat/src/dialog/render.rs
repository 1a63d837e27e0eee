//! An output worked out into a [`Plan`]: the words, actions and memory writes in order,
//! and what the conversation will remember (effects), committed only when the whole output
//! is valid.
//!
//! An output is **invalid** when it reads a variable that is not set (or empty), a capture
//! that does not exist, a condition that does not hold, a deactivated tag, an empty concept,
//! or a function that has nothing to give (`^getUserInfo` of unknown data, `^wiki` off
//! line): "Using a non-affected variable in a robot output will make the rule invalid, i.e.
//! the rule will not be said at all" (2.8 syntax page, `^first`). Choices skip invalid
//! alternatives: `[a b]` goes through them in turn ("the words will be used sequentially"),
//! `^first` takes the first valid one, `^firstOptional` the first valid one or nothing,
//! `^rand` a valid one at random, `{a b}` one of them or nothing at random ("each element
//! ... is picked with a probability of 1/3"). A quoted empty alternative (`""`) is skipped.
//!
//! Memory writes (`$v=x`) are steps at their place; what follows in the same output reads
//! them (`$size="^size(~c)" ["$size==0 no" ...]`, the page's `^size` example).

use std::collections::HashMap;

use crate::ast::{Alternative, Condition, Operand, OutputKind, OutputNode};
use crate::error::Span;
use crate::matcher::{Match, compare};

use super::{Action, Dialog, Host, RulePath, Step};

/// Why an output cannot be said (kept for nothing but the reason's sake in debugging: the
/// robot just says nothing).
#[derive(Debug)]
pub(super) struct Invalid;

/// The output so far: a valid output's plan becomes the answer.
#[derive(Debug, Default, Clone)]
pub(super) struct Plan {
    pub(super) pieces: Vec<Piece>,
    pub(super) effects: Vec<Effect>,
    /// Memory writes staged, in order: read back by what follows.
    pub(super) writes: Vec<(String, Option<String>)>,
    /// `^stayInScope` was said.
    pub(super) stay: bool,
    /// What `^call` gave (its `cN:`/`eN:` subrules answer it).
    pub(super) call: Option<Result<Option<String>, super::HostError>>,
    /// The rule said last (after jumps).
    pub(super) last: Option<RulePath>,
    /// A focus set by the output (`^topic`: `Some(t)`; `^releaseFocus`: `None`).
    pub(super) focus: Option<Option<usize>>,
    /// qiChat events the output raises (`Dialog/NothingToSay`), answered after it.
    pub(super) raise: Vec<&'static str>,
    /// The tags said.
    pub(super) tags: Vec<String>,
}

/// A piece of an answer.
#[derive(Debug, Clone)]
pub(super) enum Piece {
    Text(String),
    Step(Step),
    /// The next words join the last one (no space between in the topic).
    Glue,
}

/// What an answer makes the conversation remember, once it is said.
#[derive(Debug, Clone)]
pub(super) enum Effect {
    /// A choice, concept or `^enumerate` at this place moved on to here.
    Count((usize, Span), usize),
    /// A proposal was said.
    Used(RulePath),
    /// A proposal was reactivated.
    Unused(RulePath),
    /// A tag of a topic turned on or off.
    Tag(usize, String, bool),
    /// A dynamic concept changed.
    Concept(String, ConceptChange),
    /// The focused user's data changed.
    UserInfo(String, Option<String>),
    /// A `^frequency` tag may answer again at this time (`None`: off).
    Frequency(String, Option<u64>),
    /// The knowledge base changed.
    Knowledge(KnowledgeChange),
}

/// A change to a dynamic concept.
#[derive(Debug, Clone)]
pub(super) enum ConceptChange {
    Add(String),
    Remove(String),
    Clear,
}

/// A change to the knowledge base (`?` in a triple matches anything).
#[derive(Debug, Clone)]
pub(super) enum KnowledgeChange {
    Add([String; 3]),
    Remove([String; 3]),
}

impl Plan {
    /// A plan for an alternative: it sees this one's writes.
    pub(super) fn child(&self) -> Plan {
        Plan {
            writes: self.writes.clone(),
            ..Plan::default()
        }
    }

    /// A child's work, kept.
    pub(super) fn absorb(&mut self, child: Plan) {
        self.pieces.extend(child.pieces);
        self.effects.extend(child.effects);
        self.writes = child.writes;
        self.stay |= child.stay;
        if child.call.is_some() {
            self.call = child.call;
        }
        if child.last.is_some() {
            self.last = child.last;
        }
        if child.focus.is_some() {
            self.focus = child.focus;
        }
        self.raise.extend(child.raise);
        self.tags.extend(child.tags);
    }

    pub(super) fn say(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.pieces.push(Piece::Text(text.to_string()));
        }
    }

    pub(super) fn act(&mut self, action: Action) {
        self.pieces.push(Piece::Step(Step::Do(action)));
    }

    /// Memory `key` gets `value` when the speech gets here; what follows reads it.
    pub(super) fn write(&mut self, key: String, value: Option<String>) {
        self.writes.push((key.clone(), value.clone()));
        self.pieces.push(Piece::Step(Step::Set { key, value }));
    }

    /// The text said so far.
    pub(super) fn text(&self) -> String {
        let (text, _) = finish(&self.pieces);
        text
    }

    /// Whether a proposal is already used in this plan.
    pub(super) fn uses(&self, path: &RulePath) -> bool {
        let mut used = false;
        for e in &self.effects {
            match e {
                Effect::Used(p) if p == path => used = true,
                Effect::Unused(p) if p == path => used = false,
                _ => {}
            }
        }
        used
    }
}

/// The pieces as the robot says them: the text, and the steps (words joined into one
/// [`Step::Say`] between actions and writes). Words are said as the topic spaces them: a
/// glue joins a word to the one before it (`$1.`, `~hi,`).
pub(super) fn finish(pieces: &[Piece]) -> (String, Vec<Step>) {
    let mut all: Vec<String> = Vec::new();
    let mut steps = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut glued = false;
    for piece in pieces {
        match piece {
            Piece::Glue => glued = true,
            Piece::Text(t) => {
                for word in t.split_whitespace() {
                    let joins = std::mem::take(&mut glued);
                    match all.last_mut() {
                        Some(a) if joins => {
                            a.push_str(word);
                            match current.last_mut() {
                                Some(last) => last.push_str(word),
                                None => current.push(word.to_string()),
                            }
                        }
                        _ => {
                            current.push(word.to_string());
                            all.push(word.to_string());
                        }
                    }
                }
            }
            Piece::Step(s) => {
                if !current.is_empty() {
                    steps.push(Step::Say(std::mem::take(&mut current).join(" ")));
                }
                steps.push(s.clone());
            }
        }
    }
    if !current.is_empty() {
        steps.push(Step::Say(current.join(" ")));
    }
    (all.join(" "), steps)
}

/// What an output is worked out with: its topic, the captures of the match and the
/// variables it set, a `def:` function's parameters, and how many jumps led here.
#[derive(Debug, Clone, Default)]
pub(super) struct Cx {
    pub(super) t: usize,
    pub(super) captures: Vec<String>,
    pub(super) sets: Vec<(String, String)>,
    pub(super) locals: HashMap<String, String>,
    pub(super) jumps: usize,
}

impl Cx {
    /// The output of a rule of topic `t` that matched as `m`.
    pub(super) fn new(t: usize, m: &Match) -> Cx {
        Cx {
            t,
            captures: m.captures.clone(),
            sets: m.sets.clone(),
            ..Cx::default()
        }
    }
}

impl Dialog {
    /// Works `nodes` out into `plan`; `Err` when the output is invalid (the plan is then
    /// half-made: callers render into a child).
    pub(super) fn render(
        &mut self,
        cx: &Cx,
        nodes: &[OutputNode],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        for node in nodes {
            self.render_node(cx, node, plan, host)?;
        }
        Ok(())
    }

    fn render_node(
        &mut self,
        cx: &Cx,
        node: &OutputNode,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        match &node.kind {
            OutputKind::Text(text) => self.say_text(cx, text, plan, host),
            OutputKind::CaptureRef(n) => {
                let i = usize::try_from(*n)
                    .unwrap_or(0)
                    .checked_sub(1)
                    .ok_or(Invalid)?;
                let captured = cx.captures.get(i).ok_or(Invalid)?;
                plan.say(captured);
                Ok(())
            }
            OutputKind::Variable(v) => {
                let value = self.read(cx, v, plan, host).ok_or(Invalid)?;
                plan.say(&value);
                Ok(())
            }
            OutputKind::Assign { variable, value } => self.assign(cx, variable, value, plan, host),
            OutputKind::Condition(c) => {
                if self.holds(cx, c, plan, host) {
                    Ok(())
                } else {
                    Err(Invalid)
                }
            }
            OutputKind::Choice(alternatives) => {
                self.sequential(cx, node.span, alternatives, plan, host)
            }
            OutputKind::Optional(alternatives) => {
                let pick = self.random(alternatives.len() + 1);
                if let Some(alt) = alternatives.get(pick)
                    && let Some(child) = self.try_alternative(cx, alt, plan, host)
                {
                    plan.absorb(child);
                }
                Ok(())
            }
            OutputKind::Concept(name) => self.say_concept(cx, node.span, name, plan, host),
            OutputKind::Bookmark(tag) => {
                if self.topics.tags_on(cx.t, &[tag.as_str()]) {
                    plan.tags.push(tag.clone());
                    Ok(())
                } else {
                    Err(Invalid)
                }
            }
            OutputKind::Script(code) => {
                match host.script(code) {
                    Ok(printed) => plan.say(&printed),
                    Err(e) => plan.act(Action::Notice(format!("%script: {e}"))),
                }
                Ok(())
            }
            OutputKind::Function(f) => self.function(cx, f, plan, host),
            OutputKind::Glue => {
                plan.pieces.push(Piece::Glue);
                Ok(())
            }
        }
    }

    /// `[a b c]`: the alternatives in turn from where the last answer left off, skipping
    /// invalid ones; none valid: invalid.
    fn sequential(
        &mut self,
        cx: &Cx,
        span: Span,
        alternatives: &[Alternative<OutputNode>],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let n = alternatives.len();
        let from = self
            .history
            .counters
            .get(&(cx.t, span))
            .copied()
            .unwrap_or(0);
        for k in 0..n {
            let i = (from + k) % n;
            if let Some(child) = self.try_alternative(cx, &alternatives[i], plan, host) {
                plan.absorb(child);
                plan.effects.push(Effect::Count((cx.t, span), i + 1));
                return Ok(());
            }
        }
        Err(Invalid)
    }

    /// `alt` worked out after `plan`, if it is valid (a quoted empty one never is: "empty
    /// strings are skipped").
    pub(super) fn try_alternative(
        &mut self,
        cx: &Cx,
        alt: &Alternative<OutputNode>,
        plan: &Plan,
        host: &mut dyn Host,
    ) -> Option<Plan> {
        if alt.quoted && alt.nodes.is_empty() {
            return None;
        }
        let mut child = plan.child();
        self.render(cx, &alt.nodes, &mut child, host).ok()?;
        Some(child)
    }

    /// The value of `$name` as the output sees it: a `def:` parameter, a write of this
    /// answer, else memory. An empty value is none.
    pub(super) fn read(&self, cx: &Cx, name: &str, plan: &Plan, host: &dyn Host) -> Option<String> {
        if let Some(v) = cx.locals.get(name) {
            return Some(v.clone()).filter(|v| !v.is_empty());
        }
        let key = self.topics.key(cx.t, name);
        let value = match plan.writes.iter().rev().find(|(k, _)| *k == key) {
            Some((_, v)) => v.clone(),
            None => super::clock::data(&key, host.now_ms()).or_else(|| host.get(&key)),
        };
        value.filter(|v| !v.is_empty())
    }

    /// `$variable=value`: the variable set (invalid when the value cannot be worked out).
    pub(super) fn assign(
        &mut self,
        cx: &Cx,
        variable: &str,
        value: &Operand,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let v = self.operand(cx, value, plan, host).ok_or(Invalid)?;
        let key = self.topics.key(cx.t, variable);
        plan.write(key, Some(v));
        Ok(())
    }

    pub(super) fn operand(
        &mut self,
        cx: &Cx,
        o: &Operand,
        plan: &Plan,
        host: &mut dyn Host,
    ) -> Option<String> {
        match o {
            Operand::Variable(v) => self.read(cx, v, plan, host),
            Operand::CaptureRef(n) => usize::try_from(*n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| cx.captures.get(i).cloned()),
            Operand::Literal(l) => Some(l.clone()),
            Operand::Output(nodes) => {
                let mut child = plan.child();
                self.render(cx, nodes, &mut child, host).ok()?;
                Some(child.text())
            }
        }
    }

    pub(super) fn holds(
        &mut self,
        cx: &Cx,
        c: &Condition,
        plan: &Plan,
        host: &mut dyn Host,
    ) -> bool {
        let left = self.operand(cx, &c.left, plan, host);
        let right = self.operand(cx, &c.right, plan, host);
        compare(c.op, left, right)
    }

    /// A piece of text, with dates and times said through the topic's `def:sayDateTime`,
    /// `def:sayDate` and `def:sayTime` when it has them (the 2.8 page's "Date and time
    /// format").
    fn say_text(
        &mut self,
        cx: &Cx,
        text: &str,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut plain = String::new();
        let mut i = 0;
        while i < words.len() {
            let found = super::clock::date_in(&words[i..])
                .and_then(|(taken, parts)| self.date_def(cx.t, &parts).map(|d| (taken, d, parts)));
            match found {
                Some((taken, def, parts)) => {
                    plan.say(&std::mem::take(&mut plain));
                    self.call_def(cx, &def, &parts.values(), plan, host)?;
                    i += taken;
                }
                None => {
                    if !plain.is_empty() {
                        plain.push(' ');
                    }
                    plain.push_str(words[i]);
                    i += 1;
                }
            }
        }
        plan.say(&plain);
        Ok(())
    }
}
