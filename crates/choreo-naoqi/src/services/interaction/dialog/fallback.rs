//! ALDialog's fallback services (`addFallback`): asked, in turn, what to answer when no rule
//! matches what the human said.

use choreo_engine::Value;

use super::state::{Dialog, NAME};
use crate::robot::core::Sim;

/// The answer of the fallback services (`addFallback`) to `said`, nothing matching it: the
/// first that returns something.
pub(crate) fn fallback(sim: &Sim, said: &str) -> Option<String> {
    let (language, services) = {
        let mut state = sim.state();
        let d = &state.part::<Dialog>();
        let services: Vec<String> = d
            .fallbacks
            .iter()
            .filter(|(l, _)| *l == d.language)
            .map(|(_, s)| s.clone())
            .collect();
        (d.language.clone(), services)
    };
    services.into_iter().find_map(|service| {
        let args = vec![Value::from(language.as_str()), Value::from(said)];
        match sim.call(&service, "findOutput", args) {
            Ok(Value::String(s)) if !s.trim().is_empty() => Some(s),
            Ok(_) => None,
            Err(e) => {
                sim.notice(NAME, format!("fallback {service}.findOutput: {e}"));
                None
            }
        }
    })
}
