//! What the page shows, kept from the trace's events: the one place of the rules of
//! docs/monitor.md ("What lights a box"). A late page gets it as a `snapshot`; each batch of
//! events comes with what it changed.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use choreo_engine::graph::Graph;
use choreo_engine::trace::{Event, Step};
use choreo_robot::Model;
use serde_json::{Map, Value, json};

use crate::stack::{StackChanges, StackState};

/// How many of the last events a snapshot carries (for the page's log).
pub const RECENT: usize = 2000;

/// A box's ports' natures by name (inputs, outputs).
type Ports = (HashMap<String, &'static str>, HashMap<String, &'static str>);

/// The natures of each box's ports, by path: what `in` and `out` events mean for lighting.
#[derive(Debug, Default)]
pub struct Natures {
    boxes: HashMap<String, Ports>,
}

impl Natures {
    /// The natures of the boxes of `graph` and of the `played` behaviors' (their paths
    /// prefixed).
    pub fn of(graph: &Graph, played: &[(String, Arc<Graph>)]) -> Natures {
        let boxes = crate::structure::with_played(graph, played)
            .flat_map(|(prefix, graph)| {
                graph.boxes.iter().map(move |b| {
                    let inputs = b
                        .inputs
                        .iter()
                        .map(|p| (p.name.to_string(), p.nature.name()))
                        .collect();
                    let outputs = b
                        .outputs
                        .iter()
                        .map(|p| (p.name.to_string(), p.nature.name()))
                        .collect();
                    (format!("{prefix}{}", b.path), (inputs, outputs))
                })
            })
            .collect();
        Natures { boxes }
    }

    /// The nature of input `port` of `path`; for a box not in the structure (a nested
    /// behavior's), read from the port's usual name.
    fn input(&self, path: &str, port: &str) -> &'static str {
        match self.boxes.get(path) {
            Some((inputs, _)) => inputs.get(port).copied().unwrap_or("onEvent"),
            None => match port {
                "onStart" => "onStart",
                "onStop" => "onStop",
                _ => "onEvent",
            },
        }
    }

    /// The nature of output `port` of `path` (by name for a box not in the structure).
    fn output(&self, path: &str, port: &str) -> &'static str {
        match self.boxes.get(path) {
            Some((_, outputs)) => outputs.get(port).copied().unwrap_or("punctual"),
            None if port == "onStopped" => "stopping",
            None => "punctual",
        }
    }
}

/// What the state reads of one event: from a trace [`Event`] (a live run: no JSON made) or
/// from its JSON form (a replay, events published as JSON); absent fields are empty.
#[derive(Debug, Default)]
pub struct Fields<'a> {
    seq: Option<u64>,
    time_ns: Option<u64>,
    /// The event's kind (trace.md's `event`).
    kind: &'a str,
    path: &'a str,
    port: &'a str,
    /// An error's or a speech's text.
    text: &'a str,
    frame: Option<i64>,
    layer: &'a str,
    keyframe: &'a str,
    seconds: Option<f64>,
    /// A `joints` event's names and values, a `leds` event's groups and colours: as the
    /// state keeps them (made only for those kinds).
    data: Option<Value>,
}

impl<'a> Fields<'a> {
    /// The fields of a trace event.
    pub fn of_event(e: &'a Event) -> Fields<'a> {
        let mut f = Fields {
            seq: Some(e.seq),
            time_ns: Some(e.time_ns),
            path: &e.path,
            ..Fields::default()
        };
        match &e.step {
            Step::In { port, .. } => (f.kind, f.port) = ("in", port),
            Step::Out { port, .. } => (f.kind, f.port) = ("out", port),
            Step::Del => f.kind = "del",
            Step::Err { text, .. } => (f.kind, f.text) = ("err", text),
            Step::Frame { frame } => (f.kind, f.frame) = ("frame", Some(*frame)),
            Step::KfOn { layer, keyframe } => {
                (f.kind, f.layer, f.keyframe) = ("kf_on", layer, keyframe)
            }
            Step::KfOff { layer, keyframe } => {
                (f.kind, f.layer, f.keyframe) = ("kf_off", layer, keyframe);
            }
            Step::Joints { names, values } => {
                f.kind = "joints";
                f.data = Some(json!({"names": names, "values": values}));
            }
            Step::Said { text, seconds } => {
                (f.kind, f.text, f.seconds) = ("said", text, Some(*seconds))
            }
            Step::Leds {
                groups,
                rgb,
                seconds,
            } => {
                (f.kind, f.seconds) = ("leds", Some(*seconds));
                f.data = Some(json!({"groups": groups, "rgb": rgb}));
            }
            Step::Posture { name } => (f.kind, f.text) = ("posture", name),
            Step::Log { message, .. } => (f.kind, f.text) = ("log", message),
            // The others change nothing the page keeps.
            _ => {}
        }
        f
    }

    /// The fields of an event's JSON form (trace.md).
    pub fn of_json(e: &'a Value) -> Fields<'a> {
        let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
        let kind = text("event");
        Fields {
            seq: e.get("seq").and_then(Value::as_u64),
            time_ns: e.get("time_ns").and_then(Value::as_u64),
            kind,
            path: text("path"),
            port: text("port"),
            // A posture's text is its name, a log's its message.
            text: text(match kind {
                "posture" => "name",
                "log" => "message",
                _ => "text",
            }),
            frame: e.get("frame").and_then(Value::as_i64),
            layer: text("layer"),
            keyframe: text("keyframe"),
            seconds: e.get("seconds").and_then(Value::as_f64),
            data: match kind {
                "joints" => Some(json!({"names": e.get("names"), "values": e.get("values")})),
                "leds" => Some(json!({"groups": e.get("groups"), "rgb": e.get("rgb")})),
                _ => None,
            },
        }
    }
}

/// Pushes `texts` at the back of `ring`, keeping the last [`RECENT`].
fn keep_last(ring: &mut VecDeque<String>, texts: impl IntoIterator<Item = String>) {
    for t in texts {
        if ring.len() == RECENT {
            ring.pop_front();
        }
        ring.push_back(t);
    }
}

/// Appends `texts` (JSON texts) to `out`, comma-separated.
pub(crate) fn join_into<'t>(out: &mut String, texts: impl Iterator<Item = &'t String>) {
    for (i, t) in texts.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(t);
    }
}

/// The state of the behavior as the page shows it.
#[derive(Debug, Default)]
pub struct State {
    natures: Natures,
    seq: Option<u64>,
    time_ns: u64,
    lit: BTreeSet<String>,
    frames: BTreeMap<String, i64>,
    keyframes: BTreeMap<String, BTreeSet<String>>,
    /// Each joint's last angle, in the order they first came (every `joints` event merged:
    /// a timeline's frames move some, the sampled robot all).
    joints: Vec<(String, Value)>,
    said: Option<Value>,
    /// The colour each LED group shown reaches (`[r, g, b]`), and how long the last fade
    /// takes.
    leds: BTreeMap<String, Value>,
    leds_seconds: f64,
    posture: Option<String>,
    /// The robot, when the monitor knows it: the balance is worked out from the joints.
    model: Option<Model>,
    /// The robot's balance ([`crate::balance::balance`]), `null` until it is known.
    balance: Value,
    /// The simulated robot's fall: what the run said of it, and when.
    fell: Option<Value>,
    errors: BTreeMap<String, String>,
    /// The last events' JSON texts.
    recent: VecDeque<String>,
    ended: Option<Value>,
    /// A behavior stack's state, for a stack's run.
    stack: Option<StackState>,
    /// The last stack events' JSON texts.
    stack_recent: VecDeque<String>,
}

/// What some events changed (the `changes` of a batch).
#[derive(Debug, Default)]
pub struct Changes {
    lit: BTreeSet<String>,
    unlit: BTreeSet<String>,
    frames: BTreeMap<String, i64>,
    keyframes: BTreeSet<String>,
    joints: bool,
    said: bool,
    leds: bool,
    posture: bool,
    fell: bool,
    errors: BTreeSet<String>,
    stack: StackChanges,
}

impl State {
    /// An empty state for a behavior whose ports have `natures`.
    pub fn new(natures: Natures) -> State {
        State {
            natures,
            ..State::default()
        }
    }

    /// The same, for a behavior stack's run: stack events are applied too.
    pub fn with_stack(natures: Natures) -> State {
        State {
            stack: Some(StackState::default()),
            ..State::new(natures)
        }
    }

    /// The same, for a run on `model`: the page gets its balance too.
    pub fn on(mut self, model: Option<Model>) -> State {
        self.model = model;
        self
    }

    /// The sequence number of the last event applied.
    pub fn seq(&self) -> Option<u64> {
        self.seq
    }

    /// Whether the behavior has ended.
    pub fn ended(&self) -> Option<&Value> {
        self.ended.as_ref()
    }

    /// Records the run's end (the `ended` message).
    pub fn set_ended(&mut self, ended: Value) {
        self.ended = Some(ended);
    }

    /// Forgets every event (a replay seeking backwards starts again).
    pub fn reset(&mut self) {
        let natures = std::mem::take(&mut self.natures);
        let stack = self.stack.is_some();
        *self = State::new(natures).on(self.model);
        if stack {
            self.stack = Some(StackState::default());
        }
    }

    /// Applies one stack event (its JSON line, behaviors named; nothing when this is not
    /// a stack's run), noting what changed; its text goes to [`State::remember_stack`].
    pub fn apply_stack(&mut self, e: &Value, changes: &mut Changes) {
        if let Some(s) = &mut self.stack {
            s.apply(e, &mut changes.stack);
        }
    }

    /// Keeps the JSON texts of stack events just applied (the last [`RECENT`]).
    pub fn remember_stack(&mut self, texts: impl IntoIterator<Item = String>) {
        keep_last(&mut self.stack_recent, texts);
    }

    /// Applies one trace event, noting what changed in `changes`; its JSON text goes to
    /// the recent events with [`State::remember`].
    pub fn apply(&mut self, e: &Fields<'_>, changes: &mut Changes) {
        if let Some(seq) = e.seq {
            self.seq = Some(seq);
        }
        if let Some(t) = e.time_ns {
            self.time_ns = t;
        }
        let path = e.path;
        match e.kind {
            "in" => match self.natures.input(path, e.port) {
                "onStart" => {
                    self.light(path, changes);
                    if self.errors.remove(path).is_some() {
                        changes.errors.insert(path.to_string());
                    }
                }
                "onStop" => self.unlight(path, changes),
                _ => {}
            },
            "out" if self.natures.output(path, e.port) == "stopping" => {
                self.unlight(path, changes);
            }
            "del" => self.unlight(path, changes),
            "err" => {
                self.errors.insert(path.to_string(), e.text.to_string());
                changes.errors.insert(path.to_string());
            }
            "frame" => {
                if let Some(f) = e.frame {
                    self.frames.insert(path.to_string(), f);
                    changes.frames.insert(path.to_string(), f);
                }
            }
            kf @ ("kf_on" | "kf_off") => {
                let name = format!("{}/{}", e.layer, e.keyframe);
                let set = self.keyframes.entry(path.to_string()).or_default();
                if kf == "kf_on" {
                    set.insert(name);
                } else {
                    set.remove(&name);
                }
                changes.keyframes.insert(path.to_string());
            }
            "joints" => {
                let data = e.data.as_ref();
                let field = |k| data.and_then(|d| d.get(k)).and_then(Value::as_array);
                if let (Some(names), Some(values)) = (field("names"), field("values")) {
                    for (n, v) in names.iter().zip(values) {
                        let Some(n) = n.as_str() else { continue };
                        match self.joints.iter_mut().find(|(name, _)| name == n) {
                            Some((_, old)) => *old = v.clone(),
                            None => self.joints.push((n.to_string(), v.clone())),
                        }
                    }
                    changes.joints = true;
                    if let Some(model) = self.model {
                        self.balance = crate::balance::balance(model, &self.joints);
                    }
                }
            }
            "leds" => {
                let data = e.data.as_ref();
                let field = |k| data.and_then(|d| d.get(k)).and_then(Value::as_array);
                if let (Some(groups), Some(rgb)) = (field("groups"), field("rgb")) {
                    for (g, c) in groups.iter().zip(rgb) {
                        if let Some(g) = g.as_str() {
                            self.leds.insert(g.to_string(), c.clone());
                        }
                    }
                    self.leds_seconds = e.seconds.unwrap_or(0.0);
                    changes.leds = true;
                }
            }
            "posture" => {
                self.posture = Some(e.text.to_string());
                changes.posture = true;
            }
            // The robot's own log (no box): a fall is said there (trace.md, `log`).
            "log" if path.is_empty() && e.text.contains(" fell ") => {
                self.fell = Some(json!({"text": e.text, "time_ns": self.time_ns}));
                changes.fell = true;
            }
            "said" => {
                self.said = Some(json!({
                    "text": e.text, "seconds": e.seconds, "time_ns": self.time_ns,
                }));
                changes.said = true;
            }
            _ => {}
        }
    }

    /// Keeps the JSON texts of events just applied, in order, as the recent events (the
    /// last [`RECENT`]).
    pub fn remember(&mut self, texts: impl IntoIterator<Item = String>) {
        keep_last(&mut self.recent, texts);
    }

    fn light(&mut self, path: &str, changes: &mut Changes) {
        if self.lit.insert(path.to_string()) {
            changes.unlit.remove(path);
            changes.lit.insert(path.to_string());
        }
    }

    fn unlight(&mut self, path: &str, changes: &mut Changes) {
        if self.lit.remove(path) {
            changes.lit.remove(path);
            changes.unlit.insert(path.to_string());
        }
    }

    /// The `snapshot` message: the state now; `dropped`: the events this client missed.
    pub fn snapshot(&self, dropped: u64) -> String {
        let head = json!({
            "type": "snapshot",
            "seq": self.seq,
            "time_ns": self.time_ns,
            "lit": self.lit,
            "frames": self.frames,
            "keyframes": self.keyframes,
            "joints": self.joints_json(),
            "balance": self.balance,
            "fell": self.fell,
            "said": self.said,
            "leds": self.leds_json(),
            "posture": self.posture,
            "errors": self.errors,
            "dropped": dropped,
            "ended": self.ended,
            "stack": self.stack.as_ref().map(StackState::snapshot),
        })
        .to_string();
        // The recent events as they are (texts already JSON), last.
        let size = (self.recent.len() + self.stack_recent.len()) * 160;
        let mut out = String::with_capacity(head.len() + 32 + size);
        out.push_str(head.strip_suffix('}').unwrap_or(&head));
        out.push_str(r#","recent":["#);
        join_into(&mut out, self.recent.iter());
        out.push_str(r#"],"stack_recent":["#);
        join_into(&mut out, self.stack_recent.iter());
        out.push_str("]}");
        out
    }

    /// The joints as pages get them: `{"names": [...], "values": [...]}` (`null`: none).
    fn joints_json(&self) -> Value {
        if self.joints.is_empty() {
            return Value::Null;
        }
        let (names, values): (Vec<&String>, Vec<&Value>) =
            self.joints.iter().map(|(n, v)| (n, v)).unzip();
        json!({"names": names, "values": values})
    }

    /// The LEDs as pages get them: `{"colours": {group: [r, g, b]}, "seconds": fade}`.
    fn leds_json(&self) -> Value {
        json!({"colours": self.leds, "seconds": self.leds_seconds})
    }

    /// The `changes` object of a batch: only what changed.
    pub fn changes(&self, c: &Changes) -> Value {
        let mut out = Map::new();
        if !c.lit.is_empty() {
            out.insert("lit".into(), json!(c.lit));
        }
        if !c.unlit.is_empty() {
            out.insert("unlit".into(), json!(c.unlit));
        }
        if !c.frames.is_empty() {
            out.insert("frames".into(), json!(c.frames));
        }
        if !c.keyframes.is_empty() {
            let kf: BTreeMap<&String, Vec<&String>> = c
                .keyframes
                .iter()
                .map(|p| {
                    (
                        p,
                        self.keyframes
                            .get(p)
                            .map(|s| s.iter().collect())
                            .unwrap_or_default(),
                    )
                })
                .collect();
            out.insert("keyframes".into(), json!(kf));
        }
        if c.joints {
            out.insert("joints".into(), self.joints_json());
            if self.model.is_some() {
                out.insert("balance".into(), self.balance.clone());
            }
        }
        if c.fell {
            out.insert("fell".into(), json!(self.fell));
        }
        if c.said {
            out.insert("said".into(), json!(self.said));
        }
        if c.leds {
            out.insert("leds".into(), self.leds_json());
        }
        if c.posture {
            out.insert("posture".into(), json!(self.posture));
        }
        if let Some(stack) = self.stack.as_ref().and_then(|s| s.changes(&c.stack)) {
            out.insert("stack".into(), stack);
        }
        if !c.errors.is_empty() {
            let errors: BTreeMap<&String, Option<&String>> =
                c.errors.iter().map(|p| (p, self.errors.get(p))).collect();
            out.insert("errors".into(), json!(errors));
        }
        Value::Object(out)
    }
}
