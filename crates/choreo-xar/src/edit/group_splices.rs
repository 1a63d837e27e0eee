//! The splices of grouping and ungrouping (what the links become: `group.rs`).
//!
//! Group: the first grouped box's element becomes the group box's, which holds the grouped
//! boxes' elements and the links between them as written; the other grouped boxes and the
//! links they had go; the links to and from the group box go after the diagram's last
//! element. Ungroup: the box's element becomes its boxes' elements (only `id`, `x` and `y` of
//! their start tags changed, where they must), its links go, the joined links come last.
//! An element moved keeps the indentation of its lines below the first, as `paste` does:
//! re-indenting them would change the code of the scripts inside (CDATA is kept byte for
//! byte).

use std::collections::BTreeSet;

use super::group::{
    Grouping, Layout, Ungrouping, Wire, group_text, grouping, link_text, ungroup_refusal,
    ungrouping,
};
use super::links::{self, LinkRef};
use super::spans::{attribute, attribute_insertion};
use super::{BoxRef, DiagramRef, Document, EditError, Splice, escaped, refused};
use crate::model::{BoxDef, Diagram, Extras, Link};

/// A diagram's element, and the elements of the boxes to group with their models.
type Grouped<'a> = (usize, Vec<(usize, &'a BoxDef)>);

/// Nesting one level deeper, where the file does not show how deep.
const STEP: &str = "    ";

impl Document {
    /// The splices that group the boxes `ids` of `at` into a new box named `name`.
    pub(super) fn group(
        &self,
        at: &DiagramRef,
        ids: &[i32],
        name: &str,
    ) -> Result<Vec<Splice>, EditError> {
        let (node, elements) = self.grouped(at, ids, name)?;
        let Some(&(first, _)) = elements.first() else {
            return Err(EditError::NotFound(
                "the boxes are not in the file".to_string(),
            ));
        };
        let owner = self.box_def(&at.owner)?;
        let d = self.diagram_def(owner, at.layer, at.keyframe)?;
        let defs: Vec<&BoxDef> = elements.iter().map(|&(_, def)| def).collect();
        let wires = self.wires(node)?;
        let links: Vec<Wire> = wires.iter().map(|&(_, w)| w).collect();
        let id = d.boxes.iter().map(|b| b.id).max().unwrap_or(0).max(0) + 1;
        let plan = grouping(&defs, &links, id, name);
        check_group(owner, d, &defs, &links, &plan)?;
        // The group box's text: the boxes and the links inside as written, then the new ones.
        let mut inner: Vec<String> = elements.iter().map(|&(b, _)| self.element(b)).collect();
        inner.extend(
            plan.moved
                .iter()
                .filter_map(|&i| wires.get(i))
                .map(|&(n, _)| self.element(n)),
        );
        inner.extend(plan.inner.iter().map(link_text));
        let indent = self.own_line_indent(first).unwrap_or_default();
        let step = self.step(node, first);
        let layout = Layout {
            indent: &indent,
            step: &step,
            newline: self.newline(),
        };
        let span = self.spans.nodes[first].span();
        let mut splices = vec![Splice {
            at: span.start,
            removed: self.text[span].to_string(),
            inserted: group_text(&plan.def, &inner, &layout),
        }];
        splices.extend(
            elements
                .iter()
                .skip(1)
                .map(|&(b, _)| self.remove_element(b)),
        );
        let gone = plan.moved.iter().chain(&plan.crossing);
        splices.extend(
            gone.filter_map(|&i| wires.get(i))
                .map(|&(n, _)| self.remove_element(n)),
        );
        let texts: Vec<String> = plan.outer.iter().map(link_text).collect();
        splices.extend(self.append(node, &texts));
        Ok(splices)
    }

    /// The diagram `at`'s element and the elements of its boxes `ids`, in the file's order,
    /// with their models; or why they cannot be grouped under `name`.
    fn grouped(&self, at: &DiagramRef, ids: &[i32], name: &str) -> Result<Grouped<'_>, EditError> {
        if name.trim().is_empty() || name.contains('/') {
            return Err(refused(format!(
                "a box's name cannot be empty nor hold `/`: {name:?}"
            )));
        }
        if ids.is_empty() {
            return Err(refused("grouping takes at least one box"));
        }
        let chosen: BTreeSet<i32> = ids.iter().copied().collect();
        if chosen.len() != ids.len() {
            return Err(refused(format!("a box is named twice in {ids:?}")));
        }
        let d = self.diagram(at)?;
        if let Some(id) = ids.iter().find(|&&id| d.box_by_id(id).is_none()) {
            return Err(EditError::NotFound(format!(
                "no box with id {id} in that diagram"
            )));
        }
        let node = self.diagram_node(self.box_node(&at.owner)?, at.layer, at.keyframe)?;
        let mut elements = Vec::new();
        for b in self.spans.children_named(node, "Box") {
            let id = self.number(b, "id")?;
            if let Some(def) = chosen.contains(&id).then(|| d.box_by_id(id)).flatten() {
                elements.push((b, def));
            }
        }
        Ok((node, elements))
    }

    /// The splices that put the boxes of the flow-diagram box `at` in its place.
    pub(super) fn ungroup(&self, at: &BoxRef) -> Result<Vec<Splice>, EditError> {
        let Some((last, owner_steps)) = at.0.split_last() else {
            return Err(refused(
                "the root box cannot be ungrouped: it has no diagram around it",
            ));
        };
        let owner_at = BoxRef(owner_steps.to_vec());
        let owner = self.box_def(&owner_at)?;
        let d = self.diagram_def(owner, last.layer, last.keyframe)?;
        let g = self.box_def(at)?;
        let node = self.diagram_node(self.box_node(&owner_at)?, last.layer, last.keyframe)?;
        let outer = self.wires(node)?;
        let outer_links: Vec<Wire> = outer.iter().map(|&(_, w)| w).collect();
        if let Some(lost) = ungroup_refusal(g, last.id, &outer_links) {
            return Err(refused(format!("{} cannot be ungrouped: {lost}", g.name)));
        }
        let g_node = self.box_node(at)?;
        let inner_def = self.diagram_def(g, 0, 0)?;
        let inner_node = self.diagram_node(g_node, 0, 0)?;
        let inner = self.wires(inner_node)?;
        let inner_links: Vec<Wire> = inner.iter().map(|&(_, w)| w).collect();
        let outer_ids: Vec<i32> = d.boxes.iter().map(|b| b.id).collect();
        let plan = ungrouping(
            g,
            last.id,
            inner_def,
            &inner_links,
            &outer_ids,
            &outer_links,
        );
        let joined = check_ungroup(owner, d, last.id, inner_def, &outer_links, &plan)?;
        let boxes = self.ungrouped_boxes(inner_node, inner_def, &plan)?;
        let mut splices = vec![self.replace_element(g_node, &boxes)];
        splices.extend(
            plan.removed
                .iter()
                .filter_map(|&i| outer.get(i))
                .map(|&(n, _)| self.remove_element(n)),
        );
        let mut texts = Vec::new();
        for &(i, w) in &plan.kept {
            if let Some(&(n, l)) = inner.get(i) {
                let mut set = Vec::new();
                if w.from != l.from {
                    set.push(("outputowner", w.from));
                }
                if w.to != l.to {
                    set.push(("inputowner", w.to));
                }
                texts.push(self.retagged(n, &set));
            }
        }
        texts.extend(joined.iter().map(link_text));
        splices.extend(self.append(node, &texts));
        Ok(splices)
    }

    /// The elements of the inner boxes (the diagram `node`, `inner` as the model reads it),
    /// each with the id and place `plan` gives it: only those attributes of its start tag
    /// changed, and only where they must.
    fn ungrouped_boxes(
        &self,
        node: usize,
        inner: &Diagram,
        plan: &Ungrouping,
    ) -> Result<Vec<String>, EditError> {
        let (dx, dy) = plan.offset;
        let mut boxes = Vec::new();
        for b in self.spans.children_named(node, "Box") {
            let id = self.number(b, "id")?;
            let def = inner.box_by_id(id);
            let mut set = Vec::new();
            if let Some(&new) = plan.ids.get(&id).filter(|&&new| new != id) {
                set.push(("id", new));
            }
            if let Some(x) = def.and_then(|b| b.x).filter(|_| dx != 0) {
                set.push(("x", x.saturating_add(dx)));
            }
            if let Some(y) = def.and_then(|b| b.y).filter(|_| dy != 0) {
                set.push(("y", y.saturating_add(dy)));
            }
            boxes.push(self.retagged(b, &set));
        }
        Ok(boxes)
    }

    /// The `Link` elements of the diagram `node`, with what they say.
    fn wires(&self, node: usize) -> Result<Vec<(usize, Wire)>, EditError> {
        self.spans
            .children_named(node, "Link")
            .map(|n| {
                Ok((
                    n,
                    Wire {
                        from: self.number(n, "outputowner")?,
                        from_port: self.number(n, "indexofoutput")?,
                        to: self.number(n, "inputowner")?,
                        to_port: self.number(n, "indexofinput")?,
                    },
                ))
            })
            .collect()
    }

    /// The integer attribute `name` of `node`.
    fn number(&self, node: usize, name: &str) -> Result<i32, EditError> {
        let raw = self.attribute(node, name).unwrap_or("");
        raw.trim().parse().map_err(|_| {
            EditError::Unreadable(format!(
                "a {} has {name}={raw:?}, not a number",
                self.spans.nodes[node].name
            ))
        })
    }

    /// The text of element `node`, as written.
    fn element(&self, node: usize) -> String {
        self.text[self.spans.nodes[node].span()].to_string()
    }

    /// The text of element `node` with the attributes `set` given these values in its start
    /// tag (the rest as written).
    fn retagged(&self, node: usize, set: &[(&str, i32)]) -> String {
        let n = &self.spans.nodes[node];
        let mut tag = self.text[n.open.clone()].to_string();
        for (name, value) in set {
            let value = escaped(&value.to_string());
            match attribute(&tag, name) {
                Some(r) => tag.replace_range(r, &value),
                None => tag.insert_str(attribute_insertion(&tag), &format!(" {name}=\"{value}\"")),
            }
        }
        format!("{tag}{}", &self.text[n.open.end..n.span().end])
    }

    /// The element `node` replaced by `elements`, each on a line of its own with its
    /// indentation (removed with its line when there are none).
    fn replace_element(&self, node: usize, elements: &[String]) -> Splice {
        if elements.is_empty() {
            return self.remove_element(node);
        }
        let span = self.spans.nodes[node].span();
        let separator = match self.own_line_indent(node) {
            Some(indent) => format!("{}{indent}", self.newline()),
            None => String::new(),
        };
        Splice {
            at: span.start,
            removed: self.text[span].to_string(),
            inserted: elements.join(&separator),
        }
    }

    /// `elements` added after the last element of the diagram `node`, each on a line of its
    /// own as that element is (none when there are none).
    fn append(&self, node: usize, elements: &[String]) -> Option<Splice> {
        if elements.is_empty() {
            return None;
        }
        let separator = match self.spans.nodes[node].children.last() {
            Some(&last) => match self.own_line_indent(last) {
                Some(indent) => format!("{}{indent}", self.newline()),
                None => String::new(),
            },
            None => String::new(),
        };
        Some(self.insert_last(node, &elements.join(&separator)))
    }

    /// The indentation of the line `node` starts, when nothing but it is before it there.
    fn own_line_indent(&self, node: usize) -> Option<String> {
        let start = self.spans.nodes[node].span().start;
        let line = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line..start];
        let own = !indent.is_empty() && indent.chars().all(|c| c == ' ' || c == '\t');
        own.then(|| indent.to_string())
    }

    /// One level of the file's nesting: how much deeper the box `child` is than its
    /// diagram `parent` ([`STEP`] where that does not show).
    fn step(&self, parent: usize, child: usize) -> String {
        let (Some(outer), Some(inner)) =
            (self.own_line_indent(parent), self.own_line_indent(child))
        else {
            return STEP.to_string();
        };
        match inner.strip_prefix(outer.as_str()) {
            Some(step) if !step.is_empty() => step.to_string(),
            _ => STEP.to_string(),
        }
    }
}

/// Checks the links grouping makes by Choregraphe's rules, inside the new box (the links
/// between the grouped boxes `defs` kept) and in the diagram `d` of `owner` as it will be.
fn check_group(
    owner: &BoxDef,
    d: &Diagram,
    defs: &[&BoxDef],
    links: &[Wire],
    plan: &Grouping,
) -> Result<(), EditError> {
    let mut inside = Diagram {
        boxes: defs.iter().map(|&b| b.clone()).collect(),
        links: plan
            .moved
            .iter()
            .filter_map(|&i| links.get(i))
            .map(link)
            .collect(),
        ..Diagram::default()
    };
    check_all(&plan.def, &mut inside, &plan.inner, "inside the new box")?;
    let grouped: BTreeSet<i32> = defs.iter().map(|b| b.id).collect();
    let mut outside = Diagram {
        boxes: d
            .boxes
            .iter()
            .filter(|b| !grouped.contains(&b.id))
            .cloned()
            .collect(),
        links: links
            .iter()
            .filter(|l| !grouped.contains(&l.from) && !grouped.contains(&l.to))
            .map(link)
            .collect(),
        ..Diagram::default()
    };
    outside.boxes.push(plan.def.clone());
    check_all(owner, &mut outside, &plan.outer, "in the diagram")
}

/// The links ungrouping joins, less those the diagram will have already, checked by
/// Choregraphe's rules in the diagram `d` of `owner` as it will be (the box `gid` gone, its
/// boxes and their links in).
fn check_ungroup(
    owner: &BoxDef,
    d: &Diagram,
    gid: i32,
    inner: &Diagram,
    outer_links: &[Wire],
    plan: &Ungrouping,
) -> Result<Vec<Wire>, EditError> {
    let new_id = |id: i32| plan.ids.get(&id).copied().unwrap_or(id);
    let mut after = Diagram {
        boxes: d.boxes.iter().filter(|b| b.id != gid).cloned().collect(),
        links: outer_links
            .iter()
            .filter(|l| l.from != gid && l.to != gid)
            .map(link)
            .collect(),
        ..Diagram::default()
    };
    after.boxes.extend(inner.boxes.iter().map(|b| BoxDef {
        id: new_id(b.id),
        ..b.clone()
    }));
    after.links.extend(plan.kept.iter().map(|(_, w)| link(w)));
    let there: BTreeSet<Wire> = after.links.iter().map(wire).collect();
    let joined: Vec<Wire> = plan
        .joined
        .iter()
        .filter(|w| !there.contains(w))
        .copied()
        .collect();
    check_all(owner, &mut after, &joined, "in the diagram")?;
    Ok(joined)
}

/// Checks each of `wires` by Choregraphe's rules (`links.rs`) in `diagram` of `owner`, as
/// `Edit::Link` does, adding each to the diagram once checked; `Err` says which and why.
fn check_all(
    owner: &BoxDef,
    diagram: &mut Diagram,
    wires: &[Wire],
    where_: &str,
) -> Result<(), EditError> {
    for w in wires {
        let l = LinkRef {
            from: w.from,
            from_port: w.from_port,
            to: w.to,
            to_port: w.to_port,
        };
        links::check(owner, diagram, l).map_err(|why| {
            refused(format!(
                "the link from {}.{} to {}.{} {where_} would break Choregraphe's rules: {why}",
                w.from, w.from_port, w.to, w.to_port
            ))
        })?;
        diagram.links.push(link(w));
    }
    Ok(())
}

/// The model's link for `w`.
fn link(w: &Wire) -> Link {
    Link {
        input_owner: w.to,
        index_of_input: w.to_port,
        output_owner: w.from,
        index_of_output: w.from_port,
        extras: Extras::default(),
    }
}

/// The wire of the model's link `l`.
fn wire(l: &Link) -> Wire {
    Wire {
        from: l.output_owner,
        from_port: l.index_of_output,
        to: l.input_owner,
        to_port: l.index_of_input,
    }
}
