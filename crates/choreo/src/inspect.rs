//! A behavior's box tree as text, readable like `tree` (what `choreo inspect` prints): boxes,
//! their ports and parameters, diagrams with their links, timelines with their layers and
//! motion curves.

use std::fmt::Write as _;

use choreo_xar::model::*;

/// How to name behavior `b` of the input at `path`: the file itself, a file in the folder,
/// or a member of the archive (`x.crg!behavior_1/behavior.xar`).
pub fn behavior_name(
    path: &std::path::Path,
    b: &choreo_xar::source::Behavior,
    only: bool,
) -> String {
    if path.is_dir() {
        path.join(&b.path).display().to_string()
    } else if only
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy() == b.path)
    {
        path.display().to_string()
    } else {
        format!("{}!{}", path.display(), b.path)
    }
}

/// One line of the tree and the lines under it.
struct Node {
    label: String,
    children: Vec<Node>,
}

impl Node {
    fn new(label: impl Into<String>) -> Node {
        Node {
            label: label.into(),
            children: Vec::new(),
        }
    }
}

/// The whole tree of one behavior as text.
pub fn render(name: &str, x: &XarFile) -> String {
    let kind = match x.root {
        RootKind::Project => "behavior",
        RootKind::Box => "box library entry",
    };
    let mut out = format!("{name} ({kind})\n");
    draw(&box_node(&x.root_box), "", true, true, &mut out);
    out
}

fn draw(node: &Node, prefix: &str, last: bool, top: bool, out: &mut String) {
    let (branch, more) = match (top, last) {
        (true, _) => ("", ""),
        (false, true) => ("└─ ", "   "),
        (false, false) => ("├─ ", "│  "),
    };
    let _ = writeln!(out, "{prefix}{branch}{}", node.label);
    let child_prefix = format!("{prefix}{more}");
    for (i, c) in node.children.iter().enumerate() {
        draw(c, &child_prefix, i + 1 == node.children.len(), false, out);
    }
}

fn port_type(t: PortType, size: i32) -> String {
    if size > 1 {
        format!("{}×{size}", t.name())
    } else {
        t.name().to_string()
    }
}

fn input_label(p: &Input) -> String {
    let nature = match p.nature {
        InputNature::Memory => format!("ALMemory {:?}", p.stm_value_name.as_deref().unwrap_or("")),
        other => other.name().to_string(),
    };
    let inner = if p.is_inner() { ", inner" } else { "" };
    format!(
        "in  #{} {} ({}, {nature}{inner})",
        p.id,
        p.name,
        port_type(p.port_type, p.type_size())
    )
}

fn output_label(p: &Output) -> String {
    let nature = p.nature.name();
    format!(
        "out #{} {} ({}, {nature})",
        p.id,
        p.name,
        port_type(p.port_type, p.type_size())
    )
}

fn parameter_label(p: &Parameter) -> String {
    let kind = p.content_type.name();
    let mut s = format!("param #{} {} ({kind}", p.id, p.name);
    if let (Some(min), Some(max)) = (p.min, p.max) {
        let _ = write!(s, " {min}..{max}");
    }
    if !p.choices.is_empty() {
        let _ = write!(s, ", {} choices", p.choices.len());
    }
    s.push(')');
    if p.inherits() {
        s.push_str(" inherited from parent");
    } else {
        let value = p
            .value
            .as_deref()
            .or(p.default_value.as_deref())
            .unwrap_or("");
        let value: String = value.chars().take(60).collect();
        let _ = write!(s, " = {value:?}");
    }
    s
}

fn box_node(b: &BoxDef) -> Node {
    let mut label = format!("{} [id {}]", b.name, b.id);
    let code = b.code();
    if !code.trim().is_empty() {
        let _ = write!(label, "  python, {} lines", code.lines().count());
    }
    if let Some(d) = &b.dialog_file {
        let _ = write!(label, "  dialog {d}");
    }
    let mut node = Node::new(label);
    for p in &b.inputs {
        node.children.push(Node::new(input_label(p)));
    }
    for p in &b.outputs {
        node.children.push(Node::new(output_label(p)));
    }
    for p in &b.parameters {
        node.children.push(Node::new(parameter_label(p)));
    }
    for r in &b.resources {
        node.children.push(Node::new(format!(
            "resource {} ({}, timeout {})",
            r.name,
            r.lock_type,
            r.timeout.unwrap_or(0)
        )));
    }
    if let Some(t) = &b.timeline {
        if t.is_enabled() {
            node.children.push(timeline_node(b, t));
        } else {
            for d in b.diagrams() {
                diagram_children(b, d, &mut node);
            }
        }
    }
    node
}

fn timeline_node(owner: &BoxDef, t: &Timeline) -> Node {
    let end = if t.end_frame() < 0 {
        "last key".to_string()
    } else {
        t.end_frame().to_string()
    };
    let mut node = Node::new(format!(
        "timeline {} fps, frames {}..{end}, {:?} motion resources",
        t.fps(),
        t.start_frame(),
        t.resources_acquisition()
    ));
    for l in &t.layers {
        let mute = if l.mute.unwrap_or(false) {
            " (muted)"
        } else {
            ""
        };
        let mut layer = Node::new(format!("layer {}{mute}", l.name));
        for k in &l.keyframes {
            let mut kf = Node::new(format!("keyframe {:?} at frame {}", k.name, k.index));
            if let Some(d) = &k.diagram {
                diagram_children(owner, d, &mut kf);
            }
            layer.children.push(kf);
        }
        node.children.push(layer);
    }
    if let Some(list) = &t.actuator_list {
        let keyed: Vec<&ActuatorCurve> =
            list.curves.iter().filter(|c| !c.keys.is_empty()).collect();
        let keys: usize = keyed.iter().map(|c| c.keys.len()).sum();
        let mut motion = Node::new(format!(
            "motion: {} curves with keys ({} in all), {keys} keys",
            keyed.len(),
            list.curves.len()
        ));
        for c in keyed {
            let first = c.keys.first().map_or(0, |k| k.frame);
            let last = c.keys.last().map_or(0, |k| k.frame);
            let mute = if c.mute.unwrap_or(false) {
                " (muted)"
            } else {
                ""
            };
            motion.children.push(Node::new(format!(
                "{}{mute}: {} keys, frames {first}..{last}",
                c.actuator,
                c.keys.len()
            )));
        }
        node.children.push(motion);
    }
    node
}

/// Adds a diagram's boxes and links under `node`; `owner` is the box enclosing the diagram.
fn diagram_children(owner: &BoxDef, d: &Diagram, node: &mut Node) {
    for child in &d.boxes {
        node.children.push(box_node(child));
    }
    if d.links.is_empty() {
        return;
    }
    let mut links = Node::new(format!("links ({})", d.links.len()));
    for l in &d.links {
        links.children.push(Node::new(format!(
            "{} -> {}",
            endpoint(owner, d, l.output_owner, l.index_of_output),
            endpoint(owner, d, l.input_owner, l.index_of_input)
        )));
    }
    node.children.push(links);
}

fn endpoint(owner: &BoxDef, d: &Diagram, box_id: i32, port: i32) -> String {
    let b = if box_id == 0 {
        Some(owner)
    } else {
        d.box_by_id(box_id)
    };
    let box_name = if box_id == 0 {
        "(parent)".to_string()
    } else {
        b.map_or_else(|| format!("box {box_id}"), |b| b.name.clone())
    };
    let port_name = match b.and_then(|b| b.port(port)) {
        Some(PortRef::Input(p)) => p.name.clone(),
        Some(PortRef::Output(p)) => p.name.clone(),
        Some(PortRef::Parameter(p)) => format!("param {}", p.name),
        None => format!("#{port}"),
    };
    format!("{box_name}.{port_name}")
}
