//! The line-based files of the split format: `links.txt` and `motion.txt`.
//!
//! Shared syntax: one item per line; blank lines and lines starting with `#` are ignored;
//! a name is written bare when it holds no space or punctuation of the format, else in
//! double quotes with TOML escapes (`"Say Text"`); a line may end with the item's extras as
//! a TOML inline table (`{ attributes = [["color", "red"]] }`).

use std::fmt::Write as _;

use super::repr::{ExtrasRepr, Named as _};
use crate::model::*;
use crate::xml::Real;

/// A problem in one line: byte offset in the line, message.
#[derive(Debug)]
pub(super) struct Fault {
    /// Where in the line.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

fn fault<T>(offset: usize, message: impl Into<String>) -> Result<T, Fault> {
    Err(Fault {
        offset,
        message: message.into(),
    })
}

/// The lines that carry items: `(byte offset in the text, line without its line end)`.
pub(super) fn item_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split('\n').filter_map(move |raw| {
        let start = offset;
        offset += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let body = line.trim_start();
        (!body.is_empty() && !body.starts_with('#')).then_some((start, line))
    })
}

/// Whether `c` ends a bare name.
fn ends_bare(c: char) -> bool {
    c.is_whitespace() || c.is_control() || matches!(c, '"' | '#' | '{' | '}' | '\\' | '.' | '=')
}

/// Writes `s` bare if it can be, else quoted.
pub(super) fn push_name(out: &mut String, s: &str) {
    if s.is_empty() || s.chars().any(ends_bare) {
        push_quoted(out, s);
    } else {
        out.push_str(s);
    }
}

/// Writes `s` as a TOML basic string on one line.
pub(super) fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes ` { ... }` for recorded extras (nothing when there are none).
fn push_extras(out: &mut String, e: &Extras) {
    let Some(d) = e.get() else { return };
    let pairs = |out: &mut String, pairs: &[(String, String)]| {
        out.push('[');
        for (i, (a, b)) in pairs.iter().enumerate() {
            out.push_str(if i == 0 { "[" } else { ", [" });
            push_quoted(out, a);
            out.push_str(", ");
            push_quoted(out, b);
            out.push(']');
        }
        out.push(']');
    };
    let mut fields: Vec<String> = Vec::new();
    if let Some(s) = &d.spelling {
        let mut f = "spelling = ".to_string();
        push_quoted(&mut f, s);
        fields.push(f);
    }
    if !d.attributes.is_empty() {
        let mut f = "attributes = ".to_string();
        pairs(&mut f, &d.attributes);
        fields.push(f);
    }
    if !d.attribute_spellings.is_empty() {
        let mut f = "attribute_spellings = ".to_string();
        pairs(&mut f, &d.attribute_spellings);
        fields.push(f);
    }
    if !d.children.is_empty() {
        let items: Vec<String> = d
            .children
            .iter()
            .map(|c| {
                let mut q = String::new();
                push_quoted(&mut q, c);
                q
            })
            .collect();
        fields.push(format!("children = [{}]", items.join(", ")));
    }
    if !d.order.is_empty() {
        let items: Vec<String> = d
            .order
            .iter()
            .map(|k| format!("\"{}\"", k.name()))
            .collect();
        fields.push(format!("order = [{}]", items.join(", ")));
    }
    if fields.is_empty() {
        out.push_str(" {}");
    } else {
        let _ = write!(out, " {{ {} }}", fields.join(", "));
    }
}

/// A reading position in one line.
struct Cur<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> Cur<'a> {
    fn new(line: &'a str) -> Cur<'a> {
        Cur { line, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.line[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, s: &str) -> bool {
        let found = self.rest().starts_with(s);
        if found {
            self.pos += s.len();
        }
        found
    }

    /// The longest run of characters not satisfying `stop`.
    fn run(&mut self, stop: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest.find(stop).unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    /// A quoted string, the cursor on its opening quote.
    fn quoted(&mut self) -> Result<String, Fault> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return fault(start, "unterminated string: missing the closing '\"'");
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => out.push(self.escape()?),
                c => out.push(c),
            }
        }
    }

    /// The character of an escape, the cursor after its backslash.
    fn escape(&mut self) -> Result<char, Fault> {
        let at = self.pos - 1;
        let Some(c) = self.peek() else {
            return fault(at, "a '\\' ends the line");
        };
        self.pos += c.len_utf8();
        let simple = match c {
            '"' => '"',
            '\\' => '\\',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'e' => '\u{1b}',
            'u' | 'U' => {
                let len = if c == 'u' { 4 } else { 8 };
                let hex = self.rest().get(..len).unwrap_or("");
                self.pos += hex.len();
                return u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.len() == len)
                    .and_then(char::from_u32)
                    .map_or_else(|| fault(at, format!("bad escape \\{c}{hex}")), Ok);
            }
            other => return fault(at, format!("unknown escape \\{other}")),
        };
        Ok(simple)
    }

    /// A name: quoted, or a (possibly empty) bare run.
    fn name(&mut self) -> Result<String, Fault> {
        if self.peek() == Some('"') {
            self.quoted()
        } else {
            Ok(self.run(ends_bare).to_string())
        }
    }

    /// An integer after `#`.
    fn id(&mut self) -> Result<i32, Fault> {
        let at = self.pos;
        if !self.eat("#") {
            return fault(at, "expected '#' and an id");
        }
        let digits = self.run(|c| !(c.is_ascii_digit() || c == '-' || c == '+'));
        digits.parse().or_else(|_| {
            fault(
                at + 1,
                format!("expected an integer id after '#', found {digits:?}"),
            )
        })
    }

    /// The extras table ending the line, the cursor on its `{`.
    fn extras(&mut self) -> Result<Extras, Fault> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wrap {
            extras: ExtrasRepr,
        }
        const PREFIX: &str = "extras = ";
        let at = self.pos;
        let rest = self.rest();
        self.pos = self.line.len();
        match toml::from_str::<Wrap>(&format!("{PREFIX}{rest}")) {
            Ok(w) => Ok(ExtrasRepr::into_extras(Some(w.extras))),
            Err(e) => {
                let offset = e.span().map_or(0, |s| s.start.saturating_sub(PREFIX.len()));
                fault(
                    at + offset.min(rest.len()),
                    format!("extras: {}", e.message()),
                )
            }
        }
    }

    /// Optional extras, then the end of the line.
    fn finish(&mut self) -> Result<Extras, Fault> {
        self.skip_ws();
        let extras = if self.peek() == Some('{') {
            self.extras()?
        } else {
            Extras::default()
        };
        if self.pos < self.line.len() {
            return fault(self.pos, format!("unexpected {:?}", self.rest()));
        }
        Ok(extras)
    }
}

// ---------------------------------------------------------------------------------------
// links.txt

/// The box at one end of a link line.
#[derive(Debug, PartialEq)]
pub(super) enum Owner {
    /// `parent`: the box enclosing the diagram (owner id 0).
    Parent,
    /// `name#id`: a box of the diagram.
    Child {
        /// The name written.
        name: String,
        /// The box id.
        id: i32,
    },
}

/// One end of a link line.
#[derive(Debug)]
pub(super) struct Endpoint {
    /// The box.
    pub owner: Owner,
    /// The port name written.
    pub port_name: String,
    /// The port id.
    pub port: i32,
    /// Byte offset in the line.
    pub offset: usize,
}

/// A parsed line of `links.txt`.
#[derive(Debug)]
pub(super) struct LinkLine {
    /// The source (`outputowner`, `indexofoutput`).
    pub source: Endpoint,
    /// The destination (`inputowner`, `indexofinput`).
    pub destination: Endpoint,
    /// The link's extras.
    pub extras: Extras,
}

/// `links.txt` for `d`, whose enclosing box is `parent`; `None` when it has no links.
pub(super) fn write_links(d: &Diagram, parent: &BoxDef) -> Option<String> {
    if d.links.is_empty() {
        return None;
    }
    let endpoint = |out: &mut String, owner: i32, port: i32| {
        let b = if owner == 0 {
            out.push_str("parent");
            Some(parent)
        } else {
            let b = d.box_by_id(owner);
            push_name(out, b.map_or("", |b| b.name.as_str()));
            let _ = write!(out, "#{owner}");
            b
        };
        out.push('.');
        push_name(out, b.and_then(|b| b.port(port)).map_or("", port_name));
        let _ = write!(out, "#{port}");
    };
    let mut out = String::new();
    for l in &d.links {
        endpoint(&mut out, l.output_owner, l.index_of_output);
        out.push_str(" -> ");
        endpoint(&mut out, l.input_owner, l.index_of_input);
        push_extras(&mut out, &l.extras);
        out.push('\n');
    }
    Some(out)
}

/// The name of an input, output or parameter.
pub(super) fn port_name(p: PortRef<'_>) -> &str {
    match p {
        PortRef::Input(p) => &p.name,
        PortRef::Output(p) => &p.name,
        PortRef::Parameter(p) => &p.name,
    }
}

/// Reads one line of `links.txt`: `source -> destination [{extras}]`.
pub(super) fn parse_link(line: &str) -> Result<LinkLine, Fault> {
    let mut cur = Cur::new(line);
    cur.skip_ws();
    let source = endpoint(&mut cur)?;
    cur.skip_ws();
    if !cur.eat("->") {
        return fault(
            cur.pos,
            "expected '->' between the source and the destination",
        );
    }
    cur.skip_ws();
    let destination = endpoint(&mut cur)?;
    let extras = cur.finish()?;
    Ok(LinkLine {
        source,
        destination,
        extras,
    })
}

/// `parent.port#id` or `box#id.port#id`.
fn endpoint(cur: &mut Cur<'_>) -> Result<Endpoint, Fault> {
    let offset = cur.pos;
    let quoted = cur.peek() == Some('"');
    let name = cur.name()?;
    let owner = if !quoted && name == "parent" && cur.peek() == Some('.') {
        Owner::Parent
    } else {
        let id = cur.id()?;
        Owner::Child { name, id }
    };
    if !cur.eat(".") {
        return fault(cur.pos, "expected '.' and a port after the box");
    }
    let port_name = cur.name()?;
    let port = cur.id()?;
    Ok(Endpoint {
        owner,
        port_name,
        port,
        offset,
    })
}

// ---------------------------------------------------------------------------------------
// motion.txt

/// `motion.txt` for an actuator list.
pub(super) fn write_motion(list: &ActuatorList) -> String {
    let mut out = String::from("actuators");
    if let Some(m) = &list.model {
        out.push_str(" model=");
        push_quoted(&mut out, m);
    }
    push_extras(&mut out, &list.extras);
    out.push('\n');
    for c in &list.curves {
        out.push_str("curve ");
        push_name(&mut out, &c.actuator);
        if let Some(n) = &c.name {
            out.push_str(" name=");
            push_quoted(&mut out, n);
        }
        push_flag(&mut out, "recordable", c.recordable);
        push_flag(&mut out, "mute", c.mute);
        if let Some(u) = c.unit {
            let _ = write!(out, " unit={u}");
        }
        push_flag(&mut out, "alwaysVisible", c.always_visible);
        push_extras(&mut out, &c.extras);
        out.push('\n');
        for k in &c.keys {
            let _ = write!(out, "  {} {}", k.frame, Real(k.value));
            push_flag(&mut out, "smooth", k.smooth);
            push_flag(&mut out, "symmetrical", k.symmetrical);
            push_extras(&mut out, &k.extras);
            out.push('\n');
            for t in &k.tangents {
                out.push_str("    ");
                out.push_str(t.side.as_str());
                if let Some(i) = &t.interp_type {
                    out.push(' ');
                    push_name(&mut out, i);
                }
                let _ = write!(
                    out,
                    " {} {}",
                    Real(t.abscissa_param),
                    Real(t.ordinate_param)
                );
                push_extras(&mut out, &t.extras);
                out.push('\n');
            }
        }
    }
    out
}

fn push_flag(out: &mut String, name: &str, value: Option<bool>) {
    if let Some(v) = value {
        let _ = write!(out, " {name}={}", u8::from(v));
    }
}

/// A positional word of a motion line.
struct Word {
    text: String,
    quoted: bool,
    at: usize,
}

/// A `key=value` of a motion line.
struct Attr {
    key: String,
    value: String,
    at: usize,
}

/// A motion line cut into words, attributes and extras.
struct Tokens {
    words: Vec<Word>,
    attrs: Vec<Attr>,
    extras: Extras,
}

impl Tokens {
    fn read(line: &str) -> Result<Tokens, Fault> {
        let mut cur = Cur::new(line);
        let mut t = Tokens {
            words: Vec::new(),
            attrs: Vec::new(),
            extras: Extras::default(),
        };
        loop {
            cur.skip_ws();
            let at = cur.pos;
            match cur.peek() {
                None => break,
                Some('{') => {
                    t.extras = cur.finish()?;
                    break;
                }
                Some('"') => {
                    let text = cur.quoted()?;
                    t.words.push(Word {
                        text,
                        quoted: true,
                        at,
                    });
                }
                Some(_) => {
                    let run = cur.run(|c| c.is_whitespace() || c == '"' || c == '{');
                    if let Some((key, value)) = run.split_once('=') {
                        let value = if value.is_empty() && cur.peek() == Some('"') {
                            cur.quoted()?
                        } else {
                            value.to_string()
                        };
                        if t.attrs.iter().any(|a| a.key == key) {
                            return fault(at, format!("{key} is given twice"));
                        }
                        t.attrs.push(Attr {
                            key: key.to_string(),
                            value,
                            at,
                        });
                    } else if cur.peek() == Some('"') {
                        return fault(cur.pos, "a quote inside a word");
                    } else {
                        t.words.push(Word {
                            text: run.to_string(),
                            quoted: false,
                            at,
                        });
                    }
                }
            }
        }
        Ok(t)
    }

    /// Takes attribute `key`.
    fn take(&mut self, key: &str) -> Option<Attr> {
        let i = self.attrs.iter().position(|a| a.key == key)?;
        Some(self.attrs.remove(i))
    }

    fn flag(&mut self, key: &str) -> Result<Option<bool>, Fault> {
        match self.take(key) {
            None => Ok(None),
            Some(a) => match a.value.as_str() {
                "0" => Ok(Some(false)),
                "1" => Ok(Some(true)),
                v => fault(a.at, format!("{key}={v}: expected 0 or 1")),
            },
        }
    }

    /// Fails on an attribute no one took.
    fn done(self, line_kind: &str) -> Result<Extras, Fault> {
        match self.attrs.first() {
            Some(a) => fault(
                a.at,
                format!("{line_kind} lines have no attribute {:?}", a.key),
            ),
            None => Ok(self.extras),
        }
    }
}

fn int(w: &Word) -> Result<i32, Fault> {
    match w.text.parse() {
        Ok(v) if !w.quoted => Ok(v),
        _ => fault(w.at, format!("expected an integer, found {:?}", w.text)),
    }
}

fn real(w: &Word) -> Result<f64, Fault> {
    match w.text.parse::<f64>() {
        Ok(v) if !w.quoted && v.is_finite() => Ok(v),
        _ => fault(
            w.at,
            format!("expected a finite number, found {:?}", w.text),
        ),
    }
}

/// Reads `motion.txt`. Errors carry the byte offset in `text`.
pub(super) fn parse_motion(text: &str) -> Result<ActuatorList, Fault> {
    let mut list: Option<ActuatorList> = None;
    for (start, line) in item_lines(text) {
        let in_file = |f: Fault| Fault {
            offset: start + f.offset,
            message: f.message,
        };
        let t = Tokens::read(line).map_err(in_file)?;
        match &mut list {
            None => list = Some(actuators_line(t).map_err(in_file)?),
            Some(l) => motion_line(l, t).map_err(in_file)?,
        }
    }
    list.map_or_else(|| fault(0, "empty: the first line must be `actuators`"), Ok)
}

fn actuators_line(mut t: Tokens) -> Result<ActuatorList, Fault> {
    match t.words.as_slice() {
        [w] if !w.quoted && w.text == "actuators" => {}
        _ => {
            return fault(
                0,
                "the first line must be `actuators` (with an optional model=\"...\")",
            );
        }
    }
    let model = t.take("model").map(|a| a.value);
    Ok(ActuatorList {
        model,
        curves: Vec::new(),
        extras: t.done("actuators")?,
    })
}

fn motion_line(list: &mut ActuatorList, mut t: Tokens) -> Result<(), Fault> {
    let Some(first) = t.words.first() else {
        return fault(
            0,
            "a line must start with `curve`, `left`, `right` or a key frame",
        );
    };
    let keyword = if first.quoted {
        ""
    } else {
        first.text.as_str()
    };
    match keyword {
        "curve" => {
            let actuator = match t.words.as_slice() {
                [_, a] => a.text.clone(),
                _ => return fault(0, "expected `curve <actuator>`"),
            };
            let name = t.take("name").map(|a| a.value);
            let recordable = t.flag("recordable")?;
            let mute = t.flag("mute")?;
            let unit =
                match t.take("unit") {
                    None => None,
                    Some(a) => Some(a.value.parse().or_else(|_| {
                        fault(a.at, format!("unit={}: expected an integer", a.value))
                    })?),
                };
            let always_visible = t.flag("alwaysVisible")?;
            list.curves.push(ActuatorCurve {
                name,
                actuator,
                recordable,
                mute,
                unit,
                always_visible,
                keys: Vec::new(),
                extras: t.done("curve")?,
            });
        }
        "left" | "right" => {
            let side = if keyword == "left" {
                TangentSide::Left
            } else {
                TangentSide::Right
            };
            let (interp_type, a, o) = match t.words.as_slice() {
                [_, a, o] => (None, a, o),
                [_, i, a, o] => (Some(i.text.clone()), a, o),
                _ => {
                    return fault(
                        0,
                        format!("expected `{keyword} [interpolation] <abscissa> <ordinate>`"),
                    );
                }
            };
            let (abscissa_param, ordinate_param) = (real(a)?, real(o)?);
            let extras = t.done("tangent")?;
            let Some(key) = list.curves.last_mut().and_then(|c| c.keys.last_mut()) else {
                return fault(0, "a tangent line must follow a key line");
            };
            key.tangents.push(Tangent {
                side,
                interp_type,
                abscissa_param,
                ordinate_param,
                extras,
            });
        }
        _ => {
            let (frame, value) = match t.words.as_slice() {
                [f, v] => (int(f)?, real(v)?),
                _ => {
                    return fault(
                        0,
                        "expected `<frame> <value>` (or `curve`, `left`, `right`)",
                    );
                }
            };
            let smooth = t.flag("smooth")?;
            let symmetrical = t.flag("symmetrical")?;
            let extras = t.done("key")?;
            let Some(curve) = list.curves.last_mut() else {
                return fault(0, "a key line must follow a `curve` line");
            };
            curve.keys.push(Key {
                frame,
                value,
                smooth,
                symmetrical,
                tangents: Vec::new(),
                extras,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_read_back() {
        for s in [
            "Say",
            "Say Text",
            "",
            "a\"b\\c\nd\te\u{1}",
            "Speech Reco.",
            "x#1",
            "é",
        ] {
            let mut out = String::new();
            push_name(&mut out, s);
            let mut cur = Cur::new(&out);
            assert_eq!(cur.name().ok().as_deref(), Some(s), "{out}");
            assert_eq!(cur.pos, out.len());
        }
    }

    #[test]
    fn link_lines_parse() {
        let l = parse_link("parent.onStart#2 -> \"Say Text\"#3.onStart#1 {}");
        let Ok(l) = l else { panic!("{l:?}") };
        assert_eq!(l.source.owner, Owner::Parent);
        assert_eq!(l.source.port, 2);
        assert_eq!(
            l.destination.owner,
            Owner::Child {
                name: "Say Text".into(),
                id: 3
            }
        );
        assert!(!l.extras.is_empty());
        let e = parse_link("Say#1.onStopped#3 => parent.onStopped#4");
        assert!(matches!(e, Err(Fault { offset: 18, .. })), "{e:?}");
    }
}
