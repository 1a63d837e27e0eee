//! ALRedBallTracker and ALFaceTracker, NAOqi 1.x's trackers (their C++ proxy headers of
//! 1.10 to 1.12; ALTracker took their place), as Choregraphe 2.1's deprecated WB Tracker and
//! Walk Tracker boxes call them: `startTracker()` subscribes to the detection's event
//! (`redBallDetected`, `FaceDetected`), `stopTracker()` unsubscribes; `isActive()`;
//! `setWholeBodyOn(b)` is kept.
//!
//! The targets come from scenarios raising those events with their real shape
//! (`[[sec, usec], [centerX, centerY, sizeX, sizeY], cameraPoseInTorso, cameraPoseInRobot,
//! cameraId]` for a ball, FaceDetected's `[[sec, usec], [[[0, alpha, beta, sizeX, sizeY],
//! extra], ...], cameraPoseInTorso, ...]` for a face). While tracking, each one is new data
//! (`isNewData()` until the next `getPosition()`), turns the head toward it (yaw and pitch by
//! the target's angles in the image, at a tenth of their speed; the whole body does not
//! follow), and `getPosition()` answers where it is in FRAME_TORSO: along its direction
//! from the camera, at the distance at which a 6 cm ball or a 15 cm wide face
//! **(inference)** has its angular size in the image.

use choreo_engine::Value;

use crate::args::{Args, number};
use crate::kept::{Op, Service};
use crate::sim::{Reply, Sim};
use crate::world::Transform;

/// ALRedBallTracker as served.
pub(crate) const RED_BALL: Service = Service {
    name: "ALRedBallTracker",
    methods: TRACKER_METHODS,
    own: |sim, method, a| own(sim, &BALL, method, a),
    extractor: None,
};

/// ALFaceTracker as served.
pub(crate) const FACE: Service = Service {
    name: "ALFaceTracker",
    methods: TRACKER_METHODS,
    own: |sim, method, a| own(sim, &FACE_TARGET, method, a),
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

/// What a tracker follows.
pub(crate) struct Target {
    /// The tracker module.
    service: &'static str,
    /// The event of the detection it subscribes to.
    pub event: &'static str,
    /// The target's real width, m.
    width: f64,
    /// Reads the target's angles (alpha, beta) and angular width in the image from the
    /// event's value.
    angles: fn(&Value) -> Option<[f64; 3]>,
}

/// A red ball: its angular radius is half its width.
pub(crate) const BALL: Target = Target {
    service: "ALRedBallTracker",
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
    service: "ALFaceTracker",
    event: "FaceDetected",
    width: 0.15,
    angles: |v| {
        let shape = item(item(item(v, 1)?, 0)?, 0)?;
        let [a, b, w] = [item(shape, 1)?, item(shape, 2)?, item(shape, 3)?].map(number);
        Some([a?, b?, w?])
    },
};

/// Item `i` of a list value.
fn item(v: &Value, i: usize) -> Option<&Value> {
    match v {
        Value::List(items) | Value::Tuple(items) => items.get(i),
        _ => None,
    }
}

/// A tracker's state.
#[derive(Default)]
struct Tracker {
    active: bool,
    whole_body: bool,
    new_data: bool,
    position: [f64; 3],
}

fn own(sim: &Sim, target: &Target, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    let name = target.service;
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

/// A detection event `value` for `target`'s tracker (called by `reactions.rs`): while it
/// tracks, new data, the target's position, and the head turned toward it.
pub(crate) fn seen(sim: &Sim, target: &Target, value: &Value) {
    if !sim.kept(target.service, |t: &mut Tracker| t.active) {
        return;
    }
    let Some([alpha, beta, size]) = (target.angles)(value) else {
        return;
    };
    let camera = item(value, 2)
        .and_then(|p| match p {
            Value::List(xs) | Value::Tuple(xs) if xs.len() == 6 => {
                let xs: Option<Vec<f64>> = xs.iter().map(number).collect();
                xs.and_then(|xs| <[f64; 6]>::try_from(xs).ok())
            }
            _ => None,
        })
        .unwrap_or([0.0; 6]);
    let distance = target.width / (2.0 * (size / 2.0).tan().max(1e-6));
    let direction = [
        alpha.cos() * beta.cos(),
        alpha.sin() * beta.cos(),
        -beta.sin(),
    ];
    let local = direction.map(|d| d * distance);
    let at = Transform::of(camera)
        .then(&Transform::of([
            local[0], local[1], local[2], 0.0, 0.0, 0.0,
        ]))
        .t;
    sim.kept(target.service, |t: &mut Tracker| {
        t.new_data = true;
        t.position = at;
    });
    // The head follows: yaw and pitch by the target's angles in the image.
    let turn = [
        Value::from("Head"),
        Value::List(vec![Value::Float(alpha), Value::Float(beta)]),
        Value::Float(HEAD_SPEED),
    ];
    // A head without stiffness stays where it is; nothing else can fail here.
    let _ = crate::motion::serve(
        sim,
        "changeAngles",
        &Args::new("ALMotion", "changeAngles", &turn),
    );
}

/// The fraction of the head's maximum speed at which a 1.x tracker turns it
/// **(inference)**.
const HEAD_SPEED: f64 = 0.1;
