//! What a topic asks for that the engine parses but does not run here, each at its place:
//! `choreo chat` prints them when it loads the topic, ALDialog on the simulated robot
//! notices them at `loadTopic`. Nothing is silently ignored.

use crate::ast::{Builtin, OutputKind, Rule, Topic, TopicProperty, visit_output};
use crate::error::{Span, Warning};

/// The knowledge base's functions beyond triples: parsed, not run.
const METADATA: &[Builtin] = &[
    Builtin::GetKnowledgeId,
    Builtin::AddMetadata,
    Builtin::QueryMetadata,
    Builtin::UpdateMetadata,
    Builtin::ContainsMetadata,
    Builtin::NotContainsMetadata,
    Builtin::RemoveMetadata,
    Builtin::SetExpiringKnowledge,
    Builtin::SetHappeningKnowledge,
];

/// Why a builtin is not run here, if it is not.
fn not_run(b: Builtin) -> Option<&'static str> {
    match b {
        Builtin::Wiki => Some("reads Wikipedia: as a robot without network, it gives nothing"),
        Builtin::Execute => Some("calls QiSDK's Java executors, which only Android has"),
        b if METADATA.contains(&b) => {
            Some("a knowledge-base metadata function: not run (triples are)")
        }
        _ => None,
    }
}

/// Every place of `topic` (file `file`) that is parsed but not run here.
pub fn notices(topic: &Topic, file: &str) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut note = |span: Span, message: String| {
        out.push(Warning {
            file: file.to_string(),
            span,
            message,
        });
    };
    for d in &topic.directives {
        if d.keyword == "pronunciation" {
            note(
                d.span,
                "pronunciation: kept, not used: nothing is heard by sound here".into(),
            );
        }
    }
    if topic.has(TopicProperty::NotInEmbeddedAsr) {
        note(
            topic.span,
            "^notInEmbeddedASR: kept, not used: there is no speech recognizer to load".into(),
        );
    }
    let defined = |name: &str| topic.defs.iter().any(|d| d.name == name);
    let rules: Vec<&Rule> = topic.all_rules();
    let outputs = rules
        .iter()
        .map(|r| &r.output)
        .chain(topic.defs.iter().map(|d| &d.body));
    for output in outputs {
        visit_output(output, &mut |n| {
            if let OutputKind::Function(f) = &n.kind {
                match f.builtin {
                    Some(b) => {
                        if let Some(why) = not_run(b) {
                            note(f.span, format!("^{} {why}", f.name));
                        }
                    }
                    None if !defined(&f.name) => note(
                        f.span,
                        format!(
                            "^{}: no such function (not in the QiChat syntax, no def: of that \
                             name in this topic): said where it happens",
                            f.name
                        ),
                    ),
                    None => {}
                }
            }
        });
    }
    out.sort_by_key(|w| w.span);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn what_is_not_run_is_said_where_it_is() {
        let text = "topic: ~t()\nlanguage: enu\npronunciation:(I) [i]\n\
                    u:(who is Ada) ^first[\"^wiki(Ada Lovelace)\" \"I don't know\"]\n\
                    u:(x) ^frobnicate(1)\n";
        let topic = crate::parse_str("t.top", text).unwrap_or_default();
        let found: Vec<String> = super::notices(&topic, "t.top")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("t.top:3:1: warning: pronunciation"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("t.top:4:24: warning: ^wiki"),
            "{found:?}"
        );
        assert!(
            found[2].starts_with("t.top:5:7: warning: ^frobnicate"),
            "{found:?}"
        );
    }
}
