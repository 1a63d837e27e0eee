//! Nodes written back as QiChat (normalised: one space between nodes), for messages such as
//! "matched u:(hello ~name)" and for tests.

use std::fmt::{self, Display, Formatter};

use crate::ast::*;

/// `items` with one space between them; an item written as nothing (a glue) joins its
/// neighbours.
fn joined<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    let mut space = false;
    for item in items {
        let text = item.to_string();
        if text.is_empty() {
            space = false;
            continue;
        }
        if space {
            f.write_str(" ")?;
        }
        f.write_str(&text)?;
        space = true;
    }
    Ok(())
}

/// A pattern or output sequence, written back with one space between nodes.
pub struct Seq<'a, T>(pub &'a [T]);

impl<T: Display> Display for Seq<'_, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        joined(f, self.0)
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Variable(v) => write!(f, "${v}"),
            Operand::CaptureRef(n) => write!(f, "${n}"),
            Operand::Literal(s) if s.is_empty() || s.contains(char::is_whitespace) => {
                write!(f, "\"{s}\"")
            }
            Operand::Literal(s) => f.write_str(s),
            Operand::Output(nodes) => write!(f, "\"{}\"", Seq(nodes)),
        }
    }
}

impl Display for CompareOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        })
    }
}

impl Display for Condition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.left, self.op, self.right)
    }
}

impl<N: Display> Display for Alternative<N> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.quoted {
            f.write_str("\"")?;
            joined(f, &self.nodes)?;
            f.write_str("\"")
        } else {
            joined(f, &self.nodes)
        }
    }
}

impl<N: Display> Display for Function<N> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "^{}", self.name)?;
        match &self.args {
            Args::None => Ok(()),
            Args::List(args) => write!(f, "({})", args.join(", ")),
            Args::Choice(alts) => {
                f.write_str("[")?;
                joined(f, alts)?;
                f.write_str("]")
            }
        }
    }
}

impl Display for PatternNode {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let group = |f: &mut Formatter<'_>, open: &str, items: &[PatternNode], close: &str| {
            f.write_str(open)?;
            joined(f, items)?;
            f.write_str(close)
        };
        match &self.kind {
            PatternKind::Word(w) => f.write_str(w),
            PatternKind::Phrase(items) => group(f, "\"", items, "\""),
            PatternKind::Choice(items) => group(f, "[", items, "]"),
            PatternKind::Optional(items) => group(f, "{", items, "}"),
            PatternKind::Concept(c) => write!(f, "~{c}"),
            PatternKind::Wildcard => f.write_str("*"),
            PatternKind::Capture(inner) => write!(f, "_{inner}"),
            PatternKind::Not(inner) => write!(f, "!{inner}"),
            PatternKind::Variable(v) => write!(f, "${v}"),
            PatternKind::Condition(c) => write!(f, "{c}"),
            PatternKind::Assign { variable, value } => write!(f, "${variable}={value}"),
            PatternKind::Event(e) => write!(f, "e:{e}"),
            PatternKind::Tag(t) => write!(f, "%{t}"),
            PatternKind::Function(func) => write!(f, "{func}"),
        }
    }
}

impl Display for OutputNode {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            OutputKind::Text(t) => f.write_str(t),
            OutputKind::CaptureRef(n) => write!(f, "${n}"),
            OutputKind::Variable(v) => write!(f, "${v}"),
            OutputKind::Assign { variable, value } => write!(f, "${variable}={value}"),
            OutputKind::Condition(c) => write!(f, "{c}"),
            OutputKind::Choice(alts) => {
                f.write_str("[")?;
                joined(f, alts)?;
                f.write_str("]")
            }
            OutputKind::Optional(alts) => {
                f.write_str("{")?;
                joined(f, alts)?;
                f.write_str("}")
            }
            OutputKind::Concept(c) => write!(f, "~{c}"),
            OutputKind::Bookmark(b) => write!(f, "%{b}"),
            OutputKind::Function(func) => write!(f, "{func}"),
            OutputKind::Script(s) => write!(f, "%script\n{s}%script\n"),
            OutputKind::Glue => Ok(()),
        }
    }
}

impl Display for Rule {
    /// The rule's first line: keyword, modifiers, pattern and output (subrules not shown).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (self.kind, self.level) {
            (RuleKind::User, 0) => f.write_str("u:")?,
            (RuleKind::User, n) => write!(f, "u{n}:")?,
            (RuleKind::CallResult, n) => write!(f, "c{n}:")?,
            (RuleKind::CallError, n) => write!(f, "e{n}:")?,
            (RuleKind::Learning, _) => f.write_str("l:")?,
            (RuleKind::Skin, _) => f.write_str("s:")?,
            (RuleKind::Proposal, _) => f.write_str("proposal:")?,
            (RuleKind::Event, _) => f.write_str("e:")?,
        }
        for m in &self.modifiers {
            write!(f, "{m}")?;
        }
        match self.kind {
            RuleKind::User | RuleKind::CallResult | RuleKind::Learning | RuleKind::Skin => {
                write!(f, "({})", Seq(&self.pattern))?
            }
            RuleKind::Event => write!(
                f,
                "({})",
                Seq(&self.pattern).to_string().trim_start_matches("e:")
            )?,
            RuleKind::Proposal | RuleKind::CallError => {}
        }
        if !self.output.is_empty() {
            write!(f, " {}", Seq(&self.output))?;
        }
        Ok(())
    }
}
