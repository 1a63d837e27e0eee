//! What the dialog listens for now: for each user rule of an active topic, a sentence it
//! hears or the events it waits for. `choreo explore` says these to the robot, one path
//! each, so a conversation is tried branch by branch without a list written by hand.

use crate::ast::{PatternKind, PatternNode, RuleKind};
use crate::matcher::MAX_CONCEPT_DEPTH;

use super::Dialog;

/// The word said where a rule has a wildcard (`*`): any word does, and one that names no
/// concept keeps the sentence from matching another rule by chance.
pub const WILDCARD_WORD: &str = "something";

/// A user rule of an active topic, and how to make it answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Listened {
    /// Its topic.
    pub topic: String,
    /// Its line in the topic file (from 1).
    pub line: u32,
    /// A sentence its pattern hears (the first of each choice, optional parts left out, a
    /// wildcard as [`WILDCARD_WORD`]); `None` when the pattern says no words.
    pub sentence: Option<String>,
    /// The memory keys of the events its pattern waits for (`u:(e:FrontTactilTouched)`).
    pub events: Vec<String>,
}

/// A user rule of a loaded topic: what dialog coverage counts.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct RuleAt {
    /// Its topic.
    pub topic: String,
    /// Its line in the topic file (from 1).
    pub line: u32,
}

impl Dialog {
    /// The user rules that can answer now, in activation and file order, each with a
    /// sentence it hears or the events it waits for: the top-level rules of the active
    /// topics in the dialog's language, and the subrules in scope (those of the rule that
    /// answered last). A subrule out of its scope is not understood, as anything else said.
    pub fn listening(&self) -> Vec<Listened> {
        let mut out = Vec::new();
        for &t in &self.topics.active {
            if !self.speaks(t) {
                continue;
            }
            let topic = &self.topics.loaded[t].topic;
            let scoped = self
                .topics
                .scope
                .as_ref()
                .filter(|(s, _)| *s == t)
                .and_then(|(_, path)| self.topics.rule(t, path));
            let rules = scoped
                .into_iter()
                .flat_map(|r| r.subrules.iter())
                .chain(topic.rules.iter());
            for rule in rules {
                if rule.kind != RuleKind::User {
                    continue;
                }
                let sentence = self
                    .expand(t, &first_choices(&rule.pattern), 0, true)
                    .into_iter()
                    .next()
                    .map(|s| fill_wildcards(&s))
                    .filter(|s| !s.is_empty());
                let mut events = Vec::new();
                collect_events(&rule.pattern, 0, &mut events);
                let events = events.into_iter().map(|e| self.topics.key(t, &e)).collect();
                out.push(Listened {
                    topic: topic.name.clone(),
                    line: rule.span.line,
                    sentence,
                    events,
                });
            }
        }
        out
    }

    /// Every user rule (subrules included) of every loaded topic.
    pub fn rules(&self) -> Vec<RuleAt> {
        let mut out = Vec::new();
        for loaded in &self.topics.loaded {
            for rule in loaded.topic.all_rules() {
                if rule.kind == RuleKind::User {
                    out.push(RuleAt {
                        topic: loaded.topic.name.clone(),
                        line: rule.span.line,
                    });
                }
            }
        }
        out
    }
}

/// The pattern with each choice cut to its first item and optional parts left out: one
/// sentence per rule, the plainest one, rather than every combination.
fn first_choices(nodes: &[PatternNode]) -> Vec<PatternNode> {
    nodes
        .iter()
        .filter(|n| !matches!(n.kind, PatternKind::Optional(_)))
        .map(|n| {
            let kind = match &n.kind {
                PatternKind::Choice(items) => match items.first() {
                    Some(first) => PatternKind::Phrase(first_choices(std::slice::from_ref(first))),
                    None => PatternKind::Choice(Vec::new()),
                },
                PatternKind::Phrase(items) => PatternKind::Phrase(first_choices(items)),
                PatternKind::Capture(inner) => {
                    match first_choices(std::slice::from_ref(inner)).pop() {
                        Some(first) => PatternKind::Capture(Box::new(first)),
                        None => PatternKind::Phrase(Vec::new()),
                    }
                }
                other => other.clone(),
            };
            PatternNode { kind, span: n.span }
        })
        .collect()
}

/// `*` (how an expansion writes a wildcard) as [`WILDCARD_WORD`].
fn fill_wildcards(sentence: &str) -> String {
    sentence
        .split_whitespace()
        .map(|w| if w == "*" { WILDCARD_WORD } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The event names (`e:Name`) of a pattern, at any depth up to [`MAX_CONCEPT_DEPTH`].
fn collect_events(nodes: &[PatternNode], depth: usize, out: &mut Vec<String>) {
    if depth > MAX_CONCEPT_DEPTH {
        return;
    }
    for node in nodes {
        match &node.kind {
            PatternKind::Event(name) if !out.contains(name) => out.push(name.clone()),
            PatternKind::Phrase(items) | PatternKind::Choice(items) => {
                collect_events(items, depth + 1, out)
            }
            PatternKind::Capture(inner) => {
                collect_events(std::slice::from_ref(inner), depth + 1, out)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn dialog(src: &str) -> Dialog {
        let parsed = crate::parse("t.top", src.as_bytes()).unwrap();
        let mut d = Dialog::new(1);
        let name = d.load(parsed.topic);
        assert!(d.activate(&name));
        d
    }

    #[test]
    fn each_rule_gives_its_plainest_sentence() {
        // The QiChat syntax page's forms: a choice, an optional part, a concept, a wildcard.
        let d = dialog(
            "topic: ~t()\nlanguage: enu\nconcept:(fruit) [apple pear]\n\
             u:([hi hello] {there} robot) hi\nu:(I like ~fruit) yum\nu:(my name is _*) hi $1\n\
             u:(e:FrontTactilTouched) ouch\n",
        );
        let heard: Vec<_> = d
            .listening()
            .into_iter()
            .map(|l| (l.line, l.sentence, l.events))
            .collect();
        assert_eq!(
            heard,
            vec![
                (4, Some("hi robot".to_string()), vec![]),
                (5, Some("I like apple".to_string()), vec![]),
                (6, Some("my name is something".to_string()), vec![]),
                (7, None, vec!["FrontTactilTouched".to_string()]),
            ]
        );
    }

    /// The subrules are listened for once their rule answered (the 2.8 syntax page: "If a
    /// User rule matches and if it has a scope, its subrules (u1:) are activated; the other
    /// User rule remain activated"), before the other rules; all of them count for
    /// coverage.
    #[test]
    fn subrules_are_listened_for_in_scope_and_counted() {
        let mut d =
            dialog("topic: ~t()\nlanguage: enu\nu:(play) ready?\n  u1:(yes) go\n  u1:(no) ok\n");
        let sentences = |d: &Dialog| -> Vec<String> {
            d.listening()
                .into_iter()
                .filter_map(|l| l.sentence)
                .collect()
        };
        assert_eq!(sentences(&d), ["play"]);
        assert_eq!(d.rules().len(), 3);
        let mut memory = std::collections::HashMap::new();
        assert!(d.input("play", &mut memory).is_some());
        assert_eq!(sentences(&d), ["yes", "no", "play"]);
    }

    #[test]
    fn an_inactive_topic_is_not_listened_for() {
        let parsed = crate::parse("t.top", b"topic: ~t()\nlanguage: enu\nu:(hi) hello\n").unwrap();
        let mut d = Dialog::new(1);
        d.load(parsed.topic);
        assert!(d.listening().is_empty());
        assert_eq!(d.rules().len(), 1);
    }
}
