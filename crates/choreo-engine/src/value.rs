//! The one dynamic value type of choreo: what flows along links, comes back from robot
//! calls, and crosses into Python and the qi codec (like qi's AnyValue).

use std::fmt;

/// A dynamic value.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// No value: what a bang carries, Python's `None`.
    #[default]
    None,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// An unsigned integer above `i64::MAX` (a qi `L`): every qi integer is held exactly.
    /// Smaller ones are [`Value::Int`].
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// Text.
    String(String),
    /// Bytes.
    Raw(Vec<u8>),
    /// A list of values.
    List(Vec<Value>),
    /// A map, in insertion order.
    Map(Vec<(Value, Value)>),
    /// A tuple (a fixed-size, mixed-type list).
    Tuple(Vec<Value>),
}

impl fmt::Display for Value {
    /// A short, Python-like rendering for traces and logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => write!(f, "None"),
            Value::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Raw(b) => write!(f, "<{} bytes>", b.len()),
            Value::List(v) | Value::Tuple(v) => {
                let (open, close) = if matches!(self, Value::List(_)) {
                    ('[', ']')
                } else {
                    ('(', ')')
                };
                write!(f, "{open}")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, "{close}")
            }
            Value::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
