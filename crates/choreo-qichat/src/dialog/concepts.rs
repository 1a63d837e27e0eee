//! Concepts: how the matcher sees them from a topic ([`View`]), what an output's `~name`
//! says, and the concept functions (`^enumerate`, `^size`, `^addToConcept`, ...).

use crate::ast::{Args, Builtin, Operand, PatternKind, PatternNode};
use crate::error::Span;
use crate::matcher::{Lookup, MAX_CONCEPT_DEPTH};

use super::render::{ConceptChange, Cx, Effect, Invalid, Plan};
use super::{DEFAULT_EVENT_VALIDITY_MS, Dialog, Host};

/// How many phrases a concept said in an output expands to at most.
const MAX_ITEMS: usize = 1000;

/// A phrase a pattern can say, with the variables saying it sets (`$var=value`).
#[derive(Debug, Clone, Default)]
pub(super) struct Phrase(String, Vec<(String, Operand)>);

impl Phrase {
    fn of(text: &str) -> Phrase {
        Phrase(text.to_string(), Vec::new())
    }
}

/// The dialog as the matcher sees it from topic `topic`: concepts (its own first, then every
/// loaded topic's), dynamic concepts, variables in memory (under the topic's keys), recent
/// events and the focused user's data.
pub(super) struct View<'a> {
    pub(super) dialog: &'a Dialog,
    pub(super) host: &'a dyn Host,
    pub(super) topic: usize,
}

impl Lookup for View<'_> {
    /// The topic's own concept of that name, else the first loaded topic's (concepts are
    /// global, but two topics of one behavior may each define `~first`).
    fn concept(&self, name: &str) -> Option<&[PatternNode]> {
        self.dialog.concept_body(self.topic, name)
    }
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        self.dialog.dynamic.get(name).cloned()
    }
    fn variable(&self, name: &str) -> Option<String> {
        let key = self.dialog.topics.key(self.topic, name);
        super::clock::data(&key, self.host.now_ms())
            .or_else(|| self.host.get(&key))
            .filter(|v| !v.is_empty())
    }
    fn recent_event(&self, name: &str) -> bool {
        let key = self.dialog.topics.key(self.topic, name);
        let Some(&when) = self.dialog.events.recent.get(&key) else {
            return false;
        };
        match self.dialog.events.delays.get(&key) {
            Some(None) => true,
            Some(Some(ms)) => self.host.now_ms().saturating_sub(when) <= *ms,
            None => self.host.now_ms().saturating_sub(when) <= DEFAULT_EVENT_VALIDITY_MS,
        }
    }
    fn user_info(&self, name: &str) -> Option<String> {
        self.dialog.user_info(name).map(str::to_string)
    }
}

impl Dialog {
    /// The body of static concept `name` seen from topic `t`.
    pub(super) fn concept_body(&self, t: usize, name: &str) -> Option<&[PatternNode]> {
        let own = self.topics.loaded.get(t).into_iter();
        own.chain(self.topics.loaded.iter())
            .find_map(|l| l.topic.concepts.iter().find(|c| c.name == name))
            .map(|c| c.body.as_slice())
    }

    /// The focused user's data `name`.
    pub(super) fn user_info(&self, name: &str) -> Option<&str> {
        self.user_data(self.people.user, name)
    }

    /// The phrases concept `name` stands for, in order: its body expanded (a choice gives
    /// each of its items, words around it are kept: `[red white] wine` is "red wine", "white
    /// wine"; a concept inside is expanded in turn), or its dynamic phrases. At most
    /// [`MAX_ITEMS`] phrases, concepts [`MAX_CONCEPT_DEPTH`] deep; `None`: no such concept.
    pub(super) fn concept_items(&self, t: usize, name: &str) -> Option<Vec<String>> {
        Some(
            self.concept_phrases(t, name)?
                .into_iter()
                .map(|p| p.0)
                .collect(),
        )
    }

    /// [`Dialog::concept_items`], each with the variables saying it sets.
    fn concept_phrases(&self, t: usize, name: &str) -> Option<Vec<Phrase>> {
        match self.concept_body(t, name) {
            Some(body) => Some(self.phrases(t, body, 0, false)),
            None => self
                .dynamic
                .get(name)
                .map(|items| items.iter().map(|i| Phrase::of(i)).collect())
                .or_else(|| {
                    self.topics
                        .loaded
                        .get(t)
                        .filter(|l| l.topic.dynamics.iter().any(|d| d.name == name))
                        .map(|_| Vec::new())
                }),
        }
    }

    /// The phrases a sequence of pattern nodes can say, in order. What says nothing fixed
    /// (conditions, events) is left out; optional parts and wildcards too, unless `inputs`
    /// (every sentence a rule hears: an optional part with and without, `*` as itself).
    pub(super) fn expand(
        &self,
        t: usize,
        nodes: &[PatternNode],
        depth: usize,
        inputs: bool,
    ) -> Vec<String> {
        self.phrases(t, nodes, depth, inputs)
            .into_iter()
            .map(|p| p.0)
            .collect()
    }

    /// [`Dialog::expand`], each phrase with the variables it sets (`"january $month=1"`).
    pub(super) fn phrases(
        &self,
        t: usize,
        nodes: &[PatternNode],
        depth: usize,
        inputs: bool,
    ) -> Vec<Phrase> {
        let mut phrases = vec![Phrase::default()];
        for node in nodes {
            let options: Vec<Phrase> = match &node.kind {
                PatternKind::Word(w) => vec![Phrase::of(w)],
                PatternKind::Phrase(items) => self.phrases(t, items, depth, inputs),
                PatternKind::Choice(items) => items
                    .iter()
                    .flat_map(|i| self.phrases(t, std::slice::from_ref(i), depth, inputs))
                    .collect(),
                PatternKind::Optional(items) if inputs => std::iter::once(Phrase::default())
                    .chain(
                        items
                            .iter()
                            .flat_map(|i| self.phrases(t, std::slice::from_ref(i), depth, inputs)),
                    )
                    .collect(),
                PatternKind::Wildcard if inputs => vec![Phrase::of("*")],
                PatternKind::Capture(inner) if inputs => {
                    self.phrases(t, std::slice::from_ref(inner), depth, inputs)
                }
                PatternKind::Concept(c) if depth < MAX_CONCEPT_DEPTH => {
                    match self.concept_body(t, c) {
                        Some(body) => self.phrases(t, body, depth + 1, inputs),
                        None => self
                            .dynamic
                            .get(c)
                            .into_iter()
                            .flatten()
                            .map(|p| Phrase::of(p))
                            .collect(),
                    }
                }
                PatternKind::Function(f) => match &f.args {
                    Args::Choice(alts) => alts
                        .iter()
                        .flat_map(|a| self.phrases(t, &a.nodes, depth, inputs))
                        .collect(),
                    _ => continue,
                },
                PatternKind::Assign { variable, value } => {
                    for p in &mut phrases {
                        p.1.push((variable.clone(), value.clone()));
                    }
                    continue;
                }
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
                    let text = match (p.0.is_empty(), o.0.is_empty()) {
                        (true, _) => o.0.clone(),
                        (false, true) => p.0.clone(),
                        (false, false) => format!("{} {}", p.0, o.0),
                    };
                    let sets = p.1.iter().chain(&o.1).cloned().collect();
                    next.push(Phrase(text, sets));
                }
            }
            phrases = next;
        }
        phrases.retain(|p| !p.0.is_empty());
        phrases
    }

    /// Every sentence the user rules of topic `name` hear (`ALDialog.generateSentences`):
    /// each rule's pattern expanded, `MAX_ITEMS` per rule at most, `*` for a wildcard;
    /// `None` when no such topic is loaded.
    pub fn sentences(&self, name: &str) -> Option<Vec<String>> {
        let t = self.index(name)?;
        let mut out: Vec<String> = Vec::new();
        for rule in self.topics.loaded[t].topic.all_rules() {
            if rule.kind != crate::ast::RuleKind::User {
                continue;
            }
            for s in self.expand(t, &rule.pattern, 0, true) {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        Some(out)
    }

    /// `~name` in an output: one of its items, in turn ("Each call of the rule will call
    /// sequentially another item"), or at random when its body is `^rand[...]` (the page's
    /// `concept:(greetings) ^rand[...]`), its `$var=value` set and not said; an empty
    /// concept makes the output invalid.
    pub(super) fn say_concept(
        &mut self,
        cx: &Cx,
        span: Span,
        name: &str,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let items = self.concept_phrases(cx.t, name).unwrap_or_default();
        if items.is_empty() {
            return Err(Invalid);
        }
        let random = matches!(
            self.concept_body(cx.t, name),
            Some([PatternNode { kind: PatternKind::Function(f), .. }]) if f.builtin == Some(Builtin::Rand)
        );
        let i = if random {
            self.random(items.len())
        } else {
            let count = self
                .history
                .counters
                .get(&(cx.t, span))
                .copied()
                .unwrap_or(0);
            plan.effects.push(Effect::Count((cx.t, span), count + 1));
            count % items.len()
        };
        let Phrase(text, sets) = &items[i];
        plan.say(text);
        for (variable, value) in sets {
            self.assign(cx, variable, value, plan, host)?;
        }
        Ok(())
    }

    /// The items of a concept function's first argument (`~name`); `None` when no such
    /// concept exists.
    fn items_of(&self, cx: &Cx, arg: &str, plan: &Plan) -> Option<Vec<String>> {
        let name = arg.trim().trim_start_matches('~');
        let mut items = self.concept_items(cx.t, name)?;
        // Changes this answer made already.
        for e in &plan.effects {
            if let Effect::Concept(c, change) = e
                && c == name
            {
                match change {
                    ConceptChange::Add(x) => items.push(x.clone()),
                    ConceptChange::Remove(x) => items.retain(|i| !i.eq_ignore_ascii_case(x)),
                    ConceptChange::Clear => items.clear(),
                }
            }
        }
        Some(items)
    }

    /// `^size(~c)`: how many items.
    pub(super) fn concept_size(&self, cx: &Cx, arg: &str, plan: &Plan) -> Result<String, Invalid> {
        let items = self.items_of(cx, arg, plan).ok_or(Invalid)?;
        Ok(items.len().to_string())
    }

    /// `^enumerate(~c)`: every item; `^enumerate(~c, n)`: the next `n` ("Calling several
    /// time the function will move forward in the concept"), starting again after the last.
    pub(super) fn enumerate(
        &self,
        cx: &Cx,
        span: Span,
        args: &[String],
        plan: &mut Plan,
    ) -> Result<(), Invalid> {
        let first = args.first().ok_or(Invalid)?;
        let items = self.items_of(cx, first, plan).ok_or(Invalid)?;
        if items.is_empty() {
            return Err(Invalid);
        }
        let limit = args.get(1).and_then(|n| n.trim().parse::<usize>().ok());
        let Some(n) = limit.filter(|&n| n > 0) else {
            plan.say(&items.join(" "));
            return Ok(());
        };
        let from = self
            .history
            .counters
            .get(&(cx.t, span))
            .copied()
            .unwrap_or(0);
        let from = if from >= items.len() { 0 } else { from };
        let end = (from + n).min(items.len());
        plan.say(&items[from..end].join(" "));
        plan.effects.push(Effect::Count((cx.t, span), end));
        Ok(())
    }

    /// `^isInConcept(~c, x)`: whether `x` is one of the items (ignoring case).
    pub(super) fn is_in_concept(&self, cx: &Cx, arg: &str, value: &str, plan: &Plan) -> bool {
        let want = crate::matcher::words(value).join(" ");
        self.items_of(cx, arg, plan).is_some_and(|items| {
            items
                .iter()
                .any(|i| crate::matcher::words(i).join(" ") == want)
        })
    }

    /// Applies a change to a dynamic concept (committed with its answer).
    pub(super) fn change_concept(&mut self, name: &str, change: &ConceptChange) {
        let items = self.dynamic.entry(name.to_string()).or_default();
        match change {
            ConceptChange::Add(x) => items.push(x.clone()),
            ConceptChange::Remove(x) => items.retain(|i| !i.eq_ignore_ascii_case(x)),
            ConceptChange::Clear => items.clear(),
        }
    }
}
