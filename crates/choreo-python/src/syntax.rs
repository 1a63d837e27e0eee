//! Box scripts compiled as a run compiles them (after the Python-2 fixer), without running
//! them: what `choreo check` reports before a run.

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

/// What the check of one script found: (line, column, message), or nothing.
type Found = Option<(u32, u32, String)>;

/// A [`choreo_xar::ScriptCheck`] backed by CPython: `compile()` of the fixed script, its
/// warnings silenced (a `SyntaxWarning` is no error, and a run does not show them either).
/// The fixer keeps every line where it was, so the line is the script's; the column is
/// CPython's in the fixed line (a rewrite earlier on that line moves it). Each distinct
/// script is compiled once (a corpus holds the stock boxes' scripts many times).
///
/// CPython's compiler holds the GIL, so one interpreter compiles one script at a time: when
/// the embedded interpreter is busy and the machine has a free core, a script goes to a
/// helper process of the same installation (`python3.11 -I -S`, at most one per core beside
/// this one, started when first needed and kept until the check is dropped) running the
/// same Python function. A helper that cannot start or dies leaves its scripts to the
/// embedded interpreter.
#[derive(Debug, Default)]
pub struct CompileCheck {
    seen: Mutex<HashMap<String, Found>>,
    /// Held while the embedded interpreter compiles for this check.
    embedded: Mutex<()>,
    helpers: Mutex<Helpers>,
}

/// The helper processes: the idle ones, and how many exist.
#[derive(Debug, Default)]
struct Helpers {
    idle: Vec<Helper>,
    started: usize,
    /// Set once no more helpers can start (no interpreter found, one failed to start).
    none_left: bool,
}

/// The helper that compiles with warnings off, made once per interpreter.
static COMPILE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python both the embedded interpreter and the helper processes run: one function
/// decides what an error says, wherever it is compiled.
const HELPER: &str = r#"
import sys
import warnings

def first_error(source):
    """None, or (line, column, 'Kind: message') of the first error compiling source."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            compile(source, '<box script>', 'exec', dont_inherit=True)
    except Exception as e:
        msg = getattr(e, 'msg', None)
        if not isinstance(msg, str):
            msg = str(e)
        line = getattr(e, 'lineno', None)
        column = getattr(e, 'offset', None)
        line = line if isinstance(line, int) else 1
        column = column if isinstance(column, int) else 1
        return (min(max(line, 1), 2**31), min(max(column, 1), 2**31),
                type(e).__name__ + ': ' + msg)
    return None

def serve():
    """A helper process: each script comes as its length in bytes on a line, then its
    UTF-8; each answer is 'ok', or line, column and the message's length on a line, then
    the message."""
    scripts, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        size = scripts.readline()
        if not size:
            return
        found = first_error(scripts.read(int(size)).decode('utf-8'))
        if found is None:
            answers.write(b'ok\n')
        else:
            text = found[2].encode('utf-8')
            answers.write(b'%d %d %d\n' % (found[0], found[1], len(text)) + text)
        answers.flush()
"#;

fn compile_helper(py: Python<'_>) -> PyResult<&Py<PyAny>> {
    COMPILE.get_or_try_init(py, || {
        let code = CString::new(HELPER)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let module = PyModule::from_code(py, &code, c"choreo_check.py", c"choreo_check")?;
        Ok(module.getattr("first_error")?.unbind())
    })
}

/// Compiles `fixed` in the embedded interpreter; the thread keeps its Python thread state
/// for the next script (a check's threads compile hundreds: see [`crate::thread`]).
fn compile_here(fixed: &str) -> Found {
    Python::attach(|py| {
        crate::thread::keep(py);
        let helper = match compile_helper(py) {
            Ok(h) => h,
            // Never with this interpreter; said rather than taken for a clean script.
            Err(e) => return Some((1, 1, format!("choreo cannot compile scripts: {e}"))),
        };
        match helper.call1(py, (fixed,)) {
            Ok(found) => found
                .extract::<Found>(py)
                .unwrap_or_else(|e| Some((1, 1, format!("choreo cannot compile scripts: {e}")))),
            Err(e) => Some((1, 1, e.to_string())),
        }
    })
}

/// A helper process compiling scripts (see [`CompileCheck`]).
#[derive(Debug)]
struct Helper {
    child: Child,
    scripts: ChildStdin,
    answers: BufReader<ChildStdout>,
}

impl Helper {
    /// Starts `python` serving [`HELPER`].
    fn start(python: &Path) -> std::io::Result<Helper> {
        let mut child = Command::new(python)
            .args(["-I", "-S", "-c", &format!("{HELPER}\nserve()\n")])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(scripts), Some(answers)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the helper's pipes are missing"));
        };
        Ok(Helper {
            child,
            scripts,
            answers: BufReader::new(answers),
        })
    }

    /// What compiling `fixed` finds, or why the helper could not say.
    fn compile(&mut self, fixed: &str) -> std::io::Result<Found> {
        writeln!(self.scripts, "{}", fixed.len())?;
        self.scripts.write_all(fixed.as_bytes())?;
        self.scripts.flush()?;
        let mut line = String::new();
        if self.answers.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("the helper ended"));
        }
        let line = line.trim_end();
        if line == "ok" {
            return Ok(None);
        }
        let bad = || std::io::Error::other(format!("the helper answered {line:?}"));
        let numbers: Vec<u32> = line
            .split(' ')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let [row, column, size] = numbers[..] else {
            return Err(bad());
        };
        let mut text = vec![0; size as usize];
        self.answers.read_exact(&mut text)?;
        Ok(Some((
            row,
            column,
            String::from_utf8_lossy(&text).into_owned(),
        )))
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python executable of the installation whose `libpython` this process runs.
fn helper_python() -> Option<PathBuf> {
    let installation = crate::environment::Installation::of_this_process()?;
    let python = installation
        .prefix
        .join("bin")
        .join(format!("python{}", installation.version));
    python.is_file().then_some(python)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl CompileCheck {
    /// The first syntax error of `code` (a box script), if any: (line, column, message).
    pub fn syntax_error(&self, code: &str) -> Found {
        if let Some(found) = lock(&self.seen).get(code) {
            return found.clone();
        }
        let found = self.compile(&crate::fixer::fix(code));
        lock(&self.seen).insert(code.to_string(), found.clone());
        found
    }

    /// Compiles `fixed` in the embedded interpreter when it is free, else in a helper
    /// process when one is idle or can start, else in the embedded interpreter once free.
    fn compile(&self, fixed: &str) -> Found {
        let free = match self.embedded.try_lock() {
            Ok(turn) => Some(turn),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        if let Some(_turn) = free {
            return compile_here(fixed);
        }
        if let Some(mut helper) = self.helper()
            && let Ok(found) = helper.compile(fixed)
        {
            lock(&self.helpers).idle.push(helper);
            return found;
        }
        let _turn = lock(&self.embedded);
        compile_here(fixed)
    }

    /// An idle helper, or a new one when fewer than the machine's other cores run.
    fn helper(&self) -> Option<Helper> {
        let mut helpers = lock(&self.helpers);
        if let Some(h) = helpers.idle.pop() {
            return Some(h);
        }
        let others = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .saturating_sub(1);
        if helpers.none_left || helpers.started >= others {
            return None;
        }
        helpers.started += 1;
        drop(helpers);
        let started = helper_python().and_then(|python| Helper::start(&python).ok());
        if started.is_none() {
            lock(&self.helpers).none_left = true;
        }
        started
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{CompileCheck, Helper, compile_here, helper_python};

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

    #[test]
    fn a_helper_process_answers_as_the_embedded_interpreter() {
        // The embedded interpreter is mapped once Python has run.
        assert_eq!(compile_here("x = 1\n"), None);
        let Some(python) = helper_python() else {
            panic!("the libpython of this test has no python executable beside it");
        };
        let mut helper = Helper::start(&python).unwrap();
        let scripts = [
            "print('hello')\n",
            "x = 1\ndef f(:\n    pass\n",
            "if True:\nx = 1\n",
            "s = 'caf\u{e9}'\nreturn s\n",
            "x = 1\0\n",
            "x = 1\nif x is not 'a':\n    pass\n",
        ];
        for script in scripts {
            assert_eq!(
                helper.compile(script).unwrap(),
                compile_here(script),
                "{script:?}"
            );
        }
        // CPython's own words for two of them.
        let found = helper.compile(scripts[3]).unwrap().unwrap();
        assert_eq!(found.0, 2);
        assert_eq!(found.2, "SyntaxError: 'return' outside function");
        assert!(helper.compile(scripts[4]).unwrap().is_some());
    }
}
