//! The modules served for the coverage of issue 12: ALPhotoCapture, ALVideoRecorder,
//! ALVisionToolbox, the detection extractors (ALMovementDetection, ALDarknessDetection,
//! ALBacklightingDetection, ALSoundDetection, ALSoundLocalization,
//! ALAudioSourceLocalization), ALRedBallTracker and ALFaceTracker, ALInfrared, ALBattery,
//! ALBodyTemperature, ALPythonBridge; the methods added to ALMotion, ALWorldRepresentation,
//! ALSpeechRecognition, ALDialog and ALTracker; the ALMemory keys added (foot force sensors,
//! sonar echoes, boot keys).

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use choreo_engine::{Robot, RobotError, Value};
use choreo_naoqi::{Model, RobotEvent, SimRobot};
use support::{
    assert_time, b, f, floats, i, list, log, notices, run_box, s, secs, watched, written,
};

/// The keys written, in order.
fn keys_written(events: &Mutex<Vec<RobotEvent>>) -> Vec<String> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            RobotEvent::MemoryEvent { key, .. } => Some(key.clone()),
            _ => None,
        })
        .collect()
}

fn insert(robot: &SimRobot, key: &str, value: Value) {
    robot
        .call("ALMemory", "insertData", vec![s(key), value])
        .unwrap();
}

fn get(robot: &SimRobot, key: &str) -> Value {
    robot.call("ALMemory", "getData", vec![s(key)]).unwrap()
}

/// A robot whose paths map under a fresh run root.
fn rooted(model: Model) -> (SimRobot, Arc<Mutex<Vec<RobotEvent>>>, tempfile::TempDir) {
    let (robot, events) = watched(model);
    let root = tempfile::tempdir().unwrap();
    robot.set_robot_root(Some(root.path().to_path_buf()));
    (robot, events, root)
}

/// The chunks of a RIFF list's body, `(fourcc, body)`; a LIST's fourcc is its type's.
fn chunks(mut body: &[u8]) -> Vec<(String, &[u8])> {
    let mut out = Vec::new();
    while body.len() >= 8 {
        let size = u32::from_le_bytes(body[4..8].try_into().unwrap()) as usize;
        let (id, data) = (&body[..4], &body[8..8 + size]);
        if id == b"LIST" {
            out.push((String::from_utf8_lossy(&data[..4]).into(), &data[4..]));
        } else {
            out.push((String::from_utf8_lossy(id).into(), data));
        }
        body = &body[(8 + size + size % 2).min(body.len())..];
    }
    out
}

/// Little-endian word `n` of `data`.
fn word(data: &[u8], n: usize) -> u32 {
    u32::from_le_bytes(data[4 * n..4 * n + 4].try_into().unwrap())
}

/// An AVI file's `(frames, width, height, codec, first frame)` read by the layout of
/// Microsoft's AVI RIFF reference: `RIFF 'AVI '` holding LIST `hdrl` (`avih`: frames at
/// word 4, width and height at words 8 and 9; LIST `strl` with `strh`, its handler at bytes
/// 4..8), LIST `movi` (`00dc` chunks) and `idx1` (16 bytes a frame).
fn avi(bytes: &[u8]) -> (u32, u32, u32, String, Vec<u8>) {
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(word(bytes, 1) as usize, bytes.len() - 8, "RIFF size");
    assert_eq!(&bytes[8..12], b"AVI ");
    let top = chunks(&bytes[12..]);
    let names: Vec<&str> = top.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["hdrl", "movi", "idx1"]);
    let hdrl = chunks(top[0].1);
    let avih = hdrl[0].1;
    let strh = chunks(hdrl[1].1)[0].1;
    let frames = chunks(top[1].1);
    assert_eq!(frames.len() as u32, word(avih, 4), "a chunk a frame");
    assert_eq!(top[2].1.len(), 16 * frames.len(), "an index entry a frame");
    let first = frames.first().map(|(_, f)| f.to_vec()).unwrap_or_default();
    let codec = String::from_utf8_lossy(&strh[4..8]).into();
    (word(avih, 4), word(avih, 8), word(avih, 9), codec, first)
}

#[test]
fn photo_capture_takes_a_moment_answers_the_path_and_writes_the_picture_in_robot_folders() {
    let (robot, events, root) = rooted(Model::Nao);
    // A picture left by an earlier run: overwrite=False must not replace it.
    let cameras = root.path().join("home/nao/recordings/cameras");
    std::fs::create_dir_all(&cameras).unwrap();
    std::fs::write(cameras.join("old.jpg"), b"kept").unwrap();
    let pc = |m: &str, a: Vec<Value>| robot.call("ALPhotoCapture", m, a);
    // The real defaults.
    assert_eq!(pc("getResolution", vec![]), Ok(i(2)));
    assert_eq!(pc("getPictureFormat", vec![]), Ok(s("jpg")));
    assert_eq!(pc("getCaptureInterval", vec![]), Ok(i(200)));
    assert_eq!(pc("getColorSpace", vec![]), Ok(i(13)));
    pc("setCameraID", vec![i(1)]).unwrap();
    assert_eq!(pc("getCameraID", vec![]), Ok(i(1)));
    assert!(matches!(
        pc("setCameraID", vec![i(2)]),
        Err(RobotError::BadArguments(_))
    ));
    assert!(matches!(
        pc("setPictureFormat", vec![s("gif")]),
        Err(RobotError::BadArguments(_))
    ));
    let folder = std::env::temp_dir().join(format!("choreo-photos-{}", std::process::id()));
    let folder = folder.to_string_lossy().to_string();
    let seen = log();
    let seen2 = seen.clone();
    let dir = folder.clone();
    run_box(&robot, move |ctx| {
        let call = |m: &str, a: Vec<Value>| ctx.call_robot("ALPhotoCapture", m, a);
        let t0 = secs(ctx);
        let one = call(
            "takePicture",
            vec![s("/home/nao/recordings/cameras/"), s("image")],
        )?;
        let t1 = secs(ctx);
        call("setHalfPressEnabled", vec![b(true)])?;
        let three = call("takePictures", vec![i(3), s(&dir), s("shot")])?;
        let t2 = secs(ctx);
        let again = call(
            "takePicture",
            vec![s("/home/nao/recordings/cameras"), s("image"), b(false)],
        );
        let overwritten = call(
            "takePicture",
            vec![s("/home/nao/recordings/cameras"), s("image")],
        );
        let old = call(
            "takePicture",
            vec![s("/home/nao/recordings/cameras"), s("old"), b(false)],
        );
        call("setColorSpace", vec![i(0)])?;
        call("setResolution", vec![i(1)])?;
        call("setPictureFormat", vec![s("png")])?;
        call("takePicture", vec![s("/home/nao"), s("grey")])?;
        seen2.lock().unwrap().push((
            one,
            t1 - t0,
            three,
            t2 - t1,
            again.is_err() && old.is_err(),
            overwritten.is_ok(),
        ));
        Ok(())
    });
    let (one, first, three, next, refused, overwrote) = seen.lock().unwrap()[0].clone();
    assert_eq!(one, list(vec![s("/home/nao/recordings/cameras/image.jpg")]));
    // The camera's setup (1 s), then one capture interval a picture.
    assert_time(first, 1.2);
    let names: Vec<Value> = (0..3)
        .map(|n| s(&format!("{folder}/shot_{n}.jpg")))
        .collect();
    assert_eq!(three, list(vec![list(names)]));
    assert_time(next, 0.6);
    assert!(refused, "overwrite=False on an existing file raises");
    assert!(overwrote, "without the flag, the file is overwritten");
    assert_eq!(std::fs::read(cameras.join("old.jpg")).unwrap(), b"kept");
    // The default picture: kVGA (640*480), kBGRColorSpace, jpg (ALPhotoCapture's API page).
    let picture = image::open(cameras.join("image.jpg")).unwrap();
    assert_eq!((picture.width(), picture.height()), (640, 480));
    assert_eq!(picture.color(), image::ColorType::Rgb8);
    // kQVGA (320*240) in kYuvColorSpace, png: a grey png.
    let grey = image::open(root.path().join("home/nao/grey.png")).unwrap();
    assert_eq!((grey.width(), grey.height()), (320, 240));
    assert_eq!(grey.color(), image::ColorType::L8);
    assert!(
        !std::path::Path::new(&folder).exists(),
        "a folder outside the robot's is not written"
    );
    let shown = notices(&events, "ALPhotoCapture");
    for shot in [
        "takes a picture: /home/nao/recordings/cameras/image.jpg (640x480, written)".to_string(),
        format!(
            "takes a picture: {folder}/shot_0.jpg (640x480, not written: not in a robot folder)"
        ),
    ] {
        assert!(shown.contains(&shot), "{shot} in {shown:?}");
    }
}

#[test]
fn every_picture_format_is_written_in_its_format() {
    let (robot, _events, root) = rooted(Model::Nao);
    // The formats of ALPhotoCapture::setPictureFormat, each file starting with its format's
    // signature (JPEG SOI, PNG, BMP "BM", TIFF "II*", PNM "P4/P5/P6", Sun raster's magic).
    let signatures: [(&str, &[u8]); 13] = [
        ("jpg", b"\xff\xd8\xff"),
        ("jpeg", b"\xff\xd8\xff"),
        ("jpe", b"\xff\xd8\xff"),
        ("png", b"\x89PNG"),
        ("bmp", b"BM"),
        ("dib", b"BM"),
        ("tiff", b"II*\x00"),
        ("tif", b"II*\x00"),
        ("pbm", b"P4"),
        ("pgm", b"P5"),
        ("ppm", b"P6"),
        ("sr", b"\x59\xa6\x6a\x95"),
        ("ras", b"\x59\xa6\x6a\x95"),
    ];
    run_box(&robot, move |ctx| {
        let call = |m: &str, a: Vec<Value>| ctx.call_robot("ALPhotoCapture", m, a);
        call("setResolution", vec![i(8)])?;
        for (format, _) in signatures {
            call("setPictureFormat", vec![s(format)])?;
            call("takePicture", vec![s("/home/nao/pictures"), s(format)])?;
        }
        Ok(())
    });
    for (format, signature) in signatures {
        let file = root
            .path()
            .join(format!("home/nao/pictures/{format}.{format}"));
        let bytes = std::fs::read(&file).unwrap();
        assert!(bytes.starts_with(signature), "{format}: {:?}", &bytes[..8]);
        if !matches!(format, "sr" | "ras") {
            let picture = image::load_from_memory(&bytes).unwrap();
            // kQQQQVGA: 40*30.
            assert_eq!((picture.width(), picture.height()), (40, 30), "{format}");
        }
    }
}

#[test]
fn video_recorder_records_until_stopped() {
    let (robot, events, root) = rooted(Model::Nao);
    let vr = |m: &str, a: Vec<Value>| robot.call("ALVideoRecorder", m, a);
    assert_eq!(vr("getFrameRate", vec![]), Ok(i(15)));
    assert_eq!(vr("getVideoFormat", vec![]), Ok(s("MJPG")));
    assert_eq!(vr("getResolution", vec![]), Ok(i(1)));
    assert!(matches!(
        vr("setFrameRate", vec![i(60)]),
        Err(RobotError::BadArguments(_))
    ));
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let call = |m: &str, a: Vec<Value>| ctx.call_robot("ALVideoRecorder", m, a);
        call("setFrameRate", vec![f(10.0)])?;
        call(
            "startRecording",
            vec![s("/home/nao/recordings/cameras"), s("test")],
        )?;
        let recording = call("isRecording", vec![])?;
        let second = call("startRecording", vec![s("/tmp"), s("other")]).is_err();
        ctx.sleep(Duration::from_secs(5));
        let info = call("stopRecording", vec![])?;
        let after = call("isRecording", vec![])?;
        let none = call("stopRecording", vec![]).is_err();
        // VGA: at most 15 frames a second.
        call("setResolution", vec![i(2)])?;
        call("setFrameRate", vec![i(30)])?;
        call("startRecording", vec![s("/tmp"), s("vga.avi")])?;
        ctx.sleep(Duration::from_secs(2));
        let vga = call("stopRecording", vec![])?;
        seen2
            .lock()
            .unwrap()
            .push((recording, second, info, after, none, vga));
        Ok(())
    });
    let (recording, second, info, after, none, vga) = seen.lock().unwrap()[0].clone();
    assert_eq!(recording, b(true));
    assert!(second, "one record at a time");
    assert_eq!(
        info,
        list(vec![i(50), s("/home/nao/recordings/cameras/test.avi")])
    );
    assert_eq!(after, b(false));
    assert!(none, "stopping with no record raises");
    assert_eq!(vga, list(vec![i(30), s("/tmp/vga.avi")]));
    let shown = notices(&events, "ALVideoRecorder");
    assert!(
        shown
            .iter()
            .any(|t| t.starts_with("records a video: /home/nao/recordings/cameras/test.avi")),
        "{shown:?}"
    );
    // 5 s at 10 fps in kQVGA (the default resolution), MJPG (the default format).
    let bytes = std::fs::read(root.path().join("home/nao/recordings/cameras/test.avi")).unwrap();
    let (frames, width, height, codec, first) = avi(&bytes);
    assert_eq!(
        (frames, width, height, codec.as_str()),
        (50, 320, 240, "MJPG")
    );
    let picture = image::load_from_memory_with_format(&first, image::ImageFormat::Jpeg).unwrap();
    assert_eq!((picture.width(), picture.height()), (320, 240));
    assert!(
        shown.contains(
            &"stops recording: /tmp/vga.avi (30 frames, not written: not in a robot folder)"
                .to_string()
        ),
        "{shown:?}"
    );
}

#[test]
fn vision_toolbox_shoots_records_and_reads_the_light() {
    let (robot, _events, root) = rooted(Model::Nao);
    let tb = |m: &str| robot.call("ALVisionToolbox", m, vec![]);
    // A lit room: "indoor bright" on the 1.x scale; no backlight.
    assert_eq!(tb("isItDark"), Ok(i(70)));
    assert_eq!(tb("backlighting"), Ok(i(0)));
    insert(&robot, "DarknessDetection/DarknessValue", i(100));
    assert_eq!(tb("isItDark"), Ok(i(255)));
    insert(&robot, "BacklightingDetection/BacklightingValue", i(2));
    assert_eq!(tb("backlighting"), Ok(i(2)));
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let call = |m: &str, a: Vec<Value>| ctx.call_robot("ALVisionToolbox", m, a);
        // The deprecated Record Video box's call: until stopped.
        call(
            "startVideoRecord_adv",
            vec![s("recording"), f(10.0), s("MJPG"), i(1), i(-1)],
        )?;
        ctx.sleep(Duration::from_secs(2));
        let recording = call("isVideoRecording", vec![])?;
        let video = call("stopVideoRecord", vec![])?;
        // A number of frames: it stops by itself.
        call(
            "startVideoRecord_adv",
            vec![s("clip"), f(10.0), s("IYUV"), i(0), i(5)],
        )?;
        ctx.sleep(Duration::from_secs(1));
        let stopped_by_itself = call("isVideoRecording", vec![])?;
        let clip = call("stopVideoRecord", vec![])?;
        let t0 = secs(ctx);
        call("takePictures", vec![i(1)])?;
        let picture = secs(ctx) - t0;
        seen2
            .lock()
            .unwrap()
            .push((recording, video, stopped_by_itself, clip, picture));
        Ok(())
    });
    let (recording, video, stopped_by_itself, clip, picture) = seen.lock().unwrap()[0].clone();
    assert_eq!(recording, b(true));
    assert_eq!(
        video,
        list(vec![
            i(20),
            s("/home/nao/.local/share/naoqi/vision/recording.avi")
        ])
    );
    assert_eq!(stopped_by_itself, b(false));
    assert_eq!(
        clip,
        list(vec![
            i(5),
            s("/home/nao/.local/share/naoqi/vision/clip.avi")
        ])
    );
    assert_time(picture, 1.2);
    // Resolution 0 (160*120), IYUV: raw planar YUV 4:2:0, 12 bits a pixel.
    let vision = root.path().join("home/nao/.local/share/naoqi/vision");
    let (frames, width, height, codec, first) =
        avi(&std::fs::read(vision.join("clip.avi")).unwrap());
    assert_eq!(
        (frames, width, height, codec.as_str()),
        (5, 160, 120, "IYUV")
    );
    assert_eq!(first.len(), 160 * 120 * 3 / 2);
    let picture = image::open(root.path().join("home/nao/recordings/cameras/image_0.jpg")).unwrap();
    assert_eq!((picture.width(), picture.height()), (640, 480));
}

#[test]
fn movement_detection_updates_its_info_before_the_event() {
    let (robot, events) = watched(Model::Nao);
    let md = |m: &str, a: Vec<Value>| robot.call("ALMovementDetection", m, a);
    md("subscribe", vec![s("tracker")]).unwrap();
    md("pause", vec![b(true)]).unwrap();
    // A vision extractor processes while subscribed, paused or not.
    assert_eq!(md("isProcessing", vec![]), Ok(b(true)));
    md("setColorSensitivity", vec![f(0.4)]).unwrap();
    assert_eq!(md("getColorSensitivity", vec![]), Ok(f(0.4)));
    assert_eq!(md("setResolution", vec![i(2)]), Ok(b(true)));
    assert_eq!(md("getResolution", vec![]), Ok(i(2)));
    let cluster = list(vec![
        list(vec![f(0.1), f(-0.05)]),
        list(vec![f(0.0), f(-0.1), f(0.2), f(0.15)]),
        list(vec![f(0.05), f(0.4)]),
    ]);
    let info = list(vec![
        list(vec![i(10), i(0)]),
        list(vec![cluster]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
        i(0),
    ]);
    robot.raise_event("MovementDetection/MovementDetected", info.clone());
    assert_eq!(get(&robot, "MovementDetection/MovementInfo"), info);
    let order = keys_written(&events);
    assert_eq!(
        order,
        [
            "MovementDetection/MovementInfo",
            "MovementDetection/MovementDetected"
        ]
    );
    // Writing the info is a detection too.
    insert(&robot, "MovementDetection/MovementInfo", info.clone());
    assert_eq!(
        written(&events, "MovementDetection/MovementDetected").len(),
        2
    );
    let Ok(Value::List(outputs)) = md("getOutputNames", vec![]) else {
        panic!()
    };
    assert!(outputs.contains(&s("MovementDetection/MovementInfo")));
}

#[test]
fn darkness_detection_raises_once_over_its_threshold() {
    let (robot, events) = watched(Model::Nao);
    let dd = |m: &str, a: Vec<Value>| robot.call("ALDarknessDetection", m, a);
    assert_eq!(dd("getDarknessThreshold", vec![]), Ok(i(60)));
    dd("setDarknessThreshold", vec![i(150)]).unwrap();
    assert_eq!(dd("getDarknessThreshold", vec![]), Ok(i(100)), "clamped");
    dd("setDarknessThreshold", vec![i(60)]).unwrap();
    // The stock Is In Darkness box reads the value right after subscribing.
    dd("subscribe", vec![s("isInDarkness")]).unwrap();
    assert_eq!(get(&robot, "DarknessDetection/DarknessValue"), i(20));
    for v in [80, 90, 10, 70] {
        insert(&robot, "DarknessDetection/DarknessValue", i(v));
    }
    assert_eq!(
        written(&events, "DarknessDetection/DarknessDetected"),
        [i(80), i(70)],
        "when it goes over the threshold, once"
    );
    robot.raise_event("DarknessDetection/DarknessDetected", i(75));
    assert_eq!(get(&robot, "DarknessDetection/DarknessValue"), i(75));
    assert_eq!(
        notices(&events, "ALDarknessDetection"),
        [
            "darkness threshold 100",
            "darkness threshold 60",
            "isInDarkness subscribed"
        ]
    );
}

#[test]
fn backlighting_detection_raises_when_it_turns_backlit() {
    let (robot, events) = watched(Model::Pepper);
    let bd = |m: &str, a: Vec<Value>| robot.call("ALBacklightingDetection", m, a);
    assert_eq!(bd("setActiveCamera", vec![i(1)]), Ok(b(true)));
    assert_eq!(bd("getActiveCamera", vec![]), Ok(i(1)));
    bd("setFrameRate", vec![s("me"), i(10)]).unwrap();
    assert_eq!(bd("getFrameRate", vec![]), Ok(i(10)));
    assert_eq!(get(&robot, "BacklightingDetection/BacklightingValue"), i(0));
    for v in [1, 2, 2, 0, 2] {
        insert(&robot, "BacklightingDetection/BacklightingValue", i(v));
    }
    assert_eq!(
        written(&events, "BacklightingDetection/BacklightingDetected").len(),
        2
    );
    assert!(bd("setParameter", vec![s("colour"), i(1)]).is_err());
}

#[test]
fn sound_modules_keep_their_sensitivity_and_group_located_sounds() {
    let (robot, events) = watched(Model::Nao);
    let call = |module: &str, m: &str, a: Vec<Value>| robot.call(module, m, a);
    // The stock boxes' deprecated name and the current one.
    call(
        "ALSoundDetection",
        "setParameter",
        vec![s("Sensibility"), f(0.7)],
    )
    .unwrap();
    call(
        "ALAudioSourceLocalization",
        "setParameter",
        vec![s("Sensitivity"), f(0.5)],
    )
    .unwrap();
    call(
        "ALSoundLocalization",
        "setParameter",
        vec![s("EnergyComputation"), b(true)],
    )
    .unwrap();
    assert!(matches!(
        call(
            "ALSoundDetection",
            "setParameter",
            vec![s("Sensitivity"), f(2.0)]
        ),
        Err(RobotError::BadArguments(_))
    ));
    assert!(
        call(
            "ALSoundDetection",
            "setParameter",
            vec![s("EnergyComputation"), b(true)]
        )
        .is_err(),
        "a localization parameter"
    );
    call("ALSoundLocalization", "subscribe", vec![s("tracker")]).unwrap();
    assert_eq!(
        call("ALSoundLocalization", "isProcessing", vec![]),
        Ok(b(true))
    );
    let sound = list(vec![
        list(vec![i(12), i(0)]),
        list(vec![f(0.5), f(0.1), f(0.8), f(0.3)]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
    ]);
    for module in ["ALSoundLocalization", "ALAudioSourceLocalization"] {
        robot.raise_event(&format!("{module}/SoundLocated"), sound.clone());
        assert_eq!(
            written(&events, &format!("{module}/SoundsLocated")),
            [list(vec![sound.clone()])]
        );
    }
    assert_eq!(notices(&events, "ALSoundDetection"), ["Sensitivity = 0.7"]);
    let Ok(Value::List(declared)) = robot.call("ALMemory", "getEventList", vec![]) else {
        panic!()
    };
    assert!(declared.contains(&s("SoundDetected")));
}

#[test]
fn trackers_follow_what_the_scenario_shows() {
    let robot = SimRobot::new(Model::Nao);
    let ball = list(vec![
        list(vec![i(1), i(0)]),
        list(vec![f(0.2), f(0.1), f(0.03), f(0.03)]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
        i(0),
    ]);
    let face = list(vec![
        list(vec![i(1), i(0)]),
        list(vec![
            list(vec![
                list(vec![i(0), f(-0.1), f(0.0), f(0.15), f(0.15)]),
                list(vec![]),
            ]),
            list(vec![]),
        ]),
        list(vec![f(0.0); 6]),
        list(vec![f(0.0); 6]),
        i(0),
    ]);
    let seen = log();
    let seen2 = seen.clone();
    let r2 = robot.clone();
    run_box(&robot, move |ctx| {
        let call = |module: &str, m: &str, a: Vec<Value>| ctx.call_robot(module, m, a);
        let idle = call("ALRedBallTracker", "isActive", vec![])?;
        let head0 = call("ALMotion", "getAngles", vec![s("Head"), b(true)])?;
        // Not tracking: a ball is no new data.
        r2.raise_event("redBallDetected", ball.clone());
        let ignored = call("ALRedBallTracker", "isNewData", vec![])?;
        call("ALRedBallTracker", "setWholeBodyOn", vec![b(false)])?;
        call("ALRedBallTracker", "startTracker", vec![])?;
        r2.raise_event("redBallDetected", ball.clone());
        let fresh = call("ALRedBallTracker", "isNewData", vec![])?;
        let position = call("ALRedBallTracker", "getPosition", vec![])?;
        let read = call("ALRedBallTracker", "isNewData", vec![])?;
        ctx.sleep(Duration::from_secs(2));
        let head = call("ALMotion", "getAngles", vec![s("Head"), b(true)])?;
        call("ALRedBallTracker", "stopTracker", vec![])?;
        call("ALFaceTracker", "startTracker", vec![])?;
        r2.raise_event("FaceDetected", face.clone());
        let face_position = call("ALFaceTracker", "getPosition", vec![])?;
        seen2.lock().unwrap().push((
            idle,
            ignored,
            fresh,
            position,
            read,
            (head0, head),
            face_position,
        ));
        Ok(())
    });
    let (idle, ignored, fresh, position, read, head, face_position) =
        seen.lock().unwrap()[0].clone();
    assert_eq!(idle, b(false));
    assert_eq!(ignored, b(false));
    assert_eq!(fresh, b(true));
    assert_eq!(read, b(false), "getPosition reads the new data");
    // A 6 cm ball 0.03 rad in radius: about 1 m away, 0.2 rad to the left, 0.1 rad down.
    let p = floats(&position);
    let d = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    assert!((d - 0.03 / 0.03f64.tan()).abs() < 1e-6, "{p:?}");
    assert!((p[1].atan2(p[0]) - 0.2).abs() < 1e-9 && p[2] < 0.0, "{p:?}");
    // The head turned toward it.
    let (h0, h) = (floats(&head.0), floats(&head.1));
    assert!(
        (h[0] - h0[0] - 0.2).abs() < 1e-6 && (h[1] - h0[1] - 0.1).abs() < 1e-6,
        "{h0:?} -> {h:?}"
    );
    // A 15 cm face 0.15 rad wide: about 1 m away, to the right.
    let q = floats(&face_position);
    assert!(q[0] > 0.9 && q[1] < 0.0, "{q:?}");
}

#[test]
fn infrared_shows_what_it_sends_and_declares_what_it_receives() {
    let (robot, events) = watched(Model::Nao);
    let ir = |m: &str, a: Vec<Value>| robot.call("ALInfrared", m, a);
    ir("initReception", vec![i(-1)]).unwrap();
    ir("send8", vec![i(42)]).unwrap();
    ir("send32", vec![i(1), i(2), i(3), i(4)]).unwrap();
    ir("sendIpAddress", vec![s("192.168.1.12")]).unwrap();
    ir("sendRemoteKeyWithTime", vec![s("tv"), s("POWER"), i(500)]).unwrap();
    assert!(matches!(
        ir("send8", vec![i(300)]),
        Err(RobotError::BadArguments(_))
    ));
    assert!(ir("sendIpAddress", vec![s("1.2.3")]).is_err());
    assert_eq!(
        notices(&events, "ALInfrared"),
        [
            "listens (repeat threshold -1)",
            "sends 42",
            "sends 1 2 3 4",
            "sends the address 192.168.1.12",
            "sends key \"POWER\" of remote \"tv\""
        ]
    );
    let Ok(Value::List(declared)) = robot.call("ALMemory", "getEventList", vec![]) else {
        panic!()
    };
    assert!(declared.contains(&s("InfraRedRemoteKeyReceived")));
}

#[test]
fn battery_and_body_temperature_read_a_healthy_robot() {
    let (robot, events) = watched(Model::Nao);
    assert_eq!(
        robot.call("ALBattery", "getBatteryCharge", vec![]),
        Ok(i(100))
    );
    // What the stock Battery box reads when it starts.
    assert_eq!(get(&robot, "BatteryLowDetected"), b(false));
    insert(
        &robot,
        "Device/SubDeviceList/Battery/Charge/Sensor/Value",
        f(0.42),
    );
    assert_eq!(
        robot.call("ALBattery", "getBatteryCharge", vec![]),
        Ok(i(42))
    );
    assert_eq!(written(&events, "BatteryChargeChanged"), [i(42)]);
    robot
        .call("ALBattery", "enablePowerMonitoring", vec![b(false)])
        .unwrap();
    assert_eq!(
        notices(&events, "ALBattery"),
        ["enablePowerMonitoring(False)"]
    );
    let bt = |m: &str, a: Vec<Value>| robot.call("ALBodyTemperature", m, a);
    assert_eq!(
        bt("getTemperatureDiagnosis", vec![]),
        Ok(list(vec![i(0), list(vec![])]))
    );
    let hot = list(vec![i(1), list(vec![s("LLeg")])]);
    robot.raise_event("TemperatureDiagnosisErrorChanged", hot.clone());
    assert_eq!(bt("getTemperatureDiagnosis", vec![]), Ok(hot));
    assert_eq!(bt("areNotificationsEnabled", vec![]), Ok(b(true)));
    bt("setEnableNotifications", vec![b(false)]).unwrap();
    assert_eq!(bt("areNotificationsEnabled", vec![]), Ok(b(false)));
    assert_eq!(get(&robot, "HotJointDetected"), list(vec![]));
}

#[test]
fn python_bridge_exists_and_says_the_robot_has_no_interpreter() {
    let robot = SimRobot::new(Model::Nao);
    assert!(robot.has_service("ALPythonBridge"));
    let Err(RobotError::Failed(message)) =
        robot.call("ALPythonBridge", "eval", vec![s("import sys")])
    else {
        panic!("eval is the box scripts' host's")
    };
    assert!(message.contains("no Python interpreter"), "{message}");
}

#[test]
fn motion_serves_the_methods_real_boxes_call() {
    let robot = SimRobot::new(Model::Nao);
    let motion = |m: &str, a: Vec<Value>| robot.call("ALMotion", m, a);
    // The stock Has Hardware box looks a name up in the first list.
    let Ok(Value::List(config)) = motion("getRobotConfig", vec![]) else {
        panic!()
    };
    let (Value::List(names), Value::List(values)) = (&config[0], &config[1]) else {
        panic!()
    };
    let at = |n: &str| names.iter().position(|x| *x == s(n)).unwrap();
    assert_eq!(values[at("Legs")], b(true));
    assert_eq!(values[at("Laser")], b(false), "display3d reads [1][3]");
    assert_eq!(at("Laser"), 3);
    assert_eq!(motion("isCollision", vec![s("Arms")]), Ok(s("none")));
    assert!(matches!(
        motion("isCollision", vec![s("Legs")]),
        Err(RobotError::BadArguments(_))
    ));
    assert_eq!(motion("_getCollisionNames", vec![]), Ok(list(vec![])));
    assert_eq!(motion("_getCollisionDetection", vec![]), Ok(list(vec![])));
    // The feet either side of the base.
    let Ok(Value::List(steps)) = motion("getFootSteps", vec![]) else {
        panic!()
    };
    let Value::List(feet) = &steps[0] else {
        panic!()
    };
    assert_eq!(floats(&feet[0]), [0.0, 0.05, 0.0]);
    assert_eq!(floats(&feet[1]), [0.0, -0.05, 0.0]);
    assert_eq!(steps[1], list(vec![]));
    // The torso: itself in its own frame; above the ground in the robot's.
    let torso =
        |frame: i64| floats(&motion("getTransform", vec![s("Torso"), i(frame), b(false)]).unwrap());
    let own = torso(0);
    assert_eq!(own.len(), 16);
    assert_eq!((own[0], own[3], own[15]), (1.0, 0.0, 1.0));
    let height = torso(2)[11];
    assert!((0.30..0.34).contains(&height), "{height}");
    // The left hand's effector in StandInit, as the ros-naoqi URDF's l_gripper frame is
    // placed by its joints (a hand walk of the URDF: x 0.08516, y 0.10635, z -0.08444).
    let hand = floats(&motion("getTransform", vec![s("LArm"), i(0), b(false)]).unwrap());
    let want = [0.08516, 0.10635, -0.08444];
    assert!(
        [hand[3], hand[7], hand[11]]
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() < 1e-4),
        "{hand:?}"
    );
    assert!(matches!(
        motion("getTransform", vec![s("Tail"), i(0), b(false)]),
        Err(RobotError::BadArguments(_))
    ));
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        let t0 = secs(ctx);
        // The deprecated Endless Walk box's call.
        ctx.call_robot(
            "ALMotion",
            "gotoChainStiffness",
            vec![s("Head"), f(0.3), f(1.5), i(1)],
        )?;
        let took = secs(ctx) - t0;
        let stiffness = ctx.call_robot("ALMotion", "getStiffnesses", vec![s("Head")])?;
        ctx.call_robot("ALMotion", "moveTo", vec![f(0.5), f(0.0), f(0.0)])?;
        let world = ctx.call_robot("ALMotion", "getTransform", vec![s("Torso"), i(1), b(true)])?;
        seen2.lock().unwrap().push((took, stiffness, world));
        Ok(())
    });
    let (took, stiffness, world) = seen.lock().unwrap()[0].clone();
    assert_time(took, 1.5);
    assert!(
        floats(&stiffness).iter().all(|x| (x - 0.3).abs() < 1e-9),
        "{stiffness}"
    );
    // 0.5 m on from where it stood: where the torso is over the feet, plus the walk.
    assert!(
        (floats(&world)[3] - torso(2)[3] - 0.5).abs() < 1e-9,
        "{world}"
    );
}

#[test]
fn world_representation_selects_attribute_records() {
    let robot = SimRobot::new(Model::Nao);
    let wr = |m: &str, a: Vec<Value>| robot.call("ALWorldRepresentation", m, a);
    wr("createObjectCategory", vec![s("People"), b(false)]).unwrap();
    let fields = list(vec![
        list(vec![s("Name"), s("text")]),
        list(vec![s("Age"), s("int")]),
    ]);
    wr("addAttributeToCategory", vec![s("People"), s("Id"), fields]).unwrap();
    for (who, name, age) in [("p1", "Robert", 42), ("p2", "Anna", 7), ("p3", "Zoe", 30)] {
        let record = list(vec![
            list(vec![s("Name"), s(name)]),
            list(vec![s("Age"), i(age)]),
        ]);
        let attributes = list(vec![list(vec![s("Id"), record])]);
        let at = list(vec![f(0.0); 6]);
        assert_eq!(
            wr(
                "storeObject",
                vec![s(who), s("World"), at, s("People"), attributes]
            ),
            Ok(i(0))
        );
    }
    assert_eq!(
        wr(
            "select",
            vec![s("Name='Robert' AND Age=42"), s("People"), s("Id"), s("*")]
        ),
        Ok(list(vec![list(vec![s("Robert"), i(42)])]))
    );
    assert_eq!(
        wr(
            "selectWithOrder",
            vec![
                s("Age > 10"),
                s("Age DESC"),
                s("People"),
                s("Id"),
                s("Name")
            ]
        ),
        Ok(list(vec![list(vec![s("Robert")]), list(vec![s("Zoe")])]))
    );
    assert!(wr("select", vec![s(""), s("People"), s("Id"), s("Height")]).is_err());
    assert!(wr("select", vec![s(""), s("Animals"), s("Id"), s("*")]).is_err());
    assert!(wr("select", vec![s("Age >"), s("People"), s("Id"), s("*")]).is_err());
}

#[test]
fn speech_grammars_dialog_sessions_and_tracker_coordinates_are_kept() {
    let (robot, events) = watched(Model::Nao);
    let dir = std::env::temp_dir().join(format!("choreo-bnf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bnf = dir.join("colors.bnf");
    std::fs::write(
        &bnf,
        "#BNF+EM V2.0;\n!start <colors>;\n<colors>: red | blue;\n",
    )
    .unwrap();
    let bnf = bnf.to_string_lossy().to_string();
    let lcf = dir.join("colors.lcf").to_string_lossy().to_string();
    let asr = |m: &str, a: Vec<Value>| robot.call("ALSpeechRecognition", m, a);
    assert!(
        asr("addContext", vec![s(&lcf), s("colors")]).is_err(),
        "not compiled"
    );
    asr("compile", vec![s(&bnf), s(&lcf), s("English")]).unwrap();
    assert!(
        !std::path::Path::new(&lcf).exists(),
        "the LCF file is not written"
    );
    asr("addContext", vec![s(&lcf), s("colors")]).unwrap();
    asr("removeAllContext", vec![]).unwrap();
    assert!(asr("compile", vec![s("/no/such.bnf"), s(&lcf), s("English")]).is_err());
    assert!(asr("compile", vec![s(&bnf), s(&lcf), s("Klingon")]).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(notices(&events, "ALSpeechRecognition").len(), 3);
    // The Concierge's Speech Reco box closes a session it never opened.
    robot.call("ALDialog", "closeSession", vec![]).unwrap();
    robot.call("ALDialog", "openSession", vec![i(3)]).unwrap();
    robot.call("ALDialog", "closeSession", vec![]).unwrap();
    assert_eq!(
        notices(&events, "ALDialog"),
        [
            "opens the session of user 3",
            "closes the session of user 3"
        ]
    );
    // The LandMarks Tracker box's two marks.
    let marks = list(vec![
        list(vec![f(0.0), f(-0.09), f(0.0)]),
        list(vec![f(0.0), f(0.09), f(0.0)]),
    ]);
    robot
        .call("ALTracker", "setTargetCoordinates", vec![marks.clone()])
        .unwrap();
    assert_eq!(
        robot.call("ALTracker", "getTargetCoordinates", vec![]),
        Ok(marks)
    );
}

#[test]
fn memory_has_the_feet_sonar_echoes_and_boot_keys_of_a_real_robot() {
    let robot = SimRobot::new(Model::Nao);
    let fsr = |foot: &str, sensor: &str| {
        get(
            &robot,
            &format!("Device/SubDeviceList/{foot}/FSR/{sensor}/Sensor/Value"),
        )
    };
    // Standing: the robot's weight over its eight sensors.
    let mass = choreo_robot::memory::NAO_MASS;
    assert_eq!(fsr("LFoot", "FrontLeft"), f(mass / 8.0));
    assert_eq!(fsr("RFoot", "TotalWeight"), f(mass / 2.0));
    assert_eq!(
        get(&robot, "Device/SubDeviceList/US/Left/Sensor/Value9"),
        f(2.55),
        "no echo: the maximum range"
    );
    assert_eq!(
        get(&robot, "Device/SubDeviceList/Head/Temperature/Sensor/Value"),
        f(choreo_robot::memory::HEAD_CPU_TEMPERATURE)
    );
    assert_eq!(get(&robot, "BatteryChargeChanged"), i(100));
    assert_eq!(
        get(&robot, "TemperatureStatusChanged"),
        list(vec![i(0), list(vec![])])
    );
    let seen = log();
    let seen2 = seen.clone();
    run_box(&robot, move |ctx| {
        ctx.call_robot("ALRobotPosture", "goToPosture", vec![s("Sit"), f(1.0)])?;
        let sitting = ctx.call_robot(
            "ALMemory",
            "getData",
            vec![s("Device/SubDeviceList/LFoot/FSR/TotalWeight/Sensor/Value")],
        )?;
        seen2.lock().unwrap().push(sitting);
        Ok(())
    });
    assert_eq!(
        seen.lock().unwrap()[0],
        f(0.0),
        "sitting, the feet carry nothing"
    );
    let pepper = SimRobot::new(Model::Pepper);
    assert_eq!(
        get(
            &pepper,
            "Device/SubDeviceList/WheelFL/Temperature/Sensor/Value"
        ),
        f(choreo_robot::memory::MOTOR_TEMPERATURE)
    );
    assert!(
        pepper
            .call(
                "ALMemory",
                "getData",
                vec![s("Device/SubDeviceList/LFoot/FSR/RearLeft/Sensor/Value")]
            )
            .is_err(),
        "Pepper has wheels"
    );
    assert_eq!(get(&pepper, "BatteryTrapIsOpen"), b(false));
}

#[test]
fn motion_tells_the_body_s_mass_centre_of_mass_and_support_polygon() {
    let robot = SimRobot::new(Model::Nao);
    let motion = |m: &str, a: Vec<Value>| robot.call("ALMotion", m, a);
    // In StandInit. The URDF's numbers (ros-naoqi naoV50: links' masses and inertial
    // origins, walked by hand through its joints): 5.305 kg, the CoM 1.5 cm ahead of the
    // torso's origin and 5.1 cm below it.
    let Ok(Value::Float(kg)) = motion("getMass", vec![s("Body")]) else {
        panic!()
    };
    assert!((kg - 5.30538).abs() < 1e-4, "{kg}");
    let com = floats(&motion("getCOM", vec![s("Body"), i(0), b(false)]).unwrap());
    assert!(
        com.iter()
            .zip([0.01547, 0.0, -0.05059])
            .all(|(a, b)| (a - b).abs() < 5e-4),
        "{com:?}"
    );
    // getLimits: min, max, max speed, max torque (the URDF's effort: 1.547 N·m).
    let limits = floats(&list_first(
        motion("getLimits", vec![s("HeadYaw")]).unwrap(),
    ));
    assert_eq!(limits, [-2.0857, 2.0857, 8.27, 1.547]);
    // Both feet on the floor, their ankles 0.1 m apart (HipOffsetY), each foot as ALMotion's
    // walk planner bounds it (control-walk.html): from 0.047 m behind its ankle to 0.11 m
    // ahead, 0.05 m out: the polygon spans x -0.047 to 0.11 and y -0.1 to 0.1 about the
    // robot frame's origin, between the ankles.
    let Ok(Value::List(polygon)) = motion("getSupportPolygon", vec![i(2), b(false)]) else {
        panic!()
    };
    let corners: Vec<Vec<f64>> = polygon.iter().map(floats).collect();
    assert_eq!(corners.len(), 4, "{corners:?}");
    for c in &corners {
        assert!(
            ((c[0] + 0.047).abs() < 1e-6 || (c[0] - 0.11).abs() < 1e-6)
                && (c[1].abs() - 0.1).abs() < 1e-6,
            "{c:?}"
        );
    }
    assert!(matches!(
        motion("getSupportPolygon", vec![i(0), b(false)]),
        Err(RobotError::BadArguments(_))
    ));
    assert_eq!(motion("getMotionCycleTime", vec![]), Ok(i(10)));
}

/// The first element of a list value.
fn list_first(v: Value) -> Value {
    match v {
        Value::List(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    }
}
