//! The ALMemory events the world raises — a person, the room, the robot's own sensors —
//! each with one value the NAOqi documentation gives for it (2.1 and 2.8 mirrors, the API
//! page's event entry and the module's overview for a structure), built so that the stock
//! boxes' scripts that read it find every field they index. What `choreo explore` does
//! when a behavior waits for one of these; a behavior's scenario may raise the same.
//! Touches are [`crate::TOUCH_SENSORS`]; the trackers' events are raised by ALTracker
//! itself when what it tracks shows (`services/trackers/tracker.rs`).

use choreo_engine::Value;

/// A world event: its key, the value raised, and where the value comes from.
pub struct WorldEvent {
    /// The ALMemory key.
    pub key: &'static str,
    /// The values raised, each a path of its own in `choreo explore`: the one the
    /// documentation's example gives, or each where it names several (the NAOmarks).
    pub values: fn() -> Vec<Value>,
    /// The documentation page (`naoqi/...html#anchor`) the value is read from.
    pub source: &'static str,
}

fn f(x: f64) -> Value {
    Value::Float(x)
}

fn list(items: Vec<Value>) -> Value {
    Value::List(items)
}

fn floats(xs: &[f64]) -> Value {
    list(xs.iter().copied().map(f).collect())
}

/// `[seconds, microseconds]`, the detection values' time stamp.
fn stamp() -> Value {
    list(vec![Value::Int(1_500_000_000), Value::Int(250_000)])
}

/// A camera's pose in FRAME_TORSO or FRAME_ROBOT (Position6D: x, y, z, wx, wy, wz): the
/// top camera of a standing NAO, roughly.
fn camera(z: f64) -> Value {
    floats(&[0.05, 0.0, z, 0.0, 0.1, 0.0])
}

/// One face in front of the camera, not recognized (alfacedetection.html, "FaceDetected
/// Event": `[TimeStamp, [FaceInfo, Time_Filtered_Reco_Info], CameraPose_InTorsoFrame,
/// CameraPose_InRobotFrame, Camera_Id]`, FaceInfo `[ShapeInfo, ExtraInfo]`, ShapeInfo `[0,
/// alpha, beta, sizeX, sizeY]` with the tutorial's numbers, Time_Filtered_Reco_Info `[4]`:
/// a face seen and not recognized). The stock Face Detection box counts `len(p[1]) - 1`
/// faces; Face Reco. reads the last item.
fn face() -> Value {
    let eye = |x: f64| {
        let mut points = vec![x, 0.02, 0.23, 0.02, x + 0.02, 0.02];
        points.extend([0.0; 8]);
        floats(&points)
    };
    let mut mouth = vec![0.26, -0.06, 0.22, -0.06, 0.24, -0.05];
    mouth.extend([0.0; 10]);
    let extra = list(vec![
        Value::Int(0),
        f(0.0),
        Value::from(""),
        eye(0.25),
        eye(0.21),
        list(Vec::new()),
        list(Vec::new()),
        floats(&[0.24, -0.03, 0.23, -0.03, 0.25, -0.03]),
        floats(&mouth),
    ]);
    let shape = list(vec![Value::Int(0), f(0.243), f(0.005), f(0.167), f(0.167)]);
    let info = list(vec![list(vec![shape, extra]), list(vec![Value::Int(4)])]);
    list(vec![
        stamp(),
        info,
        camera(0.43),
        camera(0.75),
        Value::Int(0),
    ])
}

/// The NAOmarks a person can show: the ten of the documentation's printable sheet
/// (`_downloads/NAOmark.pdf`, which ALLandMarkDetection's page links: marks 64, 68, 80, 84,
/// 85, 107, 108, 112, 114 and 119), one value each. A behavior tells them apart by number
/// (a rock-paper-scissors game reads 114, 119 and 64 as its three hands).
const NAOMARKS: [i64; 10] = [64, 68, 80, 84, 85, 107, 108, 112, 114, 119];

/// Each NAOmark of [`NAOMARKS`] seen alone (allandmarkdetection-api.html, "LandmarkDetected
/// value structure": `[TimeStamp, [MarkInfo], CameraPoseInFrameTorso,
/// CameraPoseInFrameRobot, CurrentCameraName]`, MarkInfo `[[1, alpha, beta, sizeX, sizeY,
/// heading], [MarkID]]`, the tutorial's numbers). The stock NAOMark box reads
/// `markInfo[1][0]`.
fn landmarks() -> Vec<Value> {
    NAOMARKS
        .iter()
        .map(|&id| {
            let shape = floats(&[1.0, 0.081, -0.001, 0.049, 0.049, 0.0]);
            let mark = list(vec![shape, list(vec![Value::Int(id)])]);
            list(vec![
                stamp(),
                list(vec![mark]),
                camera(0.43),
                camera(0.75),
                Value::from("CameraTop"),
            ])
        })
        .collect()
}

/// A learned picture seen (alvisionrecognition.html, "How it reports the detection
/// results": `[TimeStamp, [PictureInfo]]`, PictureInfo `[Labels, MatchedKeypoints, Ratio,
/// BoundaryPoints]`, the page's label example). The stock Vision Reco. box reads `s[0]`.
fn picture() -> Value {
    let corners = list(
        [[-0.1, -0.08], [0.1, -0.08], [0.1, 0.08], [-0.1, 0.08]]
            .iter()
            .map(|p| floats(p))
            .collect(),
    );
    let labels = list(vec![Value::from("cover"), Value::from("my book")]);
    let info = list(vec![labels, Value::Int(42), f(0.35), corners]);
    list(vec![stamp(), list(vec![info])])
}

/// A sound located (alsoundlocalization.html, "How it works": `[TimeStamp, [azimuth,
/// elevation, confidence, energy], HeadPosition in FRAME_TORSO, in FRAME_ROBOT]`; 2.1 has
/// no energy, which no reader indexes). The stock Sound Loc. box takes `p[1][2]` against
/// its threshold (50% by default).
fn sound() -> Value {
    list(vec![
        stamp(),
        floats(&[0.52, 0.1, 0.8, 0.02]),
        floats(&[0.0, 0.0, 0.43, 0.0, 0.1, 0.5]),
        floats(&[0.0, 0.0, 0.75, 0.0, 0.1, 0.5]),
    ])
}

/// The documented example of a QR code read (albarcodereader-tuto.html, "Example of
/// output").
fn barcode() -> Value {
    let corners = [[84.0, 14.0], [77.0, 72.0], [132.0, 77.0], [139.0, 22.0]];
    let corners = list(corners.iter().map(|p| floats(p)).collect());
    list(vec![list(vec![Value::from("test"), corners])])
}

/// A person 1.6 m away (alpeopleperception-api.html, PeoplePerception/PeopleDetected:
/// `[TimeStamp, [[Id, DistanceToCamera, PitchAngleInImage, YawAngleInImage]],
/// CameraPose_InTorsoFrame, CameraPose_InRobotFrame, Camera_Id]`).
fn people() -> Value {
    let person = list(vec![Value::Int(PERSON), f(1.6), f(-0.05), f(0.12)]);
    list(vec![
        stamp(),
        list(vec![person]),
        camera(0.43),
        camera(0.75),
        Value::Int(0),
    ])
}

/// The id of the person the world shows (ids are ints: ALPeoplePerception's page).
pub(crate) const PERSON: i64 = 12345;

/// The world's events, each once. Values of a type only (a bool, a distance) take the one
/// that makes something happen: the obstacle inside the sonar's 0.5 m threshold
/// (alsonar.html), the battery low, the feet off the ground.
pub const WORLD_EVENTS: &[WorldEvent] = &[
    WorldEvent {
        key: "robotHasFallen",
        values: || vec![Value::Bool(true)],
        source: "naoqi/motion/reflexes-fall-manager-api.html#robotHasFallen",
    },
    WorldEvent {
        key: "ALMotion/RobotIsFalling",
        values: || vec![Value::Bool(true)],
        source: "naoqi/motion/reflexes-fall-manager-api.html#ALMotion/RobotIsFalling",
    },
    WorldEvent {
        key: "robotIsFalling",
        values: || vec![Value::Bool(true)],
        source: "naoqi/motion/reflexes-fall-manager-api.html#robotIsFalling (2.1)",
    },
    WorldEvent {
        key: "footContactChanged",
        values: || vec![Value::Bool(false)],
        source: "naoqi/sensors/alfsr-api.html#footContactChanged",
    },
    WorldEvent {
        key: "SonarLeftDetected",
        values: || vec![f(0.35)],
        source: "naoqi/sensors/alsonar-api.html#SonarLeftDetected",
    },
    WorldEvent {
        key: "SonarRightDetected",
        values: || vec![f(0.35)],
        source: "naoqi/sensors/alsonar-api.html#SonarRightDetected",
    },
    WorldEvent {
        key: "SonarLeftNothingDetected",
        values: || vec![f(1.2)],
        source: "naoqi/sensors/alsonar-api.html#SonarLeftNothingDetected",
    },
    WorldEvent {
        key: "SonarRightNothingDetected",
        values: || vec![f(1.2)],
        source: "naoqi/sensors/alsonar-api.html#SonarRightNothingDetected",
    },
    WorldEvent {
        key: "BatteryLowDetected",
        values: || vec![Value::Bool(true)],
        source: "naoqi/sensors/albattery-api.html#BatteryLowDetected (2.1)",
    },
    WorldEvent {
        key: "BatteryChargeChanged",
        values: || vec![Value::Int(20)],
        source: "naoqi/sensors/albattery-api.html#BatteryChargeChanged",
    },
    WorldEvent {
        key: "BatteryPowerPluggedChanged",
        values: || vec![Value::Bool(true)],
        source: "naoqi/sensors/albattery-api.html#BatteryPowerPluggedChanged",
    },
    WorldEvent {
        key: "ALChestButton/SimpleClickOccurred",
        values: || vec![Value::None],
        source: "naoqi/sensors/alchestbutton-api.html#ALChestButton/SimpleClickOccurred",
    },
    WorldEvent {
        key: "ALChestButton/DoubleClickOccurred",
        values: || vec![Value::None],
        source: "naoqi/sensors/alchestbutton-api.html#ALChestButton/DoubleClickOccurred",
    },
    WorldEvent {
        key: "ALChestButton/TripleClickOccurred",
        values: || vec![Value::None],
        source: "naoqi/sensors/alchestbutton-api.html#ALChestButton/TripleClickOccurred",
    },
    WorldEvent {
        key: "FaceDetected",
        values: || vec![face()],
        source: "naoqi/peopleperception/alfacedetection.html#facedetected-event",
    },
    WorldEvent {
        key: "LandmarkDetected",
        values: landmarks,
        source: "naoqi/vision/allandmarkdetection-api.html#landmarkdetected-value-structure",
    },
    WorldEvent {
        key: "PictureDetected",
        values: || vec![picture()],
        source: "naoqi/vision/alvisionrecognition.html#how-it-reports-the-detection-results",
    },
    WorldEvent {
        key: "BarcodeReader/BarcodeDetected",
        values: || vec![barcode()],
        source: "naoqi/vision/albarcodereader-tuto.html#example-of-output",
    },
    WorldEvent {
        key: "ALSoundLocalization/SoundLocated",
        values: || vec![sound()],
        source: "naoqi/audio/alsoundlocalization.html#how-it-works",
    },
    WorldEvent {
        key: "ALAudioSourceLocalization/SoundLocated",
        values: || vec![sound()],
        source: "naoqi/audio/alaudiosourcelocalization_api.html (as ALSoundLocalization's)",
    },
    WorldEvent {
        key: "PeoplePerception/PeopleDetected",
        values: || vec![people()],
        source: "naoqi/peopleperception/alpeopleperception-api.html#PeoplePerception/PeopleDetected",
    },
    WorldEvent {
        key: "PeoplePerception/JustArrived",
        values: || vec![Value::Int(PERSON)],
        source: "naoqi/peopleperception/alpeopleperception-api.html#PeoplePerception/JustArrived",
    },
    WorldEvent {
        key: "PeoplePerception/JustLeft",
        values: || vec![Value::Int(PERSON)],
        source: "naoqi/peopleperception/alpeopleperception-api.html#PeoplePerception/JustLeft",
    },
    WorldEvent {
        key: "PeoplePerception/PopulationUpdated",
        values: || vec![Value::None],
        source: "naoqi/peopleperception/alpeopleperception-api.html#PeoplePerception/PopulationUpdated",
    },
    WorldEvent {
        key: "ALBasicAwareness/HumanTracked",
        values: || vec![Value::Int(PERSON)],
        source: "naoqi/interaction/autonomousabilities/albasicawareness-api.html#ALBasicAwareness/HumanTracked",
    },
    WorldEvent {
        key: "ALBasicAwareness/HumanLost",
        values: || vec![Value::None],
        source: "naoqi/interaction/autonomousabilities/albasicawareness-api.html#ALBasicAwareness/HumanLost",
    },
    WorldEvent {
        key: "ALBasicAwareness/StimulusDetected",
        values: || vec![Value::from("People")],
        source: "naoqi/interaction/autonomousabilities/albasicawareness.html#albasicawareness-stimuli-types",
    },
    WorldEvent {
        key: "PostureFamilyChanged",
        values: || vec![Value::from("Sitting")],
        source: "naoqi/motion/alrobotposture.html#definitions",
    },
];

/// The world event of `key`, if the world raises it.
pub fn world_event(key: &str) -> Option<&'static WorldEvent> {
    WORLD_EVENTS.iter().find(|e| e.key == key)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(v: &Value, path: &[usize]) -> Value {
        let mut v = v.clone();
        for &i in path {
            match v {
                Value::List(items) => v = items[i].clone(),
                other => panic!("{other:?} is not a list"),
            }
        }
        v
    }

    /// The stock boxes' scripts read these fields (docs/explore.md names them): each is
    /// there, with the documentation's number.
    #[test]
    fn the_stock_readers_find_what_they_index() {
        let face = (world_event("FaceDetected").unwrap().values)().remove(0);
        assert_eq!(at(&face, &[1, 0, 0, 1]), Value::Float(0.243));
        let Value::List(info) = at(&face, &[1]) else {
            panic!()
        };
        assert_eq!(info.len() - 1, 1, "Face Detection: len(p[1]) - 1 faces");
        assert_eq!(
            at(&face, &[1, 1, 0]),
            Value::Int(4),
            "Face Reco.: not recognized"
        );
        let mark = (world_event("LandmarkDetected").unwrap().values)();
        let ids: Vec<Value> = mark.iter().map(|m| at(m, &[1, 0, 1, 0])).collect();
        let sheet = [64, 68, 80, 84, 85, 107, 108, 112, 114, 119]; // NAOmark.pdf's pages
        assert_eq!(ids, sheet.map(Value::Int));
        let picture = (world_event("PictureDetected").unwrap().values)().remove(0);
        assert_eq!(at(&picture, &[1, 0, 0, 0]), Value::from("cover"));
        let sound = (world_event("ALAudioSourceLocalization/SoundLocated")
            .unwrap()
            .values)()
        .remove(0);
        assert_eq!(
            at(&sound, &[1, 2]),
            Value::Float(0.8),
            "above Sound Loc.'s 50%"
        );
        let code = (world_event("BarcodeReader/BarcodeDetected").unwrap().values)().remove(0);
        assert_eq!(at(&code, &[0, 0]), Value::from("test"));
        assert_eq!(at(&code, &[0, 1, 3, 1]), Value::Float(22.0));
        let people = (world_event("PeoplePerception/PeopleDetected")
            .unwrap()
            .values)()
        .remove(0);
        assert_eq!(at(&people, &[1, 0, 0]), Value::Int(PERSON));
    }

    #[test]
    fn each_key_once() {
        let mut keys: Vec<&str> = WORLD_EVENTS.iter().map(|e| e.key).collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
