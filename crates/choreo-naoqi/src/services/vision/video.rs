//! ALVideoDevice: the cameras, as far as behaviors set them up without looking at images.
//! The active camera (0: top, 1: bottom) and the camera parameters scripts set
//! (`setParam(kCameraSelectID, 1)`, `setParameter`...) are kept and read back; there are no
//! images to get (a subscription is answered with its name, `getImageRemote` is not served).

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

/// ALVideoDevice as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALVideoDevice",
    methods: &[
        ("getCameraIndexes", Op::Own),
        ("getActiveCamera", Op::Own),
        ("setActiveCamera", Op::Own),
        ("setParam", Op::Own),
        ("getParam", Op::Own),
        ("setParameter", Op::Own),
        ("getParameter", Op::Own),
        ("subscribeCamera", Op::Own),
        ("unsubscribe", Op::Answer(Const::Bool(true))),
    ],
    own,
    extractor: None,
};

/// NAOqi's `kCameraSelectID`: the parameter that picks the active camera.
const CAMERA_SELECT: i64 = 18;

/// The parameters set, per camera (`setParameter`) and for the active one (`setParam`).
#[derive(Default)]
struct Cameras {
    active: i64,
    params: std::collections::BTreeMap<(i64, i64), i64>,
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let int = |i: usize| -> Result<i64, CallError> {
        a.f64(i)
            .map(|x| x as i64)
            .map_err(|_| a.bad(i, "an integer"))
    };
    let value = match method {
        "getCameraIndexes" => Value::List(vec![Value::Int(0), Value::Int(1)]),
        "getActiveCamera" => Value::Int(sim.kept(SERVICE.name, |c: &mut Cameras| c.active)),
        "setActiveCamera" => {
            let camera = int(a.values.len().saturating_sub(1))?;
            sim.kept(SERVICE.name, |c: &mut Cameras| c.active = camera);
            Value::Bool(true)
        }
        "setParam" => {
            let (param, v) = match a.values.len() {
                3 => (int(1)?, int(2)?),
                _ => (int(0)?, int(1)?),
            };
            sim.kept(SERVICE.name, |c: &mut Cameras| {
                if param == CAMERA_SELECT {
                    c.active = v;
                }
                let camera = c.active;
                c.params.insert((camera, param), v);
            });
            Value::None
        }
        "getParam" => {
            let param = int(a.values.len().saturating_sub(1))?;
            sim.kept(SERVICE.name, |c: &mut Cameras| {
                if param == CAMERA_SELECT {
                    c.active
                } else {
                    c.params.get(&(c.active, param)).copied().unwrap_or(0)
                }
            })
            .into()
        }
        "setParameter" => {
            let (camera, param, v) = (int(0)?, int(1)?, int(2)?);
            sim.kept(SERVICE.name, |c: &mut Cameras| {
                c.params.insert((camera, param), v);
            });
            Value::Bool(true)
        }
        "getParameter" => {
            let (camera, param) = (int(0)?, int(1)?);
            Value::Int(sim.kept(SERVICE.name, |c: &mut Cameras| {
                c.params.get(&(camera, param)).copied().unwrap_or(0)
            }))
        }
        "subscribeCamera" => Value::String(a.str(0)?.to_string()),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
