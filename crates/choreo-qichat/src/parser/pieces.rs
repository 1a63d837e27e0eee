//! Names, values and function arguments.

use super::*;

impl Parser<'_> {
    // -----------------------------------------------------------------------------------------
    // Names and small pieces

    pub(super) fn function_name(&mut self) -> String {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    pub(super) fn event_name(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(|c| {
            !c.is_whitespace() && !matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | '"')
        }) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// A variable's name: letters, digits, `_`, `/`; `.` before a letter or digit and `-`
    /// before a letter inside a name only (`$m-01` is `$m` then `-01`: the 2.8 page's
    /// `now-$m-01`).
    pub(super) fn variable_name(&mut self) -> String {
        let start = self.pos;
        loop {
            match self.peek() {
                Some(c) if c.is_alphanumeric() || c == '_' || c == '/' => self.pos += 1,
                Some('.')
                    if self.peek_at(1).is_some_and(|c| c.is_alphanumeric()) && self.pos > start =>
                {
                    self.pos += 1
                }
                Some('-')
                    if self.peek_at(1).is_some_and(|c| c.is_alphabetic()) && self.pos > start =>
                {
                    self.pos += 1
                }
                _ => break,
            }
        }
        self.chars[start..self.pos].iter().collect()
    }

    pub(super) fn concept_name(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    pub(super) fn operand_of_name(name: String) -> Operand {
        match Self::capture_index(&name) {
            Some(n) => Operand::CaptureRef(n),
            None => Operand::Variable(name),
        }
    }

    /// `n` when `$name` is the capture `$n`.
    pub(super) fn capture_index(name: &str) -> Option<u32> {
        name.parse::<u32>()
            .ok()
            .filter(|_| name.bytes().all(|b| b.is_ascii_digit()))
    }

    /// `^first [a b]`: the 2.8 page writes a space between a choice function's name and
    /// its `[`; it is stepped over.
    pub(super) fn space_before_choice(&mut self, name: &str) {
        if !matches!(name, "first" | "firstOptional" | "rand") {
            return;
        }
        let mut p = self.pos;
        while self.chars.get(p).is_some_and(|&c| Self::is_hspace(c)) {
            p += 1;
        }
        if self.chars.get(p) == Some(&'[') {
            self.pos = p;
        }
    }

    /// A function (`^name(a, b)`, `^name[choice]`, `^name`), the cursor after its `^`; the
    /// alternatives of a choice are read by `choice`, given where its `[` is, the cursor
    /// after it (a pattern's and an output's differ).
    pub(super) fn function<N>(
        &mut self,
        span: Span,
        choice: impl FnOnce(&mut Self, usize) -> PResult<Vec<Alternative<N>>>,
    ) -> PResult<Function<N>> {
        let name = self.function_name();
        self.space_before_choice(&name);
        let args = match self.peek() {
            Some('(') => Args::List(self.call_args(&name)?),
            Some('[') => {
                let open = self.pos;
                self.pos += 1;
                Args::Choice(choice(self, open)?)
            }
            _ => Args::None,
        };
        Ok(Function {
            builtin: Builtin::from_name(&name),
            name,
            args,
            span,
        })
    }

    /// A comparison operator at the cursor, consumed, spaces around it included when a
    /// value follows (`$age > 18`, the 2.8 page's `def:` example).
    pub(super) fn compare_op(&mut self) -> Option<CompareOp> {
        if let Some(op) = self.compare_op_here() {
            return Some(op);
        }
        let back = self.pos;
        self.skip_hspace();
        let spaced = self.pos > back;
        if spaced && let Some(op) = self.compare_op_here() {
            let before_value = self.pos;
            self.skip_hspace();
            if self.pos > before_value
                && self
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || c == '$' || c == '"')
            {
                return Some(op);
            }
        }
        self.pos = back;
        None
    }

    fn compare_op_here(&mut self) -> Option<CompareOp> {
        let (op, len) = match (self.peek(), self.peek_at(1)) {
            (Some('='), Some('=')) => (CompareOp::Eq, 2),
            (Some('!'), Some('=')) => (CompareOp::Ne, 2),
            (Some('<'), Some('>')) => (CompareOp::Ne, 2),
            (Some('<'), Some('=')) => (CompareOp::Le, 2),
            (Some('>'), Some('=')) => (CompareOp::Ge, 2),
            (Some('<'), _) => (CompareOp::Lt, 1),
            (Some('>'), _) => (CompareOp::Gt, 1),
            _ => return None,
        };
        self.pos += len;
        Some(op)
    }

    /// A value after `=` or a comparison: `"quoted"`, `$var`, `$1` or a word.
    pub(super) fn operand(&mut self) -> PResult<Operand> {
        let start = self.pos;
        match self.peek() {
            Some('"') => {
                self.pos += 1;
                let s = self.pos;
                while self.peek().is_some_and(|c| c != '"' && c != '\n') {
                    self.pos += 1;
                }
                let inner = &self.chars[s..self.pos];
                if self.peek() == Some('"')
                    && inner.iter().enumerate().any(|(i, &c)| {
                        matches!(c, '^' | '$' | '~') && self.output_special_at(s + i)
                    })
                {
                    self.pos = s;
                    return Ok(Operand::Output(self.output_seq(Close::Quote, start, 1)?));
                }
                if self.peek() != Some('"') {
                    return Err(self.error_at(
                        self.pos,
                        format!(
                            "expected '\"' to close the value opened at {}",
                            self.span_at(start)
                        ),
                    ));
                }
                let text = self.chars[s..self.pos].iter().collect();
                self.pos += 1;
                Ok(Operand::Literal(text))
            }
            Some('$') => {
                self.pos += 1;
                let name = self.variable_name();
                if name.is_empty() {
                    return Err(self.error_at(self.pos, "expected a variable name after '$'"));
                }
                Ok(Self::operand_of_name(name))
            }
            _ => {
                while self.peek().is_some_and(|c| {
                    !c.is_whitespace() && !matches!(c, '"' | ']' | '}' | ')' | '[')
                }) {
                    self.pos += 1;
                }
                // Sentence punctuation that ends the value is text: `$a=on. Next` sets `on`.
                while self.pos > start + 1
                    && matches!(self.chars[self.pos - 1], '.' | ',' | '!' | '?' | ';')
                {
                    self.pos -= 1;
                }
                if self.pos == start {
                    return Err(self.error_at(
                        start,
                        format!("expected a value, found {}", show(self.peek())),
                    ));
                }
                Ok(Operand::Literal(
                    self.chars[start..self.pos].iter().collect(),
                ))
            }
        }
    }

    /// `(a, b)` after a function's name: the raw text split on top-level commas.
    pub(super) fn call_args(&mut self, name: &str) -> PResult<Vec<String>> {
        let open = self.pos;
        self.pos += 1;
        let mut depth = 0usize;
        let mut quoted = false;
        let mut args = Vec::new();
        let mut current = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error_at(
                    self.pos,
                    format!(
                        "expected ')' to close the arguments of ^{name} opened at {}",
                        self.span_at(open)
                    ),
                ));
            };
            self.pos += 1;
            match c {
                '"' => quoted = !quoted,
                '(' if !quoted => depth += 1,
                ')' if !quoted && depth == 0 => {
                    let last = current.trim();
                    if !last.is_empty() || !args.is_empty() {
                        args.push(last.to_owned());
                    }
                    return Ok(args);
                }
                ')' if !quoted => depth -= 1,
                ',' if !quoted && depth == 0 => {
                    args.push(current.trim().to_owned());
                    current.clear();
                    continue;
                }
                '\n' if self.group_broken_at(self.pos - 1) => {
                    return Err(self.error_at(
                        self.pos - 1,
                        format!(
                            "expected ')' to close the arguments of ^{name} opened at {}",
                            self.span_at(open)
                        ),
                    ));
                }
                _ => {}
            }
            current.push(c);
        }
    }

    pub(super) fn check_depth(&self, depth: usize) -> PResult<()> {
        if depth >= MAX_DEPTH {
            return Err(self.error_at(
                self.pos,
                format!("groups nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }
}
