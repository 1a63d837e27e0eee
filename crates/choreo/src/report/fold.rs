//! Folding repeated output lines, so a person can read a run: an LED blink of 8 calls is one
//! line with a count, 130 warnings of one kind one line with the first few names.
//!
//! Live lines ([`Folder`]) fold by their *head* (`LEDs FaceLeds ->`): lines of the same head
//! no more than [`GAP`] seconds of behavior time apart join one group, even when other lines
//! come between them (two LED groups blinking in turn fold into two lines). Groups are
//! printed in the order they started, each once it is over (no line of its head for
//! [`GAP`] seconds) or [`SPAN`] seconds after its start (a blink that never ends gives one
//! line per span). Nothing is lost: the count and the time of the last line are shown.

use std::collections::VecDeque;

use choreo_engine::clock::Time;
use choreo_xar::Diagnostic;

/// Lines of one head at most this far apart (behavior seconds) fold together.
pub const GAP: f64 = 1.0;

/// A group is printed at most this long (behavior seconds) after its first line.
pub const SPAN: f64 = 10.0;

/// How many distinct details a folded line shows before `…`.
const DETAILS: usize = 3;

/// One line of live output: what repeats (`head`) and what may vary (`detail`).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// What folds: lines of the same head fold together (`LEDs FaceLeds ->`).
    pub head: String,
    /// What varies from one line of the head to the next (`#ff0000 (0.5 s)`); may be empty.
    pub detail: String,
    /// Between the head and the detail: a space, or nothing (a call and its arguments).
    pub separator: &'static str,
}

impl Line {
    /// A line that folds only with identical lines.
    pub fn plain(text: impl Into<String>) -> Line {
        Line::varying(text, "")
    }

    /// A line whose `detail` varies between the lines that fold with it.
    pub fn varying(head: impl Into<String>, detail: impl Into<String>) -> Line {
        Line {
            head: head.into(),
            detail: detail.into(),
            separator: " ",
        }
    }

    /// A call: `name` (`ALLeds.fadeRGB`) folds, `rest` (`("FaceLeds", 255, 0.5) -> None`)
    /// varies and follows it without a space.
    pub fn call(name: impl Into<String>, rest: impl Into<String>) -> Line {
        Line {
            separator: "",
            ..Line::varying(name, rest)
        }
    }

    /// The line as shown alone.
    pub fn text(&self) -> String {
        if self.detail.is_empty() {
            self.head.clone()
        } else {
            format!("{}{}{}", self.head, self.separator, self.detail)
        }
    }
}

/// Lines of one head, folded.
#[derive(Debug)]
struct Group {
    head: String,
    separator: &'static str,
    first: Time,
    last: Time,
    count: usize,
    /// Distinct details, in the order first seen (at most `DETAILS + 1` kept).
    details: Vec<String>,
}

impl Group {
    fn new(at: Time, line: Line) -> Group {
        Group {
            head: line.head,
            separator: line.separator,
            first: at,
            last: at,
            count: 1,
            details: vec![line.detail],
        }
    }

    fn add(&mut self, at: Time, detail: String) {
        self.count += 1;
        self.last = self.last.max(at);
        if self.details.len() <= DETAILS && !self.details.contains(&detail) {
            self.details.push(detail);
        }
    }

    fn over(&self, now: Time) -> bool {
        seconds(self.last, now) > GAP || seconds(self.first, now) >= SPAN
    }

    /// `(time of the first line, text)`.
    fn render(&self) -> (Time, String) {
        let mut shown: Vec<&str> = self
            .details
            .iter()
            .take(DETAILS)
            .map(String::as_str)
            .collect();
        shown.retain(|d| !d.is_empty());
        let mut text = self.head.clone();
        if !shown.is_empty() {
            text.push_str(self.separator);
            text.push_str(&shown.join(", "));
            if self.details.len() > DETAILS {
                text.push_str(", …");
            }
        }
        if self.count > 1 {
            text.push_str(&format!(
                " ×{} until {:.2}s",
                self.count,
                self.last.as_secs_f64()
            ));
        }
        (self.first, text)
    }
}

fn seconds(from: Time, to: Time) -> f64 {
    to.as_secs_f64() - from.as_secs_f64()
}

/// Live lines in, folded lines out (`(time, text)`, in the order their groups started).
#[derive(Debug, Default)]
pub struct Folder {
    pending: VecDeque<Group>,
    now: Time,
}

impl Folder {
    /// A line at behavior time `at`; returns the lines now ready to print.
    pub fn push(&mut self, at: Time, line: Line) -> Vec<(Time, String)> {
        self.now = self.now.max(at);
        match self
            .pending
            .iter_mut()
            .find(|g| g.head == line.head && !g.over(at))
        {
            Some(group) => group.add(at, line.detail),
            None => self.pending.push_back(Group::new(at, line)),
        }
        self.ready()
    }

    /// Behavior time went on to `now` without a line; returns the lines now ready.
    pub fn tick(&mut self, now: Time) -> Vec<(Time, String)> {
        self.now = self.now.max(now);
        self.ready()
    }

    /// The end: every line still held.
    pub fn finish(&mut self) -> Vec<(Time, String)> {
        self.pending.drain(..).map(|g| g.render()).collect()
    }

    fn ready(&mut self) -> Vec<(Time, String)> {
        let mut out = Vec::new();
        while let Some(group) = self.pending.front() {
            if !group.over(self.now) {
                break;
            }
            out.extend(self.pending.pop_front().map(|g| g.render()));
        }
        out
    }
}

/// Diagnostics as printed by a command: each alone, except that more than [`DETAILS`] of
/// one kind in one file that differ only by a quoted name (`the resource "x.png" is
/// missing (no x.png)`) become one line: the first, the count of the others and their
/// first names.
pub fn fold_diagnostics(
    diagnostics: &[Diagnostic],
    format: impl Fn(&Diagnostic) -> String,
) -> Vec<String> {
    // (template, indices), in the order first seen; members share file, kind, severity.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut singles = Vec::new();
    let alike = |a: &Diagnostic, b: &Diagnostic| {
        a.file == b.file && a.kind == b.kind && a.severity == b.severity
    };
    for (i, d) in diagnostics.iter().enumerate() {
        match template(&d.message) {
            Some((t, _)) => {
                match groups
                    .iter_mut()
                    .find(|(gt, members)| *gt == t && alike(&diagnostics[members[0]], d))
                {
                    Some((_, members)) => members.push(i),
                    None => groups.push((t, vec![i])),
                }
            }
            None => singles.push(i),
        }
    }
    // Each diagnostic is printed where its group (or itself) first appears.
    let mut lines: Vec<(usize, String)> = singles
        .into_iter()
        .map(|i| (i, format(&diagnostics[i])))
        .collect();
    for (_, members) in groups {
        if members.len() <= DETAILS {
            lines.extend(members.into_iter().map(|i| (i, format(&diagnostics[i]))));
            continue;
        }
        let names: Vec<String> = members
            .iter()
            .skip(1)
            .take(DETAILS - 1)
            .filter_map(|&i| template(&diagnostics[i].message).map(|(_, name)| format!("{name:?}")))
            .collect();
        lines.push((
            members[0],
            format!(
                "{}; and {} more like it: {}, … (-v lists them)",
                format(&diagnostics[members[0]]),
                members.len() - 1,
                names.join(", "),
            ),
        ));
    }
    lines.sort_by_key(|(i, _)| *i);
    lines.into_iter().map(|(_, l)| l).collect()
}

/// A message's first quoted name and the message with that name (everywhere) as `…`.
fn template(message: &str) -> Option<(String, String)> {
    let start = message.find('"')? + 1;
    let len = message[start..].find('"')?;
    let name = &message[start..start + len];
    if name.is_empty() {
        return None;
    }
    Some((message.replace(name, "…"), name.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use choreo_xar::{ErrorKind, Severity};

    fn at(s: f64) -> Time {
        Time((s * 1e9) as u64)
    }

    fn texts(lines: Vec<(Time, String)>) -> Vec<String> {
        lines
            .into_iter()
            .map(|(t, s)| format!("{:.2} {s}", t.as_secs_f64()))
            .collect()
    }

    #[test]
    fn a_blink_folds_into_one_line_with_its_colours_and_count() {
        let mut f = Folder::default();
        let mut out = Vec::new();
        for i in 0..8 {
            let colour = if i % 2 == 0 { "#ff0000" } else { "#000000" };
            out.extend(f.push(
                at(0.5 * i as f64),
                Line::varying("LEDs FaceLeds ->", colour),
            ));
        }
        assert!(out.is_empty(), "held while it blinks: {out:?}");
        out.extend(f.push(at(4.0), Line::plain("says \"done\"")));
        out.extend(f.finish());
        assert_eq!(
            texts(out),
            [
                "0.00 LEDs FaceLeds -> #ff0000, #000000 ×8 until 3.50s",
                "4.00 says \"done\""
            ]
        );
    }

    #[test]
    fn interleaved_heads_fold_apart_and_keep_the_order_they_started_in() {
        let mut f = Folder::default();
        let mut out = Vec::new();
        out.extend(f.push(at(0.0), Line::plain("says \"hi\"")));
        for i in 0..4 {
            let t = 0.2 + 0.4 * i as f64;
            out.extend(f.push(at(t), Line::varying("LEDs Top ->", "#ffffff")));
            out.extend(f.push(at(t), Line::varying("LEDs Bottom ->", "#ffffff")));
        }
        out.extend(f.finish());
        assert_eq!(
            texts(out),
            [
                "0.00 says \"hi\"",
                "0.20 LEDs Top -> #ffffff ×4 until 1.40s",
                "0.20 LEDs Bottom -> #ffffff ×4 until 1.40s"
            ]
        );
    }

    #[test]
    fn lines_far_apart_do_not_fold_and_a_long_blink_is_cut_at_the_span() {
        let mut f = Folder::default();
        let mut out = f.push(at(0.0), Line::plain("x"));
        out.extend(f.push(at(5.0), Line::plain("x")));
        assert_eq!(
            texts(out),
            ["0.00 x"],
            "the first is over once the second came"
        );
        let mut f = Folder::default();
        let mut out = Vec::new();
        for i in 0..=30 {
            out.extend(f.push(at(0.5 * i as f64), Line::plain("blink")));
        }
        out.extend(f.finish());
        assert_eq!(
            texts(out),
            ["0.00 blink ×20 until 9.50s", "10.00 blink ×11 until 15.00s"]
        );
    }

    #[test]
    fn calls_fold_with_their_arguments_right_after_the_name() {
        let mut f = Folder::default();
        let mut out = f.push(at(0.0), Line::call("ALFoo.bar", "(1) -> 2"));
        out.extend(f.push(at(0.1), Line::call("ALFoo.bar", "(2) -> 3")));
        out.extend(f.push(at(0.2), Line::call("ALFoo.baz", "() -> None")));
        out.extend(f.finish());
        assert_eq!(
            texts(out),
            [
                "0.00 ALFoo.bar(1) -> 2, (2) -> 3 ×2 until 0.10s",
                "0.20 ALFoo.baz() -> None"
            ]
        );
    }

    #[test]
    fn a_tick_prints_what_is_over() {
        let mut f = Folder::default();
        assert!(f.push(at(0.0), Line::plain("a")).is_empty());
        assert!(f.tick(at(0.5)).is_empty());
        assert_eq!(texts(f.tick(at(1.5))), ["0.00 a"]);
        assert!(f.finish().is_empty());
    }

    #[test]
    fn many_warnings_of_one_kind_become_one_line_with_the_first_names() {
        let warn = |message: String| {
            Diagnostic::file_level(Severity::Warning, ErrorKind::BadValue, "p.pml", message)
        };
        let mut ds: Vec<Diagnostic> = (0..130)
            .map(|i| {
                warn(format!(
                    "the resource \"f{i}.png\" is missing (no f{i}.png)"
                ))
            })
            .collect();
        ds.insert(1, warn("something else".into()));
        let lines = fold_diagnostics(&ds, |d| d.message.clone());
        assert_eq!(
            lines,
            [
                "the resource \"f0.png\" is missing (no f0.png); and 129 more like it: \"f1.png\", \"f2.png\", … (-v lists them)",
                "something else"
            ]
        );
        // Three are shown as they are.
        let lines = fold_diagnostics(&ds[2..5], |d| d.message.clone());
        assert_eq!(lines.len(), 3);
    }
}
