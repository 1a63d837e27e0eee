//! Box scripts compiled as a run compiles them (after the Python-2 fixer), without running
//! them: what `choreo check` reports before a run.

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

/// What the check of one script found: (line, column, message), or nothing.
type Found = Option<(u32, u32, String)>;

/// A [`choreo_xar::ScriptCheck`] backed by the embedded CPython: `compile()` of the fixed
/// script, its warnings silenced (a `SyntaxWarning` is no error, and a run does not show
/// them either). The fixer keeps every line where it was, so the line is the script's; the
/// column is CPython's in the fixed line (a rewrite earlier on that line moves it). Each
/// distinct script is compiled once (a corpus holds the stock boxes' scripts many times).
#[derive(Debug, Default)]
pub struct CompileCheck {
    seen: Mutex<HashMap<String, Found>>,
}

/// The helper that compiles with warnings off, made once per interpreter.
static COMPILE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

const HELPER: &str = "
import warnings

def compile_quietly(source):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        compile(source, '<box script>', 'exec', dont_inherit=True)
";

fn compile_helper(py: Python<'_>) -> PyResult<&Py<PyAny>> {
    COMPILE.get_or_try_init(py, || {
        let code = CString::new(HELPER)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let module = PyModule::from_code(py, &code, c"choreo_check.py", c"choreo_check")?;
        Ok(module.getattr("compile_quietly")?.unbind())
    })
}

impl CompileCheck {
    fn compile(code: &str) -> Found {
        let fixed = crate::fixer::fix(code);
        Python::attach(|py| {
            let helper = match compile_helper(py) {
                Ok(h) => h,
                // Never with this interpreter; said rather than taken for a clean script.
                Err(e) => return Some((1, 1, format!("choreo cannot compile scripts: {e}"))),
            };
            let error = helper.call1(py, (fixed.as_str(),)).err()?;
            let value = error.value(py);
            let number = |name: &str| {
                value
                    .getattr(name)
                    .ok()
                    .and_then(|v| v.extract::<Option<u32>>().ok())
                    .flatten()
            };
            let message = value
                .getattr("msg")
                .ok()
                .and_then(|m| m.extract::<String>().ok())
                .unwrap_or_else(|| error.to_string());
            let kind = value
                .get_type()
                .name()
                .map_or_else(|_| "SyntaxError".to_string(), |n| n.to_string());
            Some((
                number("lineno").unwrap_or(1).max(1),
                number("offset").unwrap_or(1).max(1),
                format!("{kind}: {message}"),
            ))
        })
    }
}

impl CompileCheck {
    /// The first syntax error of `code` (a box script), if any: (line, column, message).
    pub fn syntax_error(&self, code: &str) -> Found {
        if let Some(found) = self
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(code)
        {
            return found.clone();
        }
        let found = CompileCheck::compile(code);
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(code.to_string(), found.clone());
        found
    }
}

impl choreo_xar::ScriptCheck for CompileCheck {
    fn check(
        &self,
        b: &choreo_xar::model::BoxDef,
        _: &[&choreo_xar::model::BoxDef],
    ) -> Vec<choreo_xar::ScriptProblem> {
        self.syntax_error(b.code())
            .map(|(line, column, message)| choreo_xar::ScriptProblem {
                severity: choreo_xar::Severity::Error,
                line,
                column,
                message,
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::CompileCheck;

    #[test]
    fn python_2_scripts_compile_after_the_fixer_and_errors_have_their_line() {
        let check = CompileCheck::default();
        assert_eq!(check.syntax_error("print 'hello'\nx = 0777\n"), None);
        // A SyntaxWarning is no error.
        assert_eq!(
            check.syntax_error("x = 1\nif x is not 'a':\n    pass\n"),
            None
        );
        let Some((line, column, message)) = check.syntax_error("x = 1\ndef f(:\n    pass\n") else {
            panic!("a syntax error passed");
        };
        assert_eq!((line, column), (2, 7));
        assert!(message.starts_with("SyntaxError: "), "{message}");
        let Some((line, _, message)) = check.syntax_error("if True:\nx = 1\n") else {
            panic!("an indentation error passed");
        };
        assert_eq!(line, 2);
        assert!(message.starts_with("IndentationError: "), "{message}");
    }
}
