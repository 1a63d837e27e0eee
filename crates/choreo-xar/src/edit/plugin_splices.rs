//! The splices of [`super::Edit::SetPluginText`]: a stock box's value set as its plugin
//! panel sets it (`plugin.rs` says what Choregraphe writes where).

use std::ops::Range;

use super::plugin::{
    ANGLE_EDIT, COLOR_EDIT, LANGUAGE_SWITCHES, LOCALIZED_TEXT, NUMBER_EDIT, SET_LANGUAGE,
    TEXT_EDIT, capitalized, color, literal_after, number, plugin_texts, python_escaped, radians,
};
use super::{BoxRef, Document, EditError, Splice, refused};
use crate::xml::{escape_text, write_cdata};

/// Where a generated script holds a value: after `opening`, up to `end`.
enum Slot<'a> {
    /// A double-quoted Python string's content.
    Literal(&'a str),
    /// Up to the first `end` after `opening` on its line.
    Until(&'a str, char),
}

impl Document {
    /// The splices that set `field` of the plugin box at `at` to `text`.
    pub(super) fn set_plugin_text(
        &self,
        at: &BoxRef,
        field: &str,
        text: &str,
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let plugin = def.plugin.as_deref().unwrap_or_default();
        let fields = plugin_texts(def);
        if !fields.iter().any(|(f, _)| f == field) {
            return Err(refused(format!(
                "{}: its panel has no text `{field}` to set (it has: {})",
                def.name,
                fields
                    .iter()
                    .map(|(f, _)| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let bad = |why: String| refused(format!("{}: {field}: {why}", def.name));
        let node = self.box_node(at)?;
        let content = self
            .spans
            .child(node, "pluginContent")
            .ok_or_else(|| EditError::NotFound(format!("{} has no pluginContent", def.name)))?;
        let language_key;
        // The panel's field as written, and where and what the script gets.
        let (kept, slot, script_value) = match plugin {
            p if p == TEXT_EDIT.0 => (
                text.to_string(),
                Slot::Literal("self.onStopped(\""),
                python_escaped(text),
            ),
            LOCALIZED_TEXT => {
                language_key = format!("\"{}\" : \"", capitalized(field));
                let padded = format!(" {} ", python_escaped(text));
                (text.to_string(), Slot::Literal(&language_key), padded)
            }
            NUMBER_EDIT => {
                let n = number(text).map_err(bad)?;
                (n.clone(), Slot::Until("self.onStopped(", ')'), n)
            }
            COLOR_EDIT => {
                let (hex, rgb) = color(text).map_err(bad)?;
                (hex, Slot::Until("self.onStopped([", ']'), rgb)
            }
            ANGLE_EDIT => {
                let (kept, sent) = angle(&fields, field, text).map_err(bad)?;
                (kept, Slot::Until("self.onStopped(", ')'), sent)
            }
            SET_LANGUAGE if field == "language" => {
                if text.trim().is_empty() || text.contains(['"', '\\', '\n', '\r']) {
                    return Err(bad(format!("a language's name, not {text:?}")));
                }
                (
                    text.to_string(),
                    Slot::Literal("self.language = \""),
                    text.to_string(),
                )
            }
            SET_LANGUAGE => {
                let Some((_, line)) = LANGUAGE_SWITCHES.iter().find(|(f, _)| *f == field) else {
                    return Err(bad("not a field of Set Language".into()));
                };
                let on = match text {
                    "0" => "False",
                    "1" => "True",
                    _ => return Err(bad(format!("0 or 1, not {text:?}"))),
                };
                let mut splices = self.switch(content, field, text);
                splices.extend(self.script_splice(node, &Slot::Until(line, '\n'), on));
                return Ok(splices);
            }
            _ => return Err(bad("no panel choreo edits".into())),
        };
        let mut splices = vec![self.plugin_field(content, field, &kept)];
        // A project made on Windows: its texts' line ends are `\r\n` in the script (the
        // panel's CDATA may have lost its `\r` to a checkout; the script's escapes keep it).
        let script_value = match self.script_splice(node, &slot, "") {
            Some(old) if old.removed.contains("\\r\\n") && matches!(slot, Slot::Literal(_)) => {
                script_value
                    .replace("\\r\\n", "\\n")
                    .replace("\\n", "\\r\\n")
            }
            _ => script_value,
        };
        splices.extend(self.script_splice(node, &slot, &script_value));
        Ok(splices)
    }

    /// The splice that writes `value` where `slot` is in the generated script of the box
    /// `node`, if the script has that place (a script left empty regenerates).
    fn script_splice(&self, node: usize, slot: &Slot<'_>, value: &str) -> Option<Splice> {
        let inner = self.script_inner(node)?;
        let script = &self.text[inner.clone()];
        let found = match *slot {
            Slot::Literal(opening) => literal_after(script, opening)?,
            Slot::Until(opening, end) => {
                let start = script.find(opening)? + opening.len();
                let len = script[start..].find(end)?;
                // a Windows line end stays
                let len = script[start..start + len].trim_end_matches('\r').len();
                start..start + len
            }
        };
        let range = inner.start + found.start..inner.start + found.end;
        Some(Splice {
            at: range.start,
            removed: self.text[range].to_string(),
            inserted: value.to_string(),
        })
    }

    /// The text inside the `<content>` of the box `node`'s script.
    pub(super) fn script_inner(&self, node: usize) -> Option<Range<usize>> {
        let content = self
            .spans
            .child(node, "script")
            .and_then(|s| self.spans.child(s, "content"))?;
        let close = self.spans.nodes[content].close.as_ref()?;
        Some(self.spans.nodes[content].open.end..close.start)
    }

    /// Set Language's switch `field` (`<asr use="1" />`) set to `on`, the element added
    /// after the others when the file has none.
    fn switch(&self, content: usize, field: &str, on: &str) -> Vec<Splice> {
        match self.spans.child(content, field) {
            Some(element) => self.set_attribute(element, "use", on),
            None => vec![self.insert_last(content, &format!("<{field} use=\"{on}\" />"))],
        }
    }

    /// The splice that sets the `<field>` child of `<pluginContent>` (node `content`) to
    /// `text`, written as the file has it: its CDATA replaced (Choregraphe 2.x), or its
    /// plain text (the 2.1 library's `<english>Hello</english>`); a missing one added.
    fn plugin_field(&self, content: usize, field: &str, text: &str) -> Splice {
        let mut cdata = String::new();
        write_cdata(&mut cdata, text);
        let Some(child) = self.spans.child(content, field) else {
            return self.insert_last(content, &format!("<{field}>{cdata}</{field}>"));
        };
        let n = &self.spans.nodes[child];
        let Some(close) = &n.close else {
            // `<text />` stays so while it is empty (the 2.1 library's Text Edit)
            let element = &self.text[n.open.clone()];
            return Splice {
                at: n.open.start,
                removed: element.to_string(),
                inserted: match text.is_empty() {
                    true => element.to_string(),
                    false => format!("<{field}>{cdata}</{field}>"),
                },
            };
        };
        let inner = n.open.end..close.start;
        let body = &self.text[inner.clone()];
        // The CDATA sections only (the white space Choregraphe lays around them stays).
        let (range, inserted) = match (body.find("<![CDATA["), body.rfind("]]>")) {
            (Some(a), Some(z)) if a < z => (inner.start + a..inner.start + z + 3, cdata),
            _ => {
                let mut plain = String::new();
                escape_text(&mut plain, text);
                // line ends as the file writes them in this text (Choregraphe 1.x: `&#x0A;`)
                if body.contains("&#x0A;") {
                    plain = plain.replace('\n', "&#x0A;");
                }
                (inner, plain)
            }
        };
        Splice {
            at: range.start,
            removed: self.text[range].to_string(),
            inserted,
        }
    }
}

/// Angle Edit's `field` (`angle` or `unit`) set to `text`, the other as the panel has it in
/// `fields`: what its field keeps, and the radians its script sends.
fn angle(fields: &[(String, String)], field: &str, text: &str) -> Result<(String, String), String> {
    let value = |f: &str| {
        fields
            .iter()
            .find(|(name, _)| name == f)
            .map_or("0", |(_, v)| v.as_str())
    };
    let (angle, unit) = match field {
        "unit" if matches!(text, "0" | "1") => (value("angle").to_string(), text),
        "unit" => return Err("0 (degrees) or 1 (radians)".into()),
        _ => (number(text)?, value("unit")),
    };
    let a: f64 = angle
        .parse()
        .map_err(|_| format!("{angle:?} is not a number"))?;
    let kept = if field == "unit" {
        unit.to_string()
    } else {
        angle
    };
    Ok((kept, radians(a, unit)))
}
