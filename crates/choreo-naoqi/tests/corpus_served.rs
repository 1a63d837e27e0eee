//! Every NAOqi module and method the corpus's box scripts call is served by the simulated
//! robot: a real robot serves them, so one the simulation lacks makes a behavior take a
//! path it would not take on the robot (issue 12).
//!
//! The calls come from the same scan as the catalogue's test (`choreo_testkit::naoqi_calls`;
//! choreo-robot's `corpus_scan` checks that each is in NAOqi's catalogue). Calls the
//! catalogue does not know are the scripts' own mistakes and are left to that test. Each
//! method is posted with no arguments: a served method answers, starts, or refuses its
//! arguments; only a method the robot does not serve answers `UnknownMethod`. A few methods
//! need the behavior and are answered by the box host before they reach the robot
//! (`ALFrameManager.getBehaviorPath`, `ALMemory.subscriber`...): the host's table of them,
//! `_SPECIAL` in choreo-python's `naoqi.py`, is read and they count as served.

use std::collections::BTreeSet;
use std::path::Path;

use choreo_engine::{Robot, RobotError};
use choreo_naoqi::{Model, SimRobot};
use choreo_robot::naoqi::Catalogue;
use choreo_testkit::naoqi_calls::scan_dir;

/// The methods the Python box host answers itself, from its `_SPECIAL` table: lines
/// `    "ALModule": {` open a module, lines `        "method": …` name its methods.
fn host_served() -> BTreeSet<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../choreo-python/src/python/naoqi.py");
    let text = std::fs::read_to_string(&path).expect("choreo-python's naoqi.py");
    let table = text
        .split_once("_SPECIAL = {")
        .and_then(|(_, rest)| rest.split_once("\n}\n"))
        .expect("naoqi.py has a _SPECIAL table")
        .0;
    let quoted = |l: &str| {
        l.trim()
            .strip_prefix('"')?
            .split_once('"')
            .map(|p| p.0.to_string())
    };
    let mut module = String::new();
    let mut out = BTreeSet::new();
    for line in table.lines() {
        if line.starts_with("    \"") && line.trim_end().ends_with('{') {
            module = quoted(line).unwrap_or_default();
        } else if line.starts_with("        \"")
            && let Some(method) = quoted(line)
        {
            out.insert((module.clone(), method));
        }
    }
    assert!(out.len() > 5, "the host's table read: {out:?}");
    out
}

#[test]
fn every_naoqi_call_the_corpus_makes_is_served_by_the_simulated_robot() {
    let Some(corpus) = choreo_testkit::corpus("the simulated robot's corpus coverage") else {
        return;
    };
    let (found, read, files) = scan_dir(&corpus);
    assert_eq!(read, files, "every file is readable");
    let catalogue = Catalogue::naoqi();
    let nao = SimRobot::new(Model::Nao);
    let pepper = SimRobot::new(Model::Pepper);
    // A module served on either model counts (ALTabletService is Pepper's).
    let robot_for = |module: &str| [&nao, &pepper].into_iter().find(|r| r.has_service(module));

    let mut modules: BTreeSet<&str> = found.modules.keys().map(String::as_str).collect();
    modules.extend(found.calls.keys().map(|(m, _)| m.as_str()));
    let host = host_served();
    let mut missing = Vec::new();
    let mut served = 0;
    for module in modules.iter().filter(|m| catalogue.module(m).is_some()) {
        if robot_for(module).is_none() {
            missing.push(format!("module {module}"));
        }
    }
    for (module, method) in found.calls.keys() {
        let known = catalogue
            .module(module)
            .is_some_and(|m| m.has_method(method));
        let Some(robot) = robot_for(module).filter(|_| known) else {
            continue;
        };
        if host.contains(&(module.clone(), method.clone())) {
            served += 1;
            continue;
        }
        match robot.post(module, method, Vec::new()) {
            Err(RobotError::UnknownMethod { .. } | RobotError::UnknownService(_)) => {
                missing.push(format!("{module}.{method}"));
            }
            _ => served += 1,
        }
    }
    println!(
        "corpus coverage: {} modules and {} methods the corpus calls are NAOqi's; {served} methods served",
        modules
            .iter()
            .filter(|m| catalogue.module(m).is_some())
            .count(),
        found
            .calls
            .keys()
            .filter(|(m, f)| catalogue.module(m).is_some_and(|x| x.has_method(f)))
            .count(),
    );
    assert!(
        missing.is_empty(),
        "the simulated robot does not serve {} of the calls the corpus makes: {missing:#?}",
        missing.len()
    );
}
