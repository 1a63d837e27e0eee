//! The edits the passes collect (a byte range of the script and its replacement) and how
//! they are made, in one go at the end: an edit overlapping an earlier one is dropped, so
//! the passes never need to know of each other.

use std::borrow::Cow;

pub(super) struct Edit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: Cow<'static, str>,
}

/// Applies `edits` (sorted here by [`Edit::order`], stably; an edit overlapping an earlier
/// one is dropped).
pub(super) fn apply(src: &str, edits: &mut [Edit]) -> String {
    edits.sort_by_key(Edit::order);
    splice(src, 0..src.len(), edits)
}

impl Edit {
    /// The order edits are made in: by start, and an insertion before a replacement that
    /// starts at the same place (`__py2decode__(` or `__py2encode__(` before the `ur'...'`
    /// or `urllib` it precedes: the insertion belongs before that token, and would
    /// otherwise overlap its replacement and be dropped).
    pub(super) fn order(&self) -> (usize, bool) {
        (self.start, self.end > self.start)
    }
}

/// `src[range]` with `edits` (sorted by start) made; an edit overlapping an earlier one, or
/// outside the range, is dropped.
pub(super) fn splice(src: &str, range: std::ops::Range<usize>, edits: &[Edit]) -> String {
    let extra: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(range.len() + extra);
    let mut cur = range.start;
    for e in edits {
        if e.start < cur || e.end < e.start || e.end > range.end {
            continue;
        }
        let (Some(keep), Some(_)) = (src.get(cur..e.start), src.get(e.start..e.end)) else {
            continue;
        };
        out.push_str(keep);
        out.push_str(&e.text);
        cur = e.end;
    }
    out.push_str(src.get(cur..range.end).unwrap_or_default());
    out
}
