//! The splices of a [`BoxFieldEdit`] (the rules: `ports.rs`).

use super::links::{self, LinkRef};
use super::ports::{BoxFieldEdit, NewPort};
use super::spans::attribute;
use super::{BoxRef, Document, EditError, Splice, check_value, escaped, refused};
use crate::model::{BoxDef, ContentType, Diagram, InputNature, Parameter, Port, PortRef};

/// The order Choregraphe writes a box's fields in: a new one goes among its kind.
const ORDER: &[&str] = &["Input", "Output", "Parameter", "Resource", "Timeline"];

/// A name Python takes as a method's (`onInput_<name>`, `self.<name>()`).
fn python_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A link of a port, as the file has it.
struct PortLink {
    /// Its `Link` element.
    node: usize,
    /// `None`: in the diagram that holds the box; else the layer and keyframe of the box's
    /// own diagram that has it (where the box is owner 0).
    inside: Option<(usize, usize)>,
    /// Its ends.
    link: LinkRef,
}

impl Document {
    /// The splices of `change` to the fields of the box at `at`.
    pub(super) fn box_fields(
        &self,
        at: &BoxRef,
        change: &BoxFieldEdit,
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let node = self.box_node(at)?;
        match change {
            BoxFieldEdit::AddPort(port) => {
                let (kind, element) = new_port(def, port)?;
                Ok(vec![self.insert_field(node, kind, &element)])
            }
            BoxFieldEdit::RemovePort { name, kind } => self.remove_port(at, def, node, name, kind),
            BoxFieldEdit::ChangePort { name, kind, port } => {
                self.change_port(at, def, node, name, kind, port)
            }
            BoxFieldEdit::AddResource { name, lock } => {
                if name.trim().is_empty() || def.resources.iter().any(|r| &r.name == name) {
                    return Err(refused(format!(
                        "{} already takes a resource named {name:?} (or the name is empty)",
                        def.name
                    )));
                }
                let element = format!(
                    "<Resource name=\"{}\" type=\"{}\" timeout=\"0\" />",
                    escaped(name),
                    escaped(lock)
                );
                Ok(vec![self.insert_field(node, "Resource", &element)])
            }
            BoxFieldEdit::RemoveResource { name } => {
                let r = self
                    .spans
                    .children_named(node, "Resource")
                    .find(|&n| self.attribute(n, "name") == Some(escaped(name).as_str()))
                    .ok_or_else(|| {
                        EditError::NotFound(format!("{} takes no resource {name:?}", def.name))
                    })?;
                Ok(vec![self.remove_element(r)])
            }
        }
    }

    /// Inserts `element` (a `kind` element) among the box `node`'s fields, after the last of
    /// its kind, or where its kind goes in [`ORDER`].
    pub(super) fn insert_field(&self, node: usize, kind: &str, element: &str) -> Splice {
        let rank = ORDER.iter().position(|k| *k == kind).unwrap_or(ORDER.len());
        let children = &self.spans.nodes[node].children;
        let rank_of = |c: usize| ORDER.iter().position(|k| *k == self.spans.nodes[c].name);
        let before_or_same = children
            .iter()
            .copied()
            .filter(|&c| rank_of(c).is_some_and(|r| r <= rank))
            .max_by_key(|&c| (rank_of(c), self.spans.nodes[c].open.start));
        if let Some(last) = before_or_same {
            return self.insert_after(last, element);
        }
        match children
            .iter()
            .copied()
            .find(|&c| rank_of(c).is_some_and(|r| r > rank))
        {
            Some(next) => self.insert_before(next, element),
            None => self.insert_last(node, element),
        }
    }

    fn remove_port(
        &self,
        at: &BoxRef,
        def: &BoxDef,
        node: usize,
        name: &str,
        kind: &str,
    ) -> Result<Vec<Splice>, EditError> {
        let (element, id) = self.find_port(def, node, name, kind)?;
        let mut out = vec![self.remove_element(element)];
        out.extend(
            self.port_links(at, node, id)?
                .iter()
                .map(|l| self.remove_element(l.node)),
        );
        Ok(out)
    }

    /// The element and id of the `kind` (`input`, `output`, `parameter`) named `name` of
    /// the box `def`, whose element is `node`.
    fn find_port(
        &self,
        def: &BoxDef,
        node: usize,
        name: &str,
        kind: &str,
    ) -> Result<(usize, i32), EditError> {
        let (element, id) = match kind {
            "input" => (
                "Input",
                def.inputs.iter().find(|p| p.name == name).map(|p| p.id),
            ),
            "output" => (
                "Output",
                def.outputs.iter().find(|p| p.name == name).map(|p| p.id),
            ),
            "parameter" => (
                "Parameter",
                def.parameters.iter().find(|p| p.name == name).map(|p| p.id),
            ),
            _ => return Err(refused("a port is an input, an output or a parameter")),
        };
        let id =
            id.ok_or_else(|| EditError::NotFound(format!("{} has no {kind} {name:?}", def.name)))?;
        let port = self
            .spans
            .children_named(node, element)
            .find(|&n| self.attribute(n, "id") == Some(id.to_string().as_str()))
            .ok_or_else(|| EditError::NotFound(format!("no {element} with id {id}")))?;
        Ok((port, id))
    }

    /// The links of port `id` of the box at `at` (element `node`): in the diagram that holds
    /// the box (the root box has none), and inside its own diagrams, where its inputs feed
    /// and its outputs take results.
    fn port_links(&self, at: &BoxRef, node: usize, id: i32) -> Result<Vec<PortLink>, EditError> {
        let mut out = Vec::new();
        if let Some((last, owner)) = at.0.split_last() {
            let holder = self.box_node(&BoxRef(owner.to_vec()))?;
            let diagram = self.diagram_node(holder, last.layer, last.keyframe)?;
            out.extend(self.links_of(diagram, last.id, id, None));
        }
        if let Some(t) = self.spans.child(node, "Timeline") {
            for (l, layer) in self.spans.children_named(t, "BehaviorLayer").enumerate() {
                for (k, key) in self
                    .spans
                    .children_named(layer, "BehaviorKeyframe")
                    .enumerate()
                {
                    if let Some(d) = self.spans.child(key, "Diagram") {
                        out.extend(self.links_of(d, 0, id, Some((l, k))));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The `Link` elements of `diagram` to or from port `port` of its box `owner`.
    fn links_of(
        &self,
        diagram: usize,
        owner: i32,
        port: i32,
        inside: Option<(usize, usize)>,
    ) -> Vec<PortLink> {
        let number = |n: usize, a: &str| self.attribute(n, a)?.trim().parse::<i32>().ok();
        self.spans
            .children_named(diagram, "Link")
            .filter_map(|node| {
                let link = LinkRef {
                    from: number(node, "outputowner")?,
                    from_port: number(node, "indexofoutput")?,
                    to: number(node, "inputowner")?,
                    to_port: number(node, "indexofinput")?,
                };
                let touches = (link.to, link.to_port) == (owner, port)
                    || (link.from, link.from_port) == (owner, port);
                touches.then_some(PortLink { node, inside, link })
            })
            .collect()
    }

    /// Gives the `kind` named `name` of the box at `at` (`def`, element `node`) the fields
    /// of `port` in place: its id, and so its links, stay.
    fn change_port(
        &self,
        at: &BoxRef,
        def: &BoxDef,
        node: usize,
        name: &str,
        kind: &str,
        port: &NewPort,
    ) -> Result<Vec<Splice>, EditError> {
        let (element, id) = self.find_port(def, node, name, kind)?;
        if port_kind(port) != kind {
            return Err(refused(format!(
                "{name:?} is of kind {kind} and the fields given of kind {}: a port keeps its kind",
                port_kind(port)
            )));
        }
        check_fields(def, port, Some(id))?;
        let missing = || EditError::NotFound(format!("{} has no port with id {id}", def.name));
        // The box as it will be, for the links' rules.
        let mut changed = def.clone();
        let fields = match port {
            NewPort::Input {
                name,
                port_type,
                nature,
                tooltip,
            } => {
                let p = changed.inputs.iter_mut().find(|p| p.id == id);
                let p = p.ok_or_else(missing)?;
                // `inner` follows a new nature as a new port's does; else it stays.
                let inner = if p.nature == *nature {
                    p.is_inner()
                } else {
                    inner(*nature)
                };
                let mut fields = port_fields(p, p.nature.code(), port, nature.code());
                fields.push(("inner", flag(p.is_inner()), flag(inner)));
                (p.name, p.port_type, p.nature) = (name.clone(), *port_type, *nature);
                (p.inner, p.tooltip) = (Some(inner), Some(tooltip.clone()));
                fields
            }
            NewPort::Output {
                name,
                port_type,
                nature,
                tooltip,
            } => {
                let p = changed.outputs.iter_mut().find(|p| p.id == id);
                let p = p.ok_or_else(missing)?;
                let fields = port_fields(p, p.nature.code(), port, nature.code());
                (p.name, p.port_type, p.nature) = (name.clone(), *port_type, *nature);
                p.tooltip = Some(tooltip.clone());
                fields
            }
            NewPort::Parameter { .. } => {
                let p = def.parameters.iter().find(|p| p.id == id);
                return self.change_parameter(element, p.ok_or_else(missing)?, port);
            }
        };
        self.check_links(at, def, &changed, &self.port_links(at, node, id)?)?;
        Ok(self.rewrite(element, &fields))
    }

    /// The splices that give the `Parameter` element `element` (`p` as read) the fields of
    /// `port` (a parameter): its value kept, `port`'s value its default (`ports.rs`).
    fn change_parameter(
        &self,
        element: usize,
        p: &Parameter,
        port: &NewPort,
    ) -> Result<Vec<Splice>, EditError> {
        let NewPort::Parameter {
            name,
            content_type,
            value,
            min,
            max,
            tooltip,
        } = port
        else {
            return Err(refused("the fields given are not a parameter's"));
        };
        // Min and max are the Integer's and the Float's only.
        let numeric = matches!(content_type, ContentType::Int | ContentType::Double);
        let (min, max) = if numeric { (*min, *max) } else { (None, None) };
        if let Some(kept) = &p.value {
            check_value(*content_type, min, max, kept).map_err(|why| {
                refused(format!(
                    "{name}: its value stays, and {why}: set a value the new fields take first"
                ))
            })?;
        }
        let type_changed = p.content_type != *content_type;
        let mut out = self.rewrite(
            element,
            &[
                ("name", p.name.clone(), name.clone()),
                (
                    "content_type",
                    p.content_type.code().to_string(),
                    content_type.code().to_string(),
                ),
                (
                    "default_value",
                    p.default_value.clone().unwrap_or_default(),
                    value.clone(),
                ),
                (
                    "tooltip",
                    p.tooltip.clone().unwrap_or_default(),
                    tooltip.clone(),
                ),
            ],
        );
        if numeric || type_changed {
            for (attribute, old, new) in [("min", p.min, min), ("max", p.max, max)] {
                match new {
                    Some(v) if old != new => {
                        out.extend(self.set_attribute(element, attribute, &v.to_string()));
                    }
                    Some(_) => {}
                    None => out.extend(self.remove_attribute(element, attribute)),
                }
            }
        }
        // Multiple Choices, Custom string possible and Password are the String's only.
        if type_changed && *content_type != ContentType::String {
            out.extend(self.remove_attribute(element, "custom_choice"));
            out.extend(self.remove_attribute(element, "password"));
            for choice in self.spans.children_named(element, "Choice") {
                out.push(self.remove_element(choice));
            }
        }
        Ok(out)
    }

    /// The splices that set each `(attribute, old, new)` of `element` whose value changes.
    fn rewrite(&self, element: usize, fields: &[(&str, String, String)]) -> Vec<Splice> {
        fields
            .iter()
            .filter(|(_, old, new)| old != new)
            .flat_map(|(attribute, _, new)| self.set_attribute(element, attribute, new))
            .collect()
    }

    /// Removes attribute `name` of `node` with the space before it (nothing if it has none).
    fn remove_attribute(&self, node: usize, name: &str) -> Vec<Splice> {
        let open = self.spans.nodes[node].open.clone();
        let tag = &self.text[open.clone()];
        let Some(value) = attribute(tag, name) else {
            return Vec::new();
        };
        // Back over the opening quote, `=` and spaces, the name, and the space before it.
        let before = tag[..value.start.saturating_sub(1)]
            .trim_end_matches(|c: char| c == '=' || c.is_ascii_whitespace());
        let start = before.strip_suffix(name).unwrap_or(before).trim_end().len();
        // Past the closing quote.
        let end = value.end + 1;
        vec![Splice {
            at: open.start + start,
            removed: tag[start..end].to_string(),
            inserted: String::new(),
        }]
    }

    /// Refuses when a link of the port that Choregraphe draws with the box as it is (`def`)
    /// it would not draw with the box `changed`: the link named, and why in a refused link's
    /// words.
    fn check_links(
        &self,
        at: &BoxRef,
        def: &BoxDef,
        changed: &BoxDef,
        port_links: &[PortLink],
    ) -> Result<(), EditError> {
        for l in port_links {
            // Each side: the diagram's owner and the diagram, the link itself left out so
            // that it is no duplicate of itself.
            let (before, after) = match (l.inside, at.0.split_last()) {
                (Some((layer, keyframe)), _) => {
                    let d = without(self.diagram_def(def, layer, keyframe)?, l.link);
                    ((def, d.clone()), (changed, d))
                }
                (None, Some((last, steps))) => {
                    let holder = self.box_def(&BoxRef(steps.to_vec()))?;
                    let d = without(self.diagram_def(holder, last.layer, last.keyframe)?, l.link);
                    let mut after = d.clone();
                    for b in after.boxes.iter_mut().filter(|b| b.id == last.id) {
                        *b = changed.clone();
                    }
                    ((holder, d), (holder, after))
                }
                (None, None) => continue,
            };
            let was = links::check(before.0, &before.1, l.link);
            if let (Ok(()), Err(why)) = (was, links::check(after.0, &after.1, l.link)) {
                return Err(refused(format!(
                    "the link {} would break: {why}",
                    link_name(before.0, &before.1, l.link)
                )));
            }
        }
        Ok(())
    }
}

/// The element of `port` for the box `def`, after Choregraphe's rules; and its kind.
fn new_port(def: &BoxDef, port: &NewPort) -> Result<(&'static str, String), EditError> {
    check_fields(def, port, None)?;
    let id = highest_id(def) + 1;
    match port {
        NewPort::Input {
            name,
            port_type,
            nature,
            tooltip,
        } => {
            let element = port_element(
                "Input",
                name,
                port_type.code(),
                nature.code(),
                inner(*nature),
                tooltip,
                id,
            );
            Ok(("Input", element))
        }
        NewPort::Output {
            name,
            port_type,
            nature,
            tooltip,
        } => {
            let element = port_element(
                "Output",
                name,
                port_type.code(),
                nature.code(),
                false,
                tooltip,
                id,
            );
            Ok(("Output", element))
        }
        NewPort::Parameter {
            name,
            content_type,
            value,
            min,
            max,
            tooltip,
        } => {
            let bounds = match (content_type, min, max) {
                (ContentType::Int | ContentType::Double, Some(lo), Some(hi)) => {
                    format!(" min=\"{lo}\" max=\"{hi}\"")
                }
                _ => String::new(),
            };
            Ok((
                "Parameter",
                format!(
                    "<Parameter name=\"{}\" inherits_from_parent=\"0\" content_type=\"{}\" value=\"{v}\" default_value=\"{v}\"{bounds} tooltip=\"{}\" id=\"{id}\" />",
                    escaped(name),
                    content_type.code(),
                    escaped(tooltip),
                    v = escaped(value)
                ),
            ))
        }
    }
}

/// The highest id of the box's ports and parameters: they share one id space, and a new
/// one takes the next.
pub(super) fn highest_id(def: &BoxDef) -> i32 {
    def.inputs
        .iter()
        .map(|p| p.id)
        .chain(def.outputs.iter().map(|p| p.id))
        .chain(def.parameters.iter().map(|p| p.id))
        .max()
        .unwrap_or(0)
}

/// The rules a port's fields follow, added or changed (`except`: the port changed, whose
/// own name is no clash): its name, and a parameter's value for its type, min and max.
fn check_fields(def: &BoxDef, port: &NewPort, except: Option<i32>) -> Result<(), EditError> {
    let other = |id: i32| Some(id) != except;
    match port {
        NewPort::Input { name, .. } | NewPort::Output { name, .. } => {
            let taken = def
                .inputs
                .iter()
                .map(|p| (p.id, &p.name))
                .chain(def.outputs.iter().map(|p| (p.id, &p.name)))
                .any(|(id, n)| other(id) && n == name);
            port_name(def, name, taken)
        }
        NewPort::Parameter {
            name,
            content_type,
            value,
            min,
            max,
            ..
        } => {
            if name.trim().is_empty()
                || def
                    .parameters
                    .iter()
                    .any(|p| other(p.id) && &p.name == name)
            {
                return Err(refused(format!(
                    "a parameter's name is unique for each box: {} has {name:?} already (or it is empty)",
                    def.name
                )));
            }
            check_value(*content_type, *min, *max, value)
                .map_err(|why| refused(format!("{name}: {why}")))
        }
    }
}

/// Whether an input of `nature` is seen only inside its box: onLoad and ALMemory inputs are
/// "only visible within the diagram".
fn inner(nature: InputNature) -> bool {
    matches!(nature, InputNature::OnLoad | InputNature::Memory)
}

/// `input`, `output` or `parameter`, as [`BoxFieldEdit::RemovePort`] names kinds.
fn port_kind(port: &NewPort) -> &'static str {
    match port {
        NewPort::Input { .. } => "input",
        NewPort::Output { .. } => "output",
        NewPort::Parameter { .. } => "parameter",
    }
}

/// A flag as the file writes it.
fn flag(on: bool) -> String {
    u8::from(on).to_string()
}

/// The `(attribute, old, new)` of the fields inputs and outputs share, `p` (whose nature's
/// code is `nature`) becoming `port` (whose nature's code is `new_nature`).
fn port_fields<N>(
    p: &Port<N>,
    nature: i32,
    port: &NewPort,
    new_nature: i32,
) -> Vec<(&'static str, String, String)> {
    let (NewPort::Input {
        name,
        port_type,
        tooltip,
        ..
    }
    | NewPort::Output {
        name,
        port_type,
        tooltip,
        ..
    }) = port
    else {
        return Vec::new();
    };
    vec![
        ("name", p.name.clone(), name.clone()),
        (
            "type",
            p.port_type.code().to_string(),
            port_type.code().to_string(),
        ),
        ("nature", nature.to_string(), new_nature.to_string()),
        (
            "tooltip",
            p.tooltip.clone().unwrap_or_default(),
            tooltip.clone(),
        ),
    ]
}

/// `diagram` without `link` (nor its copies).
fn without(diagram: &Diagram, link: LinkRef) -> Diagram {
    let mut d = diagram.clone();
    d.links.retain(|l| {
        (
            l.output_owner,
            l.index_of_output,
            l.input_owner,
            l.index_of_input,
        ) != (link.from, link.from_port, link.to, link.to_port)
    });
    d
}

/// A link as a user reads it, `box.port -> box.port` (box 0: the diagram's owner).
fn link_name(owner: &BoxDef, diagram: &Diagram, link: LinkRef) -> String {
    let end = |b: i32, port: i32| {
        let def = if b == 0 {
            Some(owner)
        } else {
            diagram.box_by_id(b)
        };
        let port = match def.and_then(|d| d.port(port)) {
            Some(PortRef::Input(i)) => i.name.clone(),
            Some(PortRef::Output(o)) => o.name.clone(),
            Some(PortRef::Parameter(p)) => p.name.clone(),
            None => port.to_string(),
        };
        format!(
            "{}.{port}",
            def.map_or_else(|| b.to_string(), |d| d.name.clone())
        )
    };
    format!(
        "{} -> {}",
        end(link.from, link.from_port),
        end(link.to, link.to_port)
    )
}

/// An `Input` or `Output` element as Choregraphe writes one.
fn port_element(
    element: &str,
    name: &str,
    kind: i32,
    nature: i32,
    inner: bool,
    tooltip: &str,
    id: i32,
) -> String {
    format!(
        "<{element} name=\"{}\" type=\"{kind}\" type_size=\"1\" nature=\"{nature}\" inner=\"{}\" tooltip=\"{}\" id=\"{id}\" />",
        escaped(name),
        u8::from(inner),
        escaped(tooltip)
    )
}

/// An input's or output's name: a Python name the box's other ports do not have.
fn port_name(def: &BoxDef, name: &str, taken: bool) -> Result<(), EditError> {
    if !python_name(name) {
        return Err(refused(format!(
            "{name:?}: a port's name becomes Python (onInput_{name}, self.{name}()): letters, digits and _, not starting with a digit"
        )));
    }
    if taken {
        return Err(refused(format!(
            "{} already has a port named {name:?}",
            def.name
        )));
    }
    Ok(())
}
