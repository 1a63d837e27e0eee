//! Indentation that mixes tabs and spaces (a `TabError` in Python 3), expanded as Python 2
//! read it.

use super::driver::Fixer;
use super::rewrite::{Change, Rewrite};

impl<'a> Fixer<'a> {
    /// The indentation of the logical line starting at token `k`: (start, end, line).
    pub(super) fn indentation(&self, k: usize) -> Option<(usize, usize, u32)> {
        let end = self.start(k);
        let mut start = end;
        while start > 0
            && self
                .b
                .get(start - 1)
                .is_some_and(|c| matches!(c, b' ' | b'\t' | 0x0c))
        {
            start -= 1;
        }
        let at_line_start = start == 0
            || matches!(self.b.get(start - 1), Some(b'\n' | b'\r'))
            || (start == 3 && self.src.starts_with('\u{feff}'));
        at_line_start.then_some((start, end, self.line(k)))
    }

    /// Expands tabs in indentation when Python 3 would raise `TabError`: when comparing two
    /// indentations gives different answers with tabs of 8 columns (Python 2) and of 1.
    pub(super) fn fix_indentation(&mut self, indents: &[(usize, usize, u32)]) {
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        let inconsistent = indents.iter().any(|&(s, e, _)| {
            let (col, alt) = columns(self.b.get(s..e).unwrap_or_default());
            while stack.last().is_some_and(|&(c, _)| col < c) {
                stack.pop();
            }
            match stack.last() {
                Some(&(c, a)) if col == c => alt != a,
                Some(&(_, a)) if alt <= a => true,
                _ => {
                    stack.push((col, alt));
                    false
                }
            }
        });
        if !inconsistent {
            return;
        }
        for &(s, e, line) in indents {
            let ws = self.b.get(s..e).unwrap_or_default();
            if !ws.contains(&b'\t') {
                continue;
            }
            self.edit(s, e, " ".repeat(columns(ws).0));
            self.changes.push(Change {
                line,
                what: Rewrite::TabIndent,
            });
        }
    }
}

/// The column reached by indentation `ws` with tabs of 8 columns (Python 2's reading) and of
/// 1 column; a form feed resets the column, as in CPython.
pub(super) fn columns(ws: &[u8]) -> (usize, usize) {
    ws.iter().fold((0, 0), |(col, alt), &c| match c {
        b'\t' => ((col / 8 + 1) * 8, alt + 1),
        b' ' => (col + 1, alt + 1),
        _ => (0, 0),
    })
}
