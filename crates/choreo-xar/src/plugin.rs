//! Editor plugin state (`<pluginContent>`) that a runtime needs.
//!
//! Most plugins keep only what their editor widget shows, and the box's script already holds
//! the result. The stock Choice box (`ui_choice_plugin`) is the exception: its script is a
//! placeholder comment and Choregraphe generated the code when the behavior ran, from the
//! table of answers kept here. [`ChoiceTable`] reads that table.

use quick_xml::Reader;
use quick_xml::events::Event;

/// The plugin name of the stock Choice box.
pub const CHOICE_PLUGIN: &str = "ui_choice_plugin";

/// The answers of a Choice box, per language.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChoiceTable {
    /// Per language (`English`, `French`, ...: the name NAOqi's `getLanguage` returns), the
    /// choices in table order; each choice lists its phrasings (`apple pie / pie` is two).
    /// Empty rows are left out; a language with no row is kept with no choice.
    pub languages: Vec<(String, Vec<Vec<String>>)>,
    /// The language the editor showed (`<language>`), as a NAOqi name, when it names one.
    pub editor_language: Option<String>,
}

/// A Choice box's `<pluginContent>` that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PluginContentError {
    /// Not well-formed XML (quick-xml's words).
    #[error("pluginContent: {0}")]
    Xml(String),
    /// An end tag with no start tag.
    #[error("pluginContent: an end tag without its start")]
    EndWithoutStart,
    /// The text ends inside an element.
    #[error("pluginContent: the element is not closed")]
    NotClosed,
}

impl ChoiceTable {
    /// Reads a Choice box's `<pluginContent>` element (its whole source text).
    pub fn parse(raw: &str) -> Result<ChoiceTable, PluginContentError> {
        let mut reader = Reader::from_str(raw);
        let mut table = ChoiceTable::default();
        // Element names from the pluginContent root down to the current element.
        let mut open: Vec<String> = Vec::new();
        let mut text = String::new();
        loop {
            let event = reader
                .read_event()
                .map_err(|e| PluginContentError::Xml(e.to_string()))?;
            match event {
                Event::Start(start) => {
                    let name = start.local_name().as_ref().to_string();
                    if open.len() == 1 && name != "language" {
                        table.languages.push((language_name(&name), Vec::new()));
                    }
                    open.push(name);
                    text.clear();
                }
                Event::Empty(start) => {
                    let name = start.local_name().as_ref().to_string();
                    if open.len() == 1 && name != "language" {
                        table.languages.push((language_name(&name), Vec::new()));
                    }
                }
                Event::Text(t) => {
                    text.push_str(&t.xml10_content());
                }
                Event::GeneralRef(r) => {
                    let entity = format!("&{};", r.xml10_content());
                    let resolved = quick_xml::escape::unescape(&entity)
                        .map_err(|e| PluginContentError::Xml(e.to_string()))?;
                    text.push_str(&resolved);
                }
                Event::CData(c) => {
                    text.push_str(&c.xml10_content());
                }
                Event::End(_) => {
                    let Some(name) = open.pop() else {
                        return Err(PluginContentError::EndWithoutStart);
                    };
                    match (open.len(), name.as_str()) {
                        (1, "language") => {
                            let value = text.trim();
                            // Some editors wrote an index here rather than a name.
                            if !value.is_empty() && value.parse::<u32>().is_err() {
                                table.editor_language = Some(language_name(value));
                            }
                        }
                        (2, "keyword") => {
                            let phrasings: Vec<String> = text
                                .split('/')
                                .map(str::trim)
                                .filter(|p| !p.is_empty())
                                .map(String::from)
                                .collect();
                            if let (false, Some((_, rows))) =
                                (phrasings.is_empty(), table.languages.last_mut())
                            {
                                rows.push(phrasings);
                            }
                        }
                        _ => {}
                    }
                    text.clear();
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !open.is_empty() {
            return Err(PluginContentError::NotClosed);
        }
        Ok(table)
    }
}

/// `english` → `English`: the file's lower-case element names as NAOqi spells languages.
fn language_name(element: &str) -> String {
    let mut chars = element.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]

    use super::*;

    #[test]
    fn reads_rows_phrasings_and_the_editor_language() {
        let raw = "<pluginContent>
            <english>
                <keyword>yes / ok</keyword>
                <keyword>no</keyword>
                <keyword></keyword>
            </english>
            <french><keyword><![CDATA[oui]]></keyword><keyword>non &amp; jamais</keyword></french>
            <finnish />
            <language>english</language>
        </pluginContent>";
        let t = ChoiceTable::parse(raw).expect("valid");
        assert_eq!(t.editor_language.as_deref(), Some("English"));
        assert_eq!(
            t.languages,
            vec![
                (
                    "English".to_string(),
                    vec![vec!["yes".to_string(), "ok".to_string()], vec!["no".into()]]
                ),
                (
                    "French".to_string(),
                    vec![vec!["oui".to_string()], vec!["non & jamais".into()]]
                ),
                ("Finnish".to_string(), vec![]),
            ]
        );
    }

    #[test]
    fn an_index_as_language_names_none() {
        let t = ChoiceTable::parse("<pluginContent><language>1</language></pluginContent>")
            .expect("valid");
        assert_eq!(t.editor_language, None);
        assert!(t.languages.is_empty());
    }

    #[test]
    fn malformed_content_is_an_error_not_a_panic() {
        for raw in [
            "<pluginContent><english><keyword>yes</english>",
            "<pluginContent><english>",
            "<pluginContent>&bogus;</pluginContent>",
        ] {
            assert!(ChoiceTable::parse(raw).is_err(), "{raw}");
        }
    }
}
