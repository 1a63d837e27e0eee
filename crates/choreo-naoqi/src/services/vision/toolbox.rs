//! ALVisionToolbox, NAOqi 1.x's vision helpers (its C++ proxy headers of 1.12 to 1.18), as
//! Choregraphe 2.1's deprecated Take Picture, Record Video, Is In Darkness and Is Backlit
//! boxes call it:
//!
//! - `takePicture()` shoots 3 pictures, `takePictures(n)` n, into
//!   `/home/nao/recordings/cameras/` (named `image_0.jpg`... **(inference)**), timed and shown
//!   as ALPhotoCapture's pictures (`capture.rs`; `halfPress()` saves the camera's setup);
//! - `startVideoRecord(name)` records `/home/nao/.local/share/naoqi/vision/name.avi` in QVGA
//!   MJPG at 10 fps (the header says "~10-15 fps"), `startVideoRecord_adv(name, fps, format,
//!   resolution, frames)` with those settings, stopping by itself after `frames` frames when
//!   that is not negative; `stopVideoRecord()` answers `[frames, path]`; one record at a
//!   time; pictures and videos are written as ALPhotoCapture's and ALVideoRecorder's are;
//! - `isItDark()` reads the darkness ALDarknessDetection reads (`DarknessDetection/
//!   DarknessValue`, 0..100) on the 1.x scale, 0..255 (210 and above: a dark place), mapped
//!   so that the thresholds meet (60 is 210) **(inference)**; `backlighting()` answers the
//!   backlighting value (0, 1, 2), on the same scale in both versions;
//! - `setWhiteBalance`, `takePictureRegularly`, `stopTPR` are shown and kept.

use choreo_engine::Value;

use crate::robot::args::{Args, number};
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};
use crate::services::vision::capture::{
    Recording, VIDEO_FORMATS, frame, join, recording, shoot, start_recording, stop_recording,
    with_extension,
};
use crate::services::vision::detection::{BACKLIGHT_VALUE, DARKNESS_VALUE};
use crate::services::vision::files::{self, Frame};

/// ALVisionToolbox as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALVisionToolbox",
    methods: &[
        ("backlighting", Op::Own),
        ("isItDark", Op::Own),
        ("halfPress", Op::Own),
        ("takePicture", Op::Own),
        ("takePictures", Op::Own),
        ("takePictureRegularly", Op::Own),
        ("stopTPR", Op::Own),
        ("setWhiteBalance", Op::Own),
        ("startVideoRecord", Op::Own),
        ("startVideoRecord_adv", Op::Own),
        ("stopVideoRecord", Op::Own),
        ("isVideoRecording", Op::Own),
    ],
    own,
    extractor: None,
};

/// Where the toolbox puts pictures.
const PICTURES: &str = "/home/nao/recordings/cameras/";

/// Where the toolbox puts videos.
const VIDEOS: &str = "/home/nao/.local/share/naoqi/vision/";

/// The frame rate of `startVideoRecord`.
const SIMPLE_FPS: f64 = 10.0;

/// The interval between successive pictures, s **(inference)**: ALPhotoCapture's default.
const PICTURE_INTERVAL: f64 = 0.2;

/// A darkness (0..100, the threshold 60 meaning dark) on NAOqi 1.x's scale (0..255, dark
/// from 210 up): linear below and above the thresholds.
fn dark_1x(darkness: f64) -> i64 {
    let d = darkness.clamp(0.0, 100.0);
    let v = if d <= 60.0 {
        d * 210.0 / 60.0
    } else {
        210.0 + (d - 60.0) * 45.0 / 40.0
    };
    v.round() as i64
}

fn reading(sim: &Sim, key: &str) -> f64 {
    sim.memory.get(key).as_ref().and_then(number).unwrap_or(0.0)
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = SERVICE.name;
    let half_pressed = || matches!(sim.setting(name, "HalfPress"), Some(Value::Bool(true)));
    let value = match method {
        "backlighting" => Value::Int(reading(sim, BACKLIGHT_VALUE).round() as i64),
        "isItDark" => Value::Int(dark_1x(reading(sim, DARKNESS_VALUE))),
        "halfPress" => {
            sim.notice(name, "halfPress()".into());
            sim.set_setting(name, "HalfPress", Value::Bool(true));
            Value::None
        }
        "takePicture" | "takePictures" => {
            let count = if method == "takePictures" {
                a.int(0)?
            } else {
                3
            };
            if count < 1 {
                return Err(a.bad(0, "a number of pictures of at least 1"));
            }
            let paths = (0..count)
                .map(|i| join(PICTURES, &format!("image_{i}.jpg")))
                .collect();
            // VGA colour pictures, as ALPhotoCapture's default **(inference)**.
            let frame = frame(sim, name, 2);
            return Ok(Reply::Timed(shoot(
                sim,
                name,
                (paths, frame),
                half_pressed(),
                PICTURE_INTERVAL,
                Value::None,
            )));
        }
        "takePictureRegularly" => {
            let (seconds, root) = (a.f64(0)?, a.str(1)?);
            a.bool(2)?;
            let format = a.str(3)?;
            a.int(4)?;
            sim.notice(
                name,
                format!(
                    "takes a picture every {seconds} s: {root}*.{format} (not written to disk)"
                ),
            );
            sim.set_setting(
                name,
                &format!("Regularly {root}.{format}"),
                Value::Float(seconds),
            );
            Value::None
        }
        "stopTPR" => {
            let (root, format) = (a.str(0)?, a.str(1)?);
            sim.notice(name, format!("stops taking pictures: {root}*.{format}"));
            sim.set_setting(name, &format!("Regularly {root}.{format}"), Value::None);
            Value::None
        }
        "setWhiteBalance" => {
            let camera = a.int(0)?;
            if !(0..=2).contains(&camera) {
                return Err(a.bad(0, "0 (top), 1 (bottom) or 2 (both)"));
            }
            sim.notice(name, format!("white balance of camera {camera}"));
            sim.set_setting(name, "WhiteBalance", Value::Int(camera));
            Value::None
        }
        "startVideoRecord" | "startVideoRecord_adv" => {
            start_recording(sim, name, a, recording_asked(sim, method, a)?, true)?;
            Value::None
        }
        "stopVideoRecord" => stop_recording(sim, name, a)?,
        "isVideoRecording" => Value::Bool(recording(sim, name)),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The recording `startVideoRecord` or `startVideoRecord_adv` asks for: the simple one in
/// MJPG at QVGA, the advanced one as its arguments say.
fn recording_asked(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Recording, CallError> {
    let file = a.str(0)?;
    let (fps, format, frames, resolution) = if method == "startVideoRecord" {
        (SIMPLE_FPS, "MJPG", None, 1)
    } else {
        let fps = a.f64(1)?;
        if !(0.1..=50.0).contains(&fps) {
            return Err(a.bad(1, "a frame rate from 0.1 to 50"));
        }
        let format = a.str(2)?;
        let Some(format) = VIDEO_FORMATS.iter().find(|f| **f == format) else {
            return Err(a.bad(2, "\"ARV\", \"IYUV\" or \"MJPG\""));
        };
        let resolution = a.int(3)?;
        if !(0..=2).contains(&resolution) {
            return Err(a.bad(3, "0 (160*120), 1 (320*240) or 2 (640*480)"));
        }
        let frames = a.int(4)?;
        (fps, *format, (frames >= 0).then_some(frames), resolution)
    };
    let (width, height) = files::size(resolution).unwrap_or((320, 240));
    let ext = if format == "ARV" { "arv" } else { "avi" };
    Ok(Recording {
        path: join(VIDEOS, &with_extension(file, ext)),
        since: sim.now(),
        fps,
        frames,
        frame: Frame {
            width,
            height,
            colour: true,
        },
        format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn darkness_maps_onto_the_1x_scale_with_the_thresholds_meeting() {
        assert_eq!(dark_1x(0.0), 0);
        assert_eq!(dark_1x(60.0), 210);
        assert_eq!(dark_1x(100.0), 255);
        // The lit room of the simulation is "indoor bright" (5..100) on the 1.x scale.
        let room = dark_1x(choreo_robot::memory::ROOM_DARKNESS as f64);
        assert!((5..=100).contains(&room), "{room}");
    }
}
