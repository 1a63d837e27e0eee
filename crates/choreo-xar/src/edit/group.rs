//! Grouping boxes into a flow-diagram box, and ungrouping one: what the links become.
//!
//! Choregraphe 2.8 groups boxes with "Convert to box" (NAOqi 2.8 documentation,
//! `software/choregraphe/panels/flow_diagram_panel.html`, "How to group several boxes into a
//! single one"): "The new box replaces the selected boxes. It is a Flow diagram box", holding
//! them; and "if the selected boxes are not linked to the main Flow diagram (i.e. to another
//! box which is not selected nor to the main inputs or outputs), the resulting box will have
//! no input nor output". So the group box's ports are the links crossing its border:
//!
//! - the box takes the diagram's next free id, at the grouped boxes' smallest `x` and smallest
//!   `y`; its name is the user's ("Complete the Name ... fields"), neither empty nor holding
//!   `/` (as Rename); its element is laid out as Choregraphe's own Diagram box
//!   (`choreo-editor/boxes/diagram.xml`): the picture `box-diagram.png`, an empty Python
//!   script (`objects/flow_diagram_box.html`: a script in a Flow diagram box "is now
//!   deprecated"; 611 of the corpus's 872 one-keyframe diagram boxes have an empty one), its
//!   diagram in `<Timeline enable="0">`, one `behavior_layer1`, one `keyframe1`;
//! - its ports: the inner `onLoad` input every box has (all 5,027 boxes of the corpus), then
//!   one input per grouped input (or parameter) a link from outside reaches, then one output
//!   per grouped output a link leaves by to outside. No onStart, onStop nor onStopped of
//!   their own: the page says the box has no input nor output but these. The documentation
//!   names none of them, so each takes the grouped port's name, type, size, nature and
//!   tooltip, with `_2`, `_3` added where two would share a name (a port's name is Python),
//!   in the order of the boxes in the file, then of the ports' ids; ids after the highest;
//! - one exception to the copy, chosen here: a grouped `onStop` input becomes an `onEvent`
//!   input. An onStop of the group box would stop every box inside it, and inside its diagram
//!   an onStop input is not visible (`links.rs`), so no link could carry it on; an onEvent
//!   input forwards the signal to that one box, as the user drew it (98 links of the corpus
//!   reach an onStop from a box). A parameter set by a link from outside becomes a Dynamic
//!   onEvent input named after it;
//! - the links between grouped boxes go inside as written; a link crossing the border
//!   becomes one outside, to or from the group box's port, and one inside, from or to the
//!   diagram's owner (id 0), each once. Every new link passes `links.rs`'s rules, or the
//!   group is refused saying which does not.
//!
//! Ungrouping (Choregraphe has no such command; it is Group undone) puts a flow-diagram box's
//! boxes in its place and joins each link through its ports: outside `X.o -> G.in` and
//! inside `0.in -> s.i` make `X.o -> s.i`, as do pass-throughs `0.in -> 0.out` and links from
//! the box to itself; each joined link once, and each passing `links.rs`'s rules. It is
//! refused where the box is no flow-diagram box or something would be lost
//! ([`ungroup_refusal`]): a timeline other than one behavior layer with one keyframe holding
//! a diagram, or with motion curves; parameters, resources, a plugin's content; a script
//! other than the Diagram box's default, which is empty (white space only; Choregraphe 1.x's
//! `bIsRunning` template is code, and refused); an `onLoad` or ALMemory input feeding boxes
//! inside (it fires by itself, and outside nothing would fire them); a link into an `onStop`
//! input (it stops every box inside, which no link can do). Not kept, by choice: what the
//! box's own lifetime did (a stopping output stops the boxes inside with it): a user
//! flattening a box asks for its boxes and links, and grouping them again gives it back.
//!
//! The splices: `group_splices`.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{
    BoxDef, Diagram, Extras, Input, InputNature, Output, OutputNature, Port, PortRef, PortType,
};
use crate::xml::escape_attribute;

/// The id links give the diagram's owner.
const OWNER: i32 = 0;

/// Choregraphe's picture for a flow-diagram box.
const BITMAP: &str = "media/images/box/box-diagram.png";

/// A link as the file writes it (ordered, so that joined links are kept once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Wire {
    /// `outputowner`.
    pub from: i32,
    /// `indexofoutput`.
    pub from_port: i32,
    /// `inputowner`.
    pub to: i32,
    /// `indexofinput`.
    pub to_port: i32,
}

/// A port of a box of the diagram: where a link crosses the group's border.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    box_id: i32,
    port: i32,
}

/// What grouping does: the group box, and what becomes of the diagram's links.
#[derive(Debug, Clone)]
pub(super) struct Grouping {
    /// The group box as the model reads it (name, id, place, ports; no diagram).
    pub def: BoxDef,
    /// The links between grouped boxes (indices into the diagram's): moved inside as written.
    pub moved: Vec<usize>,
    /// The links that cross the border: removed, replaced by `outer` and `inner`.
    pub crossing: Vec<usize>,
    /// New links inside the group box, from its inputs and to its outputs.
    pub inner: Vec<Wire>,
    /// New links in the diagram, to and from the group box.
    pub outer: Vec<Wire>,
}

/// How grouping `boxes` (the diagram's, in the file's order) under `id`, named `name`,
/// changes `links` (the diagram's, in the file's order).
pub(super) fn grouping(boxes: &[&BoxDef], links: &[Wire], id: i32, name: &str) -> Grouping {
    let rank: BTreeMap<i32, usize> = boxes.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let inside = |l: &&Wire| rank.contains_key(&l.from) && rank.contains_key(&l.to);
    let moved = (0..links.len())
        .filter(|&i| links.get(i).is_some_and(|l| inside(&l)))
        .collect();
    let crossing: Vec<usize> = (0..links.len())
        .filter(|&i| links.get(i).and_then(|l| border(l, &rank)).is_some())
        .collect();
    // The grouped ports links cross the border at, in the order of the boxes in the file,
    // then of their ids; inputs first.
    let mut ends: Vec<(bool, usize, End)> = links
        .iter()
        .filter_map(|l| border(l, &rank))
        .map(|(into, e)| (!into, rank.get(&e.box_id).copied().unwrap_or(0), e))
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let mut def = BoxDef {
        name: name.to_string(),
        id,
        x: Some(boxes.iter().filter_map(|b| b.x).min().unwrap_or(0)),
        y: Some(boxes.iter().filter_map(|b| b.y).min().unwrap_or(0)),
        localization: Some(8),
        tooltip: Some(String::new()),
        bitmaps: vec![BITMAP.to_string()],
        inputs: vec![on_load()],
        ..BoxDef::default()
    };
    let mut names: BTreeSet<String> = BTreeSet::from(["onLoad".to_string()]);
    let (mut port_of, mut inner) = (BTreeMap::new(), Vec::new());
    for (n, &(out, rank, end)) in ends.iter().enumerate() {
        let grouped = boxes.get(rank).copied();
        let port = id_after(1, n);
        port_of.insert((!out, end), port);
        if out {
            def.outputs
                .push(border_output(grouped, end.port, port, &mut names));
            inner.push(Wire {
                from: end.box_id,
                from_port: end.port,
                to: OWNER,
                to_port: port,
            });
        } else {
            def.inputs
                .push(border_input(grouped, end.port, port, &mut names));
            inner.push(Wire {
                from: OWNER,
                from_port: port,
                to: end.box_id,
                to_port: end.port,
            });
        }
    }
    let mut outer: Vec<Wire> = Vec::new();
    for l in links {
        let Some(&port) = border(l, &rank).and_then(|b| port_of.get(&b)) else {
            continue;
        };
        let wire = if rank.contains_key(&l.to) {
            Wire {
                to: id,
                to_port: port,
                ..*l
            }
        } else {
            Wire {
                from: id,
                from_port: port,
                ..*l
            }
        };
        if !outer.contains(&wire) {
            outer.push(wire);
        }
    }
    Grouping {
        def,
        moved,
        crossing,
        inner,
        outer,
    }
}

/// Where the link `l` crosses the border of the grouped boxes (`rank`'s): into one (`true`)
/// or out of one, at which of its ports; `None` when it does not cross.
fn border(l: &Wire, rank: &BTreeMap<i32, usize>) -> Option<(bool, End)> {
    match (rank.contains_key(&l.from), rank.contains_key(&l.to)) {
        (false, true) => Some((
            true,
            End {
                box_id: l.to,
                port: l.to_port,
            },
        )),
        (true, false) => Some((
            false,
            End {
                box_id: l.from,
                port: l.from_port,
            },
        )),
        _ => None,
    }
}

/// The id of the `n`th port added after the port `last` (ports share one id space, and a new
/// one takes the highest id plus one, as `ports` does).
fn id_after(last: i32, n: usize) -> i32 {
    last.saturating_add(i32::try_from(n).unwrap_or(i32::MAX))
        .saturating_add(1)
}

/// The inner `onLoad` input every box has (its text as Choregraphe's Diagram box writes it).
fn on_load() -> Input {
    Input {
        name: "onLoad".to_string(),
        port_type: PortType::Bang,
        type_size: Some(1),
        nature: InputNature::OnLoad,
        stm_value_name: None,
        inner: Some(true),
        tooltip: Some("Signal sent when the diagram is loaded.".to_string()),
        id: 1,
        extras: Extras::default(),
    }
}

/// The group box's input standing for port `port` of the grouped box `def`, as id `id`.
fn border_input(def: Option<&BoxDef>, port: i32, id: i32, names: &mut BTreeSet<String>) -> Input {
    let (name, port_type, type_size, nature, tooltip) = match def.and_then(|d| d.port(port)) {
        Some(PortRef::Input(i)) => {
            let nature = match i.nature {
                InputNature::OnStop => InputNature::OnEvent,
                other => other,
            };
            (
                i.name.as_str(),
                i.port_type,
                i.type_size(),
                nature,
                &i.tooltip,
            )
        }
        Some(PortRef::Parameter(p)) => (
            p.name.as_str(),
            PortType::Dynamic,
            1,
            InputNature::OnEvent,
            &p.tooltip,
        ),
        // A link to a port the box has not: `links::check` says so of the link inside.
        _ => ("input", PortType::Bang, 1, InputNature::OnEvent, &None),
    };
    Input {
        name: unique(python_name(name, "input"), names),
        port_type,
        type_size: Some(type_size),
        nature,
        stm_value_name: None,
        inner: Some(matches!(nature, InputNature::OnLoad | InputNature::Memory)),
        tooltip: Some(tooltip.clone().unwrap_or_default()),
        id,
        extras: Extras::default(),
    }
}

/// The group box's output standing for output `port` of the grouped box `def`, as id `id`.
fn border_output(def: Option<&BoxDef>, port: i32, id: i32, names: &mut BTreeSet<String>) -> Output {
    let (name, port_type, type_size, nature, tooltip) = match def.and_then(|d| d.port(port)) {
        Some(PortRef::Output(o)) => (
            o.name.as_str(),
            o.port_type,
            o.type_size(),
            o.nature,
            &o.tooltip,
        ),
        // A link from a port that is no output: `links::check` says so of the link inside.
        _ => ("output", PortType::Bang, 1, OutputNature::Punctual, &None),
    };
    Output {
        name: unique(python_name(name, "output"), names),
        port_type,
        type_size: Some(type_size),
        nature,
        stm_value_name: None,
        inner: Some(false),
        tooltip: Some(tooltip.clone().unwrap_or_default()),
        id,
        extras: Extras::default(),
    }
}

/// `name` as a Python name (`onInput_<name>`, `self.<name>()`): other characters become `_`,
/// a leading digit gets a `_` before it; `fallback` when nothing is left.
fn python_name(name: &str, fallback: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() {
        return fallback.to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `name`, or `name_2`, `name_3`, ... the first that `taken` has not; then taken.
fn unique(name: String, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{name}_{n}");
    }
    taken.insert(candidate.clone());
    candidate
}

/// How the group box's text is laid out: the indentation of its first line, one level more,
/// and the file's line end.
pub(super) struct Layout<'a> {
    /// The indentation of the line the box starts on.
    pub indent: &'a str,
    /// One level of nesting.
    pub step: &'a str,
    /// The file's line end.
    pub newline: &'a str,
}

/// The group box `def`'s element, its diagram holding `inner` (elements' text, as written).
pub(super) fn group_text(def: &BoxDef, inner: &[String], layout: &Layout) -> String {
    let line = |depth: usize, element: &str| {
        format!(
            "{}{}{}{element}",
            layout.newline,
            layout.indent,
            layout.step.repeat(depth)
        )
    };
    let mut out = format!(
        "<Box name=\"{}\" id=\"{}\" localization=\"8\" tooltip=\"\" x=\"{}\" y=\"{}\">",
        escaped(&def.name),
        def.id,
        def.x.unwrap_or(0),
        def.y.unwrap_or(0)
    );
    out += &line(1, &format!("<bitmap>{BITMAP}</bitmap>"));
    out += &line(1, "<script language=\"4\">");
    out += &line(2, "<content>");
    out += &line(3, "<![CDATA[]]>");
    // Where Choregraphe 2.x writes it, at the start of its line.
    out += &format!("{}</content>", layout.newline);
    out += &line(1, "</script>");
    for i in &def.inputs {
        out += &line(1, &port_text("Input", i, i.nature.code()));
    }
    for o in &def.outputs {
        out += &line(1, &port_text("Output", o, o.nature.code()));
    }
    out += &line(1, "<Timeline enable=\"0\">");
    out += &line(2, "<BehaviorLayer name=\"behavior_layer1\">");
    out += &line(3, "<BehaviorKeyframe name=\"keyframe1\" index=\"1\">");
    if inner.is_empty() {
        out += &line(4, "<Diagram />");
    } else {
        out += &line(4, "<Diagram>");
        for element in inner {
            out += &line(5, element);
        }
        out += &line(4, "</Diagram>");
    }
    out += &line(3, "</BehaviorKeyframe>");
    out += &line(2, "</BehaviorLayer>");
    out += &line(1, "</Timeline>");
    out += &line(0, "</Box>");
    out
}

/// An `Input` or `Output` element as Choregraphe writes one (`nature`: its nature's code).
fn port_text<N>(element: &str, port: &Port<N>, nature: i32) -> String {
    format!(
        "<{element} name=\"{}\" type=\"{}\" type_size=\"{}\" nature=\"{nature}\" inner=\"{}\" tooltip=\"{}\" id=\"{}\" />",
        escaped(&port.name),
        port.port_type.code(),
        port.type_size(),
        u8::from(port.is_inner()),
        escaped(port.tooltip.as_deref().unwrap_or("")),
        port.id
    )
}

/// A `Link` element as Choregraphe writes one.
pub(super) fn link_text(w: &Wire) -> String {
    format!(
        "<Link inputowner=\"{}\" indexofinput=\"{}\" outputowner=\"{}\" indexofoutput=\"{}\" />",
        w.to, w.to_port, w.from, w.from_port
    )
}

/// `value` escaped for an attribute.
fn escaped(value: &str) -> String {
    let mut out = String::new();
    escape_attribute(&mut out, value);
    out
}

/// Why the box `g` (id `gid` in a diagram whose links are `outer`) cannot be ungrouped: it is
/// no flow-diagram box, or what would be lost, in the user's words; `None`: nothing would be.
pub(super) fn ungroup_refusal(g: &BoxDef, gid: i32, outer: &[Wire]) -> Option<String> {
    let diagram = match flow_diagram(g) {
        Ok(d) => d,
        Err(why) => return Some(format!("it is not a flow-diagram box ({why})")),
    };
    if g.plugin.is_some() || g.plugin_content.is_some() || g.dialog_file.is_some() {
        return Some("its plugin's content would be lost".to_string());
    }
    if !g.parameters.is_empty() {
        let names: Vec<&str> = g.parameters.iter().map(|p| p.name.as_str()).collect();
        return Some(format!(
            "its parameters ({}) would be lost",
            names.join(", ")
        ));
    }
    if !g.resources.is_empty() {
        let names: Vec<&str> = g.resources.iter().map(|r| r.name.as_str()).collect();
        return Some(format!(
            "the resources it takes ({}) would be lost",
            names.join(", ")
        ));
    }
    if !g.code().trim().is_empty() {
        return Some(
            "its script would be lost (a flow-diagram box's default script is empty)".to_string(),
        );
    }
    self_firing(g, diagram).or_else(|| stopping(g, gid, outer))
}

/// The diagram of `g` when it is a flow-diagram box: one behavior layer, one keyframe, its
/// diagram, no motion; else what it is instead.
fn flow_diagram(g: &BoxDef) -> Result<&Diagram, String> {
    let Some(t) = &g.timeline else {
        return Err("it has no timeline".to_string());
    };
    if t.actuator_list
        .as_ref()
        .is_some_and(|a| !a.curves.is_empty())
    {
        return Err("its timeline has motion".to_string());
    }
    let [layer] = t.layers.as_slice() else {
        return Err(format!(
            "its timeline has {} behavior layers",
            t.layers.len()
        ));
    };
    let [keyframe] = layer.keyframes.as_slice() else {
        return Err(format!("its layer has {} keyframes", layer.keyframes.len()));
    };
    keyframe
        .diagram
        .as_ref()
        .ok_or_else(|| "its keyframe holds no diagram".to_string())
}

/// An input that fires by itself (`onLoad`, ALMemory) and feeds a box inside: ungrouped,
/// nothing would fire that box.
fn self_firing(g: &BoxDef, diagram: &Diagram) -> Option<String> {
    diagram.links.iter().find_map(|l| {
        let input = g
            .inputs
            .iter()
            .find(|i| l.output_owner == OWNER && i.id == l.index_of_output)?;
        matches!(input.nature, InputNature::OnLoad | InputNature::Memory).then(|| {
            format!(
                "its input {} ({}) fires by itself and starts boxes inside it; ungrouped, nothing would",
                input.name,
                input.nature.name()
            )
        })
    })
}

/// A link into an `onStop` input: it stops every box inside, which no link can do.
fn stopping(g: &BoxDef, gid: i32, outer: &[Wire]) -> Option<String> {
    outer.iter().find_map(|l| {
        let input = g
            .inputs
            .iter()
            .find(|i| l.to == gid && i.id == l.to_port)?;
        (input.nature == InputNature::OnStop).then(|| {
            format!(
                "a link reaches its input {} (onStop), which stops every box inside it; ungrouped, no link could",
                input.name
            )
        })
    })
}

/// What ungrouping does to ids, places and links.
#[derive(Debug, Clone)]
pub(super) struct Ungrouping {
    /// Each inner box's id in the diagram it goes to (old to new).
    pub ids: BTreeMap<i32, i32>,
    /// What is added to each inner box's `x` and `y`.
    pub offset: (i32, i32),
    /// The diagram's links to or from the box (indices): removed.
    pub removed: Vec<usize>,
    /// The inner links between inner boxes (indices), with their ids in the diagram.
    pub kept: Vec<(usize, Wire)>,
    /// The links joined through the box's ports, each once.
    pub joined: Vec<Wire>,
}

/// How ungrouping the box `g` (id `gid`, its diagram `inner` with links `inner_links`) in a
/// diagram of boxes `outer_ids` and links `outer_links` changes ids and links.
pub(super) fn ungrouping(
    g: &BoxDef,
    gid: i32,
    inner: &Diagram,
    inner_links: &[Wire],
    outer_ids: &[i32],
    outer_links: &[Wire],
) -> Ungrouping {
    // The box's own id is free once it is gone.
    let taken: BTreeSet<i32> = outer_ids.iter().copied().filter(|&i| i != gid).collect();
    let mut next = taken
        .iter()
        .chain(inner.boxes.iter().map(|b| &b.id))
        .copied()
        .max()
        .unwrap_or(0)
        .max(0);
    let mut ids = BTreeMap::new();
    for b in &inner.boxes {
        let id = if taken.contains(&b.id) {
            next = next.saturating_add(1);
            next
        } else {
            b.id
        };
        ids.insert(b.id, id);
    }
    let min = |f: fn(&BoxDef) -> Option<i32>| inner.boxes.iter().filter_map(f).min();
    let offset = (
        min(|b| b.x).map_or(0, |m| g.x.unwrap_or(0).saturating_sub(m)),
        min(|b| b.y).map_or(0, |m| g.y.unwrap_or(0).saturating_sub(m)),
    );
    let new_id = |id: i32| ids.get(&id).copied().unwrap_or(id);
    let kept = inner_links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.from != OWNER && l.to != OWNER)
        .map(|(i, l)| {
            let w = Wire {
                from: new_id(l.from),
                to: new_id(l.to),
                ..*l
            };
            (i, w)
        })
        .collect();
    let removed = (0..outer_links.len())
        .filter(|&i| {
            outer_links
                .get(i)
                .is_some_and(|l| l.from == gid || l.to == gid)
        })
        .collect();
    let joined = joined(gid, outer_links, inner_links, &new_id);
    Ungrouping {
        ids,
        offset,
        removed,
        kept,
        joined,
    }
}

/// A place a signal passes in ungrouping: a port of a box (it leaves by `Source`, arrives at
/// `Sink`), or an input or output of the box ungrouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Source(i32, i32),
    In(i32),
    Out(i32),
    Sink(i32, i32),
}

/// The links joined through the box `gid`'s ports: from each port a signal leaves, every
/// port it reaches through them (a worklist: no recursion, each port of the box once).
fn joined(gid: i32, outer: &[Wire], inner: &[Wire], new_id: &dyn Fn(i32) -> i32) -> Vec<Wire> {
    let mut next: BTreeMap<Node, Vec<Node>> = BTreeMap::new();
    let mut edge = |a: Node, b: Node| next.entry(a).or_default().push(b);
    for l in outer {
        match (l.from == gid, l.to == gid) {
            (false, true) => edge(Node::Source(l.from, l.from_port), Node::In(l.to_port)),
            (true, false) => edge(Node::Out(l.from_port), Node::Sink(l.to, l.to_port)),
            (true, true) => edge(Node::Out(l.from_port), Node::In(l.to_port)),
            (false, false) => {}
        }
    }
    for l in inner {
        match (l.from == OWNER, l.to == OWNER) {
            (true, false) => edge(Node::In(l.from_port), Node::Sink(new_id(l.to), l.to_port)),
            (false, true) => edge(
                Node::Source(new_id(l.from), l.from_port),
                Node::Out(l.to_port),
            ),
            (true, true) => edge(Node::In(l.from_port), Node::Out(l.to_port)),
            (false, false) => {}
        }
    }
    let mut out = BTreeSet::new();
    for (&start, _) in next.iter().filter(|(n, _)| matches!(n, Node::Source(..))) {
        let Node::Source(from, from_port) = start else {
            continue;
        };
        let (mut seen, mut todo) = (BTreeSet::new(), vec![start]);
        while let Some(node) = todo.pop() {
            for &to in next.get(&node).into_iter().flatten() {
                match to {
                    Node::Sink(to, to_port) => {
                        out.insert(Wire {
                            from,
                            from_port,
                            to,
                            to_port,
                        });
                    }
                    _ if seen.insert(to) => todo.push(to),
                    _ => {}
                }
            }
        }
    }
    out.into_iter().collect()
}
