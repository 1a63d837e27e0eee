//! ALLeds: one RGB state per LED, faded linearly over time; groups by name.
//!
//! The lights, their channels' device names and the groups are choreo-robot's tables
//! (`choreo_robot::leds`): every name a real robot's ALLeds takes (`FaceLedsTop`,
//! `RightEarLed10`, `Brain0`, `Ears/Led/Left/0Deg/Actuator/Value`...). A device name drives
//! one channel of its light. Ears and brain LEDs are blue only (a red command leaves them
//! dark), as on NAO. A fade
//! lasts its `duration` (0 = at once); rotateEyes, randomEyes and rasta their total duration.
//! A newer command on an LED wins (B4); a stopped fade leaves the colour it had reached (B3).

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::args::{Args, number};
use crate::observe::RobotEvent;
use crate::sim::{Reply, Sim};
use crate::tasks::Plan;
use crate::trajectory::{Trajectory, after};
use choreo_robot::Model;
use choreo_robot::leds::Channels;

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

struct Led {
    name: String,
    channels: [bool; 3],
    colour: Trajectory<3>,
    /// The command that last set it (a stop freezes only its own LEDs).
    owner: u64,
}

/// Every LED and the groups.
pub(crate) struct Leds {
    leds: Vec<Led>,
    /// Every name ALLeds takes for the robot's lights (groups, lights, the device name of
    /// each channel: choreo-robot's tables), with the members and channels each drives.
    names: BTreeMap<String, Vec<(usize, Channels)>>,
    /// The group names, for `listGroups`.
    groups: Vec<String>,
    custom: BTreeMap<String, Vec<(usize, Channels)>>,
    next_owner: u64,
}

/// The groups a snapshot reports.
const SHOWN: &[&str] = &[
    "LeftFaceLeds",
    "RightFaceLeds",
    "LeftEarLeds",
    "RightEarLeds",
    "ChestLeds",
    "LeftFootLeds",
    "RightFootLeds",
    "BrainLeds",
];

fn default_colour(name: &str) -> [f64; 3] {
    if name.starts_with("Face") || name.starts_with("Chest") {
        [1.0; 3]
    } else if name.starts_with("Ear") {
        [0.0, 0.0, 1.0]
    } else {
        [0.0; 3]
    }
}

impl Leds {
    /// The LEDs of `model` (choreo-robot's tables), at their default colours.
    pub fn new(model: Model) -> Leds {
        let defs = choreo_robot::leds::leds(model);
        let groups = choreo_robot::leds::led_groups(model, &defs);
        let mut names: BTreeMap<String, Vec<(usize, Channels)>> = BTreeMap::new();
        for (i, d) in defs.iter().enumerate() {
            names.insert(d.name.clone(), vec![(i, d.channels)]);
            for (c, device) in d.devices.iter().enumerate() {
                if let Some(device) = device {
                    let mut mask = [false; 3];
                    mask[c] = true;
                    names.insert(device.clone(), vec![(i, mask)]);
                }
            }
        }
        let group_names = groups.iter().map(|g| g.0.clone()).collect();
        names.extend(groups);
        Leds {
            leds: defs
                .into_iter()
                .map(|d| Led {
                    colour: Trajectory::still(default_colour(&d.name)),
                    name: d.name,
                    channels: d.channels,
                    owner: 0,
                })
                .collect(),
            names,
            groups: group_names,
            custom: BTreeMap::new(),
            next_owner: 1,
        }
    }

    /// The lights (and their channels) of group, light or device `name`.
    fn resolve(&self, name: &str) -> Option<Vec<(usize, Channels)>> {
        self.custom
            .get(name)
            .or_else(|| self.names.get(name))
            .cloned()
    }

    /// Moves the LEDs through `keys` from `now` (channels an LED lacks stay dark); returns
    /// the command's owner number.
    fn command(
        &mut self,
        members: &[(usize, Channels)],
        now: Time,
        keys: &[(Time, [f64; 3])],
    ) -> u64 {
        let owner = self.next_owner;
        self.next_owner += 1;
        for &(i, driven) in members {
            if let Some(led) = self.leds.get_mut(i) {
                // A channel the light lacks stays dark; one the name does not drive keeps
                // its course (a device name drives one channel).
                let has = led.channels;
                let before = led.colour.clone();
                let masked = keys.iter().map(|&(t, c)| {
                    let was = before.at(t);
                    (
                        t,
                        [0, 1, 2].map(|k| match (has[k], driven[k]) {
                            (false, _) => 0.0,
                            (true, true) => c[k].clamp(0.0, 1.0),
                            (true, false) => was[k],
                        }),
                    )
                });
                led.colour.command(now, masked);
                led.owner = owner;
            }
        }
        owner
    }

    fn freeze(&mut self, owner: u64, now: Time) {
        for led in self.leds.iter_mut().filter(|l| l.owner == owner) {
            led.colour.freeze(now);
        }
    }

    /// The mean colour of `members` at `now`, over the channels each drives.
    fn average(&self, members: &[(usize, Channels)], now: Time) -> [f64; 3] {
        let mut sum = [0.0; 3];
        for &(i, driven) in members {
            if let Some(led) = self.leds.get(i) {
                let c = led.colour.at(now);
                for k in 0..3 {
                    if driven[k] {
                        sum[k] += c[k];
                    }
                }
            }
        }
        let n = members.len().max(1) as f64;
        sum.map(|s| s / n)
    }

    /// The value of LED device `name` (one channel of one light: `Face/Led/Red/Left/0Deg/
    /// Actuator/Value`) at `now`; None for another name.
    pub fn device(&self, name: &str, now: Time) -> Option<f64> {
        match self.names.get(name)?.as_slice() {
            [(i, channels)] if channels.iter().filter(|c| **c).count() == 1 => {
                let colour = self.leds.get(*i)?.colour.at(now);
                let k = channels.iter().position(|c| *c)?;
                Some(colour[k])
            }
            _ => None,
        }
    }

    /// The colour of each main group at `now`.
    pub fn groups(&self, now: Time) -> Vec<(String, [f64; 3])> {
        SHOWN
            .iter()
            .filter_map(|g| {
                self.resolve(g)
                    .map(|m| (g.to_string(), self.average(&m, now)))
            })
            .collect()
    }
}

/// A colour from `0x00RRGGBB`.
fn from_int(rgb: i64) -> [f64; 3] {
    [16, 8, 0].map(|shift| ((rgb >> shift) & 0xff) as f64 / 255.0)
}

/// A colour argument at `i`: a name or an int.
fn colour(a: &Args<'_>, i: usize) -> Result<[f64; 3], String> {
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
) -> Result<Plan, String> {
    let now = sim.now();
    let end = keys.last().map_or(now, |k| k.0);
    let rgb = keys.last().map_or([0.0; 3], |k| k.1);
    let owner = {
        let mut state = sim.state();
        let members = state
            .leds
            .resolve(name)
            .ok_or_else(|| format!("{}: unknown LED or group {name:?}", a.name))?;
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
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
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
            let name = a.str(0)?;
            let mut state = sim.state();
            let members = state
                .leds
                .resolve(name)
                .ok_or_else(|| format!("{}: unknown LED or group {name:?}", a.name))?;
            for (i, _) in members {
                let c = state.leds.leds.get(i).map(|l| default_colour(&l.name));
                if let (Some(led), Some(c)) = (state.leds.leds.get_mut(i), c) {
                    led.colour = Trajectory::still(c);
                }
            }
            Reply::Now(Value::None)
        }
        "getIntensity" => {
            let name = a.str(0)?;
            let state = sim.state();
            let members = state
                .leds
                .resolve(name)
                .ok_or_else(|| format!("{}: unknown LED or group {name:?}", a.name))?;
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
                members.extend(
                    state
                        .leds
                        .resolve(&led)
                        .ok_or_else(|| format!("{}: unknown LED or group {led:?}", a.name))?,
                );
            }
            state.leds.custom.insert(name, members);
            Reply::Now(Value::None)
        }
        _ => Reply::NotServed,
    })
}
