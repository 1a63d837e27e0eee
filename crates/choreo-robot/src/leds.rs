//! The LEDs of a NAO and a Pepper as ALLeds names them: each light (an RGB LED, or a blue
//! one), the device names of its colour channels (the DCM actuator keys, which ALLeds takes
//! as LED names too: `Ears/Led/Left/36Deg/Actuator/Value`), and the named groups
//! (`FaceLeds`, `LeftFaceLed3`, `FaceLedsTop`, `LeftEarLedsEven`, `Brain0`, `AllLedsRed`...).
//!
//! Positions and names, from NAOqi 2.5's LED page (`family/robots/leds_robot.html`, NAO V5,
//! V4 and V3.3): each eye has 8 RGB LEDs whose devices are named by angle (`0Deg`, `45Deg`,
//! ... `315Deg`). The lights' names go round each eye in opposite directions:
//! `FaceLedLeft0`..`7` are the left eye's 45°, 0°, 315°, ... 90° devices (`LeftFaceLed1`..`8`
//! the same lights), `FaceLedRight0`..`7` the right eye's 315°, 270°, ... 0° devices
//! (`RightFaceLed8`..`1`); `FaceLed0`..`7` light the same number in both eyes. Each ear has
//! 10 blue LEDs at 0°, 36°, ... 324°; NAO's head has 12 blue LEDs around its tactile sensor
//! (front, middle and rear, on each side: `Brain0` is `Head/Led/Front/Right/1`, then round by
//! the right side to the rear and back by the left side to `Brain11`, `Front/Left/1`), its
//! chest and feet one RGB LED each; Pepper has no feet or head LEDs. **(inference)** Which
//! eye LEDs make `FaceLedsTop`, `...External`, `...Bottom`, `...Internal` (the three devices
//! around 0°, 90°, 180° and 270°) and which ear LEDs make the `Front`/`Back` halves (0° to
//! 144°) are not documented.

use crate::model::Model;

/// A colour channel mask: red, green, blue.
pub type Channels = [bool; 3];

const RGB: Channels = [true, true, true];
const BLUE: Channels = [false, false, true];
const COLOUR: [&str; 3] = ["Red", "Green", "Blue"];

/// One light.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Led {
    /// Its name here (`FaceLedLeft0`, `EarLedRight9`, `ChestLed`, `BrainLed4`).
    pub name: String,
    /// The channels it has (ears and head: blue only).
    pub channels: Channels,
    /// The device name of each channel it has, in red, green, blue order.
    pub devices: [Option<String>; 3],
}

/// A named group: its members, each a light (an index into [`leds`]) and the channels of it
/// the group drives.
pub type Group = (String, Vec<(usize, Channels)>);

/// The side names, as device names spell them.
const SIDES: [&str; 2] = ["Left", "Right"];

/// NAO's head LEDs, in `Brain0`..`Brain11` order: (part, side, number).
const HEAD: [(&str, &str, u8); 12] = [
    ("Front", "Right", 1),
    ("Front", "Right", 0),
    ("Middle", "Right", 0),
    ("Rear", "Right", 0),
    ("Rear", "Right", 1),
    ("Rear", "Right", 2),
    ("Rear", "Left", 2),
    ("Rear", "Left", 1),
    ("Rear", "Left", 0),
    ("Middle", "Left", 0),
    ("Front", "Left", 0),
    ("Front", "Left", 1),
];

/// The angle in degrees of the device of eye light `k` (`FaceLed{side}{k}`) on `side`.
fn eye_angle(side: &str, k: u16) -> u16 {
    let first = if side == "Left" { 45 } else { 315 };
    (first + 360 - (45 * k) % 360) % 360
}

/// The eye light (`k` of `FaceLed{side}{k}`) whose device is at `angle` degrees on `side`.
fn eye_light(side: &str, angle: u16) -> u8 {
    (0..8u8)
        .find(|&k| eye_angle(side, u16::from(k)) == angle % 360)
        .unwrap_or(0)
}

fn led(name: String, channels: Channels, device: impl Fn(usize) -> String) -> Led {
    let devices = [0, 1, 2].map(|c| channels[c].then(|| device(c)));
    Led {
        name,
        channels,
        devices,
    }
}

/// Every light of `model`, in a fixed order: face (left eye 0..7, right eye 0..7), ears
/// (left 0..9, right 0..9), chest, then on NAO the feet (left, right) and the head (0..11).
pub fn leds(model: Model) -> Vec<Led> {
    let mut out = Vec::new();
    for side in SIDES {
        for k in 0..8 {
            out.push(led(format!("FaceLed{side}{k}"), RGB, |c| {
                let angle = eye_angle(side, k);
                format!("Face/Led/{}/{side}/{angle}Deg/Actuator/Value", COLOUR[c])
            }));
        }
    }
    for side in SIDES {
        for k in 0..10 {
            out.push(led(format!("EarLed{side}{k}"), BLUE, |_| {
                format!("Ears/Led/{side}/{}Deg/Actuator/Value", k * 36)
            }));
        }
    }
    out.push(led("ChestLed".into(), RGB, |c| {
        format!("ChestBoard/Led/{}/Actuator/Value", COLOUR[c])
    }));
    if model == Model::Nao {
        for (side, foot) in [("Left", "LFoot"), ("Right", "RFoot")] {
            out.push(led(format!("{side}FootLed"), RGB, |c| {
                format!("{foot}/Led/{}/Actuator/Value", COLOUR[c])
            }));
        }
        for (i, (part, side, n)) in HEAD.iter().enumerate() {
            out.push(led(format!("BrainLed{i}"), BLUE, |_| {
                format!("Head/Led/{part}/{side}/{n}/Actuator/Value")
            }));
        }
    }
    out
}

/// The named groups of `model` over `leds` (its [`leds`]), NAOqi's names: everything, by
/// colour, the face (whole, per eye, per position, per LED number 0-based across both eyes
/// and 1-based per eye), the ears (whole, per side, halves, even and odd, per LED 1-based),
/// the chest; on NAO the feet and the head (`BrainLeds`, its parts and sides, `Brain0`..).
pub fn led_groups(model: Model, leds: &[Led]) -> Vec<Group> {
    let index = |name: &str| leds.iter().position(|l| l.name == name);
    let whole = |names: &[String]| -> Vec<(usize, Channels)> {
        names
            .iter()
            .filter_map(|n| index(n))
            .map(|i| (i, leds[i].channels))
            .collect()
    };
    let face = |sides: &[&str], ks: &[u8]| -> Vec<String> {
        sides
            .iter()
            .flat_map(|s| ks.iter().map(move |k| format!("FaceLed{s}{k}")))
            .collect()
    };
    let ears = |sides: &[&str], ks: &[u8]| -> Vec<String> {
        sides
            .iter()
            .flat_map(|s| ks.iter().map(move |k| format!("EarLed{s}{k}")))
            .collect()
    };
    let all8: Vec<u8> = (0..8).collect();
    let all10: Vec<u8> = (0..10).collect();
    let mut groups: Vec<(String, Vec<String>)> = vec![
        ("FaceLeds".into(), face(&SIDES, &all8)),
        ("LeftFaceLeds".into(), face(&["Left"], &all8)),
        ("RightFaceLeds".into(), face(&["Right"], &all8)),
        ("EarLeds".into(), ears(&SIDES, &all10)),
        ("LeftEarLeds".into(), ears(&["Left"], &all10)),
        ("RightEarLeds".into(), ears(&["Right"], &all10)),
        ("ChestLeds".into(), vec!["ChestLed".into()]),
    ];
    // Eye positions: the device at an angle and the two beside it.
    for (part, angles) in [
        ("Top", [315, 0, 45]),
        ("External", [45, 90, 135]),
        ("Bottom", [135, 180, 225]),
        ("Internal", [225, 270, 315]),
    ] {
        let at = |side: &str| angles.map(|a| eye_light(side, a));
        let both: Vec<String> = SIDES.iter().flat_map(|s| face(&[s], &at(s))).collect();
        groups.push((format!("FaceLeds{part}"), both));
        for side in SIDES {
            groups.push((format!("FaceLeds{side}{part}"), face(&[side], &at(side))));
        }
    }
    for k in 0..8u8 {
        groups.push((format!("FaceLed{k}"), face(&SIDES, &[k])));
        groups.push((format!("LeftFaceLed{}", k + 1), face(&["Left"], &[k])));
        groups.push((format!("RightFaceLed{}", 8 - k), face(&["Right"], &[k])));
    }
    for side in SIDES {
        let even: Vec<u8> = (0..10).step_by(2).collect();
        let odd: Vec<u8> = (1..10).step_by(2).collect();
        groups.push((format!("{side}EarLedsEven"), ears(&[side], &even)));
        groups.push((format!("{side}EarLedsOdd"), ears(&[side], &odd)));
        groups.push((
            format!("{side}EarLedsFront"),
            ears(&[side], &[0, 1, 2, 3, 4]),
        ));
        groups.push((
            format!("{side}EarLedsBack"),
            ears(&[side], &[5, 6, 7, 8, 9]),
        ));
        for k in 0..10u8 {
            groups.push((format!("{side}EarLed{}", k + 1), ears(&[side], &[k])));
        }
    }
    if model == Model::Nao {
        groups.extend(nao_groups());
    }
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|(name, members)| (name, whole(&members)))
        .collect();
    out.push((
        "AllLeds".into(),
        (0..leds.len()).map(|i| (i, leds[i].channels)).collect(),
    ));
    for (c, colour) in COLOUR.iter().enumerate() {
        let mut mask = [false; 3];
        mask[c] = true;
        out.push((
            format!("AllLeds{colour}"),
            (0..leds.len())
                .filter(|&i| leds[i].channels[c])
                .map(|i| (i, mask))
                .collect(),
        ));
    }
    out
}

/// The groups only NAO has: its feet's and its head's (the brain LEDs), by name.
fn nao_groups() -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    groups.push((
        "FeetLeds".into(),
        vec!["LeftFootLed".into(), "RightFootLed".into()],
    ));
    groups.push(("LeftFootLeds".into(), vec!["LeftFootLed".into()]));
    groups.push(("RightFootLeds".into(), vec!["RightFootLed".into()]));
    let head = |keep: &dyn Fn(&(&str, &str, u8)) -> bool| -> Vec<String> {
        HEAD.iter()
            .enumerate()
            .filter(|(_, h)| keep(h))
            .map(|(i, _)| format!("BrainLed{i}"))
            .collect()
    };
    groups.push(("BrainLeds".into(), head(&|_| true)));
    groups.push(("BrainLedsFront".into(), head(&|h| h.0 == "Front")));
    groups.push(("BrainLedsMiddle".into(), head(&|h| h.0 == "Middle")));
    groups.push(("BrainLedsBack".into(), head(&|h| h.0 == "Rear")));
    groups.push(("BrainLedsLeft".into(), head(&|h| h.1 == "Left")));
    groups.push(("BrainLedsRight".into(), head(&|h| h.1 == "Right")));
    for i in 0..HEAD.len() {
        groups.push((format!("Brain{i}"), vec![format!("BrainLed{i}")]));
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_name_is_one_channel_of_one_light() {
        for model in [Model::Nao, Model::Pepper] {
            let leds = leds(model);
            let devices: Vec<&String> = leds
                .iter()
                .flat_map(|l| l.devices.iter().flatten())
                .collect();
            let mut unique = devices.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), devices.len(), "{model:?}: a device twice");
            assert!(
                devices
                    .iter()
                    .any(|d| *d == "Ears/Led/Left/0Deg/Actuator/Value")
            );
            assert!(
                devices
                    .iter()
                    .any(|d| *d == "Face/Led/Green/Right/315Deg/Actuator/Value")
            );
        }
        assert_eq!(leds(Model::Nao).len(), 16 + 20 + 1 + 2 + 12);
        assert_eq!(leds(Model::Pepper).len(), 16 + 20 + 1);
    }

    #[test]
    fn groups_name_real_lights_and_nao_has_its_head() {
        let nao = leds(Model::Nao);
        let groups = led_groups(Model::Nao, &nao);
        let get = |n: &str| {
            groups
                .iter()
                .find(|g| g.0 == n)
                .map(|g| g.1.clone())
                .unwrap_or_default()
        };
        assert_eq!(get("Brain0").len(), 1);
        assert_eq!(get("BrainLeds").len(), 12);
        assert_eq!(get("RightEarLed10").len(), 1);
        assert_eq!(get("LeftFaceLed8").len(), 1);
        assert_eq!(get("FaceLedsTop").len(), 6);
        // NAOqi 2.5's LED page: names, short names and devices.
        let device = |group: &str| -> Vec<String> {
            get(group)
                .iter()
                .filter_map(|&(i, _)| nao[i].devices.iter().flatten().next().cloned())
                .collect()
        };
        assert_eq!(device("Brain0"), ["Head/Led/Front/Right/1/Actuator/Value"]);
        assert_eq!(device("Brain10"), ["Head/Led/Front/Left/0/Actuator/Value"]);
        assert_eq!(
            device("LeftFaceLed1"),
            ["Face/Led/Red/Left/45Deg/Actuator/Value"]
        );
        assert_eq!(
            device("LeftFaceLed8"),
            ["Face/Led/Red/Left/90Deg/Actuator/Value"]
        );
        assert_eq!(
            device("RightFaceLed8"),
            ["Face/Led/Red/Right/315Deg/Actuator/Value"]
        );
        assert_eq!(
            device("RightFaceLed1"),
            ["Face/Led/Red/Right/0Deg/Actuator/Value"]
        );
        assert_eq!(
            device("FaceLed1"),
            [
                "Face/Led/Red/Left/0Deg/Actuator/Value",
                "Face/Led/Red/Right/270Deg/Actuator/Value"
            ]
        );
        assert_eq!(get("AllLeds").len(), nao.len());
        assert!(
            get("AllLedsRed")
                .iter()
                .all(|m| m.1 == [true, false, false])
        );
        assert!(groups.iter().all(|g| !g.1.is_empty()), "no empty group");
        let pepper = leds(Model::Pepper);
        let pg = led_groups(Model::Pepper, &pepper);
        assert!(
            !pg.iter()
                .any(|g| g.0.starts_with("Brain") || g.0.contains("Feet"))
        );
    }
}
