//! Where each element of an XML text is, byte for byte: the editor changes a file by
//! replacing these spans and nothing else, so that a save without an edit is the file's own
//! bytes and an edit touches only what it changes.
//!
//! The readers (`crate::xml`) make a model and forget the layout; this index keeps only the
//! layout (names, the start and end tags, children), and reads attribute values from the
//! start tag's text when asked.

use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::Event;

/// Elements nested deeper than this are refused, as the readers refuse them.
const MAX_DEPTH: usize = 255;

/// Why a text could not be indexed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SpanError(String);

/// One element's place in the text.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The name as written.
    pub name: String,
    /// The start tag, from its `<` to just after its `>` (all of `<x/>`).
    pub open: Range<usize>,
    /// The end tag (`</x>`); `None` for `<x/>`.
    pub close: Option<Range<usize>>,
    /// The child elements, in document order (indices into [`Spans::nodes`]).
    pub children: Vec<usize>,
}

impl Node {
    /// The whole element.
    pub fn span(&self) -> Range<usize> {
        self.open.start..self.close.as_ref().map_or(self.open.end, |c| c.end)
    }
}

/// The elements of one text; the first is the root element.
#[derive(Debug, Clone)]
pub(crate) struct Spans {
    pub nodes: Vec<Node>,
}

impl Spans {
    /// Indexes `text` (which the XAR reader has already accepted): `Err` says why not.
    pub fn index(text: &str) -> Result<Spans, SpanError> {
        let mut reader = Reader::from_str(text);
        let config = reader.config_mut();
        config.trim_text(false);
        config.expand_empty_elements = false;
        let mut nodes: Vec<Node> = Vec::new();
        // The open elements, innermost last (a stack: no recursion the input controls).
        let mut open: Vec<usize> = Vec::new();
        loop {
            let before = position(&reader);
            let event = reader.read_event().map_err(|e| SpanError(e.to_string()))?;
            let after = position(&reader);
            match event {
                Event::Start(ref start) | Event::Empty(ref start) => {
                    let empty = matches!(event, Event::Empty(_));
                    let name = start.name().into_inner().to_string();
                    let id = nodes.len();
                    nodes.push(Node {
                        name,
                        open: before..after,
                        close: None,
                        children: Vec::new(),
                    });
                    if let Some(&parent) = open.last() {
                        nodes[parent].children.push(id);
                    }
                    if !empty {
                        if open.len() >= MAX_DEPTH {
                            return Err(SpanError(format!(
                                "elements nest deeper than {MAX_DEPTH}"
                            )));
                        }
                        open.push(id);
                    }
                }
                Event::End(_) => {
                    let id = open
                        .pop()
                        .ok_or_else(|| SpanError("an end tag without its start".to_string()))?;
                    nodes[id].close = Some(before..after);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if nodes.is_empty() || !open.is_empty() {
            return Err(SpanError("no complete root element".to_string()));
        }
        Ok(Spans { nodes })
    }

    /// The children of `node` named `name`, in order.
    pub fn children_named<'s>(
        &'s self,
        node: usize,
        name: &'s str,
    ) -> impl Iterator<Item = usize> + 's {
        self.nodes[node]
            .children
            .iter()
            .copied()
            .filter(move |&c| self.nodes[c].name == name)
    }

    /// The first child of `node` named `name`.
    pub fn child(&self, node: usize, name: &str) -> Option<usize> {
        self.children_named(node, name).next()
    }
}

fn position(reader: &Reader<&[u8]>) -> usize {
    usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX)
}

/// The raw (escaped) value of attribute `name` in the start tag `tag` (`<x a="1" b='2'>`),
/// as a range of `tag`.
pub(crate) fn attribute(tag: &str, name: &str) -> Option<Range<usize>> {
    let bytes = tag.as_bytes();
    // Past `<` and the element's name.
    let mut i = 1;
    while i < bytes.len() && !is_space(bytes[i]) && bytes[i] != b'>' && bytes[i] != b'/' {
        i += 1;
    }
    loop {
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' || bytes[i] == b'/' {
            return None;
        }
        let name_start = i;
        while i < bytes.len() && bytes[i] != b'=' && !is_space(bytes[i]) {
            i += 1;
        }
        let found = &tag[name_start..i];
        while i < bytes.len() && (is_space(bytes[i]) || bytes[i] == b'=') {
            i += 1;
        }
        let quote = *bytes.get(i)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let value_start = i + 1;
        let value_end = value_start + tag[value_start..].find(char::from(quote))?;
        if found == name {
            return Some(value_start..value_end);
        }
        i = value_end + 1;
    }
}

/// Where a new attribute goes in a start tag: just after the last attribute (or the name),
/// before any `/` and the `>`.
pub(crate) fn attribute_insertion(tag: &str) -> usize {
    let trimmed = tag.trim_end_matches('>').trim_end_matches('/');
    trimmed.trim_end().len()
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn elements_are_found_with_their_tags() {
        let text = "<?xml version=\"1.0\"?>\n<a x=\"1\">\n  <b/>\n  <c y='2'>t</c>\n</a>\n";
        let spans = Spans::index(text).unwrap();
        let a = &spans.nodes[0];
        assert_eq!(&text[a.span()], &text[22..text.len() - 1]);
        let b = &spans.nodes[a.children[0]];
        assert_eq!(&text[b.span()], "<b/>");
        assert!(b.close.is_none());
        let c = &spans.nodes[a.children[1]];
        assert_eq!(&text[c.span()], "<c y='2'>t</c>");
        let tag = &text[c.open.clone()];
        assert_eq!(&tag[attribute(tag, "y").unwrap()], "2");
        assert_eq!(attribute(tag, "x"), None);
    }

    #[test]
    fn an_attribute_is_read_whatever_its_quotes_and_spaces() {
        let tag = "<Box name = \"a 'b'\" id='3'\n  x=\"-7\" >";
        assert_eq!(&tag[attribute(tag, "name").unwrap()], "a 'b'");
        assert_eq!(&tag[attribute(tag, "id").unwrap()], "3");
        assert_eq!(&tag[attribute(tag, "x").unwrap()], "-7");
        assert_eq!(
            &tag[..attribute_insertion(tag)],
            "<Box name = \"a 'b'\" id='3'\n  x=\"-7\""
        );
        assert_eq!(
            attribute_insertion("<Link a=\"1\" />"),
            "<Link a=\"1\"".len()
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert!(Spans::index(&deep).is_err());
    }
}
