//! The robot's LEDs as the simulated robot keeps them: one RGB state per light, faded
//! linearly over time, and every name ALLeds takes for them (choreo-robot's tables). ALLeds
//! and DCM command them; the snapshot reads the groups. Part of the core because they are
//! the robot's, whichever module lights them.

use std::collections::BTreeMap;

use choreo_engine::clock::Time;
use choreo_robot::Model;
use choreo_robot::leds::Channels;

use crate::robot::trajectory::Trajectory;

/// One light: its name, the channels it has, its colour over time.
pub(crate) struct Led {
    pub name: String,
    pub channels: [bool; 3],
    pub colour: Trajectory<3>,
    /// The command that last set it (a stop freezes only its own LEDs).
    pub owner: u64,
}

/// Every LED and the groups.
pub(crate) struct Leds {
    pub leds: Vec<Led>,
    /// Every name ALLeds takes for the robot's lights (groups, lights, the device name of
    /// each channel: choreo-robot's tables), with the members and channels each drives.
    pub names: BTreeMap<String, Vec<(usize, Channels)>>,
    /// The group names, for `listGroups`.
    pub groups: Vec<String>,
    pub custom: BTreeMap<String, Vec<(usize, Channels)>>,
    pub next_owner: u64,
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

pub(crate) fn default_colour(name: &str) -> [f64; 3] {
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
    pub fn resolve(&self, name: &str) -> Option<Vec<(usize, Channels)>> {
        self.custom
            .get(name)
            .or_else(|| self.names.get(name))
            .cloned()
    }

    /// Moves the LEDs through `keys` from `now` (channels an LED lacks stay dark); returns
    /// the command's owner number.
    pub fn command(
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

    pub fn freeze(&mut self, owner: u64, now: Time) {
        for led in self.leds.iter_mut().filter(|l| l.owner == owner) {
            led.colour.freeze(now);
        }
    }

    /// The mean colour of `members` at `now`, over the channels each drives.
    pub fn average(&self, members: &[(usize, Channels)], now: Time) -> [f64; 3] {
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
