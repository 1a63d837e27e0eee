//! ALLocalization: the robot learns where its home is and walks back to it (the NAOqi 2.x
//! API: methods answer 0 on success, an error code otherwise, `getMessageFromErrorCode`
//! says what a code means).
//!
//! The simulated robot knows where it is (its base's position, as ALMotion reports it), so
//! localizing always succeeds: `learnHome()` takes the place and orientation it stands at as
//! home; `getRobotPosition()` and `getRobotOrientation()` (`[0, 0, θ]`) read the robot in
//! the home's frame (the world frame before any home); `isInCurrentHome()` is True within
//! 0.5 m of home **(inference)**; `goToHome()` walks there as ALMotion.moveTo does, turning
//! to the home's orientation, and returns once there; `goToPosition([x, y, θ])` walks to a
//! place of the home's frame; `stopAll()` stops the walk. `save(folder)`, `load(folder)`,
//! `clear(folder)` keep the home under a folder's name (nothing is written to disk: the home
//! lasts as long as the simulated robot); loading a folder never saved fails. The error codes
//! are choreo's **(inference)**: 1 no home learned, 2 nothing saved there, 3 the robot cannot
//! walk (not awake), 4 stopped before arriving.

use std::collections::BTreeMap;

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};
use crate::services::motion::orders::floats_value;

const NAME: &str = "ALLocalization";

/// ALLocalization as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("learnHome", Op::Own),
        ("goToHome", Op::Own),
        ("goToPosition", Op::Own),
        ("isInCurrentHome", Op::Own),
        ("getRobotPosition", Op::Own),
        ("getRobotOrientation", Op::Own),
        ("save", Op::Own),
        ("load", Op::Own),
        ("clear", Op::Own),
        ("stopAll", Op::Own),
        ("isDataAvailable", Op::Own),
        ("isRelocalizationRequired", Op::Answer(Const::Bool(false))),
        ("getMessageFromErrorCode", Op::Own),
    ],
    own,
    extractor: None,
};

/// What each code means.
const CODES: &[(i64, &str)] = &[
    (0, "success"),
    (1, "no home learned"),
    (2, "no exploration saved in that folder"),
    (3, "the robot cannot walk: it is not awake"),
    (4, "stopped before arriving"),
];

/// How close to home the robot is in its home, m **(inference)**.
const HOME_RADIUS: f64 = 0.5;

/// The home, and the homes saved by folder.
#[derive(Default)]
struct Homes {
    home: Option<[f64; 3]>,
    saved: BTreeMap<String, [f64; 3]>,
}

fn with<R>(sim: &Sim, f: impl FnOnce(&mut Homes) -> R) -> R {
    sim.kept(NAME, f)
}

/// The robot now, `[x, y, θ]` in the world frame.
fn here(sim: &Sim) -> [f64; 3] {
    sim.state().body.position(sim.now())
}

/// `p` (world) in the frame of `origin` (world).
fn relative(origin: [f64; 3], p: [f64; 3]) -> [f64; 3] {
    let (s, c) = origin[2].sin_cos();
    let (dx, dy) = (p[0] - origin[0], p[1] - origin[1]);
    let turn = (p[2] - origin[2] + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
        - std::f64::consts::PI;
    [c * dx + s * dy, -s * dx + c * dy, turn]
}

/// `p` (in the frame of `origin`) in the world frame.
fn absolute(origin: [f64; 3], p: [f64; 3]) -> [f64; 3] {
    let (s, c) = origin[2].sin_cos();
    [
        origin[0] + c * p[0] - s * p[1],
        origin[1] + s * p[0] + c * p[1],
        origin[2] + p[2],
    ]
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let origin = with(sim, |h| h.home).unwrap_or([0.0; 3]);
    let value = match method {
        "learnHome" => {
            let home = here(sim);
            with(sim, |h| h.home = Some(home));
            sim.notice(NAME, format!("home learned at {}", floats_value(home)));
            Value::Int(0)
        }
        "goToHome" | "goToPosition" => {
            let Some(home) = with(sim, |h| h.home) else {
                return Ok(Reply::Now(Value::Int(1)));
            };
            let goal = if method == "goToHome" {
                home
            } else {
                let p: [f64; 3] = a
                    .floats(0)?
                    .try_into()
                    .map_err(|_| a.bad(0, "a place [x, y, θ] of the home's frame"))?;
                absolute(home, p)
            };
            return Ok(walk(sim, method, goal));
        }
        "isInCurrentHome" => Value::Bool(with(sim, |h| h.home).is_some_and(|home| {
            let p = relative(home, here(sim));
            p[0].hypot(p[1]) <= HOME_RADIUS
        })),
        "getRobotPosition" => {
            if a.len() > 0 {
                a.bool(0)?;
            }
            floats_value(relative(origin, here(sim)))
        }
        "getRobotOrientation" => {
            if a.len() > 0 {
                a.bool(0)?;
            }
            floats_value([0.0, 0.0, relative(origin, here(sim))[2]])
        }
        "save" | "load" | "clear" => Value::Int(folder(sim, method, a.str(0)?)),
        "stopAll" => {
            sim.stop_all(NAME, &[]);
            Value::None
        }
        "isDataAvailable" => Value::Bool(with(sim, |h| h.home.is_some())),
        "getMessageFromErrorCode" => {
            let code = a.int(0)?;
            let text = CODES
                .iter()
                .find(|(c, _)| *c == code)
                .map_or("unknown error code", |(_, t)| t);
            Value::from(text)
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// `save`, `load` or `clear` the home under `name`: the code.
fn folder(sim: &Sim, method: &str, name: &str) -> i64 {
    let code = with(sim, |h| match method {
        "save" => match h.home {
            Some(home) => {
                h.saved.insert(name.to_string(), home);
                0
            }
            None => 1,
        },
        "load" => match h.saved.get(name) {
            Some(home) => {
                h.home = Some(*home);
                0
            }
            None => 2,
        },
        _ => {
            h.saved.remove(name);
            h.home = None;
            0
        }
    });
    if code == 0 {
        sim.notice(NAME, format!("{method} {name:?} (nothing written to disk)"));
    }
    code
}

/// A walk to `goal` (world frame) that answers 0 on arrival.
fn walk(sim: &Sim, method: &str, goal: [f64; 3]) -> Reply {
    if !sim.state().body.awake {
        return Reply::Now(Value::Int(3));
    }
    let d = relative(here(sim), goal);
    sim.notice(NAME, format!("walks to {}", floats_value(goal)));
    let plan = crate::services::motion::walks::walk(
        sim,
        &format!("{NAME}.{method}"),
        d,
        d[0].hypot(d[1]),
        None,
    )
    .returning(Value::Int(0))
    .stopped_returns(Value::Int(4));
    Reply::Timed(plan)
}
