//! Which rule answers what was heard.
//!
//! The rules that may answer, in the Introduction page's order of priority:
//! 1. the subrules of the rule that answered last (its scope);
//! 2. the main section of the topic in focus;
//! 3. the main section of the other active topics (in activation order: the page says
//!    "randomly ordered"; ours is repeatable), `^fallback` topics excepted;
//! 4. the recover sections (after `recover:`) of all active topics;
//! 5. the `^fallback` topics.
//!
//! `^private` rules answer only while their topic has the focus; a rule with a deactivated
//! tag in its pattern does not match (ALDialog API page, `deactivateTag`). Among the rules
//! that match, a `^lessPriority` rule loses to any other; then the level above decides;
//! then a match of the whole input beats one with more words than the rule, and one whose
//! wildcards take fewer words beats one whose take more; then file order. `^exact` rules
//! match the whole input only.
//!
//! Besides the answering rule, the learning rules (`l:`) that match answer too, after it;
//! and each `^preProcess`/`^postProcess`/`^preProcessReplace` topic answers with its own
//! best rule before, after or instead of the answer (an event such a topic answers is held
//! for the next input's answer: "hello (while touching head)" → "you touched me. Hello").

use crate::ast::{Builtin, RuleKind, TopicProperty};
use crate::matcher::{Heard, Match, Token, match_heard, tokens};

use super::concepts::View;
use super::{Answer, Dialog, Host, RulePath};

/// How high a rule stands (lower first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Scope,
    Focus,
    Others,
    Recover,
    Fallback,
}

/// What was heard, as the rules are asked to match it.
#[derive(Clone, Copy)]
pub(super) enum Hearing<'a> {
    Said(&'a str, &'a [Token]),
    Event(&'a str),
}

/// The side-topic properties, in the order they are looked for.
const SIDE: [TopicProperty; 3] = [
    TopicProperty::PreProcessReplace,
    TopicProperty::PreProcess,
    TopicProperty::PostProcess,
];

impl Dialog {
    /// The answer to what the human said (see the module docs), or to
    /// `Dialog/NotUnderstood` when nothing matches.
    pub(super) fn hear_input(&mut self, said: &str, host: &mut dyn Host) -> Option<Answer> {
        let toks = tokens(said);
        let heard = Hearing::Said(said, &toks);
        let main = self.best(heard, &self.candidates(None), host);
        let beside = self.beside(heard, host);
        let learning = self.learning(heard, host);
        let focus_before = self.topics.focus;
        let mut answer = match main {
            Some((path, captures)) => {
                self.history.misunderstood = 0;
                let t = path.0;
                let mut a = self.answer(path, &captures, None, host);
                if let Some(f) = focus_before
                    && f != t
                    && self.topics.active.contains(&f)
                    && self.topics.loaded[f].topic.has(TopicProperty::KeepFocus)
                {
                    self.topics.focus = Some(f);
                    self.topics.scope = None;
                    if let Some(fallback) = self.qichat_event("Dialog/Fallback", host) {
                        a = join(a, fallback);
                    }
                    self.topics.focus = Some(f);
                }
                Some(a)
            }
            None => None,
        };
        for (path, captures) in learning {
            let l = self.answer_with(path, &captures, None, false, host);
            answer = Some(match answer {
                Some(a) => join(a, l),
                None => l,
            });
        }
        let held = std::mem::take(&mut self.history.held);
        for (property, path, captures) in beside {
            let a = self.answer_with(path, &captures, None, false, host);
            answer = Some(combine(property, answer, a));
        }
        for (property, a) in held {
            answer = Some(combine(property, answer, a));
        }
        if answer.is_some() {
            return answer;
        }
        self.history.misunderstood += 1;
        let n = self.history.misunderstood;
        let names = [
            (n >= 3, "Dialog/NotUnderstood3"),
            (n >= 2, "Dialog/NotUnderstood2"),
            (n == 3, "Dialog/Failure"),
            (true, "Dialog/NotUnderstood"),
        ];
        for (when, name) in names {
            if when && let Some(a) = self.qichat_event(name, host) {
                return Some(a);
            }
        }
        None
    }

    /// The answer to event `key`; an event a side topic answers is held for the next
    /// input.
    pub(super) fn hear_event(&mut self, key: &str, host: &mut dyn Host) -> Option<Answer> {
        let heard = Hearing::Event(key);
        if let Some((path, captures)) = self.best(heard, &self.candidates(None), host) {
            return Some(self.answer(path, &captures, None, host));
        }
        for (property, path, captures) in self.beside(heard, host) {
            let a = self.answer_with(path, &captures, None, false, host);
            self.history.held.push((property, a));
        }
        None
    }

    /// The answer of the rule answering qiChat event `name`, marked as such.
    pub(super) fn qichat_event(
        &mut self,
        name: &'static str,
        host: &mut dyn Host,
    ) -> Option<Answer> {
        let (path, captures) = self.best(Hearing::Event(name), &self.candidates(None), host)?;
        Some(self.answer(path, &captures, Some(name), host))
    }

    /// The topics that answer, the one in focus first, then the active ones in activation
    /// order: in the dialog's language, not overloaded by another loaded topic.
    fn answering_topics(&self) -> Vec<usize> {
        let mut order: Vec<usize> = self
            .topics
            .focus
            .filter(|f| self.topics.active.contains(f))
            .into_iter()
            .collect();
        order.extend(
            self.topics
                .active
                .iter()
                .copied()
                .filter(|a| Some(*a) != self.topics.focus),
        );
        // The topics another loaded topic overloads (`overload: name`) never answer.
        let overloaded: Vec<(usize, &str)> = self
            .topics
            .loaded
            .iter()
            .enumerate()
            .filter(|(i, _)| self.speaks(*i))
            .filter_map(|(i, l)| Some((i, l.topic.overload.as_ref()?.name.trim_start_matches('~'))))
            .collect();
        order.retain(|&t| {
            self.speaks(t)
                && !overloaded
                    .iter()
                    .any(|(i, name)| *i != t && *name == self.topics.loaded[t].topic.name)
        });
        order
    }

    /// The side property of topic `t`, if it has one.
    fn side(&self, t: usize) -> Option<TopicProperty> {
        SIDE.into_iter()
            .find(|p| self.topics.loaded[t].topic.has(*p))
    }

    /// The rules that may answer, with their level, in order: those of the topics without
    /// a side property (`only: None`, scope included), or of topic `only`.
    fn candidates(&self, only: Option<usize>) -> Vec<(Level, RulePath)> {
        let mut out = Vec::new();
        if only.is_none()
            && let Some((t, path)) = &self.topics.scope
            && let Some(rule) = self.topics.rule(*t, path)
        {
            for (k, sub) in rule.subrules.iter().enumerate() {
                if sub.kind == RuleKind::User {
                    let mut p = path.clone();
                    p.push(k);
                    out.push((Level::Scope, (*t, p)));
                }
            }
        }
        for t in self.answering_topics() {
            let wanted = match only {
                Some(o) => o == t,
                None => self.side(t).is_none(),
            };
            if !wanted {
                continue;
            }
            let fallback = self.topics.loaded[t].topic.has(TopicProperty::Fallback);
            for (k, r) in self.topics.loaded[t].topic.rules.iter().enumerate() {
                if !matches!(r.kind, RuleKind::User | RuleKind::Event) {
                    continue;
                }
                if r.says(Builtin::Private) && Some(t) != self.topics.focus {
                    continue;
                }
                let level = if fallback {
                    Level::Fallback
                } else if r.recover {
                    Level::Recover
                } else if Some(t) == self.topics.focus {
                    Level::Focus
                } else {
                    Level::Others
                };
                out.push((level, (t, vec![k])));
            }
        }
        out
    }

    /// The rule among `candidates` that answers `heard`, with its captures.
    fn best(
        &self,
        heard: Hearing<'_>,
        candidates: &[(Level, RulePath)],
        host: &dyn Host,
    ) -> Option<(RulePath, Match)> {
        type Rank = (bool, Level, bool, usize, usize);
        let mut best: Option<(Rank, RulePath, Match)> = None;
        for (i, (level, path)) in candidates.iter().enumerate() {
            let t = path.0;
            let Some(rule) = self.topics.rule(t, &path.1) else {
                continue;
            };
            if !self.topics.tags_on(t, &rule.input_tags()) {
                continue;
            }
            let view = View {
                dialog: self,
                host,
                topic: t,
            };
            let found = match heard {
                Hearing::Said(text, toks) => match_heard(
                    &rule.pattern,
                    Heard::Said(text, toks),
                    &view,
                    !rule.says(Builtin::Exact),
                ),
                Hearing::Event(key) => {
                    let Some(local) = self.topics.local_event(t, key) else {
                        continue;
                    };
                    match_heard(&rule.pattern, Heard::Event(&local), &view, false)
                }
            };
            let Some(m) = found else {
                continue;
            };
            let rank = (
                rule.says(Builtin::LessPriority),
                *level,
                !m.exact,
                m.wildcard_words,
                i,
            );
            if best.as_ref().is_none_or(|(r, _, _)| rank < *r) {
                best = Some((rank, path.clone(), m));
            }
        }
        best.map(|(_, p, c)| (p, c))
    }

    /// Each side topic's best rule for `heard`, with its property.
    fn beside(&self, heard: Hearing<'_>, host: &dyn Host) -> Vec<(TopicProperty, RulePath, Match)> {
        let mut out = Vec::new();
        for t in self.answering_topics() {
            let Some(property) = self.side(t) else {
                continue;
            };
            if let Some((path, captures)) = self.best(heard, &self.candidates(Some(t)), host) {
                out.push((property, path, captures));
            }
        }
        out
    }

    /// The learning rules (`l:`) of the answering topics that match `heard`.
    fn learning(&self, heard: Hearing<'_>, host: &dyn Host) -> Vec<(RulePath, Match)> {
        let Hearing::Said(text, toks) = heard else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for t in self.answering_topics() {
            let view = View {
                dialog: self,
                host,
                topic: t,
            };
            for (k, r) in self.topics.loaded[t].topic.rules.iter().enumerate() {
                if r.kind != RuleKind::Learning {
                    continue;
                }
                if let Some(m) = match_heard(&r.pattern, Heard::Said(text, toks), &view, true) {
                    out.push(((t, vec![k]), m));
                }
            }
        }
        out
    }
}

/// Two answers said one after the other (the first one's rule stands for both).
pub(super) fn join(mut a: Answer, b: Answer) -> Answer {
    if !b.text.is_empty() {
        if !a.text.is_empty() {
            a.text.push(' ');
        }
        a.text.push_str(&b.text);
    }
    a.steps.extend(b.steps);
    a.tags.extend(b.tags);
    a.failed = a.failed && b.failed;
    a
}

/// A side topic's answer with the main one, as its property says.
fn combine(property: TopicProperty, main: Option<Answer>, side: Answer) -> Answer {
    match (property, main) {
        (TopicProperty::PreProcessReplace, _) | (_, None) => side,
        (TopicProperty::PreProcess, Some(main)) => join(side, main),
        (_, Some(main)) => join(main, side),
    }
}
