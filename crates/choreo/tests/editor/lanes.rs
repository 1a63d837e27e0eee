//! A timeline read joint by joint, as Choregraphe's timeline editor shows it: Choregraphe
//! 2.1's own Hello animation (its stock library, in the corpus: 14 curves of the head and
//! both arms, 25 fps from frame 0, a behavior layer with the keyframe "FaceLeds"), added
//! from the palette. Its chains start folded (more than six curves); unfolded, a lane a
//! joint, named, its axis in degrees (a hand's in its ratio); two joints keyed at one frame
//! are picked apart; a key dragged up moves in its joint only; the ruler's frames are whole
//! and each says its seconds.

use super::{Editing, model};
use crate::support::cli::workspace;
use serde_json::Value;

/// The Hello box's keys of `joint` (frame, value in the file's degrees).
fn keys(text: &str, joint: &str) -> Vec<(i32, f64)> {
    let xar = model(text);
    let hello = xar
        .root_box
        .diagrams()
        .next()
        .unwrap()
        .boxes
        .last()
        .unwrap()
        .clone();
    let curves = hello.timeline.unwrap().actuator_list.unwrap().curves;
    let curve = curves.iter().find(|c| c.actuator == joint).unwrap();
    curve.keys.iter().map(|k| (k.frame, k.value)).collect()
}

#[test]
fn a_timeline_s_lanes_are_read_and_keyed_joint_by_joint() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's timeline lanes") else {
        return;
    };
    let Some(corpus) = choreo_testkit::corpus("Choregraphe's Hello animation") else {
        return;
    };
    let library = corpus.join(choreo_testkit::LIBRARY);
    let mut e = Editing::open_with(&browser, &["--library", library.to_str().unwrap()]);
    let add = e.at("#add-box", 0.0, 0.0);
    e.page.click(add.0, add.1);
    e.page.type_text("Hello");
    let item = ".palette-item[data-key*='Motions/Animations/Hello']";
    e.until(&format!("!!document.querySelector(\"{item}\")"));
    let at = e.at(item, 0.0, 0.0);
    e.page.click(at.0, at.1);
    assert!(e.answered(), "the Hello animation was not added");
    let hello = e.at("g.box[data-path='root/Hello'] .box-bg", 0.0, -0.3);
    e.page.click(hello.0, hello.1);
    e.until("!!document.querySelector('#tl-curves .tl-chain')");

    // Folded: a row a chain, in ALMotion's order, no joint lane yet.
    assert_eq!(
        e.page.eval(
            "[...document.querySelectorAll('#tl-curves .tl-chain')].map((c) => c.dataset.chain)"
        ),
        serde_json::json!(["Head", "LArm", "RArm"])
    );
    assert_eq!(
        e.page
            .eval("document.querySelectorAll('.tl-joint-lane').length"),
        0
    );
    // The behavior layer and its keyframe, named.
    assert_eq!(
        e.page.eval("[...document.querySelectorAll('.tl-behavior-layer .tl-kf-label')].map((k) => k.textContent)"),
        serde_json::json!(["FaceLeds"])
    );
    // The ruler: whole frames, each at (frame - 0) / 25 seconds.
    let marks = e.page.eval(
        "[...document.querySelectorAll('#tl-curves .tl-mark')].map((m) => [m.dataset.frame, m.querySelector('small').textContent])",
    );
    let marks = marks.as_array().unwrap();
    assert!(marks.len() >= 4, "{marks:?}");
    for m in marks {
        let frame: f64 = m[0].as_str().unwrap().parse().unwrap();
        assert_eq!(frame.fract(), 0.0, "{m:?}");
        let secs: f64 = m[1]
            .as_str()
            .unwrap()
            .trim_end_matches(" s")
            .parse()
            .unwrap();
        assert!((secs - frame / 25.0).abs() < 0.006, "{m:?}");
    }

    // Unfolded: HeadYaw and HeadPitch, each its lane, its axis in degrees.
    e.page
        .eval("document.querySelector(\".tl-fold[data-chain='Head']\").click()");
    e.until("document.querySelectorAll('.tl-joint-lane').length === 2");
    let lanes = e.page.eval(
        "[...document.querySelectorAll('.tl-joint-lane')].map((l) => [l.dataset.joint, l.querySelector('.tl-axis').textContent])",
    );
    for lane in lanes.as_array().unwrap() {
        assert!(lane[1].as_str().unwrap().contains('°'), "{lane:?}");
    }
    assert_eq!(lanes[0][0], "HeadYaw");
    assert_eq!(lanes[1][0], "HeadPitch");

    // Both keyed at frame 20 (the file: HeadYaw -7.73688°, HeadPitch 16.9607°): each picked
    // in its own lane.
    for (joint, degrees) in [("HeadPitch", 16.9607), ("HeadYaw", -7.73688)] {
        let key = format!(".tl-joint-lane[data-joint='{joint}'] .tl-key[data-frame='20']");
        let at = e.at(&key, 0.0, 0.0);
        e.page.click(at.0, at.1);
        e.until(&format!(
            "document.querySelector('#tl-key .tl-key-name')?.textContent === '{joint} at frame 20'"
        ));
        let shown: f64 = e
            .page
            .eval("document.getElementById('tl-key-value').value")
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((shown - degrees).abs() < 0.01, "{joint}: {shown}");
    }

    // HeadPitch's key at 39 dragged up, wobbling 5 px sideways: its value only, HeadYaw's
    // key at 39 as it was.
    let before = e.bytes();
    let key = ".tl-joint-lane[data-joint='HeadPitch'] .tl-key[data-frame='39']";
    let from = e.at(key, 0.0, 0.0);
    e.page.drag(from, (from.0 + 5.0, from.1 - 20.0));
    assert!(e.answered(), "the key was not moved");
    let after = e.bytes();
    let (pitch0, pitch1) = (keys(&before, "HeadPitch"), keys(&after, "HeadPitch"));
    assert_eq!(pitch1.len(), pitch0.len());
    assert_eq!(pitch1[1].0, 39, "the key left its frame");
    assert!(pitch1[1].1 > pitch0[1].1 + 1.0, "{pitch0:?} → {pitch1:?}");
    assert_eq!(keys(&after, "HeadYaw"), keys(&before, "HeadYaw"));

    // A hand's lane: its opening ratio, not degrees.
    e.properties_shown();
    e.page
        .eval("document.querySelector(\".tl-fold[data-chain='LArm']\").click()");
    e.until("!!document.querySelector(\".tl-joint-lane[data-joint='LHand']\")");
    let hand = e.page.eval(
        "document.querySelector(\".tl-joint-lane[data-joint='LHand'] .tl-axis\").textContent",
    );
    assert!(
        matches!(&hand, Value::String(t) if !t.contains('°') && t.contains('.')),
        "{hand}"
    );
    let shots = workspace().join("target/editor-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    // At 1366×768, the bottom pane dragged up as a user would to read the lanes.
    e.page.viewport(1366, 768);
    e.page.eval("document.getElementById('main').style.setProperty('--bottom-h', '430px'); document.getElementById('tl-curves').scrollIntoView(); true");
    e.at("#tl-curves", 0.0, 0.0);
    e.page.screenshot(&shots.join("editor-timeline.png"));
}
