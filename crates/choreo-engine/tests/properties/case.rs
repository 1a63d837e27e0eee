//! A built case: the XAR text, and what each box does.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use choreo_engine::{Hook, NativeHost, TimelineCommand, Value};
use proptest::prelude::*;

use crate::properties::generate::{
    LOCK_TYPES, RESOURCE_NAMES, RawBox, RawContent, RawDiagram, RawTl, TIMEOUTS, raw_behavior,
};
use crate::properties::settings::MAX_ACTS;
use crate::support::{PORTS, link};

/// The diagram a box lives in: a holder's (or the root's) by owner path, or a keyframe's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum DiagKey {
    Holder(String),
    Keyframe(String, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Script,
    Holder,
    Timeline,
}

#[derive(Clone)]
pub(crate) struct Rule {
    /// The hook's script name (`onLoad`, `onInput_onStart`).
    pub(crate) hook: String,
    pub(crate) sleep_ms: u64,
    pub(crate) fire: Option<String>,
    /// (own timeline, command)
    pub(crate) tl: Option<(bool, TimelineCommand)>,
    pub(crate) fail: bool,
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

pub(crate) struct BoxInfo {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) kind: Kind,
    /// Where the box lives (`None` for the root).
    pub(crate) diagram: Option<DiagKey>,
    pub(crate) rules: Vec<Rule>,
    /// (hook, output): the box fires the output every time the hook runs (see [`RawBox::echo`]).
    pub(crate) echo: Option<(String, String)>,
    /// The box's code runs inline (see [`RawBox::inline`]).
    pub(crate) inline: bool,
    /// The box has a `<Resource>`.
    pub(crate) resource: bool,
    /// Timelines: the start frame.
    pub(crate) start_frame: i64,
}

/// (input id, output id) of a box: a signal at the input comes out at the output (its code
/// echoes it, or a P9 link of its flow diagram forwards it).
pub(crate) type Through = (i32, i32);

pub(crate) struct Case {
    pub(crate) xml: String,
    pub(crate) boxes: Vec<BoxInfo>,
    /// Where a signal at a port may go on to without bound: links, P9 links, an input
    /// forwarded into the box's diagram (a node is a box's port, seen from inside as from
    /// outside), a box's onStart to its onLoad links (the load) and, for a timeline, to its
    /// onStopped (the end), echoes, and what resources do (a start that fails or stops a
    /// holder fires onStopped or stimulates onStop). Rules act at most [`MAX_ACTS`] times
    /// each, so they are left out.
    pub(crate) edges: Vec<(Node, Node)>,
    /// The edges of [`Case::edges`] that go through box code (echoes): box code fires an
    /// output by posting to the engine's command queue, not as an operation.
    pub(crate) code_edges: Vec<(Node, Node)>,
    /// The outputs rules fire, at most [`MAX_ACTS`] times each (one per rule): not in
    /// [`Case::edges`].
    pub(crate) rule_fires: Vec<Node>,
}

/// A port of a box: (index in [`Case::boxes`], port id).
pub(crate) type Node = (usize, i32);

/// The loops of signals a case may have, from its signal graph ([`Case::edges`]).
#[derive(Debug, Clone)]
pub(crate) struct Loops {
    /// The graph has a cycle.
    pub(crate) any: bool,
    /// Some port on a cycle has two edges or more: in a loop that runs on operations alone
    /// (see [`Loops::inline_cycle`]), the one that goes on round the loop first leaves the
    /// operation delivering the others on the ready stack, one more per turn.
    pub(crate) fan_out: bool,
    /// Every box with a port on a cycle runs its code inline: a loop then runs on operations
    /// alone, never waiting for a hook on a worker. Boxes off the cycles do not count: a
    /// fan-out's other links wait beneath the loop's next turn and may never be delivered,
    /// and a hook they reach on a worker is not waited for by the loop.
    pub(crate) inline_cycle: bool,
    /// Some port on a cycle sends each signal along two edges (or two copies of one link)
    /// that both lead to a cycle, where signals can go on without end: a loop may multiply
    /// signals, and the operations in flight grow while it runs (one more left on the ready
    /// stack per turn), up to the engine's cap.
    pub(crate) multiplying: bool,
    /// A loop acts on a box whose hooks sleep (on a worker: inline sleeps return at once) or
    /// that takes resources: then what a turn of the loop starts may wait for virtual time,
    /// which stands still beside a loop (for 2 s of real time, see the module
    /// documentation), and the operations waiting grow by one or more per turn.
    pub(crate) waits: bool,
    /// The echoes a cycle leads to: box code that posts a command (a fire) each turn.
    pub(crate) echoes: Vec<(Node, Node)>,
    /// How many copies of its loops may run at once: one, plus [`MAX_ACTS`] per rule that
    /// fires into a loop (each time it acts, the signal it fires goes round beside those
    /// already going round; whatever woke it, a loop or not).
    pub(crate) copies: usize,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.xml.replace("><", ">\n<"))?;
        for b in &self.boxes {
            if b.inline {
                writeln!(f, "{}: inline", b.name)?;
            }
            if let Some((hook, output)) = &b.echo {
                writeln!(f, "{}: {hook} -> fire {output}; (always)", b.name)?;
            }
            for r in &b.rules {
                writeln!(f, "{}: {r}", b.name)?;
            }
        }
        Ok(())
    }
}

impl Case {
    /// What loops of signals the case may have (see [`Loops`]).
    pub(crate) fn loops(&self) -> Loops {
        let mut next: HashMap<Node, Vec<Node>> = HashMap::new();
        for (a, b) in &self.edges {
            next.entry(*a).or_default().push(*b);
        }
        // What each port reaches (itself included).
        let reach: HashMap<Node, HashSet<Node>> = next
            .keys()
            .map(|n| {
                let mut seen: HashSet<Node> = HashSet::from([*n]);
                let mut todo = vec![*n];
                while let Some(m) = todo.pop() {
                    for k in next.get(&m).into_iter().flatten() {
                        if seen.insert(*k) {
                            todo.push(*k);
                        }
                    }
                }
                (*n, seen)
            })
            .collect();
        let reaches = |a: &Node, b: &Node| reach.get(a).is_some_and(|r| r.contains(b));
        let on_cycle: HashSet<Node> = next
            .iter()
            .filter(|(n, succ)| succ.iter().any(|m| reaches(m, n)))
            .map(|(n, _)| *n)
            .collect();
        // Ports from which signals can go on without end.
        let endless = |n: &Node| on_cycle.iter().any(|c| reaches(n, c));
        let multiplying: Vec<Node> = on_cycle
            .iter()
            .filter(|n| next[*n].iter().filter(|m| endless(m)).count() >= 2)
            .copied()
            .collect();
        let echoes = self
            .code_edges
            .iter()
            .filter(|(a, _)| on_cycle.iter().any(|c| reaches(c, a)))
            .copied()
            .collect();
        // Boxes a loop acts on: a port reached from a cycle, or inside such a box (loaded and
        // unloaded with it).
        let reached: HashSet<usize> = on_cycle
            .iter()
            .flat_map(|c| reach[c].iter().map(|(b, _)| *b))
            .collect();
        let touched = |b: &BoxInfo| {
            reached.iter().any(|r| {
                let p = &self.boxes[*r].path;
                b.path == *p || b.path.starts_with(&format!("{p}/"))
            })
        };
        let waits = self.boxes.iter().any(|b| {
            touched(b) && (b.resource || (!b.inline && b.rules.iter().any(|r| r.sleep_ms > 0)))
        });
        let forks = self.rule_fires.iter().filter(|o| endless(o)).count();
        Loops {
            any: !on_cycle.is_empty(),
            fan_out: on_cycle.iter().any(|n| next[n].len() >= 2),
            inline_cycle: on_cycle.iter().all(|(b, _)| self.boxes[*b].inline),
            multiplying: !multiplying.is_empty(),
            waits,
            echoes,
            copies: 1 + MAX_ACTS * forks,
        }
    }

    pub(crate) fn info(&self, path: &str) -> Option<&BoxInfo> {
        self.boxes.iter().find(|b| b.path == path)
    }

    pub(crate) fn by_name(&self, name: &str) -> Option<&BoxInfo> {
        self.boxes.iter().find(|b| b.name == name)
    }

    /// A fresh host (fresh rule counters) for one run.
    pub(crate) fn host(&self) -> NativeHost {
        let mut host = NativeHost::new();
        for b in &self.boxes {
            let rules: Vec<(Rule, AtomicUsize)> = b
                .rules
                .iter()
                .map(|r| (r.clone(), AtomicUsize::new(0)))
                .collect();
            let echo = b.echo.clone();
            let code = move |hook: &Hook, ctx: &choreo_engine::BoxContext| {
                let name = hook.script_name();
                if let Some((input, output)) = &echo
                    && *input == name
                {
                    ctx.fire(output, Value::None)?;
                }
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
            };
            host = if b.inline {
                host.with_inline(&b.name, code)
            } else {
                host.with(&b.name, code)
            };
        }
        host
    }
}

/// Port ids of a box: 1 onLoad, 2 onStart, 3 onStop, 4 onStopped, then onEvent inputs,
/// Punctual outputs and the parameter.
pub(crate) struct Ports {
    pub(crate) events: u8,
    pub(crate) punctuals: u8,
    pub(crate) param: bool,
}

impl Ports {
    pub(crate) fn event_id(&self, i: u8) -> i32 {
        5 + i32::from(i)
    }
    pub(crate) fn punctual_id(&self, i: u8) -> i32 {
        5 + i32::from(self.events) + i32::from(i)
    }
    pub(crate) fn param_id(&self) -> i32 {
        5 + i32::from(self.events) + i32::from(self.punctuals)
    }
    /// Inputs seen from outside the box (no onLoad), with parameters: link destinations.
    pub(crate) fn sinks(&self) -> Vec<i32> {
        let mut v = vec![2, 3];
        v.extend((0..self.events).map(|i| self.event_id(i)));
        if self.param {
            v.push(self.param_id());
        }
        v
    }
    /// Every input: link sources inside the box.
    pub(crate) fn inputs(&self) -> Vec<i32> {
        let mut v = vec![1, 2, 3];
        v.extend((0..self.events).map(|i| self.event_id(i)));
        v
    }
    pub(crate) fn outputs(&self) -> Vec<i32> {
        let mut v = vec![4];
        v.extend((0..self.punctuals).map(|i| self.punctual_id(i)));
        v
    }
    /// Inputs whose hooks box code sees (no onLoad, no parameter): (id, hook).
    pub(crate) fn hook_inputs(&self) -> Vec<(i32, String)> {
        let mut v = vec![
            (2, "onInput_onStart".to_string()),
            (3, "onInput_onStop".to_string()),
        ];
        v.extend((0..self.events).map(|i| (self.event_id(i), format!("onInput_e{i}"))));
        v
    }
    pub(crate) fn output_names(&self) -> Vec<String> {
        let mut v = vec!["onStopped".to_string()];
        v.extend((0..self.punctuals).map(|i| format!("p{i}")));
        v
    }
    /// Hooks rules may react to (onStart weighted up).
    pub(crate) fn hooks(&self) -> Vec<String> {
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
    pub(crate) fn xml(&self) -> String {
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
pub(crate) struct Builder {
    pub(crate) boxes: Vec<BoxInfo>,
    /// The signal graph (see [`Case::edges`]).
    pub(crate) edges: Vec<(Node, Node)>,
    pub(crate) code_edges: Vec<(Node, Node)>,
    pub(crate) rule_fires: Vec<Node>,
}

/// What a diagram's boxes know of the box owning it.
pub(crate) struct Parent<'a> {
    /// The keyframe labels of its timeline (empty for a holder).
    pub(crate) labels: &'a [String],
}

impl Builder {
    /// The XML of a diagram owned by the box at `owner_path` with ports `owner`, and the
    /// owner's inputs and outputs its P9 links join.
    pub(crate) fn diagram(
        &mut self,
        raw: &RawDiagram,
        owner: &Ports,
        owner_path: &str,
        owner_at: usize,
        key: &DiagKey,
        parent: &Parent<'_>,
    ) -> (String, Vec<Through>) {
        let keyframe = matches!(key, DiagKey::Keyframe(..));
        let mut xml = String::new();
        let mut children = Vec::new();
        // Box indices in `self.boxes`: the owner's, then each child's.
        let mut at = vec![owner_at];
        for (i, rb) in raw.boxes.iter().enumerate() {
            let id = i as i32 + 1;
            at.push(self.boxes.len());
            let (x, ports, through) = self.boxed(rb, id, owner_path, key, parent);
            xml += &x;
            children.push((id, ports, through));
        }
        // Links: (source box, port, destination box, port), box 0 the owner.
        let mut wires: Vec<(i32, i32, i32, i32)> = Vec::new();
        let first = 1;
        let last = children.len() as i32;
        if raw.entry {
            wires.push((0, if keyframe { 1 } else { 2 }, first, 2));
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
            wires.push((last, 4, 0, 4));
        }
        for (s, d) in &raw.links {
            let (so, sp) = sources[usize::from(*s) % sources.len()];
            if sinks.is_empty() {
                break;
            }
            let (dn, dp) = sinks[usize::from(*d) % sinks.len()];
            if so == 0 && dn == 0 {
                continue; // P9 links come from `raw.through` only
            }
            wires.push((so, sp, dn, dp));
        }
        // P9: the owner's input straight to its output.
        let (inputs, outputs) = (owner.inputs(), owner.outputs());
        let mut through = Vec::new();
        // Not in the root's diagram: there a P9 link would only end the behavior at once.
        let p9 = if owner_at == 0 {
            &[][..]
        } else {
            &raw.through[..]
        };
        for (s, d) in p9 {
            let pair = (
                inputs[usize::from(*s) % inputs.len()],
                outputs[usize::from(*d) % outputs.len()],
            );
            wires.push((0, pair.0, 0, pair.1));
            through.push(pair);
        }
        // Cycles: the ports of box `c` picked by `pick`, a pair that lets signals through
        // if the box has one.
        let ports_of = |c: usize, pick: u16| -> Through {
            let (_, p, through) = &children[c];
            if through.is_empty() {
                let (sinks, outputs) = (p.sinks(), p.outputs());
                (
                    sinks[usize::from(pick) % sinks.len()],
                    outputs[usize::from(pick) % outputs.len()],
                )
            } else {
                through[usize::from(pick) % through.len()]
            }
        };
        // Cycles join boxes that let signals through, when there are some.
        let mut passing: Vec<usize> = (0..children.len())
            .filter(|c| !children[*c].2.is_empty())
            .collect();
        if passing.is_empty() {
            passing = (0..children.len()).collect();
        }
        for (a, b, pa, pb, kick) in &raw.cycles {
            let n = passing.len();
            let (a, b) = (passing[usize::from(*a) % n], passing[usize::from(*b) % n]);
            let (early, late) = (a.min(b), a.max(b));
            let (e_in, e_out) = ports_of(early, *pa);
            let (l_in, l_out) = ports_of(late, *pb);
            let (e_id, l_id) = (children[early].0, children[late].0);
            if *kick {
                wires.push((0, if keyframe { 1 } else { 2 }, e_id, e_in));
            }
            if early == late {
                wires.push((e_id, e_out, e_id, e_in));
            } else {
                wires.push((e_id, e_out, l_id, l_in));
                wires.push((l_id, l_out, e_id, e_in));
            }
        }
        for (so, sp, dn, dp) in wires {
            xml += &link(so, sp, dn, dp);
            self.edges
                .push(((at[so as usize], sp), (at[dn as usize], dp)));
        }
        (xml, through)
    }

    pub(crate) fn boxed(
        &mut self,
        raw: &RawBox,
        id: i32,
        parent_path: &str,
        key: &DiagKey,
        parent: &Parent<'_>,
    ) -> (String, Ports, Vec<Through>) {
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
            echo: None,
            inline: raw.inline,
            resource: raw.resource.is_some(),
            start_frame: 0,
        });
        let mut own_labels = Vec::new();
        let mut through = Vec::new();
        let content = match &raw.content {
            RawContent::Script => String::new(),
            RawContent::Holder(d) => {
                self.boxes[at].kind = Kind::Holder;
                let holder = Parent { labels: &[] };
                let key = DiagKey::Holder(path.clone());
                let (inner, p9) = self.diagram(d, &ports, &path, at, &key, &holder);
                // onLoad (1) is not an input links reach from outside.
                through.extend(p9.into_iter().filter(|(i, _)| *i != 1));
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
                        let (inner, _) = self.diagram(d, &ports, &path, at, &key, &me);
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
        if let Some((i, o)) = raw.echo {
            let inputs = ports.hook_inputs();
            let (input, hook) = &inputs[usize::from(i) % inputs.len()];
            let o = usize::from(o) % outputs.len();
            self.boxes[at].echo = Some((hook.clone(), outputs[o].clone()));
            through.push((*input, ports.outputs()[o]));
            self.edges.push(((at, *input), (at, ports.outputs()[o])));
            self.code_edges
                .push(((at, *input), (at, ports.outputs()[o])));
        }
        let mut rules = Vec::new();
        for r in &raw.rules {
            if let Some(o) = r.fire {
                let output = ports.outputs()[usize::from(o) % outputs.len()];
                self.rule_fires.push((at, output));
            }
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
        (xml, ports, through)
    }
}

pub(crate) fn holder_xml(inner: &str) -> String {
    format!(
        r#"<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>"#
    )
}

/// The case `raw` describes. A loop that may multiply signals through hooks on workers fills
/// the worker pool to its cap, and then the order in which queued hooks return is the
/// operating system's, not virtual time's (invariant 6 cannot hold; the engine warns). So when
/// a loop may multiply signals, all box code runs inline, and the echoes a loop leads to are
/// muted (box code posting a command per turn of a multiplying loop floods the command queue
/// as fast as the operations multiply).
pub(crate) fn build(raw: &RawDiagram) -> Case {
    let mut case = build_with(raw);
    if case.loops().multiplying {
        for b in &mut case.boxes {
            b.inline = true;
        }
        loop {
            let muted = case.loops().echoes;
            if muted.is_empty() {
                break;
            }
            for edge in muted {
                case.boxes[edge.0.0].echo = None;
                case.code_edges.retain(|e| *e != edge);
                if let Some(i) = case.edges.iter().position(|e| *e == edge) {
                    case.edges.remove(i);
                }
            }
        }
    }
    case
}

pub(crate) fn build_with(raw: &RawDiagram) -> Case {
    let mut b = Builder::default();
    b.boxes.push(BoxInfo {
        name: "root".into(),
        path: "root".into(),
        kind: Kind::Holder,
        diagram: None,
        rules: Vec::new(),
        echo: None,
        inline: false,
        resource: false,
        start_frame: 0,
    });
    let root_ports = Ports {
        events: 0,
        punctuals: 0,
        param: false,
    };
    let holder = Parent { labels: &[] };
    let (inner, _) = b.diagram(
        raw,
        &root_ports,
        "root",
        0,
        &DiagKey::Holder("root".into()),
        &holder,
    );
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}{}</Box></ChoregrapheProject>"#,
        holder_xml(&inner)
    );
    let mut edges = b.edges;
    for (x, bx) in b.boxes.iter().enumerate() {
        if bx.kind != Kind::Script {
            // onStart loads the content: its onLoad links.
            edges.push(((x, 2), (x, 1)));
        }
        if bx.kind == Kind::Timeline {
            // A timeline that ends fires onStopped.
            edges.push(((x, 2), (x, 4)));
        }
        if !bx.resource {
            continue;
        }
        // A start that cannot get its resources fires onStopped (R9); one that takes them
        // from a holder stops it (Q3).
        for (y, by) in b.boxes.iter().enumerate() {
            if by.resource {
                edges.push(((x, 2), (y, 3)));
                edges.push(((x, 2), (y, 4)));
            }
        }
    }
    Case {
        xml,
        boxes: b.boxes,
        edges,
        code_edges: b.code_edges,
        rule_fires: b.rule_fires,
    }
}

/// Any behavior the generator makes.
pub(crate) fn case() -> impl Strategy<Value = Case> {
    raw_behavior().prop_map(|raw| build(&raw))
}
