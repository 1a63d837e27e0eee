//! ALLeds: one RGB state per LED, faded linearly over time; groups by name.
//!
//! The lights, their channels' device names and the groups are choreo-robot's tables
//! (`choreo_robot::leds`): every name a real robot's ALLeds takes (`FaceLedsTop`,
//! `RightEarLed10`, `Brain0`, `Ears/Led/Left/0Deg/Actuator/Value`...). A device name drives
//! one channel of its light. Ears and brain LEDs are blue only (a red command leaves them
//! dark), as on NAO. A fade
//! lasts its `duration` (0 = at once); rotateEyes, randomEyes and rasta their total duration.
//! A newer command on an LED wins (B4); a stopped fade leaves the colour it had reached (B3).

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::args::{Args, number};
use crate::robot::core::Plan;
use crate::robot::core::{Reply, Sim, first_served};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::trajectory::{Trajectory, after};

/// Colour names fadeRGB accepts.
const COLOURS: &[(&str, [f64; 3])] = &[
    ("white", [1.0, 1.0, 1.0]),
    ("red", [1.0, 0.0, 0.0]),
    ("green", [0.0, 1.0, 0.0]),
    ("blue", [0.0, 0.0, 1.0]),
    ("yellow", [1.0, 1.0, 0.0]),
    ("magenta", [1.0, 0.0, 1.0]),
    ("cyan", [0.0, 1.0, 1.0]),
];

/// A colour from `0x00RRGGBB`.
fn from_int(rgb: i64) -> [f64; 3] {
    [16, 8, 0].map(|shift| ((rgb >> shift) & 0xff) as f64 / 255.0)
}

/// A colour argument at `i`: a name or an int.
fn colour(a: &Args<'_>, i: usize) -> Result<[f64; 3], CallError> {
    match a.values.get(i) {
        Some(Value::String(name)) => COLOURS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                a.bad(
                    i,
                    "a colour name (white, red, green, blue, yellow, magenta, cyan)",
                )
            }),
        Some(Value::Int(n)) => Ok(from_int(*n)),
        _ => Err(a.bad(i, "a colour name or 0x00RRGGBB")),
    }
}

/// A fade of `name` through `keys`, as a task that ends with the last key.
pub(crate) fn fade(
    sim: &Sim,
    a: &Args<'_>,
    name: &str,
    keys: Vec<(Time, [f64; 3])>,
) -> Result<Plan, CallError> {
    let now = sim.now();
    let end = keys.last().map_or(now, |k| k.0);
    let rgb = keys.last().map_or([0.0; 3], |k| k.1);
    let owner = {
        let mut state = sim.state();
        let members = state.leds.resolve(name).ok_or_else(|| unknown(a, name))?;
        state.leds.command(&members, now, &keys)
    };
    sim.observe(RobotEvent::LedsChanged {
        group: name.to_string(),
        rgb,
        duration: end.0.saturating_sub(now.0) as f64 / 1e9,
    });
    Ok(Plan::until(end).on_stop(move |sim: &Sim| {
        let now = sim.now();
        sim.state().leds.freeze(owner, now);
    }))
}

/// Serves ALLeds.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    first_served(&[serve_colours, serve_groups], sim, method, a)
}

/// Serves ALLeds' colours (fades, on and off, animations); `NotServed` for another method.
fn serve_colours(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let now = sim.now();
    let at = |seconds: f64| after(now, seconds);
    Ok(match method {
        "fadeRGB" => {
            let name = a.str(0)?;
            let (rgb, duration) = if a.len() >= 5 {
                ([a.f64(1)?, a.f64(2)?, a.f64(3)?], a.f64(4)?)
            } else {
                (colour(a, 1)?, a.f64(2)?)
            };
            Reply::Timed(fade(sim, a, name, vec![(at(duration), rgb)])?)
        }
        "fade" => {
            let (name, v, duration) = (a.str(0)?, a.f64(1)?, a.f64(2)?);
            Reply::Timed(fade(sim, a, name, vec![(at(duration), [v; 3])])?)
        }
        "on" | "off" | "setIntensity" => {
            let name = a.str(0)?;
            let v = match method {
                "on" => 1.0,
                "off" => 0.0,
                _ => a.f64(1)?,
            };
            drop(fade(sim, a, name, vec![(now, [v; 3])])?);
            Reply::Now(Value::None)
        }
        "reset" => {
            reset(sim, a, a.str(0)?)?;
            Reply::Now(Value::None)
        }
        "getIntensity" => {
            let name = a.str(0)?;
            let state = sim.state();
            let members = state.leds.resolve(name).ok_or_else(|| unknown(a, name))?;
            let c = state.leds.average(&members, now);
            Reply::Now(Value::Float(c.iter().copied().fold(0.0, f64::max)))
        }
        "fadeListRGB" => {
            let name = a.str(0)?;
            let colours = a.list(1)?;
            let times = a.floats(2)?;
            if colours.len() != times.len() || times.windows(2).any(|w| w[1] < w[0]) {
                return Err(a.bad(2, "increasing times, one per colour"));
            }
            let keys = colours
                .iter()
                .zip(&times)
                .map(|(c, &t)| match c {
                    Value::Int(n) => Ok((at(t), from_int(*n))),
                    other => number(other)
                        .map(|n| (at(t), from_int(n as i64)))
                        .ok_or_else(|| a.bad(1, "a list of 0x00RRGGBB colours")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Reply::Timed(fade(sim, a, name, keys)?)
        }
        "rotateEyes" => {
            let rgb = from_int(a.int(0)?);
            let total = a.f64(2)?;
            Reply::Timed(fade(
                sim,
                a,
                "FaceLeds",
                vec![(now, rgb), (at(total), rgb)],
            )?)
        }
        "randomEyes" => Reply::Timed(Plan::until(at(a.f64(0)?))),
        "rasta" => {
            let d = a.f64(0)?;
            let keys = vec![
                (now, [1.0, 0.0, 0.0]),
                (at(d / 2.0), [1.0, 1.0, 0.0]),
                (at(d), [0.0, 1.0, 0.0]),
            ];
            Reply::Timed(fade(sim, a, "FaceLeds", keys)?)
        }
        "earLedsSetAngle" => {
            let (duration, keep) = (a.f64(1)?, a.bool(2)?);
            a.int(0)?;
            let end = if keep { 1.0 } else { 0.0 };
            Reply::Timed(fade(
                sim,
                a,
                "EarLeds",
                vec![(at(duration), [0.0, 0.0, end])],
            )?)
        }
        _ => Reply::NotServed,
    })
}

/// `reset`: the LEDs of `name` back to their colour at boot.
fn reset(sim: &Sim, a: &Args<'_>, name: &str) -> Result<(), CallError> {
    let mut state = sim.state();
    let members = state.leds.resolve(name).ok_or_else(|| unknown(a, name))?;
    for (i, _) in members {
        let c = state
            .leds
            .leds
            .get(i)
            .map(|l| crate::robot::leds::default_colour(&l.name));
        if let (Some(led), Some(c)) = (state.leds.leds.get_mut(i), c) {
            led.colour = Trajectory::still(c);
        }
    }
    Ok(())
}

/// The error of a call naming an LED or group the robot does not have.
fn unknown(a: &Args<'_>, name: &str) -> CallError {
    CallError::Failed(format!("{}: unknown LED or group {name:?}", a.name))
}

/// Serves ALLeds' names and groups; `NotServed` for another method.
fn serve_groups(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "listGroups" => {
            let state = sim.state();
            let mut names = state.leds.groups.clone();
            names.extend(state.leds.custom.keys().cloned());
            Reply::Now(Value::List(names.into_iter().map(Value::String).collect()))
        }
        "listGroup" => {
            let name = a.str(0)?;
            let state = sim.state();
            let members = state.leds.resolve(name).unwrap_or_default();
            Reply::Now(Value::List(
                members
                    .iter()
                    .filter_map(|&(i, _)| {
                        state
                            .leds
                            .leds
                            .get(i)
                            .map(|l| Value::String(l.name.clone()))
                    })
                    .collect(),
            ))
        }
        "listLEDs" => Reply::Now(Value::List(
            sim.state()
                .leds
                .leds
                .iter()
                .map(|l| Value::String(l.name.clone()))
                .collect(),
        )),
        "listLED" => {
            let name = a.str(0)?;
            let exists = sim.state().leds.names.contains_key(name);
            Reply::Now(Value::List(if exists {
                vec![Value::from(name)]
            } else {
                Vec::new()
            }))
        }
        "createGroup" => {
            let name = a.str(0)?.to_string();
            let mut state = sim.state();
            let mut members = Vec::new();
            for led in a.names(1)? {
                members.extend(state.leds.resolve(&led).ok_or_else(|| unknown(a, &led))?);
            }
            state.leds.custom.insert(name, members);
            Reply::Now(Value::None)
        }
        _ => Reply::NotServed,
    })
}
