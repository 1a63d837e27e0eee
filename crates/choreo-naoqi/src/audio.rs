//! ALAudioPlayer: sounds that last as long as their files.
//!
//! The length comes from the file's header: WAV (data size / byte rate), Ogg Vorbis (last
//! granule position / sample rate), MP3 (Xing/Info frame count, else the constant bit rate
//! of the first frame). A file that does not exist raises RuntimeError, as on the robot; a
//! file whose length cannot be read plays for [`DEFAULT_SECONDS`]. Loops last until stopped.

use std::collections::BTreeMap;

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::args::Args;
use crate::observe::RobotEvent;
use crate::sim::{Reply, Sim};
use crate::tasks::Plan;
use crate::trajectory::after;

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

/// The length in seconds of the sound file at `path`.
pub fn file_length(path: &str) -> Result<f64, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
    Ok(wav_length(&bytes)
        .or_else(|| ogg_length(&bytes))
        .or_else(|| mp3_length(&bytes))
        .unwrap_or(DEFAULT_SECONDS))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn wav_length(b: &[u8]) -> Option<f64> {
    if b.get(0..4)? != b"RIFF" || b.get(8..12)? != b"WAVE" {
        return None;
    }
    let (mut at, mut byte_rate) = (12, None);
    while at + 8 <= b.len() {
        let size = u32_le(b, at + 4)? as usize;
        match b.get(at..at + 4)? {
            b"fmt " => byte_rate = u32_le(b, at + 16).filter(|r| *r > 0),
            b"data" => {
                // A streamed file may say 0 or too much: count what is there.
                let size = size.min(b.len() - (at + 8));
                return Some(size as f64 / f64::from(byte_rate?));
            }
            _ => {}
        }
        at += 8 + size + (size & 1);
    }
    None
}

fn find(b: &[u8], pattern: &[u8]) -> Option<usize> {
    b.windows(pattern.len()).position(|w| w == pattern)
}

fn ogg_length(b: &[u8]) -> Option<f64> {
    if b.get(0..4)? != b"OggS" {
        return None;
    }
    let id = find(b, b"\x01vorbis")?;
    let rate = u32_le(b, id + 12).filter(|r| *r > 0)?;
    let last = b.windows(4).rposition(|w| w == b"OggS")?;
    let granule = i64::from_le_bytes(b.get(last + 6..last + 14)?.try_into().ok()?);
    (granule >= 0).then(|| granule as f64 / f64::from(rate))
}

fn mp3_length(b: &[u8]) -> Option<f64> {
    let mut start = 0;
    if b.get(0..3)? == b"ID3" {
        let size = b
            .get(6..10)?
            .iter()
            .fold(0usize, |acc, &x| (acc << 7) | usize::from(x & 0x7f));
        start = 10 + size;
    }
    let at = start
        + b.get(start..)?
            .windows(2)
            .position(|w| w[0] == 0xff && w[1] & 0xe0 == 0xe0)?;
    let (h1, h2, h3) = (*b.get(at + 1)?, *b.get(at + 2)?, *b.get(at + 3)?);
    let version = (h1 >> 3) & 3; // 3: MPEG1, 2: MPEG2, 0: MPEG2.5
    if (h1 >> 1) & 3 != 1 || version == 1 {
        return None; // not layer III
    }
    const V1: [u32; 15] = [
        0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ];
    const V2: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
    let mpeg1 = version == 3;
    let kbps = *(if mpeg1 { &V1 } else { &V2 }).get(usize::from(h2 >> 4))?;
    let base_rate = *[44100u32, 48000, 32000].get(usize::from((h2 >> 2) & 3))?;
    let rate = match version {
        3 => base_rate,
        2 => base_rate / 2,
        _ => base_rate / 4,
    };
    let mono = h3 >> 6 == 3;
    let side = match (mpeg1, mono) {
        (true, false) => 32,
        (true, true) | (false, false) => 17,
        (false, true) => 9,
    };
    let xing = at + 4 + side;
    if matches!(b.get(xing..xing + 4), Some(b"Xing" | b"Info")) && b.get(xing + 7)? & 1 == 1 {
        let frames = u32::from_be_bytes(b.get(xing + 8..xing + 12)?.try_into().ok()?);
        let samples = if mpeg1 { 1152.0 } else { 576.0 };
        return Some(f64::from(frames) * samples / f64::from(rate));
    }
    (kbps > 0).then(|| (b.len() - at) as f64 * 8.0 / (f64::from(kbps) * 1000.0))
}

/// A sound named `name` from `position` of a `length`-second file (`None`: a loop).
fn play(sim: &Sim, name: String, file: Option<i64>, position: f64, length: Option<f64>) -> Plan {
    let now = sim.now();
    let duration = length.map(|l| (l - position).max(0.0));
    let serial = {
        let mut state = sim.state();
        let serial = state.audio.next_serial;
        state.audio.next_serial += 1;
        state
            .audio
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
            sim.state().audio.playing.retain(|p| p.0 != serial);
        }),
        None => Plan::forever(),
    };
    plan.on_stop(move |sim: &Sim| {
        let now = sim.now();
        {
            let mut state = sim.state();
            let audio = &mut state.audio;
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

fn loaded(sim: &Sim, a: &Args<'_>, i: usize) -> Result<(i64, String, f64, f64), String> {
    let id = a.int(i)?;
    let state = sim.state();
    let (path, length, position) = state
        .audio
        .files
        .get(&id)
        .cloned()
        .ok_or_else(|| format!("{}: no file loaded with id {id}", a.name))?;
    Ok((id, path, length, position))
}

fn length(a: &Args<'_>, path: &str) -> Result<f64, String> {
    file_length(path).map_err(|e| format!("{}: {e}", a.name))
}

/// Serves ALAudioPlayer.
pub(crate) fn serve(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    Ok(match method {
        "playFile" | "playFileFromPosition" | "playFileInLoop" => {
            let path = a.str(0)?;
            let file_length = length(a, path)?;
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
            let file_length = length(a, path)?;
            let mut state = sim.state();
            state.audio.next_file += 1;
            let id = state.audio.next_file;
            state
                .audio
                .files
                .insert(id, (path.to_string(), file_length, 0.0));
            Reply::Now(Value::Int(id))
        }
        "unloadFile" => {
            let id = a.int(0)?;
            sim.state().audio.files.remove(&id);
            Reply::Now(Value::None)
        }
        "unloadAllFiles" => {
            sim.state().audio.files.clear();
            Reply::Now(Value::None)
        }
        "play" | "playInLoop" => {
            let (id, path, file_length, position) = loaded(sim, a, 0)?;
            sim.state().audio.files.entry(id).and_modify(|f| f.2 = 0.0);
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
            sim.state().audio.files.entry(id).and_modify(|f| f.2 = to);
            Reply::Now(Value::None)
        }
        "stopAll" => {
            sim.stop_all("ALAudioPlayer", &[]);
            Reply::Now(Value::None)
        }
        "setVolume" => {
            let (id, v) = (a.int(0)?, a.f64(1)?);
            sim.state().audio.volumes.insert(id, v.clamp(0.0, 1.0));
            Reply::Now(Value::None)
        }
        "getVolume" => {
            let id = a.int(0)?;
            Reply::Now(Value::Float(
                sim.state().audio.volumes.get(&id).copied().unwrap_or(1.0),
            ))
        }
        "setMasterVolume" => {
            let v = a.f64(0)?;
            sim.state().audio.master_volume = v.clamp(0.0, 1.0);
            Reply::Now(Value::None)
        }
        "getMasterVolume" => Reply::Now(Value::Float(sim.state().audio.master_volume)),
        "setPanorama" => {
            a.f64(0)?;
            Reply::Now(Value::None)
        }
        "getFileLength" => Reply::Now(Value::Float(loaded(sim, a, 0)?.2)),
        "getCurrentPosition" => {
            let (id, _, _, position) = loaded(sim, a, 0)?;
            let now = sim.now();
            let state = sim.state();
            let playing = state.audio.playing.iter().find(|p| p.2 == Some(id));
            Reply::Now(Value::Float(
                playing.map_or(position, |&(_, _, _, start, from)| {
                    from + now.0.saturating_sub(start.0) as f64 / 1e9
                }),
            ))
        }
        "getLoadedFilesIds" => Reply::Now(Value::List(
            sim.state()
                .audio
                .files
                .keys()
                .map(|k| Value::Int(*k))
                .collect(),
        )),
        "getLoadedFilesNames" => Reply::Now(Value::List(
            sim.state()
                .audio
                .files
                .values()
                .map(|f| Value::String(f.0.clone()))
                .collect(),
        )),
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
        _ => Reply::NotServed,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn wav_length_from_header() {
        // 16-bit mono 8 kHz: byte rate 16000; 8000 bytes of data = 0.5 s.
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(36u32 + 8000).to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&8000u32.to_le_bytes());
        b.extend_from_slice(&16000u32.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&8000u32.to_le_bytes());
        b.resize(b.len() + 8000, 0);
        assert_eq!(wav_length(&b), Some(0.5));
    }

    #[test]
    fn cbr_mp3_length_from_bit_rate() {
        // MPEG1 layer III, 128 kbps, 44.1 kHz, stereo; 16000 bytes = 1 s.
        let mut b = vec![0xff, 0xfb, 0x90, 0x00];
        b.resize(16000, 0);
        let s = mp3_length(&b).unwrap_or(0.0);
        assert!((s - 1.0).abs() < 1e-9, "{s}");
    }
}
