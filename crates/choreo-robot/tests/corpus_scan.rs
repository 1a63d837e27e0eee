//! Every NAOqi module and method the corpus's box scripts call is in NAOqi's catalogue, but
//! for a short list of deliberate exceptions, each with its reason.
//!
//! The scan reads the scripts of every `.xar` (and any `.py`) of the shared corpus: proxies
//! made by `ALProxy("X")` (also `naoqi.ALProxy`, quotes either way) or `….service("X")`,
//! kept in a name or an attribute (`self.tts = ALProxy(…)`, then `self.tts.say(…)`) or
//! called at once; Choregraphe's injected globals (`ALLeds.fadeRGB(…)`); `.post.` calls.
//! Comments are left out. It prints what it found.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use choreo_robot::naoqi::{Catalogue, MODULE_BASE};

/// Modules the corpus names that the catalogue deliberately lacks (none: NAOqi 1.x's
/// ALVisionToolbox, ALFaceTracker and ALInfrared, which Choregraphe 2.1's boxes still call,
/// are in it).
const MODULE_EXCEPTIONS: &[(&str, &str)] = &[];

/// Methods the corpus calls that the catalogue deliberately lacks.
const METHOD_EXCEPTIONS: &[(&str, &str, &str)] = &[(
    "ALMemory",
    "insertEvent",
    "a mistake in a training script: no source has it (insertData or raiseEvent is meant)",
)];

/// What the scan found: modules acquired and calls, with their counts.
#[derive(Default)]
struct Found {
    modules: BTreeMap<String, usize>,
    calls: BTreeMap<(String, String), usize>,
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

fn scan_script(script: &str, found: &mut Found) {
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

fn scan_file(path: &Path, found: &mut Found) -> bool {
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

#[test]
fn every_module_and_method_the_corpus_calls_is_in_the_catalogue() {
    let Some(corpus) = choreo_testkit::corpus("the NAOqi catalogue's corpus scan") else {
        return;
    };
    let files = choreo_testkit::files_under(&corpus, &|p: &Path| {
        choreo_testkit::has_extension(p, &["xar", "py"])
    });
    let mut found = Found::default();
    let read = files.iter().filter(|f| scan_file(f, &mut found)).count();
    assert_eq!(read, files.len(), "every file is readable");
    assert!(read > 100, "{read} files");

    let catalogue = Catalogue::naoqi();
    let generic = |m: &str| MODULE_BASE.iter().any(|(n, _, _)| *n == m);
    // Python's own methods (`ALModule2.__init__` on a base class of that name) are no calls.
    let dunder = |m: &str| m.starts_with("__") && m.ends_with("__");
    let module_exception = |m: &str| MODULE_EXCEPTIONS.iter().any(|(n, _)| *n == m);
    let method_exception =
        |m: &str, f: &str| METHOD_EXCEPTIONS.iter().any(|(n, g, _)| *n == m && *g == f);

    let mut missing = Vec::new();
    let mut modules_seen: BTreeSet<&str> = BTreeSet::new();
    let mut exceptions_seen: BTreeSet<(&str, &str)> = BTreeSet::new();
    for module in found.modules.keys() {
        modules_seen.insert(module);
    }
    for (module, method) in found.calls.keys() {
        if dunder(method) {
            continue;
        }
        modules_seen.insert(module);
        if generic(method) || module_exception(module) {
            continue;
        }
        if method_exception(module, method) {
            exceptions_seen.insert((module, method));
            continue;
        }
        if !catalogue
            .module(module)
            .is_some_and(|m| m.has_method(method))
        {
            missing.push(format!("{module}.{method}"));
        }
    }
    for module in &modules_seen {
        if catalogue.module(module).is_none() && !module_exception(module) {
            missing.push(format!("module {module}"));
        }
    }

    let calls: usize = found.calls.values().sum();
    println!(
        "corpus scan: {read} files, {} modules, {} distinct methods, {calls} calls",
        modules_seen.len(),
        found.calls.len()
    );
    for module in &modules_seen {
        let methods: Vec<String> = found
            .calls
            .iter()
            .filter(|((m, _), _)| m == module)
            .map(|((_, f), n)| format!("{f} {n}"))
            .collect();
        println!(
            "  {module} (acquired {}): {}",
            found.modules.get(*module).copied().unwrap_or(0),
            methods.join(", ")
        );
    }
    for (module, why) in MODULE_EXCEPTIONS {
        println!("  exception: module {module}: {why}");
    }
    for (module, method, why) in METHOD_EXCEPTIONS {
        println!("  exception: {module}.{method}: {why}");
    }

    assert!(missing.is_empty(), "not in the catalogue: {missing:?}");
    // The exceptions stay a short list of what the corpus really calls.
    for (module, _) in MODULE_EXCEPTIONS {
        assert!(
            modules_seen.contains(module),
            "exception for {module}: not seen"
        );
    }
    for (module, method, _) in METHOD_EXCEPTIONS {
        assert!(
            exceptions_seen.contains(&(*module, *method)),
            "exception for {module}.{method}: not seen"
        );
    }
    // The scan sees the usual forms: a proxy kept in an attribute, an injected global, a
    // `.post` call, a `session.service` proxy.
    for (module, method) in [
        ("ALTextToSpeech", "say"),
        ("ALLeds", "fadeRGB"),
        ("ALRobotPosture", "goToPosture"),
        ("ALTabletService", "showWebview"),
        ("ALMemory", "subscribeToEvent"),
    ] {
        let key = (module.to_string(), method.to_string());
        assert!(
            found.calls.contains_key(&key),
            "{module}.{method} not found"
        );
    }
}

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
