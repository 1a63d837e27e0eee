//! Matching what the human said against a rule's pattern: the input side of the dialog
//! engine (issue 14, part 2, started).
//!
//! The input is cut into words, lower-cased and stripped of punctuation (`Hello, Pepper!` →
//! `hello pepper`), and the pattern must match all of it. Each node matches a run of words:
//!
//! | node | matches |
//! |---|---|
//! | a word | that word, in any case, punctuation ignored |
//! | `"a b"` | those words in that order |
//! | `[a b]` | one of the items |
//! | `{a b}` | nothing, or one of the items (NAOqi reads several items as a choice) |
//! | `~name` | the concept's body (static), or one of its phrases (dynamic, `setConcept`) |
//! | `*` | any words, none included |
//! | `_x` | what `x` matches, kept as the next capture (`$1`, `$2`, ... in order) |
//! | `!word` | nothing, where the next word is not `word` (a negative look-ahead) |
//! | `$var` | the variable's value, as words |
//! | `$var==x` (and the other comparisons) | nothing, where the condition holds |
//! | `^rand[...]`, `^first[...]` in a concept | one of the items |
//! | `e:Name`, other functions | never (events are not said) |
//!
//! Where several ways match, the first found wins: items in written order, a wildcard
//! shortest first. The work is bounded: concepts nest [`MAX_CONCEPT_DEPTH`] deep at most
//! (a concept that names itself matches nothing more), and a match gives up after
//! [`MAX_STEPS`] steps, however the pattern and input combine.

use crate::ast::{Alternative, Args, CompareOp, Condition, Operand, PatternKind, PatternNode};

/// How deep concepts may name concepts before a match stops expanding them.
pub const MAX_CONCEPT_DEPTH: usize = 16;

/// How many node matches one pattern may try against one input.
pub const MAX_STEPS: usize = 100_000;

/// What a pattern refers to that lives outside it: concepts and variables.
pub trait Lookup {
    /// The body of static concept `name`.
    fn concept(&self, name: &str) -> Option<&[PatternNode]>;

    /// The phrases of dynamic concept `name` (set by `ALDialog.setConcept`).
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        let _ = name;
        None
    }

    /// The value of variable `$name`, as text.
    fn variable(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
}

/// A sentence `pattern` matches, if one is easy to tell: each choice's first item, no
/// optional part, nothing for a wildcard, a concept's first phrase, a variable's value. `None`
/// when the pattern needs what cannot be said (an event, a function, a condition, an unset
/// variable, a concept more than [`MAX_CONCEPT_DEPTH`] deep). Checked against
/// [`match_pattern`] before it is given. For tests and tools that probe a topic.
pub fn example(pattern: &[PatternNode], lookup: &dyn Lookup) -> Option<String> {
    let mut words = Vec::new();
    // Nodes to say, in order, with their concept depth; no recursion.
    let mut todo: Vec<(&PatternNode, usize)> = pattern.iter().rev().map(|n| (n, 0)).collect();
    while let Some((node, depth)) = todo.pop() {
        match &node.kind {
            PatternKind::Word(w) => words.push(w.clone()),
            PatternKind::Phrase(items) => todo.extend(items.iter().rev().map(|n| (n, depth))),
            PatternKind::Choice(items) => todo.push((items.first()?, depth)),
            PatternKind::Optional(_) | PatternKind::Wildcard | PatternKind::Not(_) => {}
            PatternKind::Concept(c) if depth < MAX_CONCEPT_DEPTH => match lookup.concept(c) {
                Some(body) => todo.extend(body.iter().rev().map(|n| (n, depth + 1))),
                None => words.push(lookup.dynamic(c)?.into_iter().next()?),
            },
            PatternKind::Capture(inner) => todo.push((inner, depth)),
            PatternKind::Variable(v) => words.push(lookup.variable(v)?),
            PatternKind::Function(f) => match &f.args {
                Args::Choice(alternatives) => {
                    let first = alternatives.first()?;
                    todo.extend(first.nodes.iter().rev().map(|n| (n, depth)));
                }
                _ => return None,
            },
            PatternKind::Concept(_) | PatternKind::Condition(_) | PatternKind::Event(_) => {
                return None;
            }
        }
    }
    let said = words.join(" ");
    match_pattern(pattern, &said, lookup).map(|_| said)
}

/// A successful match: the captures, in order (`$1` first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// What each `_` captured, its words joined by one space.
    pub captures: Vec<String>,
}

/// The words of `text` as matching sees them: lower-case, punctuation dropped (an
/// apostrophe or hyphen inside a word is kept).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '!' | '?' | ';' | ':' | '"'))
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '\'' | '-' | '(' | ')'))
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `pattern` matches all of `input`, and with which captures.
pub fn match_pattern(pattern: &[PatternNode], input: &str, lookup: &dyn Lookup) -> Option<Match> {
    let words = words(input);
    let mut m = Matcher {
        words: &words,
        lookup,
        steps: 0,
    };
    let start = State {
        at: 0,
        captures: Vec::new(),
    };
    m.seq(pattern, vec![start], 0)
        .into_iter()
        .find(|s| s.at == words.len())
        .map(|s| Match {
            captures: s.captures,
        })
}

/// A way the pattern so far matched: where it ended and what it captured.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    at: usize,
    captures: Vec<String>,
}

struct Matcher<'a> {
    words: &'a [String],
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

    /// The states after one node from `s`.
    fn node(&mut self, node: &PatternNode, s: &State, depth: usize) -> Vec<State> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Vec::new();
        }
        let at = |i: usize| State {
            at: i,
            captures: s.captures.clone(),
        };
        match &node.kind {
            PatternKind::Word(w) => {
                let want = words(w);
                self.literal(&want, s).into_iter().collect()
            }
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
            PatternKind::Wildcard => (s.at..=self.words.len()).map(at).collect(),
            PatternKind::Capture(inner) => self
                .node(inner, s, depth)
                .into_iter()
                .map(|mut n| {
                    let said = self.words.get(s.at..n.at).unwrap_or_default().join(" ");
                    n.captures.insert(s.captures.len(), said);
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
            PatternKind::Condition(c) => {
                if self.holds(c, s) {
                    vec![s.clone()]
                } else {
                    Vec::new()
                }
            }
            PatternKind::Function(f) => match &f.args {
                Args::Choice(alternatives) => self.alternatives(alternatives, s, depth),
                Args::None | Args::List(_) => Vec::new(),
            },
            PatternKind::Event(_) => Vec::new(),
        }
    }

    /// `want` said at `s`: the state after it.
    fn literal(&self, want: &[String], s: &State) -> Option<State> {
        let end = s.at + want.len();
        (self.words.get(s.at..end) == Some(want)).then(|| State {
            at: end,
            captures: s.captures.clone(),
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
        let value = |o: &Operand| match o {
            Operand::Variable(v) => self.lookup.variable(v),
            Operand::CaptureRef(n) => usize::try_from(*n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| s.captures.get(i).cloned()),
            Operand::Literal(l) => Some(l.clone()),
        };
        compare(c.op, value(&c.left), value(&c.right))
    }
}

/// Whether `a op b` holds: numbers compared as numbers, anything else as text ignoring case;
/// an unset side (`None`) satisfies only "not equal". The matcher's conditions and the
/// dialog's outputs read conditions so.
pub(crate) fn compare(op: CompareOp, a: Option<String>, b: Option<String>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return op == CompareOp::Ne;
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
