//! Every motion timeline of the shared corpus judged from each standing posture: falls,
//! late keys and arms meeting the body, listed per timeline. The stock animations of
//! Choregraphe's box library (the corpus holds Choregraphe 2.1.4's `libraries/box`) were
//! made on NAOqi by its makers and played on robots: none of them may fall. Where one does,
//! the body model is wrong: [`MODEL_FAILS`] names them, with what the model lacks, so that
//! a new one fails this test and a mended one must leave the list.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use choreo_body::check::{Finding, check_all, motions_of};

/// Stock timelines the model says fall, and why it is wrong there (docs/motion.md, "The
/// body", what it is not).
const MODEL_FAILS: &[(&str, &str)] = &[
    (
        "deprecated/Motions/Endless Walk/box.xar root/Init/StandUp/FromBack",
        "standing up from the back, played only once a script reads the torso lying \
         (InertialSensor/AngleY < -1): judged from standing, which its joints cannot tell apart",
    ),
    (
        "deprecated/Motions/Endless Walk/box.xar root/MarcheInfinie/Down&EnSlave/Before_Unslave",
        "a frog crouch before the walk's stiffness goes off, the feet 16° out of one plane: \
         the CoM 0.2 cm past the toes, within the model's precision",
    ),
];

#[test]
fn every_corpus_timeline_is_judged_and_the_stock_animations_stand() {
    let Some(corpus) = choreo_testkit::corpus("the body check of the corpus's timelines") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let (mut judged, mut falls, mut late, mut collisions) = (0, 0, 0, 0);
    let mut steps = 0;
    let since = std::time::Instant::now();
    let mut lines = Vec::new();
    let mut stock_falls: Vec<String> = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        let Ok(parsed) = choreo_xar::read_xar(&name, &bytes) else {
            continue;
        };
        for (path, motion) in motions_of(&parsed.value.root_box) {
            for report in check_all(&motion) {
                let posture = report.postures.join(", ");
                judged += 1;
                steps += report.path.times.len();
                for finding in &report.findings {
                    match finding {
                        Finding::Fall { .. } => {
                            falls += 1;
                            if let Some((_, stock)) = name.split_once("/libraries/box/") {
                                stock_falls.push(format!("{stock} {path}"));
                            }
                        }
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
        "body check: {judged} timeline-postures, {steps} steps of 10 ms in {:?}, {falls} falls, \
         {late} late keys, {collisions} collisions\n{}",
        since.elapsed(),
        lines.join("\n")
    );
    assert!(judged > 100, "{judged}");
    stock_falls.sort();
    stock_falls.dedup();
    let unexplained: Vec<&String> = stock_falls
        .iter()
        .filter(|f| !MODEL_FAILS.iter().any(|(known, _)| f == known))
        .collect();
    assert!(
        unexplained.is_empty(),
        "stock animations that fall: {unexplained:#?}"
    );
    let mended: Vec<&str> = MODEL_FAILS
        .iter()
        .map(|(known, _)| *known)
        .filter(|known| !stock_falls.iter().any(|f| f == known))
        .collect();
    assert!(
        mended.is_empty(),
        "no longer fall (leave MODEL_FAILS): {mended:#?}"
    );
}
