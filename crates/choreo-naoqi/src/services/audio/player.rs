//! ALAudioPlayer: sounds that last as long as their files.
//!
//! The length comes from the file, read by symphonia's demuxers ([`file_length`]). A file
//! that does not exist raises RuntimeError, as on the robot; a file whose length cannot be
//! read plays for [`DEFAULT_SECONDS`]. Loops last until stopped.

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;
use symphonia::core::formats::TrackType;

use crate::robot::args::Args;
use crate::robot::core::Plan;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::observe::RobotEvent;
use crate::robot::trajectory::after;
use crate::services::media;

/// How long a sound whose length cannot be read plays.
pub const DEFAULT_SECONDS: f64 = 3.0;

/// The player's state.
pub(crate) struct Player {
    /// Loaded files: id → (path, length in seconds, position to play from).
    files: BTreeMap<i64, (String, f64, f64)>,
    next_file: i64,
    /// Sounds playing: (serial, name, file id, start, position at start).
    playing: Vec<(u64, String, Option<i64>, Time, f64)>,
    next_serial: u64,
    volumes: BTreeMap<i64, f64>,
    master_volume: f64,
}

impl Default for Player {
    fn default() -> Player {
        Player {
            files: BTreeMap::new(),
            next_file: 0,
            playing: Vec::new(),
            next_serial: 0,
            volumes: BTreeMap::new(),
            master_volume: 1.0,
        }
    }
}

impl Player {
    /// The sounds playing now.
    pub fn playing(&self, _now: Time) -> Vec<String> {
        self.playing.iter().map(|p| p.1.clone()).collect()
    }
}

/// The length in seconds of the sound file at `path`, read by the symphonia demuxers (WAV,
/// AIFF, Ogg Vorbis, FLAC, MP3 and other MPEG audio): the track's duration where the
/// container says it (a header, an Xing/Info frame, the last Ogg page), else the packets
/// counted up to the end (a constant-bit-rate MP3 without a header frame), nothing decoded.
/// An unreadable file is an error (as on the robot); a file no demuxer reads plays for
/// [`DEFAULT_SECONDS`].
pub fn file_length(path: &str) -> Result<f64, SoundFileError> {
    let file = std::fs::File::open(path).map_err(|source| SoundFileError::Unreadable {
        path: path.to_string(),
        source,
    })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(SoundFileError::Folder {
            path: path.to_string(),
        });
    }
    Ok(sound_length(file, path).unwrap_or(DEFAULT_SECONDS))
}

/// A sound file that cannot be played (as ALAudioPlayer fails on the robot). `path` is the
/// file as the box gave it, after the robot's paths are mapped.
#[derive(Debug, thiserror::Error)]
pub enum SoundFileError {
    /// It cannot be opened.
    #[error("cannot read {path:?}: {source}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// It is a folder.
    #[error("cannot read {path:?}: Is a directory")]
    Folder {
        /// The folder.
        path: String,
    },
}

/// The length in seconds of the sound in `file` (`name` hints the format by its extension).
fn sound_length(file: std::fs::File, name: &str) -> Option<f64> {
    let mut reader = media::open(file, name)?;
    let track = reader.default_track(TrackType::Audio)?;
    let (id, time_base) = (track.id, track.time_base?);
    if let Some(duration) = track.duration {
        return media::seconds(time_base, duration);
    }
    // No length in the container: the end of the last packet.
    let mut end = None;
    while let Ok(Some(packet)) = reader.next_packet() {
        if packet.track_id == id {
            end = Some(packet.pts.get().saturating_add_unsigned(packet.dur.get()));
        }
    }
    let ticks = u64::try_from(end?).ok()?;
    media::seconds(time_base, symphonia::core::units::Duration::new(ticks))
}

/// A sound named `name` from `position` of a `length`-second file (`None`: a loop).
fn play(sim: &Sim, name: String, file: Option<i64>, position: f64, length: Option<f64>) -> Plan {
    let now = sim.now();
    let duration = length.map(|l| (l - position).max(0.0));
    let serial = {
        let mut state = sim.state();
        let serial = state.part::<Player>().next_serial;
        state.part::<Player>().next_serial += 1;
        state
            .part::<Player>()
            .playing
            .push((serial, name.clone(), file, now, position));
        serial
    };
    sim.observe(RobotEvent::SoundPlayed {
        file: name.clone(),
        duration,
    });
    let plan = match duration {
        Some(d) => Plan::until(after(now, d)).at(after(now, d), move |sim: &Sim| {
            sim.state()
                .part::<Player>()
                .playing
                .retain(|p| p.0 != serial);
        }),
        None => Plan::forever(),
    };
    plan.on_stop(move |sim: &Sim| {
        let now = sim.now();
        {
            let mut state = sim.state();
            let audio = &mut state.part::<Player>();
            if let Some(&(_, _, Some(id), start, from)) =
                audio.playing.iter().find(|p| p.0 == serial)
            {
                let reached = from + now.0.saturating_sub(start.0) as f64 / 1e9;
                if let Some(f) = audio.files.get_mut(&id) {
                    f.2 = reached;
                }
            }
            audio.playing.retain(|p| p.0 != serial);
        }
        sim.observe(RobotEvent::SoundStopped { file: name });
    })
}

fn loaded(sim: &Sim, a: &Args<'_>, i: usize) -> Result<(i64, String, f64, f64), CallError> {
    let id = a.int(i)?;
    let mut state = sim.state();
    let (path, length, position) = state
        .part::<Player>()
        .files
        .get(&id)
        .cloned()
        .ok_or_else(|| CallError::Failed(format!("{}: no file loaded with id {id}", a.name)))?;
    Ok((id, path, length, position))
}

/// The length of the sound at `path`, a robot path read under the run's root.
fn length(sim: &Sim, a: &Args<'_>, path: &str) -> Result<f64, CallError> {
    file_length(&sim.local_path(path)).map_err(|e| CallError::Failed(format!("{}: {e}", a.name)))
}

/// Serves ALAudioPlayer: playback here, volumes and the lists of loaded files in
/// [`volumes_and_lists`].
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "playFile" | "playFileFromPosition" | "playFileInLoop" => {
            let path = a.str(0)?;
            let file_length = length(sim, a, path)?;
            let (position, looped) = match method {
                "playFileFromPosition" => (a.f64(1)?, false),
                "playFileInLoop" => (0.0, true),
                _ => (0.0, false),
            };
            let len = (!looped).then_some(file_length);
            Reply::Timed(play(sim, path.to_string(), None, position, len))
        }
        "loadFile" => {
            let path = a.str(0)?;
            let file_length = length(sim, a, path)?;
            let mut state = sim.state();
            state.part::<Player>().next_file += 1;
            let id = state.part::<Player>().next_file;
            state
                .part::<Player>()
                .files
                .insert(id, (path.to_string(), file_length, 0.0));
            Reply::Now(Value::Int(id))
        }
        "unloadFile" => {
            let id = a.int(0)?;
            sim.state().part::<Player>().files.remove(&id);
            Reply::Now(Value::None)
        }
        "unloadAllFiles" => {
            sim.state().part::<Player>().files.clear();
            Reply::Now(Value::None)
        }
        "play" | "playInLoop" => {
            let (id, path, file_length, position) = loaded(sim, a, 0)?;
            sim.state()
                .part::<Player>()
                .files
                .entry(id)
                .and_modify(|f| f.2 = 0.0);
            let len = (method == "play").then_some(file_length);
            Reply::Timed(play(sim, path, Some(id), position, len))
        }
        "pause" => {
            let id = a.int(0)?;
            for task in sim.tasks.running(|t| {
                t.service == "ALAudioPlayer"
                    && matches!(t.method.as_str(), "play" | "playInLoop")
                    && t.args.first() == Some(&Value::Int(id))
            }) {
                sim.stop_task(&task);
            }
            Reply::Now(Value::None)
        }
        "goTo" => {
            let (id, _, _, _) = loaded(sim, a, 0)?;
            let to = a.f64(1)?;
            sim.state()
                .part::<Player>()
                .files
                .entry(id)
                .and_modify(|f| f.2 = to);
            Reply::Now(Value::None)
        }
        "stopAll" => {
            sim.stop_all("ALAudioPlayer", &[]);
            Reply::Now(Value::None)
        }
        "getFileLength" => Reply::Now(Value::Float(loaded(sim, a, 0)?.2)),
        "getCurrentPosition" => {
            let (id, _, _, position) = loaded(sim, a, 0)?;
            let now = sim.now();
            let mut state = sim.state();
            let playing = state
                .part::<Player>()
                .playing
                .iter()
                .find(|p| p.2 == Some(id));
            Reply::Now(Value::Float(
                playing.map_or(position, |&(_, _, _, start, from)| {
                    from + now.0.saturating_sub(start.0) as f64 / 1e9
                }),
            ))
        }
        "playSine" => {
            let (frequency, duration) = (a.int(0)?, a.f64(3)?);
            a.int(1)?;
            a.int(2)?;
            Reply::Timed(play(
                sim,
                format!("sine {frequency} Hz"),
                None,
                0.0,
                Some(duration),
            ))
        }
        _ => return volumes_and_lists(sim, method, a),
    })
}

/// Serves ALAudioPlayer's volumes and the lists of loaded files; `NotServed` for another
/// method.
fn volumes_and_lists(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    Ok(match method {
        "setVolume" => {
            let (id, v) = (a.int(0)?, a.f64(1)?);
            sim.state()
                .part::<Player>()
                .volumes
                .insert(id, v.clamp(0.0, 1.0));
            Reply::Now(Value::None)
        }
        "getVolume" => {
            let id = a.int(0)?;
            Reply::Now(Value::Float(
                sim.state()
                    .part::<Player>()
                    .volumes
                    .get(&id)
                    .copied()
                    .unwrap_or(1.0),
            ))
        }
        "setMasterVolume" => {
            let v = a.f64(0)?;
            sim.state().part::<Player>().master_volume = v.clamp(0.0, 1.0);
            Reply::Now(Value::None)
        }
        "getMasterVolume" => Reply::Now(Value::Float(sim.state().part::<Player>().master_volume)),
        "setPanorama" => {
            a.f64(0)?;
            Reply::Now(Value::None)
        }
        "getLoadedFilesIds" => Reply::Now(Value::List(
            sim.state()
                .part::<Player>()
                .files
                .keys()
                .map(|k| Value::Int(*k))
                .collect(),
        )),
        "getLoadedFilesNames" => Reply::Now(Value::List(
            sim.state()
                .part::<Player>()
                .files
                .values()
                .map(|f| Value::String(f.0.clone()))
                .collect(),
        )),
        _ => Reply::NotServed,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The length of a sound file under `tests/fixtures/sounds` (tones made with sox, lame
    /// and oggenc for these tests).
    fn length_of(name: &str) -> f64 {
        let path = format!(
            "{}/tests/fixtures/sounds/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        file_length(&path).unwrap()
    }

    #[track_caller]
    fn assert_near(got: f64, want: f64, within: f64) {
        assert!((got - want).abs() <= within, "{got} s, expected {want} s");
    }

    #[test]
    fn lengths_come_from_the_containers() {
        assert_near(length_of("tone-0.5s.wav"), 0.5, 1e-9);
        assert_near(length_of("tone-0.25s.aiff"), 0.25, 1e-9);
        // Vorbis: the last page's granule position.
        assert_near(length_of("tone-1.25s.ogg"), 1.25, 1e-3);
        // VBR MP3 with an Info frame (and an ID3v2 tag first): the encoder's delay and
        // padding taken off.
        assert_near(length_of("tone-2s-vbr.mp3"), 2.0, 1e-3);
    }

    #[test]
    fn an_mp3_without_a_header_frame_is_measured_by_its_frames() {
        // Every frame counted: 2 s of sound plus what a player cannot know to drop without
        // the header frame (the encoder's delay, 576 samples, the decoder's, 529, and the
        // last frame's padding): less than three frames of 576 samples at 22.05 kHz.
        let got = length_of("tone-2s-cbr-no-header.mp3");
        assert!((2.0..2.0 + 3.0 * 576.0 / 22050.0).contains(&got), "{got}");
    }

    #[test]
    fn what_no_demuxer_reads_plays_for_the_default_and_a_folder_is_an_error() {
        let dir = tempfile_dir();
        let junk = dir.join("junk.mp3");
        std::fs::write(&junk, b"not a sound at all").unwrap();
        assert_eq!(
            file_length(junk.to_str().unwrap()).unwrap(),
            DEFAULT_SECONDS
        );
        let e = file_length(dir.to_str().unwrap()).unwrap_err().to_string();
        // The system's own words (Windows: "Access denied", "cannot find the file").
        assert!(cfg!(windows) || e.contains("Is a directory"), "{e}");
        let e = file_length(dir.join("absent.wav").to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(cfg!(windows) || e.contains("No such file"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A new empty folder for one test.
    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("choreo-audio-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
