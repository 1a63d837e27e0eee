//! ALVoiceEmotionAnalysis: the emotion in the voice of who speaks to the robot. An
//! extractor (subscribe to run it); its parameters are kept and read back. The simulated
//! robot hears nobody: `ALVoiceEmotionAnalysis/EmotionRecognized` comes from scenarios
//! (`raise_event`).

use crate::robot::args::Args;
use crate::robot::core::{Reply, Sim};
use crate::robot::error::CallError;
use crate::robot::extractor::Extractor;
use crate::robot::table::{Op, Service};

/// ALVoiceEmotionAnalysis as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALVoiceEmotionAnalysis",
    methods: &[("setParameter", Op::Own), ("getParameter", Op::Own)],
    own,
    extractor: Some(Extractor::plain(&[
        "ALVoiceEmotionAnalysis/EmotionRecognized",
    ])),
};

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, CallError> {
    crate::robot::table::parameter(sim, "ALVoiceEmotionAnalysis", method, a)
}
