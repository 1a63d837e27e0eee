//! Where each box script sits in a XAR file, so that a check of its code (`choreo check`
//! compiling it as a run would) can point at the file's own lines.
//!
//! [`ScriptCheck`] is the contract by which `check_path_with` has scripts judged by whoever can
//! compile them and knows the robot's API (choreo-python's `box_scripts`): the readers know the
//! lines, not Python.

use super::content::code_of_raw_content;

/// One box script of a XAR file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptAt {
    /// The box's path by names (`root/Dance/Say`).
    pub box_path: String,
    /// The file's line holding the code's first line (from 1).
    pub line: u32,
    /// The code, as the model holds it.
    pub code: String,
}

/// Something wrong with a box script, at its line and column (from 1) in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptProblem {
    /// An error (the script cannot run: a syntax error) or a warning (what will fail when
    /// that line runs).
    pub severity: crate::Severity,
    /// Line in the script, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// Says what is wrong with a box's script: the contract between the readers (which know
/// where the code sits in its file) and whoever can compile it and knows the robot's API.
pub trait ScriptCheck {
    /// The problems of the script of `b` (its code is `b.code()`); `ancestors`: the boxes
    /// around it, outermost first (a parameter may be read from them, S3).
    fn check(
        &self,
        b: &crate::model::BoxDef,
        ancestors: &[&crate::model::BoxDef],
    ) -> Vec<ScriptProblem>;
}

/// Every box script of the XAR text `text` with code, in document order (those after a
/// point where the text is not well-formed XML are left out: the reader reports that).
pub fn scripts_at(text: &str) -> Vec<ScriptAt> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out = Vec::new();
    // The open elements: (local name, the `name` attribute of a `Box`).
    let mut open: Vec<(String, Option<String>)> = Vec::new();
    // Inside `script/content`: where its inner XML starts.
    let mut content_start: Option<usize> = None;
    // Lines counted up to a byte offset (scripts come in document order: counted once).
    let (mut counted_to, mut newlines) = (0usize, 0usize);
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(e) => e,
        };
        let after = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        match event {
            Event::Start(e) => {
                let name = e.local_name().into_inner().to_string();
                let box_name = (name == "Box").then(|| {
                    e.try_get_attribute("name")
                        .ok()
                        .flatten()
                        .and_then(|a| {
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .ok()
                                .map(|v| v.into_owned())
                        })
                        .unwrap_or_else(|| "?".to_string())
                });
                if name == "content" && open.last().is_some_and(|(n, _)| n == "script") {
                    content_start = Some(after);
                }
                open.push((name, box_name));
            }
            Event::End(_) => {
                if let Some((name, _)) = open.pop()
                    && name == "content"
                    && let Some(start) = content_start.take()
                    && let Some(inner) = text.get(start..before)
                {
                    let code = code_of_raw_content(inner);
                    if !code.is_empty() {
                        let first = match inner.find("<![CDATA[") {
                            Some(i) => i + "<![CDATA[".len(),
                            None => inner.len() - inner.trim_start().len(),
                        };
                        let at = start + first;
                        newlines += text
                            .get(counted_to..at)
                            .map_or(0, |b| b.bytes().filter(|c| *c == b'\n').count());
                        counted_to = counted_to.max(at);
                        let line = newlines;
                        let path: Vec<&str> =
                            open.iter().filter_map(|(_, b)| b.as_deref()).collect();
                        out.push(ScriptAt {
                            box_path: path.join("/"),
                            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
                            code,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_found_at_their_lines_with_their_box_paths() {
        let text = "<?xml version=\"1.0\"?>\n<ChoregrapheProject xmlns=\"http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd\" xar_version=\"3\">\n<Box name=\"root\" id=\"-1\">\n<script language=\"4\">\n<content>\n<![CDATA[class MyClass:\n    pass]]>\n</content>\n</script>\n<Timeline><BehaviorLayer name=\"b\"><BehaviorKeyframe name=\"k\" index=\"1\"><Diagram>\n<Box name=\"Say\" id=\"1\"><script language=\"4\"><content><![CDATA[]]></content></script></Box>\n<Box name=\"Inner\" id=\"2\"><script language=\"4\"><content>x = 1</content></script></Box>\n</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>\n</Box>\n</ChoregrapheProject>\n";
        let found = scripts_at(text);
        assert_eq!(
            found,
            vec![
                ScriptAt {
                    box_path: "root".into(),
                    line: 6,
                    code: "class MyClass:\n    pass".into(),
                },
                ScriptAt {
                    box_path: "root/Inner".into(),
                    line: 12,
                    code: "x = 1".into(),
                },
            ]
        );
        assert!(scripts_at("<not xml").is_empty());
    }
}
