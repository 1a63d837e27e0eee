//! Box scripts compiled as a run compiles them (after the Python-2 fixer), without running
//! them: what `choreo check` reports before a run.

use std::ffi::CString;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, TryLockError};

use choreo_base::lock;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

use crate::fixer::tokenize::tokenize;

/// What the check of one script found: (line, column, message), or nothing.
type Found = Option<(u32, u32, String)>;

/// A [`choreo_xar::ScriptCheck`] backed by CPython: `compile()` of the fixed script, its
/// warnings silenced (a `SyntaxWarning` is no error, and a run does not show them either).
/// The fixer keeps every line where it was, so the line is the script's; the column is
/// CPython's in the fixed line (a rewrite earlier on that line moves it). Each distinct
/// script is compiled once (a corpus holds the stock boxes' scripts many times), and a
/// script of the shape of a valid one (the same but for its comments and plain strings:
/// `Screen::shape`) is valid without being compiled.
///
/// CPython's compiler holds the GIL, so one interpreter compiles one script at a time: when
/// the embedded interpreter is busy and the machine has a free core, a script goes to a
/// helper process of the same installation (`python3.11 -I -S`, at most one per core beside
/// this one, started when first needed and kept until the check is dropped) running the
/// same Python function. A helper that cannot start or dies leaves its scripts to the
/// embedded interpreter.
#[derive(Debug, Default)]
pub struct CompileCheck {
    seen: Mutex<foldhash::HashMap<String, Found>>,
    /// The [`crate::codegen::Screen::shape`]s of the valid scripts met so far.
    valid_shapes: Mutex<foldhash::HashSet<String>>,
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
import _symtable

# The screen of codegen.rs lists the errors of 3.11's code generator.
SCREENED = sys.version_info[:2] == (3, 11)

def first_error(source, full):
    """None, or (line, column, 'Kind: message') of the first error compiling source; when
    not full, its parser and symbol table only (what compile() runs before its code
    generator, with the same flags)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            if full or not SCREENED:
                compile(source, '<box script>', 'exec', dont_inherit=True)
            else:
                _symtable.symtable(source, '<box script>', 'exec')
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
    """A helper process: each script comes as its length in bytes and 1 (a full compile)
    or 0 on a line, then its UTF-8; each answer is 'ok', or line, column and the message's
    length on a line, then the message."""
    scripts, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = scripts.readline()
        if not line:
            return
        size, full = line.split()
        found = first_error(scripts.read(int(size)).decode('utf-8'), full == b'1')
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

/// Compiles `fixed` in the embedded interpreter (in `full`, else its parser and symbol
/// table only: see [`crate::codegen`]); the thread keeps its Python thread state
/// for the next script (a check's threads compile hundreds: see [`crate::thread`]).
pub(crate) fn compile_here(fixed: &str, full: bool) -> Found {
    Python::attach(|py| {
        crate::thread::keep(py);
        let helper = match compile_helper(py) {
            Ok(h) => h,
            // Never with this interpreter; said rather than taken for a clean script.
            Err(e) => return Some((1, 1, format!("choreo cannot compile scripts: {e}"))),
        };
        match helper.call1(py, (fixed, full)) {
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

    /// What compiling `fixed` (`full`: see [`compile_here`]) finds, or why the helper could
    /// not say.
    fn compile(&mut self, fixed: &str, full: bool) -> std::io::Result<Found> {
        // One write: a helper woken by a part of the message only waits again.
        let mut message = format!("{} {}\n", fixed.len(), u8::from(full)).into_bytes();
        message.extend_from_slice(fixed.as_bytes());
        self.scripts.write_all(&message)?;
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

impl CompileCheck {
    /// The first syntax error of `code` (a box script), if any: (line, column, message).
    pub fn syntax_error(&self, code: &str) -> Found {
        if let Some(found) = lock(&self.seen).get(code) {
            return found.clone();
        }
        let fixed = crate::fixer::fix(code);
        let toks = tokenize(&fixed);
        let screen = crate::codegen::screen(&fixed, &toks);
        let found = if screen.full {
            self.compile(&fixed, true)
        } else if self.known_valid(screen.shape.as_deref())
            || crate::methods::parts(&fixed, &toks)
                .is_some_and(|parts| parts.into_iter().all(|part| self.part_is_valid(part)))
        {
            None
        } else {
            self.compile(&fixed, false)
        };
        if found.is_none()
            && let Some(shape) = screen.shape
        {
            lock(&self.valid_shapes).insert(shape);
        }
        lock(&self.seen).insert(code.to_string(), found.clone());
        found
    }

    /// How many methods' parts ([`crate::methods`]) were found valid.
    #[cfg(test)]
    pub(crate) fn valid_parts(&self) -> usize {
        lock(&self.valid_shapes)
            .iter()
            .filter(|shape| shape.starts_with(crate::methods::AROUND))
            .count()
    }

    /// Whether `shape` is that of a text found valid (by the parser and the symbol table).
    fn known_valid(&self, shape: Option<&str>) -> bool {
        shape.is_some_and(|shape| lock(&self.valid_shapes).contains(shape))
    }

    /// Whether the parser and the symbol table accept `part` of a script the screen let
    /// through ([`crate::methods`]): known by its shape, else compiled. Its error, if any,
    /// is not the script's: the whole script is compiled for that.
    fn part_is_valid(&self, part: crate::methods::Part) -> bool {
        if self.known_valid(Some(&part.shape)) {
            return true;
        }
        let valid = self.compile(&part.text, false).is_none();
        if valid {
            lock(&self.valid_shapes).insert(part.shape);
        }
        valid
    }

    /// Compiles `fixed` (`full`: see [`compile_here`]) in the embedded interpreter when it
    /// is free, else in a helper process when one is idle or can start, else in the
    /// embedded interpreter once free.
    fn compile(&self, fixed: &str, full: bool) -> Found {
        let free = match self.embedded.try_lock() {
            Ok(turn) => Some(turn),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        if let Some(_turn) = free {
            return compile_here(fixed, full);
        }
        if let Some(mut helper) = self.helper()
            && let Ok(found) = helper.compile(fixed, full)
        {
            lock(&self.helpers).idle.push(helper);
            return found;
        }
        let _turn = lock(&self.embedded);
        compile_here(fixed, full)
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
    use crate::codegen::Screen;
    use choreo_base::lock;

    fn screen(script: &str) -> Screen {
        crate::codegen::screen(script, &crate::fixer::tokenize::tokenize(script))
    }

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
        assert_eq!(compile_here("x = 1\n", true), None);
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
            "def f(a, a):\n    pass\n",
        ];
        for script in scripts {
            for full in [true, false] {
                assert_eq!(
                    helper.compile(script, full).unwrap(),
                    compile_here(script, full),
                    "{script:?}"
                );
            }
        }
        // CPython's own words for three of them.
        let found = helper.compile(scripts[3], true).unwrap().unwrap();
        assert_eq!(found.0, 2);
        assert_eq!(found.2, "SyntaxError: 'return' outside function");
        assert!(helper.compile(scripts[4], false).unwrap().is_some());
        let found = helper.compile(scripts[6], false).unwrap().unwrap();
        assert_eq!(
            found.2,
            "SyntaxError: duplicate argument 'a' in function definition"
        );
    }

    /// Scripts CPython 3.11's `compile()` refuses in its code generator, one or more per
    /// error of `Python/compile.c` (3.11.2) that a box script can meet.
    const CODEGEN_ERRORS: &[&str] = &[
        "return 1\n",
        "class A:\n    return 1\n",
        "def f():\n    class A:\n        return 1\n",
        "yield 1\n",
        "class A:\n    x = yield\n",
        "def f(x=(yield)):\n    pass\n",
        "@g((yield))\ndef f():\n    pass\n",
        "break\n",
        "for x in y:\n    pass\nelse:\n    break\n",
        "while 1:\n    def f():\n        continue\n",
        "if x: break\n",
        "for x in y:\n    class A:\n        break\n",
        "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
        "for x in y:\n    try:\n        pass\n    except* E:\n        break\n",
        "*a = b\n",
        "a, *b, *c = d\n",
        "x = *a\n",
        "f(a=1, a=2)\n",
        "f(x, g(b=1), b=2, b=3)\n",
        "class A(metaclass=M, metaclass=N):\n    pass\n",
        "__debug__ = 1\n",
        "x.__debug__ = 1\n",
        "f(__debug__=1)\n",
        "del __debug__\n",
        "import os\nfrom __future__ import division\n",
        "async def f():\n    yield 1\n    return 2\n",
        "await x\n",
        "def f():\n    await x\n",
        "def f():\n    async for x in y:\n        pass\n",
        "def f():\n    async with x:\n        pass\n",
        "def f():\n    return [x async for x in y]\n",
        "async def f():\n    yield from x\n",
        "match x:\n    case a:\n        pass\n    case b:\n        pass\n",
        "f'{g(a=1, a=2)}'\n",
    ];

    #[test]
    fn every_error_of_the_code_generator_is_found_though_most_scripts_skip_it() {
        let check = CompileCheck::default();
        let nested = |depth: usize, head: &dyn Fn(usize) -> String| {
            let mut s: String = (0..depth)
                .map(|i| format!("{}{}\n", "    ".repeat(i), head(i)))
                .collect();
            s.push_str(&format!("{}pass\n", "    ".repeat(depth)));
            s
        };
        let mut scripts: Vec<String> = CODEGEN_ERRORS.iter().map(|s| s.to_string()).collect();
        scripts.push(nested(21, &|i| format!("for x{i} in y:")));
        let with: Vec<String> = (0..21).map(|i| format!("a{i}")).collect();
        scripts.push(format!("with {}:\n    pass\n", with.join(", ")));
        for script in &scripts {
            let reference = compile_here(script, true);
            assert!(reference.is_some(), "compile() takes {script:?}");
            // The parser and the symbol table alone take it: the screen must catch it.
            assert_eq!(compile_here(script, false), None, "{script:?}");
            assert!(screen(script).full, "{script:?}");
            // What `choreo check` says: the fixed script's full compile (the fixer renames
            // Python 2's `async`/`await` names).
            let fixed = crate::fixer::fix(script);
            assert_eq!(
                check.syntax_error(script),
                compile_here(&fixed, true),
                "{script:?}"
            );
        }
        // The shapes of ordinary box scripts need no code generator to be judged.
        for fine in [
            "class MyClass(GeneratedClass):\n    def __init__(self):\n        GeneratedClass.__init__(self)\n\n    def onInput_onStart(self, p):\n        for x in p:\n            if x:\n                break\n        try:\n            self.tts.say(*p, **{})\n        except Exception as e:\n            return self.onStopped(e)\n        except:\n            pass\n        self.onStopped(a * b, key=1, other=2)\n",
            "from naoqi import *\nimport math\nx = [a * 2 for a in range(3)]\nwhile True:\n    if x: continue\n    else:\n        break\n",
            "def f(a, *args, b=1, **kw):\n    yield a\n",
        ] {
            assert!(!screen(fine).full, "{fine:?}");
            assert_eq!(check.syntax_error(fine), None, "{fine:?}");
        }
    }

    /// Each block's body, nested `for` loops in it until `compile()` refuses with "too many
    /// statically nested blocks" (CPython's limit of 20 frame blocks): the screen sends the
    /// first refused script to the full compile, and lets one through that holds 17 blocks
    /// by its weights (under the margin it keeps), so that the nesting of ordinary box scripts (the stock Choice box's six
    /// levels of loops, `if`s and `try`s) needs no code generator.
    #[test]
    fn block_weights_bound_what_compile_counts() {
        let indent = |text: &str, by: usize| -> String {
            text.lines()
                .map(|l| format!("{}{l}\n", "    ".repeat(by)))
                .collect()
        };
        let loops = |n: usize| -> String {
            let mut s: String = (0..n)
                .map(|i| format!("{}for x{i} in y:\n", "    ".repeat(i)))
                .collect();
            s.push_str(&format!("{}pass\n", "    ".repeat(n)));
            s
        };
        // The body's header, the script around a body, the screen's weight for it.
        type Body = (&'static str, fn(&str) -> String, usize);
        let bodies: [Body; 12] = [
            ("if", |b| format!("if x:\n{b}"), 0),
            ("else of if", |b| format!("if x:\n    pass\nelse:\n{b}"), 1),
            (
                "try",
                |b| format!("try:\n{b}except E:\n    pass\nfinally:\n    pass\n"),
                2,
            ),
            (
                "bare except",
                |b| format!("try:\n    pass\nexcept:\n{b}"),
                3,
            ),
            (
                "except as",
                |b| format!("try:\n    pass\nexcept E as e:\n{b}finally:\n    pass\n"),
                3,
            ),
            (
                "else of try",
                |b| format!("try:\n    pass\nexcept E:\n    pass\nelse:\n{b}finally:\n    pass\n"),
                1,
            ),
            (
                "finally",
                |b| format!("try:\n    pass\nexcept E:\n    pass\nfinally:\n{b}"),
                1,
            ),
            ("while", |b| format!("while x:\n{b}"), 1),
            ("with", |b| format!("with a as x, b:\n{b}"), 2),
            (
                "with in brackets",
                |b| format!("with (a as x, b as y, c):\n{b}"),
                3,
            ),
            ("def", |b| format!("def f():\n{b}"), 0),
            ("class", |b| format!("class A:\n{b}"), 0),
        ];
        for (name, around, weight) in bodies {
            let script = |n: usize| around(&indent(&loops(n), 1));
            let Some(refused) = (0..30).find(|&n| compile_here(&script(n), true).is_some()) else {
                panic!("{name}: compile() takes 30 loops in it");
            };
            let found = compile_here(&script(refused), true).unwrap();
            assert!(
                found.2.contains("too many statically nested blocks"),
                "{name}: {found:?}"
            );
            // The screen's weight bounds compile()'s count: 20 blocks in all.
            assert!(
                20 - (refused - 1) <= weight,
                "{name}: weighs {} blocks",
                21 - refused
            );
            assert!(screen(&script(refused)).full, "{name}");
            // Under its margin, the screen lets the loops through.
            let under = 17 - weight;
            assert_eq!(compile_here(&script(under), true), None, "{name}");
            assert!(!screen(&script(under)).full, "{name}");
        }
        let choice = "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        while x:\n            try:\n                for a in b:\n                    if a:\n                        try:\n                            for c in a:\n                                if c:\n                                    pass\n                        except Exception as e:\n                            pass\n            except:\n                pass\n";
        assert_eq!(compile_here(choice, true), None);
        assert!(!screen(choice).full);
    }

    /// A script of random lines, headers and statements among those where the code
    /// generator's errors live, indented as a block structure would be (or not, sometimes).
    fn random_script(seed: &mut u64) -> String {
        const HEADERS: &[&str] = &[
            "def f(a, *b, c=1, **d):",
            "def g(x=(yield)):",
            "class A(B, metaclass=M):",
            "for x in y:",
            "while x:",
            "if x:",
            "elif x:",
            "else:",
            "try:",
            "except:",
            "except E:",
            "except* E:",
            "finally:",
            "with a, b as c:",
            "async def h():",
            "match x:",
        ];
        const STATEMENTS: &[&str] = &[
            "return",
            "return 1",
            "yield x",
            "x = yield",
            "break",
            "continue",
            "pass",
            "if x: break",
            "while x: continue",
            "def k(): return 1",
            "class C: return 1",
            "x = *a",
            "*a, b = c",
            "a, *b, *c = d",
            "f(a=1, a=2)",
            "f(a=1, b=2)",
            "f(*a, **k)",
            "x = [*a]",
            "x = a * b",
            "from m import *",
            "f = lambda: (yield)",
            "__debug__ = 1",
            "await x",
            "print(f'{x}')",
            "x = {1: 2}",
            "case 1: pass",
            "s = 'plain'",
            "s = 'caf\u{e9}'",
            r"s = '\N{NO SUCH NAME}'",
            r"s = '\x1'",
            "s = b'caf\u{e9}'",
            "s = b'cafe'",
            "s = 'a' b'b'",
            r"s = r'\d' # a 'comment'",
            "s = '''two\nlines'''",
            "s = f'{x!z}'",
            r"s = 'x'  # \",
        ];
        let mut next = |n: usize| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((*seed >> 33) as usize) % n
        };
        let mut out = String::new();
        let mut depth = 0;
        let mut after_header = false;
        for _ in 0..(3 + next(10)) {
            if after_header {
                depth += 1;
            } else if next(3) == 0 {
                depth = next(depth + 1);
            }
            after_header = next(3) == 0;
            let line = if after_header {
                HEADERS[next(HEADERS.len())]
            } else {
                STATEMENTS[next(STATEMENTS.len())]
            };
            out.push_str(&"    ".repeat(depth));
            out.push_str(line);
            out.push('\n');
        }
        if after_header {
            out.push_str(&"    ".repeat(depth + 1));
            out.push_str("pass\n");
        }
        out
    }

    #[test]
    fn random_block_structures_get_the_full_compile_s_answer() {
        let check = CompileCheck::default();
        let mut seed = 2026;
        let (mut valid, mut codegen, mut by_shape) = (0, 0, 0);
        let scripts = (0..5_000).flat_map(|_| {
            // Each script, then the same with other plain strings and comments: of the
            // same shape.
            let script = random_script(&mut seed);
            let other = script
                .replace("'plain'", "'another text, caf\u{e9}'")
                .replace("# a 'comment'", "# \"another\" \\");
            [script, other]
        });
        for script in scripts {
            let fixed = crate::fixer::fix(&script);
            let reference = compile_here(&fixed, true);
            by_shape += usize::from(
                screen(&fixed)
                    .shape
                    .is_some_and(|shape| lock(&check.valid_shapes).contains(&shape)),
            );
            valid += usize::from(reference.is_none());
            codegen += usize::from(reference.is_some() && compile_here(&fixed, false).is_none());
            assert_eq!(check.syntax_error(&script), reference, "{script}");
        }
        // Some of them are valid, many refused by the code generator alone, some answered
        // by a valid script of their shape.
        assert!(
            valid > 100 && codegen > 500 && by_shape > 20,
            "{valid} valid, {codegen} refused by the code generator, {by_shape} by shape"
        );
    }

    #[test]
    fn a_valid_script_answers_for_its_shape_and_no_further() {
        // A valid script, one of its shape, and one that differs where the parser looks.
        let cases = [
            (
                "x = 'abc'  # one\n",
                "x = 'caf\u{e9} \"q\"'  # two 'three' \\\n",
                "x = '\\N{NO SUCH NAME}'  # one\n",
            ),
            ("x = u'''abc'''\n", "x = u'''a\nb'''\n", "x = u'''\\x1'''\n"),
            ("x = r'abc'\n", "x = r'a\"b'\n", "x = r'\\'\n"),
            // A coding cookie is a comment too: compile() ignores it in a `str`.
            (
                "# a\nx = 1\n",
                "# -*- coding: no-such-codec -*-\nx = 1\n",
                "# a\nx = 1 +\n",
            ),
            (
                "x = b'abc'  # a\n",
                "x = b'abc'  # \u{e9}\n",
                "x = b'caf\u{e9}'\n",
            ),
            ("x = f'{a}'\n", "x = f'{a}'  # b\n", "x = f'{a!z}'\n"),
        ];
        let shape = |s: &str| screen(s).shape;
        for (valid, same, other) in cases {
            let check = CompileCheck::default();
            assert_eq!(check.syntax_error(valid), None, "{valid:?}");
            if !valid.contains("f'") {
                assert!(shape(valid).is_some(), "{valid:?}");
                assert_eq!(shape(same), shape(valid), "{same:?}");
            }
            assert_eq!(check.syntax_error(same), None, "{same:?}");
            assert!(
                shape(other).is_none() || shape(other) != shape(valid),
                "{other:?}"
            );
            let reference = compile_here(other, true);
            assert!(reference.is_some(), "{other:?}");
            assert_eq!(check.syntax_error(other), reference, "{other:?}");
        }
    }

    #[test]
    fn the_corpus_box_scripts_get_the_full_compile_s_answer() {
        let Some(corpus) =
            choreo_testkit::corpus("the box scripts compiled with and without the code generator")
        else {
            return;
        };
        let files =
            choreo_testkit::files_under(&corpus, &|p| choreo_testkit::has_extension(p, &["xar"]));
        let mut scripts = std::collections::BTreeSet::new();
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            let Ok(parsed) = choreo_xar::read_xar(&f.display().to_string(), &bytes) else {
                continue;
            };
            parsed.value.root_box.walk(&mut |b| {
                scripts.insert(b.code().to_string());
            });
        }
        assert!(scripts.len() > 500, "{}", scripts.len());
        let check = CompileCheck::default();
        let (mut screened, mut errors) = (0, 0);
        for script in &scripts {
            let fixed = crate::fixer::fix(script);
            let reference = compile_here(&fixed, true);
            screened += usize::from(!screen(&fixed).full);
            errors += usize::from(reference.is_some());
            assert_eq!(check.syntax_error(script), reference, "{script}");
        }
        println!(
            "{} distinct scripts, {screened} judged without the code generator, {errors} with errors",
            scripts.len()
        );
        assert!(
            screened * 10 > scripts.len() * 8,
            "{screened} of {}",
            scripts.len()
        );
    }
}
