//! ALRedBallTracker and ALFaceTracker, NAOqi 1.x's trackers (their C++ proxy headers of
//! 1.10 to 1.12; ALTracker took their place), as Choregraphe 2.1's deprecated WB Tracker and
//! Walk Tracker boxes call them: `startTracker()` subscribes to the detection's event
//! (`redBallDetected`, `FaceDetected`), `stopTracker()` unsubscribes; `isActive()`;
//! `setWholeBodyOn(b)` is kept.
//!
//! The targets come from scenarios raising those events with their real shape
//! (`[[sec, usec], [centerX, centerY, sizeX, sizeY], cameraPoseInTorso, cameraPoseInRobot,
//! cameraId]` for a ball, FaceDetected's `[[sec, usec], [[[0, alpha, beta, sizeX, sizeY],
//! extra], ...], cameraPoseInTorso, ...]` for a face, LandmarkDetected's the same with
//! `[0, alpha, beta, sizeX, sizeY, heading]` shapes). While tracking, each one is new data
//! (`isNewData()` until the next `getPosition()`), turns the head toward it (yaw and pitch by
//! the target's angles in the image, at a tenth of their speed; the whole body does not
//! follow), and `getPosition()` answers where it is in FRAME_TORSO: along its direction
//! from the camera (the event's camera pose, or where the head's top camera is now), at the
//! distance at which a 6 cm ball or a 15 cm wide face **(inference)** has its angular size
//! in the image. [`locate`] is shared with ALTracker (`tracker.rs`).

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};
use crate::services::core::world::Transform;

/// ALRedBallTracker as served.
pub(crate) const RED_BALL: Service = Service {
    name: "ALRedBallTracker",
    methods: TRACKER_METHODS,
    own: |sim, method, a| own(sim, RED_BALL.name, &BALL, method, a),
    extractor: None,
};

/// ALFaceTracker as served.
pub(crate) const FACE: Service = Service {
    name: "ALFaceTracker",
    methods: TRACKER_METHODS,
    own: |sim, method, a| own(sim, FACE.name, &FACE_TARGET, method, a),
    extractor: None,
};

const TRACKER_METHODS: &[(&str, Op)] = &[
    ("startTracker", Op::Own),
    ("stopTracker", Op::Own),
    ("isActive", Op::Own),
    ("isNewData", Op::Own),
    ("getPosition", Op::Own),
    ("setWholeBodyOn", Op::Own),
];

/// What a detection event shows.
pub(crate) struct Target {
    /// The event of the detection.
    pub event: &'static str,
    /// The target's real width when nobody says, m.
    pub width: f64,
    /// Reads the target's angles (alpha, beta) and angular width in the image from the
    /// event's value.
    angles: fn(&Value) -> Option<[f64; 3]>,
}

/// A red ball: its angular radius is half its width.
pub(crate) const BALL: Target = Target {
    event: "redBallDetected",
    width: 0.06,
    angles: |v| {
        let info = item(v, 1)?;
        let [x, y, r] = [item(info, 0)?, item(info, 1)?, item(info, 2)?].map(number);
        Some([x?, y?, 2.0 * r?])
    },
};

/// A face: the first one seen.
pub(crate) const FACE_TARGET: Target = Target {
    event: "FaceDetected",
    width: 0.15,
    angles: first_shape,
};

/// A NAO mark: the first one seen, 9 cm wide unless registered otherwise **(inference)**.
pub(crate) const LANDMARK: Target = Target {
    event: "LandmarkDetected",
    width: 0.09,
    angles: first_shape,
};

/// The angles of the first `[0, alpha, beta, sizeX, sizeY, ...]` shape of a face or mark
/// event (`[time, [[shape, extra], ...], ...]`).
fn first_shape(v: &Value) -> Option<[f64; 3]> {
    let shape = item(item(item(v, 1)?, 0)?, 0)?;
    let [a, b, w] = [item(shape, 1)?, item(shape, 2)?, item(shape, 3)?].map(number);
    Some([a?, b?, w?])
}

/// Item `i` of a list value.
pub(crate) fn item(v: &Value, i: usize) -> Option<&Value> {
    match v {
        Value::List(items) | Value::Tuple(items) => items.get(i),
        _ => None,
    }
}

/// A pose `[x, y, z, wx, wy, wz]` value, if `v` is one.
pub(crate) fn pose(v: Option<&Value>) -> Option<[f64; 6]> {
    match v? {
        Value::List(xs) | Value::Tuple(xs) if xs.len() == 6 => {
            let xs: Option<Vec<f64>> = xs.iter().map(number).collect();
            <[f64; 6]>::try_from(xs?).ok()
        }
        _ => None,
    }
}

/// Where a detection shows its target.
pub(crate) struct Sighting {
    /// Its angles in the image, rad.
    pub alpha: f64,
    /// Its angles in the image, rad.
    pub beta: f64,
    /// Where it is in FRAME_TORSO.
    pub position: [f64; 3],
}

/// Where the target of detection event `value` is, for a target `width` m wide; None when
/// the value shows none (an empty detection).
pub(crate) fn locate(sim: &Sim, target: &Target, value: &Value, width: f64) -> Option<Sighting> {
    let [alpha, beta, size] = (target.angles)(value)?;
    let camera = pose(item(value, 2))
        .map_or_else(|| crate::services::motion::gaze::camera(sim), Transform::of);
    let distance = width / (2.0 * (size / 2.0).tan().max(1e-6));
    let direction = [
        alpha.cos() * beta.cos(),
        alpha.sin() * beta.cos(),
        -beta.sin(),
    ];
    Some(Sighting {
        alpha,
        beta,
        position: camera.apply(direction.map(|d| d * distance)),
    })
}

/// A tracker's state.
#[derive(Default)]
struct Tracker {
    active: bool,
    whole_body: bool,
    new_data: bool,
    position: [f64; 3],
}

fn own(
    sim: &Sim,
    name: &'static str,
    target: &Target,
    method: &str,
    a: &Args<'_>,
) -> Result<Reply, CallError> {
    let value = match method {
        "startTracker" | "stopTracker" => {
            let on = method == "startTracker";
            sim.kept(name, |t: &mut Tracker| t.active = on);
            sim.notice(
                name,
                if on {
                    format!("tracks {}", target.event)
                } else {
                    "stops tracking".into()
                },
            );
            Value::None
        }
        "isActive" => Value::Bool(sim.kept(name, |t: &mut Tracker| t.active)),
        "isNewData" => Value::Bool(sim.kept(name, |t: &mut Tracker| t.new_data)),
        "getPosition" => {
            let p = sim.kept(name, |t: &mut Tracker| {
                t.new_data = false;
                t.position
            });
            Value::List(p.iter().map(|x| Value::Float(*x)).collect())
        }
        "setWholeBodyOn" => {
            let on = a.bool(0)?;
            sim.kept(name, |t: &mut Tracker| t.whole_body = on);
            sim.notice(name, format!("setWholeBodyOn({})", Value::Bool(on)));
            Value::None
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// A detection event `value` for the 1.x tracker `name` of `target` (called by
/// `reactions.rs`): while it tracks, new data, the target's position, and the head turned
/// toward it.
pub(crate) fn seen(sim: &Sim, name: &'static str, target: &Target, value: &Value) {
    if !sim.kept(name, |t: &mut Tracker| t.active) {
        return;
    }
    let Some(s) = locate(sim, target, value, target.width) else {
        return;
    };
    sim.kept(name, |t: &mut Tracker| {
        t.new_data = true;
        t.position = s.position;
    });
    // The head follows: yaw and pitch by the target's angles in the image.
    let turn = [
        Value::from("Head"),
        Value::List(vec![Value::Float(s.alpha), Value::Float(s.beta)]),
        Value::Float(HEAD_SPEED),
    ];
    // A head without stiffness stays where it is; nothing else can fail here.
    let _ = crate::services::motion::almotion::serve(
        sim,
        "changeAngles",
        &Args::new("ALMotion", "changeAngles", &turn),
    );
}

/// The fraction of the head's maximum speed at which a tracker turns it **(inference)**.
pub(crate) const HEAD_SPEED: f64 = 0.1;
