//! ALAudioDevice: the speakers' volume and mute, the microphones' energy and recording.
//!
//! `setOutputVolume(v)` keeps v brought into 0..100 (the volume a NAO starts with: 60
//! **(inference)**), read back by `getOutputVolume`; `muteAudioOut(b)`/`isAudioOutMuted`.
//! The microphones hear silence: `get{Front,Rear,Left,Right}MicEnergy()` read 0 whether
//! `enableEnergyComputation` was called or not (kept, with its opposite).
//! `startMicrophonesRecording(path)` records until `stopMicrophonesRecording()`; nothing is
//! written to disk (the path is shown); a second start while recording raises
//! **(inference)**, a stop with no recording does nothing. The inputs and outputs are open
//! (`isInputClosed`, `isOutputClosed` False) unless closed; parameters are kept
//! (`setParameter`, `getParameter`).

use choreo_engine::Value;

use crate::robot::args::Args;
use crate::robot::error::CallError;
use crate::robot::sim::{Reply, Sim};
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

/// The file being recorded.
#[derive(Default)]
struct Recording(Option<String>);

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
            let busy = sim.kept(NAME, |r: &mut Recording| match &r.0 {
                Some(other) => Some(other.clone()),
                None => {
                    r.0 = Some(path.to_string());
                    None
                }
            });
            if let Some(other) = busy {
                return Err(CallError::Failed(format!(
                    "{}: already recording {other}",
                    a.name
                )));
            }
            sim.notice(NAME, format!("records {path} (not written to disk)"));
            Value::None
        }
        "stopMicrophonesRecording" => {
            if let Some(path) = sim.kept(NAME, |r: &mut Recording| r.0.take()) {
                sim.notice(NAME, format!("stopped recording {path}"));
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
