//! A topic's text laid out one way (`choreo lsp`'s formatting): header lines and top-level
//! rules at the margin, each subrule indented four spaces a level (`u1:` by four, `u2:` by
//! eight: its level is its digit, the indentation only shows it), trailing spaces dropped,
//! runs of blank lines made one, one line ending at the end; the Python between `%script`
//! marks is left exactly as written. Only whitespace between lines and at their ends changes: the words, comments and line breaks stay, so the topic means
//! what it meant, and formatting twice gives what formatting once gave.

use crate::names::{SCRIPT, keyword};

/// The indentation of one subrule level.
pub const INDENT: &str = "    ";

/// `text` laid out (see the module's documentation); its line endings (`\r\n` or `\n`) kept.
pub fn format(text: &str) -> String {
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    let mut started = false;
    let mut script = false;
    for raw in text.lines() {
        let marks = raw.matches(SCRIPT).count();
        if script || marks > 0 {
            // Python: its indentation and blank lines are its meaning.
            if started && blank_run > 0 {
                out.push_str(ending);
            }
            blank_run = 0;
            started = true;
            script ^= marks % 2 == 1;
            out.push_str(raw);
            out.push_str(ending);
            continue;
        }
        let line = raw.trim_end();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if started && blank_run > 0 {
            out.push_str(ending);
        }
        blank_run = 0;
        started = true;
        match level(line) {
            Some(level) => {
                for _ in 0..level {
                    out.push_str(INDENT);
                }
                out.push_str(line.trim_start());
            }
            None => out.push_str(line),
        }
        out.push_str(ending);
    }
    out
}

/// The level a line's keyword puts it at: 0 for header lines and top-level rules, N for
/// `uN:`, `cN:` and `eN:`; `None` for other lines (comments, text), left where they are.
fn level(line: &str) -> Option<usize> {
    let (word, _) = keyword(line)?;
    let digits = word.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let letters = &word[..word.len() - digits.len()];
    if digits.is_empty() {
        return HEADS.contains(&letters).then_some(0);
    }
    match letters {
        "u" | "c" | "e" => digits.parse().ok(),
        _ => None,
    }
}

/// The keywords of lines that start at the margin (the syntax page's header lines and rule
/// types).
const HEADS: &[&str] = &[
    "topic",
    "language",
    "concept",
    "dynamic",
    "include",
    "def",
    "u",
    "proposal",
    "e",
    "l",
    "s",
    "recover",
    "description",
    "overload",
    "pronunciation",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subrules_are_indented_by_their_level_and_blank_runs_collapse() {
        // The syntax page's ^clear example, indented the page's way and then badly.
        let text = "topic: ~introduction ()\n  language: enu  \n\n\n\nu:(my name is _*) hi $name=$1\n\
                    u1:(no) OK ^clear(name)\n\t\t  u2:(yes) good\n# a comment\n\n";
        let want = "topic: ~introduction ()\nlanguage: enu\n\nu:(my name is _*) hi $name=$1\n    \
                    u1:(no) OK ^clear(name)\n        u2:(yes) good\n# a comment\n";
        assert_eq!(format(text), want);
        assert_eq!(format(want), want);
    }

    #[test]
    fn python_between_script_marks_is_left_as_written() {
        let text =
            "u:(sum) the sum is\n%script\nif a:\n    print a  \n\n\nprint b\n%script\n  u1:(x) y\n";
        let want = "u:(sum) the sum is\n%script\nif a:\n    print a  \n\n\nprint b\n%script\n    u1:(x) y\n";
        assert_eq!(format(text), want);
    }

    #[test]
    fn windows_line_endings_stay() {
        assert_eq!(
            format("u:(a) b  \r\n u1:(c) d\r\n"),
            "u:(a) b\r\n    u1:(c) d\r\n"
        );
    }
}
