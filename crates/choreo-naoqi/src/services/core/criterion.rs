//! The criteria of `ALWorldRepresentation.select`: the WHERE clause of an SQL query over an
//! attribute's fields (`Name='Robert' AND Age=42`). What is read: comparisons of a field and
//! a value (a number, a string in single or double quotes, another field) with `=`, `==`,
//! `!=`, `<>`, `<`, `<=`, `>`, `>=`; `AND`, `OR`, `NOT` and parentheses; an empty criterion
//! matches every record. A comparison between a number and a string, or with a field the
//! record lacks, is false, as SQL's NULL makes it.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use choreo_engine::Value;

use crate::robot::args::number;

/// A parsed criterion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Criterion {
    /// Every record.
    All,
    /// Both.
    And(Box<Criterion>, Box<Criterion>),
    /// Either.
    Or(Box<Criterion>, Box<Criterion>),
    /// Not this.
    Not(Box<Criterion>),
    /// `left op right`.
    Compare(Operand, Op, Operand),
}

/// A side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operand {
    /// A field's value.
    Field(String),
    /// A literal.
    Literal(Value),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Op {
    /// `=`, `==`.
    Eq,
    /// `!=`, `<>`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// Why a criterion does not parse: what is wrong, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Syntax(String);

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Str(String),
    Num(f64),
    Op(Op),
    Open,
    Close,
}

fn tokens(text: &str) -> Result<Vec<Token>, Syntax> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            '\'' | '"' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&d| d == c)
                    .ok_or_else(|| Syntax(format!("a string not closed at character {}", i + 1)))?;
                out.push(Token::Str(chars[i + 1..i + 1 + end].iter().collect()));
                i += end + 2;
            }
            '=' | '!' | '<' | '>' => {
                let next = chars.get(i + 1).copied();
                let (op, len) = match (c, next) {
                    ('=', Some('=')) => (Op::Eq, 2),
                    ('=', _) => (Op::Eq, 1),
                    ('!', Some('=')) | ('<', Some('>')) => (Op::Ne, 2),
                    ('<', Some('=')) => (Op::Le, 2),
                    ('>', Some('=')) => (Op::Ge, 2),
                    ('<', _) => (Op::Lt, 1),
                    ('>', _) => (Op::Gt, 1),
                    _ => return Err(Syntax(format!("unexpected {c:?} at character {}", i + 1))),
                };
                out.push(Token::Op(op));
                i += len;
            }
            c if c.is_ascii_digit() || c == '-' || c == '.' => {
                let len = chars[i + 1..]
                    .iter()
                    .position(|d| !(d.is_ascii_digit() || *d == '.' || *d == 'e' || *d == 'E'))
                    .unwrap_or(chars.len() - i - 1)
                    + 1;
                let text: String = chars[i..i + len].iter().collect();
                let x = text
                    .parse::<f64>()
                    .map_err(|_| Syntax(format!("{text:?} is not a number")))?;
                out.push(Token::Num(x));
                i += len;
            }
            c if c.is_alphanumeric() || c == '_' => {
                let len = chars[i..]
                    .iter()
                    .position(|d| !(d.is_alphanumeric() || *d == '_'))
                    .unwrap_or(chars.len() - i);
                out.push(Token::Word(chars[i..i + len].iter().collect()));
                i += len;
            }
            _ => return Err(Syntax(format!("unexpected {c:?} at character {}", i + 1))),
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek_word(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn or(&mut self) -> Result<Criterion, Syntax> {
        let mut left = self.and()?;
        while self.peek_word("OR") {
            self.at += 1;
            left = Criterion::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Criterion, Syntax> {
        let mut left = self.not()?;
        while self.peek_word("AND") {
            self.at += 1;
            left = Criterion::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Criterion, Syntax> {
        if self.peek_word("NOT") {
            self.at += 1;
            return Ok(Criterion::Not(Box::new(self.not()?)));
        }
        if self.tokens.get(self.at) == Some(&Token::Open) {
            self.at += 1;
            let inner = self.or()?;
            if self.tokens.get(self.at) != Some(&Token::Close) {
                return Err(Syntax("a parenthesis not closed".into()));
            }
            self.at += 1;
            return Ok(inner);
        }
        let left = self.operand()?;
        let Some(Token::Op(op)) = self.tokens.get(self.at).cloned() else {
            return Err(Syntax(
                "a comparison needs an operator (=, <>, <, <=, >, >=)".into(),
            ));
        };
        self.at += 1;
        Ok(Criterion::Compare(left, op, self.operand()?))
    }

    fn operand(&mut self) -> Result<Operand, Syntax> {
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or_else(|| Syntax("the criterion ends too early".into()))?;
        self.at += 1;
        Ok(match token {
            Token::Word(w) => Operand::Field(w),
            Token::Str(s) => Operand::Literal(Value::String(s)),
            Token::Num(x) => Operand::Literal(Value::Float(x)),
            other => return Err(Syntax(format!("unexpected {other:?}"))),
        })
    }
}

impl Criterion {
    /// Reads `text`.
    pub fn parse(text: &str) -> Result<Criterion, Syntax> {
        let tokens = tokens(text)?;
        if tokens.is_empty() {
            return Ok(Criterion::All);
        }
        let mut parser = Parser { tokens, at: 0 };
        let criterion = parser.or()?;
        if parser.at != parser.tokens.len() {
            return Err(Syntax(format!(
                "unexpected {:?} after the criterion",
                parser.tokens[parser.at]
            )));
        }
        Ok(criterion)
    }

    /// Whether `record` (field → value) matches.
    pub fn matches(&self, record: &BTreeMap<String, Value>) -> bool {
        match self {
            Criterion::All => true,
            Criterion::And(a, b) => a.matches(record) && b.matches(record),
            Criterion::Or(a, b) => a.matches(record) || b.matches(record),
            Criterion::Not(c) => !c.matches(record),
            Criterion::Compare(left, op, right) => {
                let value = |o: &Operand| match o {
                    Operand::Field(f) => record.get(f).cloned(),
                    Operand::Literal(v) => Some(v.clone()),
                };
                let (Some(l), Some(r)) = (value(left), value(right)) else {
                    return false;
                };
                compare(&l, &r).is_some_and(|o| match op {
                    Op::Eq => o == Ordering::Equal,
                    Op::Ne => o != Ordering::Equal,
                    Op::Lt => o == Ordering::Less,
                    Op::Le => o != Ordering::Greater,
                    Op::Gt => o == Ordering::Greater,
                    Op::Ge => o != Ordering::Less,
                })
            }
        }
    }
}

/// How two field values compare: numbers by value, strings as text; `None` between kinds.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn record(items: &[(&str, Value)]) -> BTreeMap<String, Value> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn reads_the_where_clauses_of_the_documentation() {
        let robert = record(&[("Name", Value::from("Robert")), ("Age", Value::Int(42))]);
        let anna = record(&[("Name", Value::from("Anna")), ("Age", Value::Int(7))]);
        let c = Criterion::parse("Name='Robert' AND Age=42").unwrap();
        assert!(c.matches(&robert) && !c.matches(&anna));
        let c = Criterion::parse("Age < 10 OR (Name = \"Robert\" AND NOT Age <> 42)").unwrap();
        assert!(c.matches(&robert) && c.matches(&anna));
        assert!(Criterion::parse("").unwrap().matches(&anna));
        assert!(!Criterion::parse("Height > 1").unwrap().matches(&anna));
        assert!(Criterion::parse("Name = 'x").is_err());
        assert!(Criterion::parse("Name 'x'").is_err());
        assert!(Criterion::parse("(Age = 1").is_err());
    }
}
