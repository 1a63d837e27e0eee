//! Outputs: what the robot says and does.

use super::*;

impl Parser<'_> {
    // -----------------------------------------------------------------------------------------
    // Outputs

    /// Output nodes up to `close` (`Entry`, `Bracket` for a choice's bare items is not used:
    /// choices go through [`Self::output_choice`]; `Quote` for a quoted alternative).
    pub(super) fn output_seq(
        &mut self,
        close: Close,
        open: usize,
        depth: usize,
    ) -> PResult<Vec<OutputNode>> {
        self.check_depth(depth)?;
        let mut nodes = Vec::new();
        let mut text = String::new();
        let mut text_start = 0usize;
        let mut space = false;
        // Whether what came last touches the cursor (no whitespace between): a node and
        // the text right after it (`$1.`, `$name's`), or text and the node right after it
        // (`now-$m`), are glued: said as written, without a space.
        let mut touching = false;
        loop {
            let c = self.peek();
            match c {
                None => {
                    if close == Close::Entry {
                        flush(&mut nodes, &mut text, self.span_at(text_start));
                        return Ok(nodes);
                    }
                    return Err(self.unclosed(self.pos, close, open));
                }
                Some('\n') => {
                    if close == Close::Entry && self.entry_ends_at(self.pos) {
                        flush(&mut nodes, &mut text, self.span_at(text_start));
                        return Ok(nodes);
                    }
                    if close != Close::Entry && self.group_broken_at(self.pos) {
                        return Err(self.unclosed(self.pos, close, open));
                    }
                    self.pos += 1;
                    space = true;
                    touching = false;
                }
                Some(c) if c.is_whitespace() => {
                    self.pos += 1;
                    space = true;
                    touching = false;
                }
                Some('#') if self.comment_at(self.pos) => self.skip_to_eol(),
                Some('"') if close == Close::Quote => {
                    self.pos += 1;
                    flush(&mut nodes, &mut text, self.span_at(text_start));
                    return Ok(nodes);
                }
                Some('"') if self.quote_closes_on_line() => {
                    // A phrase outside a choice (`%tag "Hi human"`): its words, said.
                    let at = self.pos;
                    self.pos += 1;
                    flush(&mut nodes, &mut text, self.span_at(text_start));
                    nodes.extend(self.output_seq(Close::Quote, at, depth + 1)?);
                    space = true;
                    touching = false;
                }
                Some(']') => return Err(self.stray_bracket(close, open)),
                Some(_) if self.output_special_at(self.pos) => {
                    let after_text = !text.is_empty();
                    flush(&mut nodes, &mut text, self.span_at(text_start));
                    if touching && after_text {
                        glue(&mut nodes, self.span_at(self.pos));
                    }
                    space = false;
                    let node = self.output_node(depth)?;
                    nodes.push(node);
                    touching = true;
                }
                Some(c) => {
                    if text.is_empty() {
                        if touching {
                            glue(&mut nodes, self.span_at(self.pos));
                        }
                        text_start = self.pos;
                    } else if space {
                        text.push(' ');
                    }
                    space = false;
                    touching = true;
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// The error of a `]` at the cursor: it closes no choice, or it closes one where
    /// something else (`close`, opened at `open`) should have been closed first.
    fn stray_bracket(&self, close: Close, open: usize) -> QiChatError {
        if close == Close::Entry {
            self.error_at(self.pos, "']' closes no choice")
        } else {
            let mut e = self.unclosed(self.pos, close, open);
            e.message.push_str(", found ']'");
            e
        }
    }

    /// Whether the character at `pos` starts a node other than text.
    pub(super) fn output_special_at(&self, pos: usize) -> bool {
        let Some(&c) = self.chars.get(pos) else {
            return false;
        };
        let next = self.chars.get(pos + 1).copied();
        match c {
            '[' | '{' => true,
            '$' => next.is_some_and(|n| n.is_alphanumeric() || n == '_'),
            '^' => next.is_some_and(|n| n.is_ascii_alphabetic()),
            '%' => next.is_some_and(|n| n.is_alphanumeric() || n == '_'),
            '~' => next.is_some_and(is_name_char),
            _ => false,
        }
    }

    pub(super) fn output_node(&mut self, depth: usize) -> PResult<OutputNode> {
        let start = self.pos;
        let span = self.span_at(start);
        let c = self.peek().unwrap_or(' ');
        self.pos += 1;
        let kind = match c {
            '[' => OutputKind::Choice(self.output_choice(start, depth + 1, Close::Bracket)?),
            '{' => OutputKind::Optional(self.output_choice(start, depth + 1, Close::Brace)?),
            '$' => {
                let name = self.variable_name();
                if let Some(op) = self.compare_op() {
                    OutputKind::Condition(Condition {
                        left: Self::operand_of_name(name),
                        op,
                        right: self.operand()?,
                    })
                } else if self.peek() == Some('=') {
                    self.pos += 1;
                    // `$42=1` sets variable `42` (the 2.8 page's `^exist` example); only
                    // reading `$42` is a capture.
                    OutputKind::Assign {
                        variable: name,
                        value: self.operand()?,
                    }
                } else {
                    match Self::capture_index(&name) {
                        Some(n) => OutputKind::CaptureRef(n),
                        None => OutputKind::Variable(name),
                    }
                }
            }
            '^' => OutputKind::Function(self.function(span, |p, open| {
                p.output_choice(open, depth + 1, Close::Bracket)
            })?),
            '%' => {
                let name = self.concept_name();
                if name == "script" {
                    OutputKind::Script(self.script(start)?)
                } else {
                    OutputKind::Bookmark(name)
                }
            }
            _ => OutputKind::Concept(self.concept_name()),
        };
        Ok(OutputNode { kind, span })
    }

    /// The lines after `%script` up to a line holding only `%script`.
    pub(super) fn script(&mut self, open: usize) -> PResult<String> {
        self.skip_to_eol();
        let body_start = (self.pos + 1).min(self.chars.len());
        let mut p = body_start;
        while p < self.chars.len() {
            let mut end = p;
            while self.chars.get(end).is_some_and(|&c| c != '\n') {
                end += 1;
            }
            let line: String = self.chars[p..end].iter().collect();
            if line.trim() == "%script" {
                let body: String = self.chars[body_start..p].iter().collect();
                self.pos = end;
                return Ok(body);
            }
            p = end + 1;
        }
        Err(self.error_at(
            self.chars.len(),
            format!(
                "expected a line `%script` to close the script opened at {}",
                self.span_at(open)
            ),
        ))
    }

    /// The alternatives of a choice (`close`: `Bracket`) or an optional part (`Brace`), its
    /// opening character at `open` consumed; the closing one consumed.
    pub(super) fn output_choice(
        &mut self,
        open: usize,
        depth: usize,
        close: Close,
    ) -> PResult<Vec<Alternative<OutputNode>>> {
        self.check_depth(depth)?;
        let mut alts = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.unclosed(self.pos, close, open)),
                Some('\n') => {
                    if self.group_broken_at(self.pos) {
                        return Err(self.unclosed(self.pos, close, open));
                    }
                    self.pos += 1;
                }
                Some(c) if c.is_whitespace() => self.pos += 1,
                Some('#') if self.comment_at(self.pos) => self.skip_to_eol(),
                Some(c) if Some(c) == close.char() => {
                    self.pos += 1;
                    return Ok(alts);
                }
                Some('"') => {
                    let at = self.pos;
                    self.pos += 1;
                    let nodes = self.output_seq(Close::Quote, at, depth + 1)?;
                    alts.push(Alternative {
                        nodes,
                        quoted: true,
                        span: self.span_at(at),
                    });
                }
                Some(_) if self.output_special_at(self.pos) => {
                    let at = self.pos;
                    let node = self.output_node(depth)?;
                    alts.push(Alternative {
                        nodes: vec![node],
                        quoted: false,
                        span: self.span_at(at),
                    });
                }
                Some(_) => {
                    let at = self.pos;
                    while self.peek().is_some_and(|c| {
                        !c.is_whitespace() && !matches!(c, '[' | ']' | '{' | '}' | '"')
                    }) {
                        self.pos += 1;
                    }
                    if self.pos == at {
                        self.pos += 1;
                    }
                    let span = self.span_at(at);
                    alts.push(Alternative {
                        nodes: vec![OutputNode {
                            kind: OutputKind::Text(self.chars[at..self.pos].iter().collect()),
                            span,
                        }],
                        quoted: false,
                        span,
                    });
                }
            }
        }
    }

    /// Whether a `"` at the cursor is closed by another on the same line (else it is text).
    fn quote_closes_on_line(&self) -> bool {
        self.chars[self.pos + 1..]
            .iter()
            .take_while(|&&c| c != '\n')
            .any(|&c| c == '"')
    }
}

/// A glue node: what is on either side of `span` is said without a space between.
fn glue(nodes: &mut Vec<OutputNode>, span: Span) {
    nodes.push(OutputNode {
        kind: OutputKind::Glue,
        span,
    });
}

/// The text gathered so far, if any, as a node.
fn flush(nodes: &mut Vec<OutputNode>, text: &mut String, span: Span) {
    if !text.is_empty() {
        nodes.push(OutputNode {
            kind: OutputKind::Text(std::mem::take(text)),
            span,
        });
    }
}
