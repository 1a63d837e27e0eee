//! The splices of [`super::Edit::SetPluginRows`]: the rows of a Switch Case, a Multi Edit
//! or a Choice box set as their panel's table sets them (`plugin.rs` says what each holds).
//!
//! A row is three things in the file, all kept in step: a `<keyword>` of the panel's table
//! (the Choice box has a table a language: a row added or removed is added or removed in
//! each, empty in the others, as the row is one output for all); a port, `output_N` (Switch
//! Case, Choice) or `input_N` (Multi Edit), added with the element the stock library has
//! ("This IO has been automatically added by box."), removed with its links; and, for
//! Switch Case and Multi Edit, its part of the generated script (an `if`/`elif` branch, an
//! `onInput_input_N` method), written again from the rows as the library's scripts are.

use super::plugin::{MULTI_EDIT, SWITCH_CASE, plugin_rows};
use super::{BoxRef, Document, EditError, Splice, refused};
use crate::plugin::CHOICE_PLUGIN;

/// The tooltip Choregraphe gives the ports a panel adds.
const ADDED_PORT: &str =
    "This IO has been automatically added by box. Read box tooltip for more information.";

impl Document {
    /// The splices that make `rows` the rows of table `table` of the box at `at`.
    pub(super) fn set_plugin_rows(
        &self,
        at: &BoxRef,
        table: &str,
        rows: &[String],
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let plugin = def.plugin.as_deref().unwrap_or_default();
        let tables = plugin_rows(def);
        let old = tables
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, r)| r.len())
            .ok_or_else(|| refused(format!("{}: its panel has no table `{table}`", def.name)))?;
        let rows = rows
            .iter()
            .map(|r| row(plugin, r))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| refused(format!("{}: {why}", def.name)))?;
        if rows.is_empty() {
            return Err(refused(format!(
                "{}: a table keeps one row at least",
                def.name
            )));
        }
        let node = self.box_node(at)?;
        let content = self
            .spans
            .child(node, "pluginContent")
            .ok_or_else(|| EditError::NotFound(format!("{} has no pluginContent", def.name)))?;
        let mut splices = Vec::new();
        for (name, _) in &tables {
            let Some(element) = self.spans.child(content, name) else {
                continue;
            };
            let empty = vec![String::new(); rows.len()];
            let texts = if name == table { &rows } else { &empty };
            splices.extend(self.keywords(element, texts, name == table, old));
        }
        let port = if plugin == MULTI_EDIT {
            ("input", "Input", "1")
        } else {
            ("output", "Output", "0")
        };
        splices.extend(self.row_ports(at, node, port, old, rows.len())?);
        let code = match plugin {
            SWITCH_CASE => self.switch_case_code(node, &rows),
            MULTI_EDIT => self.multi_edit_code(node, &rows),
            _ => None, // the Choice box's code is made when it runs
        };
        splices.extend(code);
        Ok(splices)
    }

    /// The `<keyword>` children of `table` made `rows` (`old` of them are rows now; the
    /// others, then the empty one last, stay). Texts are set only where `own` (the table
    /// edited); the other languages' rows are added empty or removed.
    fn keywords(&self, table: usize, rows: &[String], own: bool, old: usize) -> Vec<Splice> {
        let keywords: Vec<usize> = self.spans.children_named(table, "keyword").collect();
        let mut out = Vec::new();
        if own {
            for (&k, text) in keywords.iter().zip(rows).take(old.min(rows.len())) {
                out.push(self.keyword_text(k, text));
            }
        }
        for &k in keywords.iter().take(old).skip(rows.len()) {
            out.push(self.remove_element(k));
        }
        if rows.len() > old {
            let added: Vec<String> = rows[old..]
                .iter()
                .map(|t| format!("<keyword>{}</keyword>", keyword_escaped(t)))
                .collect();
            let last_row = old
                .checked_sub(1)
                .and_then(|i| keywords.get(i).or(keywords.last()));
            out.push(match last_row {
                Some(&last_row) => self.insert_all_after(last_row, &added),
                None => match keywords.first() {
                    Some(&first) => self.insert_before(first, &added.join("")),
                    None => self.insert_last(table, &added.join("")),
                },
            });
        }
        out
    }

    /// The splice that makes `text` the text of the `<keyword>` `k`.
    fn keyword_text(&self, k: usize, text: &str) -> Splice {
        let n = &self.spans.nodes[k];
        let (range, inserted) = match &n.close {
            Some(close) => (n.open.end..close.start, keyword_escaped(text)),
            None => (
                n.open.clone(),
                format!("<keyword>{}</keyword>", keyword_escaped(text)),
            ),
        };
        Splice {
            at: range.start,
            removed: self.text[range].to_string(),
            inserted,
        }
    }

    /// `elements` after the element `sibling`, each on its line as the sibling is.
    fn insert_all_after(&self, sibling: usize, elements: &[String]) -> Splice {
        let start = self.spans.nodes[sibling].open.start;
        let line = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line..start];
        let separator = match indent.chars().all(|c| c == ' ' || c == '\t') {
            true => format!("{}{indent}", self.newline()),
            false => String::new(),
        };
        self.insert_after(sibling, &elements.join(&separator))
    }

    /// The ports `kind`_1 .. `kind`_`new` of the box, from `old`: the missing added after
    /// the box's last of their element, those beyond removed with their links.
    fn row_ports(
        &self,
        at: &BoxRef,
        node: usize,
        (kind, element, port_type): (&str, &str, &str),
        old: usize,
        new: usize,
    ) -> Result<Vec<Splice>, EditError> {
        let def = self.box_def(at)?;
        let has = |i: usize| {
            let name = format!("{kind}_{i}");
            match kind {
                "input" => def.inputs.iter().any(|p| p.name == name),
                _ => def.outputs.iter().any(|p| p.name == name),
            }
        };
        let mut out = Vec::new();
        for i in (new + 1..=old.max(new)).filter(|&i| has(i)) {
            out.extend(self.box_fields(
                at,
                &super::BoxFieldEdit::RemovePort {
                    name: format!("{kind}_{i}"),
                    kind: kind.to_string(),
                },
            )?);
        }
        let mut id = super::ports_splices::highest_id(def);
        let added: Vec<String> = (1..=new)
            .filter(|&i| !has(i))
            .map(|i| {
                id += 1;
                format!(
                    "<{element} name=\"{kind}_{i}\" type=\"{port_type}\" type_size=\"1\" nature=\"2\" inner=\"0\" tooltip=\"{ADDED_PORT}\" id=\"{id}\" />"
                )
            })
            .collect();
        if let Some(last) = self.spans.children_named(node, element).last()
            && !added.is_empty()
        {
            out.push(self.insert_all_after(last, &added));
        } else if !added.is_empty() {
            out.push(self.insert_field(node, element, &added.join("")));
        }
        Ok(out)
    }

    /// Switch Case's `if`/`elif` branches written again for `rows`, between the first
    /// `if(p == ...` line and the `else:` line, indented and ended as they are.
    fn switch_case_code(&self, node: usize, rows: &[String]) -> Option<Splice> {
        let inner = self.script_inner(node)?;
        let script = &self.text[inner.clone()];
        let first = line_start(script, script.find("if(p == self.typeConversion(")?);
        let end = line_start(script, first + script[first..].find("else:")?);
        let (indent, body, nl) = layout(&script[first..end])?;
        let mut code = String::new();
        for (i, r) in rows.iter().enumerate() {
            let word = if i == 0 { "if" } else { "elif" };
            code.push_str(&format!(
                "{indent}{word}(p == self.typeConversion({r})):{nl}{body}self.output_{}(p){nl}",
                i + 1
            ));
        }
        Some(self.script_part(inner.start, first..end, code))
    }

    /// Multi Edit's `onInput_input_N` methods written again for `rows` and the empty row
    /// last (the library's script has its method too: `self.onStopped("")`), up to the end
    /// of the script.
    fn multi_edit_code(&self, node: usize, rows: &[String]) -> Option<Splice> {
        let inner = self.script_inner(node)?;
        let script = &self.text[inner.clone()];
        let first = line_start(script, script.find("def onInput_input_1(self):")?);
        let end = script.rfind("]]>").filter(|&e| e > first)?;
        let (indent, body, nl) = layout(&script[first..end])?;
        let methods: Vec<String> = rows
            .iter()
            .map(String::as_str)
            .chain([""])
            .enumerate()
            .map(|(i, r)| {
                let value = if r.is_empty() { "\"\"" } else { r };
                format!(
                    "{indent}def onInput_input_{}(self):{nl}{body}self.onStopped({value})",
                    i + 1
                )
            })
            .collect();
        Some(self.script_part(inner.start, first..end, methods.join(nl)))
    }

    /// The splice that makes `code` the part `range` of the script that starts at `base`.
    fn script_part(&self, base: usize, range: std::ops::Range<usize>, code: String) -> Splice {
        let range = base + range.start..base + range.end;
        Splice {
            at: range.start,
            removed: self.text[range].to_string(),
            inserted: code,
        }
    }
}

/// A row as the panel keeps it: as typed — Switch Case's and Multi Edit's a Python
/// literal written into the script as it is, as Choregraphe does (the corpus has a case
/// typed `Hallo`, unquoted: `self.typeConversion(Hallo)`, a NameError on the robot); the
/// Choice box's empty where a language has no text for it. None holds a line end or ends
/// the script's CDATA.
fn row(plugin: &str, text: &str) -> Result<String, String> {
    let text = text.trim();
    let empty = text.is_empty() && plugin != CHOICE_PLUGIN;
    if empty || text.contains(['\n', '\r']) || text.contains("]]>") {
        return Err(format!("a row is one line of text, not {text:?}"));
    }
    Ok(text.to_string())
}

/// A keyword's text as Choregraphe writes it (`&quot;Back&quot;`).
fn keyword_escaped(text: &str) -> String {
    let mut out = String::new();
    crate::xml::escape_text(&mut out, text);
    out.replace('"', "&quot;")
}

/// Where the line holding `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The indentation of the first line of `lines`, of its second, and their line end.
fn layout(lines: &str) -> Option<(&str, &str, &'static str)> {
    let mut it = lines.split('\n');
    let first = it.next()?;
    let second = it.next()?;
    let nl = if first.ends_with('\r') { "\r\n" } else { "\n" };
    Some((indentation(first), indentation(second), nl))
}

/// The white space a line starts with.
fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}
