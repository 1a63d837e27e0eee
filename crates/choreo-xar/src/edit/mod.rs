//! Editing a behavior's XAR file in place (`choreo edit`, docs/editor.md).
//!
//! Why not the model and the writer: the writer lays a file out one element a line, so a
//! file Choregraphe wrote would come back changed everywhere. A [`Document`] keeps the file's
//! own text; an [`Edit`] becomes the few byte ranges it changes ([`Patch`]) and nothing
//! else, so that saving without an edit gives the file's bytes and `choreo diff` of before
//! and after shows exactly the edit. After each patch the text is read again (the model and
//! the element index are the new text's), and a patch whose text the reader refuses is
//! taken back. Copying and adding boxes: `paste`; grouping boxes into a flow-diagram box and
//! back: `group`. A patch's [`Patch::inverse`] undoes it.
//!
//! Boxes are named by where they are ([`BoxRef`]): from the root, each step a diagram
//! (the layer and keyframe of its owner's timeline; a flow diagram is layer 0, keyframe 0)
//! and the box's id in it, as links name boxes. Ids do not change when a box is renamed.

mod group;
mod group_splices;
mod links;
mod paste;
mod plugin;
mod plugin_rows;
mod plugin_splices;
mod ports;
mod ports_splices;
mod spans;
mod timeline;
mod timeline_splices;

use crate::model::{BoxDef, ContentType, Diagram, XarFile};
use crate::xml::{escape_attribute, write_cdata};
pub use links::LinkRef;
pub use plugin::{
    ANGLE_EDIT, COLOR_EDIT, LOCALIZED_TEXT, MULTI_EDIT, NUMBER_EDIT, SET_LANGUAGE, SWITCH_CASE,
    TEXT_EDIT, plugin_rows, plugin_texts,
};
pub use ports::{BoxFieldEdit, NewPort};
use spans::{Spans, attribute, attribute_insertion};
pub use timeline::{Interpolation, TimelineEdit};

/// One step from a box to a box of one of its diagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The layer of the owner's timeline (0 for a flow diagram).
    pub layer: usize,
    /// The keyframe in that layer (0 for a flow diagram).
    pub keyframe: usize,
    /// The box's id in that keyframe's diagram.
    pub id: i32,
}

/// A box, by the steps from the root box (none: the root box).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoxRef(pub Vec<Step>);

/// A diagram: its owner, and the layer and keyframe of the owner's timeline that hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramRef {
    /// The box whose timeline holds the diagram.
    pub owner: BoxRef,
    /// The layer (0 for a flow diagram).
    pub layer: usize,
    /// The keyframe (0 for a flow diagram).
    pub keyframe: usize,
}

/// One change a user makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Moves a box in its diagram.
    Move {
        /// The box.
        at: BoxRef,
        /// Where, as Choregraphe's `x`.
        x: i32,
        /// Where, as Choregraphe's `y`.
        y: i32,
    },
    /// Renames a box.
    Rename {
        /// The box.
        at: BoxRef,
        /// Its new name.
        name: String,
    },
    /// Sets a parameter's value.
    SetParameter {
        /// The box.
        at: BoxRef,
        /// The parameter's name.
        parameter: String,
        /// The value, as the file writes it (`1.5`, `Hello`, `1` for a true bool).
        value: String,
    },
    /// Replaces a box's script.
    SetScript {
        /// The box.
        at: BoxRef,
        /// The whole script.
        text: String,
    },
    /// Sets a stock box's value as its plugin panel does (`edit/plugin.rs`): a Text Edit's
    /// `text`, a Localized Text's language (`english`), a Number Edit's `number`, ...
    SetPluginText {
        /// The box.
        at: BoxRef,
        /// The `<pluginContent>` child.
        field: String,
        /// The text.
        text: String,
    },
    /// Sets the rows of a stock box's table as its plugin panel does (`edit/plugin.rs`):
    /// Switch Case's cases, Multi Edit's values, a Choice box's answers in one language.
    SetPluginRows {
        /// The box.
        at: BoxRef,
        /// The table: `keywords`, or the Choice box's language (`english`).
        table: String,
        /// The rows, first first (each a port of the box: `output_1`, ...).
        rows: Vec<String>,
    },
    /// Links two ports in a diagram.
    Link {
        /// The diagram.
        diagram: DiagramRef,
        /// The link.
        link: LinkRef,
    },
    /// Removes a link.
    Unlink {
        /// The diagram.
        diagram: DiagramRef,
        /// The link.
        link: LinkRef,
    },
    /// Deletes a box and the links to and from it.
    Delete {
        /// The box (not the root).
        at: BoxRef,
    },
    /// Changes a timeline box's timeline: frames, behavior layers and keyframes, motion keys
    /// (`timeline`).
    Timeline {
        /// The timeline box.
        at: BoxRef,
        /// The change.
        change: TimelineEdit,
    },
    /// Changes a box's own fields: its inputs, outputs, parameters, resources (`ports`).
    BoxFields {
        /// The box.
        at: BoxRef,
        /// The change.
        change: BoxFieldEdit,
    },
    /// Adds a box: one `Box` element's text ([`Document::box_text`] of a box of this
    /// behavior or another, or a box library's), under an id the diagram has free.
    Add {
        /// The diagram.
        diagram: DiagramRef,
        /// The box's element.
        text: String,
        /// Where, as Choregraphe's `x`.
        x: i32,
        /// Where, as Choregraphe's `y`.
        y: i32,
    },
    /// Groups boxes of a diagram into a new flow-diagram box holding them, their links
    /// carried across its border by new ports (Choregraphe's "Convert to box"; `group`).
    Group {
        /// The diagram.
        diagram: DiagramRef,
        /// The ids of the boxes (at least one).
        boxes: Vec<i32>,
        /// The new box's name.
        name: String,
    },
    /// Puts the boxes of a flow-diagram box in its place, its links joined through its ports
    /// (`group`): Group undone.
    Ungroup {
        /// The flow-diagram box.
        at: BoxRef,
    },
}

/// Why an edit was refused (the document is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file is not text the editor can change in place.
    #[error("{0}")]
    Unreadable(String),
    /// The box, diagram, port or link named is not there.
    #[error("{0}")]
    NotFound(String),
    /// The edit breaks one of Choregraphe's rules: why.
    #[error("{0}")]
    Refused(String),
}

/// Bytes replaced: at `at`, `removed` became `inserted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// Where, in the text before the patch.
    pub at: usize,
    /// The text that was there.
    pub removed: String,
    /// The text put in its place.
    pub inserted: String,
}

/// What one edit changed: splices that do not overlap, in the order of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The splices, first in the text first.
    pub splices: Vec<Splice>,
}

impl Patch {
    /// The patch that undoes this one (on the text this one made).
    pub fn inverse(&self) -> Patch {
        let mut shift: isize = 0;
        let splices = self
            .splices
            .iter()
            .map(|s| {
                let at = s.at.saturating_add_signed(shift);
                shift += s.inserted.len() as isize - s.removed.len() as isize;
                Splice {
                    at,
                    removed: s.inserted.clone(),
                    inserted: s.removed.clone(),
                }
            })
            .collect();
        Patch { splices }
    }
}

/// Why Choregraphe would not draw `link` in `diagram` of `owner` (`None`: it would), by its
/// documented rules (`links.rs`): for a page to say so before it asks.
pub fn link_refusal(owner: &BoxDef, diagram: &Diagram, link: LinkRef) -> Option<String> {
    links::check(owner, diagram, link).err()
}

/// A behavior's XAR file open for editing.
#[derive(Debug, Clone)]
pub struct Document {
    name: String,
    text: String,
    xar: XarFile,
    spans: Spans,
}

impl Document {
    /// Opens `bytes` (the file `name`, for messages).
    pub fn open(name: &str, bytes: &[u8]) -> Result<Document, EditError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| {
                EditError::Unreadable(format!(
                    "{name}: not UTF-8 text ({e}): only UTF-8 files are edited in place"
                ))
            })?
            .to_string();
        Document::from_text(name, text)
    }

    fn from_text(name: &str, text: String) -> Result<Document, EditError> {
        let xar = crate::read_xar(name, text.as_bytes())
            .map_err(|e| EditError::Unreadable(e.to_string()))?
            .value;
        let spans =
            Spans::index(&text).map_err(|e| EditError::Unreadable(format!("{name}: {e}")))?;
        Ok(Document {
            name: name.to_string(),
            text,
            xar,
            spans,
        })
    }

    /// The file's bytes as they are now.
    pub fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The behavior as it is now.
    pub fn xar(&self) -> &XarFile {
        &self.xar
    }

    /// Makes `edit`: the patch it made, or why it is refused (then nothing changed).
    pub fn apply(&mut self, edit: &Edit) -> Result<Patch, EditError> {
        let patch = self.patch_for(edit)?;
        self.apply_patch(&patch)?;
        Ok(patch)
    }

    /// Applies a patch (an edit's, or its inverse to undo it).
    pub fn apply_patch(&mut self, patch: &Patch) -> Result<(), EditError> {
        let mut text = self.text.clone();
        for s in patch.splices.iter().rev() {
            let end = s.at + s.removed.len();
            if text.get(s.at..end) != Some(s.removed.as_str()) {
                return Err(EditError::Refused(format!(
                    "{}: the patch does not match the text at byte {}",
                    self.name, s.at
                )));
            }
            text.replace_range(s.at..end, &s.inserted);
        }
        // An edit that sets what the file already holds (a panel set to its own value, a box
        // moved where it is) changes no byte: the document stays as it was, not read again.
        if text != self.text {
            *self = Document::from_text(&self.name, text)?;
        }
        Ok(())
    }

    fn patch_for(&self, edit: &Edit) -> Result<Patch, EditError> {
        let mut splices = match edit {
            Edit::Move { at, x, y } => {
                let node = self.box_node(at)?;
                let mut s = self.set_attribute(node, "x", &x.to_string());
                s.extend(self.set_attribute(node, "y", &y.to_string()));
                s
            }
            Edit::Rename { at, name } => {
                if name.trim().is_empty() || name.contains('/') {
                    return Err(EditError::Refused(format!(
                        "a box's name cannot be empty nor hold `/`: {name:?}"
                    )));
                }
                self.set_attribute(self.box_node(at)?, "name", name)
            }
            Edit::SetParameter {
                at,
                parameter,
                value,
            } => self.set_parameter(at, parameter, value)?,
            Edit::SetScript { at, text } => self.set_script(at, text)?,
            Edit::SetPluginText { at, field, text } => self.set_plugin_text(at, field, text)?,
            Edit::SetPluginRows { at, table, rows } => self.set_plugin_rows(at, table, rows)?,
            Edit::Link { diagram, link } => self.link(diagram, *link)?,
            Edit::Unlink { diagram, link } => {
                let node = self.link_node(diagram, *link)?;
                vec![self.remove_element(node)]
            }
            Edit::Delete { at } => self.delete(at)?,
            Edit::Add {
                diagram,
                text,
                x,
                y,
            } => vec![self.add(diagram, text, *x, *y)?],
            Edit::Timeline { at, change } => self.timeline(at, change)?,
            Edit::BoxFields { at, change } => self.box_fields(at, change)?,
            Edit::Group {
                diagram,
                boxes,
                name,
            } => self.group(diagram, boxes, name)?,
            Edit::Ungroup { at } => self.ungroup(at)?,
        };
        splices.sort_by_key(|s| s.at);
        Ok(Patch { splices })
    }

    /// The `Box` element of the root box.
    fn root_node(&self) -> Result<usize, EditError> {
        self.spans
            .child(0, "Box")
            .ok_or_else(|| EditError::NotFound("the file has no root box".to_string()))
    }

    fn box_node(&self, at: &BoxRef) -> Result<usize, EditError> {
        let mut node = self.root_node()?;
        for step in &at.0 {
            let diagram = self.diagram_node(node, step.layer, step.keyframe)?;
            node = self
                .spans
                .children_named(diagram, "Box")
                .find(|&b| self.attribute(b, "id") == Some(step.id.to_string().as_str()))
                .ok_or_else(|| {
                    EditError::NotFound(format!("no box with id {} in that diagram", step.id))
                })?;
        }
        Ok(node)
    }

    /// The `Diagram` element of keyframe `keyframe` of layer `layer` of `owner`'s timeline.
    fn diagram_node(
        &self,
        owner: usize,
        layer: usize,
        keyframe: usize,
    ) -> Result<usize, EditError> {
        let missing =
            || EditError::NotFound(format!("no diagram at layer {layer}, keyframe {keyframe}"));
        let timeline = self.spans.child(owner, "Timeline").ok_or_else(missing)?;
        let layer = self
            .spans
            .children_named(timeline, "BehaviorLayer")
            .nth(layer)
            .ok_or_else(missing)?;
        let keyframe = self
            .spans
            .children_named(layer, "BehaviorKeyframe")
            .nth(keyframe)
            .ok_or_else(missing)?;
        self.spans.child(keyframe, "Diagram").ok_or_else(missing)
    }

    /// The box at `at`, as the model reads it.
    pub fn box_def(&self, at: &BoxRef) -> Result<&BoxDef, EditError> {
        let mut def = &self.xar.root_box;
        for step in &at.0 {
            def = self
                .diagram_def(def, step.layer, step.keyframe)?
                .box_by_id(step.id)
                .ok_or_else(|| EditError::NotFound(format!("no box with id {}", step.id)))?;
        }
        Ok(def)
    }

    /// The diagram at `at`, as the model reads it.
    pub fn diagram(&self, at: &DiagramRef) -> Result<&Diagram, EditError> {
        self.diagram_def(self.box_def(&at.owner)?, at.layer, at.keyframe)
    }

    fn diagram_def<'a>(
        &self,
        owner: &'a BoxDef,
        layer: usize,
        keyframe: usize,
    ) -> Result<&'a Diagram, EditError> {
        owner
            .timeline
            .as_ref()
            .and_then(|t| t.layers.get(layer))
            .and_then(|l| l.keyframes.get(keyframe))
            .and_then(|k| k.diagram.as_ref())
            .ok_or_else(|| {
                EditError::NotFound(format!(
                    "{} has no diagram at layer {layer}, keyframe {keyframe}",
                    owner.name
                ))
            })
    }

    /// The raw value of attribute `name` of element `node`.
    fn attribute(&self, node: usize, name: &str) -> Option<&str> {
        let open = self.spans.nodes[node].open.clone();
        let tag = &self.text[open.clone()];
        attribute(tag, name).map(|r| &tag[r])
    }

    /// Sets attribute `name` of `node` to `value` (escaped here): its value replaced, or the
    /// attribute added after the others.
    fn set_attribute(&self, node: usize, name: &str, value: &str) -> Vec<Splice> {
        let open = self.spans.nodes[node].open.clone();
        let tag = &self.text[open.clone()];
        let mut escaped = String::new();
        escape_attribute(&mut escaped, value);
        match attribute(tag, name) {
            Some(r) if tag[r.clone()] == escaped => Vec::new(),
            Some(r) => vec![Splice {
                at: open.start + r.start,
                removed: tag[r].to_string(),
                inserted: escaped,
            }],
            None => vec![Splice {
                at: open.start + attribute_insertion(tag),
                removed: String::new(),
                inserted: format!(" {name}=\"{escaped}\""),
            }],
        }
    }

    fn set_parameter(
        &self,
        at: &BoxRef,
        parameter: &str,
        value: &str,
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let Some(p) = def.parameters.iter().find(|p| p.name == parameter) else {
            return Err(EditError::NotFound(format!(
                "{} has no parameter {parameter:?}",
                def.name
            )));
        };
        check_value(p.content_type, p.min, p.max, value)
            .map_err(|why| EditError::Refused(format!("{parameter}: {why}")))?;
        let node = self.box_node(at)?;
        let element = self
            .spans
            .children_named(node, "Parameter")
            .find(|&n| self.attribute(n, "name").map(unescape).as_deref() == Some(parameter))
            .ok_or_else(|| EditError::NotFound(format!("no parameter {parameter:?}")))?;
        Ok(self.set_attribute(element, "value", value))
    }

    fn set_script(&self, at: &BoxRef, text: &str) -> Result<Vec<Splice>, EditError> {
        let node = self.box_node(at)?;
        let content = self
            .spans
            .child(node, "script")
            .and_then(|s| self.spans.child(s, "content"))
            .ok_or_else(|| EditError::NotFound("the box has no script".to_string()))?;
        let n = &self.spans.nodes[content];
        let mut inserted = String::new();
        write_cdata(&mut inserted, text);
        Ok(match &n.close {
            Some(close) => vec![Splice {
                at: n.open.end,
                removed: self.text[n.open.end..close.start].to_string(),
                inserted,
            }],
            // `<content/>`: an empty script becomes one with its text.
            None => vec![Splice {
                at: n.open.start,
                removed: self.text[n.open.clone()].to_string(),
                inserted: format!("<content>{inserted}</content>"),
            }],
        })
    }

    fn link(&self, diagram: &DiagramRef, link: LinkRef) -> Result<Vec<Splice>, EditError> {
        let owner = self.box_def(&diagram.owner)?;
        let d = self.diagram_def(owner, diagram.layer, diagram.keyframe)?;
        links::check(owner, d, link).map_err(EditError::Refused)?;
        let node = self.diagram_node(
            self.box_node(&diagram.owner)?,
            diagram.layer,
            diagram.keyframe,
        )?;
        let element = format!(
            "<Link inputowner=\"{}\" indexofinput=\"{}\" outputowner=\"{}\" indexofoutput=\"{}\" />",
            link.to, link.to_port, link.from, link.from_port
        );
        Ok(vec![self.insert_last(node, &element)])
    }

    fn link_node(&self, diagram: &DiagramRef, link: LinkRef) -> Result<usize, EditError> {
        let node = self.diagram_node(
            self.box_node(&diagram.owner)?,
            diagram.layer,
            diagram.keyframe,
        )?;
        let is =
            |n: usize, name: &str, v: i32| self.attribute(n, name) == Some(v.to_string().as_str());
        self.spans
            .children_named(node, "Link")
            .find(|&n| {
                is(n, "inputowner", link.to)
                    && is(n, "indexofinput", link.to_port)
                    && is(n, "outputowner", link.from)
                    && is(n, "indexofoutput", link.from_port)
            })
            .ok_or_else(|| EditError::NotFound("no such link in that diagram".to_string()))
    }

    fn delete(&self, at: &BoxRef) -> Result<Vec<Splice>, EditError> {
        let Some((last, owner_steps)) = at.0.split_last() else {
            return Err(EditError::Refused(
                "the root box cannot be deleted".to_string(),
            ));
        };
        let node = self.box_node(at)?;
        let diagram = self.diagram_node(
            self.box_node(&BoxRef(owner_steps.to_vec()))?,
            last.layer,
            last.keyframe,
        )?;
        let id = last.id.to_string();
        let mut splices = vec![self.remove_element(node)];
        for link in self.spans.children_named(diagram, "Link") {
            if self.attribute(link, "inputowner") == Some(id.as_str())
                || self.attribute(link, "outputowner") == Some(id.as_str())
            {
                splices.push(self.remove_element(link));
            }
        }
        Ok(splices)
    }

    /// Removes an element with the white space before it on its line (so that a file laid
    /// out one element a line loses the line).
    fn remove_element(&self, node: usize) -> Splice {
        let span = self.spans.nodes[node].span();
        let before = &self.text[..span.start];
        let blank = before.len() - before.trim_end_matches([' ', '\t']).len();
        let start = if before[..before.len() - blank].ends_with('\n') {
            // The whole line, its line end included.
            let line = before.len() - blank - 1;
            if before[..line].ends_with('\r') {
                line - 1
            } else {
                line
            }
        } else {
            span.start - blank
        };
        Splice {
            at: start,
            removed: self.text[start..span.end].to_string(),
            inserted: String::new(),
        }
    }

    /// Inserts `element` as the last child of `node`, laid out as the child before it
    /// ([`Document::insert_after`]); an empty `<x/>` is opened up to hold it.
    fn insert_last(&self, node: usize, element: &str) -> Splice {
        let n = &self.spans.nodes[node];
        if n.close.is_none() {
            // `<Diagram/>`: opened up to hold the element.
            let tag = &self.text[n.open.clone()];
            return Splice {
                at: n.open.start,
                removed: tag.to_string(),
                inserted: format!(
                    "{}>{element}</{}>",
                    &tag[..attribute_insertion(tag)],
                    n.name
                ),
            };
        }
        match n.children.last() {
            Some(&last) => self.insert_after(last, element),
            None => Splice {
                at: n.open.end,
                removed: String::new(),
                inserted: element.to_string(),
            },
        }
    }

    /// Inserts `element` right before the element `sibling`: on a line of its own with the
    /// sibling's indentation when the sibling has its line, else right before it.
    fn insert_before(&self, sibling: usize, element: &str) -> Splice {
        let span = self.spans.nodes[sibling].span();
        let line = self.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line..span.start];
        let own_line = !indent.is_empty() && indent.chars().all(|c| c == ' ' || c == '\t');
        let inserted = if own_line {
            format!("{element}{}{indent}", self.newline())
        } else {
            element.to_string()
        };
        Splice {
            at: span.start,
            removed: String::new(),
            inserted,
        }
    }

    /// The file's line end.
    fn newline(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// Inserts `element` right after the element `sibling`: on a line of its own with the
    /// sibling's indentation when the sibling has its line, else right after it.
    pub(super) fn insert_after(&self, sibling: usize, element: &str) -> Splice {
        let span = self.spans.nodes[sibling].span();
        let line = self.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line..span.start];
        let own_line = !indent.is_empty() && indent.chars().all(|c| c == ' ' || c == '\t');
        let inserted = if own_line {
            format!("{}{indent}{element}", self.newline())
        } else {
            element.to_string()
        };
        Splice {
            at: span.end,
            removed: String::new(),
            inserted,
        }
    }
}

/// Whether `value` is one a parameter of `kind` (bounded by `min`, `max`) takes, as
/// Choregraphe's parameter fields allow it: `Err` says why not.
pub(super) fn check_value(
    kind: ContentType,
    min: Option<f64>,
    max: Option<f64>,
    value: &str,
) -> Result<(), String> {
    let number = match kind {
        ContentType::Bool => {
            return match value {
                "0" | "1" => Ok(()),
                _ => Err(format!("a boolean is 0 or 1, not {value:?}")),
            };
        }
        ContentType::Int => value
            .trim()
            .parse::<i64>()
            .map(|v| v as f64)
            .map_err(|_| format!("an integer, not {value:?}"))?,
        ContentType::Double => value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("a number, not {value:?}"))?,
        _ => return Ok(()),
    };
    if min.is_some_and(|m| number < m) || max.is_some_and(|m| number > m) {
        return Err(format!(
            "{value} is outside {}..{}",
            min.map_or("".to_string(), |m| m.to_string()),
            max.map_or("".to_string(), |m| m.to_string())
        ));
    }
    Ok(())
}

/// A refusal saying `why`.
fn refused(why: impl Into<String>) -> EditError {
    EditError::Refused(why.into())
}

/// `value` escaped for an attribute.
fn escaped(value: &str) -> String {
    let mut out = String::new();
    escape_attribute(&mut out, value);
    out
}

/// An attribute's raw value with XML's references resolved.
fn unescape(raw: &str) -> String {
    quick_xml::escape::unescape(raw).map_or_else(|_| raw.to_string(), |v| v.into_owned())
}

#[cfg(test)]
mod group_tests;
#[cfg(test)]
mod plugin_panel_tests;
#[cfg(test)]
mod plugin_tests;
#[cfg(test)]
mod ports_tests;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod timeline_tests;
