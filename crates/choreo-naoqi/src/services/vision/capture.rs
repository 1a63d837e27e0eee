//! ALPhotoCapture and ALVideoRecorder: pictures and videos taken with the cameras and saved
//! on the robot. A call answers the file's path on the robot, as the real module does, the
//! observer is told (`takes a picture: /home/nao/recordings/cameras/image.jpg (640x480,
//! written)`), and the file is written under the run's root where the path is a robot folder
//! (`files.rs`: uniform grey, the simulated robot has no camera view). The files written are
//! remembered, so that a call that must not overwrite one fails as on the robot.
//! The settings (camera, resolution, colour space, formats, frame rate, interval) are kept
//! and read back, with the real defaults (the API pages of NAOqi 2.8); a value outside their
//! documented range raises.
//!
//! Timing (**inference** from the overview page: the module "has to subscribe to
//! ALVideoDevice and wait a few hundred milliseconds for the camera image to stabilize",
//! which the half-press mode saves, "up to a second or more"): a call taking pictures lasts
//! [`PHOTO_SETUP_SECONDS`] (none when half-pressed) plus one capture interval per picture
//! (200 ms unless set). A recording starts at once and lasts until `stopRecording`, which
//! answers the frames recorded in the meantime at the frame rate (VGA limited to 15 fps)
//! and the video's path.
//!
//! NAOqi 1.x's ALVisionToolbox (`toolbox.rs`) takes pictures and records videos the same way.

use std::collections::BTreeSet;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use choreo_robot::Model;

use crate::robot::args::Args;
use crate::robot::core::Plan;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Op, Service};
use crate::robot::trajectory::after;
use crate::services::vision::files::{self, Frame, Video};

/// ALPhotoCapture as served.
pub(crate) const PHOTO: Service = Service {
    name: "ALPhotoCapture",
    methods: &[
        ("takePicture", Op::Own),
        ("takePictures", Op::Own),
        ("halfPress", Op::Own),
        ("isHalfPressed", Op::Own),
        ("isHalfPressEnabled", Op::Own),
        ("setHalfPressEnabled", Op::Own),
        ("setCameraID", Op::Own),
        ("getCameraID", Op::Own),
        ("setResolution", Op::Own),
        ("getResolution", Op::Own),
        ("setColorSpace", Op::Own),
        ("getColorSpace", Op::Own),
        ("setCaptureInterval", Op::Own),
        ("getCaptureInterval", Op::Own),
        ("setPictureFormat", Op::Own),
        ("getPictureFormat", Op::Own),
    ],
    own: photo,
    extractor: None,
};

/// ALVideoRecorder as served.
pub(crate) const VIDEO: Service = Service {
    name: "ALVideoRecorder",
    methods: &[
        ("startRecording", Op::Own),
        ("stopRecording", Op::Own),
        ("isRecording", Op::Own),
        ("setCameraID", Op::Own),
        ("getCameraID", Op::Own),
        ("setResolution", Op::Own),
        ("getResolution", Op::Own),
        ("setColorSpace", Op::Own),
        ("getColorSpace", Op::Own),
        ("setFrameRate", Op::Own),
        ("getFrameRate", Op::Own),
        ("setVideoFormat", Op::Own),
        ("getVideoFormat", Op::Own),
    ],
    own: video,
    extractor: None,
};

/// How long a camera takes to give a stable image when a module subscribes to it, s
/// **(inference)**; the half-press mode saves it.
pub const PHOTO_SETUP_SECONDS: f64 = 1.0;

/// NAOqi's `kBGRColorSpace` (colour) and `kYuvColorSpace` (grey): the two a capture takes.
const COLOR_SPACES: [i64; 2] = [13, 0];

/// The picture formats ALPhotoCapture saves.
const PICTURE_FORMATS: &[&str] = &[
    "bmp", "dib", "jpeg", "jpg", "jpe", "png", "pbm", "pgm", "ppm", "sr", "ras", "tiff", "tif",
];

/// The video formats: raw avi, compressed avi, and NAOqi 1.x's raw YUV422 (ARV).
pub(crate) const VIDEO_FORMATS: &[&str] = &["IYUV", "MJPG", "ARV"];

/// The frame rate a VGA recording is limited to.
const VGA_MAX_FPS: f64 = 15.0;

/// A setting of `service` read back, with its default.
fn int_setting(sim: &Sim, service: &'static str, name: &str, default: i64) -> i64 {
    match sim.setting(service, name) {
        Some(Value::Int(i)) => i,
        _ => default,
    }
}

/// A string setting of `service` read back, with its default.
fn str_setting(sim: &Sim, service: &'static str, name: &str, default: &str) -> String {
    match sim.setting(service, name) {
        Some(Value::String(s)) => s,
        _ => default.to_string(),
    }
}

/// The camera indexes of `model`: top and bottom; Pepper's 3D camera.
fn camera_ids(model: Model) -> std::ops::RangeInclusive<i64> {
    match model {
        Model::Nao => 0..=1,
        Model::Pepper => 0..=2,
    }
}

/// Stores setting `name` = `value` of `service` and shows it.
fn store(sim: &Sim, service: &'static str, method: &str, name: &str, value: Value) -> Value {
    sim.notice(service, format!("{method}({value})"));
    sim.set_setting(service, name, value);
    Value::None
}

/// `folder/name`, one slash between.
pub(crate) fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{}/{name}", folder.trim_end_matches('/'))
    }
}

/// `name` with the extension `ext` (added unless it has it).
pub(crate) fn with_extension(name: &str, ext: &str) -> String {
    let dotted = format!(".{ext}");
    if name
        .to_ascii_lowercase()
        .ends_with(&dotted.to_ascii_lowercase())
    {
        name.to_string()
    } else {
        format!("{name}{dotted}")
    }
}

/// The files the simulated robot would have written (their paths on the robot).
#[derive(Default)]
struct Written(BTreeSet<String>);

/// Whose state [`Written`] is.
const FILES: &str = "(files)";

/// Fails if one of `paths` was written and must not be overwritten.
fn check_overwrite(
    sim: &Sim,
    a: &Args<'_>,
    paths: &[String],
    overwrite: bool,
) -> Result<(), CallError> {
    if overwrite {
        return Ok(());
    }
    let exists = |p: &String| sim.robot_file(p).is_some_and(|f| f.exists());
    let taken = sim.kept(FILES, |w: &mut Written| {
        paths
            .iter()
            .find(|p| w.0.contains(*p) || exists(p))
            .cloned()
    });
    match taken {
        Some(path) => Err(CallError::Failed(format!(
            "{}: the file {path:?} already exists",
            a.name
        ))),
        None => Ok(()),
    }
}

/// Remembers that `paths` were written.
fn written(sim: &Sim, paths: &[String]) {
    sim.kept(FILES, |w: &mut Written| w.0.extend(paths.iter().cloned()));
}

/// A call taking the pictures `paths` (each in the format its extension names) of `frame`
/// for `service`, `interval` s apart, answering `answer`: it lasts the camera's setup (unless
/// `half_pressed`) and one interval a picture; at its end the files are written and shown.
pub(crate) fn shoot(
    sim: &Sim,
    service: &'static str,
    (paths, frame): (Vec<String>, Frame),
    half_pressed: bool,
    interval: f64,
    answer: Value,
) -> Plan {
    let setup = if half_pressed {
        0.0
    } else {
        PHOTO_SETUP_SECONDS
    };
    let end = after(sim.now(), setup + interval * paths.len() as f64);
    Plan::until(end)
        .at(end, move |sim: &Sim| {
            for path in &paths {
                let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
                let how = match frame.encode(extension) {
                    Ok(bytes) => sim.write_robot_file(path, |out| out.write_all(&bytes)),
                    Err(e) => format!("not written: {e}"),
                };
                let (w, h) = (frame.width, frame.height);
                sim.notice(service, format!("takes a picture: {path} ({w}x{h}, {how})"));
            }
            written(sim, &paths);
        })
        .returning(answer)
}

fn photo(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = PHOTO.name;
    let half_pressed = || matches!(sim.setting(name, "HalfPress"), Some(Value::Bool(true)));
    let value = match method {
        "takePicture" | "takePictures" => {
            let several = method == "takePictures";
            let at = usize::from(several);
            let count = if several { a.int(0)? } else { 1 };
            if count < 1 {
                return Err(a.bad(0, "a number of pictures of at least 1"));
            }
            let (folder, file) = (a.str(at)?, a.str(at + 1)?);
            // Without the flag, an existing file is overwritten.
            let overwrite = if a.len() > at + 2 {
                a.bool(at + 2)?
            } else {
                true
            };
            let format = str_setting(sim, name, "PictureFormat", "jpg");
            let paths: Vec<String> = if several {
                (0..count)
                    .map(|i| join(folder, &with_extension(&format!("{file}_{i}"), &format)))
                    .collect()
            } else {
                vec![join(folder, &with_extension(file, &format))]
            };
            check_overwrite(sim, a, &paths, overwrite)?;
            let names: Vec<Value> = paths.iter().map(|p| Value::from(p.as_str())).collect();
            // takePicture: [fileName]; takePictures: [[name1, name2...]].
            let answer = if several {
                Value::List(vec![Value::List(names)])
            } else {
                Value::List(names)
            };
            let interval = int_setting(sim, name, "CaptureInterval", 200) as f64 / 1000.0;
            let frame = frame(sim, name, 2);
            return Ok(Reply::Timed(shoot(
                sim,
                name,
                (paths, frame),
                half_pressed(),
                interval,
                answer,
            )));
        }
        // Deprecated since 1.18: toggles the half-press mode.
        "halfPress" => {
            let on = !half_pressed();
            store(sim, name, method, "HalfPress", Value::Bool(on));
            Value::Bool(true)
        }
        "setHalfPressEnabled" => store(sim, name, method, "HalfPress", Value::Bool(a.bool(0)?)),
        "isHalfPressed" | "isHalfPressEnabled" => Value::Bool(half_pressed()),
        "setCameraID" => {
            let id = a.int(0)?;
            if !camera_ids(sim.model).contains(&id) {
                return Err(a.bad(0, "a camera index of the robot"));
            }
            store(sim, name, method, "CameraID", Value::Int(id))
        }
        "getCameraID" => Value::Int(int_setting(sim, name, "CameraID", 0)),
        "setResolution" => {
            // kQQVGA..k4VGA, and the smaller kQQQVGA (7), kQQQQVGA (8).
            let resolution = a.int(0)?;
            if !matches!(resolution, 0..=3 | 7 | 8) {
                return Err(a.bad(0, "a camera resolution (0..3, 7, 8)"));
            }
            store(sim, name, method, "Resolution", Value::Int(resolution))
        }
        "getResolution" => Value::Int(int_setting(sim, name, "Resolution", 2)),
        "setColorSpace" => color_space(sim, name, method, a)?,
        "getColorSpace" => Value::Int(int_setting(sim, name, "ColorSpace", COLOR_SPACES[0])),
        "setCaptureInterval" => {
            let ms = a.int(0)?;
            if ms < 0 {
                return Err(a.bad(0, "a delay in ms, not negative"));
            }
            store(sim, name, method, "CaptureInterval", Value::Int(ms))
        }
        "getCaptureInterval" => Value::Int(int_setting(sim, name, "CaptureInterval", 200)),
        "setPictureFormat" => {
            let format = a.str(0)?;
            if !PICTURE_FORMATS.contains(&format) {
                return Err(a.bad(0, &format!("one of {}", PICTURE_FORMATS.join(", "))));
            }
            store(sim, name, method, "PictureFormat", Value::from(format))
        }
        "getPictureFormat" => Value::String(str_setting(sim, name, "PictureFormat", "jpg")),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}

/// The picture `service`'s settings take: its resolution (`default` unless set) and colour
/// space.
pub(crate) fn frame(sim: &Sim, service: &'static str, default: i64) -> Frame {
    let resolution = int_setting(sim, service, "Resolution", default);
    let (width, height) = files::size(resolution).unwrap_or((640, 480));
    Frame {
        width,
        height,
        colour: int_setting(sim, service, "ColorSpace", COLOR_SPACES[0]) != 0,
    }
}

fn color_space(
    sim: &Sim,
    service: &'static str,
    method: &str,
    a: &Args<'_>,
) -> Result<Value, CallError> {
    let space = a.int(0)?;
    if !COLOR_SPACES.contains(&space) {
        return Err(a.bad(0, "kBGRColorSpace (13) or kYuvColorSpace (0)"));
    }
    Ok(store(sim, service, method, "ColorSpace", Value::Int(space)))
}

/// A recording in progress.
#[derive(Clone)]
pub(crate) struct Recording {
    /// The video's path on the robot.
    pub path: String,
    /// When it started.
    pub since: Time,
    /// Frames a second.
    pub fps: f64,
    /// How many frames it records before it stops by itself (`None`: until stopped).
    pub frames: Option<i64>,
    /// Its frames' size (colour is ignored: NAOqi's videos are in colour).
    pub frame: Frame,
    /// `MJPG`, `IYUV` or `ARV`.
    pub format: &'static str,
}

impl Recording {
    /// The frames recorded by `now`.
    fn frames_at(&self, now: Time) -> i64 {
        let seconds = now.0.saturating_sub(self.since.0) as f64 / 1e9;
        let recorded = (seconds * self.fps).floor() as i64;
        self.frames.map_or(recorded, |n| recorded.min(n))
    }

    /// Whether it still records at `now`.
    fn goes_on(&self, now: Time) -> bool {
        self.frames.is_none_or(|n| self.frames_at(now) < n)
    }
}

/// A module's recording, if any.
#[derive(Default)]
struct Recorder(Option<Recording>);

/// Starts `recording` for `service` (one at a time); shown.
pub(crate) fn start_recording(
    sim: &Sim,
    service: &'static str,
    a: &Args<'_>,
    recording: Recording,
    overwrite: bool,
) -> Result<(), CallError> {
    let now = sim.now();
    if sim.kept(service, |r: &mut Recorder| {
        r.0.as_ref().is_some_and(|r| r.goes_on(now))
    }) {
        return Err(CallError::Failed(format!(
            "{}: a video is already being recorded",
            a.name
        )));
    }
    check_overwrite(sim, a, std::slice::from_ref(&recording.path), overwrite)?;
    sim.notice(
        service,
        format!(
            "records a video: {} at {} fps ({}x{} {})",
            recording.path,
            recording.fps,
            recording.frame.width,
            recording.frame.height,
            recording.format
        ),
    );
    sim.kept(service, |r: &mut Recorder| r.0 = Some(recording));
    Ok(())
}

/// Stops `service`'s recording: `[frames recorded, path]`, shown; an error if none.
pub(crate) fn stop_recording(
    sim: &Sim,
    service: &'static str,
    a: &Args<'_>,
) -> Result<Value, CallError> {
    let now = sim.now();
    let recording = sim
        .kept(service, |r: &mut Recorder| r.0.take())
        .ok_or_else(|| CallError::Failed(format!("{}: no video is being recorded", a.name)))?;
    let frames = recording.frames_at(now);
    written(sim, std::slice::from_ref(&recording.path));
    let video = Video {
        width: recording.frame.width,
        height: recording.frame.height,
        frames: u32::try_from(frames).unwrap_or(u32::MAX),
        fps: recording.fps,
        codec: recording.format,
    };
    let how = sim.write_robot_file(&recording.path, |out| files::write_video(out, video));
    sim.notice(
        service,
        format!(
            "stops recording: {} ({frames} frames, {how})",
            recording.path
        ),
    );
    Ok(Value::List(vec![
        Value::Int(frames),
        Value::from(recording.path.as_str()),
    ]))
}

/// Whether `service` records a video now.
pub(crate) fn recording(sim: &Sim, service: &'static str) -> bool {
    let now = sim.now();
    sim.kept(service, |r: &mut Recorder| {
        r.0.as_ref().is_some_and(|r| r.goes_on(now))
    })
}

fn video(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let name = VIDEO.name;
    let value = match method {
        "startRecording" => {
            let (folder, file) = (a.str(0)?, a.str(1)?);
            // Without the flag, an existing file is overwritten.
            let overwrite = if a.len() > 2 { a.bool(2)? } else { true };
            let format = str_setting(sim, name, "VideoFormat", "MJPG");
            let format = VIDEO_FORMATS
                .iter()
                .find(|f| **f == format)
                .copied()
                .unwrap_or("MJPG");
            let ext = if format == "ARV" { "arv" } else { "avi" };
            let mut fps = int_setting(sim, name, "FrameRate", 15) as f64;
            if int_setting(sim, name, "Resolution", 1) == 2 {
                fps = fps.min(VGA_MAX_FPS);
            }
            let recording = Recording {
                path: join(folder, &with_extension(file, ext)),
                since: sim.now(),
                fps,
                frames: None,
                frame: frame(sim, name, 1),
                format,
            };
            start_recording(sim, name, a, recording, overwrite)?;
            Value::None
        }
        "stopRecording" => stop_recording(sim, name, a)?,
        "isRecording" => Value::Bool(recording(sim, name)),
        "setCameraID" => {
            let id = a.int(0)?;
            if !camera_ids(sim.model).contains(&id) {
                return Err(a.bad(0, "a camera index of the robot"));
            }
            store(sim, name, method, "CameraID", Value::Int(id))
        }
        "getCameraID" => Value::Int(int_setting(sim, name, "CameraID", 0)),
        "setResolution" => {
            let resolution = a.int(0)?;
            if !(0..=2).contains(&resolution) {
                return Err(a.bad(0, "0 (QQVGA), 1 (QVGA) or 2 (VGA)"));
            }
            store(sim, name, method, "Resolution", Value::Int(resolution))
        }
        "getResolution" => Value::Int(int_setting(sim, name, "Resolution", 1)),
        "setColorSpace" => color_space(sim, name, method, a)?,
        "getColorSpace" => Value::Int(int_setting(sim, name, "ColorSpace", COLOR_SPACES[0])),
        "setFrameRate" => {
            let fps = a.f64(0)?;
            if !(1.0..=30.0).contains(&fps) {
                return Err(a.bad(0, "a frame rate from 1 to 30"));
            }
            store(
                sim,
                name,
                method,
                "FrameRate",
                Value::Int(fps.round() as i64),
            )
        }
        "getFrameRate" => Value::Int(int_setting(sim, name, "FrameRate", 15)),
        "setVideoFormat" => {
            let format = a.str(0)?;
            if !VIDEO_FORMATS.contains(&format) {
                return Err(a.bad(0, "\"IYUV\", \"MJPG\" or \"ARV\""));
            }
            store(sim, name, method, "VideoFormat", Value::from(format))
        }
        "getVideoFormat" => Value::String(str_setting(sim, name, "VideoFormat", "MJPG")),
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
