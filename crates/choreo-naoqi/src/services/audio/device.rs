//! ALAudioDevice: the speakers' volume and mute, the microphones' energy and recording.
//!
//! `setOutputVolume(v)` keeps v brought into 0..100 (the volume a NAO starts with: 60
//! **(inference)**), read back by `getOutputVolume`; `muteAudioOut(b)`/`isAudioOutMuted`.
//! The microphones hear silence: `get{Front,Rear,Left,Right}MicEnergy()` read 0 whether
//! `enableEnergyComputation` was called or not (kept, with its opposite).
//! `startMicrophonesRecording(path)` records until `stopMicrophonesRecording()`, which writes
//! the file where the path is a robot folder (`Sim::write_robot_file`): a `.wav` in the
//! documented form, 16 bits, 48000 Hz, 4 channels, of silence as long as the recording; an
//! `.ogg` (16 kHz, one channel on the robot) is not written, choreo having no Vorbis encoder
//! (the notice says so). A second start while recording raises **(inference)**, a stop with
//! no recording does nothing. The inputs and outputs are open
//! (`isInputClosed`, `isOutputClosed` False) unless closed; parameters are kept
//! (`setParameter`, `getParameter`).

use choreo_engine::Value;
use choreo_engine::clock::Time;

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::table::{Const, Op, Service};

const NAME: &str = "ALAudioDevice";

/// ALAudioDevice as served.
pub(crate) const SERVICE: Service = Service {
    name: NAME,
    methods: &[
        ("setOutputVolume", Op::Own),
        ("getOutputVolume", Op::Get("OutputVolume", Const::Int(60))),
        ("muteAudioOut", Op::Set("AudioOutMuted", Const::None)),
        (
            "isAudioOutMuted",
            Op::Get("AudioOutMuted", Const::Bool(false)),
        ),
        (
            "enableEnergyComputation",
            Op::Put("EnergyComputation", Const::Bool(true)),
        ),
        (
            "disableEnergyComputation",
            Op::Put("EnergyComputation", Const::Bool(false)),
        ),
        ("getFrontMicEnergy", Op::Answer(Const::Float(0.0))),
        ("getRearMicEnergy", Op::Answer(Const::Float(0.0))),
        ("getLeftMicEnergy", Op::Answer(Const::Float(0.0))),
        ("getRightMicEnergy", Op::Answer(Const::Float(0.0))),
        ("startMicrophonesRecording", Op::Own),
        ("stopMicrophonesRecording", Op::Own),
        (
            "openAudioInputs",
            Op::Put("InputClosed", Const::Bool(false)),
        ),
        (
            "closeAudioInputs",
            Op::Put("InputClosed", Const::Bool(true)),
        ),
        ("isInputClosed", Op::Get("InputClosed", Const::Bool(false))),
        (
            "openAudioOutputs",
            Op::Put("OutputClosed", Const::Bool(false)),
        ),
        (
            "closeAudioOutputs",
            Op::Put("OutputClosed", Const::Bool(true)),
        ),
        (
            "isOutputClosed",
            Op::Get("OutputClosed", Const::Bool(false)),
        ),
        ("setParameter", Op::Own),
        ("getParameter", Op::Own),
    ],
    own,
    extractor: None,
};

/// The file being recorded, since when.
#[derive(Default)]
struct Recording(Option<(String, Time)>);

/// The documented form of a `.wav` recording: rate, channels, bytes a sample.
const WAV: (u32, u16, u16) = (48_000, 4, 2);

/// Writes `seconds` of silence as a PCM WAV file (RIFF `WAVE`, `fmt `, `data`) to `out`.
fn silent_wav(out: &mut dyn std::io::Write, seconds: f64) -> std::io::Result<()> {
    let (rate, channels, bytes) = WAV;
    let frame = u32::from(channels) * u32::from(bytes);
    let frames = (seconds.max(0.0) * f64::from(rate)).round() as u64;
    let data = u32::try_from(frames * u64::from(frame))
        .map_err(|_| std::io::Error::other("over the WAV format's 4 GiB"))?;
    out.write_all(b"RIFF")?;
    out.write_all(&(36 + data).to_le_bytes())?;
    out.write_all(b"WAVEfmt ")?;
    out.write_all(&16u32.to_le_bytes())?;
    // PCM, channels, rate, bytes a second, bytes a frame, bits a sample.
    out.write_all(&1u16.to_le_bytes())?;
    out.write_all(&channels.to_le_bytes())?;
    out.write_all(&rate.to_le_bytes())?;
    out.write_all(&(rate * frame).to_le_bytes())?;
    out.write_all(&(frame as u16).to_le_bytes())?;
    out.write_all(&(bytes * 8).to_le_bytes())?;
    out.write_all(b"data")?;
    out.write_all(&data.to_le_bytes())?;
    let silence = [0u8; 8192];
    let mut left = data as usize;
    while left > 0 {
        let n = left.min(silence.len());
        out.write_all(&silence[..n])?;
        left -= n;
    }
    Ok(())
}

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    let value = match method {
        "setOutputVolume" => {
            let volume = a.int(0)?.clamp(0, 100);
            sim.notice(NAME, format!("output volume {volume}"));
            sim.set_setting(NAME, "OutputVolume", Value::Int(volume));
            Value::None
        }
        "startMicrophonesRecording" => {
            let path = a.str(0)?;
            let now = sim.now();
            let busy = sim.kept(NAME, |r: &mut Recording| match &r.0 {
                Some((other, _)) => Some(other.clone()),
                None => {
                    r.0 = Some((path.to_string(), now));
                    None
                }
            });
            if let Some(other) = busy {
                return Err(CallError::Failed(format!(
                    "{}: already recording {other}",
                    a.name
                )));
            }
            sim.notice(NAME, format!("records {path}"));
            Value::None
        }
        "stopMicrophonesRecording" => {
            if let Some((path, since)) = sim.kept(NAME, |r: &mut Recording| r.0.take()) {
                let seconds = sim.now().0.saturating_sub(since.0) as f64 / 1e9;
                let how = if path.to_ascii_lowercase().ends_with(".wav") {
                    sim.write_robot_file(&path, |out| silent_wav(out, seconds))
                } else {
                    "not written: choreo writes only .wav recordings".to_string()
                };
                sim.notice(NAME, format!("stopped recording {path} ({how})"));
            }
            Value::None
        }
        "setParameter" | "getParameter" => {
            return crate::robot::table::parameter(sim, NAME, method, a);
        }
        _ => return Ok(Reply::NotServed),
    };
    Ok(Reply::Now(value))
}
