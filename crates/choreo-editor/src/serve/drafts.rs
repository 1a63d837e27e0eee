//! What a page typed and the file does not hold yet (docs/editor.md, "Nothing typed is
//! lost"). The page sends each field's text as it is typed; the server keeps it until the
//! page says the file holds it, and gives every page opened (a reload, a page opened again
//! after a crash, another tab) the drafts kept. In the server rather than the browser's
//! storage: a message on the page's socket has left the page once sent, so a crash right
//! after loses nothing the server was told, and the page knows when it was told.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// At most this many drafts, and bytes of text in all: a page cannot make the server hold
/// more (a draft past the bounds is refused, the page says it is not kept).
const MOST_DRAFTS: usize = 1000;
const MOST_BYTES: usize = 64 << 20;

/// The drafts kept, by the page's name of the field.
#[derive(Debug, Default)]
pub(super) struct Drafts(BTreeMap<String, String>);

impl Drafts {
    /// `{"type": "draft", "name", "text", "from"}` (a string, or null when the file holds
    /// it; `from`: the page's id): the answer says it was kept (`draft_kept`, the name and
    /// whose it was), so the page knows it is safe.
    pub(super) fn keep(&mut self, v: &Value) -> Result<Value, String> {
        let name = v["name"].as_str().ok_or("a draft is named")?;
        match &v["text"] {
            Value::Null => {
                self.0.remove(name);
            }
            Value::String(text) => {
                let held: usize = self
                    .0
                    .iter()
                    .filter(|(n, _)| n.as_str() != name)
                    .map(|(n, t)| n.len() + t.len())
                    .sum();
                let new = !self.0.contains_key(name);
                if (new && self.0.len() >= MOST_DRAFTS)
                    || held + name.len() + text.len() > MOST_BYTES
                {
                    return Err(format!(
                        "draft not kept: {MOST_DRAFTS} drafts or {} MiB at most (save some)",
                        MOST_BYTES >> 20
                    ));
                }
                self.0.insert(name.to_string(), text.clone());
            }
            _ => return Err("a draft's text is a string, or null".into()),
        }
        Ok(json!({"type": "draft_kept", "name": name, "from": v["from"]}))
    }

    /// The `drafts` answer: every draft kept.
    pub(super) fn message(&self) -> Value {
        json!({"type": "drafts", "drafts": self.0})
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_is_kept_until_dropped_and_the_bounds_hold() {
        let mut d = Drafts::default();
        let kept = d.keep(&json!({"name": "a", "text": "typed"})).unwrap();
        assert_eq!(kept["type"], "draft_kept");
        assert_eq!(d.message()["drafts"]["a"], "typed");
        d.keep(&json!({"name": "a", "text": null})).unwrap();
        assert_eq!(d.message()["drafts"], json!({}));
        assert!(d.keep(&json!({"name": "a", "text": 3})).is_err());
        assert!(d.keep(&json!({"text": "x"})).is_err());
        let big = "x".repeat(MOST_BYTES);
        assert!(d.keep(&json!({"name": "b", "text": big})).is_err());
        for i in 0..MOST_DRAFTS {
            d.keep(&json!({"name": i.to_string(), "text": ""})).unwrap();
        }
        assert!(d.keep(&json!({"name": "one more", "text": ""})).is_err());
        // one kept already may change
        d.keep(&json!({"name": "7", "text": "again"})).unwrap();
    }
}
