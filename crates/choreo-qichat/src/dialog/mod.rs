//! The dialog engine: loaded and activated topics, the focus, subrule scope, variables in a
//! [`Host`] (ALMemory on a robot), proposals used once, tags, concepts, jumps, and the
//! robot's answer worked out from a rule's output as ordered [`Step`]s. No robot here:
//! ALDialog on the simulated robot and `choreo chat` drive it. The NAOqi 2.8 QiChat pages
//! (Syntax, Introduction, ALDialog API) are the specification; `docs/qichat.md` lists every
//! keyword with its status.
//!
//! - `select`: which rule answers (levels of priority, `^exact`, `^lessPriority`, recover
//!   sections, `^fallback` topics, learning rules, `^preProcess`/`^postProcess`);
//! - `answer`: a rule's answer made and committed (focus, scope, proposals, `^call`'s
//!   subrules, qiChat's own events such as `Dialog/SpeakFailure`);
//! - `render`: an output worked out into a plan, or found invalid (an unset variable, a
//!   false condition, a deactivated tag, an empty concept): then nothing is said;
//! - `functions`: the rule functions; `concepts`: concepts in outputs and the concept
//!   functions; `skins`: `s:` rules; `clock`: dates and times; `call`: `^call`'s targets.

mod answer;
mod call;
mod clock;
mod concepts;
mod functions;
pub mod listening;
mod render;
mod select;
mod skins;

use std::collections::{HashMap, HashSet};

use crate::ast::{Rule, RuleKind, Topic, TopicProperty};
use crate::error::Span;

pub use call::CallArg;

/// How many jumps (`^goto`, `^nextProposal`, a `def:` call, ...) one answer may make.
const MAX_JUMPS: usize = 16;

/// How long an event counts with words said after it (`u:(e:Touched "light this leg")`)
/// unless `setDelay` says otherwise: the ALDialog API page's default, 2 s.
const DEFAULT_EVENT_VALIDITY_MS: u64 = 2000;

/// The qiChat events the engine raises for its own rules ("only usable in qichat rules, not
/// with ALMemory").
pub const QICHAT_EVENTS: &[&str] = &[
    "Dialog/NotUnderstood",
    "Dialog/NotUnderstood2",
    "Dialog/NotUnderstood3",
    "Dialog/SpeakFailure",
    "Dialog/Fallback",
    "Dialog/SameRule",
    "Dialog/NothingToSay",
    "Dialog/Failure",
    "Dialog/NoOneSpeak5",
    "Dialog/NoOneSpeak10",
    "Dialog/NoOneSpeak15",
    "Dialog/NoOneSpeak20",
    "Dialog/NotSpeaking5",
    "Dialog/NotSpeaking10",
    "Dialog/NotSpeaking15",
    "Dialog/NotSpeaking20",
];

/// What the engine needs from where it runs: ALMemory for `$variables` (a map in `choreo
/// chat`), the clock, NAOqi's services for `^call`, Python for `%script`. A value written
/// must be read back by the same answer (`$a=1 ... $a`).
pub trait Host {
    /// The value of `key`, if it has one.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets `key`; `None` clears it (`^clear`).
    fn set(&mut self, key: &str, value: Option<&str>);
    /// The robot's clock: milliseconds since the Unix epoch (UTC), virtual or real. Event
    /// validity, `^frequency` and the date functions read it.
    fn now_ms(&self) -> u64 {
        0
    }
    /// Calls NAOqi method `service.method(args)` for `^call`/`^sCall`: its result as text
    /// (`None`: it returned nothing), or why it failed.
    fn call(
        &mut self,
        service: &str,
        method: &str,
        args: &[CallArg],
    ) -> Result<Option<String>, HostError> {
        let _ = args;
        Err(HostError::NoRobot {
            service: service.to_string(),
            method: method.to_string(),
        })
    }
    /// Runs a `%script` (Python) and gives what it printed, or why it cannot.
    fn script(&mut self, code: &str) -> Result<String, HostError> {
        let _ = code;
        Err(HostError::NoPython { place: "here" })
    }
}

/// Why a `^call` or a `%script` gave no result. The dialog shows it as a notice and goes on
/// (a failed `^call` answers with its `eN:` subrule).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostError {
    /// Nothing here serves NAOqi's methods.
    #[error("no robot to call {service}.{method}")]
    NoRobot {
        /// The service called.
        service: String,
        /// Its method.
        method: String,
    },
    /// ALDialog called back from its own topic: the QiChat syntax page forbids it.
    #[error(
        "^call cannot call ALDialog back (the QiChat syntax page: \"Do not use ^call to call back the Dialog engine\")"
    )]
    CallBack,
    /// The robot answered the call with an error.
    #[error("{reason}")]
    Failed {
        /// The service called.
        service: String,
        /// Its method.
        method: String,
        /// The robot's error, as it says it.
        reason: String,
    },
    /// Nothing here runs Python.
    #[error("no Python to run %script {place}")]
    NoPython {
        /// Where (`here`, `in this simulated robot`).
        place: &'static str,
    },
    /// The script raised an exception.
    #[error("%script: {exception}")]
    Raised {
        /// The exception, as Python prints it (`ValueError: no`).
        exception: String,
    },
}

impl Host for HashMap<String, String> {
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
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// An ALAnimatedSpeech instruction in the speech, at its place: `^start(x)`, `^run(x)`,
    /// `^stop(x)`, `^wait(x)`, their `Tag` and `Sound` forms, `^mode(x)`. `function` is
    /// the name without `^` (`start`), `arg` the text in parentheses.
    Animated {
        /// `start`, `runTag`, `waitSound`, `mode`, ...
        function: String,
        /// What it starts, stops or waits for.
        arg: String,
    },
    /// `^play(sound)`: a sound through ALAudioDevice.
    Play(String),
    /// `^switchFocus(app/behavior)`: the dialog stops and the behavior runs.
    SwitchFocus(String),
    /// `^pCall(Service.method(args))`: called without waiting, its result unused.
    Call {
        /// The service.
        service: String,
        /// The method.
        method: String,
        /// The arguments.
        args: Vec<CallArg>,
    },
    /// `^endDiscuss(reason)` (QiSDK): the conversation ends.
    EndDiscuss(String),
    /// Something the engine cannot do here, said where it is (a web page, `%script` with no
    /// Python, an unknown function).
    Notice(String),
}

/// One thing the robot does for an answer, in the order the output says them: a robot
/// speaks up to a `^start`, starts the behavior, goes on speaking, and sets `$var` when its
/// speech gets there.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Say these words.
    Say(String),
    /// Do this.
    Do(Action),
    /// Memory `key` (a `$variable`'s, see [`Dialog::set_variable_path`]) gets `value`;
    /// `None`: cleared.
    Set {
        /// The memory key.
        key: String,
        /// The new value.
        value: Option<String>,
    },
}

/// The robot's answer to an input, an event or a proposal.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The topic of the rule that answered.
    pub topic: String,
    /// Where that rule is (the last one, after jumps).
    pub rule: Span,
    /// Everything the robot says (words joined by single spaces).
    pub text: String,
    /// What it says and does, in order.
    pub steps: Vec<Step>,
    /// The qiChat event this answer answers in place of what was heard
    /// (`Dialog/NotUnderstood`: no rule matched the input; `Dialog/SpeakFailure`: the rule
    /// that matched had nothing valid to say).
    pub via: Option<&'static str>,
    /// A rule matched but had nothing valid to say, and no rule answered
    /// `Dialog/SpeakFailure`: the robot says nothing.
    pub failed: bool,
    /// The tags of what is said (`%tag` in the outputs), in order: `Dialog/Tag`'s values.
    pub tags: Vec<String>,
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

    /// Whether the input was understood: a rule matched it (even one with nothing to say).
    pub fn understood(&self) -> bool {
        !matches!(
            self.via,
            Some("Dialog/NotUnderstood" | "Dialog/NotUnderstood2" | "Dialog/NotUnderstood3")
        )
    }
}

/// A loaded topic and what the conversation did to it.
#[derive(Debug, Default)]
struct Loaded {
    topic: Topic,
    /// Its QiChat language code (`enu`), if it says one.
    lang: Option<String>,
    /// Tags deactivated (`^deactivate`, `ALDialog.deactivateTag`).
    tags_off: HashSet<String>,
    /// `$name` and `e:name` read from another memory key (`setVariablePath`).
    paths: HashMap<String, String>,
    /// Proposals said, in order (`^sameProposal`, `^previousProposal`).
    said: Vec<Vec<usize>>,
}

/// Where a rule is: its topic and the path of indices from the topic's rules down.
type RulePath = (usize, Vec<usize>);

/// The conversation state over loaded topics.
#[derive(Debug, Default)]
pub struct Dialog {
    /// The topics loaded, which are active, and where the conversation is.
    topics: Topics,
    /// The language topics answer in (a QiChat code); `None`: any.
    language: Option<String>,
    /// Dynamic concepts, global as the 2.8 page says `setConcept` makes them.
    dynamic: HashMap<String, Vec<String>>,
    /// What the dialog said so far: how far each choice went, the proposals used, the
    /// frequency tags, the last rule, what was not understood, answers held.
    history: History,
    /// The users (`openSession`, `^setUserInfo`) and the knowledge triples (`^addKnowledge`).
    people: People,
    /// Events raised (by key, with when) and how long each stays valid.
    events: Events,
    rng: u64,
}

/// The topics loaded, which are active, and where the conversation is; it finds what a
/// topic holds (a rule by its path, tagged rules, a name's memory key).
#[derive(Debug, Default)]
struct Topics {
    loaded: Vec<Loaded>,
    /// Active topics (indices), in activation order.
    active: Vec<usize>,
    focus: Option<usize>,
    /// The rule whose subrules answer first.
    scope: Option<RulePath>,
}

impl Topics {
    /// Every loaded topic named `name`, whatever its language.
    fn all_named(&self, name: &str) -> Vec<usize> {
        (0..self.loaded.len())
            .filter(|&i| self.loaded[i].topic.name == name && !name.is_empty())
            .collect()
    }

    /// The memory key of `$name` or `e:name` in topic `t`.
    fn key(&self, t: usize, name: &str) -> String {
        self.loaded
            .get(t)
            .and_then(|l| l.paths.get(name))
            .map_or_else(|| name.to_string(), Clone::clone)
    }

    /// What topic `t` calls the event of memory key `key`: the name bound to it, else the
    /// key itself unless the topic binds that name to another key.
    fn local_event(&self, t: usize, key: &str) -> Option<String> {
        let paths = &self.loaded.get(t)?.paths;
        if let Some((name, _)) = paths.iter().find(|(_, k)| *k == key) {
            return Some(name.clone());
        }
        (!paths.contains_key(key)).then(|| key.to_string())
    }

    /// The rule at `path` (an index per level) in topic `t`.
    fn rule(&self, t: usize, path: &[usize]) -> Option<&Rule> {
        let (first, rest) = path.split_first()?;
        let mut rule = self.loaded.get(t)?.topic.rules.get(*first)?;
        for k in rest {
            rule = rule.subrules.get(*k)?;
        }
        Some(rule)
    }

    /// Whether every tag of `tags` is active in topic `t`.
    fn tags_on(&self, t: usize, tags: &[&str]) -> bool {
        self.loaded
            .get(t)
            .is_some_and(|l| tags.iter().all(|tag| !l.tags_off.contains(*tag)))
    }

    /// Every top-level rule of topic `t` marked `%tag`, in file order.
    fn tagged(&self, t: usize, tag: &str) -> Vec<RulePath> {
        let Some(loaded) = self.loaded.get(t) else {
            return Vec::new();
        };
        loaded
            .topic
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tag.as_deref() == Some(tag) || r.bookmarks().contains(&tag))
            .map(|(k, _)| (t, vec![k]))
            .collect()
    }
}

/// What the dialog said so far: how far each choice went, the proposals used, the
/// frequency tags, the last rule, what was not understood, answers held.
#[derive(Debug, Default)]
struct History {
    /// How far each output choice, concept or `^enumerate` (by topic and place) went.
    counters: HashMap<(usize, Span), usize>,
    /// Proposals said (and not reactivated since).
    used: HashSet<RulePath>,
    /// `^frequency` tags: when each may answer again (ms), `None` while off.
    frequency: HashMap<String, Option<u64>>,
    /// The rule that answered last (`Dialog/SameRule`).
    last_rule: Option<RulePath>,
    /// Inputs not understood in a row (`Dialog/NotUnderstood2`, `3`, `Dialog/Failure`).
    misunderstood: u32,
    /// Answers a `^preProcess`/`^postProcess` topic gave to events, waiting for the next
    /// input's answer.
    held: Vec<(TopicProperty, Answer)>,
}

/// The users (`openSession`, `^setUserInfo`) and the knowledge triples (`^addKnowledge`).
#[derive(Debug, Default)]
struct People {
    /// The focused user (`openSession`) and every user's data (`^setUserInfo`).
    user: i64,
    users: HashMap<i64, HashMap<String, String>>,
    /// Knowledge triples (`^addKnowledge`), in order.
    knowledge: Vec<[String; 3]>,
}

/// Events raised (by key, with when) and how long each stays valid.
#[derive(Debug, Default)]
struct Events {
    /// Events raised, by memory key, with when (ms).
    recent: HashMap<String, u64>,
    /// Event validity set by `setDelay` (ms; `None`: forever).
    delays: HashMap<String, Option<u64>>,
}

impl Dialog {
    /// An empty dialog whose `^rand` follows `seed`.
    pub fn new(seed: u64) -> Dialog {
        Dialog {
            rng: seed.max(1),
            ..Dialog::default()
        }
    }

    /// `^rand` and random outputs follow `seed` from now on (a new run's).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = seed.max(1);
    }

    /// Loads `topic` (not active yet), replacing a topic of the same name and language;
    /// its name.
    pub fn load(&mut self, topic: Topic) -> String {
        let name = topic.name.clone();
        let lang = topic.language.as_ref().map(|l| l.qichat_code().to_string());
        let loaded = Loaded {
            topic,
            lang,
            ..Loaded::default()
        };
        let same = self
            .topics
            .loaded
            .iter()
            .position(|t| t.topic.name == name && t.lang == loaded.lang && !name.is_empty());
        match same {
            Some(i) => {
                self.forget(i);
                self.topics.loaded[i] = loaded;
            }
            None => self.topics.loaded.push(loaded),
        }
        name
    }

    /// Unloads topic `name` in every language (the ALDialog API page: `unloadTopic`
    /// "unloads both the French and English" topic of that name); false if none is loaded.
    pub fn unload(&mut self, name: &str) -> bool {
        let all: Vec<usize> = (0..self.topics.loaded.len())
            .filter(|&i| self.topics.loaded[i].topic.name == name && !name.is_empty())
            .collect();
        for &i in &all {
            self.forget(i);
            self.topics.loaded[i] = Loaded::default();
        }
        !all.is_empty()
    }

    /// Sets the language topics answer in (a QiChat code or a NAOqi name: `enu`,
    /// `English`); `None`: topics answer whatever their language.
    pub fn set_language(&mut self, language: Option<&str>) {
        self.language = language.map(|l| {
            choreo_robot::languages::by_name(l).map_or_else(|| l.to_string(), |x| x.code.into())
        });
        if self.topics.focus.is_some_and(|f| !self.speaks(f)) {
            self.topics.focus = self.topics.active.iter().copied().find(|&a| self.speaks(a));
            self.topics.scope = None;
        }
    }

    /// The names of the topics loaded in `language` (a code or a name; `None`: all).
    pub fn loaded(&self, language: Option<&str>) -> Vec<String> {
        let code = language.map(|l| {
            choreo_robot::languages::by_name(l).map_or_else(|| l.to_string(), |x| x.code.into())
        });
        self.topics
            .loaded
            .iter()
            .filter(|t| !t.topic.name.is_empty())
            .filter(|t| code.is_none() || t.lang.is_none() || t.lang == code)
            .map(|t| t.topic.name.clone())
            .collect()
    }

    /// The names of the active topics in the dialog's language, in activation order.
    pub fn activated(&self) -> Vec<String> {
        self.topics
            .active
            .iter()
            .filter(|&&a| self.speaks(a))
            .map(|&a| self.topics.loaded[a].topic.name.clone())
            .collect()
    }

    /// In topic `topic`, `$name` and `e:name` are memory key `key` (`ALDialog
    /// .setVariablePath`): the stock Dialog box gives its inputs and outputs (`e:onStart`,
    /// `$onStopped=1`) keys of its own, so two boxes never mix. False if the topic is not
    /// loaded.
    pub fn set_variable_path(&mut self, topic: &str, name: &str, key: &str) -> bool {
        let all = self.topics.all_named(topic);
        for &i in &all {
            self.topics.loaded[i]
                .paths
                .insert(name.to_string(), key.to_string());
        }
        !all.is_empty()
    }

    /// Activates topic `name` (in the dialog's language when several are loaded); false if
    /// it is not loaded.
    pub fn activate(&mut self, name: &str) -> bool {
        let all = self.topics.all_named(name);
        for &i in &all {
            if !self.topics.active.contains(&i) {
                self.topics.active.push(i);
            }
        }
        if self.topics.focus.is_none() {
            self.topics.focus = self.topics.active.iter().copied().find(|&a| self.speaks(a));
        }
        !all.is_empty()
    }

    /// Deactivates topic `name` (it keeps its state); false if it is not loaded.
    pub fn deactivate(&mut self, name: &str) -> bool {
        let all = self.topics.all_named(name);
        for &i in &all {
            self.topics.active.retain(|a| *a != i);
            if self.topics.focus == Some(i) {
                self.topics.focus = self.topics.active.iter().copied().find(|&a| self.speaks(a));
            }
            if self.topics.scope.as_ref().is_some_and(|(t, _)| *t == i) {
                self.topics.scope = None;
            }
        }
        !all.is_empty()
    }

    /// Gives the focus to topic `name` (`ALDialog.setFocus`); false if it is not active.
    pub fn set_focus(&mut self, name: &str) -> bool {
        match self.index(name) {
            Some(i) if self.topics.active.contains(&i) => {
                if self.topics.focus != Some(i) {
                    self.give_focus(i);
                    self.topics.scope = None;
                }
                true
            }
            _ => false,
        }
    }

    /// Whether a scope is open (the subrules of the rule that answered last answer first):
    /// `Dialog/Scope`.
    pub fn in_scope(&self) -> bool {
        self.topics.scope.is_some()
    }

    /// The topic in focus.
    pub fn focus(&self) -> Option<&str> {
        self.topics
            .focus
            .and_then(|i| self.topics.loaded.get(i))
            .map(|t| t.topic.name.as_str())
    }

    /// The description of the topic in focus (`description:`), what
    /// `Dialog/FocusDescription` holds.
    pub fn focus_description(&self) -> Option<&str> {
        self.topics
            .focus
            .and_then(|i| self.topics.loaded.get(i))
            .and_then(|t| t.topic.description.as_deref())
    }

    /// Activates (`on`) or deactivates tag `tag` of topic `topic` (`ALDialog.activateTag`,
    /// `deactivateTag`); false if the topic is not loaded.
    pub fn set_tag(&mut self, topic: &str, tag: &str, on: bool) -> bool {
        let all = self.topics.all_named(topic);
        for &i in &all {
            if on {
                self.topics.loaded[i].tags_off.remove(tag);
            } else {
                self.topics.loaded[i].tags_off.insert(tag.to_string());
            }
        }
        !all.is_empty()
    }

    /// The memory keys whose events an `e:` rule (or a pattern's `e:`) of an active topic
    /// answers.
    pub fn events(&self) -> Vec<String> {
        let mut out = Vec::new();
        for &t in &self.topics.active {
            let Some(loaded) = self.topics.loaded.get(t) else {
                continue;
            };
            for rule in loaded.topic.all_rules() {
                for e in pattern_events(rule) {
                    let key = self.topics.key(t, e);
                    if !out.contains(&key) {
                        out.push(key);
                    }
                }
            }
        }
        out
    }

    /// Sets dynamic concept `name` (`ALDialog.setConcept`): its content replaced.
    pub fn set_concept(&mut self, name: &str, phrases: Vec<String>) {
        self.dynamic.insert(name.to_string(), phrases);
    }

    /// Adds phrases to dynamic concept `name` (`ALDialog.addToConcept`): the API page's
    /// example shows them before those it had.
    pub fn add_to_concept(&mut self, name: &str, mut phrases: Vec<String>) {
        let before = self.dynamic.remove(name).unwrap_or_default();
        phrases.extend(before);
        self.dynamic.insert(name.to_string(), phrases);
    }

    /// The content of dynamic concept `name` (`ALDialog.getConcept`), if it was set.
    pub fn concept(&self, name: &str) -> Option<&[String]> {
        self.dynamic.get(name).map(Vec::as_slice)
    }

    /// Empties every dynamic concept (`ALDialog.clearConcepts`).
    pub fn clear_concepts(&mut self) {
        self.dynamic.clear();
    }

    /// Every proposal available again and no scope open (`ALDialog.resetAll`).
    pub fn reset_all(&mut self) {
        self.history.used.clear();
        self.topics.scope = None;
    }

    /// How long an event counts with words said after it (`ALDialog.setDelay`, in ms;
    /// negative: forever).
    pub fn set_delay(&mut self, event: &str, ms: i64) {
        self.events
            .delays
            .insert(event.to_string(), u64::try_from(ms).ok());
    }

    /// How long event `key` stays valid (ms): `setDelay`'s, else 2 s; `None`: forever.
    pub fn event_validity(&self, key: &str) -> Option<u64> {
        self.events
            .delays
            .get(key)
            .copied()
            .unwrap_or(Some(DEFAULT_EVENT_VALIDITY_MS))
    }

    /// The focused user (`ALDialog.openSession(id)`; 0 when none is).
    pub fn set_user(&mut self, id: i64) {
        self.people.user = id;
    }

    /// User `id`'s `name` (`ALDialog.getUserData`).
    pub fn user_data(&self, id: i64, name: &str) -> Option<&str> {
        self.people.users.get(&id)?.get(name).map(String::as_str)
    }

    /// Sets user `id`'s `name` (`ALDialog.insertUserData`).
    pub fn insert_user_data(&mut self, id: i64, name: &str, value: &str) {
        self.people
            .users
            .entry(id)
            .or_default()
            .insert(name.to_string(), value.to_string());
    }

    /// The names of user `id`'s data (`ALDialog.getUserDataList`), sorted.
    pub fn user_data_names(&self, id: i64) -> Vec<String> {
        let mut names: Vec<String> = self
            .people
            .users
            .get(&id)
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Forgets user `id`'s data (`ALDialog.removeUserData`).
    pub fn remove_user_data(&mut self, id: i64) {
        self.people.users.remove(&id);
    }

    /// The users with data (`ALDialog.getUserList`).
    pub fn users(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .people
            .users
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The answer to what the human said: the rule that matches it, or the rule answering
    /// `Dialog/NotUnderstood` when none does; `None` when neither exists.
    pub fn input(&mut self, said: &str, host: &mut dyn Host) -> Option<Answer> {
        host.set("Dialog/LastInput", Some(said));
        let answer = self.hear_input(said, host);
        if let Some(a) = &answer
            && !a.text.is_empty()
        {
            host.set("Dialog/Answered", Some(&a.text));
        }
        answer
    }

    /// The answer to event `key` (an ALMemory key, or one of [`QICHAT_EVENTS`]): an `e:`
    /// rule or a rule whose pattern has `e:key`, if any.
    pub fn event(&mut self, key: &str, host: &mut dyn Host) -> Option<Answer> {
        if !QICHAT_EVENTS.contains(&key) {
            self.events.recent.insert(key.to_string(), host.now_ms());
        }
        self.hear_event(key, host)
    }

    /// The next proposal of the topic in focus (`ALDialog.forceOutput`), if it has one not
    /// used yet.
    pub fn propose(&mut self, host: &mut dyn Host) -> Option<Answer> {
        let t = self.topics.focus?;
        self.say_proposal(t, host)
    }

    /// Gives topic `topic` the focus and says its first proposal not used yet
    /// (`ALDialog.gotoTopic`); `None` when the topic is not active or has none.
    pub fn goto_topic(&mut self, topic: &str, host: &mut dyn Host) -> Option<Answer> {
        let t = self
            .index(topic)
            .filter(|t| self.topics.active.contains(t))?;
        self.give_focus(t);
        self.topics.scope = None;
        self.say_proposal(t, host)
    }

    /// Goes to the rule of topic `topic` marked `%tag` (`ALDialog.gotoTag`): the topic
    /// gets the focus, the rule is said (reactivated if it was a used proposal); `None` if
    /// there is no such tag.
    pub fn goto_tag(&mut self, topic: &str, tag: &str, host: &mut dyn Host) -> Option<Answer> {
        let t = self.index(topic)?;
        let target = self.topics.tagged(t, tag).into_iter().next()?;
        self.history.used.remove(&target);
        self.give_focus(t);
        Some(self.answer(target, &crate::matcher::Match::default(), None, host))
    }

    // ------------------------------------------------------------------------------------
    // Small helpers shared by the parts

    /// The topic named `name`: the one in the dialog's language, else any.
    fn index(&self, name: &str) -> Option<usize> {
        let named = |i: &usize| self.topics.loaded[*i].topic.name == name && !name.is_empty();
        (0..self.topics.loaded.len())
            .filter(named)
            .find(|&i| self.speaks(i))
            .or_else(|| (0..self.topics.loaded.len()).find(named))
    }

    /// Whether topic `t` answers in the dialog's language.
    fn speaks(&self, t: usize) -> bool {
        match (
            &self.language,
            self.topics.loaded.get(t).and_then(|l| l.lang.as_ref()),
        ) {
            (Some(dialog), Some(topic)) => dialog == topic,
            _ => true,
        }
    }

    /// Topic `t` gets the focus; a `^resetOnFocus` topic with every proposal used gets them
    /// all back.
    fn give_focus(&mut self, t: usize) {
        let changed = self.topics.focus != Some(t);
        self.topics.focus = Some(t);
        let Some(loaded) = self.topics.loaded.get(t) else {
            return;
        };
        if changed && loaded.topic.has(TopicProperty::ResetOnFocus) {
            let proposals: Vec<RulePath> = loaded
                .topic
                .rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.kind == RuleKind::Proposal)
                .map(|(k, _)| (t, vec![k]))
                .collect();
            if !proposals.is_empty() && proposals.iter().all(|p| self.history.used.contains(p)) {
                self.history.used.retain(|(x, _)| *x != t);
            }
        }
    }

    /// Topic `t` was replaced or unloaded: what was kept about it goes.
    fn forget(&mut self, i: usize) {
        self.topics.active.retain(|a| *a != i);
        if self.topics.focus == Some(i) {
            self.topics.focus = self.topics.active.first().copied();
        }
        if self.topics.scope.as_ref().is_some_and(|(t, _)| *t == i) {
            self.topics.scope = None;
        }
        if self
            .history
            .last_rule
            .as_ref()
            .is_some_and(|(t, _)| *t == i)
        {
            self.history.last_rule = None;
        }
        self.history.counters.retain(|(t, _), _| *t != i);
        self.history.used.retain(|(t, _)| *t != i);
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

/// The events a rule's pattern names (`e:Name` anywhere in it), in order.
fn pattern_events(rule: &Rule) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack: Vec<&crate::ast::PatternNode> = rule.pattern.iter().rev().collect();
    while let Some(n) = stack.pop() {
        use crate::ast::PatternKind as K;
        match &n.kind {
            K::Event(e) => out.push(e.as_str()),
            K::Phrase(items) | K::Choice(items) | K::Optional(items) => {
                stack.extend(items.iter().rev())
            }
            K::Capture(inner) | K::Not(inner) => stack.push(inner),
            _ => {}
        }
    }
    out
}
