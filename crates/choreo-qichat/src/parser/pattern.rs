//! Patterns: what the human says.

use super::*;

impl Parser<'_> {
    // -----------------------------------------------------------------------------------------
    // Patterns

    /// Pattern nodes up to `close` (consumed), the group having opened at `open`.
    pub(super) fn pattern_seq(
        &mut self,
        close: Close,
        open: usize,
        depth: usize,
    ) -> PResult<Vec<PatternNode>> {
        self.check_depth(depth)?;
        let mut nodes = Vec::new();
        loop {
            match self.peek() {
                None => {
                    if close == Close::Entry {
                        return Ok(nodes);
                    }
                    return Err(self.unclosed(self.pos, close, open));
                }
                Some('\n') => {
                    if close == Close::Entry && self.entry_ends_at(self.pos) {
                        return Ok(nodes);
                    }
                    if close != Close::Entry && self.group_broken_at(self.pos) {
                        return Err(self.unclosed(self.pos, close, open));
                    }
                    self.pos += 1;
                }
                Some(c) if c.is_whitespace() => self.pos += 1,
                Some('#') if self.comment_at(self.pos) => self.skip_to_eol(),
                Some(c) if Some(c) == close.char() => {
                    self.pos += 1;
                    return Ok(nodes);
                }
                Some(c) if is_closer(c) => {
                    return Err(if close == Close::Entry {
                        self.error_at(self.pos, format!("'{c}' closes nothing"))
                    } else {
                        let mut e = self.unclosed(self.pos, close, open);
                        e.message.push_str(&format!(", found '{c}'"));
                        e
                    });
                }
                Some(_) => {
                    let node = self.pattern_node(depth)?;
                    nodes.push(node);
                }
            }
        }
    }

    pub(super) fn pattern_node(&mut self, depth: usize) -> PResult<PatternNode> {
        let start = self.pos;
        let span = self.span_at(start);
        let c = self.peek().unwrap_or(' ');
        let kind = match c {
            '[' => {
                self.pos += 1;
                PatternKind::Choice(self.pattern_seq(Close::Bracket, start, depth + 1)?)
            }
            '{' => {
                self.pos += 1;
                PatternKind::Optional(self.pattern_seq(Close::Brace, start, depth + 1)?)
            }
            '"' => {
                self.pos += 1;
                PatternKind::Phrase(self.pattern_seq(Close::Quote, start, depth + 1)?)
            }
            '(' => {
                return Err(self.error_at(
                    start,
                    "'(' opens nothing inside a pattern (a choice is `[...]`, an optional part `{...}`)",
                ));
            }
            '~' if self.peek_at(1).is_some_and(is_name_char) => {
                self.pos += 1;
                PatternKind::Concept(self.concept_name())
            }
            '*' => {
                self.pos += 1;
                PatternKind::Wildcard
            }
            '%' if self.peek_at(1).is_some_and(is_name_char) => {
                self.pos += 1;
                PatternKind::Tag(self.concept_name())
            }
            '_' | '!' => self.capture_or_not(c, depth)?,
            '$' if self
                .peek_at(1)
                .is_some_and(|n| n.is_alphanumeric() || n == '_') =>
            {
                self.pos += 1;
                let name = self.variable_name();
                if let Some(op) = self.compare_op() {
                    let right = self.operand()?;
                    PatternKind::Condition(Condition {
                        left: Self::operand_of_name(name),
                        op,
                        right,
                    })
                } else if self.peek() == Some('=') {
                    self.pos += 1;
                    PatternKind::Assign {
                        variable: name,
                        value: self.operand()?,
                    }
                } else {
                    PatternKind::Variable(name)
                }
            }
            '^' if self.peek_at(1).is_some_and(|n| n.is_ascii_alphabetic()) => {
                self.pos += 1;
                PatternKind::Function(self.function(span, |p, open| {
                    let items = p.pattern_seq(Close::Bracket, open, depth + 1)?;
                    Ok(items.into_iter().map(pattern_alternative).collect())
                })?)
            }
            'e' if self.peek_at(1) == Some(':')
                && self.peek_at(2).is_some_and(|n| !n.is_whitespace()) =>
            {
                self.pos += 2;
                PatternKind::Event(self.event_name())
            }
            _ => {
                while self.peek().is_some_and(|c| {
                    !c.is_whitespace() && !matches!(c, '[' | ']' | '{' | '}' | '(' | ')' | '"')
                }) {
                    self.pos += 1;
                }
                if self.pos == start {
                    // Only `~` or `$` or `^` alone can get here: a word of one character.
                    self.pos += 1;
                }
                PatternKind::Word(self.chars[start..self.pos].iter().collect())
            }
        };
        Ok(PatternNode { kind, span })
    }
    /// `_x` (a capture) or `!x` (what must not be heard), `c` at the cursor.
    fn capture_or_not(&mut self, c: char, depth: usize) -> PResult<PatternKind> {
        self.pos += 1;
        if c == '_' && self.peek().is_some_and(Self::is_hspace) {
            // `_ [a b]`: NAO's own hangman topic writes it so.
            self.warn_at(self.pos, "a space between '_' and what it captures");
            self.skip_hspace();
        }
        match self.peek() {
            Some(n) if !n.is_whitespace() && !is_closer(n) => {}
            other => {
                let what = if c == '_' { "capture" } else { "forbid" };
                return Err(self.error_at(
                    self.pos,
                    format!(
                        "expected something to {what} after '{c}', found {}",
                        show(other)
                    ),
                ));
            }
        }
        self.check_depth(depth + 1)?;
        let inner = Box::new(self.pattern_node(depth + 1)?);
        Ok(if c == '_' {
            PatternKind::Capture(inner)
        } else {
            PatternKind::Not(inner)
        })
    }
}

/// A choice item as an alternative: a phrase's nodes, quoted, or the item alone.
pub(super) fn pattern_alternative(node: PatternNode) -> Alternative<PatternNode> {
    let span = node.span;
    match node.kind {
        PatternKind::Phrase(nodes) => Alternative {
            nodes,
            quoted: true,
            span,
        },
        kind => Alternative {
            nodes: vec![PatternNode { kind, span }],
            quoted: false,
            span,
        },
    }
}
