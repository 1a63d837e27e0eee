//! A pose made on the robot, as a user makes it: NAO's head pitch slider follows the range
//! its yaw leaves it (the NAO joints page's head table: at |HeadYaw| 1.527 rad the pitch is
//! within −0.330..0.200 rad, at 2.086 within −0.449..0.330, linear between), and the head
//! dragged on the 3D robot turns its pitch, never past that range; stored, the key is that
//! angle in degrees.

use super::{Editing, model, slide};

/// The NAO joints page's head pitch limits by |HeadYaw| (rad): (yaw, min, max).
const HEAD_TABLE: [(f64, f64, f64); 7] = [
    (0.0, -0.672, 0.515),
    (0.486, -0.672, 0.422),
    (0.756, -0.548, 0.370),
    (0.903, -0.480, 0.330),
    (1.090, -0.430, 0.300),
    (1.527, -0.330, 0.200),
    (2.086, -0.449, 0.330),
];

/// The head pitch range at `yaw`, interpolated by hand from the table.
fn pitch_range(yaw: f64) -> (f64, f64) {
    let y = yaw.abs();
    for w in HEAD_TABLE.windows(2) {
        let ((y0, lo0, hi0), (y1, lo1, hi1)) = (w[0], w[1]);
        if y <= y1 {
            let t = (y - y0) / (y1 - y0);
            return (lo0 + t * (lo1 - lo0), hi0 + t * (hi1 - hi0));
        }
    }
    (HEAD_TABLE[6].1, HEAD_TABLE[6].2)
}

#[test]
fn a_pose_follows_coupled_ranges_and_a_limb_dragged_on_the_robot_is_stored() {
    let Some(browser) = choreo_testkit::chromium("choreo edit's page in a browser") else {
        return;
    };
    let mut e = Editing::empty(&browser);
    e.add("timeline", "basic/timeline");
    let tl = e.at("g.box[data-path='root/Timeline'] .box-bg", 0.0, -0.3);
    e.page.click(tl.0, tl.1);
    e.page.shows("id=\"pose-HeadPitch\"");

    // HeadYaw far to the right: HeadPitch's slider takes the range the table gives there.
    let yaw = slide(&mut e, "pose-HeadYaw", 0.9);
    let (lo, hi) = pitch_range(yaw);
    let range = e.page.eval(
        "(() => { const s = document.getElementById('pose-HeadPitch'); return [Number(s.min), Number(s.max)]; })()",
    );
    let shown = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
    assert!(
        (shown.0 - lo).abs() < 1e-9 && (shown.1 - hi).abs() < 1e-9,
        "at yaw {yaw}: {shown:?}, the table gives ({lo}, {hi})"
    );

    // The head dragged 300 px to the right on the 3D robot: its pitch goes up to that max.
    e.until("document.getElementById('robot3d')?.dataset.state === 'drawn'");
    let head = e
        .page
        .eval("document.getElementById('robot3d').view.screenOf('HeadPitch', 'HeadTop', 0.5)");
    let head = (head[0].as_f64().unwrap(), head[1].as_f64().unwrap());
    e.page.drag(head, (head.0 + 300.0, head.1));
    assert_eq!(
        e.page
            .eval("document.getElementById('robot3d').dataset.limb"),
        "HeadPitch"
    );
    let pitch = e
        .page
        .eval("Number(document.getElementById('pose-HeadPitch').value)")
        .as_f64()
        .unwrap();
    assert!(
        (pitch - hi).abs() < 1e-3,
        "the head's pitch is {pitch}, its max {hi}"
    );

    // Stored at frame 1: HeadPitch's key is that angle, in degrees.
    let store = e.at("#pose-store", 0.0, 0.0);
    e.page.click(store.0, store.1);
    assert!(e.answered(), "the pose was not stored");
    let xar = model(&e.bytes());
    let t = xar.root_box.diagrams().next().unwrap().boxes[0]
        .timeline
        .clone()
        .unwrap();
    let curves = &t.actuator_list.as_ref().unwrap().curves;
    let key = curves
        .iter()
        .find(|c| c.actuator == "HeadPitch")
        .expect("no HeadPitch key")
        .keys[0]
        .value;
    assert!(
        (key - pitch.to_degrees()).abs() < 1e-4,
        "{key}° for {pitch} rad"
    );
}
