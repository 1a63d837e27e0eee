//! Values across the boundary: [`Value`] to Python and back (box code, and the Python
//! package's API).

use std::borrow::Cow;

use choreo_engine::Value;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString,
    PyTuple,
};

/// The Python object for `value`: `None`, bool, int, float, str, bytes, list, dict, tuple.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::None => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::UInt(u) => u.into_pyobject(py)?.into_any(),
        Value::Float(x) => PyFloat::new(py, *x).into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Raw(b) => PyBytes::new(py, b).into_any(),
        Value::List(items) => PyList::new(py, to_python_all(py, items)?)?.into_any(),
        Value::Tuple(items) => PyTuple::new(py, to_python_all(py, items)?)?.into_any(),
        Value::Map(pairs) => {
            let dict = PyDict::new(py);
            for (k, v) in pairs {
                dict.set_item(to_python(py, k)?, to_python(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

fn to_python_all<'py>(py: Python<'py>, items: &[Value]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    items.iter().map(|v| to_python(py, v)).collect()
}

/// How [`from_python`] treats an object that is no plain value (a proxy, a class instance).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// A `TypeError` (arguments of robot calls: NAOqi could not send it either).
    Refuse,
    /// Its `str()` (values fired on outputs: a box may fire anything, P8).
    Text,
}

/// The [`Value`] of a Python object: None, bool, int (up to `u64::MAX` exactly, beyond as a
/// float), float, str
/// (and a Python-2 byte string), bytes and bytearray, list, tuple, dict, set; anything else
/// as `foreign` says.
pub fn from_python(obj: &Bound<'_, PyAny>, foreign: Foreign) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::None);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        return Ok(match (obj.extract::<i64>(), obj.extract::<u64>()) {
            (Ok(i), _) => Value::Int(i),
            (_, Ok(u)) => Value::UInt(u),
            _ => Value::Float(obj.extract::<f64>()?),
        });
    }
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(x.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(text(s)?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        // A Python-2 byte string (`py2.py`'s `bytestr`, what `u.encode()` gave) was text
        // to NAOqi: Python 2 sent a `str` as a string.
        if !obj.is_exact_instance_of::<PyBytes>()
            && obj.hasattr(pyo3::intern!(obj.py(), "__py2text__"))?
        {
            return Ok(Value::String(
                String::from_utf8_lossy(b.as_bytes()).into_owned(),
            ));
        }
        return Ok(Value::Raw(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Raw(b.to_vec()));
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return Ok(Value::List(from_python_all(list.iter(), foreign)?));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return Ok(Value::Tuple(from_python_all(tuple.iter(), foreign)?));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            pairs.push((from_python(&k, foreign)?, from_python(&v, foreign)?));
        }
        return Ok(Value::Map(pairs));
    }
    if obj.cast::<PySet>().is_ok() || obj.cast::<PyFrozenSet>().is_ok() {
        return Ok(Value::List(from_python_all(
            obj.try_iter()?.flatten(),
            foreign,
        )?));
    }
    match foreign {
        Foreign::Text => Ok(Value::String(text(&obj.str()?)?.into_owned())),
        Foreign::Refuse => Err(PyTypeError::new_err(format!(
            "cannot send a {} to the robot (only None, bool, int, float, str, bytes, list, \
             tuple and dict)",
            obj.get_type().name()?
        ))),
    }
}

/// The text of `s` for Rust. Text that box scripts read from a file that is not UTF-8 holds
/// each other byte as a lone surrogate (`surrogateescape`: the `open` of `py2.py`); Python 2
/// passed such bytes on as they were, and a Rust string is UTF-8, so each becomes U+FFFD.
/// Any other lone surrogate is an error, as before.
pub(crate) fn text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    // Borrowed, but under the stable ABI of Pythons before 3.10 (the Python package).
    if let Ok(t) = s.to_cow() {
        return Ok(t);
    }
    let py = s.py();
    let bytes = s.call_method1(
        pyo3::intern!(py, "encode"),
        (
            pyo3::intern!(py, "utf-8"),
            pyo3::intern!(py, "surrogateescape"),
        ),
    )?;
    let bytes = bytes.cast::<PyBytes>()?;
    Ok(Cow::Owned(
        String::from_utf8_lossy(bytes.as_bytes()).into_owned(),
    ))
}

fn from_python_all<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    foreign: Foreign,
) -> PyResult<Vec<Value>> {
    items.map(|item| from_python(&item, foreign)).collect()
}
