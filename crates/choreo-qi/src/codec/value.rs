//! The binary value codec (qi-protocol.md §5): [`Value`]s written and read by signature.
//!
//! Values carry no type tags on the wire; the signature fixes the layout, except inside `m`,
//! which carries its own (the empty signature, with no data, is libqi's empty value: read as
//! `None`). Reading checks every length against the bytes left before
//! allocating, bounds the depth of nested `m`, and never panics.
//!
//! [`Value`] (the engine's dynamic value) has no object variant: an `o` read from the wire is
//! collected in [`Decoded::objects`] and its place in the value holds `None`. Writing an
//! object is [`encode_object`].

use choreo_base::Value;

use crate::codec::metaobject::{ObjectFormat, ObjectRef};
use crate::codec::reader::Reader;
use crate::codec::signature::{MAX_DEPTH, Signature};
use crate::error::Error;

/// A value read from the wire, with the object references it held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decoded {
    /// The value (`None` where an object reference was).
    pub value: Value,
    /// The object references, in the order they were read.
    pub objects: Vec<ObjectRef>,
}

/// Decodes all of `bytes` as one value of `sig`.
pub fn decode(bytes: &[u8], sig: &Signature, format: ObjectFormat) -> Result<Decoded, Error> {
    let mut r = Reader::new(bytes);
    let mut objects = Vec::new();
    let value = read_value(&mut r, sig, format, &mut objects, 0)?;
    r.finish()?;
    Ok(Decoded { value, objects })
}

/// Reads one value of `sig`.
pub(crate) fn read_value(
    r: &mut Reader<'_>,
    sig: &Signature,
    format: ObjectFormat,
    objects: &mut Vec<ObjectRef>,
    depth: usize,
) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::Protocol("value nested too deeply".into()));
    }
    Ok(match sig {
        Signature::Void | Signature::None => Value::None,
        Signature::Bool => Value::Bool(r.bool()?),
        Signature::Int8 => Value::Int(i64::from(i8::from_le_bytes(r.array()?))),
        Signature::UInt8 => Value::Int(i64::from(r.u8()?)),
        Signature::Int16 => Value::Int(i64::from(i16::from_le_bytes(r.array()?))),
        Signature::UInt16 => Value::Int(i64::from(u16::from_le_bytes(r.array()?))),
        Signature::Int32 => Value::Int(i64::from(i32::from_le_bytes(r.array()?))),
        Signature::UInt32 => Value::Int(i64::from(r.u32()?)),
        Signature::Int64 => Value::Int(i64::from_le_bytes(r.array()?)),
        Signature::UInt64 => {
            let u = u64::from_le_bytes(r.array()?);
            i64::try_from(u).map_or(Value::UInt(u), Value::Int)
        }
        Signature::Float => Value::Float(f64::from(f32::from_le_bytes(r.array()?))),
        Signature::Double => Value::Float(f64::from_le_bytes(r.array()?)),
        Signature::String => {
            let b = r.bytes()?;
            match std::str::from_utf8(b) {
                Ok(s) => Value::String(s.to_string()),
                Err(_) => Value::Raw(b.to_vec()),
            }
        }
        Signature::Raw => Value::Raw(r.bytes()?.to_vec()),
        Signature::List(t) | Signature::VarArgs(t) => {
            let n = r.count(t.min_size())?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(read_value(r, t, format, objects, depth + 1)?);
            }
            Value::List(v)
        }
        Signature::Map(k, t) => {
            let n = r.count(k.min_size() + t.min_size())?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let key = read_value(r, k, format, objects, depth + 1)?;
                let val = read_value(r, t, format, objects, depth + 1)?;
                v.push((key, val));
            }
            Value::Map(v)
        }
        Signature::Tuple(fields, _) => {
            let mut v = Vec::with_capacity(fields.len());
            for f in fields {
                v.push(read_value(r, f, format, objects, depth + 1)?);
            }
            Value::Tuple(v)
        }
        Signature::Optional(t) => match r.u8()? {
            0 => Value::None,
            1 => read_value(r, t, format, objects, depth + 1)?,
            b => return Err(Error::Protocol(format!("optional flag {b} is not 0 or 1"))),
        },
        Signature::Dynamic => {
            let text = r.bytes()?;
            let text = std::str::from_utf8(text)
                .map_err(|_| Error::Protocol("dynamic signature is not UTF-8".into()))?;
            if text.is_empty() {
                // An empty (invalid) AnyValue: libqi writes the empty signature and no data.
                return Ok(Value::None);
            }
            let inner = Signature::parse(text).map_err(|e| Error::Protocol(e.to_string()))?;
            read_value(r, &inner, format, objects, depth + 1)?
        }
        Signature::Object => {
            objects.push(ObjectRef::read(r, format)?);
            Value::None
        }
        Signature::Unknown | Signature::Pointer | Signature::KwArgs => {
            return Err(Error::Protocol(format!(
                "type {sig} cannot be deserialized"
            )));
        }
    })
}

fn type_error(value: &Value, sig: &Signature) -> Error {
    Error::Type(format!("cannot write {value} as {sig}"))
}

fn int_of(value: &Value) -> Option<i128> {
    match value {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Float(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => Some(*x as i128),
        _ => None,
    }
}

fn put_int<const N: usize>(
    value: &Value,
    sig: &Signature,
    min: i128,
    max: i128,
    bytes: impl Fn(i128) -> [u8; N],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    match int_of(value) {
        Some(i) if (min..=max).contains(&i) => {
            out.extend_from_slice(&bytes(i));
            Ok(())
        }
        _ => Err(type_error(value, sig)),
    }
}

fn put_len(n: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    let n = u32::try_from(n).map_err(|_| Error::Type(format!("length {n} exceeds u32")))?;
    out.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

/// Writes `value` as `sig`, converting leniently where qi does (int ↔ float, bool → int,
/// list ↔ tuple, anything into `m`); a value that does not fit is an error.
pub fn encode(value: &Value, sig: &Signature, out: &mut Vec<u8>) -> Result<(), Error> {
    match sig {
        Signature::Void | Signature::None => Ok(()),
        Signature::Bool => match value {
            Value::Bool(b) => {
                out.push(u8::from(*b));
                Ok(())
            }
            Value::Int(i) => {
                out.push(u8::from(*i != 0));
                Ok(())
            }
            _ => Err(type_error(value, sig)),
        },
        Signature::Int8
        | Signature::UInt8
        | Signature::Int16
        | Signature::UInt16
        | Signature::Int32
        | Signature::UInt32
        | Signature::Int64
        | Signature::UInt64 => put_integer(value, sig, out),
        Signature::Float | Signature::Double => {
            let x = match value {
                Value::Float(x) => *x,
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Bool(b) => f64::from(u8::from(*b)),
                _ => return Err(type_error(value, sig)),
            };
            if *sig == Signature::Float {
                out.extend_from_slice(&(x as f32).to_le_bytes());
            } else {
                out.extend_from_slice(&x.to_le_bytes());
            }
            Ok(())
        }
        Signature::String | Signature::Raw => {
            let b: &[u8] = match value {
                Value::String(s) => s.as_bytes(),
                Value::Raw(r) => r,
                _ => return Err(type_error(value, sig)),
            };
            put_len(b.len(), out)?;
            out.extend_from_slice(b);
            Ok(())
        }
        Signature::List(t) | Signature::VarArgs(t) => match value {
            Value::List(v) | Value::Tuple(v) => {
                put_len(v.len(), out)?;
                v.iter().try_for_each(|x| encode(x, t, out))
            }
            _ => Err(type_error(value, sig)),
        },
        Signature::Map(k, t) => match value {
            Value::Map(m) => {
                put_len(m.len(), out)?;
                for (key, val) in m {
                    encode(key, k, out)?;
                    encode(val, t, out)?;
                }
                Ok(())
            }
            _ => Err(type_error(value, sig)),
        },
        Signature::Tuple(fields, _) => match value {
            Value::Tuple(v) | Value::List(v) if v.len() == fields.len() => v
                .iter()
                .zip(fields)
                .try_for_each(|(x, f)| encode(x, f, out)),
            _ => Err(type_error(value, sig)),
        },
        Signature::Optional(t) => {
            if *value == Value::None {
                out.push(0);
                Ok(())
            } else {
                out.push(1);
                encode(value, t, out)
            }
        }
        Signature::Dynamic => encode_dynamic(value, out),
        Signature::Object | Signature::Unknown | Signature::Pointer | Signature::KwArgs => {
            Err(type_error(value, sig))
        }
    }
}

/// Writes `value` as the integer type `sig`, in its range.
#[inline]
fn put_integer(value: &Value, sig: &Signature, out: &mut Vec<u8>) -> Result<(), Error> {
    match sig {
        Signature::Int8 => put_int(value, sig, -128, 127, |i| [i as u8], out),
        Signature::UInt8 => put_int(value, sig, 0, 255, |i| [i as u8], out),
        Signature::Int16 => put_int(
            value,
            sig,
            i128::from(i16::MIN),
            i128::from(i16::MAX),
            |i| (i as i16).to_le_bytes(),
            out,
        ),
        Signature::UInt16 => put_int(
            value,
            sig,
            0,
            i128::from(u16::MAX),
            |i| (i as u16).to_le_bytes(),
            out,
        ),
        Signature::Int32 => put_int(
            value,
            sig,
            i128::from(i32::MIN),
            i128::from(i32::MAX),
            |i| (i as i32).to_le_bytes(),
            out,
        ),
        Signature::UInt32 => put_int(
            value,
            sig,
            0,
            i128::from(u32::MAX),
            |i| (i as u32).to_le_bytes(),
            out,
        ),
        Signature::Int64 => put_int(
            value,
            sig,
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            |i| (i as i64).to_le_bytes(),
            out,
        ),
        Signature::UInt64 => put_int(
            value,
            sig,
            0,
            i128::from(u64::MAX),
            |i| (i as u64).to_le_bytes(),
            out,
        ),
        _ => Err(type_error(value, sig)),
    }
}

/// Writes `value` as an `m`: its own signature ([`signature_of`]), then the value.
pub fn encode_dynamic(value: &Value, out: &mut Vec<u8>) -> Result<(), Error> {
    let sig = signature_of(value);
    let text = sig.to_string();
    put_len(text.len(), out)?;
    out.extend_from_slice(text.as_bytes());
    encode(value, &sig, out)
}

/// The signature a value is sent with inside an `m`, as the Python binding picks it: `v` for
/// None, `l` for ints, `d` for floats; a list or map whose elements all share one signature
/// gets it (`[d]`), otherwise `m` elements (`[m]`); tuples field by field.
pub fn signature_of(value: &Value) -> Signature {
    fn common<'a>(mut items: impl Iterator<Item = &'a Value>) -> Signature {
        let Some(first) = items.next() else {
            return Signature::Dynamic;
        };
        let sig = signature_of(first);
        if items.all(|x| signature_of(x) == sig) {
            sig
        } else {
            Signature::Dynamic
        }
    }
    match value {
        Value::None => Signature::Void,
        Value::Bool(_) => Signature::Bool,
        Value::Int(_) => Signature::Int64,
        Value::UInt(_) => Signature::UInt64,
        Value::Float(_) => Signature::Double,
        Value::String(_) => Signature::String,
        Value::Raw(_) => Signature::Raw,
        Value::List(v) => Signature::List(Box::new(common(v.iter()))),
        Value::Map(m) => Signature::Map(
            Box::new(common(m.iter().map(|(k, _)| k))),
            Box::new(common(m.iter().map(|(_, v)| v))),
        ),
        Value::Tuple(v) => Signature::tuple(v.iter().map(signature_of).collect()),
    }
}

/// How well `value` fits `sig`: `Some(0)` exactly, a higher cost through a lenient
/// conversion or an `m`, `None` when it cannot be written. Used to pick an overload.
pub fn fit(value: &Value, sig: &Signature) -> Option<u32> {
    let int_range = |lo: i128, hi: i128| match value {
        Value::Int(_) | Value::UInt(_) if int_of(value).is_some_and(|i| (lo..=hi).contains(&i)) => {
            Some(0)
        }
        Value::Bool(_) => Some(2),
        Value::Float(_) if int_of(value).is_some_and(|i| (lo..=hi).contains(&i)) => Some(3),
        _ => None,
    };
    match sig {
        Signature::Dynamic => Some(4),
        Signature::Void | Signature::None => (*value == Value::None).then_some(0),
        Signature::Bool => match value {
            Value::Bool(_) => Some(0),
            Value::Int(_) => Some(2),
            _ => None,
        },
        Signature::Int8 => int_range(-128, 127),
        Signature::UInt8 => int_range(0, 255),
        Signature::Int16 => int_range(i128::from(i16::MIN), i128::from(i16::MAX)),
        Signature::UInt16 => int_range(0, i128::from(u16::MAX)),
        Signature::Int32 => int_range(i128::from(i32::MIN), i128::from(i32::MAX)),
        Signature::UInt32 => int_range(0, i128::from(u32::MAX)),
        Signature::Int64 => int_range(i128::from(i64::MIN), i128::from(i64::MAX)),
        Signature::UInt64 => int_range(0, i128::from(u64::MAX)),
        Signature::Float | Signature::Double => match value {
            Value::Float(_) => Some(0),
            Value::Int(_) => Some(1),
            Value::Bool(_) => Some(3),
            _ => None,
        },
        Signature::String => match value {
            Value::String(_) => Some(0),
            Value::Raw(_) => Some(2),
            _ => None,
        },
        Signature::Raw => match value {
            Value::Raw(_) => Some(0),
            Value::String(_) => Some(2),
            _ => None,
        },
        Signature::List(t) | Signature::VarArgs(t) => match value {
            Value::List(v) => sum_fit(v.iter().map(|x| fit(x, t))),
            Value::Tuple(v) => sum_fit(v.iter().map(|x| fit(x, t))).map(|c| c + 1),
            _ => None,
        },
        Signature::Map(k, t) => match value {
            Value::Map(m) => sum_fit(m.iter().map(|(a, b)| Some(fit(a, k)? + fit(b, t)?))),
            _ => None,
        },
        Signature::Tuple(fields, _) => match value {
            Value::Tuple(v) if v.len() == fields.len() => {
                sum_fit(v.iter().zip(fields).map(|(x, f)| fit(x, f)))
            }
            Value::List(v) if v.len() == fields.len() => {
                sum_fit(v.iter().zip(fields).map(|(x, f)| fit(x, f))).map(|c| c + 1)
            }
            _ => None,
        },
        Signature::Optional(t) => match value {
            Value::None => Some(0),
            _ => fit(value, t),
        },
        Signature::Object | Signature::Unknown | Signature::Pointer | Signature::KwArgs => None,
    }
}

fn sum_fit(mut costs: impl Iterator<Item = Option<u32>>) -> Option<u32> {
    costs.try_fold(0u32, |acc, c| Some(acc.saturating_add(c?)))
}

/// Writes an object reference (§7) in the layout `format` selects.
pub fn encode_object(object: &ObjectRef, format: ObjectFormat, out: &mut Vec<u8>) {
    object.write(format, out);
}

/// Writes `value` as an `m` with signature `sig` (a property's own type, say).
pub fn encode_dynamic_as(value: &Value, sig: &Signature, out: &mut Vec<u8>) -> Result<(), Error> {
    let text = sig.to_string();
    put_len(text.len(), out)?;
    out.extend_from_slice(text.as_bytes());
    encode(value, sig, out)
}
