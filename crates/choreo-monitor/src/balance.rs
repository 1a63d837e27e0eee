//! The robot's balance as the page's 3D view draws it: choreo-body's stance of the joints
//! the page has (the centre of mass, the support polygon on the floor, whether it stands),
//! in FRAME_TORSO, the frame the view draws the torso in, so that the marks move with the
//! robot however the view sets it on its floor.

use choreo_body::kinematics::Frames;
use choreo_body::stance::Stance;
use choreo_robot::Model;
use serde_json::{Value, json};

/// The `balance` of `model` with `joints` (name, angle). A joint the page has not heard of
/// stands as the simulated robot starts (its wake posture: a trace recorded without a
/// monitor watching holds the joints a timeline animates only).
pub fn balance(model: Model, joints: &[(String, Value)]) -> Value {
    let names = model.joints();
    let mut angles = model
        .posture(model.wake_posture())
        .unwrap_or_else(|| vec![0.0; names.len()]);
    for (i, joint) in names.iter().enumerate() {
        if let Some(v) = joints
            .iter()
            .find(|(n, _)| n == joint.name)
            .and_then(|(_, v)| v.as_f64())
            && let Some(slot) = angles.get_mut(i)
        {
            *slot = v;
        }
    }
    let frames = Frames::new(model, &angles);
    let stance = Stance::of(&frames);
    // From the ground frame back to the torso's.
    let back = stance.torso.inverse();
    let torso = |p: [f64; 3]| back.apply(p).map(|v| (v * 1e5).round() / 1e5);
    let polygon: Vec<[f64; 3]> = stance
        .polygon
        .iter()
        .map(|p| torso([p[0], p[1], 0.0]))
        .collect();
    json!({
        "com": torso(stance.com),
        "floor": torso([stance.com[0], stance.com[1], 0.0]),
        "polygon": polygon,
        "standing": stance.standing,
        "margin": (stance.margin([stance.com[0], stance.com[1]]) * 1e4).round() / 1e4,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// StandInit (choreo-body's tests/reference.rs, from the URDF by hand): the CoM at
    /// (0.01547, 0, -0.05059) in FRAME_TORSO; both feet flat, so the polygon is the soles'
    /// hull: eight corners' hull, both feet's outer edges 0.1 m from the middle (HipOffsetY
    /// 0.05 plus the 0.05 m a sole reaches out, control-walk.html's foot bounds), on the
    /// floor 0.33 m under the torso.
    #[test]
    fn stand_init_has_its_com_over_both_feet() {
        let model = Model::Nao;
        let pose = model.posture("StandInit").unwrap();
        let joints: Vec<(String, Value)> = model
            .joints()
            .iter()
            .zip(pose)
            .map(|(j, a)| (j.name.to_string(), json!(a)))
            .collect();
        let b = balance(model, &joints);
        let com: Vec<f64> = serde_json::from_value(b["com"].clone()).unwrap();
        assert!(
            (com[0] - 0.01547).abs() < 0.001 && com[1].abs() < 1e-6,
            "{com:?}"
        );
        assert!((com[2] + 0.05059).abs() < 0.001, "{com:?}");
        let polygon: Vec<[f64; 3]> = serde_json::from_value(b["polygon"].clone()).unwrap();
        let ys: Vec<f64> = polygon.iter().map(|p| p[1]).collect();
        let (lo, hi) = ys
            .iter()
            .fold((1.0_f64, -1.0_f64), |(l, h), y| (l.min(*y), h.max(*y)));
        assert!(
            (lo + 0.1).abs() < 0.002 && (hi - 0.1).abs() < 0.002,
            "{polygon:?}"
        );
        // The floor is one plane (tilted in the torso's frame: StandInit leans the torso 5°
        // back): the CoM's point on it lies in the polygon's plane, 0.3 m or more below.
        let floor: Vec<f64> = serde_json::from_value(b["floor"].clone()).unwrap();
        let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let (e1, e2) = (sub(polygon[1], polygon[0]), sub(polygon[2], polygon[0]));
        let normal = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let length = normal.iter().map(|v| v * v).sum::<f64>().sqrt();
        let off = sub([floor[0], floor[1], floor[2]], polygon[0]);
        let height = (0..3).map(|i| off[i] * normal[i]).sum::<f64>() / length;
        assert!(height.abs() < 1e-4, "{height}");
        assert!(floor[2] < -0.30, "{floor:?}");
        assert_eq!(b["standing"], true);
        assert!(b["margin"].as_f64().unwrap() > 0.05);
        // Joints not heard of stand as the robot starts: StandInit's, the same balance.
        assert_eq!(balance(model, &joints[3..]), b);
        assert_eq!(balance(model, &[]), b);
    }
}
