//! The ALMemory device keys a robot publishes (`Device/SubDeviceList/...`): per joint its
//! position (sensor and actuator), stiffness (`Hardness`), temperature and current; the
//! inertial unit, the battery, the sonars, the touch sensors, bumpers and the chest button.
//! Scripts read them with `ALMemory.getData`; what each is worth at a given moment is the
//! simulated robot's business ([`DeviceKey`] says what a key measures).

use crate::model::Model;

/// What a device key measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeviceKey {
    /// The angle of joint `i` (the model's "Body" order): sensor or actuator, radians.
    Position(usize),
    /// The stiffness of joint `i`, 0..1.
    Stiffness(usize),
    /// The temperature of joint `i`'s motor, °C.
    Temperature(usize),
    /// The current through joint `i`'s motor, A.
    Current(usize),
    /// A reading that the simulation keeps at rest: its value there.
    AtRest(f64),
    /// The robot's name (`Device/DeviceList/ChestBoard/BodyNickName`): what the robot is
    /// called, as `ALSystem.robotName` says.
    Name,
}

/// The temperature of a motor at rest in a room, °C: what a robot that has been on a
/// while and not moving much reads **(inference)**.
pub const MOTOR_TEMPERATURE: f64 = 30.0;

const PREFIX: &str = "Device/SubDeviceList/";

/// Makes the [`DeviceKey`] of a joint's reading from the joint's index.
type JointReading = fn(usize) -> DeviceKey;

/// The per-joint readings: (path under the joint, what it is).
const JOINT_KEYS: [(&str, JointReading); 5] = [
    ("Position/Sensor/Value", DeviceKey::Position),
    ("Position/Actuator/Value", DeviceKey::Position),
    ("Hardness/Actuator/Value", DeviceKey::Stiffness),
    ("Temperature/Sensor/Value", DeviceKey::Temperature),
    ("ElectricCurrent/Sensor/Value", DeviceKey::Current),
];

/// The other devices of `model` and their values at rest: a standing robot (inertial
/// angles 0, gravity on z), a full battery, nothing in front of the sonars (their maximum
/// range: NAO 2.55 m, Pepper 5 m **(inference)**), nothing touched.
fn others(model: Model) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for axis in ["X", "Y", "Z"] {
        out.push((format!("InertialSensor/Angle{axis}/Sensor/Value"), 0.0));
        out.push((format!("InertialSensor/Gyroscope{axis}/Sensor/Value"), 0.0));
        let g = if axis == "Z" { -9.81 } else { 0.0 };
        out.push((
            format!("InertialSensor/Accelerometer{axis}/Sensor/Value"),
            g,
        ));
    }
    out.push(("Battery/Charge/Sensor/Value".into(), 1.0));
    out.push(("Battery/Current/Sensor/Value".into(), 0.0));
    out.push(("Battery/Temperature/Sensor/Value".into(), MOTOR_TEMPERATURE));
    out.push(("ChestBoard/Button/Sensor/Value".into(), 0.0));
    for part in ["Front", "Middle", "Rear"] {
        out.push((format!("Head/Touch/{part}/Sensor/Value"), 0.0));
    }
    for hand in ["LHand", "RHand"] {
        out.push((format!("{hand}/Touch/Back/Sensor/Value"), 0.0));
        if model == Model::Nao {
            out.push((format!("{hand}/Touch/Left/Sensor/Value"), 0.0));
            out.push((format!("{hand}/Touch/Right/Sensor/Value"), 0.0));
        }
    }
    match model {
        Model::Nao => {
            for side in ["Left", "Right"] {
                out.push((format!("US/{side}/Sensor/Value"), 2.55));
            }
            for foot in ["LFoot", "RFoot"] {
                for side in ["Left", "Right"] {
                    out.push((format!("{foot}/Bumper/{side}/Sensor/Value"), 0.0));
                }
            }
        }
        Model::Pepper => {
            for side in ["Front", "Back"] {
                out.push((format!("Platform/{side}/Sonar/Sensor/Value"), 5.0));
            }
            for side in ["FrontLeft", "FrontRight", "Back"] {
                out.push((format!("Platform/{side}/Bumper/Sensor/Value"), 0.0));
            }
        }
    }
    out
}

/// The key of the robot's name (scripts read it to tell robots apart).
const NAME_KEY: &str = "Device/DeviceList/ChestBoard/BodyNickName";

/// What device key `key` of `model` measures; None for a key the robot does not publish.
pub fn device_key(model: Model, key: &str) -> Option<DeviceKey> {
    if key == NAME_KEY {
        return Some(DeviceKey::Name);
    }
    let rest = key.strip_prefix(PREFIX)?;
    // A joint's reading (the hands' touch sensors live under their joint's name too).
    if let Some((joint, reading)) = rest.split_once('/')
        && let Some(i) = model.joint_index(joint)
        && let Some((_, make)) = JOINT_KEYS.iter().find(|(path, _)| *path == reading)
    {
        return Some(make(i));
    }
    others(model)
        .into_iter()
        .find(|(path, _)| path == rest)
        .map(|(_, v)| DeviceKey::AtRest(v))
}

/// Every device key `model` publishes (for `ALMemory.getDataList`).
pub fn device_keys(model: Model) -> Vec<String> {
    let mut out: Vec<String> = model
        .joints()
        .iter()
        .flat_map(|j| {
            JOINT_KEYS
                .iter()
                .map(move |(path, _)| format!("{PREFIX}{}/{path}", j.name))
        })
        .collect();
    out.extend(
        others(model)
            .into_iter()
            .map(|(p, _)| format!("{PREFIX}{p}")),
    );
    out.push(NAME_KEY.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_scripts_read_are_published() {
        let nao = Model::Nao;
        let yaw = nao.joint_index("HeadYaw").unwrap_or(usize::MAX);
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/HeadYaw/Position/Sensor/Value"),
            Some(DeviceKey::Position(yaw))
        );
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/HeadYaw/Temperature/Sensor/Value"),
            Some(DeviceKey::Temperature(yaw))
        );
        assert_eq!(
            device_key(
                nao,
                "Device/SubDeviceList/InertialSensor/AngleY/Sensor/Value"
            ),
            Some(DeviceKey::AtRest(0.0))
        );
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/US/Left/Sensor/Value"),
            Some(DeviceKey::AtRest(2.55))
        );
        assert_eq!(
            device_key(Model::Pepper, "Device/SubDeviceList/US/Left/Sensor/Value"),
            None
        );
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/KneePitch/Position/Sensor/Value"),
            None,
            "a Pepper joint"
        );
        let keys = device_keys(nao);
        assert!(keys.iter().all(|k| device_key(nao, k).is_some()));
        assert_eq!(keys.len(), 26 * 5 + others(nao).len() + 1);
        assert_eq!(
            device_key(nao, "Device/DeviceList/ChestBoard/BodyNickName"),
            Some(DeviceKey::Name)
        );
    }
}
