//! The parser: one pass over the text's characters, one entry (a header line or a rule) at a
//! time (`pieces`: names and values; `pattern`: what the human says; `output`: what the robot
//! does). Groups nest by recursion bounded by [`MAX_DEPTH`]: deeper input is a located
//! error, never a stack overflow.

mod output;
mod pattern;
mod pieces;

use crate::ast::*;
use crate::error::{QiChatError, Span, Warning};

/// How deep groups (`[`, `{`, `"`, `(`, captures, negations) may nest.
pub const MAX_DEPTH: usize = 64;

/// How many errors one file reports before the parser gives up.
const MAX_ERRORS: usize = 50;

type PResult<T> = Result<T, QiChatError>;

/// The keywords that start an entry, at the start of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Keyword {
    Topic,
    Language,
    Concept,
    Dynamic,
    Include,
    Description,
    Overload,
    Def,
    Recover,
    Directive(String),
    User(u32),
    CallResult(u32),
    CallError(u32),
    Proposal,
    Event,
    Learning,
    Skin,
}

impl Keyword {
    fn context(&self) -> String {
        match self {
            Keyword::Topic => "topic header".into(),
            Keyword::Language => "language".into(),
            Keyword::Concept => "concept".into(),
            Keyword::Dynamic => "dynamic".into(),
            Keyword::Include => "include".into(),
            Keyword::Description => "description".into(),
            Keyword::Overload => "overload".into(),
            Keyword::Def => "def".into(),
            Keyword::Recover => "recover:".into(),
            Keyword::Directive(k) => format!("{k}:"),
            Keyword::User(0) => "user rule".into(),
            Keyword::User(n) => format!("subrule u{n}"),
            Keyword::CallResult(n) => format!("call subrule c{n}"),
            Keyword::CallError(n) => format!("call error subrule e{n}"),
            Keyword::Proposal => "proposal".into(),
            Keyword::Event => "event rule".into(),
            Keyword::Learning => "learning rule".into(),
            Keyword::Skin => "skin".into(),
        }
    }
}

/// What closes the sequence being parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// The end of the entry: a newline before the next entry, or the end of the text.
    Entry,
    /// `)` of a rule's pattern.
    Paren,
    /// `]` of a choice.
    Bracket,
    /// `}` of an optional part.
    Brace,
    /// `"` of a phrase.
    Quote,
}

impl Close {
    fn char(self) -> Option<char> {
        match self {
            Close::Entry => None,
            Close::Paren => Some(')'),
            Close::Bracket => Some(']'),
            Close::Brace => Some('}'),
            Close::Quote => Some('"'),
        }
    }

    fn what(self) -> &'static str {
        match self {
            Close::Entry => "entry",
            Close::Paren => "pattern",
            Close::Bracket => "choice",
            Close::Brace => "optional part",
            Close::Quote => "phrase",
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

fn is_closer(c: char) -> bool {
    matches!(c, ')' | ']' | '}')
}

fn show(c: Option<char>) -> String {
    match c {
        None => "the end of the file".into(),
        Some('\n') => "the end of the line".into(),
        Some(c) => format!("'{c}'"),
    }
}

/// One rule before subrules are attached to their parents.
struct FlatRule {
    rule: Rule,
    context: String,
}

pub(crate) struct Parser<'a> {
    file: &'a str,
    chars: Vec<char>,
    line_starts: Vec<usize>,
    pos: usize,
    context: String,
    pub(crate) errors: Vec<QiChatError>,
    pub(crate) warnings: Vec<Warning>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(file: &'a str, text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut line_starts = vec![0];
        line_starts.extend(
            chars
                .iter()
                .enumerate()
                .filter(|(_, c)| **c == '\n')
                .map(|(i, _)| i + 1),
        );
        Parser {
            file,
            chars,
            line_starts,
            pos: 0,
            context: "topic".into(),
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Positions and characters

    fn span_at(&self, pos: usize) -> Span {
        let line = self.line_starts.partition_point(|&s| s <= pos).max(1);
        let column = pos - self.line_starts[line - 1] + 1;
        Span::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    fn error_at(&self, pos: usize, message: impl Into<String>) -> QiChatError {
        // At the end of a text that ends with a newline: the end of the last line.
        let pos = if pos >= self.chars.len() && self.chars.last() == Some(&'\n') {
            self.chars.len() - 1
        } else {
            pos
        };
        QiChatError {
            file: self.file.to_owned(),
            span: self.span_at(pos),
            context: self.context.clone(),
            message: message.into(),
        }
    }

    fn warn_at(&mut self, pos: usize, message: impl Into<String>) {
        let span = self.span_at(pos);
        self.warnings.push(Warning {
            file: self.file.to_owned(),
            span,
            message: format!("in {}: {}", self.context, message.into()),
        });
    }

    fn is_hspace(c: char) -> bool {
        c != '\n' && c.is_whitespace()
    }

    fn skip_hspace(&mut self) {
        while self.peek().is_some_and(Self::is_hspace) {
            self.pos += 1;
        }
    }

    /// Whether a `#` at `pos` starts a comment: at the start of a line or after whitespace.
    fn comment_at(&self, pos: usize) -> bool {
        self.chars.get(pos) == Some(&'#')
            && (pos == 0 || self.chars.get(pos - 1).is_some_and(|c| c.is_whitespace()))
    }

    fn skip_to_eol(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
    }

    /// Skips whitespace, newlines and comments.
    fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => self.pos += 1,
                Some('#') if self.comment_at(self.pos) => self.skip_to_eol(),
                _ => return,
            }
        }
    }

    /// The keyword that starts an entry at `pos`, and the position after its `:`.
    fn keyword_at(&self, pos: usize) -> Option<(Keyword, usize)> {
        let mut end = pos;
        while self
            .chars
            .get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            end += 1;
        }
        let word: String = self.chars[pos..end].iter().collect();
        let mut colon = end;
        while self
            .chars
            .get(colon)
            .is_some_and(|&c| c == ' ' || c == '\t')
        {
            colon += 1;
        }
        if self.chars.get(colon) != Some(&':') {
            return None;
        }
        let level = |prefix: &str| -> Option<u32> {
            let digits = word.strip_prefix(prefix)?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok().filter(|&n| n > 0)
        };
        let kw = match word.as_str() {
            "topic" => Keyword::Topic,
            "language" => Keyword::Language,
            "concept" => Keyword::Concept,
            "dynamic" => Keyword::Dynamic,
            "include" => Keyword::Include,
            "description" => Keyword::Description,
            "overload" => Keyword::Overload,
            "def" => Keyword::Def,
            "recover" => Keyword::Recover,
            "pronunciation" => Keyword::Directive(word),
            "u" => Keyword::User(0),
            // The 2.8 page's own `^releaseFocus` example writes `Proposal:`.
            "proposal" | "Proposal" => Keyword::Proposal,
            "e" => Keyword::Event,
            "l" => Keyword::Learning,
            "s" => Keyword::Skin,
            _ => {
                if let Some(n) = level("u") {
                    Keyword::User(n)
                } else if let Some(n) = level("c") {
                    Keyword::CallResult(n)
                } else if let Some(n) = level("e") {
                    Keyword::CallError(n)
                } else {
                    return None;
                }
            }
        };
        Some((kw, colon + 1))
    }

    /// Where the first line after the newline at `newline` that holds something other than
    /// whitespace or a comment starts its content, or `None` at the end of the text.
    fn next_content_line(&self, newline: usize) -> Option<usize> {
        let mut p = newline + 1;
        loop {
            while self
                .chars
                .get(p)
                .is_some_and(|&c| c != '\n' && c.is_whitespace())
            {
                p += 1;
            }
            match self.chars.get(p) {
                None => return None,
                Some('\n') => p += 1,
                Some('#') => {
                    while self.chars.get(p).is_some_and(|&c| c != '\n') {
                        p += 1;
                    }
                }
                Some(_) => return Some(p),
            }
        }
    }

    /// Whether the entry being parsed ends at the newline at `newline`: the next line with
    /// content starts an entry, or there is none.
    fn entry_ends_at(&self, newline: usize) -> bool {
        match self.next_content_line(newline) {
            None => true,
            Some(p) => self.keyword_at(p).is_some(),
        }
    }

    /// Whether the next line with content starts an entry that cannot be inside a group
    /// (every keyword but `e:`, which patterns use): a group still open there was never
    /// closed.
    fn group_broken_at(&self, newline: usize) -> bool {
        self.next_content_line(newline)
            .and_then(|p| self.keyword_at(p))
            .is_some_and(|(k, _)| k != Keyword::Event)
    }

    fn unclosed(&self, at: usize, close: Close, open: usize) -> QiChatError {
        let c = close.char().unwrap_or(' ');
        self.error_at(
            at,
            format!(
                "expected '{c}' to close the {} opened at {}",
                close.what(),
                self.span_at(open)
            ),
        )
    }

    // -----------------------------------------------------------------------------------------
    // Entries

    /// The whole text read as one output (a function's argument, `^concatenate(i', $x)`).
    pub(crate) fn parse_output(&mut self) -> Result<Vec<OutputNode>, QiChatError> {
        self.context = "function argument".into();
        self.output_seq(Close::Entry, 0, 1)
    }

    pub(crate) fn parse_topic(&mut self) -> Topic {
        let mut topic = Topic::default();
        let mut seen_topic = false;
        let mut flat: Vec<FlatRule> = Vec::new();
        let mut recover = false;
        loop {
            self.context = "topic".into();
            self.skip_blank();
            let start = self.pos;
            if self.peek().is_none() || self.errors.len() >= MAX_ERRORS {
                break;
            }
            let line_start = self.line_starts[self.span_at(start).line as usize - 1];
            let at_line_start = self.chars[line_start..start]
                .iter()
                .all(|c| c.is_whitespace());
            let Some((kw, after)) = self.keyword_at(start).filter(|_| at_line_start) else {
                let word: String = self.chars[start..]
                    .iter()
                    .take_while(|c| !c.is_whitespace())
                    .take(20)
                    .collect();
                let e = self.error_at(
                    start,
                    format!(
                        "expected a rule or a header (`u:`, `proposal:`, `concept:`, ...), \
                         found `{word}`"
                    ),
                );
                self.errors.push(e);
                self.recover();
                continue;
            };
            self.context = kw.context();
            self.pos = after;
            let result = match &kw {
                Keyword::Topic => self.topic_line(&mut topic, &mut seen_topic, start),
                Keyword::Language => self.language_line(&mut topic, start),
                Keyword::Concept => self.concept(start).map(|c| topic.concepts.push(c)),
                Keyword::Dynamic => self.name_line("a concept name").map(|name| {
                    topic.dynamics.push(Named {
                        name,
                        span: self.span_at(start),
                    })
                }),
                Keyword::Include => self.rest_of_line("a file name").map(|name| {
                    topic.includes.push(Named {
                        name,
                        span: self.span_at(start),
                    })
                }),
                Keyword::Description => self.rest_of_line("a description").map(|text| {
                    topic.description = Some(text);
                }),
                Keyword::Overload => self.name_line("a topic name").map(|name| {
                    topic.overload = Some(Named {
                        name,
                        span: self.span_at(start),
                    })
                }),
                Keyword::Def => self.def(start).map(|d| topic.defs.push(d)),
                Keyword::Recover => self.end_of_line().map(|()| recover = true),
                Keyword::Directive(k) => {
                    let text = self.rest_of_line_raw();
                    topic.directives.push(Directive {
                        keyword: k.clone(),
                        text,
                        span: self.span_at(start),
                    });
                    Ok(())
                }
                Keyword::User(_)
                | Keyword::CallResult(_)
                | Keyword::CallError(_)
                | Keyword::Proposal
                | Keyword::Event
                | Keyword::Learning
                | Keyword::Skin => self.rule(&kw, start).map(|mut rule| {
                    rule.recover = recover;
                    flat.push(FlatRule {
                        rule,
                        context: kw.context(),
                    })
                }),
            };
            if let Err(e) = result {
                self.errors.push(e);
                self.recover();
            }
        }
        if !seen_topic && self.errors.is_empty() {
            self.context = "topic".into();
            let e = self.error_at(0, "expected a `topic: ~name()` line, found none");
            self.errors.push(e);
        }
        topic.rules = self.attach_subrules(flat);
        topic
    }

    /// After an error: on to the next line that starts an entry.
    fn recover(&mut self) {
        loop {
            self.skip_to_eol();
            if self.peek().is_none() {
                return;
            }
            match self.next_content_line(self.pos) {
                None => {
                    self.pos = self.chars.len();
                    return;
                }
                Some(p) => {
                    self.pos = p;
                    if self.keyword_at(p).is_some() {
                        return;
                    }
                }
            }
        }
    }

    /// The rest of the line must be blank or a comment.
    fn end_of_line(&mut self) -> PResult<()> {
        self.skip_hspace();
        match self.peek() {
            None | Some('\n') => Ok(()),
            Some('#') if self.comment_at(self.pos) => {
                self.skip_to_eol();
                Ok(())
            }
            c => Err(self.error_at(
                self.pos,
                format!("expected the end of the line, found {}", show(c)),
            )),
        }
    }

    fn rest_of_line_raw(&mut self) -> String {
        let start = self.pos;
        self.skip_to_eol();
        self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    }

    fn rest_of_line(&mut self, what: &str) -> PResult<String> {
        self.skip_hspace();
        let start = self.pos;
        let mut end = start;
        while self.chars.get(end).is_some_and(|&c| c != '\n') && !self.comment_at(end) {
            end += 1;
        }
        let text: String = self.chars[start..end]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned();
        if text.is_empty() {
            return Err(self.error_at(start, format!("expected {what}")));
        }
        self.pos = end;
        self.skip_to_eol();
        Ok(text)
    }

    fn name_line(&mut self, what: &str) -> PResult<String> {
        self.skip_hspace();
        let start = self.pos;
        while self.peek().is_some_and(|c| !c.is_whitespace()) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error_at(
                start,
                format!("expected {what}, found {}", show(self.peek())),
            ));
        }
        let name = self.chars[start..self.pos].iter().collect();
        self.end_of_line()?;
        Ok(name)
    }

    fn topic_line(&mut self, topic: &mut Topic, seen: &mut bool, start: usize) -> PResult<()> {
        if *seen {
            return Err(self.error_at(
                start,
                format!("a second `topic:` line (the first is at {})", topic.span),
            ));
        }
        self.skip_hspace();
        if self.peek() != Some('~') {
            return Err(self.error_at(
                self.pos,
                format!(
                    "expected `~name` after `topic:`, found {}",
                    show(self.peek())
                ),
            ));
        }
        self.pos += 1;
        let name_start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        if self.pos == name_start {
            return Err(self.error_at(
                self.pos,
                format!(
                    "expected the topic's name after '~', found {}",
                    show(self.peek())
                ),
            ));
        }
        topic.name = self.chars[name_start..self.pos].iter().collect();
        topic.span = self.span_at(start);
        *seen = true;
        self.skip_hspace();
        // Properties: `topic: ~t ^noPick ^fallback ()`.
        while self.peek() == Some('^') {
            let at = self.pos;
            self.pos += 1;
            let name = self.function_name();
            let Some(p) = TopicProperty::from_name(&name) else {
                return Err(self.error_at(
                    at,
                    format!(
                        "`^{name}` is not a topic property (^noPick, ^noStay, ^keepFocus, \
                         ^fallback, ^resetOnFocus, ^preProcess, ^postProcess, \
                         ^preProcessReplace, ^notInEmbeddedASR)"
                    ),
                ));
            };
            topic.properties.push(p);
            self.skip_hspace();
        }
        if self.peek() == Some('(') {
            let open = self.pos;
            while self.peek().is_some_and(|c| c != ')' && c != '\n') {
                self.pos += 1;
            }
            if self.peek() != Some(')') {
                return Err(self.error_at(
                    self.pos,
                    format!("expected ')' to close the '(' at {}", self.span_at(open)),
                ));
            }
            self.pos += 1;
        }
        self.end_of_line()
    }

    fn language_line(&mut self, topic: &mut Topic, start: usize) -> PResult<()> {
        self.skip_hspace();
        let code_start = self.pos;
        let code = self.name_line("a language code (`enu`, `frf`, ...)")?;
        if let Some(first) = &topic.language {
            return Err(self.error_at(
                start,
                format!("a second `language:` line (the first is at {})", first.span),
            ));
        }
        topic.language = Some(Language {
            code,
            span: self.span_at(code_start),
        });
        Ok(())
    }

    /// Steps over the `(` expected here (`why`: what it opens, for the error); its place.
    fn open_paren(&mut self, why: &str) -> PResult<usize> {
        if self.peek() != Some('(') {
            return Err(self.error_at(
                self.pos,
                format!("expected '(' {why}, found {}", show(self.peek())),
            ));
        }
        self.pos += 1;
        Ok(self.pos - 1)
    }

    fn concept(&mut self, start: usize) -> PResult<Concept> {
        self.skip_hspace();
        let open = self.open_paren("before the concept's name")?;
        self.skip_hspace();
        let name_start = self.pos;
        while self.peek().is_some_and(|c| c != ')' && c != '\n') {
            self.pos += 1;
        }
        let name: String = self.chars[name_start..self.pos]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned();
        if name.chars().any(|c| !is_name_char(c)) {
            // Choregraphe 2.1's own lexicon_enu.top has `concept:(can I)`.
            self.warn_at(
                name_start,
                format!("concept name `{name}` has characters a `~name` cannot spell: no rule can use it"),
            );
        }
        if name.is_empty() {
            return Err(self.error_at(
                self.pos,
                format!("expected the concept's name, found {}", show(self.peek())),
            ));
        }
        self.skip_hspace();
        if self.peek() != Some(')') {
            return Err(self.error_at(
                self.pos,
                format!(
                    "expected ')' to close the concept's name opened at {}, found {}",
                    self.span_at(open),
                    show(self.peek())
                ),
            ));
        }
        self.pos += 1;
        let body = self.pattern_seq(Close::Entry, start, 0)?;
        if body.is_empty() {
            return Err(self.error_at(self.pos, "expected the concept's items after its name"));
        }
        Ok(Concept {
            name,
            body,
            span: self.span_at(start),
        })
    }

    fn rule(&mut self, kw: &Keyword, start: usize) -> PResult<Rule> {
        let (kind, level) = match kw {
            Keyword::User(n) => (RuleKind::User, *n),
            Keyword::CallResult(n) => (RuleKind::CallResult, *n),
            Keyword::CallError(n) => (RuleKind::CallError, *n),
            Keyword::Proposal => (RuleKind::Proposal, 0),
            Keyword::Learning => (RuleKind::Learning, 0),
            Keyword::Skin => (RuleKind::Skin, 0),
            _ => (RuleKind::Event, 0),
        };
        let mut modifiers = Vec::new();
        let mut pattern = Vec::new();
        self.skip_hspace();
        match kind {
            RuleKind::User | RuleKind::CallResult | RuleKind::Learning | RuleKind::Skin => {
                while self.peek() == Some('^') {
                    let at = self.pos;
                    self.pos += 1;
                    let name = self.function_name();
                    if name.is_empty() {
                        return Err(self.error_at(self.pos, "expected a function name after '^'"));
                    }
                    modifiers.push(Function {
                        builtin: Builtin::from_name(&name),
                        name,
                        args: Args::None,
                        span: self.span_at(at),
                    });
                    self.skip_hspace();
                }
                let open = self.open_paren("to open the rule's pattern")?;
                pattern = self.pattern_seq(Close::Paren, open, 1)?;
            }
            RuleKind::Event => {
                let at = self.pos;
                let name = if self.peek() == Some('(') {
                    self.pos += 1;
                    self.skip_hspace();
                    let name = self.event_name();
                    self.skip_hspace();
                    if self.peek() != Some(')') {
                        return Err(self.error_at(
                            self.pos,
                            format!(
                                "expected ')' to close the event opened at {}, found {}",
                                self.span_at(at),
                                show(self.peek())
                            ),
                        ));
                    }
                    self.pos += 1;
                    name
                } else {
                    self.event_name()
                };
                if name.is_empty() {
                    return Err(self.error_at(
                        at,
                        format!(
                            "expected an event name after `e:`, found {}",
                            show(self.chars.get(at).copied())
                        ),
                    ));
                }
                pattern.push(PatternNode {
                    kind: PatternKind::Event(name),
                    span: self.span_at(at),
                });
            }
            RuleKind::Proposal | RuleKind::CallError => {}
        }
        self.skip_hspace();
        let output_span = self.span_at(self.pos);
        let output = self.output_seq(Close::Entry, start, 0)?;
        let tag = match output.first() {
            Some(OutputNode {
                kind: OutputKind::Bookmark(b),
                ..
            }) => Some(b.clone()),
            _ => None,
        };
        Ok(Rule {
            kind,
            level,
            modifiers,
            pattern,
            output,
            tag,
            span: self.span_at(start),
            output_span,
            subrules: Vec::new(),
            recover: false,
        })
    }

    /// `def:name($a, $b) output`, the keyword consumed.
    fn def(&mut self, start: usize) -> PResult<Def> {
        self.skip_hspace();
        let name = self.function_name();
        if name.is_empty() {
            return Err(self.error_at(
                self.pos,
                format!("expected the function's name, found {}", show(self.peek())),
            ));
        }
        let open = self.open_paren("before the function's parameters")?;
        let mut params = Vec::new();
        loop {
            self.skip_hspace();
            match self.peek() {
                Some(')') => {
                    self.pos += 1;
                    break;
                }
                Some(',') => self.pos += 1,
                Some('$') => {
                    self.pos += 1;
                    let p = self.variable_name();
                    if p.is_empty() {
                        return Err(self.error_at(self.pos, "expected a parameter name after '$'"));
                    }
                    params.push(p);
                }
                c => {
                    return Err(self.error_at(
                        self.pos,
                        format!(
                            "expected a parameter (`$name`) or ')' to close the '(' at {}, found {}",
                            self.span_at(open),
                            show(c)
                        ),
                    ));
                }
            }
        }
        self.skip_hspace();
        let body = self.output_seq(Close::Entry, start, 0)?;
        Ok(Def {
            name,
            params,
            body,
            span: self.span_at(start),
        })
    }

    /// Attaches each `uN:`/`cN:` to the rule of level N-1 before it (explicit stack).
    fn attach_subrules(&mut self, flat: Vec<FlatRule>) -> Vec<Rule> {
        let mut top = Vec::new();
        let mut chain: Vec<Rule> = Vec::new();
        fn close_to(chain: &mut Vec<Rule>, top: &mut Vec<Rule>, len: usize) {
            while chain.len() > len {
                let Some(done) = chain.pop() else { return };
                match chain.last_mut() {
                    Some(parent) => parent.subrules.push(done),
                    None => top.push(done),
                }
            }
        }
        for FlatRule { rule, context } in flat {
            let level = rule.level as usize;
            if level > chain.len() {
                let keyword = match rule.kind {
                    RuleKind::CallResult => 'c',
                    RuleKind::CallError => 'e',
                    _ => 'u',
                };
                let parent = if level == 1 {
                    "`u:`, `proposal:` or `e:`".to_owned()
                } else {
                    format!("`u{}:`", level - 1)
                };
                self.errors.push(QiChatError {
                    file: self.file.to_owned(),
                    span: rule.span,
                    context,
                    message: format!("`{keyword}{level}:` with no {parent} rule before it"),
                });
                continue;
            }
            close_to(&mut chain, &mut top, level);
            chain.push(rule);
        }
        close_to(&mut chain, &mut top, 0);
        top
    }
}
