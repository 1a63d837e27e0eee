//! The hooks the engine calls in box code (`onLoad`, `onUnload`, `onInput_*`, ...).

use crate::value::Value;

/// Which script hook the engine calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Hook {
    /// `onLoad` (R6).
    Load,
    /// `onUnload` (R7).
    Unload,
    /// `onInput_<name>` with the delivered value (a bang is [`Value::None`]).
    Input {
        /// The input's name.
        name: String,
        /// The value.
        value: Value,
    },
    /// `onResourceLost`: a resource held with "Stop on demand" is wanted elsewhere (R12).
    ResourceLost,
    /// `onResourceError`: the resources were still busy when the timeout expired (R9).
    ResourceError,
    /// `onResource(name)`: a resource held with "Callback on demand" is wanted elsewhere (Q3).
    Resource {
        /// The resource asked for.
        name: String,
    },
}

impl Hook {
    /// The hook's script name (`onLoad`, `onUnload`, `onInput_onStart`).
    pub fn script_name(&self) -> String {
        match self {
            Hook::Load => "onLoad".to_string(),
            Hook::Unload => "onUnload".to_string(),
            Hook::Input { name, .. } => format!("onInput_{name}"),
            Hook::ResourceLost => "onResourceLost".to_string(),
            Hook::ResourceError => "onResourceError".to_string(),
            Hook::Resource { .. } => "onResource".to_string(),
        }
    }
}
