//! Every motion timeline of the shared corpus, written as `.qianim` and read back.

use crate::support;

use choreo_motion::curve::{Side, Warning};
use choreo_motion::qianim;

#[test]
fn every_corpus_motion_timeline_round_trips_through_qianim() {
    let Some(corpus) = choreo_testkit::corpus("the .qianim round trip of the corpus's timelines")
    else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let (mut timelines, mut curves, mut keys, mut explicit, mut held) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).expect("corpus file readable");
        // The one unreadable file (merge-conflict markers) is choreo-xar's tests' business.
        let Ok(parsed) = choreo_xar::read_xar(&name, &bytes) else {
            continue;
        };
        for b in qianim::box_animations(&parsed.value.root_box) {
            timelines += 1;
            let written = match qianim::write(&b.animation) {
                Ok(w) => w,
                Err(e) => {
                    failures.push(format!("{name} {}: write: {e}", b.path));
                    continue;
                }
            };
            if let Err(e) = support::libalmath_accepts(&written.text) {
                failures.push(format!("{name} {}: libalmath would refuse: {e}", b.path));
            }
            let back = match qianim::read("out.qianim", written.text.as_bytes()) {
                Ok(a) => a,
                Err(e) => {
                    failures.push(format!("{name} {}: read back: {e}", b.path));
                    continue;
                }
            };
            if back.tracks.len() != b.animation.tracks.len() {
                failures.push(format!("{name} {}: track count", b.path));
                continue;
            }
            for (r, t) in back.tracks.iter().zip(&b.animation.tracks) {
                curves += 1;
                keys += t.curve.keys().len();
                explicit += t
                    .curve
                    .keys()
                    .iter()
                    .flat_map(|k| [k.left, k.right])
                    .filter(|s| matches!(s, Side::Bezier(..)))
                    .count();
                let changed = written.warnings.iter().any(|(a, w)| {
                    a == &t.curve.actuator
                        && matches!(w, Warning::ConstantHeld(_) | Warning::HandleClamped(_))
                });
                let what = format!("{name} {} {}", b.path, t.curve.actuator);
                if (r.fps, r.mute) != (t.fps, t.mute) {
                    failures.push(format!("{what}: fps or mute"));
                } else if changed {
                    // Constant segments held, long handles shortened: the same at whole
                    // frames, and everywhere for shortened handles (the player shortens them).
                    held += 1;
                    let whole = support::differing_frames(&t.curve, &r.curve, 1e-9)
                        .into_iter()
                        .filter(|f| f.fract() == 0.0)
                        .count();
                    if whole > 0 {
                        failures.push(format!("{what}: {whole} whole frames differ"));
                    }
                } else if r.curve != t.curve {
                    failures.push(format!("{what}: curve differs after the round trip"));
                }
            }
        }
    }
    println!(
        ".qianim corpus: {} XAR files, {timelines} motion timelines, {curves} curves, {keys} keys, \
         {explicit} explicit handles, {held} curves mended (held or shortened)",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The corpus holds the stock dances and many more motion timelines.
    assert!(timelines > 100, "{timelines} motion timelines");
    assert!(explicit > 100, "{explicit} explicit handles");
}
