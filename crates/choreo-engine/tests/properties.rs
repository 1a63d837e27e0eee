//! Property tests: random behaviors (nested flow diagrams, playing timelines, native boxes that
//! sleep, fire, fail and command timelines) run in virtual time, and lifecycle invariants
//! checked on their traces (runtime-semantics.md §0–§1, §5).
//!
//! Invariants (see [`check`]):
//! 1. no `in` / `call onInput_*` reaches a box that is not loaded (R6, R14, R15);
//! 2. no `deliver` in a diagram whose links are off: exact for flow-diagram holders (and the
//!    root) by `links_on`/`links_off` of the owner; for a timeline's keyframe diagrams, the
//!    keyframe must be on (`kf_on`, no `kf_off` since) and its owner must have turned links on
//!    since that `kf_on` (the trace does not say which keyframe a `links_on` belongs to);
//! 3. `call onLoad` / `call onUnload` alternate per box, starting with onLoad, and end with
//!    onUnload; likewise `links_on`/`links_off` per holder and `kf_on`/`kf_off` per keyframe;
//! 4. after the behavior is stopped: every box had one `new` and one `del`, nothing is loaded,
//!    every `call` has its `ret`, and no `call`, `in`, `deliver`, `links_on`, `kf_on`, `frame`
//!    or `tl` comes after the first `del`;
//! 5. `seq` is gap-free from 0 and `time_ns` never decreases;
//! 6. the same case run twice gives the same trace (short forms and times);
//! 7. (R17) after `tl stop`, no `frame` of that timeline but its start frame until `tl play`;
//! 8. (§6) no box gets resources that overlap those another box holds (Q4: groups cover their
//!    joints), except a box enclosing it; every `got` is matched by one `free`, and nothing
//!    is held at the end;
//! 9. no hook is reported as stalled (blocked outside the clock): box code here only sleeps on
//!    the clock, so such a report would mean the engine lost count of what runs.
//!
//! Properties: `lifecycle_invariants_hold` (1–5, 7, 8) and `same_case_same_trace` (6), on any
//! behavior the generator makes. Each run ends
//! (Finished, Idle or TimeLimit at 120 s of virtual time), is stopped, and its hooks return.
//!
//! Cases: `PROPTEST_CASES` (default 64); a failure shrinks and shows the XAR and the box rules.
//! Generated links are always valid; links from a parent input straight to a parent output
//! (P9) are not generated: with them a behavior can loop forever in zero virtual time without
//! any box code, which never ends a run. Box code acts at most `MAX_ACTS` times per rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use choreo_engine::trace::{Event, Step};
use choreo_engine::{Engine, Hook, NativeHost, Options, Outcome, TimelineCommand, Trace, Value};
use common::{PORTS, link, test_tree};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// How many times one rule of a box acts (later matching hooks do nothing): bounds loops.
const MAX_ACTS: usize = 3;
/// Virtual sleeps, in ms: multiples of common frame periods, so that wake-ups and frames meet.
const SLEEPS: [u64; 7] = [10, 50, 100, 200, 250, 500, 1000];
/// Virtual time limit of a run.
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Real time allowed for a run, for its stop, and for hooks to return after the stop.
const REAL_WAIT: Duration = Duration::from_secs(10);

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ------------------------------------------------------------------------------------------
// Raw generated data: shrinks well; [`build`] turns it into a valid behavior.

#[derive(Debug, Clone)]
enum RawTl {
    Play,
    Pause,
    Stop,
    GoTo(i64),
    Label(u8),
    BadLabel,
    Fps(u32),
}

#[derive(Debug, Clone)]
struct RawRule {
    trigger: u8,
    sleep: Option<u64>,
    fire: Option<u8>,
    /// (own timeline rather than the parent's, command)
    tl: Option<(bool, RawTl)>,
    fail: bool,
}

#[derive(Debug, Clone)]
struct RawDiagram {
    boxes: Vec<RawBox>,
    /// A link from the owner's entry (onStart; onLoad in a keyframe) to the first box's onStart.
    entry: bool,
    /// A link from the last box's onStopped to the owner's onStopped.
    exit: bool,
    /// (source pick, destination pick), resolved modulo the valid choices.
    links: Vec<(u16, u16)>,
}

#[derive(Debug, Clone)]
struct RawTimeline {
    fps: u32,
    start: i32,
    end: i32,
    /// Per layer: the first keyframe's index, then (increment, diagram) per keyframe.
    layers: Vec<(i32, Vec<(i32, RawDiagram)>)>,
}

#[derive(Debug, Clone)]
enum RawContent {
    Script,
    Holder(RawDiagram),
    Timeline(RawTimeline),
}

#[derive(Debug, Clone)]
struct RawBox {
    events: u8,
    punctuals: u8,
    param: bool,
    rules: Vec<RawRule>,
    content: RawContent,
    /// A `<Resource>`: indices into [`RESOURCE_NAMES`], [`LOCK_TYPES`], [`TIMEOUTS`].
    resource: Option<(u8, u8, u8)>,
}

/// Resource names: groups and joints that overlap (Q4), and one unrelated name.
const RESOURCE_NAMES: [&str; 5] = ["Speech", "Head", "HeadYaw", "Legs", "All motors"];
/// Lock types (Q3).
const LOCK_TYPES: [&str; 4] = [
    "Lock",
    "Stop on demand",
    "Pause on demand (beta)",
    "Callback on demand",
];
/// Resource timeouts in seconds (Q2): none, short, until free.
const TIMEOUTS: [i32; 3] = [0, 1, -1];

fn raw_tl() -> impl Strategy<Value = RawTl> {
    prop_oneof![
        Just(RawTl::Play),
        Just(RawTl::Pause),
        Just(RawTl::Stop),
        (0..50i64).prop_map(RawTl::GoTo),
        any::<u8>().prop_map(RawTl::Label),
        Just(RawTl::BadLabel),
        (1..=30u32).prop_map(RawTl::Fps),
    ]
}

fn raw_rule() -> impl Strategy<Value = RawRule> {
    (
        any::<u8>(),
        prop::option::weighted(0.4, prop::sample::select(SLEEPS.to_vec())),
        prop::option::weighted(0.7, any::<u8>()),
        prop::option::weighted(0.25, (any::<bool>(), raw_tl())),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(trigger, sleep, fire, tl, fail)| RawRule {
            trigger,
            sleep,
            fire,
            tl,
            fail,
        })
}

fn raw_diagram(
    child: BoxedStrategy<RawBox>,
    boxes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = RawDiagram> {
    (
        prop::collection::vec(child, boxes),
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.7),
        prop::collection::vec((any::<u16>(), any::<u16>()), 0..=5),
    )
        .prop_map(|(boxes, entry, exit, links)| RawDiagram {
            boxes,
            entry,
            exit,
            links,
        })
}

fn raw_timeline(child: BoxedStrategy<RawBox>) -> impl Strategy<Value = RawTimeline> {
    let layer = (
        0..=10i32,
        prop::collection::vec((1..=15i32, raw_diagram(child, 1..=2)), 1..=2),
    );
    (
        5..=30u32,
        0..=1i32,
        prop_oneof![Just(-1), 1..=40i32],
        prop::collection::vec(layer, 1..=3),
    )
        .prop_map(|(fps, start, end, layers)| RawTimeline {
            fps,
            start,
            end,
            layers,
        })
}

/// A box whose content nests at most `depth` more levels.
fn raw_box(depth: u32) -> BoxedStrategy<RawBox> {
    let base = || {
        (
            0..=2u8,
            0..=2u8,
            prop::bool::weighted(0.2),
            prop::collection::vec(raw_rule(), 0..=3),
            prop::option::weighted(0.25, (0..5u8, 0..4u8, 0..3u8)),
        )
    };
    let script = base().prop_map(|(events, punctuals, param, rules, resource)| RawBox {
        events,
        punctuals,
        param,
        rules,
        content: RawContent::Script,
        resource,
    });
    if depth == 0 {
        return script.boxed();
    }
    let inner = raw_box(depth - 1);
    let in_timeline = inner.clone();
    let holder = (base(), raw_diagram(inner, 1..=3)).prop_map(
        |((events, punctuals, param, rules, resource), d)| RawBox {
            events,
            punctuals,
            param,
            rules,
            content: RawContent::Holder(d),
            resource,
        },
    );
    let timeline = (base(), raw_timeline(in_timeline)).prop_map(
        |((events, punctuals, param, rules, resource), t)| RawBox {
            events,
            punctuals,
            param,
            rules,
            content: RawContent::Timeline(t),
            resource,
        },
    );
    prop_oneof![6 => script, 2 => holder, 1 => timeline].boxed()
}

/// A whole behavior: the root's diagram, with boxes nesting 0–3 levels deeper.
fn raw_behavior() -> impl Strategy<Value = RawDiagram> {
    (0..=3u32).prop_flat_map(|depth| raw_diagram(raw_box(depth), 1..=3))
}

// ------------------------------------------------------------------------------------------
// A built case: the XAR text, and what each box does.

/// The diagram a box lives in: a holder's (or the root's) by owner path, or a keyframe's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DiagKey {
    Holder(String),
    Keyframe(String, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Script,
    Holder,
    Timeline,
}

#[derive(Clone)]
struct Rule {
    /// The hook's script name (`onLoad`, `onInput_onStart`).
    hook: String,
    sleep_ms: u64,
    fire: Option<String>,
    /// (own timeline, command)
    tl: Option<(bool, TimelineCommand)>,
    fail: bool,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ->", self.hook)?;
        if self.sleep_ms > 0 {
            write!(f, " sleep {}ms;", self.sleep_ms)?;
        }
        if let Some(o) = &self.fire {
            write!(f, " fire {o};")?;
        }
        if let Some((own, c)) = &self.tl {
            let whose = if *own { "own" } else { "parent" };
            write!(f, " {whose} timeline {c:?};")?;
        }
        if self.fail {
            write!(f, " fail;")?;
        }
        Ok(())
    }
}

struct BoxInfo {
    name: String,
    path: String,
    kind: Kind,
    /// Where the box lives (`None` for the root).
    diagram: Option<DiagKey>,
    rules: Vec<Rule>,
    /// Timelines: the start frame.
    start_frame: i64,
}

struct Case {
    xml: String,
    boxes: Vec<BoxInfo>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.xml.replace("><", ">\n<"))?;
        for b in &self.boxes {
            for r in &b.rules {
                writeln!(f, "{}: {r}", b.name)?;
            }
        }
        Ok(())
    }
}

impl Case {
    fn info(&self, path: &str) -> Option<&BoxInfo> {
        self.boxes.iter().find(|b| b.path == path)
    }

    fn by_name(&self, name: &str) -> Option<&BoxInfo> {
        self.boxes.iter().find(|b| b.name == name)
    }

    /// A fresh host (fresh rule counters) for one run.
    fn host(&self) -> NativeHost {
        let mut host = NativeHost::new();
        for b in &self.boxes {
            let rules: Vec<(Rule, AtomicUsize)> = b
                .rules
                .iter()
                .map(|r| (r.clone(), AtomicUsize::new(0)))
                .collect();
            host = host.with(&b.name, move |hook: &Hook, ctx| {
                let name = hook.script_name();
                for (rule, count) in &rules {
                    if rule.hook != name || count.fetch_add(1, Ordering::SeqCst) >= MAX_ACTS {
                        continue;
                    }
                    if rule.sleep_ms > 0 {
                        ctx.sleep(Duration::from_millis(rule.sleep_ms));
                    }
                    if let Some(o) = &rule.fire {
                        ctx.fire(o, Value::None)?;
                    }
                    if let Some((own, c)) = &rule.tl {
                        if *own {
                            ctx.timeline(c.clone());
                        } else {
                            ctx.parent_timeline(c.clone());
                        }
                    }
                    if rule.fail {
                        return Err(format!("{name} fails").into());
                    }
                }
                Ok(())
            });
        }
        host
    }
}

/// Port ids of a box: 1 onLoad, 2 onStart, 3 onStop, 4 onStopped, then onEvent inputs,
/// Punctual outputs and the parameter.
struct Ports {
    events: u8,
    punctuals: u8,
    param: bool,
}

impl Ports {
    fn event_id(&self, i: u8) -> i32 {
        5 + i32::from(i)
    }
    fn punctual_id(&self, i: u8) -> i32 {
        5 + i32::from(self.events) + i32::from(i)
    }
    fn param_id(&self) -> i32 {
        5 + i32::from(self.events) + i32::from(self.punctuals)
    }
    /// Inputs seen from outside the box (no onLoad), with parameters: link destinations.
    fn sinks(&self) -> Vec<i32> {
        let mut v = vec![2, 3];
        v.extend((0..self.events).map(|i| self.event_id(i)));
        if self.param {
            v.push(self.param_id());
        }
        v
    }
    /// Every input: link sources inside the box.
    fn inputs(&self) -> Vec<i32> {
        let mut v = vec![1, 2, 3];
        v.extend((0..self.events).map(|i| self.event_id(i)));
        v
    }
    fn outputs(&self) -> Vec<i32> {
        let mut v = vec![4];
        v.extend((0..self.punctuals).map(|i| self.punctual_id(i)));
        v
    }
    fn output_names(&self) -> Vec<String> {
        let mut v = vec!["onStopped".to_string()];
        v.extend((0..self.punctuals).map(|i| format!("p{i}")));
        v
    }
    /// Hooks rules may react to (onStart weighted up).
    fn hooks(&self) -> Vec<String> {
        let mut v: Vec<String> = [
            "onInput_onStart",
            "onInput_onStart",
            "onInput_onStart",
            "onInput_onStop",
            "onLoad",
            "onUnload",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        v.extend((0..self.events).map(|i| format!("onInput_e{i}")));
        v
    }
    fn xml(&self) -> String {
        let mut s = String::from(PORTS);
        for i in 0..self.events {
            s += &format!(
                r#"<Input name="e{i}" type="1" type_size="1" nature="1" inner="0" id="{}"/>"#,
                self.event_id(i)
            );
        }
        for i in 0..self.punctuals {
            s += &format!(
                r#"<Output name="p{i}" type="1" type_size="1" nature="2" inner="0" id="{}"/>"#,
                self.punctual_id(i)
            );
        }
        if self.param {
            s += &format!(
                r#"<Parameter name="P" inherits_from_parent="0" content_type="3" value="x" default_value="x" id="{}"/>"#,
                self.param_id()
            );
        }
        s
    }
}

#[derive(Default)]
struct Builder {
    boxes: Vec<BoxInfo>,
}

/// What a diagram's boxes know of the box owning it.
struct Parent<'a> {
    /// The keyframe labels of its timeline (empty for a holder).
    labels: &'a [String],
}

impl Builder {
    /// The XML of a diagram owned by the box at `owner_path` with ports `owner`.
    fn diagram(
        &mut self,
        raw: &RawDiagram,
        owner: &Ports,
        owner_path: &str,
        key: &DiagKey,
        parent: &Parent<'_>,
    ) -> String {
        let keyframe = matches!(key, DiagKey::Keyframe(..));
        let mut xml = String::new();
        let mut children = Vec::new();
        for (i, rb) in raw.boxes.iter().enumerate() {
            let id = i as i32 + 1;
            let (x, ports, kind) = self.boxed(rb, id, owner_path, key, parent);
            xml += &x;
            children.push((id, ports, kind));
        }
        let first = 1;
        let last = children.len() as i32;
        if raw.entry {
            xml += &link(0, if keyframe { 1 } else { 2 }, first, 2);
        }
        let sources: Vec<(i32, i32)> = owner
            .inputs()
            .into_iter()
            .map(|p| (0, p))
            .chain(
                children
                    .iter()
                    .flat_map(|(c, p, _)| p.outputs().into_iter().map(move |o| (*c, o))),
            )
            .collect();
        let sinks: Vec<(i32, i32)> = children
            .iter()
            .flat_map(|(c, p, _)| p.sinks().into_iter().map(move |i| (*c, i)))
            .chain(owner.outputs().into_iter().map(|p| (0, p)))
            .collect();
        if raw.exit {
            xml += &link(last, 4, 0, 4);
        }
        for (s, d) in &raw.links {
            let (so, sp) = sources[usize::from(*s) % sources.len()];
            if sinks.is_empty() {
                break;
            }
            let (dn, dp) = sinks[usize::from(*d) % sinks.len()];
            if so == 0 && dn == 0 {
                continue; // P9 pass-through: see the module documentation
            }
            xml += &link(so, sp, dn, dp);
        }
        xml
    }

    fn boxed(
        &mut self,
        raw: &RawBox,
        id: i32,
        parent_path: &str,
        key: &DiagKey,
        parent: &Parent<'_>,
    ) -> (String, Ports, Kind) {
        let name = format!("B{}", self.boxes.len() + 1);
        let path = format!("{parent_path}/{name}");
        let ports = Ports {
            events: raw.events,
            punctuals: raw.punctuals,
            param: raw.param,
        };
        let at = self.boxes.len();
        self.boxes.push(BoxInfo {
            name: name.clone(),
            path: path.clone(),
            kind: Kind::Script,
            diagram: Some(key.clone()),
            rules: Vec::new(),
            start_frame: 0,
        });
        let mut own_labels = Vec::new();
        let content = match &raw.content {
            RawContent::Script => String::new(),
            RawContent::Holder(d) => {
                self.boxes[at].kind = Kind::Holder;
                let holder = Parent { labels: &[] };
                let inner = self.diagram(d, &ports, &path, &DiagKey::Holder(path.clone()), &holder);
                holder_xml(&inner)
            }
            RawContent::Timeline(t) => {
                self.boxes[at].kind = Kind::Timeline;
                self.boxes[at].start_frame = i64::from(t.start);
                for (li, (_, kfs)) in t.layers.iter().enumerate() {
                    for ki in 0..kfs.len() {
                        own_labels.push(format!("k{}_{}", li + 1, ki + 1));
                    }
                }
                let mut layers = String::new();
                for (li, (first, kfs)) in t.layers.iter().enumerate() {
                    let lname = format!("L{}", li + 1);
                    layers += &format!(r#"<BehaviorLayer name="{lname}">"#);
                    let mut index = *first;
                    for (ki, (inc, d)) in kfs.iter().enumerate() {
                        if ki > 0 {
                            index += inc;
                        }
                        let kname = format!("k{}_{}", li + 1, ki + 1);
                        let key = DiagKey::Keyframe(path.clone(), format!("{lname}/{kname}"));
                        let me = Parent {
                            labels: &own_labels,
                        };
                        let inner = self.diagram(d, &ports, &path, &key, &me);
                        layers += &format!(
                            r#"<BehaviorKeyframe name="{kname}" index="{index}"><Diagram>{inner}</Diagram></BehaviorKeyframe>"#
                        );
                    }
                    layers += "</BehaviorLayer>";
                }
                format!(
                    r#"<Timeline enable="1" fps="{}" start_frame="{}" end_frame="{}" size="60">{layers}</Timeline>"#,
                    t.fps, t.start, t.end
                )
            }
        };
        let hooks = ports.hooks();
        let outputs = ports.output_names();
        let command = |tl: &RawTl, labels: &[String]| match tl {
            RawTl::Play => TimelineCommand::Play,
            RawTl::Pause => TimelineCommand::Pause,
            RawTl::Stop => TimelineCommand::Stop,
            RawTl::GoTo(f) => TimelineCommand::GoToFrame(*f),
            RawTl::Label(i) if !labels.is_empty() => {
                TimelineCommand::GoToLabel(labels[usize::from(*i) % labels.len()].clone())
            }
            RawTl::Label(_) | RawTl::BadLabel => TimelineCommand::GoToLabel("nope".into()),
            RawTl::Fps(f) => TimelineCommand::SetFps(*f),
        };
        let kind = self.boxes[at].kind;
        let mut rules = Vec::new();
        for r in &raw.rules {
            rules.push(Rule {
                sleep_ms: r.sleep.unwrap_or(0),
                hook: hooks[usize::from(r.trigger) % hooks.len()].clone(),
                fire: r
                    .fire
                    .map(|o| outputs[usize::from(o) % outputs.len()].clone()),
                tl: r.tl.as_ref().map(|(own, c)| {
                    let labels = if *own { &own_labels[..] } else { parent.labels };
                    (*own, command(c, labels))
                }),
                fail: r.fail,
            });
        }
        self.boxes[at].rules = rules;
        let resource = raw.resource.map_or_else(String::new, |(n, l, t)| {
            format!(
                r#"<Resource name="{}" type="{}" timeout="{}"/>"#,
                RESOURCE_NAMES[usize::from(n)],
                LOCK_TYPES[usize::from(l)],
                TIMEOUTS[usize::from(t)]
            )
        });
        let xml = format!(
            r#"<Box name="{name}" id="{id}">{}{resource}{content}</Box>"#,
            ports.xml()
        );
        (xml, ports, kind)
    }
}

fn holder_xml(inner: &str) -> String {
    format!(
        r#"<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
    )
}

fn build(raw: &RawDiagram) -> Case {
    let mut b = Builder::default();
    b.boxes.push(BoxInfo {
        name: "root".into(),
        path: "root".into(),
        kind: Kind::Holder,
        diagram: None,
        rules: Vec::new(),
        start_frame: 0,
    });
    let root_ports = Ports {
        events: 0,
        punctuals: 0,
        param: false,
    };
    let holder = Parent { labels: &[] };
    let inner = b.diagram(
        raw,
        &root_ports,
        "root",
        &DiagKey::Holder("root".into()),
        &holder,
    );
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}{}</Box></ChoregrapheProject>"#,
        holder_xml(&inner)
    );
    Case {
        xml,
        boxes: b.boxes,
    }
}

/// Any behavior the generator makes.
fn case() -> impl Strategy<Value = Case> {
    raw_behavior().prop_map(|raw| build(&raw))
}

// ------------------------------------------------------------------------------------------
// Running a case

struct Run {
    first: Outcome,
    events: Vec<Event>,
}

/// Hooks entered and not returned.
fn unbalanced(events: &[Event]) -> i64 {
    events
        .iter()
        .map(|e| match e.step {
            Step::Call { .. } => 1,
            Step::Ret { .. } => -1,
            _ => 0,
        })
        .sum()
}

/// Runs `case` to its end (Finished, Idle or TimeLimit), stops it if needed, waits for the
/// hooks still running to return, and returns the whole trace.
fn execute(case: &Case) -> Result<Run, TestCaseError> {
    let x = choreo_xar::read_xar("p.xar", case.xml.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("generated XAR does not read: {e}")))?
        .value;
    let trace = Trace::new();
    let engine = Engine::load(
        &x,
        &case.host(),
        Options {
            virtual_time: true,
            trace: trace.clone(),
            time_limit: Some(TIME_LIMIT),
            resources: Some(test_tree()),
            ..Options::default()
        },
    )
    .map_err(|e| TestCaseError::fail(e.to_string()))?;
    engine.start();
    // A run that does not end is reported with the end of its trace; the engine is leaked,
    // not dropped, as dropping waits for a control thread that may be stuck.
    let stuck = |engine: Engine, what: String| {
        let lines: Vec<String> = trace.events().iter().map(Event::short).collect();
        std::mem::forget(engine);
        Err(TestCaseError::fail(format!(
            "{what}\n{}",
            window(&lines, lines.len().saturating_sub(1))
        )))
    };
    let first = engine.wait(REAL_WAIT);
    if !matches!(
        first,
        Outcome::Finished | Outcome::Idle | Outcome::TimeLimit
    ) {
        return stuck(engine, format!("the run did not end: {first:?}"));
    }
    if first != Outcome::Finished {
        engine.stop();
        let stopped = engine.wait(REAL_WAIT);
        if stopped != Outcome::Stopped {
            return stuck(engine, format!("the stop did not end: {stopped:?}"));
        }
    }
    let since = Instant::now();
    while unbalanced(&trace.events()) != 0 && since.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(engine);
    Ok(Run {
        first,
        events: trace.events(),
    })
}

// ------------------------------------------------------------------------------------------
// The invariants

fn window(lines: &[String], i: usize) -> String {
    let from = i.saturating_sub(25);
    let to = (i + 6).min(lines.len());
    (from..to)
        .map(|j| {
            let mark = if j == i { ">>" } else { "  " };
            format!("{mark}{j:5} {}", lines[j])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The box name in a `deliver` end (`Name.port` or `(parent).port`).
fn end_box(end: &str) -> Option<&str> {
    let (b, _) = end.split_once('.')?;
    (b != "(parent)").then_some(b)
}

/// Checks invariants 1–5 and 7 on the trace of a stopped behavior.
fn check(case: &Case, events: &[Event]) -> Result<(), String> {
    let tree = test_tree();
    let lines: Vec<String> = events.iter().map(Event::short).collect();
    let fail = |i: usize, what: String| Err(format!("{what}\n{}", window(&lines, i)));
    let mut loaded: HashSet<&str> = HashSet::new();
    let mut running: HashMap<(&str, &str), i64> = HashMap::new();
    let mut holders_on: HashSet<&str> = HashSet::new();
    // (owner, layer/keyframe) -> links turned on by the owner since its kf_on
    let mut keyframes_on: HashMap<(&str, &str), bool> = HashMap::new();
    let mut news: HashMap<&str, usize> = HashMap::new();
    let mut dels: HashMap<&str, usize> = HashMap::new();
    let mut first_del: Option<usize> = None;
    let mut stopped_timelines: HashSet<&str> = HashSet::new();
    // Who holds which resources (invariant 8).
    let mut holding: HashMap<&str, Vec<String>> = HashMap::new();
    let mut last_time = 0;
    for (i, e) in events.iter().enumerate() {
        if e.seq != i as u64 {
            return fail(i, format!("(5) seq {} at position {i}", e.seq));
        }
        if e.time_ns < last_time {
            return fail(
                i,
                format!("(5) time goes back: {} < {last_time}", e.time_ns),
            );
        }
        last_time = e.time_ns;
        let p = e.path.as_str();
        if let Some(d) = first_del
            && matches!(
                e.step,
                Step::Call { .. }
                    | Step::In { .. }
                    | Step::Deliver { .. }
                    | Step::LinksOn
                    | Step::KfOn { .. }
                    | Step::Frame { .. }
                    | Step::Timeline { .. }
            )
        {
            return fail(
                i,
                format!("(4) activity after the boxes were destroyed (event {d})"),
            );
        }
        match &e.step {
            Step::New => {
                *news.entry(p).or_default() += 1;
                if first_del.is_some() {
                    return fail(i, "(4) new after del".into());
                }
            }
            Step::Del => {
                *dels.entry(p).or_default() += 1;
                first_del.get_or_insert(i);
            }
            Step::Call { hook } => {
                *running.entry((p, hook.as_str())).or_default() += 1;
                match hook.as_str() {
                    "onLoad" => {
                        if !loaded.insert(p) {
                            return fail(i, "(3) onLoad of a loaded box".into());
                        }
                    }
                    "onUnload" => {
                        if !loaded.remove(p) {
                            return fail(i, "(3) onUnload of a box that is not loaded".into());
                        }
                    }
                    _ => {
                        if !loaded.contains(p) {
                            return fail(i, "(1) an input hook of a box that is not loaded".into());
                        }
                    }
                }
            }
            Step::Ret { hook, .. } => {
                let n = running.entry((p, hook.as_str())).or_default();
                *n -= 1;
                if *n < 0 {
                    return fail(i, "(4) ret without call".into());
                }
            }
            Step::In { .. } if !loaded.contains(p) => {
                return fail(i, "(1) input of a box that is not loaded".into());
            }
            Step::Deliver { from, to } => {
                let Some(child) = end_box(from).or_else(|| end_box(to)) else {
                    return fail(i, "deliver names no box".into());
                };
                let key = case.by_name(child).and_then(|b| b.diagram.as_ref());
                match key {
                    Some(DiagKey::Holder(owner)) if owner == p => {
                        if !holders_on.contains(p) {
                            return fail(i, "(2) deliver in a diagram whose links are off".into());
                        }
                    }
                    Some(DiagKey::Keyframe(owner, kf)) if owner == p => {
                        if keyframes_on.get(&(p, kf.as_str())) != Some(&true) {
                            return fail(
                                i,
                                format!("(2) deliver in keyframe {kf}, whose links are off"),
                            );
                        }
                    }
                    _ => return fail(i, format!("deliver names {child}, not in {p}")),
                }
            }
            Step::LinksOn => match case.info(p).map(|b| b.kind) {
                Some(Kind::Holder) => {
                    if !holders_on.insert(p) {
                        return fail(i, "(3) links_on of a diagram whose links are on".into());
                    }
                }
                Some(Kind::Timeline) => {
                    for ((owner, _), linked) in keyframes_on.iter_mut() {
                        if *owner == p {
                            *linked = true;
                        }
                    }
                }
                _ => return fail(i, "links_on of a box without a diagram".into()),
            },
            Step::LinksOff
                if case.info(p).map(|b| b.kind) == Some(Kind::Holder) && !holders_on.remove(p) =>
            {
                return fail(i, "(3) links_off of a diagram whose links are off".into());
            }
            Step::KfOn { layer, keyframe } => {
                let kf = format!("{layer}/{keyframe}");
                let key = case
                    .boxes
                    .iter()
                    .filter_map(|b| b.diagram.as_ref())
                    .find_map(|k| match k {
                        DiagKey::Keyframe(o, k) if o == p && *k == kf => Some(k.as_str()),
                        _ => None,
                    });
                // Keyframes are keyed by the case's strings (which outlive the loop).
                let Some(k) = key else {
                    return fail(i, "kf_on of an unknown keyframe".into());
                };
                if keyframes_on.insert((p, k), false).is_some() {
                    return fail(i, "(3) kf_on of a keyframe that is on".into());
                }
            }
            Step::KfOff { layer, keyframe } => {
                let kf = format!("{layer}/{keyframe}");
                let key = keyframes_on
                    .keys()
                    .find(|(o, k)| *o == p && *k == kf)
                    .copied();
                if key.and_then(|k| keyframes_on.remove(&k)).is_none() {
                    return fail(i, "(3) kf_off of a keyframe that is off".into());
                }
            }
            Step::Timeline { command, .. } => match command.as_str() {
                "stop" => {
                    stopped_timelines.insert(p);
                }
                "play" => {
                    stopped_timelines.remove(p);
                }
                _ => {}
            },
            Step::Frame { frame } => {
                let start = case.info(p).map_or(0, |b| b.start_frame);
                if stopped_timelines.contains(p) && *frame != start {
                    return fail(i, "(7) frame of a stopped timeline".into());
                }
            }
            // Box code here only sleeps on the clock: a stall means the engine lost count.
            Step::Log { message, .. } if message.contains("neither returned nor slept") => {
                return fail(i, "(9) a hook counted as running outside the clock".into());
            }
            Step::Resource { what, names } => match what.as_str() {
                "got" => {
                    let clash = holding.iter().find(|(q, held)| {
                        // A box shares what the boxes enclosing it hold.
                        **q != p
                            && !p.starts_with(&format!("{q}/"))
                            && held
                                .iter()
                                .any(|h| names.iter().any(|n| tree.overlap(h, n)))
                    });
                    if let Some((q, _)) = clash {
                        return fail(i, format!("(8) {p} got {names:?} while {q} holds them"));
                    }
                    holding.insert(p, names.clone());
                }
                "free" if holding.remove(p).is_none() => {
                    return fail(i, "(8) free without got".into());
                }
                _ => {}
            },
            _ => {}
        }
    }
    if let Some(p) = holding.keys().next() {
        let history: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with(&format!("{p} ")))
            .collect();
        return fail(
            events.len().saturating_sub(1),
            format!("(8) {p} still holds its resources at the end:\n{history:#?}"),
        );
    }
    let end = events.len().saturating_sub(1);
    for b in &case.boxes {
        let p = b.path.as_str();
        if news.get(p) != Some(&1) || dels.get(p) != Some(&1) {
            return fail(
                end,
                format!(
                    "(4) {p}: {} new, {} del",
                    news.get(p).unwrap_or(&0),
                    dels.get(p).unwrap_or(&0)
                ),
            );
        }
    }
    if let Some(p) = loaded.iter().next() {
        return fail(end, format!("(3)(4) {p} is still loaded at the end"));
    }
    if let Some(p) = holders_on.iter().next() {
        return fail(
            end,
            format!("(3)(4) the links of {p} are still on at the end"),
        );
    }
    if let Some((p, k)) = keyframes_on.keys().next() {
        return fail(
            end,
            format!("(3)(4) keyframe {k} of {p} is still on at the end"),
        );
    }
    if let Some(((p, h), n)) = running.iter().find(|(_, n)| **n != 0) {
        return fail(end, format!("(4) {p} {h}: {n} call(s) without ret"));
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(config())]

    /// Invariants 1–5 and 7 hold on every run.
    #[test]
    fn lifecycle_invariants_hold(case in case()) {
        let run = execute(&case)?;
        if let Err(e) = check(&case, &run.events) {
            return Err(TestCaseError::fail(format!("run ended {:?}: {e}", run.first)));
        }
    }

    /// Invariant 6: the same case run twice gives the same trace.
    #[test]
    fn same_case_same_trace(case in case()) {
        let a = execute(&case)?;
        let b = execute(&case)?;
        // Up to the last `del` (hooks still running then may log after it, in real time).
        let short = |r: &Run| -> Vec<(u64, String)> {
            let end = r
                .events
                .iter()
                .rposition(|e| e.step == Step::Del)
                .map_or(r.events.len(), |i| i + 1);
            r.events[..end].iter().map(|e| (e.time_ns, e.short())).collect()
        };
        let (sa, sb) = (short(&a), short(&b));
        if sa != sb {
            let i = sa.iter().zip(&sb).position(|(x, y)| x != y).unwrap_or(sa.len().min(sb.len()));
            let show = |s: &[(u64, String)]| -> String {
                let lines: Vec<String> = s.iter().map(|(t, l)| format!("{t} {l}")).collect();
                window(&lines, i.min(lines.len().saturating_sub(1)))
            };
            return Err(TestCaseError::fail(format!(
                "traces differ at event {i}:\nfirst run:\n{}\nsecond run:\n{}",
                show(&sa),
                show(&sb)
            )));
        }
    }
}

// ------------------------------------------------------------------------------------------
// Engine bugs the properties found, as minimal reproductions (all fixed; kept as regression
// tests).

/// Runs `xml` in virtual time with `limit`; returns the first outcome, the outcome of the stop
/// (if one was needed; `None` otherwise) and the trace in short form once the hooks returned
/// (or 2 s of real time passed).
fn run_limited(
    xml: &str,
    host: &NativeHost,
    limit: Duration,
) -> (Outcome, Option<Outcome>, Vec<String>) {
    let x = choreo_xar::read_xar("t.xar", xml.as_bytes()).unwrap().value;
    let trace = Trace::new();
    let engine = Engine::load(
        &x,
        host,
        Options {
            virtual_time: true,
            trace: trace.clone(),
            time_limit: Some(limit),
            resources: Some(test_tree()),
            ..Options::default()
        },
    )
    .unwrap();
    engine.start();
    let first = engine.wait(Duration::from_secs(10));
    let stop = (first != Outcome::Finished).then(|| {
        engine.stop();
        engine.wait(Duration::from_secs(2))
    });
    let since = Instant::now();
    while unbalanced(&trace.events()) != 0 && since.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(engine);
    let lines = trace.events().iter().map(Event::short).collect();
    (first, stop, lines)
}

fn on_start(hook: &Hook) -> bool {
    matches!(hook, Hook::Input { name, .. } if name == "onStart")
}

/// R15 (and invariant 1): `deliver_output` (and `ForwardInto`) loop over every link of the
/// output; when one delivery fires the owner's Stopped output, the owner's diagram is unloaded
/// at once (`links_off`, first `onUnload` dispatched) inside that delivery, and the loop then
/// goes on delivering the remaining links of the same output into the unloaded diagram, here
/// into a box whose `onUnload` has been called.
#[test]
fn fan_out_stops_delivering_once_its_diagram_is_unloaded() {
    use common::{behavior, boxed};
    let e0 = r#"<Input name="e0" type="1" type_size="1" nature="1" inner="0" id="5"/>"#;
    // root: onStart -> A.onStart; A.onStopped -> root.onStopped, then A.onStopped -> A.e0.
    let xml = behavior(&format!(
        "{}{}{}{}",
        boxed("A", 1, e0, ""),
        link(0, 2, 1, 2),
        link(1, 4, 0, 4),
        link(1, 4, 1, 5)
    ));
    let host = NativeHost::new().with("A", |hook, ctx| {
        if on_start(hook) {
            ctx.fire("onStopped", Value::None)?;
        }
        Ok(())
    });
    let (_, _, t) = run_limited(&xml, &host, TIME_LIMIT);
    let off = t.iter().position(|l| l == "root links_off").unwrap();
    assert!(
        !t[off..].iter().any(|l| l.starts_with("root deliver")
            || l == "root/A in e0 None"
            || l == "root/A call onInput_e0"),
        "R15: no deliver after links_off, no input of an unloaded box:\n{}",
        t.join("\n")
    );
}

/// `Outcome::TimeLimit` freezes virtual time for good, and a later stop does not let it move:
/// a hook sleeping on the clock at the limit never returns, and a stop whose `onUnload`
/// sleeps (R13: stopping takes time) never ends (`wait` reports `TimeLimit` again). Letting
/// time move once a stop is asked (dropping the limit on `Command::Stop`) would fix both.
#[test]
fn sleep_horizon_a_stop_after_the_time_limit_ends_even_if_on_unload_sleeps() {
    use common::behavior;
    // A timeline that never ends (end_frame -1, no motion) keeps time moving up to the
    // limit; box A in its keyframe sleeps 10 ms in onUnload.
    let a = format!(r#"<Box name="A" id="1">{PORTS}</Box>"#);
    let xml = behavior(&format!(
        r#"<Box name="T" id="1">{PORTS}<Timeline enable="1" fps="25" start_frame="1" end_frame="-1" size="60"><BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram>{a}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>{}"#,
        link(0, 2, 1, 2)
    ));
    let host = NativeHost::new().with("A", |hook, ctx| {
        if matches!(hook, Hook::Unload) {
            ctx.sleep(Duration::from_millis(10));
        }
        Ok(())
    });
    let (first, stop, t) = run_limited(&xml, &host, Duration::from_secs(1));
    assert_eq!(first, Outcome::TimeLimit);
    assert_eq!(
        stop,
        Some(Outcome::Stopped),
        "the stop did not end:\n{}",
        t.join("\n")
    );
    assert_eq!(
        unbalanced_lines(&t),
        0,
        "hooks still running:\n{}",
        t.join("\n")
    );
}

fn unbalanced_lines(t: &[String]) -> i64 {
    t.iter()
        .map(|l| {
            if l.contains(" call ") {
                1
            } else if l.contains(" ret ") {
                -1
            } else {
                0
            }
        })
        .sum()
}

/// A box S that sleeps 50 ms in onStart, then ends the behavior; a box C whose onLoad sleeps
/// 100 ms, inside `container` (which gets the root's onStart).
fn load_race(container: &str) -> (String, NativeHost) {
    use common::{behavior, boxed};
    let xml = behavior(&format!(
        "{container}{}{}{}{}",
        boxed("S", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 0, 4)
    ));
    let host = NativeHost::new()
        .with("S", |hook, ctx| {
            if on_start(hook) {
                ctx.sleep(Duration::from_millis(50));
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .with("C", |hook, ctx| {
            if matches!(hook, Hook::Load) {
                ctx.sleep(Duration::from_millis(100));
            }
            Ok(())
        });
    (xml, host)
}

/// R15, R4: an unload that comes while the diagram is still loading (an onLoad of one of its
/// boxes has not returned) waits for that load, which loads no more boxes, then unloads it.
/// (The bug: the unload found the diagram "not loaded" and did nothing; the load then
/// completed after the behavior was destroyed, and C was never unloaded.)
#[test]
fn load_race_an_unload_during_a_diagram_load_unloads_it() {
    use common::boxed;
    let (xml, host) = load_race(&boxed("A", 1, "", &boxed("C", 1, "", "")));
    let (first, _, t) = run_limited(&xml, &host, TIME_LIMIT);
    assert_eq!(first, Outcome::Finished);
    let del = t.iter().position(|l| l == "root del").unwrap();
    assert!(
        !t[del..].iter().any(|l| l == "root/A links_on"),
        "links_on after del:\n{}",
        t.join("\n")
    );
    let loads = t.iter().filter(|l| *l == "root/A/C call onLoad").count();
    let unloads = t.iter().filter(|l| *l == "root/A/C call onUnload").count();
    assert_eq!(loads, unloads, "C is left loaded:\n{}", t.join("\n"));
}

/// The same race with a timeline: a timeline stopped (R17) while its keyframe loads does not
/// play afterwards. (The bug: the load then completed and its play step started the stopped
/// timeline, with frames after the behavior was destroyed, forever.)
#[test]
fn load_race_a_timeline_stopped_during_its_load_does_not_play() {
    let t_box = format!(
        r#"<Box name="T" id="1">{PORTS}<Timeline enable="1" fps="10" start_frame="1" end_frame="-1" size="60"><BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram><Box name="C" id="1">{PORTS}</Box></Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>"#
    );
    let (xml, host) = load_race(&t_box);
    let (first, _, t) = run_limited(&xml, &host, TIME_LIMIT);
    assert_eq!(first, Outcome::Finished);
    let del = t.iter().position(|l| l == "root del").unwrap();
    assert!(
        !t[del..].iter().any(|l| l.starts_with("root/T frame")
            || l == "root/T tl play"
            || l == "root/T links_on"),
        "the timeline runs after del:\n{}",
        t.join("\n")
    );
}

/// T4, R17: timeline commands are obeyed whatever the state of the timeline's box. Here C's
/// onUnload (run while T is being unloaded, after T's `tl stop`) asks its parent timeline to
/// go to frame 1: the stopped timeline of an unloaded box loads its keyframe again (`kf_on`,
/// C's onLoad, `links_on` after `del`) and nothing ever unloads it. The same happens with
/// `Play`, and with commands from hooks still running after their box was unloaded.
#[test]
fn timeline_commands_to_an_unloaded_box_load_nothing() {
    use common::{behavior, boxed};
    let xml = behavior(&format!(
        r#"<Box name="T" id="1">{PORTS}<Timeline enable="1" fps="10" start_frame="1" end_frame="-1" size="60"><BehaviorLayer name="L"><BehaviorKeyframe name="k" index="1"><Diagram><Box name="C" id="1">{PORTS}</Box></Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box>{}{}{}{}"#,
        boxed("S", 2, "", ""),
        link(0, 2, 1, 2),
        link(0, 2, 2, 2),
        link(2, 4, 0, 4)
    ));
    let host = NativeHost::new()
        .with("S", |hook, ctx| {
            if on_start(hook) {
                ctx.sleep(Duration::from_millis(50));
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .with("C", |hook, ctx| {
            if matches!(hook, Hook::Unload) {
                ctx.parent_timeline(TimelineCommand::GoToFrame(1));
            }
            Ok(())
        });
    let (first, _, t) = run_limited(&xml, &host, TIME_LIMIT);
    assert_eq!(first, Outcome::Finished);
    let loads = t.iter().filter(|l| *l == "root/T/C call onLoad").count();
    let unloads = t.iter().filter(|l| *l == "root/T/C call onUnload").count();
    assert_eq!(loads, unloads, "C is left loaded:\n{}", t.join("\n"));
}

/// Invariant 6. In virtual time a hook woken from `ctx.sleep` runs on its own thread while the
/// control thread goes on: `on_idle` wakes every sleeper due at once (`notify_all`), and
/// after a wake-up nothing waits for the woken hook to return or sleep again, as `dispatch`
/// does for a new hook. So two hooks woken at the same instant, or a woken hook and the hooks
/// its outputs start, race to post their outputs and returns: the trace depends on the OS
/// scheduler. Here A's onStart is called twice (onLoad and onStart of the root both start
/// it); both calls sleep 10 ms, then fire p0, which starts B.
///
/// A rarer race of the same kind, seen once: `dispatch` waits for the progress counter to
/// change, but `run_job` posts `HookDone` before it bumps the counter; when the control thread
/// handles that `HookDone` and dispatches the next hook before the finished worker bumps the
/// counter, the stale bump ends the wait for the new hook at once (waiting for that hook's own
/// ticket would fix it).
#[test]
fn hooks_woken_at_the_same_instant_give_the_same_trace_every_time() {
    use common::{behavior, boxed};
    let p0 = r#"<Output name="p0" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;
    let xml = behavior(&format!(
        "{}{}{}{}{}",
        boxed("A", 1, p0, ""),
        boxed("B", 2, "", ""),
        link(0, 1, 1, 2),
        link(0, 2, 1, 2),
        link(1, 5, 2, 2)
    ));
    let host = NativeHost::new()
        .with("A", |hook, ctx| {
            if on_start(hook) {
                ctx.sleep(Duration::from_millis(10));
                ctx.fire("p0", Value::None)?;
            }
            Ok(())
        })
        .with("B", |hook, ctx| {
            if on_start(hook) {
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        });
    let (_, _, reference) = run_limited(&xml, &host, TIME_LIMIT);
    for _ in 0..50 {
        let (_, _, t) = run_limited(&xml, &host, TIME_LIMIT);
        assert_eq!(t, reference);
    }
}

/// R4, R7: an unload that comes while the same diagram is already unloading waits for that
/// unload to finish. Here A fires onStopped from its onUnload (during the behavior stop): the
/// Stopped output's own unload of A's diagram starts first (links_off, C1's onUnload, which
/// sleeps 10 ms); the stop's unload of A's diagram waits for it before destroying the boxes.
/// (The bug: the second unload went on at once and `del` came before C2's onUnload.)
#[test]
fn load_race_an_unload_during_an_unload_waits_for_it() {
    use common::{behavior, boxed};
    let inner = format!("{}{}", boxed("C1", 1, "", ""), boxed("C2", 2, "", ""));
    let xml = behavior(&format!(
        "{}{}",
        boxed("A", 1, "", &inner),
        link(0, 2, 1, 2)
    ));
    let host = NativeHost::new()
        .with("A", |hook, ctx| {
            if matches!(hook, Hook::Unload) {
                ctx.fire("onStopped", Value::None)?;
            }
            Ok(())
        })
        .with("C1", |hook, ctx| {
            if matches!(hook, Hook::Unload) {
                ctx.sleep(Duration::from_millis(10));
            }
            Ok(())
        });
    let (first, stop, t) = run_limited(&xml, &host, TIME_LIMIT);
    assert_eq!((first, stop), (Outcome::Idle, Some(Outcome::Stopped)));
    let del = t.iter().position(|l| l == "root del").unwrap();
    assert!(
        !t[del..].iter().any(|l| l.contains(" call ")),
        "onUnload after del:\n{}",
        t.join("\n")
    );
}
