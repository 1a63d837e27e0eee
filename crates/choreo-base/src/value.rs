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

impl Value {
    /// Lets go of the value. A `None`, which owns nothing, goes without a call to the drop
    /// of every kind of value (a signal hop lets go of one or two).
    #[inline(always)]
    pub fn discard(self) {
        if matches!(self, Value::None) {
            std::mem::forget(self);
        }
    }

    /// This value when it is small (at most `budget` parts: each scalar one, text and bytes
    /// one per 64), else a short text saying what it was (`<list of 3000 items>`): what a
    /// trace keeps of a robot call's result, so that an image or a long list does not fill
    /// it. Counted without recursion, stopping at the budget.
    pub fn brief(&self, budget: usize) -> Value {
        let mut cost = 0usize;
        let mut todo = vec![self];
        while let Some(v) = todo.pop() {
            cost += 1;
            match v {
                Value::String(s) => cost += s.len() / 64,
                Value::Raw(b) => cost += b.len() / 64,
                Value::List(items) | Value::Tuple(items) => todo.extend(items),
                Value::Map(pairs) => todo.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
                _ => {}
            }
            if cost > budget {
                return Value::String(match self {
                    Value::String(s) => format!("<text of {} characters>", s.chars().count()),
                    Value::Raw(b) => format!("<{} bytes>", b.len()),
                    Value::List(items) => format!("<list of {} items>", items.len()),
                    Value::Tuple(items) => format!("<tuple of {} items>", items.len()),
                    Value::Map(pairs) => format!("<map of {} entries>", pairs.len()),
                    other => other.to_string(),
                });
            }
        }
        self.clone()
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i64::from(i))
    }
}

impl From<()> for Value {
    /// A bang (an input or output of type "bang" carries nothing).
    fn from((): ()) -> Value {
        Value::None
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

/// Read back from the self-describing data `Serialize` writes (JSON): what a format says
/// keeps its kind (a `1.0` stays a float, an integer above `i64::MAX` a [`Value::UInt`]);
/// what it cannot say comes back as the nearest kind (a tuple or bytes as a list, a map as
/// the list of its pairs; an object's keys as strings). Nesting is bounded by the format's reader (serde_json: 128).
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> serde::de::Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(i64::try_from(u).map_or(Value::UInt(u), Value::Int))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Float(x))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::None)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::None)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut pairs = Vec::new();
        while let Some(pair) = map.next_entry()? {
            pairs.push(pair);
        }
        Ok(Value::Map(pairs))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::Value;

    /// What JSON says comes back as written: kinds kept, a float a float.
    #[test]
    fn json_reads_back_as_the_value_written() {
        let v = Value::List(vec![
            Value::None,
            Value::Bool(true),
            Value::Int(-3),
            Value::UInt(u64::MAX),
            Value::Float(1.0),
            Value::from("é"),
            Value::List(vec![Value::Float(0.35)]),
        ]);
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        let map: Value = serde_json::from_str(r#"{"a": 1}"#).unwrap();
        assert_eq!(map, Value::Map(vec![(Value::from("a"), Value::Int(1))]));
    }

    #[test]
    fn a_small_value_is_kept_whole_and_a_big_one_said_in_brief() {
        let small = Value::List(vec![Value::Int(1), Value::from("two"), Value::Float(3.0)]);
        assert_eq!(small.brief(64), small);
        let big = Value::List((0..3000).map(Value::Int).collect());
        assert_eq!(big.brief(64), Value::from("<list of 3000 items>"));
        assert_eq!(
            Value::Raw(vec![0; 640 * 480]).brief(64),
            Value::from("<307200 bytes>")
        );
        let text = "a".repeat(10_000);
        assert_eq!(
            Value::String(text).brief(64),
            Value::from("<text of 10000 characters>")
        );
        // Nested 10,000 deep, looked at on a thread with a 64 KiB stack: counted without
        // recursion (one that recursed would overflow there).
        let mut deep = Value::None;
        for _ in 0..10_000 {
            deep = Value::List(vec![deep]);
        }
        let (brief, mut deep) = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || (deep.brief(64), deep))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(brief, Value::from("<list of 1 items>"));
        // Taken apart without recursion too (dropping it whole would recurse).
        while let Value::List(mut items) = deep {
            deep = items.pop().unwrap_or_default();
        }
    }
}
