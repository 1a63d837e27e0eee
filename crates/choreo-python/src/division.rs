//! Python 2's `/` for box scripts: the builtin `__py2div__` that the fixer writes into
//! every binary `/` and `/=` ([`crate::fixer::Rewrite::Division`]).
//!
//! In Python 2 (without `from __future__ import division`) `a / b` on two ints (bool and
//! long included) is floor division: `7 / 2 == 3`, `-7 / 2 == -4`. The fixer cannot know the
//! operands' types, so it keeps the operator and routes it through `__py2div__`, which
//! decides at run time:
//!
//! - `a / b` becomes `a @__py2div__/ b`: `@` has the precedence and left-to-right grouping
//!   of `/`, so `a * b / c`, `a / b * c` and `a / b / c` group as before. `a @ __py2div__`
//!   gives a [`Dividend`] holding `a` (the types box scripts use have no `@` of their own,
//!   and numpy arrays defer to `__py2div__`: `__array_ufunc__ = None`), whose `/ b` gives
//!   `a // b` when both are ints, else `a / b` itself (so numpy arrays, `Fraction`,
//!   `Decimal`, floats and any type with its own `__truediv__` or `__rtruediv__` get exactly
//!   what `a / b` gave them).
//! - `a /= b` becomes `a = __py2div__(a, b)`, which gives `a // b` for two ints, else what
//!   `a /= b` gives (`operator.itruediv`: in place for the types that divide in place, such
//!   as numpy arrays). An augmented assignment cannot do it: `a @= x` hands `x` to `a`'s
//!   own in-place method first, and a numpy array's raises instead of deferring. The fixer
//!   only rewrites targets without calls, so evaluating the target twice changes nothing.
//!
//! The methods are native: an error in the division (`ZeroDivisionError`) shows no frame of
//! its own in a box's traceback, which points at the script's line as before.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// `__py2div__`: the right operand of `a @ __py2div__`, and `__py2div__(a, b)` for `a /= b`.
#[pyclass(module = "_choreo", name = "Py2Division", frozen)]
pub(crate) struct Py2Division;

/// `a @ __py2div__`: waits for the divisor (`/ b`).
#[pyclass(module = "_choreo", frozen)]
pub(crate) struct Dividend(Py<PyAny>);

#[pymethods]
impl Py2Division {
    /// Tells numpy arrays to defer to `__rmatmul__` (`array @ __py2div__`).
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// `a @ __py2div__`.
    fn __rmatmul__(&self, dividend: Bound<'_, PyAny>) -> Dividend {
        Dividend(dividend.unbind())
    }

    /// `a = __py2div__(a, b)`: Python 2's `a /= b`.
    fn __call__<'py>(
        &self,
        dividend: &Bound<'py, PyAny>,
        divisor: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = dividend.py();
        if classic_ints(dividend, divisor)? {
            dividend.floor_div(divisor)
        } else {
            py.import(pyo3::intern!(py, "operator"))?
                .getattr(pyo3::intern!(py, "itruediv"))?
                .call1((dividend, divisor))
        }
    }

    fn __repr__(&self) -> &'static str {
        "<Python-2 division>"
    }
}

#[pymethods]
impl Dividend {
    /// `(a @ __py2div__) / b`: Python 2's `a / b`.
    fn __truediv__<'py>(&self, divisor: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let dividend = self.0.bind(divisor.py());
        if classic_ints(dividend, divisor)? {
            dividend.floor_div(divisor)
        } else {
            dividend.div(divisor)
        }
    }
}

/// Whether `a / b` was a floor division in Python 2: both are ints (bool included) whose
/// types divide as `int` does.
fn classic_ints(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(classic_int(a)? && classic_int(b)?)
}

/// Whether `x` is an int whose type divides as `int` does (`int`, `bool`, or a subclass
/// that defines neither `__truediv__` nor `__rtruediv__`).
fn classic_int(x: &Bound<'_, PyAny>) -> PyResult<bool> {
    if x.is_exact_instance_of::<PyInt>() || x.is_exact_instance_of::<PyBool>() {
        return Ok(true);
    }
    if !x.is_instance_of::<PyInt>() {
        return Ok(false);
    }
    let py = x.py();
    let (own, int) = (x.get_type(), py.get_type::<PyInt>());
    for name in [
        pyo3::intern!(py, "__truediv__"),
        pyo3::intern!(py, "__rtruediv__"),
    ] {
        if !own.getattr(name)?.is(&int.getattr(name)?) {
            return Ok(false);
        }
    }
    Ok(true)
}
