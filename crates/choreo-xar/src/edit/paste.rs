//! Copying a box and adding one: a copy of a box of this behavior or another, or the box of
//! a box library's file, is its element's text, placed in a diagram under an id no box of
//! the diagram has.
//!
//! The text goes in as it was written, its first line indented as the diagram's boxes are:
//! re-indenting the lines below would change the code of the scripts inside it (CDATA is
//! kept byte for byte).

use super::spans::{Spans, attribute, attribute_insertion};
use super::{BoxRef, DiagramRef, Document, EditError, Splice};
use crate::xml::escape_attribute;

impl Document {
    /// The text of the element of the box at `at`, as the file writes it: what a copy
    /// takes (the root box of a box library's file is the library's box).
    pub fn box_text(&self, at: &BoxRef) -> Result<String, EditError> {
        let node = self.box_node(at)?;
        Ok(self.text[self.spans.nodes[node].span()].to_string())
    }

    /// The splice that adds the box written `text` (one `Box` element) to `diagram`, at
    /// `x`, `y`, with the lowest id above the diagram's.
    pub(super) fn add(
        &self,
        diagram: &DiagramRef,
        text: &str,
        x: i32,
        y: i32,
    ) -> Result<Splice, EditError> {
        let owner = self.box_def(&diagram.owner)?;
        let d = self.diagram_def(owner, diagram.layer, diagram.keyframe)?;
        let id = d.boxes.iter().map(|b| b.id).max().unwrap_or(0).max(0) + 1;
        let element = placed(text, id, x, y)?;
        let node = self.diagram_node(
            self.box_node(&diagram.owner)?,
            diagram.layer,
            diagram.keyframe,
        )?;
        let last_box = self.spans.children_named(node, "Box").last();
        Ok(match last_box {
            Some(last) => self.insert_after(last, &element),
            None => self.insert_last(node, &element),
        })
    }
}

/// `text`, one `Box` element, with its `id`, `x` and `y` set.
fn placed(text: &str, id: i32, x: i32, y: i32) -> Result<String, EditError> {
    let spans = Spans::index(text.trim())
        .map_err(|e| EditError::Refused(format!("the box's text is not XML: {e}")))?;
    let root = &spans.nodes[0];
    if root.name != "Box" || root.span() != (0..text.trim().len()) {
        return Err(EditError::Refused(
            "the text to add is not one Box element".to_string(),
        ));
    }
    let text = text.trim();
    let mut tag = text[root.open.clone()].to_string();
    for (name, value) in [("id", id), ("x", x), ("y", y)] {
        let mut escaped = String::new();
        escape_attribute(&mut escaped, &value.to_string());
        match attribute(&tag, name) {
            Some(r) => tag.replace_range(r, &escaped),
            None => tag.insert_str(attribute_insertion(&tag), &format!(" {name}=\"{escaped}\"")),
        }
    }
    Ok(format!("{tag}{}", &text[root.open.end..]))
}
