//! The rule functions of an output (`^name(...)`, `^name[...]`), as the 2.8 syntax page
//! describes each; a `def:` function called by its name.

use crate::ast::{Alternative, Args, Builtin, Def, Function, OutputNode};

use super::clock::{self, DateParts};
use super::render::{ConceptChange, Cx, Effect, Invalid, KnowledgeChange, Plan};
use super::{Action, Dialog, Host, MAX_JUMPS, RulePath, TopicProperty, call};

impl Dialog {
    /// Works out function `f` of an output into `plan`: a `def:` function, or a builtin
    /// handed to the family it belongs to (as the syntax page groups them).
    pub(super) fn function(
        &mut self,
        cx: &Cx,
        f: &Function<OutputNode>,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let raw: &[String] = match &f.args {
            Args::List(a) => a,
            _ => &[],
        };
        let Some(builtin) = f.builtin else {
            return self.user_function(cx, f, raw, plan, host);
        };
        use Builtin as B;
        match (builtin, &f.args) {
            (B::Rand, Args::Choice(alts)) => self.choose_random(cx, alts, plan, host),
            (B::First | B::FirstOptional, Args::Choice(alts)) => {
                self.first_alternative(cx, alts, builtin == B::First, plan, host)
            }
            (B::Clear | B::Concatenate | B::Exist | B::NotExist, _) => {
                self.variable_function(cx, builtin, raw, plan, host)
            }
            (B::Frequency, _) => self.frequency(cx, raw, plan, host),
            (
                B::Enumerate
                | B::Size
                | B::ClearConcept
                | B::AddToConcept
                | B::RemoveFromConcept
                | B::IsInConcept,
                _,
            ) => self.concept_function(cx, f, builtin, raw, plan, host),
            (
                B::Activate
                | B::Deactivate
                | B::Goto
                | B::GotoReactivate
                | B::GotoRandom
                | B::TopicTag
                | B::TopicTagReactivate,
                _,
            ) => self.tag_function(cx, builtin, raw, plan, host),
            (
                B::Topic
                | B::TopicRandom
                | B::NextProposal
                | B::SameProposal
                | B::PreviousProposal
                | B::StayInScope,
                _,
            ) => self.proposal_function(cx, builtin, raw, plan, host),
            (B::SwitchFocus | B::ReleaseFocus | B::EndDiscuss, _) => {
                self.focus_function(cx, builtin, raw, plan, host)
            }
            (B::CurrentDateTime | B::CurrentDate | B::CurrentTime | B::EndOfWeek, _) => {
                self.date_function(cx, builtin, plan, host)
            }
            (B::GetUserInfo | B::HasUserInfo | B::SetUserInfo | B::RemoveUserInfo, _) => {
                self.user_info_function(cx, builtin, raw, plan, host)
            }
            (B::Call | B::SCall | B::PCall, _) => {
                self.call_function(cx, f, builtin, raw, plan, host)
            }
            (
                B::Play
                | B::Mode
                | B::Run
                | B::RunTag
                | B::RunSound
                | B::Start
                | B::StartTag
                | B::StartSound
                | B::Stop
                | B::StopTag
                | B::StopSound
                | B::Wait
                | B::WaitTag
                | B::WaitSound
                | B::Wiki,
                _,
            ) => self.action_function(cx, f, builtin, raw, plan, host),
            (
                B::AddKnowledge
                | B::UpdateKnowledge
                | B::RemoveKnowledge
                | B::ContainsKnowledge
                | B::NotContainsKnowledge
                | B::QueryKnowledge,
                _,
            ) => self.knowledge(cx, builtin, raw, plan, host),
            (B::Break | B::Empty | B::Private | B::LessPriority | B::Exact | B::Repeat, _) => {
                Ok(())
            }
            _ => {
                plan.act(Action::Notice(unsupported(&f.name, builtin)));
                Ok(())
            }
        }
    }

    /// `^first[...]` (`required`) and `^firstOptional[...]`: the first alternative that can
    /// be said; none is an invalid output for `^first`, nothing for `^firstOptional`.
    fn first_alternative(
        &mut self,
        cx: &Cx,
        alts: &[Alternative<OutputNode>],
        required: bool,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        for alt in alts {
            if let Some(child) = self.try_alternative(cx, alt, plan, host) {
                plan.absorb(child);
                return Ok(());
            }
        }
        if required { Err(Invalid) } else { Ok(()) }
    }

    /// Variables: `^clear`, `^concatenate`, `^exist` and `^notExist`.
    fn variable_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        use Builtin as B;
        let variable = || raw.first().map_or("", |v| v.trim().trim_start_matches('$'));
        match builtin {
            B::Clear => {
                plan.write(self.topics.key(cx.t, variable()), None);
                Ok(())
            }
            B::Concatenate => {
                let mut joined = String::new();
                for i in 0..raw.len() {
                    joined.push_str(&self.arg(cx, raw, i, plan, host)?);
                }
                plan.say(&joined);
                Ok(())
            }
            _ => {
                let exists = self.read(cx, variable(), plan, host).is_some();
                ok_if(exists == (builtin == B::Exist))
            }
        }
    }

    /// Concepts: `^enumerate`, `^size`, `^clearConcept`, `^addToConcept`,
    /// `^removeFromConcept` and `^isInConcept`.
    fn concept_function(
        &mut self,
        cx: &Cx,
        f: &Function<OutputNode>,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        use Builtin as B;
        match builtin {
            B::Enumerate => self.enumerate(cx, f.span, raw, plan),
            B::Size => {
                let size = self.concept_size(cx, raw.first().map_or("", String::as_str), plan)?;
                plan.say(&size);
                Ok(())
            }
            B::IsInConcept => {
                let value = self.arg(cx, raw, 1, plan, host)?;
                let concept = raw.first().map_or("", String::as_str);
                ok_if(self.is_in_concept(cx, concept, &value, plan))
            }
            _ => {
                let name = raw
                    .first()
                    .map_or("", |c| c.trim().trim_start_matches('~'))
                    .to_string();
                let change = match builtin {
                    B::ClearConcept => ConceptChange::Clear,
                    B::AddToConcept => ConceptChange::Add(self.arg(cx, raw, 1, plan, host)?),
                    _ => ConceptChange::Remove(self.arg(cx, raw, 1, plan, host)?),
                };
                plan.effects.push(Effect::Concept(name, change));
                Ok(())
            }
        }
    }

    /// Tags: `^activate` and `^deactivate`, and the jumps to a tag (`^gotoReactivate`,
    /// `^gotoRandom`, `^topicTag`, ...).
    fn tag_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        use Builtin as B;
        match builtin {
            B::Activate | B::Deactivate => {
                let tag = self.arg(cx, raw, 0, plan, host)?;
                let on = builtin == B::Activate;
                plan.effects.push(Effect::Tag(cx.t, tag.clone(), on));
                if on {
                    plan.effects.push(Effect::Frequency(tag, Some(0)));
                }
                Ok(())
            }
            B::Goto | B::GotoReactivate | B::GotoRandom => {
                let tag = self.arg(cx, raw, 0, plan, host)?;
                self.goto(cx, cx.t, &tag, builtin, plan, host)
            }
            _ => {
                let topic = self.arg(cx, raw, 0, plan, host)?;
                let tag = self.arg(cx, raw, 1, plan, host)?;
                let Some(t) = self.index(topic.trim_start_matches('~')) else {
                    return Ok(());
                };
                let how = if builtin == B::TopicTag {
                    B::Goto
                } else {
                    B::GotoReactivate
                };
                self.goto(cx, t, &tag, how, plan, host)
            }
        }
    }

    /// Proposals: `^topic`, `^topicRandom`, `^nextProposal`, `^sameProposal`,
    /// `^previousProposal` and `^stayInScope`.
    fn proposal_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        use Builtin as B;
        match builtin {
            B::Topic => {
                let name = self.arg(cx, raw, 0, plan, host)?;
                if let Some(t) = self.index(name.trim_start_matches('~')) {
                    plan.focus = Some(Some(t));
                    self.next_proposal(cx, t, plan, host);
                    plan.focus = Some(Some(t));
                }
            }
            B::TopicRandom => {
                let topics: Vec<usize> = self
                    .topics
                    .active
                    .iter()
                    .copied()
                    .filter(|&t| {
                        self.speaks(t) && !self.topics.loaded[t].topic.has(TopicProperty::NoPick)
                    })
                    .filter(|&t| self.first_available_proposal(t, plan).is_some())
                    .collect();
                if topics.is_empty() {
                    plan.raise.push("Dialog/NothingToSay");
                    return Ok(());
                }
                let t = topics[self.random(topics.len())];
                self.next_proposal(cx, t, plan, host);
            }
            B::NextProposal => {
                self.next_proposal(cx, cx.t, plan, host);
            }
            B::SameProposal | B::PreviousProposal => {
                let said = &self.topics.loaded[cx.t].said;
                let back = if builtin == B::SameProposal { 1 } else { 2 };
                let target = said
                    .len()
                    .checked_sub(back)
                    .and_then(|i| said.get(i))
                    .map(|p| (cx.t, p.clone()));
                if let Some(target) = target {
                    self.jump(cx, target, plan, host);
                }
            }
            _ => plan.stay = true,
        }
        Ok(())
    }

    /// Focus: `^switchFocus`, `^releaseFocus` and `^endDiscuss`.
    fn focus_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        match builtin {
            Builtin::SwitchFocus => {
                let target = self.arg(cx, raw, 0, plan, host)?;
                plan.act(Action::SwitchFocus(target));
            }
            Builtin::ReleaseFocus => plan.focus = Some(None),
            _ => {
                let reason = self.arg(cx, raw, 0, plan, host).unwrap_or_default();
                plan.act(Action::EndDiscuss(reason));
            }
        }
        Ok(())
    }

    /// Dates: `^currentDateTime`, `^currentDate`, `^currentTime` and `^endOfWeek`, through
    /// the topic's date `def:` when it has one.
    fn date_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let now = clock::civil(host.now_ms());
        let parts = match builtin {
            Builtin::CurrentDateTime => DateParts::date_time(&now),
            Builtin::CurrentDate => DateParts::date(&now),
            Builtin::CurrentTime => DateParts::time(&now),
            _ => DateParts::date(&clock::end_of_week(host.now_ms())),
        };
        match self.date_def(cx.t, &parts) {
            Some(def) => self.call_def(cx, &def, &parts.values(), plan, host),
            None => {
                plan.say(&parts.text());
                Ok(())
            }
        }
    }

    /// The user's information: `^getUserInfo`, `^hasUserInfo`, `^setUserInfo` and
    /// `^removeUserInfo`.
    fn user_info_function(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let name = self.arg(cx, raw, 0, plan, host)?;
        match builtin {
            Builtin::GetUserInfo => {
                let value = self.staged_user_info(&name, plan).ok_or(Invalid)?;
                plan.say(&value);
                Ok(())
            }
            Builtin::HasUserInfo => ok_if(self.staged_user_info(&name, plan).is_some()),
            _ => {
                let value = if builtin == Builtin::SetUserInfo {
                    Some(self.arg(cx, raw, 1, plan, host)?)
                } else {
                    None
                };
                plan.effects.push(Effect::UserInfo(name, value));
                Ok(())
            }
        }
    }

    /// Service calls: `^call` and `^scall` wait for the answer, `^pCall` does not.
    fn call_function(
        &mut self,
        cx: &Cx,
        f: &Function<OutputNode>,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let target = raw.join(", ");
        let Some((service, method, arg_text)) = call::target(&target) else {
            plan.act(Action::Notice(format!(
                "^{}({target}): not a `Service.method(...)` call",
                f.name
            )));
            return Ok(());
        };
        let mut args = Vec::new();
        for a in &arg_text {
            let quoted = a.trim().starts_with('"');
            let value = self.arg(cx, std::slice::from_ref(a), 0, plan, host)?;
            args.push(call::typed(&value, quoted));
        }
        if builtin == Builtin::PCall {
            plan.act(Action::Call {
                service,
                method,
                args,
            });
        } else {
            plan.call = Some(host.call(&service, &method, &args));
        }
        Ok(())
    }

    /// What the robot does: `^play`, the animated speech functions (`^run`, `^start`,
    /// `^wait`, `^stop`, `^mode`, ...), and `^wiki`, which a robot without network cannot.
    fn action_function(
        &mut self,
        cx: &Cx,
        f: &Function<OutputNode>,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        match builtin {
            Builtin::Play => {
                let sound = self.arg(cx, raw, 0, plan, host)?;
                plan.act(Action::Play(sound));
                Ok(())
            }
            Builtin::Wiki => {
                plan.act(Action::Notice(
                    "^wiki reads Wikipedia: as a robot without network, nothing is said".into(),
                ));
                Err(Invalid)
            }
            _ => {
                let mut parts = Vec::new();
                for i in 0..raw.len() {
                    parts.push(self.arg(cx, raw, i, plan, host)?);
                }
                plan.act(Action::Animated {
                    function: f.name.clone(),
                    arg: parts.join(", "),
                });
                Ok(())
            }
        }
    }

    /// Argument `i` of `raw` worked out as QiChat text (`$1`, `$name`, `^currentDate`, ...).
    pub(super) fn arg(
        &mut self,
        cx: &Cx,
        raw: &[String],
        i: usize,
        plan: &Plan,
        host: &mut dyn Host,
    ) -> Result<String, Invalid> {
        let text = raw.get(i).map_or("", |a| a.trim());
        let text = text
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(text);
        if !text.contains(['$', '^', '~', '[', '{']) {
            return Ok(text.to_string());
        }
        let mut parser = crate::parser::Parser::new("<argument>", text);
        let nodes = parser.parse_output().map_err(|_| Invalid)?;
        let mut child = plan.child();
        self.render(cx, &nodes, &mut child, host)?;
        Ok(child.text())
    }

    /// `^rand[...]`: a valid alternative at random; none: invalid.
    fn choose_random(
        &mut self,
        cx: &Cx,
        alternatives: &[Alternative<OutputNode>],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let mut left: Vec<usize> = (0..alternatives.len()).collect();
        while !left.is_empty() {
            let i = left.remove(self.random(left.len()));
            if let Some(child) = self.try_alternative(cx, &alternatives[i], plan, host) {
                plan.absorb(child);
                return Ok(());
            }
        }
        Err(Invalid)
    }

    /// `^goto(tag)` (a rule of topic `t` marked `%tag`, not a used proposal),
    /// `^gotoReactivate(tag)` (used or not, made available again), `^gotoRandom(tag)` (one
    /// of those not used, at random; none: `Dialog/NothingToSay`).
    fn goto(
        &mut self,
        cx: &Cx,
        t: usize,
        tag: &str,
        how: Builtin,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let tagged = self.topics.tagged(t, tag);
        let free: Vec<RulePath> = tagged
            .iter()
            .filter(|p| !self.history.used.contains(p) && !plan.uses(p))
            .cloned()
            .collect();
        let target = match how {
            Builtin::GotoReactivate => {
                let target = tagged.into_iter().next();
                if let Some(p) = &target {
                    plan.effects.push(Effect::Unused(p.clone()));
                }
                target
            }
            Builtin::GotoRandom => {
                if free.is_empty() {
                    plan.raise.push("Dialog/NothingToSay");
                    None
                } else {
                    let i = self.random(free.len());
                    free.into_iter().nth(i)
                }
            }
            _ => free.into_iter().next(),
        };
        if let Some(target) = target {
            self.jump(cx, target, plan, host);
        }
        Ok(())
    }

    /// The first proposal of topic `t` that is available and valid, said; whether one was.
    pub(super) fn next_proposal(
        &mut self,
        cx: &Cx,
        t: usize,
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> bool {
        let count = self.topics.loaded.get(t).map_or(0, |l| l.topic.rules.len());
        for k in 0..count {
            let path = (t, vec![k]);
            let is_proposal = self
                .topics
                .rule(t, &path.1)
                .is_some_and(|r| r.kind == crate::ast::RuleKind::Proposal);
            if !is_proposal || self.history.used.contains(&path) || plan.uses(&path) {
                continue;
            }
            if cx.jumps >= MAX_JUMPS {
                return false;
            }
            let inner = Cx {
                t,
                jumps: cx.jumps + 1,
                ..Cx::default()
            };
            let mut child = plan.child();
            if self.render_rule(&inner, &path, &mut child, host).is_ok() {
                plan.absorb(child);
                return true;
            }
        }
        false
    }

    /// The first proposal of topic `t` not used (validity not checked).
    pub(super) fn first_available_proposal(&self, t: usize, plan: &Plan) -> Option<RulePath> {
        let loaded = self.topics.loaded.get(t)?;
        loaded
            .topic
            .rules
            .iter()
            .enumerate()
            .map(|(k, r)| (r, (t, vec![k])))
            .find(|(r, p)| {
                r.kind == crate::ast::RuleKind::Proposal
                    && !self.history.used.contains(p)
                    && !plan.uses(p)
            })
            .map(|(_, p)| p)
    }

    /// The rule at `target` said here (its output after what was said); an invalid one
    /// says nothing. Jumps are bounded by [`MAX_JUMPS`].
    pub(super) fn jump(&mut self, cx: &Cx, target: RulePath, plan: &mut Plan, host: &mut dyn Host) {
        if cx.jumps >= MAX_JUMPS {
            return;
        }
        let inner = Cx {
            t: target.0,
            jumps: cx.jumps + 1,
            ..Cx::default()
        };
        let mut child = plan.child();
        if self.render_rule(&inner, &target, &mut child, host).is_ok() {
            plan.absorb(child);
        }
    }

    /// `^frequency(tag, startAfter, repeatEvery, default)`: valid when the tag's timer allows
    /// (minutes; the timer starts the first time the rule is tried: `startAfter` later; a
    /// default of 0 waits for `^activate(tag)`), then again `repeatEvery` later.
    fn frequency(
        &mut self,
        cx: &Cx,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let tag = self.arg(cx, raw, 0, plan, host)?;
        let minutes = |i: usize| -> u64 {
            raw.get(i)
                .and_then(|m| m.trim().parse::<f64>().ok())
                .map_or(0, |m| (m.max(0.0) * 60_000.0) as u64)
        };
        let now = host.now_ms();
        let default_on = raw.get(3).is_none_or(|d| d.trim() != "0");
        let next = *self
            .history
            .frequency
            .entry(tag.clone())
            .or_insert_with(|| default_on.then(|| now.saturating_add(minutes(1))));
        match next {
            Some(at) if now >= at => {
                plan.effects
                    .push(Effect::Frequency(tag, Some(now.saturating_add(minutes(2)))));
                Ok(())
            }
            _ => Err(Invalid),
        }
    }

    /// The focused user's `name`, with this answer's changes.
    fn staged_user_info(&self, name: &str, plan: &Plan) -> Option<String> {
        let staged = plan.effects.iter().rev().find_map(|e| match e {
            Effect::UserInfo(n, v) if n == name => Some(v.clone()),
            _ => None,
        });
        match staged {
            Some(v) => v,
            None => self.user_info(name).map(str::to_string),
        }
    }

    /// The knowledge functions on triples (`?` matches anything).
    fn knowledge(
        &mut self,
        cx: &Cx,
        builtin: Builtin,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let mut triple: [String; 3] = Default::default();
        for (i, slot) in triple.iter_mut().enumerate() {
            *slot = self.arg(cx, raw, i, plan, host)?.to_lowercase();
        }
        let mut store = self.people.knowledge.clone();
        for e in &plan.effects {
            if let Effect::Knowledge(change) = e {
                apply_knowledge(&mut store, change);
            }
        }
        let found = store.iter().find(|k| triple_matches(&triple, k)).cloned();
        match builtin {
            Builtin::AddKnowledge => {
                plan.effects
                    .push(Effect::Knowledge(KnowledgeChange::Add(triple)));
                Ok(())
            }
            Builtin::UpdateKnowledge => {
                let any = [triple[0].clone(), triple[1].clone(), "?".to_string()];
                plan.effects
                    .push(Effect::Knowledge(KnowledgeChange::Remove(any)));
                plan.effects
                    .push(Effect::Knowledge(KnowledgeChange::Add(triple)));
                Ok(())
            }
            Builtin::RemoveKnowledge => {
                plan.effects
                    .push(Effect::Knowledge(KnowledgeChange::Remove(triple)));
                Ok(())
            }
            Builtin::ContainsKnowledge => ok_if(found.is_some()),
            Builtin::NotContainsKnowledge => ok_if(found.is_none()),
            _ => {
                let k = found.ok_or(Invalid)?;
                let pick = (0..3).find(|&i| triple[i] == "?").unwrap_or(2);
                plan.say(&k[pick]);
                Ok(())
            }
        }
    }

    /// A function that is not a builtin: a `def:` of the topic (or of another loaded topic)
    /// called with its arguments; else a notice.
    fn user_function(
        &mut self,
        cx: &Cx,
        f: &Function<OutputNode>,
        raw: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        let own = self.topics.loaded.get(cx.t).into_iter();
        let def = own
            .chain(self.topics.loaded.iter())
            .find_map(|l| l.topic.defs.iter().find(|d| d.name == f.name))
            .cloned();
        let Some(def) = def else {
            plan.act(Action::Notice(format!(
                "^{}: no such function (not in the QiChat syntax, no `def:` of that name)",
                f.name
            )));
            return Ok(());
        };
        let mut values = Vec::new();
        for i in 0..raw.len() {
            values.push(self.arg(cx, raw, i, plan, host)?);
        }
        self.call_def(cx, &def, &values, plan, host)
    }

    /// `def` said with `values` for its parameters.
    pub(super) fn call_def(
        &mut self,
        cx: &Cx,
        def: &Def,
        values: &[String],
        plan: &mut Plan,
        host: &mut dyn Host,
    ) -> Result<(), Invalid> {
        if cx.jumps >= MAX_JUMPS {
            return Err(Invalid);
        }
        let inner = Cx {
            t: cx.t,
            captures: cx.captures.clone(),
            sets: Vec::new(),
            locals: def
                .params
                .iter()
                .cloned()
                .zip(values.iter().cloned())
                .collect(),
            jumps: cx.jumps + 1,
        };
        self.render(&inner, &def.body, plan, host)
    }

    /// The topic's `def:sayDateTime`, `def:sayDate` or `def:sayTime` for a date, a time or
    /// both, if it has it.
    pub(super) fn date_def(&self, t: usize, parts: &DateParts) -> Option<Def> {
        let name = parts.def_name();
        self.topics
            .loaded
            .get(t)?
            .topic
            .defs
            .iter()
            .find(|d| d.name == name)
            .cloned()
    }
}

/// `Ok` if `holds`, else invalid.
fn ok_if(holds: bool) -> Result<(), Invalid> {
    if holds { Ok(()) } else { Err(Invalid) }
}

/// Whether `pattern` (`?` anywhere) matches `triple`.
fn triple_matches(pattern: &[String; 3], triple: &[String; 3]) -> bool {
    pattern.iter().zip(triple).all(|(p, k)| p == "?" || p == k)
}

/// Applies a knowledge change to `store`.
pub(super) fn apply_knowledge(store: &mut Vec<[String; 3]>, change: &KnowledgeChange) {
    match change {
        KnowledgeChange::Add(k) => {
            if !store.contains(k) {
                store.push(k.clone());
            }
        }
        KnowledgeChange::Remove(p) => store.retain(|k| !triple_matches(p, k)),
    }
}

/// What a run says of a function it parses but does not run, and why.
fn unsupported(name: &str, builtin: Builtin) -> String {
    let why = match builtin {
        Builtin::AddWord | Builtin::Replace => "a skin's modification, in an `s:` rule only",
        Builtin::Execute => "QiSDK's Java callbacks",
        _ => "the knowledge base's metadata",
    };
    format!("^{name} is not supported here ({why})")
}
