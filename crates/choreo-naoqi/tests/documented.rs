//! Every method of every module page of the NAOqi 2.1 and 2.8 documentation is served by the
//! simulated robot or listed in docs/simulated-robot.md's "Documented methods not served",
//! and the list stays true: every method it lists is documented and refused by the simulated
//! NAO and Pepper. The documented methods are `fixtures/documented-methods.tsv`, which
//! `scripts/naoqi-coverage.py` writes from the mirrors' module pages (run it again when a
//! method is served or the list changes).
//!
//! Each is called with no arguments: a served method answers, starts, or refuses its
//! arguments; only one the robot does not serve answers `UnknownService` or
//! `UnknownMethod`. The methods of base classes (ALExtractor, ALVisionExtractor) are served
//! through the modules inheriting them, which the script checks.

use std::path::Path;

use choreo_engine::{Robot, RobotError};
use choreo_naoqi::{Model, SimRobot};

/// (module, method) of every method the section lists.
fn listed() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/simulated-robot.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let section = text
        .split_once("## Documented methods not served")
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .expect("the section");
    let mut out = Vec::new();
    let mut module = String::new();
    for line in section.lines() {
        // `##### ALMotion (33)`, then `- \`method\` [2.1]: why`.
        if let Some(rest) = line.strip_prefix("##### ") {
            module = rest.split_whitespace().next().unwrap_or("").to_string();
        } else if let Some(rest) = line.strip_prefix("- **") {
            // `- **ALRecharge** (13; why): \`a\`, \`b\` [2.8], ...`
            let (name, methods) = rest.split_once("**").unwrap();
            for m in methods.split('`').skip(1).step_by(2) {
                out.push((name.to_string(), m.to_string()));
            }
        } else if let Some(rest) = line.strip_prefix("- `")
            && !module.is_empty()
        {
            out.push((module.clone(), rest.split('`').next().unwrap().to_string()));
        }
    }
    out
}

/// (module, method, base class) of every documented method, from the fixture.
fn documented() -> Vec<(String, String, bool)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/documented-methods.tsv");
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string(), f[3] == "base")
        })
        .collect()
}

/// Documented methods served above the simulated robot's calls: they return an object,
/// which a call cannot carry. `ALMemory.subscriber` is served by choreo-qi's server
/// (`robot.rs`) and box code's `naoqi.py`.
const SERVED_ABOVE: &[(&str, &str)] = &[("ALMemory", "subscriber")];

/// Whether `robot` refuses `module.method` as not served.
fn refused(robot: &SimRobot, module: &str, method: &str) -> bool {
    matches!(
        robot.call(module, method, Vec::new()),
        Err(RobotError::UnknownService(_) | RobotError::UnknownMethod { .. })
    )
}

#[test]
fn every_documented_method_is_served_or_listed_and_every_listed_one_is_documented() {
    let documented = documented();
    // The 2.1 and 2.8 module pages document 1,132 methods (scripts/naoqi-coverage.py).
    assert!(documented.len() > 1100, "{} documented", documented.len());
    let listed: std::collections::BTreeSet<(String, String)> = listed().into_iter().collect();
    let (nao, pepper) = (SimRobot::new(Model::Nao), SimRobot::new(Model::Pepper));
    let mut neither = Vec::new();
    for (module, method, base) in &documented {
        let key = (module.clone(), method.clone());
        if *base || listed.contains(&key) || SERVED_ABOVE.contains(&(module, method)) {
            continue;
        }
        if refused(&nao, module, method) && refused(&pepper, module, method) {
            neither.push(format!("{module}.{method}"));
        }
    }
    assert!(
        neither.is_empty(),
        "documented, not served and not listed:\n{}",
        neither.join("\n")
    );
    let names: std::collections::BTreeSet<(String, String)> =
        documented.into_iter().map(|(m, n, _)| (m, n)).collect();
    let stale: Vec<String> = listed
        .iter()
        .filter(|k| !names.contains(*k))
        .map(|(m, n)| format!("{m}.{n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "listed, not documented:\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_documented_method_listed_as_not_served_is_refused() {
    let listed = listed();
    assert!(listed.len() > 400, "{} listed", listed.len());
    let mut served = Vec::new();
    for model in [Model::Nao, Model::Pepper] {
        let robot = SimRobot::new(model);
        for (module, method) in &listed {
            match robot.call(module, method, Vec::new()) {
                Err(RobotError::UnknownService(_) | RobotError::UnknownMethod { .. }) => {}
                other => served.push(format!("{model:?} {module}.{method}: {other:?}")),
            }
        }
    }
    assert!(
        served.is_empty(),
        "listed as not served, but served:\n{}",
        served.join("\n")
    );
}
