//! Shared machinery for the XML readers and writers: a cursor over quick-xml events that
//! keeps byte offsets (for line/column errors and verbatim raw capture), the element path
//! for messages, typed attribute access, and escaping for writers.

use std::borrow::Cow;
use std::fmt::Write as _;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use smallvec::SmallVec;

use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::model::{ChildKind, Extras};

/// Elements nested deeper than this are refused: real behaviors stay under 35 levels (6 box levels of 5),
/// and the readers recurse once per level.
const MAX_DEPTH: usize = 255;

/// One segment of an element path: `Timeline`, `BehaviorLayer[1]` or a box name.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    label: Cow<'static, str>,
    index: Option<usize>,
}

/// An element start read from the source.
pub(crate) struct Element<'a> {
    pub start: BytesStart<'a>,
    /// `<x/>`: no children, no end tag.
    pub empty: bool,
    /// Byte offset of the `<` of the start tag.
    pub offset: usize,
}

impl Element<'_> {
    /// The local name (after any `prefix:`).
    pub fn local_name(&self) -> &str {
        let name = self.start.name().into_inner();
        match name.rfind(':') {
            Some(i) => &name[i + 1..],
            None => name,
        }
    }

    /// The name as written.
    pub fn name(&self) -> &str {
        self.start.name().into_inner()
    }

    /// Whether the element has a namespace prefix (such elements are never ours).
    pub fn has_prefix(&self) -> bool {
        self.start.name().into_inner().contains(':')
    }
}

/// What the cursor found next inside an element.
pub(crate) enum Item<'a> {
    /// A child element.
    Element(Element<'a>),
    /// Something other than an element or whitespace (comment, text, CDATA, PI), as raw XML.
    Misc(&'a str),
    /// The end tag of the current element.
    End,
}

/// The plain content of a text-only element.
pub(crate) enum TextContent {
    /// Character data (entities resolved, line ends normalised).
    Text(String),
    /// Only CDATA sections (with whitespace around): their concatenated text, and whether
    /// there was exactly one section (then writing the text as CDATA gives the source back).
    Cdata(String, bool),
    /// Anything else: child elements, comments, mixed text and CDATA.
    Mixed,
}

/// A reading position in one XML source, with the context errors need.
pub(crate) struct Cursor<'a> {
    file: &'a str,
    text: &'a str,
    reader: Reader<&'a [u8]>,
    path: Vec<Segment>,
    depth: usize,
    /// Warnings collected so far.
    pub warnings: Vec<Diagnostic>,
}

impl<'a> Cursor<'a> {
    /// Checks that `text` can be XML at all (UTF-8 already checked by [`decode_text`]).
    pub fn new(file: &'a str, text: &'a str) -> Result<Cursor<'a>> {
        let first = text.trim_start();
        if let Some(offset) = find_merge_conflict(text) {
            return Err(Diagnostic::at_offset(
                Severity::Error,
                ErrorKind::MergeConflict,
                file,
                text,
                offset,
                "",
                "git merge-conflict markers: resolve the conflict before using this file",
            )
            .into());
        }
        if first.is_empty() {
            return Err(Error::file_level(
                ErrorKind::Truncated,
                file,
                "file is empty",
            ));
        }
        if !first.starts_with('<') {
            return Err(Diagnostic::at_offset(
                Severity::Error,
                ErrorKind::NotXml,
                file,
                text,
                text.len() - first.len(),
                "",
                "not an XML document (it does not start with '<')",
            )
            .into());
        }
        if let Some((offset, c)) = find_non_xml_char(text) {
            return Err(Diagnostic::at_offset(
                Severity::Error,
                ErrorKind::NotXml,
                file,
                text,
                offset,
                "",
                format!(
                    "character U+{:04X} is not allowed in XML (binary data?)",
                    u32::from(c)
                ),
            )
            .into());
        }
        let mut reader = Reader::from_str(text);
        let config = reader.config_mut();
        config.trim_text(false);
        config.expand_empty_elements = false;
        config.check_end_names = true;
        config.check_comments = true;
        Ok(Cursor {
            file,
            text,
            reader,
            path: Vec::new(),
            depth: 0,
            warnings: Vec::new(),
        })
    }

    /// The source text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The file name used in messages.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// Bytes of the source consumed so far.
    pub fn consumed(&self) -> usize {
        self.position()
    }

    fn position(&self) -> usize {
        usize::try_from(self.reader.buffer_position()).unwrap_or(usize::MAX)
    }

    /// Enters an element in the path (`index` from 1 when the element repeats).
    pub fn push(&mut self, label: impl Into<Cow<'static, str>>, index: Option<usize>) {
        self.path.push(Segment {
            label: label.into(),
            index,
        });
    }

    /// Leaves the innermost path element.
    pub fn pop(&mut self) {
        self.path.pop();
    }

    /// The current element path, e.g. `root/Dance/Timeline/BehaviorLayer[1]`.
    pub fn path(&self) -> String {
        let mut s = String::new();
        for (i, seg) in self.path.iter().enumerate() {
            if i > 0 {
                s.push('/');
            }
            s.push_str(&seg.label);
            if let Some(n) = seg.index {
                let _ = write!(s, "[{n}]");
            }
        }
        s
    }

    /// A diagnostic at `offset` in the current element.
    pub fn diagnostic(
        &self,
        severity: Severity,
        kind: ErrorKind,
        offset: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::at_offset(
            severity,
            kind,
            self.file,
            self.text,
            offset,
            &self.path(),
            message,
        )
    }

    /// An error at `offset` in the current element.
    pub fn error(&self, kind: ErrorKind, offset: usize, message: impl Into<String>) -> Error {
        self.diagnostic(Severity::Error, kind, offset, message)
            .into()
    }

    /// Records a warning at `offset` in the current element.
    pub fn warn(&mut self, kind: ErrorKind, offset: usize, message: impl Into<String>) {
        let d = self.diagnostic(Severity::Warning, kind, offset, message);
        self.warnings.push(d);
    }

    fn xml_error(&self, e: &quick_xml::Error) -> Error {
        let offset = usize::try_from(self.reader.error_position()).unwrap_or(0);
        let kind = match e {
            quick_xml::Error::IllFormed(quick_xml::errors::IllFormedError::MissingEndTag(_)) => {
                ErrorKind::Truncated
            }
            // `<!` followed by something unknown, unless the input ends right there.
            quick_xml::Error::Syntax(quick_xml::errors::SyntaxError::InvalidBangMarkup) => {
                match self.text.get(offset..) {
                    Some(rest) if rest.trim_end().len() > 2 => ErrorKind::NotXml,
                    _ => ErrorKind::Truncated,
                }
            }
            // Every other syntax error is a tag, comment, CDATA, PI or quoted value that the
            // input ends inside of (reported at its `<`).
            quick_xml::Error::Syntax(_) => ErrorKind::Truncated,
            _ => ErrorKind::NotXml,
        };
        self.error(kind, offset, format!("malformed XML: {e}"))
    }

    /// The next element, end tag or other markup at the current level; whitespace is skipped.
    /// Reaching the end of the file inside an element is a [`ErrorKind::Truncated`] error.
    pub fn next_item(&mut self) -> Result<Item<'a>> {
        loop {
            let before = self.position();
            let event = self.reader.read_event().map_err(|e| self.xml_error(&e))?;
            let after = self.position();
            let raw = self.text.get(before..after).unwrap_or("");
            match event {
                Event::Start(start) => {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return Err(self.error(
                            ErrorKind::TooDeep,
                            before,
                            format!("elements nested deeper than {MAX_DEPTH} levels"),
                        ));
                    }
                    return Ok(Item::Element(Element {
                        start,
                        empty: false,
                        offset: before,
                    }));
                }
                Event::Empty(start) => {
                    return Ok(Item::Element(Element {
                        start,
                        empty: true,
                        offset: before,
                    }));
                }
                Event::End(_) => {
                    self.depth = self.depth.saturating_sub(1);
                    return Ok(Item::End);
                }
                Event::Text(t) if t.bytes().all(|b| b.is_ascii_whitespace()) => continue,
                Event::Decl(_) if self.depth == 0 => continue,
                Event::Eof => {
                    let message = if self.depth == 0 {
                        "no root element (the file ends before any element)"
                    } else {
                        "the file ends before its elements are closed (truncated?)"
                    };
                    return Err(self.error(ErrorKind::Truncated, self.text.len(), message));
                }
                // Stray character data between elements (text and references, which
                // quick-xml reports apart) is one piece, kept without the whitespace around
                // it: that whitespace is indentation, which the writer makes anew.
                Event::Text(_) | Event::GeneralRef(_) => {
                    let mut end = after;
                    loop {
                        let mut ahead = self.reader.clone();
                        match ahead.read_event() {
                            Ok(Event::Text(_) | Event::GeneralRef(_)) => {
                                self.reader = ahead;
                                end = self.position();
                            }
                            _ => break,
                        }
                    }
                    let run = self.text.get(before..end).unwrap_or("");
                    return Ok(Item::Misc(
                        run.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r')),
                    ));
                }
                Event::CData(_)
                | Event::Comment(_)
                | Event::PI(_)
                | Event::DocType(_)
                | Event::Decl(_) => return Ok(Item::Misc(raw)),
            }
        }
    }

    /// At document level: the root element, with comments/PIs before it collected into `prolog`.
    pub fn root_element(&mut self, prolog: &mut Vec<String>) -> Result<Element<'a>> {
        loop {
            match self.next_item()? {
                Item::Element(e) => return Ok(e),
                Item::Misc(raw) => {
                    if raw.trim_start().starts_with("<!") || raw.trim_start().starts_with("<?") {
                        prolog.push(raw.to_string());
                    } else {
                        return Err(self.error(
                            ErrorKind::NotXml,
                            raw.as_ptr()
                                .addr()
                                .saturating_sub(self.text.as_ptr().addr()),
                            "text outside the root element",
                        ));
                    }
                }
                Item::End => {
                    return Err(self.error(
                        ErrorKind::NotXml,
                        self.position(),
                        "end tag before any element",
                    ));
                }
            }
        }
    }

    /// After the root element: only whitespace, comments and PIs may follow.
    pub fn expect_document_end(&mut self) -> Result<()> {
        loop {
            let before = self.position();
            match self.reader.read_event().map_err(|e| self.xml_error(&e))? {
                Event::Eof => return Ok(()),
                Event::Text(t) if t.bytes().all(|b| b.is_ascii_whitespace()) => {}
                Event::Comment(_) | Event::PI(_) => {}
                _ => {
                    return Err(self.error(
                        ErrorKind::NotXml,
                        before,
                        "content after the root element",
                    ));
                }
            }
        }
    }

    /// Consumes `el` and returns its whole source text (start tag to end tag), verbatim.
    pub fn raw_element(&mut self, el: &Element<'a>) -> Result<&'a str> {
        if !el.empty {
            self.skip_to_end(el)?;
        }
        Ok(self.text.get(el.offset..self.position()).unwrap_or(""))
    }

    /// Consumes the rest of `el` (its start was just read); returns its inner source text.
    fn skip_to_end(&mut self, el: &Element<'a>) -> Result<&'a str> {
        let name = el.start.name();
        let span = self.reader.read_to_end(name).map_err(|e| {
            let mut err = self.xml_error(&e);
            if matches!(e, quick_xml::Error::IllFormed(_)) || err.kind() == ErrorKind::NotXml {
                // read_to_end reports a missing end tag at end of input.
                if self.position() >= self.text.len() {
                    err = self.error(
                        ErrorKind::Truncated,
                        self.text.len(),
                        "the file ends before its elements are closed (truncated?)",
                    );
                }
            }
            err
        })?;
        self.depth = self.depth.saturating_sub(1);
        let start = usize::try_from(span.start).unwrap_or(0);
        let end = usize::try_from(span.end).unwrap_or(0);
        Ok(self.text.get(start..end).unwrap_or(""))
    }

    /// Reads a text-only element such as `<bitmap>` or `<content>`; returns its content and
    /// its inner source text. Child elements and comments give [`TextContent::Mixed`].
    pub fn text_content(&mut self, el: &Element<'a>) -> Result<(TextContent, &'a str)> {
        if el.empty {
            return Ok((TextContent::Text(String::new()), ""));
        }
        let inner = self.skip_to_end(el)?;
        Ok((classify_text(inner), inner))
    }

    /// Typed access to the attributes of `el`.
    pub fn attributes<'e>(&'e self, el: &'e Element<'a>) -> Result<Attributes<'e, 'a>> {
        // Filled in place: the attributes are many, and moving them is a copy each time.
        let mut attributes = Attributes {
            cursor: self,
            offset: el.offset,
            items: SmallVec::new(),
            spellings: Vec::new(),
        };
        if plain_attributes(el.start.attributes_raw(), &mut attributes.items).is_none() {
            attributes.items.clear();
            self.parsed_attributes(el, &mut attributes.items)?;
        }
        if has_duplicate_name(&attributes.items) {
            return Err(self.error(
                ErrorKind::NotXml,
                el.offset,
                "malformed attribute: an attribute name is repeated",
            ));
        }
        Ok(attributes)
    }

    /// The attributes of `el` as quick-xml reads them, into `items`: what
    /// [`plain_attributes`] leaves.
    fn parsed_attributes<'e>(
        &'e self,
        el: &'e Element<'a>,
        items: &mut SmallVec<[Attr<'e>; 12]>,
    ) -> Result<()> {
        let mut iter = el.start.attributes();
        // Duplicates are checked below on our own small vector: quick-xml's check allocates.
        iter.with_checks(false);
        for attr in iter {
            let attr = attr.map_err(|e| {
                self.error(
                    ErrorKind::NotXml,
                    el.offset,
                    format!("malformed attribute: {e}"),
                )
            })?;
            let name = attr.key.into_inner();
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| {
                    self.error(
                        ErrorKind::BadValue,
                        el.offset,
                        format!("attribute {name}: {e}"),
                    )
                })?;
            items.push(Attr {
                name,
                value: Some(value),
            });
        }
        Ok(())
    }
}

/// The attributes of a tag whose attribute text (`raw`, after its name) is plain: only
/// `name="value"` or `name='value'` separated by whitespace, each name ASCII letters,
/// digits, `_`, `:`, `-` or `.` (a letter, `_` or `:` first), no value holding what XML
/// normalizes (`&`, tab, line breaks) or a `<`. Read straight from the text, as quick-xml
/// reads them, at a fraction of the cost (most of a XAR's tags, its motion keys among
/// them, are plain), into `items`; None for anything else, left to quick-xml and its
/// errors.
fn plain_attributes<'e>(raw: &'e str, items: &mut SmallVec<[Attr<'e>; 12]>) -> Option<()> {
    let b = raw.as_bytes();
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'-' | b'.');
    let mut i = 0;
    loop {
        while b.get(i).copied().is_some_and(space) {
            i += 1;
        }
        let Some(&first) = b.get(i) else {
            return Some(());
        };
        if !(first.is_ascii_alphabetic() || matches!(first, b'_' | b':')) {
            return None;
        }
        let start = i;
        while b.get(i).copied().is_some_and(name_byte) {
            i += 1;
        }
        let name = raw.get(start..i)?;
        if b.get(i) != Some(&b'=') {
            return None;
        }
        let quote = *b.get(i + 1).filter(|q| matches!(q, b'"' | b'\''))?;
        let from = i + 2;
        let end = from + memchr::memchr(quote, b.get(from..)?)?;
        let value = raw.get(from..end)?;
        if value
            .bytes()
            .any(|c| matches!(c, b'&' | b'<' | b'\t' | b'\r' | b'\n'))
        {
            return None;
        }
        items.push(Attr {
            name,
            value: Some(Cow::Borrowed(value)),
        });
        i = end + 1;
        if b.get(i).is_some_and(|&c| !space(c)) {
            return None;
        }
    }
}

/// Decodes file bytes as UTF-8 text (a leading byte-order mark is skipped).
pub(crate) fn decode_text<'b>(file: &str, bytes: &'b [u8]) -> Result<&'b str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or("");
        Diagnostic::at_offset(
            Severity::Error,
            ErrorKind::NotUtf8,
            file,
            text,
            valid,
            "",
            format!("not UTF-8 text (invalid byte at offset {valid})"),
        )
        .into()
    })
}

/// Whether XML 1.0 allows `c` in a document (the `Char` production).
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The first character XML 1.0 does not allow (control characters, U+FFFE, U+FFFF), if any.
fn find_non_xml_char(text: &str) -> Option<(usize, char)> {
    // A control byte other than tab/LF/CR, or 0xEF (the lead byte of U+F000..U+FFFF).
    fn suspicious(b: u8) -> bool {
        (b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r') || b == 0xEF
    }
    let bytes = text.as_bytes();
    const CHUNK: usize = 64;
    for (n, chunk) in bytes.chunks(CHUNK).enumerate() {
        // Branch-free over the chunk, so the common case (nothing found) vectorises.
        if !chunk.iter().fold(false, |found, &b| found | suspicious(b)) {
            continue;
        }
        for (i, &b) in chunk.iter().enumerate() {
            let at = n * CHUNK + i;
            let bad = if b == 0xEF {
                bytes.get(at + 1) == Some(&0xBF) && bytes.get(at + 2).is_some_and(|&c| c >= 0xBE)
            } else {
                suspicious(b)
            };
            if bad {
                return text
                    .get(at..)
                    .and_then(|t| t.chars().next())
                    .map(|c| (at, c));
            }
        }
    }
    None
}

/// The offset of the first git merge-conflict marker line, if any.
fn find_merge_conflict(text: &str) -> Option<usize> {
    let finder = memchr::memmem::Finder::new("<<<<<<<");
    let mut from = 0;
    while let Some(i) = finder.find(&text.as_bytes()[from..]) {
        let at = from + i;
        if at == 0 || text.as_bytes()[at - 1] == b'\n' {
            let rest = &text[at..];
            let has_separator = rest.contains("\n=======") && rest.contains("\n>>>>>>>");
            if has_separator {
                return Some(at);
            }
        }
        from = at + 7;
    }
    None
}

pub(crate) fn classify_text(inner: &str) -> TextContent {
    if !inner.contains('<') {
        return match unescape_text(inner) {
            Some(t) => TextContent::Text(t),
            None => TextContent::Mixed,
        };
    }
    let mut rest = inner.trim_start();
    let mut out = String::new();
    let mut sections = 0;
    while let Some(after) = rest.strip_prefix("<![CDATA[") {
        let Some(end) = after.find("]]>") else {
            return TextContent::Mixed;
        };
        out.push_str(&after[..end]);
        rest = &after[end + 3..];
        sections += 1;
    }
    if sections > 0 && rest.trim().is_empty() {
        TextContent::Cdata(normalize_eols(out), sections == 1)
    } else {
        TextContent::Mixed
    }
}

/// XML 1.0 line-end normalisation: CR LF and lone CR become LF.
fn normalize_eols(s: String) -> String {
    if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s
    }
}

/// Line ends of the source are normalised before references are resolved, as XML does, so
/// that `&#x0D;` stays a CR.
pub(crate) fn unescape_text(raw: &str) -> Option<String> {
    let normalized = normalize_eols(raw.to_string());
    let unescaped = quick_xml::escape::unescape(&normalized).ok()?;
    Some(unescaped.into_owned())
}

/// Whether two attributes share a name (a hash set only for unusually many attributes).
fn has_duplicate_name(items: &[Attr<'_>]) -> bool {
    if items.len() <= 16 {
        items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| b.name == a.name))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(items.len());
        !items.iter().all(|a| seen.insert(a.name))
    }
}

struct Attr<'e> {
    name: &'e str,
    value: Option<Cow<'e, str>>,
}

/// The attributes of one element, taken one by one by canonical name (matched
/// case-insensitively; another spelling is recorded). What is left ends up in [`Extras`].
pub(crate) struct Attributes<'e, 'a> {
    cursor: &'e Cursor<'a>,
    offset: usize,
    items: SmallVec<[Attr<'e>; 12]>,
    spellings: Vec<(String, String)>,
}

impl<'e> Attributes<'e, '_> {
    /// The text of attribute `name`, if present.
    pub fn take(&mut self, name: &str) -> Option<Cow<'e, str>> {
        if let Some(a) = self.items.iter_mut().find(|a| a.name == name) {
            return a.value.take();
        }
        let a = self.items.iter_mut().find(|a| {
            a.value.is_some() && !a.name.contains(':') && a.name.eq_ignore_ascii_case(name)
        })?;
        self.spellings.push((name.to_string(), a.name.to_string()));
        a.value.take()
    }

    /// Attribute `name` as an owned string.
    pub fn string(&mut self, name: &str) -> Option<String> {
        self.take(name).map(Cow::into_owned)
    }

    /// A required attribute.
    pub fn required(&mut self, name: &str) -> Result<String> {
        match self.take(name) {
            Some(v) => Ok(v.into_owned()),
            None => Err(self.cursor.error(
                ErrorKind::MissingAttribute,
                self.offset,
                format!("attribute {name} is required"),
            )),
        }
    }

    fn bad(&self, name: &str, value: &str, what: &str) -> Error {
        self.cursor.error(
            ErrorKind::BadValue,
            self.offset,
            format!("attribute {name}=\"{value}\" is not {what}"),
        )
    }

    /// An integer attribute.
    pub fn int(&mut self, name: &str) -> Result<Option<i32>> {
        match self.take(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<i32>()
                .map(Some)
                .map_err(|_| self.bad(name, &v, "an integer")),
        }
    }

    /// A required integer attribute.
    pub fn required_int(&mut self, name: &str) -> Result<i32> {
        self.int(name)?.ok_or_else(|| {
            self.cursor.error(
                ErrorKind::MissingAttribute,
                self.offset,
                format!("attribute {name} is required"),
            )
        })
    }

    /// A finite floating-point attribute.
    pub fn float(&mut self, name: &str) -> Result<Option<f64>> {
        match self.take(name) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(Some(x)),
                _ => Err(self.bad(name, &v, "a finite number")),
            },
        }
    }

    /// A required finite floating-point attribute.
    pub fn required_float(&mut self, name: &str) -> Result<f64> {
        self.float(name)?.ok_or_else(|| {
            self.cursor.error(
                ErrorKind::MissingAttribute,
                self.offset,
                format!("attribute {name} is required"),
            )
        })
    }

    /// A `0`/`1` flag.
    pub fn flag(&mut self, name: &str) -> Result<Option<bool>> {
        match self.take(name) {
            None => Ok(None),
            Some(v) => match v.trim() {
                "1" => Ok(Some(true)),
                "0" => Ok(Some(false)),
                _ => Err(self.bad(name, &v, "0 or 1")),
            },
        }
    }

    /// An integer code mapped by `from_code`.
    pub fn code<T>(&mut self, name: &str, from_code: fn(i32) -> Option<T>) -> Result<Option<T>> {
        let Some(code) = self.int(name)? else {
            return Ok(None);
        };
        match from_code(code) {
            Some(v) => Ok(Some(v)),
            None => Err(self.bad(name, &code.to_string(), "a known code")),
        }
    }

    /// A required integer code.
    pub fn required_code<T>(&mut self, name: &str, from_code: fn(i32) -> Option<T>) -> Result<T> {
        self.code(name, from_code)?.ok_or_else(|| {
            self.cursor.error(
                ErrorKind::MissingAttribute,
                self.offset,
                format!("attribute {name} is required"),
            )
        })
    }

    /// Moves the attributes not taken, and the spellings seen, into `extras`.
    pub fn finish(mut self, extras: &mut Extras) {
        let rest: Vec<(String, String)> = self
            .items
            .iter_mut()
            .filter_map(|a| a.value.take().map(|v| (a.name.to_string(), v.into_owned())))
            .collect();
        if rest.is_empty() && self.spellings.is_empty() {
            return;
        }
        let data = extras.get_mut();
        data.attributes.extend(rest);
        data.attribute_spellings.extend(self.spellings);
    }
}

/// Records the order of an element's children and keeps it only when it matters.
#[derive(Default)]
pub(crate) struct ChildOrder {
    seen: Vec<crate::model::ChildKind>,
}

impl ChildOrder {
    /// Notes one more child.
    pub fn push(&mut self, kind: crate::model::ChildKind) {
        self.seen.push(kind);
    }

    /// Stores the order in `extras` unless it is `canonical` order (kinds in the order listed,
    /// each kind's children together) with no unknown children.
    pub fn finish(self, canonical: &[crate::model::ChildKind], extras: &mut Extras) {
        let rank = |k: &crate::model::ChildKind| canonical.iter().position(|c| c == k);
        let mut last = 0;
        let mut in_order = true;
        for k in &self.seen {
            match rank(k) {
                Some(r) if r >= last => last = r,
                _ => {
                    in_order = false;
                    break;
                }
            }
        }
        if !in_order {
            extras.get_mut().order = self.seen;
        }
    }
}

/// An indenting XML writer that decides between `<a/>` and `<a>...</a>` by itself.
#[derive(Default)]
pub(crate) struct XmlWriter {
    /// The text written so far.
    pub out: String,
    depth: usize,
    /// The last start tag is still open (`<a x="1"`), waiting for a child or its end.
    pending: bool,
}

impl XmlWriter {
    /// Writes the indentation of the current depth.
    pub fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
    }

    /// Closes a pending start tag before content is written inside it.
    pub fn begin_content(&mut self) {
        if self.pending {
            self.out.push_str(">\n");
            self.pending = false;
        }
    }

    /// Starts element `name` (attributes may follow).
    pub fn open(&mut self, name: &str) {
        self.begin_content();
        self.indent();
        self.out.push('<');
        self.out.push_str(name);
        self.pending = true;
        self.depth += 1;
    }

    /// Ends element `name`: `/>` if nothing was written inside it.
    pub fn close(&mut self, name: &str) {
        self.depth -= 1;
        if self.pending {
            self.out.push_str(" />\n");
            self.pending = false;
        } else {
            self.indent();
            self.out.push_str("</");
            self.out.push_str(name);
            self.out.push_str(">\n");
        }
    }

    /// Writes an attribute, with the spelling recorded in `extras`.
    pub fn attr(&mut self, extras: &Extras, name: &str, value: &str) {
        self.out.push(' ');
        self.out.push_str(extras.attribute_spelling(name));
        self.out.push_str("=\"");
        escape_attribute(&mut self.out, value);
        self.out.push('"');
    }

    /// Writes an attribute if present.
    pub fn attr_opt(&mut self, extras: &Extras, name: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.attr(extras, name, v);
        }
    }

    /// Writes a number attribute (integers and floats in their shortest exact form).
    pub fn attr_num(&mut self, extras: &Extras, name: &str, value: impl std::fmt::Display) {
        self.out.push(' ');
        self.out.push_str(extras.attribute_spelling(name));
        let _ = write!(self.out, "=\"{value}\"");
    }

    /// Writes a number attribute if present.
    pub fn attr_num_opt(
        &mut self,
        extras: &Extras,
        name: &str,
        value: Option<impl std::fmt::Display>,
    ) {
        if let Some(v) = value {
            self.attr_num(extras, name, v);
        }
    }

    /// Writes a `0`/`1` flag if present.
    pub fn attr_flag(&mut self, extras: &Extras, name: &str, value: Option<bool>) {
        if let Some(v) = value {
            self.attr(extras, name, if v { "1" } else { "0" });
        }
    }

    /// Writes the unknown attributes kept in `extras`.
    pub fn unknown_attributes(&mut self, extras: &Extras) {
        for (name, value) in extras.attributes() {
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            escape_attribute(&mut self.out, value);
            self.out.push('"');
        }
    }

    /// Writes raw XML kept verbatim, on its own line.
    pub fn raw(&mut self, xml: &str) {
        self.begin_content();
        self.indent();
        self.out.push_str(xml);
        self.out.push('\n');
    }

    /// Writes `<name>text</name>` on one line.
    pub fn text_element(&mut self, name: &str, text: &str) {
        self.begin_content();
        self.indent();
        let _ = write!(self.out, "<{name}>");
        escape_text(&mut self.out, text);
        let _ = writeln!(self.out, "</{name}>");
    }

    /// Writes the children of an element: in the order recorded in `extras` if any, else in
    /// `canonical` order; unknown children from `extras`; then anything added to the model
    /// since reading. `item(w, kind, n)` writes the `n`-th child of `kind` and says whether
    /// there was one.
    pub fn children(
        &mut self,
        canonical: &[ChildKind],
        extras: &Extras,
        mut item: impl FnMut(&mut XmlWriter, ChildKind, usize) -> bool,
    ) {
        let mut written: Vec<(ChildKind, usize)> = canonical.iter().map(|&k| (k, 0)).collect();
        let mut unknown = 0;
        for &kind in extras.order() {
            if kind == ChildKind::Unknown {
                if let Some(raw) = extras.children().get(unknown) {
                    self.raw(raw);
                }
                unknown += 1;
            } else if let Some(slot) = written.iter_mut().find(|(k, _)| *k == kind)
                && item(self, kind, slot.1)
            {
                slot.1 += 1;
            }
        }
        for (kind, n) in &mut written {
            while item(self, *kind, *n) {
                *n += 1;
            }
        }
        for raw in extras.children().iter().skip(unknown) {
            self.raw(raw);
        }
    }
}

/// A float as Choregraphe's files spell it: the shortest digits that read back exactly,
/// positional for exponents -4..16 (`0.5`, `12`), else scientific with a signed two-digit
/// exponent (`4.82967e-06`). This is also Python's `repr` without a trailing `.0`.
pub struct Real(pub f64);

impl std::fmt::Display for Real {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        if v == 0.0 || !v.is_finite() {
            return write!(f, "{v}");
        }
        let sci = format!("{v:e}");
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        if (-4..16).contains(&exp) {
            write!(f, "{v}")
        } else {
            let sign = if exp < 0 { '-' } else { '+' };
            write!(f, "{mantissa}e{sign}{:02}", exp.abs())
        }
    }
}

/// Writes `s` escaped for a double-quoted attribute value (line ends and tabs as
/// references, so they survive attribute-value normalisation).
pub(crate) fn escape_attribute(out: &mut String, s: &str) {
    escape(out, s, true);
}

/// Writes `s` escaped as character data.
pub(crate) fn escape_text(out: &mut String, s: &str) {
    escape(out, s, false);
}

/// Escapes markup characters, and characters XML cannot hold raw as references.
fn escape(out: &mut String, s: &str, attribute: bool) {
    let mut last = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '\r' => "&#x0D;",
            '"' if attribute => "&quot;",
            '\'' if attribute => "&apos;",
            '\n' if attribute => "&#x0A;",
            '\t' if attribute => "&#x09;",
            c if !is_xml_char(c) => {
                out.push_str(&s[last..i]);
                let _ = write!(out, "&#x{:X};", u32::from(c));
                last = i + c.len_utf8();
                continue;
            }
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + c.len_utf8();
    }
    out.push_str(&s[last..]);
}

/// Writes `s` as CDATA, split where it contains `]]>`.
pub(crate) fn write_cdata(out: &mut String, s: &str) {
    out.push_str("<![CDATA[");
    out.push_str(&s.replace("]]>", "]]]]><![CDATA[>"));
    out.push_str("]]>");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, value) of each attribute of the first element of `xml`: read straight from the
    /// text when it is plain, and as quick-xml reads it.
    #[allow(clippy::type_complexity)]
    fn both_readings(xml: &str) -> (Option<Vec<(String, String)>>, Option<Vec<(String, String)>>) {
        let Ok(mut cursor) = Cursor::new("t.xml", xml) else {
            return (None, None);
        };
        let Ok(Item::Element(el)) = cursor.next_item() else {
            return (None, None);
        };
        let pairs = |items: &SmallVec<[Attr<'_>; 12]>| {
            items
                .iter()
                .map(|a| {
                    (
                        a.name.to_string(),
                        a.value.as_deref().unwrap_or("").to_string(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let mut plain = SmallVec::new();
        let plain = plain_attributes(el.start.attributes_raw(), &mut plain).map(|()| pairs(&plain));
        let mut parsed = SmallVec::new();
        let parsed = cursor
            .parsed_attributes(&el, &mut parsed)
            .ok()
            .map(|()| pairs(&parsed));
        (plain, parsed)
    }

    #[test]
    fn plain_attributes_are_read_as_quick_xml_reads_them() {
        let plain = |xml: &str| both_readings(xml).0;
        assert_eq!(
            plain(r#"<Key frame="12" value='-3.5'/>"#),
            Some(vec![
                ("frame".to_string(), "12".to_string()),
                ("value".to_string(), "-3.5".to_string())
            ])
        );
        // What XML normalizes, spaces around `=`, a missing space: left to quick-xml.
        for other in [
            r#"<a b="x &amp; y"/>"#,
            "<a b=\"x\ty\"/>",
            r#"<a b = "x"/>"#,
            r#"<a b="x"c="y"/>"#,
            r#"<a b=x/>"#,
            r#"<a 1b="x"/>"#,
        ] {
            assert_eq!(plain(other), None, "{other}");
        }
    }

    proptest::proptest! {
        #[test]
        fn a_plain_reading_is_always_quick_xml_s(
            attributes in proptest::collection::vec(
                ("[ab:_1.-]{1,3}", "=|=| =|= ", "\"|'", "[ab \t&;<>é'\"-]{0,6}", " | |\t|\n|"),
                0..5,
            ),
            end in "/?",
        ) {
            let raw: String = attributes
                .iter()
                .map(|(name, eq, quote, value, space)| format!("{name}{eq}{quote}{value}{quote}{space}"))
                .collect();
            let (plain, parsed) = both_readings(&format!("<e {raw}{end}>"));
            if plain.is_some() {
                proptest::prop_assert_eq!(plain, parsed);
            }
        }
    }

    #[test]
    fn cdata_split_round_trips() {
        let mut out = String::new();
        write_cdata(&mut out, "a]]>b");
        match classify_text(&out) {
            TextContent::Cdata(s, single) => assert!(s == "a]]>b" && !single),
            _ => panic!("expected CDATA"),
        }
    }

    #[test]
    fn comment_in_text_element_is_mixed() {
        assert!(matches!(classify_text(" <!-- x --> "), TextContent::Mixed));
        assert!(matches!(classify_text("a &amp; b"), TextContent::Text(t) if t == "a & b"));
    }

    #[test]
    fn merge_conflict_markers_are_found_only_at_line_start() {
        assert_eq!(
            find_merge_conflict("<a>\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n</a>"),
            Some(4)
        );
        assert_eq!(find_merge_conflict("<a x='<<<<<<<'/>"), None);
    }

    #[test]
    fn reals_are_spelled_like_choregraphe() {
        for (v, s) in [
            (4.82967e-06, "4.82967e-06"),
            (-2.73208e-05, "-2.73208e-05"),
            (0.0001, "0.0001"),
            (12.0, "12"),
            (-13.6000003815, "-13.6000003815"),
            (1e16, "1e+16"),
            (0.5, "0.5"),
            (-0.0, "-0"),
        ] {
            assert_eq!(Real(v).to_string(), s);
        }
    }

    #[test]
    fn attribute_escaping_keeps_newlines() {
        let mut out = String::new();
        escape_attribute(&mut out, "a\"b\nc&'");
        assert_eq!(out, "a&quot;b&#x0A;c&amp;&apos;");
    }
}
