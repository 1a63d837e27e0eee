//! "Try this rule": the topic as typed, loaded in choreo's dialog engine (the one ALDialog on
//! the simulated robot runs), hears a sentence, and the answer is shown with the rule that
//! gave it. Without a sentence from the editor, the rule's own pattern gives one: each
//! choice's first item, optional parts left out, a concept's first word; a pattern that
//! waits for an event or a wildcard's words says so instead of guessing.

use std::collections::HashMap;
use std::path::Path;

use choreo_qichat::dialog::Dialog;
use choreo_qichat::{PatternKind, PatternNode, Rule, RuleKind, Topic};

/// How deep concepts naming concepts are followed for an example sentence.
const MAX_CONCEPT_DEPTH: usize = 8;

/// The user rule starting on line `line` (from 0) of the topic.
pub fn rule_at(topic: &Topic, line: usize) -> Option<&Rule> {
    let line = u32::try_from(line + 1).ok()?;
    topic
        .all_rules()
        .into_iter()
        .find(|r| r.kind == RuleKind::User && r.span.line == line)
}

/// A sentence the rule's pattern matches, if one can be written without guessing.
pub fn example(topic: &Topic, rule: &Rule) -> Option<String> {
    let mut words = Vec::new();
    sentence(topic, &rule.pattern, 0, &mut words)?;
    (!words.is_empty()).then(|| words.join(" "))
}

fn sentence(
    topic: &Topic,
    nodes: &[PatternNode],
    depth: usize,
    out: &mut Vec<String>,
) -> Option<()> {
    for node in nodes {
        match &node.kind {
            PatternKind::Word(w) => out.push(w.clone()),
            PatternKind::Phrase(items) => sentence(topic, items, depth, out)?,
            PatternKind::Choice(items) => sentence(topic, items.get(..1)?, depth, out)?,
            PatternKind::Capture(inner) => {
                sentence(topic, std::slice::from_ref(inner), depth, out)?
            }
            PatternKind::Concept(name) if depth < MAX_CONCEPT_DEPTH => {
                let concept = topic.concepts.iter().find(|c| &c.name == name)?;
                sentence(topic, &concept.body, depth + 1, out)?;
            }
            PatternKind::Optional(_) | PatternKind::Not(_) | PatternKind::Tag(_) => {}
            PatternKind::Condition(_) | PatternKind::Function(_) => {}
            _ => return None,
        }
    }
    Some(())
}

/// What the robot answers to `said` with topic `text` (file `path`, its `include:` files
/// read beside it) loaded and active: `robot: ...   [line N]`, or why not.
pub fn answer(path: &Path, text: &str, said: &str) -> String {
    let shown = path.display().to_string();
    let mut topic = match choreo_qichat::parse_str(&shown, text) {
        Ok(t) => t,
        Err(errors) => {
            let first = errors.first().map_or(String::new(), ToString::to_string);
            return format!("the topic does not parse: {first}");
        }
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut read = |name: &str| {
        std::fs::read(folder.join(name)).map_err(|e| format!("cannot read {name}: {e}").into())
    };
    if let Err(e) = choreo_qichat::include(&mut topic, &mut read) {
        return format!("{shown}: {e}");
    }
    let mut dialog = Dialog::new(1);
    let name = dialog.load(topic);
    dialog.activate(&name);
    let mut memory: HashMap<String, String> = HashMap::new();
    match dialog.input(said, &mut memory) {
        None => format!("human: {said}\nrobot: (no rule matches)"),
        Some(a) if a.failed => format!(
            "human: {said}\nrobot: (nothing valid to say)   [line {}]",
            a.rule.line
        ),
        Some(a) => format!("human: {said}\nrobot: {}   [line {}]", a.text, a.rule.line),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_syntax_page_s_introduction_answers_its_example() {
        // The syntax page's ^clear example and its execution: "> my name is David" gives
        // "nice to meet you"; its second rule, asked first, says "I don't know".
        let text = "topic: ~introduction ()\nlanguage: enu\n\
                    u:(my name is _*) nice to meet you $name=$1\n\
                    u:(what is my name) ^first[\"your name is $name\" \"I don't know\"]\n";
        let path = Path::new("introduction.top");
        assert!(answer(path, text, "my name is David").contains("robot: nice to meet you"));
        assert!(answer(path, text, "what is my name").contains("robot: I don't know"));
        let topic = choreo_qichat::parse_str("t", text).unwrap();
        assert_eq!(
            example(&topic, rule_at(&topic, 3).unwrap()).as_deref(),
            Some("what is my name")
        );
        assert_eq!(example(&topic, rule_at(&topic, 2).unwrap()), None);
    }
}
