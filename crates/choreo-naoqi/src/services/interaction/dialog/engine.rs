//! The QiChat engine of the simulated ALDialog, and what runs it: the engine lives outside
//! the services' state lock because `^call` calls other services in the middle of an
//! answer. What is heard while the engine is busy (an event a `^call` raises, an input from
//! another thread) waits in a queue that the thread holding the engine empties before it
//! lets go: no thread ever blocks on another's answer.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use choreo_base::lock;
use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_qichat::dialog::listening::RuleAt;
use choreo_qichat::dialog::{Action, Answer, CallArg, Dialog, Host, HostError, Step};

use super::fallback::fallback;
use super::silence;
use super::state::Dialog as DialogState;
use super::state::NAME;
use crate::robot::core::Sim;

/// How long an answer waits for the answers before it to be performed.
const MAX_TURN_WAIT: Duration = Duration::from_secs(600);

/// The engine and the work waiting for it.
pub(crate) struct Engine {
    dialog: Mutex<Dialog>,
    pending: Mutex<VecDeque<Job>>,
    /// What runs `%script` blocks (Python), when the layer that builds runs gave one.
    scripts: RwLock<Option<DialogScripts>>,
    /// The rules that answered so far: dialog coverage (`choreo explore`).
    matched: Mutex<BTreeSet<RuleAt>>,
    /// Every user rule of every topic loaded so far (one unloaded since counts: a Dialog
    /// box unloads its topic when its behavior stops).
    loaded: Mutex<BTreeSet<RuleAt>>,
}

/// Runs a QiChat `%script` block: what it printed, or why it failed. The simulated robot has
/// no Python of its own; the layer that builds runs gives one
/// ([`crate::SimRobot::set_dialog_scripts`]).
pub type DialogScripts = Arc<dyn Fn(&str) -> Result<String, HostError> + Send + Sync>;

/// Something heard, waiting for the engine.
pub(crate) enum Job {
    /// What the human said (`forceInput`, the speech recognition).
    Input(String),
    /// A memory event one of the active topics answers.
    Event(String),
}

impl Default for Engine {
    /// An engine in English, a robot's default language.
    fn default() -> Engine {
        let mut dialog = Dialog::new(1);
        dialog.set_language(Some("English"));
        Engine {
            dialog: Mutex::new(dialog),
            pending: Mutex::new(VecDeque::new()),
            scripts: RwLock::new(None),
            matched: Mutex::new(BTreeSet::new()),
            loaded: Mutex::new(BTreeSet::new()),
        }
    }
}

impl Engine {
    /// The engine, for an API call (waits for an answer being made on another thread).
    pub(crate) fn get(&self) -> MutexGuard<'_, Dialog> {
        lock(&self.dialog)
    }

    /// The engine if no thread holds it now.
    pub(crate) fn try_get(&self) -> Option<MutexGuard<'_, Dialog>> {
        match self.dialog.try_lock() {
            Ok(d) => Some(d),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// A new run's seed: `^rand` and random outputs follow it from now on.
    pub(crate) fn reseed(&self, seed: u64) {
        lock(&self.dialog).reseed(seed);
    }

    /// The rules that answered so far.
    pub(crate) fn matched(&self) -> BTreeSet<RuleAt> {
        lock(&self.matched).clone()
    }

    /// Keeps `rules` (those of the topics loaded now) among the rules loaded so far.
    pub(crate) fn saw(&self, rules: Vec<RuleAt>) {
        lock(&self.loaded).extend(rules);
    }

    /// Every user rule of every topic loaded so far.
    pub(crate) fn loaded_rules(&self) -> BTreeSet<RuleAt> {
        lock(&self.loaded).clone()
    }

    /// Sets what runs `%script` blocks.
    pub(crate) fn set_scripts(&self, scripts: Option<DialogScripts>) {
        *self.scripts.write().unwrap_or_else(PoisonError::into_inner) = scripts;
    }
}

/// Queues `job` and runs what waits, unless another thread holds the engine (it will).
pub(crate) fn submit(sim: &Sim, job: Job) {
    lock(&sim.extension::<Engine>().pending).push_back(job);
    drain(sim);
}

/// A silence event (`silence.rs`) reaches the dialog, answered as a memory event.
pub(crate) fn raise_silence(sim: &Sim, name: &'static str) {
    submit(sim, Job::Event(name.to_string()));
}

/// Runs the jobs waiting, one at a time, while this thread can hold the engine.
fn drain(sim: &Sim) {
    loop {
        let engine = match sim.extension::<Engine>().dialog.try_lock() {
            Ok(e) => e,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        let job = lock(&sim.extension::<Engine>().pending).pop_front();
        let Some(job) = job else {
            drop(engine);
            // A job queued between the look and the unlock is run by this loop.
            if lock(&sim.extension::<Engine>().pending).is_empty() {
                return;
            }
            continue;
        };
        run(sim, engine, job);
    }
}

/// One job: the engine's answer, then (the engine let go) the answer's events and its
/// performance.
fn run(sim: &Sim, mut engine: MutexGuard<'_, Dialog>, job: Job) {
    let mut host = Keys::new(sim);
    let focus = engine.focus().map(str::to_string);
    let scope = engine.in_scope();
    match job {
        Job::Input(said) => {
            sim.insert("Dialog/CurrentString", Value::from(said.as_str()));
            let answer = engine.input(&said, &mut host);
            let push = sim.state().part::<DialogState>().push;
            let proposal = match &answer {
                Some(a) if push && a.understood() && !a.failed => engine.propose(&mut host),
                _ => None,
            };
            let moved = focus_moved(&engine, focus);
            let scoped = (engine.in_scope() != scope).then(|| engine.in_scope());
            drop(engine);
            raise_focus(sim, moved);
            raise_scope(sim, scoped);
            let understood = answer.as_ref().is_some_and(Answer::understood);
            match &answer {
                Some(a) if understood => {
                    // The ALDialog API page's data about the match.
                    sim.insert("Dialog/MatchedTopic", Value::from(a.topic.as_str()));
                    sim.insert("Dialog/MatchedLine", Value::Int(i64::from(a.rule.line)));
                    sim.insert("Dialog/MatchedInput", Value::from(said.as_str()));
                }
                _ => {
                    sim.raise("Dialog/NotUnderstood", Value::from(said.as_str()));
                    sim.raise("Dialog/SaidMisunderstood", Value::from(said.as_str()));
                    if answer.is_some() {
                        sim.raise("Dialog/NotUnderstoodEvent", Value::None);
                    }
                }
            }
            let fallback = if understood {
                None
            } else {
                fallback(sim, &said)
            };
            match (answer, fallback) {
                (_, Some(text)) => say(sim, text),
                (Some(a), None) => answered(sim, a),
                (None, None) => {}
            }
            if let Some(p) = proposal {
                answered(sim, p);
            }
        }
        Job::Event(key) => {
            let answer = engine.event(&key, &mut host);
            let validity = engine.event_validity(&key);
            let moved = focus_moved(&engine, focus);
            let scoped = (engine.in_scope() != scope).then(|| engine.in_scope());
            drop(engine);
            raise_focus(sim, moved);
            raise_scope(sim, scoped);
            let Some(a) = answer else {
                return;
            };
            if sim.state().part::<DialogState>().blocking.contains(&key) {
                // A blocking event interrupts the robot's speech and is answered at once.
                for service in ["ALAnimatedSpeech", "ALTextToSpeech"] {
                    if let Err(e) = sim.call(service, "stopAll", Vec::new()) {
                        sim.notice(NAME, format!("cannot interrupt the speech: {e}"));
                    }
                }
                raise_answered(sim, &a);
                perform(sim, a.steps, Turn::Now);
            } else {
                // Answered when the answers before it are said, if the event is still valid
                // then ("the event ... will time out, the robot will not react").
                let deadline =
                    validity.map(|ms| sim.now().0.saturating_add(ms.saturating_mul(1_000_000)));
                raise_answered(sim, &a);
                perform(
                    sim,
                    a.steps,
                    Turn::Queued {
                        deadline: deadline.map(Time),
                        key: Some(key),
                    },
                );
            }
        }
    }
}

/// The topic in focus and its description, if the focus moved from `before`.
pub(crate) fn focus_moved(engine: &Dialog, before: Option<String>) -> Option<(String, String)> {
    let now = engine.focus()?;
    (before.as_deref() != Some(now)).then(|| {
        (
            now.to_string(),
            engine.focus_description().unwrap_or_default().to_string(),
        )
    })
}

/// `Dialog/Scope`: 1 when a scope opened, 0 when it closed.
fn raise_scope(sim: &Sim, changed: Option<bool>) {
    if let Some(open) = changed {
        sim.raise("Dialog/Scope", Value::Int(i64::from(open)));
    }
}

/// `Dialog/Focus` and `Dialog/FocusDescription`, when the focus moved ("Raised when the
/// dialog engine changes the currently focused topic").
pub(crate) fn raise_focus(sim: &Sim, moved: Option<(String, String)>) {
    if let Some((topic, description)) = moved {
        sim.raise("Dialog/Focus", Value::from(topic.as_str()));
        sim.raise("Dialog/FocusDescription", Value::from(description.as_str()));
    }
}

/// ALMemory as the engine sees it: the stored keys, and what the answer being made wrote
/// (written to memory later, in order, when the answer is performed); the clock; NAOqi's
/// services for `^call`.
pub(crate) struct Keys<'a> {
    sim: &'a Sim,
    written: HashMap<String, Option<String>>,
}

impl<'a> Keys<'a> {
    pub(crate) fn new(sim: &'a Sim) -> Keys<'a> {
        Keys {
            sim,
            written: HashMap::new(),
        }
    }
}

impl Host for Keys<'_> {
    fn get(&self, key: &str) -> Option<String> {
        match self.written.get(key) {
            Some(v) => v.clone(),
            None => self.sim.memory.get(key).and_then(|v| text(&v)),
        }
    }
    fn set(&mut self, key: &str, value: Option<&str>) {
        self.written
            .insert(key.to_string(), value.map(str::to_string));
    }
    /// The run's wall clock: its start time plus behavior time (a fixed date in virtual
    /// time unless told otherwise, see `choreo_engine::Options::start_time`).
    fn now_ms(&self) -> u64 {
        self.sim.time().map_or(0, |time| time.wall_ms())
    }
    fn call(
        &mut self,
        service: &str,
        method: &str,
        args: &[CallArg],
    ) -> Result<Option<String>, HostError> {
        dialog_call(self.sim, service, method, args)
    }
    fn script(&mut self, code: &str) -> Result<String, HostError> {
        let scripts = self
            .sim
            .extension::<Engine>()
            .scripts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match scripts {
            Some(run) => run(code),
            None => Err(HostError::NoPython {
                place: "in this simulated robot",
            }),
        }
    }
}

/// `^call(service.method(args))` on the simulated robot: the result as QiChat text. ALDialog
/// itself is refused (the QiChat syntax page: "Do not use ^call to call back the Dialog
/// engine"): its engine is the one answering.
pub(crate) fn dialog_call(
    sim: &Sim,
    service: &str,
    method: &str,
    args: &[CallArg],
) -> Result<Option<String>, HostError> {
    if service == NAME {
        return Err(HostError::CallBack);
    }
    let values = args.iter().map(value_of).collect();
    sim.call(service, method, values)
        .map(|v| text(&v))
        .map_err(|e| HostError::Failed {
            service: service.to_string(),
            method: method.to_string(),
            reason: e.to_string(),
        })
}

/// A `^call` argument as the service gets it.
fn value_of(arg: &CallArg) -> Value {
    match arg {
        CallArg::Str(s) => Value::from(s.as_str()),
        CallArg::Int(i) => Value::Int(*i),
        CallArg::Float(f) => Value::Float(*f),
        CallArg::Bool(b) => Value::Bool(*b),
    }
}

/// A memory value or a method's result as QiChat text (numbers as written, booleans as
/// 1/0, a list's items joined by spaces); `None` for nothing, maps and bytes.
pub(crate) fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
        Value::List(items) => {
            let words: Vec<String> = items.iter().filter_map(text).collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        _ => None,
    }
}

/// The robot answers: `Dialog/Answered`, then the answer performed after those before it.
pub(crate) fn answered(sim: &Sim, a: Answer) {
    raise_answered(sim, &a);
    perform(
        sim,
        a.steps,
        Turn::Queued {
            deadline: None,
            key: None,
        },
    );
}

/// `Dialog/Answered` and `Dialog/LastAnswer`, when the answer says something; `Dialog/Tag`
/// for each tag it says.
fn raise_answered(sim: &Sim, a: &Answer) {
    lock(&sim.extension::<Engine>().matched).insert(RuleAt {
        topic: a.topic.clone(),
        line: a.rule.line,
    });
    if !a.text.is_empty() {
        sim.raise("Dialog/Answered", Value::from(a.text.as_str()));
        sim.raise("Dialog/LastAnswer", Value::from(a.text.as_str()));
    }
    for tag in &a.tags {
        sim.raise("Dialog/Tag", Value::from(tag.as_str()));
    }
}

/// The robot says `text` (a fallback service's answer).
fn say(sim: &Sim, text: String) {
    sim.raise("Dialog/Answered", Value::from(text.as_str()));
    perform(
        sim,
        vec![Step::Say(text)],
        Turn::Queued {
            deadline: None,
            key: None,
        },
    );
}

/// When an answer is performed.
enum Turn {
    /// After the answers before it; an event's answer not started by `deadline` is dropped.
    Queued {
        deadline: Option<Time>,
        key: Option<String>,
    },
    /// At once (a blocking event's).
    Now,
}

/// Performs `steps` on a background activity, when `turn` says.
fn perform(sim: &Sim, steps: Vec<Step>, turn: Turn) {
    let (Some(me), Ok(time)) = (sim.arc(), sim.time()) else {
        return;
    };
    let clock = std::sync::Arc::clone(&time);
    let spawned = match turn {
        Turn::Now => time.spawn("ALDialog answer", move || run_steps(&me, steps)),
        Turn::Queued { deadline, key } => {
            let ticket = {
                let mut state = sim.state();
                state.part::<DialogState>().tickets += 1;
                state.part::<DialogState>().tickets - 1
            };
            time.spawn("ALDialog answer", move || {
                let limit = clock
                    .now()
                    .0
                    .saturating_add(MAX_TURN_WAIT.as_nanos() as u64);
                while me.state().part::<DialogState>().turn < ticket && clock.now().0 < limit {
                    clock.sleep(Duration::from_millis(20));
                }
                match (deadline, key) {
                    (Some(d), Some(key)) if clock.now() > d => me.notice(
                        NAME,
                        format!("{key} timed out while the robot spoke: not answered (setDelay)"),
                    ),
                    _ => run_steps(&me, steps),
                }
                me.state().part::<DialogState>().turn += 1;
            })
        }
    };
    if let Err(e) = spawned {
        sim.state().part::<DialogState>().turn += 1;
        sim.notice(NAME, format!("cannot perform an answer: {e}"));
    }
}

/// Says and does `steps` in order: words and the animated-speech instructions through
/// ALAnimatedSpeech, each `$v=x` once the words before it are said.
fn run_steps(sim: &Sim, steps: Vec<Step>) {
    silence::robot_spoke(sim, raise_silence);
    let mut speech = String::new();
    // `setAnimatedSpeechConfiguration`: the dialog's own configuration, when it has one.
    let configuration = sim.state().part::<DialogState>().animated.clone();
    let say = |speech: &mut String| {
        let text = std::mem::take(speech);
        if text.trim().is_empty() {
            return;
        }
        let mut args = vec![Value::from(text.trim())];
        if matches!(&configuration, Value::List(c) if !c.is_empty()) {
            args.push(configuration.clone());
        }
        if let Err(e) = sim.call("ALAnimatedSpeech", "say", args) {
            sim.notice(NAME, format!("cannot say {:?}: {e}", text.trim()));
        }
    };
    for step in steps {
        match step {
            Step::Say(words) => {
                speech.push_str(&words);
                speech.push(' ');
            }
            Step::Do(action) => act(sim, action, &mut speech, &say),
            Step::Set { key, value } => {
                say(&mut speech);
                match value {
                    Some(v) => sim.insert(&key, Value::String(v)),
                    None => sim.memory.remove(&key),
                }
            }
        }
    }
    say(&mut speech);
    silence::robot_spoke(sim, raise_silence);
}

/// What an action of an answer does on the simulated robot.
fn act(sim: &Sim, action: Action, speech: &mut String, say: &dyn Fn(&mut String)) {
    match action {
        Action::Animated { function, arg } if function.ends_with("Sound") => {
            sim.notice(
                NAME,
                format!("^{function}({arg}): sound files are not played here; the speech goes on"),
            );
        }
        Action::Animated { function, arg } => speech.push_str(&format!("^{function}({arg}) ")),
        Action::Play(sound) => {
            sim.notice(NAME, format!("^play({sound}): sounds are not played here"));
        }
        Action::SwitchFocus(target) => {
            say(speech);
            sim.notice(NAME, format!("^switchFocus({target}): the dialog stops"));
            sim.state().part::<DialogState>().subscribers.clear();
            if let Err(e) = sim.call(
                "ALBehaviorManager",
                "startBehavior",
                vec![Value::from(target.as_str())],
            ) {
                sim.notice(NAME, format!("^switchFocus({target}): {e}"));
            }
        }
        Action::Call {
            service,
            method,
            args,
        } => {
            let values = args.iter().map(value_of).collect();
            if let Err(e) = sim.post_call(&service, &method, values) {
                sim.notice(NAME, format!("^pCall({service}.{method}): {e}"));
            }
        }
        Action::EndDiscuss(reason) => {
            sim.notice(NAME, format!("^endDiscuss({reason}): the discussion ends"));
        }
        Action::Notice(text) => sim.notice(NAME, text),
    }
}
