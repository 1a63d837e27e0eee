//! A stock box's text as Choregraphe's plugin panels edit it: Text Edit
//! (`textedit_plugin`: `<pluginContent><text>`) and Localized Text
//! (`localizationbox_plugin`: one element a language, `<english>`, `<french>`, ...; the
//! stock Say box's text lives in the Localized Text box inside it).
//!
//! Choregraphe writes two things when its panel changes: the `<pluginContent>` child, and
//! the script it generates from it ("Generated content. Do not edit!"), where the text is a
//! Python string — Text Edit's `self.onStopped("...")`, Localized Text's `"English" : "
//! ... ",` in `self.sentences` (a space each side, as the corpus's files all have). Both
//! are changed (`plugin_splices.rs`) and nothing else: the generated script's other lines
//! stay as that Choregraphe version wrote them. Here: what the panels hold, and how a text
//! is written in each place.

use std::ops::Range;

/// Text Edit's plugin, and its one field.
pub const TEXT_EDIT: (&str, &str) = ("textedit_plugin", "text");
/// Localized Text's plugin (its fields: languages, lower case English names).
pub const LOCALIZED_TEXT: &str = "localizationbox_plugin";

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

/// The texts a plugin box's panel edits (`field`, text), as `<pluginContent>` holds them:
/// a Text Edit's `text`, a Localized Text's languages in the file's order; none for other
/// boxes. Each text is its CDATA or its plain text (the white space laid around a CDATA
/// section is not the text's).
pub fn plugin_texts(def: &crate::model::BoxDef) -> Vec<(String, String)> {
    let plugin = def.plugin.as_deref().unwrap_or_default();
    let (Some(content), true) = (
        def.plugin_content.as_deref(),
        plugin == TEXT_EDIT.0 || plugin == LOCALIZED_TEXT,
    ) else {
        return Vec::new();
    };
    let Ok(spans) = super::spans::Spans::index(content) else {
        return Vec::new();
    };
    let Some(root) = spans.nodes.first() else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = root
        .children
        .iter()
        .map(|&c| {
            let n = &spans.nodes[c];
            let body = n
                .close
                .as_ref()
                .map_or("", |close| &content[n.open.end..close.start]);
            (n.name.clone(), field_text(body))
        })
        .collect();
    if plugin == TEXT_EDIT.0 {
        out.retain(|(f, _)| f == TEXT_EDIT.1);
    }
    out
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
