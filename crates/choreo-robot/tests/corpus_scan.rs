//! Every NAOqi module and method the corpus's box scripts call is in NAOqi's catalogue, but
//! for a short list of deliberate exceptions, each with its reason.
//!
//! The scan (`choreo_testkit::naoqi_calls`) reads the scripts of every `.xar` (and any `.py`)
//! of the shared corpus. It prints what it found. choreo-naoqi's `corpus_served` test checks
//! that the simulated robot serves the same calls.

use std::collections::BTreeSet;

use choreo_robot::naoqi::{Catalogue, MODULE_BASE};
use choreo_testkit::naoqi_calls::scan_dir;

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

#[test]
fn every_module_and_method_the_corpus_calls_is_in_the_catalogue() {
    let Some(corpus) = choreo_testkit::corpus("the NAOqi catalogue's corpus scan") else {
        return;
    };
    let (found, read, files) = scan_dir(&corpus);
    assert_eq!(read, files, "every file is readable");
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
