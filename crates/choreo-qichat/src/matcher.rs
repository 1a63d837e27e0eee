//! Matching what the human said (or an event raised) against a rule's pattern: the input
//! side of the dialog engine.
//!
//! The input is cut into tokens: words, lower-cased, punctuation dropped (`Hello, Pepper!` →
//! `hello pepper`); in languages written without spaces (Japanese, Chinese) every
//! character is a token, so `u:(何か飲みたい)` finds its words in `何か飲みたいな`. Each
//! pattern node matches a run of tokens:
//!
//! | node | matches |
//! |---|---|
//! | a word | that word, in any case, punctuation ignored |
//! | `"a b"` | those words in that order |
//! | `[a b]` | one of the items |
//! | `{a b}` | nothing, or one of the items (NAOqi reads several items as a choice) |
//! | `~name` | the concept's body (static), or one of its phrases (dynamic, `setConcept`) |
//! | `*` | any words, none included |
//! | `_x` | what `x` matches, kept as the next capture (`$1`, `$2`, ... in order), as said |
//! | `!word` | nothing, where the next word is not `word` (a negative look-ahead) |
//! | `$var` | the variable's value, as words |
//! | `$var==x` (and the other comparisons) | nothing, where the condition holds |
//! | `$var=x` | nothing; the match sets the variable ([`Match::sets`]) |
//! | `e:Name` | the event, when it is what was raised; with words, nothing where `Name` was raised recently |
//! | `%tag` | nothing (the rule's tags are the engine's business) |
//! | `^rand[...]`, `^first[...]` | one of the items |
//! | `^repeat[...]` | one to ten of the items, in any order |
//! | `^getUserInfo(x)` | the focused user's `x`, as words |
//! | `^exist(v)`, `^notExist(v)`, `^hasUserInfo(x)` | nothing, where it holds |
//! | `^exact`, `^lessPriority`, `^private` | nothing (they say how the rule matches) |
//! | `^empty`, other functions | never |
//!
//! **More words than the rule.** The 2.8 syntax page: "Dialog engine allows more words in
//! input than in rule. 'Hello robot' will match u:(hello) rule. If you want to match exactly
//! the pattern of the rule, use ^exact." With `partial`, words the rule does not have are
//! allowed before, after and between the pattern's parts (the page's own `^addToConcept`
//! execution answers "fill in the fridge" with `u:(fill the fridge)`), never inside a
//! phrase, a choice or a concept; a gap next to a `!word` may not hold that word. The match
//! with the fewest such words wins ([`Match::exact`] when none), then the one whose
//! wildcards take fewest.
//!
//! The work is bounded: concepts nest [`MAX_CONCEPT_DEPTH`] deep at most (a concept that
//! names itself matches nothing more), and a match gives up after [`MAX_STEPS`] steps,
//! however the pattern and input combine.

use crate::ast::{
    Alternative, Args, Builtin, CompareOp, Condition, Operand, PatternKind, PatternNode,
};

/// How deep concepts may name concepts before a match stops expanding them.
pub const MAX_CONCEPT_DEPTH: usize = 16;

/// How many node matches one pattern may try against one input.
pub const MAX_STEPS: usize = 100_000;

/// How many items `^repeat[...]` matches at most ("from one to ten times").
const MAX_REPEAT: usize = 10;

/// What a pattern refers to that lives outside it: concepts, variables, recent events, the
/// focused user's data.
pub trait Lookup {
    /// The body of static concept `name`.
    fn concept(&self, name: &str) -> Option<&[PatternNode]>;

    /// The phrases of dynamic concept `name` (set by `ALDialog.setConcept`).
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        let _ = name;
        None
    }

    /// The value of variable `$name`, as text; an empty value counts as none (the 2.8
    /// page: `^exist` fails on "an empty string").
    fn variable(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// Whether event `name` was raised recently enough to count with words said now
    /// (`u:(e:Touched "light this leg")`).
    fn recent_event(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// The focused user's `name` (`^getUserInfo`).
    fn user_info(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
}

/// A token of what was said: its matching form and where it is in the text (bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lower-case, punctuation dropped.
    pub norm: String,
    /// Where it starts in the text.
    pub start: usize,
    /// Where it ends.
    pub end: usize,
}

/// Whether `c` is written without spaces between words (Japanese kana, CJK ideographs):
/// each such character is a token of its own.
fn is_unspaced(c: char) -> bool {
    matches!(u32::from(c),
        0x3005 | 0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF | 0xFF66..=0xFF9F)
}

/// Whether `c` separates words as punctuation does.
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | '.'
                | '!'
                | '?'
                | ';'
                | ':'
                | '"'
                | '('
                | ')'
                | '、'
                | '。'
                | '！'
                | '？'
                | '，'
                | '．'
                | '：'
                | '；'
                | '「'
                | '」'
                | '『'
                | '』'
                | '（'
                | '）'
                | '・'
                | '…'
                | '“'
                | '”'
                | '«'
                | '»'
                | '¿'
                | '¡'
        )
}

/// The tokens of `text` (see the module docs). An apostrophe or hyphen inside a word is
/// kept (`I'm`, `double-decker`); the typographic apostrophe reads as `'`.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word: Option<usize> = None;
    let push = |out: &mut Vec<Token>, start: usize, end: usize| {
        let raw = &text[start..end];
        let edge = |c: char| matches!(c, '\'' | '’' | '-');
        let front = raw.trim_start_matches(edge);
        let trimmed = front.trim_end_matches(edge);
        if trimmed.is_empty() {
            return;
        }
        let offset = raw.len() - front.len();
        let norm = trimmed.replace('’', "'").to_lowercase();
        out.push(Token {
            norm,
            start: start + offset,
            end: start + offset + trimmed.len(),
        });
    };
    for (i, c) in text.char_indices() {
        if is_separator(c) || is_unspaced(c) {
            if let Some(s) = word.take() {
                push(&mut out, s, i);
            }
            if is_unspaced(c) {
                push(&mut out, i, i + c.len_utf8());
            }
        } else if word.is_none() {
            word = Some(i);
        }
    }
    if let Some(s) = word {
        push(&mut out, s, text.len());
    }
    out
}

/// The words of `text` as matching sees them (the tokens' matching forms).
pub fn words(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.norm).collect()
}

/// What a rule is asked to match.
#[derive(Debug, Clone, Copy)]
pub enum Heard<'a> {
    /// What the human said: the text and its tokens.
    Said(&'a str, &'a [Token]),
    /// An event raised (its ALMemory key or qiChat name).
    Event(&'a str),
}

/// A successful match.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Match {
    /// What each `_` captured, in order (`$1` first), as said (case kept, punctuation
    /// around it dropped).
    pub captures: Vec<String>,
    /// Whether the pattern covered all of what was said (no words around it).
    pub exact: bool,
    /// How many words wildcards took: the fewer, the more specific the match.
    pub wildcard_words: usize,
    /// The variables the `$var=value` the match went through set, in order, with their
    /// values (a value to work out, `"^size(~c)"`, sets nothing here).
    pub sets: Vec<(String, String)>,
}

/// Whether `pattern` matches all of `input` (words only), and with which captures.
pub fn match_pattern(pattern: &[PatternNode], input: &str, lookup: &dyn Lookup) -> Option<Match> {
    let toks = tokens(input);
    match_heard(pattern, Heard::Said(input, &toks), lookup, false)
}

/// Whether `pattern` matches what was heard; with `partial`, words the rule does not have
/// are allowed around and between its parts (see the module docs).
pub fn match_heard(
    pattern: &[PatternNode],
    heard: Heard<'_>,
    lookup: &dyn Lookup,
    partial: bool,
) -> Option<Match> {
    let (text, toks, event) = match heard {
        Heard::Said(text, toks) => (text, toks, None),
        Heard::Event(e) => ("", &[][..], Some(e)),
    };
    if !may_match(pattern, toks, event) {
        return None;
    }
    let mut m = Matcher {
        toks,
        event,
        lookup,
        steps: 0,
    };
    let n = toks.len();
    let from = State {
        at: 0,
        event: false,
        captures: Vec::new(),
        wild: 0,
        skipped: 0,
        sets: Vec::new(),
    };
    let ends = if partial && event.is_none() {
        m.with_gaps(pattern, from)
    } else {
        m.seq(pattern, vec![from], 0)
    };
    let best = ends
        .into_iter()
        .filter(|s| s.at == n)
        .filter(|s| match event {
            Some(_) => s.event,
            None => s.skipped < n,
        })
        .min_by_key(|s| (s.skipped, s.wild))?;
    let captures = best
        .captures
        .iter()
        .map(|&(a, b)| said(text, toks, a, b))
        .collect();
    Some(Match {
        captures,
        exact: best.skipped == 0,
        wildcard_words: best.wild,
        sets: best.sets,
    })
}

/// A quick look before matching: every word the pattern must have (its top-level words) is
/// among the tokens; an event is named somewhere in the pattern. Most rules fail here.
fn may_match(pattern: &[PatternNode], toks: &[Token], event: Option<&str>) -> bool {
    match event {
        Some(e) => {
            let mut stack: Vec<&PatternNode> = pattern.iter().collect();
            while let Some(n) = stack.pop() {
                match &n.kind {
                    PatternKind::Event(name) if name == e => return true,
                    PatternKind::Phrase(items)
                    | PatternKind::Choice(items)
                    | PatternKind::Optional(items) => stack.extend(items),
                    PatternKind::Capture(inner) => stack.push(inner),
                    _ => {}
                }
            }
            false
        }
        None => pattern.iter().all(|n| match &n.kind {
            PatternKind::Word(w) if is_plain(w) => {
                toks.iter().any(|t| t.norm.eq_ignore_ascii_case(w))
            }
            PatternKind::Word(w) => tokens(w)
                .iter()
                .all(|want| toks.iter().any(|t| t.norm == want.norm)),
            _ => true,
        }),
    }
}

/// Whether `w` is one token whose matching form is itself in lower case (ASCII letters and
/// digits): compared without cutting it into tokens.
fn is_plain(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The text of tokens `a..b` as said.
fn said(text: &str, toks: &[Token], a: usize, b: usize) -> String {
    match (toks.get(a), b.checked_sub(1).and_then(|l| toks.get(l))) {
        (Some(first), Some(last)) if b > a => text
            .get(first.start..last.end)
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// A way the pattern so far matched: where it ended, whether it used the event, and the
/// token ranges it captured.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    at: usize,
    event: bool,
    captures: Vec<(usize, usize)>,
    /// How many words wildcards took.
    wild: usize,
    /// How many words were said that the rule does not have.
    skipped: usize,
    /// The variables set on the way, with their values.
    sets: Vec<(String, String)>,
}

struct Matcher<'a> {
    toks: &'a [Token],
    event: Option<&'a str>,
    lookup: &'a dyn Lookup,
    steps: usize,
}

impl Matcher<'_> {
    /// The states after `nodes` in sequence, from each of `states` (deduplicated, in order).
    /// `depth`: how many concepts deep this is.
    fn seq(&mut self, nodes: &[PatternNode], mut states: Vec<State>, depth: usize) -> Vec<State> {
        for node in nodes {
            let mut next = Vec::new();
            for s in &states {
                for n in self.node(node, s, depth) {
                    if !next.contains(&n) {
                        next.push(n);
                    }
                }
            }
            states = next;
            if states.is_empty() {
                break;
            }
        }
        states
    }

    /// `pattern` in sequence from `from`, any words the rule does not have allowed before,
    /// between and after its parts (never inside one); a gap next to a `!word` may not hold
    /// that word.
    fn with_gaps(&mut self, pattern: &[PatternNode], from: State) -> Vec<State> {
        let mut states = vec![from];
        for (i, node) in pattern.iter().enumerate() {
            let before = i.checked_sub(1).and_then(|b| pattern.get(b));
            states = self.gap(states, before, Some(node));
            let mut next = Vec::new();
            for s in &states {
                for n in self.node(node, s, 0) {
                    if !next.contains(&n) {
                        next.push(n);
                    }
                }
            }
            states = next;
            if states.is_empty() {
                return states;
            }
        }
        self.gap(states, pattern.last(), None)
    }

    /// Each state, and each with words skipped after it (not those a neighbouring `!word`
    /// forbids).
    fn gap(
        &mut self,
        states: Vec<State>,
        before: Option<&PatternNode>,
        after: Option<&PatternNode>,
    ) -> Vec<State> {
        let forbidden: Vec<&PatternNode> = [before, after]
            .into_iter()
            .flatten()
            .filter_map(|n| match &n.kind {
                PatternKind::Not(inner) => Some(inner.as_ref()),
                _ => None,
            })
            .collect();
        // Where the next part can start: at its first word when it is a word; the gap after
        // the last part runs to the end.
        let first_word = match after.map(|n| &n.kind) {
            Some(PatternKind::Word(w)) if is_plain(w) => Some(w.to_ascii_lowercase()),
            Some(PatternKind::Word(w)) => tokens(w).into_iter().next().map(|t| t.norm),
            _ => None,
        };
        let n = self.toks.len();
        let mut out = Vec::new();
        for s in states {
            for end in s.at..=n {
                self.steps += 1;
                if self.steps > MAX_STEPS {
                    return out;
                }
                if end > s.at && self.forbids(&forbidden, end - 1) {
                    break;
                }
                let fits = match (after, &first_word) {
                    (None, _) => end == n,
                    (Some(_), Some(w)) => self.toks.get(end).is_some_and(|t| t.norm == *w),
                    (Some(_), None) => true,
                };
                if !fits {
                    continue;
                }
                let n = State {
                    at: end,
                    skipped: s.skipped + (end - s.at),
                    ..s.clone()
                };
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// Whether one of `forbidden` matches from token `p`.
    fn forbids(&mut self, forbidden: &[&PatternNode], p: usize) -> bool {
        let s = State {
            at: p,
            event: false,
            captures: Vec::new(),
            wild: 0,
            skipped: 0,
            sets: Vec::new(),
        };
        forbidden
            .iter()
            .any(|f| self.node(f, &s, 0).iter().any(|n| n.at > p))
    }

    /// The states after one node from `s`.
    fn node(&mut self, node: &PatternNode, s: &State, depth: usize) -> Vec<State> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Vec::new();
        }
        let at = |i: usize| State {
            at: i,
            wild: s.wild + (i - s.at),
            ..s.clone()
        };
        match &node.kind {
            PatternKind::Word(w) if is_plain(w) => match self.toks.get(s.at) {
                Some(t) if t.norm.eq_ignore_ascii_case(w) => vec![State {
                    at: s.at + 1,
                    ..s.clone()
                }],
                _ => Vec::new(),
            },
            PatternKind::Word(w) => self.literal(&words(w), s).into_iter().collect(),
            PatternKind::Phrase(nodes) => self.seq(nodes, vec![s.clone()], depth),
            PatternKind::Choice(items) => self.any(items, s, depth),
            PatternKind::Optional(items) => {
                let mut out = vec![s.clone()];
                for n in self.any(items, s, depth) {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
                out
            }
            PatternKind::Concept(name) => self.concept(name, s, depth),
            PatternKind::Wildcard => (s.at..=self.toks.len()).map(at).collect(),
            PatternKind::Capture(inner) => self
                .node(inner, s, depth)
                .into_iter()
                .map(|mut n| {
                    n.captures.insert(s.captures.len(), (s.at, n.at));
                    n
                })
                .collect(),
            PatternKind::Not(inner) => {
                if self.node(inner, s, depth).iter().any(|n| n.at > s.at) {
                    Vec::new()
                } else {
                    vec![s.clone()]
                }
            }
            PatternKind::Variable(name) => match self.lookup.variable(name) {
                Some(value) => self.literal(&words(&value), s).into_iter().collect(),
                None => Vec::new(),
            },
            PatternKind::Condition(c) => self.when(self.holds(c, s), s),
            PatternKind::Assign { variable, value } => vec![self.assign(variable, value, s)],
            PatternKind::Event(name) => match self.event {
                Some(e) if e == name && !s.event => vec![State {
                    event: true,
                    ..s.clone()
                }],
                Some(_) => Vec::new(),
                None => self.when(self.lookup.recent_event(name), s),
            },
            PatternKind::Tag(_) => vec![s.clone()],
            PatternKind::Function(f) => {
                let arg = match &f.args {
                    Args::List(a) => a.first().map(|a| a.trim().trim_start_matches('$')),
                    _ => None,
                };
                match (f.builtin, &f.args) {
                    (Some(Builtin::Repeat), Args::Choice(alternatives)) => {
                        self.repeat(alternatives, s, depth)
                    }
                    (_, Args::Choice(alternatives)) => self.alternatives(alternatives, s, depth),
                    (Some(Builtin::Exact | Builtin::LessPriority | Builtin::Private), _) => {
                        vec![s.clone()]
                    }
                    (Some(Builtin::Exist), _) => {
                        self.when(arg.and_then(|v| self.lookup.variable(v)).is_some(), s)
                    }
                    (Some(Builtin::NotExist), _) => {
                        self.when(arg.and_then(|v| self.lookup.variable(v)).is_none(), s)
                    }
                    (Some(Builtin::HasUserInfo), _) => {
                        self.when(arg.and_then(|v| self.lookup.user_info(v)).is_some(), s)
                    }
                    (Some(Builtin::GetUserInfo), _) => {
                        match arg.and_then(|v| self.lookup.user_info(v)) {
                            Some(value) => self.literal(&words(&value), s).into_iter().collect(),
                            None => Vec::new(),
                        }
                    }
                    _ => Vec::new(),
                }
            }
        }
    }

    /// `s` with `$variable=value` set, when the value can be worked out here.
    fn assign(&self, variable: &str, value: &Operand, s: &State) -> State {
        let mut n = s.clone();
        if let Some(v) = self.value(value, s) {
            n.sets.push((variable.to_string(), v));
        }
        n
    }

    /// `s` if `holds`, else nothing.
    fn when(&self, holds: bool, s: &State) -> Vec<State> {
        if holds { vec![s.clone()] } else { Vec::new() }
    }

    /// `want` said at `s`: the state after it.
    fn literal(&self, want: &[String], s: &State) -> Option<State> {
        let end = s.at + want.len();
        let here = self.toks.get(s.at..end)?;
        (!want.is_empty() && here.iter().zip(want).all(|(t, w)| t.norm == *w)).then(|| State {
            at: end,
            ..s.clone()
        })
    }

    /// One of `items` (each a node).
    fn any(&mut self, items: &[PatternNode], s: &State, depth: usize) -> Vec<State> {
        let mut out = Vec::new();
        for item in items {
            for n in self.node(item, s, depth) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// One of `alternatives` (each a sequence).
    fn alternatives(
        &mut self,
        alternatives: &[Alternative<PatternNode>],
        s: &State,
        depth: usize,
    ) -> Vec<State> {
        let mut out = Vec::new();
        for a in alternatives {
            for n in self.seq(&a.nodes, vec![s.clone()], depth) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// `^repeat[...]`: one to [`MAX_REPEAT`] of the alternatives, each taking words.
    fn repeat(
        &mut self,
        alternatives: &[Alternative<PatternNode>],
        s: &State,
        depth: usize,
    ) -> Vec<State> {
        let mut out = Vec::new();
        let mut frontier = vec![s.clone()];
        for _ in 0..MAX_REPEAT {
            let mut next = Vec::new();
            for f in &frontier {
                for n in self.alternatives(alternatives, f, depth) {
                    if n.at > f.at && !next.contains(&n) {
                        next.push(n);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            for n in &next {
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
            frontier = next;
        }
        out
    }

    /// Concept `name` at `s`: its body, or one of its dynamic phrases.
    fn concept(&mut self, name: &str, s: &State, depth: usize) -> Vec<State> {
        if depth >= MAX_CONCEPT_DEPTH {
            return Vec::new();
        }
        if let Some(body) = self.lookup.concept(name) {
            return self.seq(body, vec![s.clone()], depth + 1);
        }
        let phrases = self.lookup.dynamic(name).unwrap_or_default();
        let mut out = Vec::new();
        for p in phrases {
            if let Some(n) = self.literal(&words(&p), s)
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
        out
    }

    /// Whether condition `c` holds (numbers compared as numbers, anything else as text).
    fn holds(&self, c: &Condition, s: &State) -> bool {
        compare(c.op, self.value(&c.left, s), self.value(&c.right, s))
    }

    /// The text of operand `o` at `s`; `None` for an unset variable or capture, or a value
    /// to work out.
    fn value(&self, o: &Operand, s: &State) -> Option<String> {
        match o {
            Operand::Variable(v) => self.lookup.variable(v),
            Operand::CaptureRef(n) => usize::try_from(*n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| s.captures.get(i))
                .map(|&(a, b)| {
                    self.toks
                        .get(a..b)
                        .unwrap_or_default()
                        .iter()
                        .map(|t| t.norm.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                }),
            Operand::Literal(l) => Some(l.clone()),
            Operand::Output(_) => None,
        }
    }
}

/// Whether `a op b` holds: numbers compared as numbers, anything else as text ignoring case.
/// An unset side (`None`) makes it false whatever the operator: the 2.8 page's `^clear`
/// says "A condition with cleared variable is always false". The matcher's conditions and
/// the dialog's outputs read conditions so.
pub(crate) fn compare(op: CompareOp, a: Option<String>, b: Option<String>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let order = match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y),
        _ => Some(a.to_lowercase().cmp(&b.to_lowercase())),
    };
    match (op, order) {
        (CompareOp::Eq, o) => o == Some(std::cmp::Ordering::Equal),
        (CompareOp::Ne, o) => o != Some(std::cmp::Ordering::Equal),
        (_, None) => false,
        (CompareOp::Lt, Some(o)) => o.is_lt(),
        (CompareOp::Le, Some(o)) => o.is_le(),
        (CompareOp::Gt, Some(o)) => o.is_gt(),
        (CompareOp::Ge, Some(o)) => o.is_ge(),
    }
}

/// A topic's own concepts (no dynamic ones, no variables): enough to match its rules alone.
impl Lookup for crate::ast::Topic {
    fn concept(&self, name: &str) -> Option<&[PatternNode]> {
        self.concepts
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.body.as_slice())
    }
}
