//! The hooks the engine calls in box code (`onLoad`, `onUnload`, `onInput_*`, ...).
//!
//! A port's name is a [`PortName`], shared by every box of the graph with a port of that
//! name and by every hook call it gets (a signal hop copies no string).

use std::sync::Arc;

use choreo_base::Value;

/// The name of a box input or output (`onStart`), one copy for every box with a port of
/// that name, shared with every hook call it gets: a signal hop hands the name on without
/// copying it, and looks up an output by a name whose text it has just read (a name kept
/// apart in each box was a cache miss per hop). Reads as a `str` (it derefs to one and
/// compares with `str`, `&str` and `String`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortName(Arc<str>);

impl PortName {
    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `other` is this name: the same shared text (a signal hands the graph's name
    /// on), or equal text.
    pub(crate) fn same(&self, other: &PortName) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl std::ops::Deref for PortName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PortName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for PortName {
    fn from(s: &str) -> PortName {
        PortName(Arc::from(s))
    }
}

impl From<String> for PortName {
    fn from(s: String) -> PortName {
        PortName(Arc::from(s))
    }
}

impl PartialEq<str> for PortName {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for PortName {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for PortName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<PortName> for String {
    fn eq(&self, other: &PortName) -> bool {
        **self == *other.0
    }
}

impl PartialEq<PortName> for str {
    fn eq(&self, other: &PortName) -> bool {
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
        name: PortName,
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
