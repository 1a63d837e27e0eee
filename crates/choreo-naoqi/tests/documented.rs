//! docs/simulated-robot.md's "Documented methods not served" (made by
//! `scripts/naoqi-coverage.py` from the NAOqi 2.1 and 2.8 module pages) stays true: every
//! method it lists is refused by the simulated NAO and Pepper as a module or a method they do
//! not serve. A method served since is to be taken off the list (run the script again).
//! Each is called with no arguments: a served method answers, starts, or refuses its
//! arguments; only one the robot does not serve answers `UnknownService` or
//! `UnknownMethod`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
