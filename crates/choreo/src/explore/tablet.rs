//! The events a project's own web pages raise: Pepper's tablet shows the package's `html/`
//! folder, whose scripts reach ALMemory through qimessaging's JavaScript API
//! (`session.service("ALMemory")` then `.raiseEvent(key, value)`, as NAOqi's JavaScript SDK
//! pages show). Read from the pages' text, never run: each call with a quoted key and a
//! literal value (a number, a quoted string, `true`, `false`) is an input explore can make
//! when the behavior waits for that key.

use std::collections::BTreeMap;

use choreo_engine::Value;

/// Each key the pages raise, with each literal value written for it (file order, once).
pub fn tablet_events(files: &choreo_xar::FileTree) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (path, bytes) in files {
        let lower = path.to_ascii_lowercase();
        let page = lower.ends_with(".js") || lower.ends_with(".html") || lower.ends_with(".htm");
        if !page || !lower.split('/').any(|part| part == "html") {
            continue;
        }
        let text = String::from_utf8_lossy(bytes);
        for (key, value) in raised(&text) {
            let values = out.entry(key).or_default();
            if !values.contains(&value) {
                values.push(value);
            }
        }
    }
    out
}

/// The `raiseEvent("key", literal)` calls of a script's text.
fn raised(text: &str) -> Vec<(String, Value)> {
    const CALL: &str = "raiseEvent(";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(CALL) {
        rest = &rest[at + CALL.len()..];
        let Some((key, after)) = quoted(rest.trim_start()) else {
            continue;
        };
        let Some(after) = after.trim_start().strip_prefix(',') else {
            continue;
        };
        let end = after.find(')').unwrap_or(after.len());
        if let Some(value) = literal(after[..end].trim()) {
            out.push((key, value));
        }
    }
    out
}

/// A string in `"` or `'` at the start of `text` (no escapes), and what follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &text[1..];
    let end = body.find(quote)?;
    Some((body[..end].to_string(), &body[end + 1..]))
}

/// A JavaScript literal as a value: a quoted string, `true`, `false`, an integer, a number.
fn literal(text: &str) -> Option<Value> {
    if let Some((s, rest)) = quoted(text) {
        return rest.trim().is_empty().then_some(Value::String(s));
    }
    match text {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => text
            .parse::<i64>()
            .map(Value::Int)
            .ok()
            .or_else(|| text.parse::<f64>().ok().map(Value::Float)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_calls_of_the_html_folder_are_read() {
        let page = r##"
            session.service("ALMemory").then(function (memory) {
                $("#next").click(function () { memory.raiseEvent("Lesson/Page", 2); });
                $("#quit").click(function () { memory.raiseEvent('Lesson/Exit', "bye"); });
                memory.raiseEvent("Lesson/Page", 2);
                memory.raiseEvent("Lesson/Score", score);
                memory.raiseEvent("Lesson/Ready", true);
                memory.raiseEvent("Lesson/Volume", 0.5);
            });
        "##;
        let files = choreo_xar::FileTree::from([
            ("html/js/main.js".to_string(), page.as_bytes().to_vec()),
            (
                "behavior_1/notes.js".to_string(),
                b"m.raiseEvent(\"Not/Tablet\", 1)".to_vec(),
            ),
        ]);
        let found = tablet_events(&files);
        let expected = BTreeMap::from([
            ("Lesson/Exit".to_string(), vec![Value::from("bye")]),
            ("Lesson/Page".to_string(), vec![Value::Int(2)]),
            ("Lesson/Ready".to_string(), vec![Value::Bool(true)]),
            ("Lesson/Volume".to_string(), vec![Value::Float(0.5)]),
        ]);
        // `score` is no literal: its value is unknown, the key left out.
        assert_eq!(found, expected);
        // Cut or odd calls, as a page being edited has them: nothing read, nothing broken.
        for text in [
            "raiseEvent(",
            "raiseEvent(\"",
            "raiseEvent('k'",
            "raiseEvent(\"é\", é",
        ] {
            assert!(raised(text).is_empty(), "{text}");
        }
    }
}
