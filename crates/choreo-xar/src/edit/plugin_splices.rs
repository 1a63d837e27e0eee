//! The splices of [`super::Edit::SetPluginText`]: a stock box's text set as its plugin
//! panel sets it (`plugin.rs` says what Choregraphe writes).

use super::plugin::{
    LOCALIZED_TEXT, TEXT_EDIT, capitalized, literal_after, plugin_texts, python_escaped,
};
use super::{BoxRef, Document, EditError, Splice};
use crate::xml::{escape_text, write_cdata};

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
        // Where the generated script holds the text: after this, up to the closing quote.
        let (opening, padded) = match plugin {
            p if p == TEXT_EDIT.0 && field == TEXT_EDIT.1 => {
                ("self.onStopped(\"".to_string(), false)
            }
            // a language the panel lists (its element is there)
            LOCALIZED_TEXT if plugin_texts(def).iter().any(|(f, _)| f == field) => {
                (format!("\"{}\" : \"", capitalized(field)), true)
            }
            _ => {
                return Err(EditError::Refused(format!(
                    "{}: no text `{field}` to set (a Text Edit's `text`, a Localized Text's \
                     language)",
                    def.name
                )));
            }
        };
        let node = self.box_node(at)?;
        let content = self
            .spans
            .child(node, "pluginContent")
            .ok_or_else(|| EditError::NotFound(format!("{} has no pluginContent", def.name)))?;
        let mut splices = vec![self.plugin_field(content, field, text)];
        // The generated script, when it holds the text (a script left empty regenerates).
        if let Some(script) = self
            .spans
            .child(node, "script")
            .and_then(|s| self.spans.child(s, "content"))
            && let Some(close) = &self.spans.nodes[script].close
        {
            let inner = self.spans.nodes[script].open.end..close.start;
            if let Some(literal) = literal_after(&self.text[inner.clone()], &opening) {
                let escaped = python_escaped(text);
                splices.push(Splice {
                    at: inner.start + literal.start,
                    removed: self.text[inner.start + literal.start..inner.start + literal.end]
                        .to_string(),
                    inserted: if padded {
                        format!(" {escaped} ")
                    } else {
                        escaped
                    },
                });
            }
        }
        Ok(splices)
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
            return Splice {
                at: n.open.start,
                removed: self.text[n.open.clone()].to_string(),
                inserted: format!("<{field}>{cdata}</{field}>"),
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
