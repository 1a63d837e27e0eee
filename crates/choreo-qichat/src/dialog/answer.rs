//! A rule's answer: its output worked out (with the rules it jumps to and the `cN:`/`eN:`
//! subrule answering its `^call`), then committed: effects kept, memory written, the focus
//! and the scope moved. An invalid output says nothing and raises `Dialog/SpeakFailure`
//! ("Occurs when a rule matches but the answer is empty (contains an empty variable /
//! concept, a deactivated tag...)"); a rule answering twice in a row raises
//! `Dialog/SameRule`, whose rule, if any, answers instead.

use crate::ast::{RuleKind, TopicProperty};
use crate::matcher::{Heard, Match, match_heard, tokens};

use super::clock;
use super::concepts::View;
use super::functions::apply_knowledge;
use super::render::{Cx, Effect, Plan, finish};
use super::select::join;
use super::{Action, Answer, Dialog, Host, RulePath, Step};

impl Dialog {
    /// The rule at `at` answers (its topic takes the focus, its subrules the scope).
    pub(super) fn answer(
        &mut self,
        at: RulePath,
        heard: &Match,
        via: Option<&'static str>,
        host: &mut dyn Host,
    ) -> Answer {
        self.answer_with(at, heard, via, true, host)
    }

    /// The rule at `at` answers; `main`: it moves the focus and the scope (a learning rule
    /// or a side topic's answer does not).
    pub(super) fn answer_with(
        &mut self,
        at: RulePath,
        heard: &Match,
        via: Option<&'static str>,
        main: bool,
        host: &mut dyn Host,
    ) -> Answer {
        if main && via.is_none() && self.history.last_rule.as_ref() == Some(&at) {
            self.history.last_rule = None;
            if let Some(a) = self.qichat_event("Dialog/SameRule", host) {
                return a;
            }
        }
        // The topic whose rule matched gets the focus before its output is worked out: a
        // `^resetOnFocus` topic's proposals are back for the output's `^nextProposal`.
        if main && !self.topics.loaded[at.0].topic.has(TopicProperty::NoStay) {
            self.give_focus(at.0);
        }
        let cx = Cx::new(at.0, heard);
        let mut plan = Plan::default();
        if self.render_rule(&cx, &at, &mut plan, host).is_ok() {
            self.call_subrule(&mut plan, host);
            return self.conclude(plan, at, via, main, host);
        }
        if main {
            self.history.last_rule = Some(at.clone());
        }
        if main
            && via != Some("Dialog/SpeakFailure")
            && let Some(a) = self.qichat_event("Dialog/SpeakFailure", host)
        {
            return a;
        }
        Answer {
            topic: self.topics.loaded[at.0].topic.name.clone(),
            rule: self
                .topics
                .rule(at.0, &at.1)
                .map(|r| r.span)
                .unwrap_or_default(),
            text: String::new(),
            steps: Vec::new(),
            via,
            failed: true,
            tags: Vec::new(),
        }
    }

    /// The output of the rule at `path` into `plan` (a proposal said is used).
    pub(super) fn render_rule(
        &mut self,
        cx: &Cx,
        path: &RulePath,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), super::render::Invalid> {
        let rule = self
            .topics
            .rule(path.0, &path.1)
            .cloned()
            .ok_or(super::render::Invalid)?;
        if rule.kind == RuleKind::Proposal {
            plan.effects.push(Effect::Used(path.clone()));
        }
        // Before the output: a rule it jumps to is the one said last, and what the match
        // set (`"january $month=1"` in a concept) is set.
        plan.last = Some(path.clone());
        for (variable, value) in &cx.sets {
            plan.write(self.topics.key(cx.t, variable), Some(value.clone()));
        }
        self.render(cx, &rule.output, plan, host)
    }

    /// After a `^call`: the `cN:` subrule its result matches (the one whose wildcards take
    /// fewest words, then the first: the page's `c1:(_*)` and `c1:(crouch)` answer "crouch"
    /// with the second), or the `eN:` subrule when it failed or returned nothing.
    fn call_subrule(&mut self, plan: &mut Plan, host: &mut dyn Host) {
        let Some(outcome) = plan.call.take() else {
            return;
        };
        let Some(last) = plan.last.clone() else {
            return;
        };
        let Some(rule) = self.topics.rule(last.0, &last.1).cloned() else {
            return;
        };
        let result = match &outcome {
            Ok(Some(v)) if !v.trim().is_empty() => Some(v.clone()),
            Ok(_) => None,
            Err(e) => {
                plan.act(Action::Notice(format!("^call: {e}")));
                None
            }
        };
        let chosen = match &result {
            Some(text) => {
                let toks = tokens(text);
                let view = View {
                    dialog: self,
                    host,
                    topic: last.0,
                };
                rule.subrules
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.kind == RuleKind::CallResult)
                    .filter_map(|(k, r)| {
                        let m = match_heard(&r.pattern, Heard::Said(text, &toks), &view, false)?;
                        Some((m.wildcard_words, k, m))
                    })
                    .min_by_key(|(w, k, _)| (*w, *k))
                    .map(|(_, k, c)| (k, c))
            }
            None => rule
                .subrules
                .iter()
                .position(|r| r.kind == RuleKind::CallError)
                .map(|k| (k, Match::default())),
        };
        let Some((k, heard)) = chosen else {
            return;
        };
        let mut path = last.1.clone();
        path.push(k);
        let cx = Cx::new(last.0, &heard);
        let mut child = plan.child();
        if self
            .render_rule(&cx, &(last.0, path), &mut child, host)
            .is_ok()
        {
            plan.absorb(child);
        }
    }

    /// A valid plan said: its effects kept, memory written, the focus and scope moved (when
    /// `main`), skins applied, the events it raised answered after it.
    pub(super) fn conclude(
        &mut self,
        plan: Plan,
        at: RulePath,
        via: Option<&'static str>,
        main: bool,
        host: &mut dyn Host,
    ) -> Answer {
        for e in &plan.effects {
            self.apply(e);
        }
        for (key, value) in &plan.writes {
            host.set(key, value.as_deref());
        }
        let last = plan.last.clone().unwrap_or_else(|| at.clone());
        if main {
            if !self.topics.loaded[last.0].topic.has(TopicProperty::NoStay) {
                self.give_focus(last.0);
            }
            match plan.focus {
                Some(Some(t)) => self.give_focus(t),
                Some(None) => self.topics.focus = None,
                None => {}
            }
            let opens = self
                .topics
                .rule(last.0, &last.1)
                .is_some_and(|r| r.subrules.iter().any(|s| s.kind == RuleKind::User));
            if opens {
                self.topics.scope = Some(last.clone());
            } else if !plan.stay {
                self.topics.scope = None;
            }
            self.history.last_rule = Some(at.clone());
        }
        let (_, mut steps) = finish(&plan.pieces);
        let now = clock::civil(host.now_ms());
        for step in &mut steps {
            if let Step::Say(text) = step
                && text.contains("now")
            {
                *text = clock::fill_now(text, &now);
            }
        }
        self.skin(&mut steps, host);
        let text = said_text(&steps);
        let mut answer = Answer {
            topic: self.topics.loaded[at.0].topic.name.clone(),
            rule: self
                .topics
                .rule(last.0, &last.1)
                .map(|r| r.span)
                .unwrap_or_default(),
            text,
            steps,
            via,
            failed: false,
            tags: plan.tags.clone(),
        };
        for name in plan.raise {
            if let Some(a) = self.qichat_event(name, host) {
                answer = join(answer, a);
            }
        }
        answer
    }

    /// What an effect makes the conversation remember.
    fn apply(&mut self, e: &Effect) {
        match e {
            Effect::Count(k, v) => {
                self.history.counters.insert(*k, *v);
            }
            Effect::Used(p) => {
                self.history.used.insert(p.clone());
                // Said again right after itself (`^sameProposal`): still one in the history.
                if let Some(l) = self.topics.loaded.get_mut(p.0)
                    && l.said.last() != Some(&p.1)
                {
                    l.said.push(p.1.clone());
                }
            }
            Effect::Unused(p) => {
                self.history.used.remove(p);
            }
            Effect::Tag(t, tag, on) => {
                if let Some(l) = self.topics.loaded.get_mut(*t) {
                    if *on {
                        l.tags_off.remove(tag);
                    } else {
                        l.tags_off.insert(tag.clone());
                    }
                }
            }
            Effect::Concept(name, change) => self.change_concept(name, change),
            Effect::UserInfo(name, value) => {
                let data = self.people.users.entry(self.people.user).or_default();
                match value {
                    Some(v) => {
                        data.insert(name.clone(), v.clone());
                    }
                    None => {
                        data.remove(name);
                    }
                }
            }
            Effect::Frequency(tag, at) => {
                self.history.frequency.insert(tag.clone(), *at);
            }
            Effect::Knowledge(change) => apply_knowledge(&mut self.people.knowledge, change),
        }
    }

    /// Topic `t`'s first available, valid proposal, said (`forceOutput`, `gotoTopic`).
    pub(super) fn say_proposal(&mut self, t: usize, host: &mut dyn Host) -> Option<Answer> {
        let cx = Cx::new(t, &Match::default());
        let mut plan = Plan::default();
        if !self.next_proposal(&cx, t, &mut plan, host) {
            return None;
        }
        let at = plan.last.clone()?;
        Some(self.conclude(plan, at, None, true, host))
    }
}

/// The words of the steps, joined.
pub(super) fn said_text(steps: &[Step]) -> String {
    let words: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Say(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    words.join(" ")
}
