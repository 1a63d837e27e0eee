//! What the server knows of a behavior's XAR text: its boxes (the outline), their ports and
//! parameters (hover), and the links between ports: a link names its ends by the owner box's
//! `id` in its diagram (0: the box the diagram belongs to) and the port's `id` in that box,
//! so going from a link to the port it uses, and from a port to the links that use it, is
//! what the raw XML cannot show a reader.

use lsp_types::{DocumentSymbol, Location, Position, Range, SymbolKind, Url};
use roxmltree::{Document, Node};

use crate::documents::{byte_of_column, line_of, utf16_column};

/// The byte offset of `position` in `text`.
pub fn offset(text: &str, position: Position) -> usize {
    let n = usize::try_from(position.line).unwrap_or(usize::MAX);
    let before: usize = text
        .split_inclusive('\n')
        .take(n)
        .map(str::len)
        .sum::<usize>()
        .min(text.len());
    before + byte_of_column(line_of(text, n), position.character)
}

/// Where each line of a text starts: a byte's position is found by a binary search. Counting
/// the lines before each box instead made a behavior's outline quadratic in its size (the
/// corpus's largest took seconds).
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The position of byte `offset`.
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |l| utf16_column(l, l.len()));
        Position::new(u32::try_from(line).unwrap_or(u32::MAX), column)
    }

    fn range(&self, node: Node<'_, '_>) -> Range {
        let r = node.range();
        Range::new(self.position(r.start), self.position(r.end))
    }
}

/// The element's name attribute's value, if any.
fn named<'a>(node: Node<'a, '_>) -> &'a str {
    node.attribute("name").unwrap_or("")
}

fn is(node: Node<'_, '_>, tag: &str) -> bool {
    node.is_element() && node.tag_name().name() == tag
}

/// The innermost element at byte `at` of a parsed document (the last holding it, in
/// document order).
fn element_at<'a, 'i>(doc: &'a Document<'i>, at: usize) -> Option<Node<'a, 'i>> {
    doc.descendants()
        .rfind(|n| n.is_element() && n.range().contains(&at))
}

/// The box a diagram belongs to (the `Box` above the `Diagram`).
fn diagram_owner<'a, 'i>(diagram: Node<'a, 'i>) -> Option<Node<'a, 'i>> {
    diagram.ancestors().skip(1).find(|n| is(*n, "Box"))
}

/// The box `owner` names in `diagram`: 0 is the diagram's own box.
fn owner_box<'a, 'i>(diagram: Node<'a, 'i>, owner: &str) -> Option<Node<'a, 'i>> {
    if owner == "0" {
        return diagram_owner(diagram);
    }
    diagram
        .children()
        .find(|b| is(*b, "Box") && b.attribute("id") == Some(owner))
}

/// The port (input, output or parameter) of `b` with `id`.
fn port<'a, 'i>(b: Node<'a, 'i>, id: &str) -> Option<Node<'a, 'i>> {
    b.children().find(|p| {
        (is(*p, "Input") || is(*p, "Output") || is(*p, "Parameter"))
            && p.attribute("id") == Some(id)
    })
}

/// The two ends of a link: (box, port) for its output side and its input side.
type Ends<'a, 'i> = [Option<(Node<'a, 'i>, Node<'a, 'i>)>; 2];

fn ends<'a, 'i>(link: Node<'a, 'i>) -> Ends<'a, 'i> {
    let Some(diagram) = link.parent().filter(|d| is(*d, "Diagram")) else {
        return [None, None];
    };
    let side = |owner: &str, index: &str| {
        let b = owner_box(diagram, link.attribute(owner)?)?;
        Some((b, port(b, link.attribute(index)?)?))
    };
    [
        side("outputowner", "indexofoutput"),
        side("inputowner", "indexofinput"),
    ]
}

/// Where the port a link's end names is declared: the end nearer `at` (the `outputowner`
/// and `indexofoutput` attributes, or the input ones).
pub fn definition(uri: &Url, text: &str, at: Position) -> Vec<Location> {
    let Ok(doc) = Document::parse(text) else {
        return Vec::new();
    };
    let byte = offset(text, at);
    let Some(link) = element_at(&doc, byte).filter(|n| is(*n, "Link")) else {
        return Vec::new();
    };
    let input_first = link
        .attributes()
        .find(|a| a.range().contains(&byte))
        .is_some_and(|a| a.name().contains("input"));
    let [out, input] = ends(link);
    let chosen = if input_first {
        input.or(out)
    } else {
        out.or(input)
    };
    chosen
        .map(|(_, p)| Location::new(uri.clone(), Lines::new(text).range(p)))
        .into_iter()
        .collect()
}

/// The links that use the port at `at` (an `Input`, `Output` or `Parameter` element).
pub fn references(uri: &Url, text: &str, at: Position) -> Vec<Location> {
    let Ok(doc) = Document::parse(text) else {
        return Vec::new();
    };
    let byte = offset(text, at);
    let Some(p) = element_at(&doc, byte)
        .filter(|n| is(*n, "Input") || is(*n, "Output") || is(*n, "Parameter"))
    else {
        return Vec::new();
    };
    let lines = Lines::new(text);
    doc.descendants()
        .filter(|n| is(*n, "Link"))
        .filter(|link| ends(*link).iter().flatten().any(|(_, q)| *q == p))
        .map(|link| Location::new(uri.clone(), lines.range(link)))
        .collect()
}

/// A box's ports and parameters, for a hover on its element or on a link's end.
pub fn hover(text: &str, at: Position) -> Option<String> {
    let doc = Document::parse(text).ok()?;
    let node = element_at(&doc, offset(text, at))?;
    if is(node, "Link") {
        let [out, input] = ends(node);
        let end = |e: Option<(Node<'_, '_>, Node<'_, '_>)>| {
            e.map_or("?".to_string(), |(b, p)| {
                format!("{}.{}", named(b), named(p))
            })
        };
        return Some(format!("link: `{}` → `{}`", end(out), end(input)));
    }
    let b = node.ancestors().find(|n| is(*n, "Box"))?;
    let mut lines = vec![format!("**box** `{}`", named(b))];
    for (tag, title) in [
        ("Input", "inputs"),
        ("Output", "outputs"),
        ("Parameter", "parameters"),
    ] {
        let items: Vec<String> = b
            .children()
            .filter(|p| is(*p, tag))
            .map(|p| match p.attribute("value") {
                Some(v) => format!("`{}` = {v}", named(p)),
                None => format!("`{}`", named(p)),
            })
            .collect();
        if !items.is_empty() {
            lines.push(format!("{title}: {}", items.join(", ")));
        }
    }
    if let Some(tip) = b.attribute("tooltip").filter(|t| !t.trim().is_empty()) {
        lines.push(tip.trim().to_string());
    }
    Some(lines.join("\n\n"))
}

/// The outline: the box tree (a box inside the diagrams of its parent).
#[allow(deprecated)] // DocumentSymbol's `deprecated` field must be written.
pub fn symbols(text: &str) -> Vec<DocumentSymbol> {
    let Ok(doc) = Document::parse(text) else {
        return Vec::new();
    };
    // Boxes in document order with their depth among boxes; a tree built with a stack, no
    // recursion the file controls.
    let lines = Lines::new(text);
    let mut stack: Vec<(Node<'_, '_>, DocumentSymbol)> = Vec::new();
    let mut top: Vec<DocumentSymbol> = Vec::new();
    let close = |stack: &mut Vec<(Node<'_, '_>, DocumentSymbol)>, top: &mut Vec<DocumentSymbol>| {
        if let Some((_, done)) = stack.pop() {
            match stack.last_mut() {
                Some((_, parent)) => parent.children.get_or_insert_with(Vec::new).push(done),
                None => top.push(done),
            }
        }
    };
    for b in doc.descendants().filter(|n| is(*n, "Box")) {
        while stack
            .last()
            .is_some_and(|(open, _)| !b.ancestors().any(|a| a == *open))
        {
            close(&mut stack, &mut top);
        }
        let r = lines.range(b);
        stack.push((
            b,
            DocumentSymbol {
                name: named(b).to_string(),
                detail: b.attribute("id").map(|id| format!("id {id}")),
                kind: SymbolKind::CLASS,
                tags: None,
                deprecated: None,
                range: r,
                selection_range: r,
                children: None,
            },
        ));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut top);
    }
    top
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_positions_agree() {
        let text = "ab\né😀x\n";
        let p = Position::new(1, 3);
        assert_eq!(offset(text, p), 3 + 6);
        assert_eq!(Lines::new(text).position(9), p);
        assert_eq!(Lines::new(text).position(0), Position::new(0, 0));
        assert_eq!(Lines::new(text).position(3), Position::new(1, 0));
        assert_eq!(Lines::new(text).position(2), Position::new(0, 2));
        assert_eq!(Lines::new(text).position(99), Position::new(2, 0));
    }
}
