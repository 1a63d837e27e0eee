//! What `choreo check` finds in a box script before a run: its syntax errors (compiled as a
//! run compiles it) and, read from its text, what will fail when a line runs: an output
//! fired that the box does not declare, a parameter read that neither it nor a box around
//! it has (a parameter is looked up through the ancestors, S3), a NAOqi module that no
//! NAOqi version has, a method called on a proxy of a known module that none of its versions
//! has (`self.tts = ALProxy("ALTextToSpeech")`, then `self.tts.sayy("hi")`; `post.` looked
//! through).
//!
//! The text rules look at one line at a time, outside comments, for literal names only
//! (`self.getParameter("Speed")`, `ALProxy("ALMotion")`, `self.onDone()`): a name built at
//! run time is not judged. Outputs: a call `self.onXxx(...)` (the `on` + capital naming of
//! Choregraphe's outputs) that is neither an output, an input, nor a method the script
//! defines; other output names cannot be told from methods of the box API. Not judged:
//! boxes whose script a plugin generates at run time (the stock Choice box), and input
//! handlers of inputs the box does not have (they never run: the stock Comment box).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use choreo_robot::naoqi::{Catalogue, Module};
use choreo_xar::model::BoxDef;
use choreo_xar::{ScriptCheck, ScriptProblem, Severity};
use memchr::memmem::Finder;

/// Syntax (CPython) and the text rules.
#[derive(Debug, Default)]
pub struct BoxScripts {
    compile: crate::CompileCheck,
    /// What each script met so far is, whatever box it is in: a project holds the stock
    /// boxes' scripts many times (the corpus: 6,846 scripts, about 1,000 distinct).
    read: Mutex<foldhash::HashMap<String, Arc<Read>>>,
}

/// What a script is, whatever box it is in.
#[derive(Debug)]
enum Read {
    /// Its syntax errors (CPython's).
    Invalid(Vec<ScriptProblem>),
    /// What the text rules see in it.
    Valid(Vec<Seen>),
}

impl ScriptCheck for BoxScripts {
    fn check(&self, b: &BoxDef, ancestors: &[&BoxDef]) -> Vec<ScriptProblem> {
        match &*self.read(b, ancestors) {
            Read::Invalid(problems) => problems.clone(),
            Read::Valid(seen) => judge(seen, b, ancestors),
        }
    }
}

impl BoxScripts {
    /// [`Read`] of the script of `b`, read once per script.
    fn read(&self, b: &BoxDef, ancestors: &[&BoxDef]) -> Arc<Read> {
        let lock = || choreo_base::lock(&self.read);
        let code = b.code();
        if let Some(read) = lock().get(code) {
            return Arc::clone(read);
        }
        // Compiling does not depend on the box: only its code is read.
        let problems = self.compile.check(b, ancestors);
        let read = Arc::new(if problems.is_empty() {
            Read::Valid(seen_in(code))
        } else {
            Read::Invalid(problems)
        });
        lock().insert(code.to_string(), Arc::clone(&read));
        read
    }
}

/// A string literal's content right after `at` in `line` (`"x"` or `'x'`), if one starts
/// there (spaces allowed before it).
fn literal_at(line: &str, at: usize) -> Option<&str> {
    let rest = line.get(at..)?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = rest.get(1..)?;
    body.find(quote).map(|end| &body[..end])
}

/// The line without its comment (a `#` outside quotes). Bytes, not characters: the quotes
/// and `#` are ASCII, which no byte of another character's UTF-8 can be.
fn code_part(line: &str) -> &str {
    let mut quote: Option<u8> = None;
    for (i, c) in line.bytes().enumerate() {
        match (quote, c) {
            (None, b'#') => return line.get(..i).unwrap_or(line),
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// The calls whose first argument, a string, names a NAOqi module.
pub const MODULE_OPENERS: &[&str] = &["ALProxy(", "service("];

/// Searchers of what the rules look for, made once (a searcher made per line cost more
/// than the search).
static OPENERS: LazyLock<Vec<Finder<'static>>> =
    LazyLock::new(|| MODULE_OPENERS.iter().map(Finder::new).collect());
static GET_PARAMETER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("getParameter("));
static SELF_ON: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("self.on"));

/// The proxies a script names, from its lines `X = ALProxy("M")` and `X = ....service("M")`
/// (`self.tts` → ALTextToSpeech), for modules the catalogue knows; a line that goes on
/// after the call (`.subscriber(k).signal`) names something else.
pub fn proxies(code: &str) -> HashMap<String, &'static Module> {
    let catalogue = Catalogue::naoqi();
    let mut out = HashMap::new();
    for line in code.lines() {
        // A call of a module opener has its parenthesis.
        if !line.contains('(') {
            continue;
        }
        let line = code_part(line);
        let Some((lhs, rhs)) = line.split_once('=') else {
            continue;
        };
        // The call must end the line: `X = ....service("M").subscriber(k)` is no proxy.
        let rhs = rhs.trim_end();
        let Some(module) = MODULE_OPENERS
            .iter()
            .find_map(|o| rhs.find(o).and_then(|i| literal_at(rhs, i + o.len())))
            .filter(|m| ends_with_literal_call(rhs, m))
            .and_then(|m| catalogue.module(m))
        else {
            continue;
        };
        let lhs = lhs.trim();
        if !lhs.is_empty()
            && lhs
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            out.insert(lhs.to_string(), module);
        }
    }
    out
}

/// Whether `text` ends with the string literal `m` (either quote) and the call's `)`.
fn ends_with_literal_call(text: &str, m: &str) -> bool {
    let Some(body) = text.strip_suffix(')') else {
        return false;
    };
    ['"', '\''].iter().any(|&q| {
        body.strip_suffix(q)
            .and_then(|b| b.strip_suffix(m))
            .is_some_and(|b| b.ends_with(q))
    })
}

/// The methods `line` calls on the proxies (`proxy.method(`, `proxy.post.method(`, each
/// proxy given as `proxy.`) that their module has in no version: (column, proxy's module,
/// method).
fn unknown_methods<'a>(
    line: &'a str,
    proxies: &[(String, &'static Module)],
) -> Vec<(usize, &'static Module, &'a str)> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (dotted, module) in proxies {
        for (i, _) in line.match_indices(dotted.as_str()) {
            if line[..i]
                .chars()
                .next_back()
                .is_some_and(|c| word(c) || c == '.')
            {
                continue;
            }
            let mut rest = &line[i + dotted.len()..];
            if let Some(after) = rest.strip_prefix("post.") {
                rest = after;
            }
            let method_len = rest.len() - rest.trim_start_matches(word).len();
            let method = &rest[..method_len];
            let called = rest[method_len..].trim_start().starts_with('(');
            if called && !method.is_empty() && !module.has_method(method) {
                out.push((i, *module, method));
            }
        }
    }
    out.sort_by_key(|(i, _, _)| *i);
    out
}

/// What the text rules see in a script, whatever box it is in (the box decides the rest):
/// each call they judge, in the order they report them.
#[derive(Debug)]
enum Seen {
    /// A warning in any box: a module or a method no NAOqi version has.
    Always {
        line: u32,
        column: usize,
        message: String,
    },
    /// `self.getParameter("name")`: a warning unless the box or one around it has `name`.
    Parameter {
        line: u32,
        column: usize,
        name: String,
    },
    /// `self.onXxx(...)`, a call the script does not define: a warning unless the box
    /// declares it, a plugin makes its script, or the line is in `onInput_<handler>` of an
    /// input the box does not have (it never runs).
    Output {
        line: u32,
        column: usize,
        name: String,
        handler: Option<String>,
    },
}

/// What the rules see in `code`, line by line.
fn seen_in(code: &str) -> Vec<Seen> {
    let proxies: Vec<(String, &'static Module)> = proxies(code)
        .into_iter()
        .map(|(name, module)| (format!("{name}."), module))
        .collect();
    let defined: Vec<&str> = code
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("def "))
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .collect();
    let catalogue = Catalogue::naoqi();
    let mut out = Vec::new();
    // The method the line is in (the last `def` above it at a smaller indentation).
    let mut methods: Vec<(usize, &str)> = Vec::new();
    for (n, raw) in code.lines().enumerate() {
        let indent = raw.len() - raw.trim_start().len();
        if !raw.trim().is_empty() {
            methods.retain(|(at, _)| *at < indent);
        }
        if let Some(rest) = raw.trim_start().strip_prefix("def ") {
            let name = rest.split('(').next().unwrap_or_default().trim();
            methods.push((indent, name));
            continue;
        }
        // Every rule looks at a call: a line without one has nothing to say.
        if !raw.contains('(') {
            continue;
        }
        let handler = || {
            methods
                .last()
                .and_then(|(_, m)| m.strip_prefix("onInput_"))
                .map(str::to_string)
        };
        let line = code_part(raw);
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        for i in GET_PARAMETER.find_iter(line.as_bytes()) {
            if let Some(name) = literal_at(line, i + "getParameter(".len())
                && line[..i].ends_with("self.")
            {
                out.push(Seen::Parameter {
                    line: line_no,
                    column: i,
                    name: name.to_string(),
                });
            }
        }
        for (i, module, method) in unknown_methods(line, &proxies) {
            let closest = module.closest(method, 1);
            let hint = closest
                .first()
                .map_or(String::new(), |c| format!(" (did you mean {c}?)"));
            out.push(Seen::Always {
                line: line_no,
                column: i,
                message: format!(
                    "calls {}.{method}, which no NAOqi version has{hint}",
                    module.name
                ),
            });
        }
        unknown_modules(line, line_no, catalogue, &mut out);
        for i in SELF_ON.find_iter(line.as_bytes()) {
            let rest = &line[i + "self.".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let called = rest[name.len()..].trim_start().starts_with('(');
            let capital = name.chars().nth(2).is_some_and(char::is_uppercase);
            if called
                && capital
                && !name.starts_with("onInput_")
                && !defined.contains(&name.as_str())
                && !matches!(name.as_str(), "onLoad" | "onUnload")
            {
                out.push(Seen::Output {
                    line: line_no,
                    column: i,
                    name,
                    handler: handler(),
                });
            }
        }
    }
    out
}

/// `ALProxy("ALXxx")` or `service("ALXxx")` on `line` naming a module no NAOqi version has.
fn unknown_modules(line: &str, line_no: u32, catalogue: &Catalogue, out: &mut Vec<Seen>) {
    for (pattern, finder) in MODULE_OPENERS.iter().zip(OPENERS.iter()) {
        for i in finder.find_iter(line.as_bytes()) {
            if let Some(name) = literal_at(line, i + pattern.len())
                && name.starts_with("AL")
                && catalogue.module(name).is_none()
            {
                out.push(Seen::Always {
                    line: line_no,
                    column: i,
                    message: format!("uses module {name}, which no NAOqi version has (2.1 to 2.9)"),
                });
            }
        }
    }
}

/// The warnings of what the rules `seen` in the script of `b` (inside `ancestors`).
fn judge(seen: &[Seen], b: &BoxDef, ancestors: &[&BoxDef]) -> Vec<ScriptProblem> {
    let warn = |line: u32, column: usize, message: String| ScriptProblem {
        severity: Severity::Warning,
        line,
        column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        message,
    };
    let has_input = |name: &str| b.inputs.iter().any(|p| p.name == name);
    seen.iter()
        .filter_map(|s| match s {
            Seen::Always {
                line,
                column,
                message,
            } => Some(warn(*line, *column, message.clone())),
            Seen::Parameter { line, column, name } => (b.parameter(name).is_none()
                && ancestors.iter().all(|a| a.parameter(name).is_none()))
            .then(|| {
                warn(
                    *line,
                    *column,
                    format!(
                        "reads parameter {name:?}, which neither the box nor a box around it has"
                    ),
                )
            }),
            Seen::Output {
                line,
                column,
                name,
                handler,
            } => {
                let dead = handler.as_deref().is_some_and(|input| !has_input(input));
                (!dead
                    && b.plugin.is_none()
                    && !b.outputs.iter().any(|o| o.name == *name)
                    && !has_input(name))
                .then(|| {
                    warn(
                        *line,
                        *column,
                        format!("fires output {name}, which the box does not declare"),
                    )
                })
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_outputs_parameters_and_modules_are_found_on_their_lines() {
        let xml = r#"<?xml version="1.0"?><ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3"><Box name="root" id="-1"><script language="4"><content><![CDATA[class MyClass(GeneratedClass):
    def onLoad(self):
        self.m = ALProxy("ALMotion")
        self.x = ALProxy("ALNoSuchModule")  # ALProxy("ALAlsoNot") in a comment
        self.m.post.moveToo(1, 0, 0); self.m.moveTo(1, 0, 0); self.m.exit()
        s = self.getParameter("Speed") + self.getParameter("Nope")
    def onInput_onStart(self):
        self.onStopped()
        self.onDone(1)
        self.onHelper()
    def onHelper(self):
        pass
]]></content></script><Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2"/><Parameter name="Speed" inherits_from_parent="0" content_type="2" value="1" default_value="1" min="0" max="10" tooltip="" id="3"/></Box></ChoregrapheProject>"#;
        let x = choreo_xar::read_xar("t.xar", xml.as_bytes()).unwrap().value;
        let found: Vec<(u32, String)> = judge(&seen_in(x.root_box.code()), &x.root_box, &[])
            .into_iter()
            .map(|p| (p.line, p.message))
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    4,
                    "uses module ALNoSuchModule, which no NAOqi version has (2.1 to 2.9)".into()
                ),
                (
                    5,
                    "calls ALMotion.moveToo, which no NAOqi version has (did you mean moveTo?)"
                        .into()
                ),
                (
                    6,
                    "reads parameter \"Nope\", which neither the box nor a box around it has"
                        .into()
                ),
                (
                    9,
                    "fires output onDone, which the box does not declare".into()
                ),
            ]
        );
    }
}
