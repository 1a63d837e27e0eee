//! The hooks the engine calls in box code (`onLoad`, `onUnload`, `onInput_*`, ...).
//!
//! An input's name is an [`InputName`], shared by the graph and every call it gets (a signal
//! hop copies no string).

use std::sync::Arc;

use choreo_base::Value;

/// The name of a box input (`onStart`), shared by the graph and every hook call it gets: a
/// signal hop hands the name on without copying it. Reads as a `str` (it derefs to one and
/// compares with `str`, `&str` and `String`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputName(Arc<str>);

impl InputName {
    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `other` is this name: the same shared text (a signal hands the graph's name
    /// on), or equal text.
    pub(crate) fn same(&self, other: &InputName) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl std::ops::Deref for InputName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for InputName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for InputName {
    fn from(s: &str) -> InputName {
        InputName(Arc::from(s))
    }
}

impl From<String> for InputName {
    fn from(s: String) -> InputName {
        InputName(Arc::from(s))
    }
}

impl PartialEq<str> for InputName {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for InputName {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for InputName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<InputName> for String {
    fn eq(&self, other: &InputName) -> bool {
        **self == *other.0
    }
}

impl PartialEq<InputName> for str {
    fn eq(&self, other: &InputName) -> bool {
        *self == *other.0
    }
}

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
        name: InputName,
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

    /// An input's hook taken apart: its name and its value (no name and [`Value::None`] for
    /// the other hooks).
    pub(crate) fn into_input(self) -> (Option<InputName>, Value) {
        match self {
            Hook::Input { name, value } => (Some(name), value),
            _ => (None, Value::None),
        }
    }
}
