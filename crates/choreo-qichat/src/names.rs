//! The names a topic's text defines and uses, each at its place: concepts (`concept:(x)`,
//! `dynamic: x`, `~x`), tags (`%x`, `^goto(x)`, `^activate(x)`, ...), variables (`$x=...`,
//! `$x`, `^clear(x)`), functions of the topic (`def:f(...)`, `^f(...)`), the topic's own
//! name and `include:` files. Read from the text line by line, not from the syntax tree, so
//! that a topic being typed (not parsing yet) still has them: what an editor needs to go to a
//! definition, find references and rename.

/// What a name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// The topic (`topic: ~x()`).
    Topic,
    /// A concept, static or dynamic.
    Concept,
    /// A tag or bookmark (`%x`).
    Tag,
    /// A variable (`$x`), ALMemory keys included (`$Dialog/Answered`).
    Variable,
    /// A function defined by `def:`.
    Function,
    /// A file named by `include:`.
    Include,
}

impl NameKind {
    /// How the kind is said: "concept", "tag", ...
    pub fn words(self) -> &'static str {
        match self {
            NameKind::Topic => "topic",
            NameKind::Concept => "concept",
            NameKind::Tag => "tag",
            NameKind::Variable => "variable",
            NameKind::Function => "function",
            NameKind::Include => "included file",
        }
    }
}

/// One place a name is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// What it names.
    pub kind: NameKind,
    /// The name, without its sigil (`greetings` for `~greetings`).
    pub name: String,
    /// The line, from 0.
    pub line: usize,
    /// The name's first byte in the line, and one past its last.
    pub start: usize,
    /// One past the name's last byte in the line.
    pub end: usize,
    /// Whether this place defines it (`concept:(x)`, `%x`, `$x=...`, `def:x`) rather than
    /// uses it.
    pub defines: bool,
}

/// Functions whose first argument is a tag of the topic (the syntax page's "Tag: %" and
/// its related functions).
const TAG_FUNCTIONS: &[&str] = &["goto", "gotoReactivate", "activate", "deactivate"];

/// Functions whose first argument is a variable's name without `$` (`^clear(name)`).
const VARIABLE_FUNCTIONS: &[&str] = &["clear"];

/// The part of `line` before its comment (`#` outside double quotes, as the syntax page
/// says: "All the characters following # in the same line will be ignored").
pub fn code_part(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Whether `c` may be part of a name: letters of any script, digits, `_`; variables also
/// take `/`, `-` and `.` inside (ALMemory keys).
fn name_char(c: char, variable: bool) -> bool {
    c.is_alphanumeric() || c == '_' || (variable && matches!(c, '/' | '-' | '.'))
}

/// The name starting at byte `from` of `line`, and where it ends (a variable's trailing
/// `.` or `/` is punctuation, not name).
fn name_at(line: &str, from: usize, variable: bool) -> (usize, usize) {
    let mut end = from;
    for (i, c) in line[from..].char_indices() {
        if !name_char(c, variable) {
            break;
        }
        end = from + i + c.len_utf8();
    }
    while end > from && variable && line[from..end].ends_with(['.', '/', '-']) {
        end -= 1;
    }
    (from, end)
}

/// The keyword a line starts with (`u`, `u2`, `concept`, `proposal`, ...), and where the
/// text after its `:` begins.
pub fn keyword(line: &str) -> Option<(&str, usize)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let colon = trimmed.find(':')?;
    let word = &trimmed[..colon];
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric()))
        .then_some((word, indent + colon + 1))
}

/// The mark that opens and closes Python inside a rule's output (the lines between are
/// Python, not QiChat).
pub const SCRIPT: &str = "%script";

/// Every name written in `text`, in reading order (none in `%script` Python).
pub fn occurrences(text: &str) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let mut script = false;
    for (n, full) in text.lines().enumerate() {
        let marks = full.matches(SCRIPT).count();
        if !script {
            let before = full.find(SCRIPT).map_or(full, |at| &full[..at]);
            scan_line(n, code_part(before), &mut out);
        }
        script ^= marks % 2 == 1;
    }
    out
}

fn push(
    out: &mut Vec<Occurrence>,
    kind: NameKind,
    line: usize,
    line_text: &str,
    at: (usize, usize),
    defines: bool,
) {
    if at.1 > at.0 {
        out.push(Occurrence {
            kind,
            name: line_text[at.0..at.1].to_string(),
            line,
            start: at.0,
            end: at.1,
            defines,
        });
    }
}

fn scan_line(n: usize, line: &str, out: &mut Vec<Occurrence>) {
    let head = keyword(line);
    let mut from = 0;
    match head {
        Some(("concept", after)) => {
            if let Some(open) = line[after..].find('(').map(|i| after + i + 1) {
                let name = name_at(line, skip_spaces(line, open), false);
                push(out, NameKind::Concept, n, line, name, true);
                from = name.1;
            }
        }
        Some(("dynamic", after)) => {
            let name = name_at(line, skip_spaces(line, after), false);
            push(out, NameKind::Concept, n, line, name, true);
            return;
        }
        Some(("include", after)) => {
            let start = skip_spaces(line, after);
            let end = line.trim_end().len().max(start);
            push(out, NameKind::Include, n, line, (start, end), false);
            return;
        }
        Some(("topic", after)) => {
            let start = skip_spaces(line, after);
            if line[start..].starts_with('~') {
                let name = name_at(line, start + 1, false);
                push(out, NameKind::Topic, n, line, name, true);
                from = name.1;
            }
        }
        Some(("def", after)) => {
            let name = name_at(line, skip_spaces(line, after), false);
            push(out, NameKind::Function, n, line, name, true);
            from = name.1;
        }
        Some(("language" | "description" | "overload", _)) => return,
        _ => {}
    }
    scan_body(n, line, from, out);
}

fn skip_spaces(line: &str, from: usize) -> usize {
    from + (line[from..].len() - line[from..].trim_start().len())
}

/// The sigils of a rule's or a concept's text: `~concept`, `%tag`, `$variable`,
/// `^function(...)`.
fn scan_body(n: usize, line: &str, from: usize, out: &mut Vec<Occurrence>) {
    let bytes = line.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let sigil = bytes[i];
        let start = i + 1;
        match sigil {
            b'~' => {
                let name = name_at(line, start, false);
                push(out, NameKind::Concept, n, line, name, false);
                i = name.1.max(start);
            }
            b'%' => {
                let name = name_at(line, start, false);
                push(out, NameKind::Tag, n, line, name, true);
                i = name.1.max(start);
            }
            b'$' => {
                let name = name_at(line, start, true);
                let digits = line[name.0..name.1].chars().all(|c| c.is_ascii_digit());
                if !digits {
                    let rest = line[name.1..].trim_start();
                    let assigns = rest.starts_with('=') && !rest.starts_with("==");
                    push(out, NameKind::Variable, n, line, name, assigns);
                }
                i = name.1.max(start);
            }
            b'^' => {
                let name = name_at(line, start, false);
                let function = &line[name.0..name.1];
                i = name.1.max(start);
                let kind = if TAG_FUNCTIONS.contains(&function) {
                    Some(NameKind::Tag)
                } else if VARIABLE_FUNCTIONS.contains(&function) {
                    Some(NameKind::Variable)
                } else {
                    None
                };
                match kind {
                    Some(kind) if line[i..].starts_with('(') => {
                        let arg =
                            name_at(line, skip_spaces(line, i + 1), kind == NameKind::Variable);
                        push(out, kind, n, line, arg, false);
                        i = arg.1.max(i + 1);
                    }
                    Some(_) => {}
                    None => push(out, NameKind::Function, n, line, name, false),
                }
            }
            _ => i += line[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(NameKind, String, usize, bool)> {
        occurrences(text)
            .into_iter()
            .map(|o| (o.kind, o.name, o.line, o.defines))
            .collect()
    }

    #[test]
    fn the_syntax_page_s_tag_example_defines_and_uses_its_tag() {
        // The syntax page, "^activate ^deactivate".
        let text = "proposal: %greeting1 hello\nu:(hello) hello ^deactivate(greeting1)\n";
        assert_eq!(
            found(text),
            vec![
                (NameKind::Tag, "greeting1".into(), 0, true),
                (NameKind::Tag, "greeting1".into(), 1, false),
            ]
        );
    }

    #[test]
    fn the_syntax_page_s_clear_example_names_its_variable_three_ways() {
        let text = "topic: ~introduction ()\nu:(my name is _*) nice to meet you $name=$1\n\
                    u:(what is my name) ^first[\"your name is $name\" \"I don't know\"]\n   \
                    u1:(no) OK ^clear(name)\n";
        let names = found(text);
        assert_eq!(names[0], (NameKind::Topic, "introduction".into(), 0, true));
        let variables: Vec<_> = names.iter().filter(|o| o.0 == NameKind::Variable).collect();
        assert_eq!(variables.len(), 3, "{names:?}");
        assert!(variables[0].3 && !variables[1].3 && !variables[2].3);
        assert!(
            names
                .iter()
                .any(|o| o.0 == NameKind::Function && o.1 == "first")
        );
    }

    #[test]
    fn comments_hide_names_and_quotes_hide_comments() {
        let text = "#u:(~hello) ~hello\nu:(\"# not a comment\" ~hi) yes # ~not\n";
        let names = found(text);
        assert_eq!(names, vec![(NameKind::Concept, "hi".into(), 1, false)]);
        let o = &occurrences(text)[0];
        assert_eq!(&text.lines().nth(1).unwrap()[o.start..o.end], "hi");
    }

    #[test]
    fn concepts_dynamics_includes_and_memory_keys() {
        let text = "concept:(food) [~fruit bread]\ndynamic: fruit\ninclude: lexicon_enu.top\n\
                    u:(e:FrontTactilTouched) $Dialog/Answered. $score==1\n";
        let names = found(text);
        assert_eq!(names[0], (NameKind::Concept, "food".into(), 0, true));
        assert_eq!(names[1], (NameKind::Concept, "fruit".into(), 0, false));
        assert_eq!(names[2], (NameKind::Concept, "fruit".into(), 1, true));
        assert_eq!(
            names[3],
            (NameKind::Include, "lexicon_enu.top".into(), 2, false)
        );
        assert_eq!(
            names[4],
            (NameKind::Variable, "Dialog/Answered".into(), 3, false)
        );
        assert_eq!(names[5], (NameKind::Variable, "score".into(), 3, false));
    }
}
