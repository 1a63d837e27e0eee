//! What NAOqi modules and methods box scripts call, found by reading them: the corpus scan
//! shared by the catalogue's test (every call is in NAOqi's catalogue) and the simulated
//! robot's (every call is served).
//!
//! The scan reads scripts as text: proxies made by `ALProxy("X")` (also `naoqi.ALProxy`,
//! quotes either way) or `….service("X")`, kept in a name or an attribute
//! (`self.tts = ALProxy(…)`, then `self.tts.say(…)`) or called at once; Choregraphe's
//! injected globals (`ALLeds.fadeRGB(…)`); `.post.` calls. Comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What the scan found: modules acquired and calls, with their counts.
#[derive(Default, Debug)]
pub struct Found {
    /// Module → how many times a script acquires a proxy to it.
    pub modules: BTreeMap<String, usize>,
    /// (module, method) → how many calls.
    pub calls: BTreeMap<(String, String), usize>,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    &s[..s.find(|c| !is_ident(c)).unwrap_or(s.len())]
}

/// XML escapes undone (scripts sit in CDATA, but older files escape them).
fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A line without its comment (a `#` outside quotes).
fn code(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// Every acquisition in `line`: (start of the expression, module, end of the call).
fn acquisitions(line: &str) -> Vec<(usize, String, usize)> {
    let mut out = Vec::new();
    for opener in ["ALProxy(", ".service("] {
        let mut from = 0;
        while let Some(at) = line[from..].find(opener).map(|i| i + from) {
            from = at + opener.len();
            let standalone =
                opener.starts_with('.') || !line[..at].ends_with(|c: char| is_ident(c));
            let rest = line[from..].trim_start();
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            let name = ident(&rest[1..]);
            if !standalone || name.is_empty() || !rest[1 + name.len()..].starts_with(quote) {
                continue;
            }
            let end = line[from..].find(')').map_or(line.len(), |i| from + i + 1);
            // The expression starts at `naoqi.ALProxy`, or at the receiver of `.service`.
            let start = if opener.starts_with('.') {
                line[..at]
                    .rfind(|c: char| !(is_ident(c) || c == '.' || c == '(' || c == ')'))
                    .map_or(0, |i| i + 1)
            } else {
                line[..at].strip_suffix("naoqi.").map_or(at, str::len)
            };
            out.push((start, name.to_string(), end));
        }
    }
    out
}

/// The module of `rhs` when it is a proxy and nothing else (not `….service("X").signal`).
fn proxy(rhs: &str) -> Option<String> {
    match acquisitions(rhs).first() {
        Some((0, module, end)) if *end == rhs.len() => Some(module.clone()),
        _ => None,
    }
}

/// `lhs = rhs` of a plain assignment line (`lhs` a name or `self.name`), if it is one.
fn assignment(line: &str) -> Option<(&str, &str)> {
    let (lhs, rhs) = line.split_once('=')?;
    let lhs = lhs.trim();
    let bare = lhs.strip_prefix("self.").unwrap_or(lhs);
    let plain = !bare.is_empty() && bare.chars().all(is_ident) && !rhs.starts_with('=');
    plain.then_some((lhs, rhs.trim()))
}

/// Calls `name.method(` and `name.post.method(` in `line`, `name` standing alone.
fn calls_on<'a>(line: &'a str, name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let dotted = format!("{name}.");
    let mut from = 0;
    while let Some(at) = line[from..].find(&dotted).map(|i| i + from) {
        from = at + dotted.len();
        let before = line[..at].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == '.') {
            continue;
        }
        let rest = &line[from..];
        let rest = rest.strip_prefix("post.").unwrap_or(rest);
        let method = ident(rest);
        if !method.is_empty() && rest[method.len()..].trim_start().starts_with('(') {
            out.push(method);
        }
    }
    out
}

/// Adds what one script acquires and calls to `found`.
pub fn scan_script(script: &str, found: &mut Found) {
    let lines: Vec<&str> = script.lines().map(code).collect();
    let classes: BTreeSet<&str> = lines
        .iter()
        .filter_map(|l| l.trim_start().strip_prefix("class "))
        .map(ident)
        .collect();
    // Pass 1: what each name is bound to. A name bound to one module only is that module's
    // throughout the script (a proxy made in onLoad serves the methods written above it, and
    // `x = None` or `x = self._getService()` leave it a proxy); a name bound to several
    // follows the assignments in order.
    let mut bound: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for line in &lines {
        if let Some((lhs, rhs)) = assignment(line)
            && let Some(module) = proxy(rhs)
        {
            bound.entry(lhs).or_default().insert(module);
        }
    }
    let fixed: BTreeMap<&str, String> = bound
        .iter()
        .filter(|(_, modules)| modules.len() == 1)
        .filter_map(|(name, modules)| Some((*name, modules.first()?.clone())))
        .collect();
    let mut current: BTreeMap<&str, String> = fixed.clone();
    for line in &lines {
        for (_, module, end) in acquisitions(line) {
            *found.modules.entry(module.clone()).or_default() += 1;
            let rest = &line[end..];
            let rest = rest
                .strip_prefix('.')
                .map(|r| r.strip_prefix("post.").unwrap_or(r));
            if let Some(rest) = rest {
                let method = ident(rest);
                if !method.is_empty() && rest[method.len()..].trim_start().starts_with('(') {
                    *found.calls.entry((module, method.to_string())).or_default() += 1;
                }
            }
        }
        for (name, module) in &current {
            for method in calls_on(line, name) {
                *found
                    .calls
                    .entry((module.clone(), method.to_string()))
                    .or_default() += 1;
            }
        }
        // Injected globals: `ALLeds.fadeRGB(…)`, `DCM.set(…)`.
        let mut at = 0;
        while let Some(i) = line[at..].find(['A', 'D']).map(|i| i + at) {
            let global = ident(&line[i..]);
            let module_like = (global.starts_with("AL")
                && global[2..].starts_with(|c: char| c.is_ascii_uppercase()))
                || global == "DCM";
            let free = !line[..i].ends_with(|c: char| is_ident(c) || c == '.');
            let ours = ["ALProxy", "ALBroker", "ALModule"].contains(&global)
                || classes.contains(global)
                || current.contains_key(global);
            if module_like && free && !ours {
                for method in calls_on(&line[i..], global) {
                    *found
                        .calls
                        .entry((global.to_string(), method.to_string()))
                        .or_default() += 1;
                }
            }
            at = i + global.len().max(1);
        }
        if let Some((lhs, rhs)) = assignment(line) {
            match proxy(rhs) {
                Some(module) => {
                    current.insert(lhs, module);
                }
                None if !fixed.contains_key(lhs) => {
                    current.remove(lhs);
                }
                None => {}
            }
        }
    }
}

/// Adds what the scripts of one file (a `.xar`, box by box, or a `.py`) call to `found`;
/// false when the file cannot be read.
pub fn scan_file(path: &Path, found: &mut Found) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let text = unescape(&String::from_utf8_lossy(&bytes));
    // A XAR's scripts one by one (a name means nothing across boxes); a `.py` whole.
    for script in text.split("<script") {
        scan_script(script, found);
    }
    true
}

/// Every module and method the scripts of the `.xar` and `.py` files under `dir` call, and
/// how many files were read (every file found, unless one cannot be read).
pub fn scan_dir(dir: &Path) -> (Found, usize, usize) {
    let files = crate::files_under(dir, &|p: &Path| crate::has_extension(p, &["xar", "py"]));
    let mut found = Found::default();
    let read = files.iter().filter(|f| scan_file(f, &mut found)).count();
    (found, read, files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scanner_reads_each_form_of_call() {
        let script = r#"
    import naoqi
    class MyClass(GeneratedClass):
        def onLoad(self):
            self.tts = ALProxy("ALTextToSpeech")
            self.memory = self.session().service('ALMemory')
            motion = naoqi.ALProxy("ALMotion", True)
            motion.post.moveTo(1, 0, 0)
            self.leds = None
        def onInput_onStart(self):
            self.tts.post.say("hi")  # self.tts.sayNot("x")
            # self.memory.notACall()
            ALProxy("ALLeds").fadeRGB("FaceLeds", 0xff, 1)
            ALFrameManager.getBehaviorPath(self.behaviorId)
            MyClass.helper(self)
            self.memory.getData("x")
            self.other = Thing()
            self.other.connect()
    "#;
        let mut found = Found::default();
        scan_script(script, &mut found);
        let calls: BTreeSet<String> = found
            .calls
            .keys()
            .map(|(m, f)| format!("{m}.{f}"))
            .collect();
        let expected: BTreeSet<String> = [
            "ALTextToSpeech.say",
            "ALMotion.moveTo",
            "ALLeds.fadeRGB",
            "ALFrameManager.getBehaviorPath",
            "ALMemory.getData",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(calls, expected);
        assert_eq!(found.modules.len(), 4, "{:?}", found.modules);
    }
}
