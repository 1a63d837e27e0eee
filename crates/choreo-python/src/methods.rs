//! A box script cut into its methods, so that `choreo check` parses what scripts share once.
//!
//! A corpus holds the stock boxes' scripts many times, each copy edited in a method or two:
//! whole, the distinct scripts are 1.9 MB of text for CPython's parser; cut into methods,
//! 0.9 MB. A script's parser and symbol table accept it exactly when they accept each of
//! its [`parts`]:
//!
//! - the *skeleton*: the script with the body of every method of a class at the module's
//!   level replaced by `pass` (decorators, names, defaults and annotations stay: they belong
//!   to the class's scope);
//! - each *method* (decorators, header and body, verbatim) under a `class C:` line.
//!
//! Why this holds, for the scripts the code generator's screen lets through
//! ([`crate::codegen`]): the parser reads a class body statement by statement, and a `def`
//! ends where its block does, whatever follows; the tokenizer compares each line's
//! indentation with the lines around it, and a method's lines meet the same indentation
//! (the class body's, byte for byte, is required of every method) in both places; the
//! symbol table's errors are found in the scope they occur in and the function scopes
//! around it, and a class at the module's level gives its methods none, in the script as
//! under `class C:`. A script with another shape (a class body whose indentation changes, a
//! line indented by anything but spaces and tabs) is not cut. What a script's error *is*
//! always comes from the whole script: a part only proves a script valid.

use std::ops::Range;

use crate::fixer::tokenize::{Kind, Tok};

/// The line a method's part starts with: a class at the module's level, as around it.
pub(crate) const AROUND: &str = "class C:\n";

/// A logical line: where its first physical line begins, its indentation, its tokens (the
/// closing `Newline` left out), and where it ends (after its line break).
struct Line<'s> {
    begin: usize,
    indent: &'s [u8],
    toks: &'s [Tok],
    end: usize,
}

/// A part of a script: its text, and the [`crate::codegen::Screen::shape`] of that text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) text: String,
    pub(crate) shape: String,
}

impl Part {
    fn new() -> Part {
        Part {
            text: String::new(),
            shape: String::new(),
        }
    }

    /// Appends `source[range]`, a run of whole logical lines of `source` read as `toks`.
    fn push_lines(&mut self, source: &str, toks: &[Tok], range: Range<usize>) -> Option<()> {
        self.text.push_str(source.get(range.clone())?);
        let first = toks.partition_point(|t| t.start < range.start);
        let last = toks.partition_point(|t| t.start < range.end);
        let inside = toks.get(first..last)?;
        crate::codegen::shape_into(&mut self.shape, source, inside, range);
        Some(())
    }

    /// Appends `text`, which holds no comment nor string.
    fn push_plain(&mut self, text: &str) {
        self.text.push_str(text);
        self.shape.push_str(text);
    }
}

/// The methods and the skeleton of `source` (read as `toks`), or None when it has no method
/// to cut out or a shape this does not cut (then it is judged whole).
pub(crate) fn parts(source: &str, toks: &[Tok]) -> Option<Vec<Part>> {
    // A NUL is an error of its own, and has no shape: the whole script is compiled.
    if source.contains('\0') {
        return None;
    }
    let b = source.as_bytes();
    let lines = logical_lines(b, toks)?;
    let mut skeleton = Part::new();
    let mut methods = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        i += 1;
        if !(line.indent.is_empty() && head(b, line) == b"class" && opens_block(b, line)) {
            continue;
        }
        let Some(body) = lines.get(i).map(|l| l.indent).filter(|s| !s.is_empty()) else {
            continue;
        };
        let body_text = std::str::from_utf8(body).ok()?;
        // The class body: the lines after the header, up to the next at the module's level.
        while let Some(first) = lines.get(i).filter(|l| !l.indent.is_empty()) {
            if first.indent != body {
                if first.indent.len() > body.len() && first.indent.starts_with(body) {
                    // Inside a statement of the class body that is not a method.
                    i += 1;
                    continue;
                }
                return None;
            }
            // Decorators, then a `def` whose block is on the lines below it.
            let mut def = i;
            while lines
                .get(def)
                .is_some_and(|l| l.indent == body && head(b, l) == b"@")
            {
                def += 1;
            }
            let Some(header) = lines
                .get(def)
                .filter(|l| l.indent == body && head(b, l) == b"def" && opens_block(b, l))
            else {
                i = def.max(i + 1);
                continue;
            };
            let mut after = def + 1;
            while lines
                .get(after)
                .is_some_and(|l| l.indent.len() > body.len() && l.indent.starts_with(body))
            {
                after += 1;
            }
            if after == def + 1 {
                i = after;
                continue;
            }
            let end = lines.get(after).map_or(source.len(), |l| l.begin);
            let mut method = Part::new();
            method.push_plain(AROUND);
            method.push_lines(source, toks, first.begin..end)?;
            methods.push(method);
            skeleton.push_lines(source, toks, copied..header.end)?;
            skeleton.push_plain(body_text);
            skeleton.push_plain(" pass\n");
            copied = end;
            i = after;
        }
    }
    if methods.is_empty() {
        return None;
    }
    skeleton.push_lines(source, toks, copied..source.len())?;
    methods.push(skeleton);
    Some(methods)
}

/// The logical lines of `b`, or None when one is indented by something else than spaces
/// and tabs (a form feed resets the tokenizer's column: not cut).
fn logical_lines<'s>(b: &'s [u8], toks: &'s [Tok]) -> Option<Vec<Line<'s>>> {
    let mut lines = Vec::new();
    let mut from = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.kind != Kind::Newline {
            continue;
        }
        let line = toks.get(from..k).unwrap_or_default();
        from = k + 1;
        let Some(first) = line.first() else {
            continue;
        };
        let before = b.get(..first.start)?;
        let begin = before
            .iter()
            .rposition(|&c| c == b'\n' || c == b'\r')
            .map_or(0, |at| at + 1);
        let indent = b.get(begin..first.start)?;
        if !indent.iter().all(|&c| c == b' ' || c == b'\t') {
            return None;
        }
        lines.push(Line {
            begin,
            indent,
            toks: line,
            end: t.end,
        });
    }
    // Tokens after the last line break belong to a last line without one.
    if toks.get(from..).is_some_and(|rest| !rest.is_empty()) {
        return None;
    }
    Some(lines)
}

fn head<'s>(b: &'s [u8], line: &Line<'_>) -> &'s [u8] {
    line.toks
        .first()
        .and_then(|t| b.get(t.start..t.end))
        .unwrap_or_default()
}

/// Whether `line` ends with its header's colon: its block is on the lines below.
fn opens_block(b: &[u8], line: &Line<'_>) -> bool {
    line.toks
        .last()
        .is_some_and(|t| t.depth == 0 && b.get(t.start..t.end) == Some(b":"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::parts;
    use crate::fixer::tokenize::tokenize;

    fn cut(s: &str) -> Option<Vec<String>> {
        parts(s, &tokenize(s)).map(|parts| parts.into_iter().map(|p| p.text).collect())
    }

    #[test]
    fn a_class_s_methods_are_cut_out_and_its_skeleton_keeps_their_headers() {
        let script = "import os\n\nclass MyClass(GeneratedClass):\n    x = 1\n\n    @staticmethod\n    def f(a=x):  # one\n        if a:\n            return 1\n\n    # a comment\n    def onInput_onStart(self, p):\n        self.onStopped(p)\n    y = 2\n";
        let parts = cut(script).unwrap();
        assert_eq!(
            parts,
            [
                "class C:\n    @staticmethod\n    def f(a=x):  # one\n        if a:\n            return 1\n\n    # a comment\n",
                "class C:\n    def onInput_onStart(self, p):\n        self.onStopped(p)\n",
                "import os\n\nclass MyClass(GeneratedClass):\n    x = 1\n\n    @staticmethod\n    def f(a=x):  # one\n     pass\n    def onInput_onStart(self, p):\n     pass\n    y = 2\n",
            ]
        );
    }

    /// Methods, each valid or with an error the parser, the tokenizer or the symbol table
    /// finds (some only beside other lines of the script: an indentation its class body
    /// does not have, tabs where spaces were).
    const METHODS: &[&str] = &[
        "    def onLoad(self):\n        self.x = 1\n",
        "    def onInput_onStart(self, p):\n        for a in p:\n            if a:\n                self.onStopped(a)\n",
        "    @staticmethod\n    def g(a=x, *b, **c):\n        def h():\n            nonlocal a\n            return a\n        return h\n",
        "    def f(self):\n        nonlocal q\n",
        "    def f(self, a, a):\n        pass\n",
        "    def f(self):\n        y = 1\n        global y\n",
        "    def f(self):\n        from os import *\n",
        "    def f(self):\n        return [(yield) for x in y]\n",
        "    def f(self):\n        x = (\n",
        "    def f(self):\n        x = 0777\n",
        "    def f(self):\n        if x:\n        pass\n",
        "    def f(self):\n\tpass\n",
        "    def f(self):\n        if x:\n\t    pass\n",
        "    def f(self):\n        x = 1\n          y = 2\n",
        "  def f(self):\n      pass\n",
        "\tdef f(self):\n\t\tpass\n",
        "    def f(self):\n        print 'py2'\n",
        "    def f(self):\n        return [x := 1 for y in z]\n",
        "    def f(self, a):\n        global a\n",
        "    def f(self):\n        class D:\n            def e(s):\n                nonlocal w\n",
        "    @[(yield) for x in y]\n    def f(self):\n        pass\n",
        "    def f(self, a=[(yield) for x in y]):\n        pass\n",
        "    def f(self):\n        x = 1\n      y = 2\n",
        "        def onLoad(self):\n            pass\n",
        "\t def f(self):\n\t\tpass\n",
    ];

    /// Lines of the class body beside its methods, and of the module around the class.
    const CLASS_LINES: &[&str] = &[
        "    x = 1\n",
        "    global x\n",
        "    z = [w := 1 for v in u]\n",
        "    if x:\n        y = 2\n",
        "    # a comment\n",
    ];
    const MODULE_LINES: &[&str] = &["import os\n", "x = 1\n", "nonlocal x\n", "global x\n"];

    #[test]
    fn scripts_of_random_methods_get_the_full_compile_s_answer() {
        let check = crate::CompileCheck::default();
        let mut seed: u64 = 2026;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n
        };
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..3_000 {
            let mut script = String::new();
            for _ in 0..next(3) {
                script.push_str(MODULE_LINES[next(MODULE_LINES.len())]);
            }
            script.push_str("class MyClass(GeneratedClass):\n");
            for _ in 0..(1 + next(4)) {
                // Mostly valid methods, so that whole scripts are valid often.
                let method = if next(3) == 0 {
                    METHODS[next(METHODS.len())]
                } else {
                    METHODS[next(3)]
                };
                script.push_str(method);
                if next(3) == 0 {
                    script.push_str(CLASS_LINES[next(CLASS_LINES.len())]);
                }
            }
            if next(4) == 0 {
                script.push_str(MODULE_LINES[next(MODULE_LINES.len())]);
            }
            let fixed = crate::fixer::fix(&script);
            let reference = crate::syntax::compile_here(&fixed, true);
            valid += usize::from(reference.is_none());
            invalid += usize::from(reference.is_some());
            assert_eq!(check.syntax_error(&script), reference, "{script}");
        }
        // Both kinds are many, and methods were judged alone.
        assert!(valid > 300 && invalid > 300, "{valid} valid, {invalid} not");
        assert!(check.valid_parts() > 3, "{}", check.valid_parts());
    }

    #[test]
    fn each_part_s_shape_is_that_of_its_text() {
        let script = "class MyClass(GeneratedClass):\n    s = 'a' # one\n    def f(self, a='b'):  # two\n        return \"c\" + '''d\ne''' # three\n\n    # four\n    def g(self):\n        pass\n";
        let parts = parts(script, &tokenize(script)).unwrap();
        assert_eq!(parts.len(), 3);
        for part in parts {
            let whole = crate::codegen::screen(&part.text, &tokenize(&part.text));
            assert_eq!(whole.shape.as_ref(), Some(&part.shape), "{}", part.text);
        }
    }

    #[test]
    fn shapes_it_does_not_cut_are_judged_whole() {
        // No class, a one-line method, a class body that changes its indentation, a form
        // feed, a class inside a block.
        for script in [
            "x = 1\ndef f():\n    pass\n",
            "class A:\n    def f(self): pass\n",
            "class A:\n    x = 1\n  def f(self):\n      pass\n",
            "class A:\n\tx = 1\n    def f(self):\n        pass\n",
            "class A:\n\x0c    def f(self):\n        pass\n",
            "if x:\n    class A:\n        def f(self):\n            pass\n",
            "class A:\n    def f(self):\n        x = '\0'\n",
        ] {
            assert_eq!(cut(script), None, "{script:?}");
        }
    }
}
