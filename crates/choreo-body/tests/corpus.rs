//! Every motion timeline of the shared corpus judged from each standing posture: falls,
//! late keys and arms meeting the body, listed per timeline. The stock animations of
//! Choregraphe's box library were made on NAOqi by its makers and played on robots: none
//! of them may fall (if one does, the body model is wrong).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use choreo_body::check::{Finding, check, start_postures};
use choreo_motion::motion::{Motion, made_for, timelines};
use choreo_robot::Model;

#[test]
fn every_corpus_timeline_is_judged_and_the_stock_animations_stand() {
    let Some(corpus) = choreo_testkit::corpus("the body check of the corpus's timelines") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let (mut judged, mut falls, mut late, mut collisions) = (0, 0, 0, 0);
    let mut lines = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        let Ok(parsed) = choreo_xar::read_xar(&name, &bytes) else {
            continue;
        };
        for (path, timeline) in timelines(&parsed.value.root_box) {
            let robot = timeline
                .actuator_list
                .as_ref()
                .and_then(made_for)
                .unwrap_or(Model::Nao);
            let Some(motion) = Motion::from_timeline(timeline, robot) else {
                continue;
            };
            if motion.curves.is_empty() {
                continue;
            }
            for posture in start_postures(robot) {
                let report = check(&motion, posture).unwrap();
                judged += 1;
                for finding in &report.findings {
                    match finding {
                        Finding::Fall { .. } => falls += 1,
                        Finding::Late { .. } => late += 1,
                        Finding::Collision { .. } => collisions += 1,
                    }
                    if !matches!(finding, Finding::Late { .. }) {
                        lines.push(format!(
                            "{name} {path} from {posture}: {}",
                            finding.describe(f64::from(motion.fps), motion.start)
                        ));
                    }
                }
            }
        }
    }
    println!(
        "body check: {judged} timeline-postures, {falls} falls, {late} late keys, \
         {collisions} collisions\n{}",
        lines.join("\n")
    );
    assert!(judged > 100, "{judged}");
}
