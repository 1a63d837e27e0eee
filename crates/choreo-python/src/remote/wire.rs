//! The bytes of the box host's messages: little-endian numbers, length-prefixed text and
//! bytes, and [`Value`]s with a tag each.
//!
//! The trusted side reads what box code's process wrote, so [`Reader`] treats every byte as
//! hostile: each length is checked against the bytes left before anything is allocated,
//! nesting is bounded ([`MAX_DEPTH`]), and nothing panics. A message that breaks a rule is a
//! [`WireError`], and the trusted side then stops the box host.

use choreo_base::Value;

/// The deepest nesting of lists, tuples and maps a value may have (as qi's codec allows).
pub const MAX_DEPTH: usize = 64;

/// A message that does not read as the protocol says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the box host's message is malformed: {0}")]
pub struct WireError(pub String);

fn bad(what: impl Into<String>) -> WireError {
    WireError(what.into())
}

/// Writes a message.
#[derive(Default)]
pub struct Writer {
    /// The bytes so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A message starting with `tag`.
    pub fn tagged(tag: u8) -> Writer {
        let mut w = Writer {
            bytes: Vec::with_capacity(64),
        };
        w.u8(tag);
        w
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    /// A boolean, one byte.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// Four bytes.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes.
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A length: four bytes (no message nears 4 GiB; the frame's bound is far lower).
    pub fn len(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Bytes, after their length.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.len(v.len());
        self.bytes.extend_from_slice(v);
        self
    }

    /// Text, as its UTF-8 bytes.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.bytes(v.as_bytes())
    }

    /// A list of texts.
    pub fn strs<S: AsRef<str>>(&mut self, v: &[S]) -> &mut Self {
        self.len(v.len());
        for s in v {
            self.str(s.as_ref());
        }
        self
    }

    /// An optional text.
    pub fn opt_str(&mut self, v: Option<&str>) -> &mut Self {
        match v {
            Some(s) => self.u8(1).str(s),
            None => self.u8(0),
        }
    }

    /// An optional number.
    pub fn opt_u64(&mut self, v: Option<u64>) -> &mut Self {
        match v {
            Some(n) => self.u8(1).u64(n),
            None => self.u8(0),
        }
    }

    /// A value, each with its tag (its nesting is the caller's: values made by choreo or
    /// read by [`Reader::value`] are never deeper than [`MAX_DEPTH`] + a little, and
    /// Python's conversion bounds its own).
    pub fn value(&mut self, v: &Value) -> &mut Self {
        match v {
            Value::None => self.u8(0),
            Value::Bool(b) => self.u8(1).bool(*b),
            Value::Int(i) => self.u8(2).i64(*i),
            Value::UInt(u) => self.u8(3).u64(*u),
            Value::Float(f) => self.u8(4).u64(f.to_bits()),
            Value::String(s) => self.u8(5).str(s),
            Value::Raw(b) => self.u8(6).bytes(b),
            Value::List(items) => self.u8(7).values(items),
            Value::Tuple(items) => self.u8(8).values(items),
            Value::Map(pairs) => {
                self.u8(9).len(pairs.len());
                for (k, v) in pairs {
                    self.value(k).value(v);
                }
                self
            }
        }
    }

    /// Values, after their count.
    pub fn values(&mut self, items: &[Value]) -> &mut Self {
        self.len(items.len());
        for item in items {
            self.value(item);
        }
        self
    }
}

/// Reads a message, checking every length and bound.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Reads `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| bad(format!("{n} bytes wanted, {} left", self.left())))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    /// A boolean: 0 or 1.
    pub fn bool(&mut self) -> Result<bool, WireError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(bad(format!("{b} is no boolean"))),
        }
    }

    /// Four bytes.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Eight bytes.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Eight bytes.
    pub fn i64(&mut self) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A count of items each at least `min_size` bytes long: never more than the bytes left
    /// could hold, so a forged count allocates nothing.
    pub fn count(&mut self, min_size: usize) -> Result<usize, WireError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size.max(1)) > self.left() {
            return Err(bad(format!(
                "{n} items cannot fit in {} bytes",
                self.left()
            )));
        }
        Ok(n)
    }

    /// Bytes, after their length.
    pub fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.count(1)?;
        self.take(n)
    }

    /// Text.
    pub fn str(&mut self) -> Result<String, WireError> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| bad("text that is not UTF-8"))
    }

    /// A list of texts.
    pub fn strs(&mut self) -> Result<Vec<String>, WireError> {
        let n = self.count(4)?;
        (0..n).map(|_| self.str()).collect()
    }

    /// An optional text.
    pub fn opt_str(&mut self) -> Result<Option<String>, WireError> {
        Ok(if self.bool()? {
            Some(self.str()?)
        } else {
            None
        })
    }

    /// An optional number.
    pub fn opt_u64(&mut self) -> Result<Option<u64>, WireError> {
        Ok(if self.bool()? {
            Some(self.u64()?)
        } else {
            None
        })
    }

    /// A value, nested at most [`MAX_DEPTH`] deep.
    pub fn value(&mut self) -> Result<Value, WireError> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: usize) -> Result<Value, WireError> {
        if depth > MAX_DEPTH {
            return Err(bad("a value nested too deeply"));
        }
        Ok(match self.u8()? {
            0 => Value::None,
            1 => Value::Bool(self.bool()?),
            2 => Value::Int(self.i64()?),
            3 => Value::UInt(self.u64()?),
            4 => Value::Float(f64::from_bits(self.u64()?)),
            5 => Value::String(self.str()?),
            6 => Value::Raw(self.bytes()?.to_vec()),
            7 => Value::List(self.values_at(depth + 1)?),
            8 => Value::Tuple(self.values_at(depth + 1)?),
            9 => {
                let n = self.count(2)?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    pairs.push((self.value_at(depth + 1)?, self.value_at(depth + 1)?));
                }
                Value::Map(pairs)
            }
            t => return Err(bad(format!("no value has tag {t}"))),
        })
    }

    /// Values, after their count.
    pub fn values(&mut self) -> Result<Vec<Value>, WireError> {
        self.values_at(0)
    }

    fn values_at(&mut self, depth: usize) -> Result<Vec<Value>, WireError> {
        let n = self.count(1)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.value_at(depth)?);
        }
        Ok(items)
    }

    /// The message is over: bytes left after it are an error.
    pub fn finish(&self) -> Result<(), WireError> {
        match self.left() {
            0 => Ok(()),
            n => Err(bad(format!("{n} bytes after the message"))),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test's unwrap is its assertion
mod tests {
    use super::*;

    #[test]
    fn a_value_of_every_kind_reads_back() {
        let v = Value::Map(vec![
            (Value::String("é".into()), Value::List(vec![Value::None])),
            (
                Value::Int(-3),
                Value::Tuple(vec![
                    Value::Bool(true),
                    Value::UInt(u64::MAX),
                    Value::Float(0.1),
                    Value::Raw(vec![0, 255]),
                ]),
            ),
        ]);
        let mut w = Writer::default();
        w.value(&v);
        let mut r = Reader::new(&w.bytes);
        assert_eq!(r.value().unwrap(), v);
        r.finish().unwrap();
    }

    #[test]
    fn a_forged_count_allocates_nothing_and_deep_nesting_is_refused() {
        // A list claiming 4 billion items in 5 bytes.
        let forged = [7, 0xff, 0xff, 0xff, 0xff];
        assert!(Reader::new(&forged).value().is_err());
        // 65 lists deep, then None.
        let mut deep = Vec::new();
        for _ in 0..=MAX_DEPTH {
            deep.extend_from_slice(&[7, 1, 0, 0, 0]);
        }
        deep.push(0);
        let e = Reader::new(&deep).value().unwrap_err();
        assert!(e.0.contains("deeply"), "{e}");
        // Every prefix of a good message fails cleanly.
        let mut w = Writer::default();
        w.value(&Value::List(vec![
            Value::String("abc".into()),
            Value::Int(1),
        ]));
        for n in 0..w.bytes.len() {
            assert!(Reader::new(&w.bytes[..n]).value().is_err(), "prefix {n}");
        }
    }
}
