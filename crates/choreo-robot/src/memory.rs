//! The ALMemory device keys a robot publishes (`Device/SubDeviceList/...`): per joint its
//! position (sensor and actuator), stiffness (`Hardness`), temperature and current; the
//! inertial unit, the battery, the sonars (NAO: the first echo and the nine after it), the
//! foot force sensors (NAO), the head processor's temperature (NAO), the wheels (Pepper),
//! the touch sensors, bumpers and the chest button. Scripts read them with
//! `ALMemory.getData`; what each is worth at a given moment is the simulated robot's business
//! ([`DeviceKey`] says what a key measures).
//!
//! Also the other keys a robot holds from boot with a value ([`boot_keys`]): the events of
//! ALBattery and ALBodyTemperature as a healthy robot with a full battery has them, and the
//! readings of the vision extractors scripts read right after subscribing.

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
    /// A foot force sensor (NAO, kg): this share of the robot's weight ([`NAO_MASS`]) while
    /// it stands on its feet (standing or crouching), none otherwise.
    FootLoad(f64),
    /// The robot's name (`Device/DeviceList/ChestBoard/BodyNickName`): what the robot is
    /// called, as `ALSystem.robotName` says.
    Name,
}

/// The temperature of a motor at rest in a room, °C: what a robot that has been on a
/// while and not moving much reads **(inference)**.
pub const MOTOR_TEMPERATURE: f64 = 30.0;

/// The temperature of NAO's head processor in a robot that has been on a while, °C
/// **(inference)**: the stock Get Temperature box reads it ("Head processor").
pub const HEAD_CPU_TEMPERATURE: f64 = 50.0;

/// NAO's mass, kg: the whole robot of the V4 masses page (doc.aldebaran.com/2-4,
/// family/robots/masses_robot_v4); what its feet carry when it stands.
pub const NAO_MASS: f64 = 5.195_350_051;

/// NAO's sonar reading when nothing is in range, m **(inference)**: a receiver's value when
/// no echo comes back is the maximum detection range (the DCM sensor list).
pub const SONAR_NOTHING_NAO: f64 = 2.55;

/// Pepper's sonar reading when nothing is in range, m **(inference)**.
pub const SONAR_NOTHING_PEPPER: f64 = 5.0;

/// The four force sensors of a NAO foot (the DCM sensor list: `LFoot/FSR/FrontLeft`...).
pub const FSR_SENSORS: [&str; 4] = ["FrontLeft", "FrontRight", "RearLeft", "RearRight"];

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

/// The other devices of `model` and what they read: a standing robot (inertial angles 0,
/// gravity on z, its weight on the force sensors of its feet), a full battery, nothing in
/// front of the sonars (every echo at the maximum range: NAO 2.55 m, Pepper 5 m
/// **(inference)**), nothing touched, motors and processor at their resting temperature.
fn others(model: Model) -> Vec<(String, DeviceKey)> {
    others_at_rest(model)
        .into_iter()
        .map(|(k, v)| (k, DeviceKey::AtRest(v)))
        .chain(feet(model))
        .collect()
}

/// NAO's foot force sensors: four a foot sharing its half of the weight, and each foot's
/// total (the DCM sensor list: `FSR (kg)`, `FSR total (kg)`, the sum of the foot's four).
fn feet(model: Model) -> Vec<(String, DeviceKey)> {
    if model != Model::Nao {
        return Vec::new();
    }
    let mut out = Vec::new();
    for foot in ["LFoot", "RFoot"] {
        for sensor in FSR_SENSORS {
            out.push((
                format!("{foot}/FSR/{sensor}/Sensor/Value"),
                DeviceKey::FootLoad(1.0 / 8.0),
            ));
        }
        out.push((
            format!("{foot}/FSR/TotalWeight/Sensor/Value"),
            DeviceKey::FootLoad(0.5),
        ));
    }
    out
}

fn others_at_rest(model: Model) -> Vec<(String, f64)> {
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
            out.push(("Head/Temperature/Sensor/Value".into(), HEAD_CPU_TEMPERATURE));
            for side in ["Left", "Right"] {
                out.push((format!("US/{side}/Sensor/Value"), SONAR_NOTHING_NAO));
                // The nine echoes after the first: none, at the maximum range too.
                for echo in 1..=9 {
                    out.push((format!("US/{side}/Sensor/Value{echo}"), SONAR_NOTHING_NAO));
                }
            }
            for foot in ["LFoot", "RFoot"] {
                for side in ["Left", "Right"] {
                    out.push((format!("{foot}/Bumper/{side}/Sensor/Value"), 0.0));
                }
            }
        }
        Model::Pepper => {
            for side in ["Front", "Back"] {
                out.push((
                    format!("Platform/{side}/Sonar/Sensor/Value"),
                    SONAR_NOTHING_PEPPER,
                ));
            }
            // The wheels are motors without a joint of ALMotion's.
            for wheel in ["WheelFL", "WheelFR", "WheelB"] {
                out.push((
                    format!("{wheel}/Temperature/Sensor/Value"),
                    MOTOR_TEMPERATURE,
                ));
                out.push((format!("{wheel}/ElectricCurrent/Sensor/Value"), 0.0));
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
        .map(|(_, v)| v)
}

/// A value ALMemory holds from boot, in a form a table can spell (an ALValue's shapes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Datum {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// Text.
    Str(&'static str),
    /// A list.
    List(&'static [Datum]),
}

/// A temperature status or diagnosis with nothing wrong: `[level 0, [no device]]`.
const ALL_NORMAL: Datum = Datum::List(&[Datum::Int(0), Datum::List(&[])]);

/// The darkness a lit room reads, 0 (bright) to 100 (dark) **(inference)**: under
/// ALDarknessDetection's default threshold (60), and "indoor bright" on NAOqi 1.x's scale.
pub const ROOM_DARKNESS: i64 = 20;

/// The keys a robot of `model` holds from boot with a value, besides its device keys: every
/// one is an event a module raises, which a script may read before it is raised (the stock
/// Battery box reads `BatteryLowDetected` when it starts). Their values are those of a
/// healthy robot on its full battery, not plugged in, in a lit room **(inference: the
/// events' meanings from the ALBattery, ALBodyTemperature, ALDarknessDetection and
/// ALBacklightingDetection API pages of NAOqi 2.8)**.
pub fn boot_keys(model: Model) -> Vec<(String, Datum)> {
    let mut out: Vec<(&'static str, Datum)> = vec![
        // ALBattery.
        ("BatteryChargeChanged", Datum::Int(100)),
        ("BatteryLowDetected", Datum::Bool(false)),
        ("BatteryNotDetected", Datum::Bool(false)),
        ("BatteryPowerPluggedChanged", Datum::Bool(false)),
        ("BatteryChargingFlagChanged", Datum::Bool(false)),
        ("BatteryDisChargingFlagChanged", Datum::Bool(true)),
        ("BatteryFullChargedFlagChanged", Datum::Bool(true)),
        // ALBodyTemperature: no device hot.
        ("HotJointDetected", Datum::List(&[])),
        ("HotDeviceDetected", Datum::List(&[])),
        ("TemperatureStatusChanged", ALL_NORMAL),
        ("TemperatureDiagnosisErrorChanged", ALL_NORMAL),
        // The vision extractors' readings: a lit room, no backlight.
        ("DarknessDetection/DarknessValue", Datum::Int(ROOM_DARKNESS)),
        ("BacklightingDetection/BacklightingValue", Datum::Int(0)),
    ];
    if model == Model::Pepper {
        out.push(("ALBattery/ConnectedToChargingStation", Datum::Bool(false)));
        out.push(("BatteryTrapIsOpen", Datum::Bool(false)));
    }
    // ALDialog's data (the ALDialog API page, "Data"): "Dialog/RobotModel: Data that contains
    // “juliette” on Pepper robot and “nao” on nao robot"; "Dialog/RobotName: ... “pepper” or
    // “nao” depending robot model"; "Dialog/Language/English: Value = 1 if the given language
    // (here it's English) is installed" (a simulated robot has them all).
    let (model_name, robot_name) = match model {
        Model::Pepper => ("juliette", "pepper"),
        Model::Nao => ("nao", "nao"),
    };
    out.push(("Dialog/RobotModel", Datum::Str(model_name)));
    out.push(("Dialog/RobotName", Datum::Str(robot_name)));
    let mut keys: Vec<(String, Datum)> = out.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    keys.extend(
        crate::languages::LANGUAGES
            .iter()
            .map(|l| (format!("Dialog/Language/{}", l.name), Datum::Int(1))),
    );
    keys
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
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/US/Right/Sensor/Value9"),
            Some(DeviceKey::AtRest(SONAR_NOTHING_NAO))
        );
        assert_eq!(
            device_key(nao, "Device/SubDeviceList/LFoot/FSR/RearLeft/Sensor/Value"),
            Some(DeviceKey::FootLoad(0.125))
        );
        assert_eq!(
            device_key(
                nao,
                "Device/SubDeviceList/RFoot/FSR/TotalWeight/Sensor/Value"
            ),
            Some(DeviceKey::FootLoad(0.5))
        );
        assert_eq!(
            device_key(
                Model::Pepper,
                "Device/SubDeviceList/LFoot/FSR/RearLeft/Sensor/Value"
            ),
            None,
            "Pepper has wheels"
        );
        assert_eq!(
            device_key(
                Model::Pepper,
                "Device/SubDeviceList/WheelB/Temperature/Sensor/Value"
            ),
            Some(DeviceKey::AtRest(MOTOR_TEMPERATURE))
        );
        // The shares of the weight add up to the whole robot.
        let shares: f64 = others(nao)
            .iter()
            .filter(|(k, _)| k.contains("/FSR/") && !k.contains("TotalWeight"))
            .map(|(_, v)| match v {
                DeviceKey::FootLoad(share) => *share,
                _ => 0.0,
            })
            .sum();
        assert!((shares - 1.0).abs() < 1e-12, "{shares}");
        let keys = device_keys(nao);
        assert!(keys.iter().all(|k| device_key(nao, k).is_some()));
        assert_eq!(keys.len(), 26 * 5 + others(nao).len() + 1);
        assert_eq!(
            device_key(nao, "Device/DeviceList/ChestBoard/BodyNickName"),
            Some(DeviceKey::Name)
        );
    }

    #[test]
    fn boot_keys_are_those_of_a_healthy_robot() {
        let keys = boot_keys(Model::Nao);
        let get = |k: &str| keys.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        assert_eq!(get("BatteryLowDetected"), Some(Datum::Bool(false)));
        assert_eq!(get("BatteryChargeChanged"), Some(Datum::Int(100)));
        assert_eq!(get("TemperatureStatusChanged"), Some(ALL_NORMAL));
        assert_eq!(get("BatteryTrapIsOpen"), None, "Pepper's");
        assert!(boot_keys(Model::Pepper).len() > keys.len());
        // The ALDialog API page's data.
        assert_eq!(get("Dialog/RobotModel"), Some(Datum::Str("nao")));
        assert_eq!(get("Dialog/Language/English"), Some(Datum::Int(1)));
        let pepper = boot_keys(Model::Pepper);
        let model = pepper.iter().find(|(k, _)| k == "Dialog/RobotModel");
        assert_eq!(model.map(|(_, v)| *v), Some(Datum::Str("juliette")));
    }
}
