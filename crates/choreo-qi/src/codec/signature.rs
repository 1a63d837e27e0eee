//! Type signatures (qi-protocol.md §5 "Grammar"): parsing and printing.
//!
//! Signatures travel inside values (every `m`, MetaMethod fields), so the parser faces
//! network bytes: it is iterative over the text, bounded in depth, and never panics.

use std::fmt;

use crate::error::Error;

/// Deepest nesting accepted in a signature (and, in the codec, of `m` values).
pub const MAX_DEPTH: usize = 64;

/// A parsed type signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Signature {
    /// `v`: nothing (return type only).
    Void,
    /// `_`: none, the element type of empty dynamic containers.
    None,
    /// `b`
    Bool,
    /// `c`
    Int8,
    /// `C`
    UInt8,
    /// `w`
    Int16,
    /// `W`
    UInt16,
    /// `i`
    Int32,
    /// `I`
    UInt32,
    /// `l`
    Int64,
    /// `L`
    UInt64,
    /// `f`
    Float,
    /// `d`
    Double,
    /// `s`
    String,
    /// `r`: raw bytes.
    Raw,
    /// `m`: a dynamic value carrying its own signature.
    Dynamic,
    /// `o`: an object reference.
    Object,
    /// `X`: unknown (not serializable).
    Unknown,
    /// `*`: pointer (not serializable).
    Pointer,
    /// `~`: keyword arguments (not serializable).
    KwArgs,
    /// `[T]`
    List(Box<Signature>),
    /// `#T`: varargs, encoded like a list.
    VarArgs(Box<Signature>),
    /// `{KV}`
    Map(Box<Signature>, Box<Signature>),
    /// `(T…)`, with its optional `<Name,field,…>` annotation (names only; bytes unchanged).
    Tuple(Vec<Signature>, Option<String>),
    /// `+T`
    Optional(Box<Signature>),
}

impl Signature {
    /// Parses a whole signature string.
    pub fn parse(text: &str) -> Result<Signature, Error> {
        let bytes = text.as_bytes();
        let (sig, end) = parse_at(bytes, 0, 0)?;
        if end != bytes.len() {
            return Err(bad(bytes, end, "trailing characters"));
        }
        Ok(sig)
    }

    /// An unannotated tuple of `fields`.
    pub fn tuple(fields: Vec<Signature>) -> Signature {
        Signature::Tuple(fields, None)
    }

    /// The fields of a tuple signature (a parameter list); `None` for other kinds.
    pub fn fields(&self) -> Option<&[Signature]> {
        match self {
            Signature::Tuple(f, _) => Some(f),
            _ => None,
        }
    }

    /// The fewest bytes a value of this type takes on the wire.
    pub fn min_size(&self) -> usize {
        match self {
            Signature::Void | Signature::None => 0,
            Signature::Bool | Signature::Int8 | Signature::UInt8 | Signature::Optional(_) => 1,
            Signature::Int16 | Signature::UInt16 => 2,
            Signature::Int32 | Signature::UInt32 | Signature::Float => 4,
            Signature::Int64 | Signature::UInt64 | Signature::Double => 8,
            Signature::String
            | Signature::Raw
            | Signature::Dynamic
            | Signature::List(_)
            | Signature::VarArgs(_)
            | Signature::Map(..) => 4,
            Signature::Tuple(f, _) => f.iter().map(Signature::min_size).sum(),
            // MetaObject (4 maps + a string) and two ids.
            Signature::Object => 28,
            Signature::Unknown | Signature::Pointer | Signature::KwArgs => 0,
        }
    }
}

fn bad(text: &[u8], at: usize, why: &str) -> Error {
    let text = String::from_utf8_lossy(text);
    Error::Type(format!("bad signature {text:?} at {at}: {why}"))
}

fn parse_at(b: &[u8], at: usize, depth: usize) -> Result<(Signature, usize), Error> {
    if depth > MAX_DEPTH {
        return Err(bad(b, at, "nested too deeply"));
    }
    let Some(&c) = b.get(at) else {
        return Err(bad(b, at, "unexpected end"));
    };
    let simple = match c {
        b'v' => Some(Signature::Void),
        b'_' => Some(Signature::None),
        b'b' => Some(Signature::Bool),
        b'c' => Some(Signature::Int8),
        b'C' => Some(Signature::UInt8),
        b'w' => Some(Signature::Int16),
        b'W' => Some(Signature::UInt16),
        b'i' => Some(Signature::Int32),
        b'I' => Some(Signature::UInt32),
        b'l' => Some(Signature::Int64),
        b'L' => Some(Signature::UInt64),
        b'f' => Some(Signature::Float),
        b'd' => Some(Signature::Double),
        b's' => Some(Signature::String),
        b'r' => Some(Signature::Raw),
        b'm' => Some(Signature::Dynamic),
        b'o' => Some(Signature::Object),
        b'X' => Some(Signature::Unknown),
        b'*' => Some(Signature::Pointer),
        b'~' => Some(Signature::KwArgs),
        _ => None,
    };
    if let Some(s) = simple {
        return Ok((s, at + 1));
    }
    match c {
        b'[' => {
            let (t, end) = parse_at(b, at + 1, depth + 1)?;
            expect(b, end, b']')?;
            Ok((Signature::List(Box::new(t)), end + 1))
        }
        b'#' => {
            let (t, end) = parse_at(b, at + 1, depth + 1)?;
            Ok((Signature::VarArgs(Box::new(t)), end))
        }
        b'+' => {
            let (t, end) = parse_at(b, at + 1, depth + 1)?;
            Ok((Signature::Optional(Box::new(t)), end))
        }
        b'{' => {
            let (k, end) = parse_at(b, at + 1, depth + 1)?;
            let (v, end) = parse_at(b, end, depth + 1)?;
            expect(b, end, b'}')?;
            Ok((Signature::Map(Box::new(k), Box::new(v)), end + 1))
        }
        b'(' => {
            let mut fields = Vec::new();
            let mut pos = at + 1;
            while b.get(pos) != Some(&b')') {
                let (f, end) = parse_at(b, pos, depth + 1)?;
                fields.push(f);
                pos = end;
            }
            pos += 1;
            let mut annotation = None;
            if b.get(pos) == Some(&b'<') {
                let end = annotation_end(b, pos)?;
                annotation = Some(String::from_utf8_lossy(&b[pos + 1..end]).into_owned());
                pos = end + 1;
            }
            Ok((Signature::Tuple(fields, annotation), pos))
        }
        _ => Err(bad(b, at, "unknown type character")),
    }
}

/// The index of the `>` closing the annotation opened at `open`.
fn annotation_end(b: &[u8], open: usize) -> Result<usize, Error> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'<' => depth += 1,
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err(bad(b, open, "unclosed annotation"))
}

fn expect(b: &[u8], at: usize, c: u8) -> Result<(), Error> {
    if b.get(at) == Some(&c) {
        Ok(())
    } else {
        Err(bad(b, at, &format!("expected '{}'", c as char)))
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = match self {
            Signature::Void => "v",
            Signature::None => "_",
            Signature::Bool => "b",
            Signature::Int8 => "c",
            Signature::UInt8 => "C",
            Signature::Int16 => "w",
            Signature::UInt16 => "W",
            Signature::Int32 => "i",
            Signature::UInt32 => "I",
            Signature::Int64 => "l",
            Signature::UInt64 => "L",
            Signature::Float => "f",
            Signature::Double => "d",
            Signature::String => "s",
            Signature::Raw => "r",
            Signature::Dynamic => "m",
            Signature::Object => "o",
            Signature::Unknown => "X",
            Signature::Pointer => "*",
            Signature::KwArgs => "~",
            Signature::List(t) => return write!(f, "[{t}]"),
            Signature::VarArgs(t) => return write!(f, "#{t}"),
            Signature::Optional(t) => return write!(f, "+{t}"),
            Signature::Map(k, v) => return write!(f, "{{{k}{v}}}"),
            Signature::Tuple(fields, annotation) => {
                write!(f, "(")?;
                for x in fields {
                    write!(f, "{x}")?;
                }
                write!(f, ")")?;
                if let Some(a) = annotation {
                    write!(f, "<{a}>")?;
                }
                return Ok(());
            }
        };
        f.write_str(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for s in [
            "v",
            "(IIL)",
            "([s]+i)",
            "{sm}",
            "(sIsI[s]ss)<ServiceInfo,name,serviceId,machineId,processId,endpoints,sessionId,objectUid>",
            "({I(Issss[(ss)<MetaMethodParameter,name,description>]s)<MetaMethod,uid,returnSignature,name,parametersSignature,description,parameters,returnDescription>}s)<MetaObject,methods,description>",
            "#s",
            "()",
            "[[[m]]]",
        ] {
            let sig = Signature::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(sig.to_string(), s);
        }
        for s in ["", "[", "(i", "{s}", "(i)<a", "q", "ii", "[i)"] {
            assert!(Signature::parse(s).is_err(), "{s}");
        }
        let deep = "[".repeat(1000) + "i" + &"]".repeat(1000);
        assert!(Signature::parse(&deep).is_err());
    }
}
