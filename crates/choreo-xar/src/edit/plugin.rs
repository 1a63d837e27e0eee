//! Choregraphe's plugin panels: what each holds and how its values are written.
//!
//! Choregraphe edits some stock boxes through a panel of their own (the box's `plugin`
//! attribute). When the panel changes, Choregraphe writes two things: the `<pluginContent>`
//! child the panel keeps, and the script it generates from it ("Generated content. Do not
//! edit!"), where the run takes the value. choreo changes both and nothing else: the
//! generated script's other lines stay as that Choregraphe version wrote them.
//!
//! Two kinds of panel (read in the 2.1 stock library and the corpus's projects):
//! - **values** (`plugin_splices.rs`): Text Edit (`<text>`; `self.onStopped("...")`),
//!   Localized Text (one element a language; `"English" : " ... ",` in `self.sentences`, a
//!   space each side as every corpus file has it; the stock Say's text is the Localized Text
//!   inside it), Number Edit (`<number>`; `self.onStopped(1)`), Color Edit (`<color>#rrggbb`;
//!   `self.onStopped([r, g, b])`), Angle Edit (`<angle>`, `<unit>` 0 for degrees;
//!   `self.onStopped(radians)`), Set Language (`<language>`, `<asr use>`, `<dialog use>`;
//!   `self.language = "..."`, `self.setASR = True`);
//! - **rows** (`plugin_rows.rs`): Switch Case's cases and Multi Edit's values (`<keywords>`,
//!   each a Python literal as typed: `&quot;Back&quot;`, `5`), the Choice box's answers
//!   (a `<keyword>` list a language); a row is also a port of the box (`output_N`,
//!   `input_N`) and, for Switch Case and Multi Edit, a branch or a method of the script.

use std::ops::Range;

/// Text Edit's plugin, and its one field.
pub const TEXT_EDIT: (&str, &str) = ("textedit_plugin", "text");
/// Localized Text's plugin (its fields: languages, lower case English names).
pub const LOCALIZED_TEXT: &str = "localizationbox_plugin";
/// Number Edit's plugin.
pub const NUMBER_EDIT: &str = "numberedit_plugin";
/// Color Edit's plugin (the LED boxes' colour too: a Color Edit inside them).
pub const COLOR_EDIT: &str = "coloredit_plugin";
/// Angle Edit's plugin.
pub const ANGLE_EDIT: &str = "angleedit_plugin";
/// Set Language's plugin.
pub const SET_LANGUAGE: &str = "setlanguage_plugin";
/// Switch Case's plugin: a case a row, an output a case.
pub const SWITCH_CASE: &str = "dispatcher_plugin";
/// Multi Edit's plugin: a value a row, an input a value.
pub const MULTI_EDIT: &str = "multiplexer_plugin";

/// The panels of single values, and their fields (Localized Text's are its languages).
const VALUE_FIELDS: &[(&str, &[&str])] = &[
    (TEXT_EDIT.0, &[TEXT_EDIT.1]),
    (NUMBER_EDIT, &["number"]),
    (COLOR_EDIT, &["color"]),
    (ANGLE_EDIT, &["angle", "unit"]),
    (SET_LANGUAGE, &["language", "asr", "dialog"]),
];

/// Set Language's switches: the field, and the line of the generated script it sets.
pub(super) const LANGUAGE_SWITCHES: &[(&str, &str)] =
    &[("asr", "self.setASR = "), ("dialog", "self.setDialog = ")];

/// `english` → `English`, as the generated script names it.
pub(super) fn capitalized(field: &str) -> String {
    let mut c = field.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The range of the Python string's content that follows `opening` in `script` (up to its
/// closing, unescaped `"`).
pub(super) fn literal_after(script: &str, opening: &str) -> Option<Range<usize>> {
    let start = script.find(opening)? + opening.len();
    let mut escaped = false;
    for (i, c) in script[start..].char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(start..start + i),
            '\n' if !escaped => return None, // not a one-line string
            _ => escaped = false,
        }
    }
    None
}

/// `text` inside a double-quoted Python string, as Choregraphe writes it (`\r\n` for a
/// Windows line end, `\"`, `\'` — the corpus's `" Hello, I\'m  "` —, `\\`).
pub(super) fn python_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// The values a plugin box's panel edits (`field`, value), as `<pluginContent>` holds them:
/// a Text Edit's `text`, a Localized Text's languages in the file's order, a Number Edit's
/// `number`, ...; none for other boxes. A text is its CDATA or its plain text (the white
/// space laid around a CDATA section is not the text's); Set Language's switches are `0` or
/// `1`, from the `use` attribute, else (a file without them) from the generated script.
pub fn plugin_texts(def: &crate::model::BoxDef) -> Vec<(String, String)> {
    let plugin = def.plugin.as_deref().unwrap_or_default();
    let fields = VALUE_FIELDS
        .iter()
        .find(|(p, _)| *p == plugin)
        .map(|(_, f)| *f);
    let Some((content, spans)) = indexed(def, fields.is_some() || plugin == LOCALIZED_TEXT) else {
        return Vec::new();
    };
    let root = &spans.nodes[0];
    let mut out: Vec<(String, String)> = root
        .children
        .iter()
        .map(|&c| {
            let n = &spans.nodes[c];
            let body = n
                .close
                .as_ref()
                .map_or("", |close| &content[n.open.end..close.start]);
            let value = match LANGUAGE_SWITCHES.iter().any(|(f, _)| *f == n.name) {
                true => {
                    let tag = &content[n.open.clone()];
                    super::spans::attribute(tag, "use")
                        .map_or("0", |r| &tag[r])
                        .to_string()
                }
                false => field_text(body),
            };
            (n.name.clone(), value)
        })
        .collect();
    let Some(fields) = fields else {
        return out; // Localized Text: every language it lists
    };
    out.retain(|(f, _)| fields.contains(&f.as_str()));
    if plugin == SET_LANGUAGE {
        // A Set Language written before its switches were kept: the script's say.
        let code = def.code();
        for (field, line) in LANGUAGE_SWITCHES {
            if !out.iter().any(|(f, _)| f == field)
                && let Some(at) = code.find(line)
            {
                let on = code[at + line.len()..].starts_with("True");
                out.push((field.to_string(), if on { "1" } else { "0" }.to_string()));
            }
        }
    }
    out
}

/// The rows a plugin box's panel lists, a table a language for the Choice box (its
/// element's name: `english`), one table named `keywords` for Switch Case and Multi Edit;
/// none for other boxes. Each row as the panel shows it (Switch Case's Python literal
/// with its quotes); the empty rows Choregraphe keeps last (where a new row is typed) are
/// not rows, and the Choice box's tables all have as many rows as the longest.
pub fn plugin_rows(def: &crate::model::BoxDef) -> Vec<(String, Vec<String>)> {
    let plugin = def.plugin.as_deref().unwrap_or_default();
    let tabled = [SWITCH_CASE, MULTI_EDIT, crate::plugin::CHOICE_PLUGIN].contains(&plugin);
    let Some((content, spans)) = indexed(def, tabled) else {
        return Vec::new();
    };
    let root = &spans.nodes[0];
    let mut tables: Vec<(String, Vec<String>)> = root
        .children
        .iter()
        .filter(|&&c| spans.nodes[c].name != "language")
        .map(|&table| {
            let mut rows: Vec<String> = spans
                .children_named(table, "keyword")
                .map(|k| {
                    let n = &spans.nodes[k];
                    n.close
                        .as_ref()
                        .map_or(String::new(), |c| field_text(&content[n.open.end..c.start]))
                })
                .collect();
            while rows.last().is_some_and(|r| r.is_empty()) {
                rows.pop();
            }
            (spans.nodes[table].name.clone(), rows)
        })
        .collect();
    // A Choice row is one in every language (one output): a language without its text has
    // it empty.
    let count = tables.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
    for (_, rows) in &mut tables {
        rows.resize(count, String::new());
    }
    tables
}

/// The box's `<pluginContent>` and its elements (the first its root), when `wanted` (a
/// panel choreo edits) and it reads.
fn indexed(def: &crate::model::BoxDef, wanted: bool) -> Option<(&str, super::spans::Spans)> {
    let content = def.plugin_content.as_deref().filter(|_| wanted)?;
    let spans = super::spans::Spans::index(content).ok()?;
    (!spans.nodes.is_empty()).then_some((content, spans))
}

/// A number as Number Edit writes it, in its field and its script (`15`, `0.5`), or why
/// `text` is not one.
pub(super) fn number(text: &str) -> Result<String, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(format!("{v}")),
        _ => Err(format!("a number, not {text:?}")),
    }
}

/// A colour as Color Edit writes it: `#rrggbb` (lower case) and its `[r, g, b]`.
pub(super) fn color(text: &str) -> Result<(String, String), String> {
    let hex = text.trim().trim_start_matches('#');
    let channel = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    match (hex.len(), channel(0), channel(2), channel(4)) {
        (6, Some(r), Some(g), Some(b)) => {
            Ok((format!("#{r:02x}{g:02x}{b:02x}"), format!("{r}, {g}, {b}")))
        }
        _ => Err(format!("a colour is #rrggbb, not {text:?}")),
    }
}

/// The radians Angle Edit's script sends for `angle` in `unit` (0: degrees, 1: radians),
/// six significant digits as Qt's `QString::number` writes a double (the corpus's
/// 90 degrees: `1.5708`).
pub(super) fn radians(angle: f64, unit: &str) -> String {
    let r = if unit == "1" {
        angle
    } else {
        angle.to_radians()
    };
    if r == 0.0 {
        return "0".to_string();
    }
    let decimals = (5 - r.abs().log10().floor() as i32).max(0) as usize;
    let fixed = format!("{r:.decimals$}");
    match fixed.contains('.') {
        true => fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string(),
        false => fixed,
    }
}

/// An element's text from its inner XML: its CDATA sections joined, else its plain text
/// unescaped.
fn field_text(body: &str) -> String {
    if !body.contains("<![CDATA[") {
        return crate::xml::unescape_text(body).unwrap_or_else(|| body.to_string());
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some(a) = rest.find("<![CDATA[") {
        let after = &rest[a + "<![CDATA[".len()..];
        let Some(z) = after.find("]]>") else { break };
        out.push_str(&after[..z]);
        rest = &after[z + 3..];
    }
    out
}
