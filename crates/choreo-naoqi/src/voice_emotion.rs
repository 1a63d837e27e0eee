//! ALVoiceEmotionAnalysis: the emotion in the voice of who speaks to the robot. An
//! extractor (subscribe to run it); its parameters are kept and read back. The simulated
//! robot hears nobody: `ALVoiceEmotionAnalysis/EmotionRecognized` comes from scenarios
//! (`raise_event`).

use crate::args::Args;
use crate::extractor::Extractor;
use crate::kept::{Op, Service};
use crate::sim::{Reply, Sim};

/// ALVoiceEmotionAnalysis as served.
pub(crate) const SERVICE: Service = Service {
    name: "ALVoiceEmotionAnalysis",
    methods: &[("setParameter", Op::Own), ("getParameter", Op::Own)],
    own,
    extractor: Some(Extractor::plain(&[
        "ALVoiceEmotionAnalysis/EmotionRecognized",
    ])),
};

fn own(sim: &Sim, method: &str, a: &Args<'_>) -> Result<Reply, String> {
    crate::kept::parameter(sim, "ALVoiceEmotionAnalysis", method, a)
}
