//! The splices of a [`BoxFieldEdit`] (the rules: `ports.rs`).

use super::ports::{BoxFieldEdit, NewPort};
use super::{BoxRef, Document, EditError, Splice, escaped, refused};
use crate::model::{BoxDef, ContentType, InputNature};

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
    fn insert_field(&self, node: usize, kind: &str, element: &str) -> Splice {
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
        let mut out = vec![self.remove_element(port)];
        let is = |n: usize, a: &str, v: i32| self.attribute(n, a) == Some(v.to_string().as_str());
        // Its links in the diagram that holds the box (the root box has none).
        if let Some((last, owner)) = at.0.split_last() {
            let holder = self.box_node(&BoxRef(owner.to_vec()))?;
            let diagram = self.diagram_node(holder, last.layer, last.keyframe)?;
            for l in self.spans.children_named(diagram, "Link") {
                if (is(l, "inputowner", last.id) && is(l, "indexofinput", id))
                    || (is(l, "outputowner", last.id) && is(l, "indexofoutput", id))
                {
                    out.push(self.remove_element(l));
                }
            }
        }
        // And inside its own diagrams, where its inputs feed and its outputs take results.
        let mut diagrams = Vec::new();
        if let Some(t) = self.spans.child(node, "Timeline") {
            for layer in self.spans.children_named(t, "BehaviorLayer") {
                for k in self.spans.children_named(layer, "BehaviorKeyframe") {
                    diagrams.extend(self.spans.child(k, "Diagram"));
                }
            }
        }
        for d in diagrams {
            for l in self.spans.children_named(d, "Link") {
                if (is(l, "outputowner", 0) && is(l, "indexofoutput", id))
                    || (is(l, "inputowner", 0) && is(l, "indexofinput", id))
                {
                    out.push(self.remove_element(l));
                }
            }
        }
        Ok(out)
    }
}

/// The element of `port` for the box `def`, after Choregraphe's rules; and its kind.
fn new_port(def: &BoxDef, port: &NewPort) -> Result<(&'static str, String), EditError> {
    // Ports and parameters share one id space: the next above the box's highest.
    let id = def
        .inputs
        .iter()
        .map(|p| p.id)
        .chain(def.outputs.iter().map(|p| p.id))
        .chain(def.parameters.iter().map(|p| p.id))
        .max()
        .unwrap_or(0)
        + 1;
    let taken = |name: &str| {
        def.inputs.iter().any(|p| p.name == name) || def.outputs.iter().any(|p| p.name == name)
    };
    match port {
        NewPort::Input {
            name,
            port_type,
            nature,
            tooltip,
        } => {
            port_name(def, name, taken(name))?;
            let inner = matches!(nature, InputNature::OnLoad | InputNature::Memory);
            let element = port_element(
                "Input",
                name,
                port_type.code(),
                nature.code(),
                inner,
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
            port_name(def, name, taken(name))?;
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
            if name.trim().is_empty() || def.parameters.iter().any(|p| &p.name == name) {
                return Err(refused(format!(
                    "a parameter's name is unique for each box: {} has {name:?} already (or it is empty)",
                    def.name
                )));
            }
            super::check_value(*content_type, *min, *max, value)
                .map_err(|why| refused(format!("{name}: {why}")))?;
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
