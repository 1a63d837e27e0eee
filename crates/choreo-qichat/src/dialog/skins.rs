//! Skins (`s:` rules): an answer whose words a skin's pattern matches (the whole answer)
//! is changed by the skin's `^addword(expression, position, frequency)` and
//! `^replace(old, new, frequency)`, skins of the answering topics in order. A frequency is
//! the probability the change is made (1: always; 0: never).

use crate::ast::{Args, Builtin, RuleKind};
use crate::matcher::match_pattern;

use super::answer::said_text;
use super::concepts::View;
use super::{Dialog, Host, Step};

impl Dialog {
    /// Applies the skins that match the answer made of `steps`.
    pub(super) fn skin(&mut self, steps: &mut [Step], host: &dyn Host) {
        let text = said_text(steps);
        if text.is_empty() {
            return;
        }
        let mut changes: Vec<(Builtin, Vec<String>)> = Vec::new();
        for &t in &self.topics.active {
            if !self.speaks(t) {
                continue;
            }
            let view = View {
                dialog: self,
                host,
                topic: t,
            };
            for rule in &self.topics.loaded[t].topic.rules {
                if rule.kind != RuleKind::Skin
                    || match_pattern(&rule.pattern, &text, &view).is_none()
                {
                    continue;
                }
                for f in rule.functions() {
                    if let (Some(b @ (Builtin::AddWord | Builtin::Replace)), Args::List(args)) =
                        (f.builtin, &f.args)
                    {
                        changes.push((b, args.clone()));
                    }
                }
            }
        }
        for (builtin, args) in changes {
            let frequency = args
                .get(2)
                .and_then(|f| f.trim().parse::<f64>().ok())
                .unwrap_or(1.0);
            if frequency < 1.0 && (self.random(1000) as f64) >= frequency * 1000.0 {
                continue;
            }
            let first = args.first().map_or("", |a| a.trim());
            let second = args.get(1).map_or("", |a| a.trim());
            match builtin {
                Builtin::AddWord => add_word(steps, first, second),
                _ => replace(steps, first, second),
            }
        }
    }
}

/// `^addword(expression, position)`: at the start, the end, or before word `position`
/// (from 1) of the first thing said.
fn add_word(steps: &mut [Step], expression: &str, position: &str) {
    let says: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Step::Say(_)))
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (says.first(), says.last()) else {
        return;
    };
    let edit = |step: &mut Step, f: &dyn Fn(&str) -> String| {
        if let Step::Say(t) = step {
            *t = f(t);
        }
    };
    match position {
        "start" => edit(&mut steps[first], &|t| format!("{expression} {t}")),
        "end" => edit(&mut steps[last], &|t| format!("{t} {expression}")),
        n => {
            let at = n.parse::<usize>().unwrap_or(1).saturating_sub(1);
            edit(&mut steps[first], &|t| {
                let mut words: Vec<&str> = t.split_whitespace().collect();
                words.insert(at.min(words.len()), expression);
                words.join(" ")
            });
        }
    }
}

/// `^replace(old, new)`: every whole-word `old` (any case) said becomes `new`.
fn replace(steps: &mut [Step], old: &str, new: &str) {
    let old: Vec<String> = old.split_whitespace().map(str::to_lowercase).collect();
    if old.is_empty() {
        return;
    }
    for step in steps {
        let Step::Say(text) = step else {
            continue;
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let end = i + old.len();
            let here = words.get(i..end).is_some_and(|w| {
                w.iter().zip(&old).all(|(a, b)| {
                    a.trim_end_matches([',', '.', '!', '?', ';', ':'])
                        .to_lowercase()
                        == *b
                })
            });
            if here {
                let tail = words[end - 1]
                    .chars()
                    .rev()
                    .take_while(|c| matches!(c, ',' | '.' | '!' | '?' | ';' | ':'))
                    .collect::<String>();
                out.push(format!("{new}{}", tail.chars().rev().collect::<String>()));
                i = end;
            } else {
                out.push(words[i].to_string());
                i += 1;
            }
        }
        *text = out.join(" ");
    }
}
