//! A box's own fields as Choregraphe's Edit box dialog changes them (2.8: "Box - Inputs/
//! outputs" and "Box - Optional components", `software/choregraphe/objects/`): inputs,
//! outputs and parameters added and removed, resources taken and given up.
//!
//! The rules, from those pages and the format:
//! - inputs, outputs and parameters share one id space (links name ports by id): a new one
//!   takes the box's highest id plus one;
//! - an input's or output's name becomes Python (`onInput_<name>`, `self.<name>()`): a
//!   Python name, and none of the box's other inputs and outputs has it; a parameter's name
//!   "has to be unique for each box" (scripts read it by name);
//! - a parameter's default is a value of its type, within its min and max;
//! - a port removed takes its links with it, outside the box and inside its diagrams;
//! - a resource is named once per box.
//!
//! The splices each change makes: `ports_splices`.

use crate::model::{ContentType, InputNature, OutputNature, PortType};

/// A port or parameter to add to a box.
#[derive(Debug, Clone, PartialEq)]
pub enum NewPort {
    /// An input.
    Input {
        /// Its name.
        name: String,
        /// What it carries.
        port_type: PortType,
        /// What a stimulation does.
        nature: InputNature,
        /// Free text.
        tooltip: String,
    },
    /// An output.
    Output {
        /// Its name.
        name: String,
        /// What it carries.
        port_type: PortType,
        /// What firing it does.
        nature: OutputNature,
        /// Free text.
        tooltip: String,
    },
    /// A parameter.
    Parameter {
        /// Its name.
        name: String,
        /// Its type.
        content_type: ContentType,
        /// Its value and default, as the file writes them.
        value: String,
        /// Lower bound (int, double).
        min: Option<f64>,
        /// Upper bound (int, double).
        max: Option<f64>,
        /// Free text.
        tooltip: String,
    },
}

/// One change to a box's own fields.
#[derive(Debug, Clone, PartialEq)]
pub enum BoxFieldEdit {
    /// A port or parameter added after the others of its kind.
    AddPort(NewPort),
    /// The input, output or parameter named `name` removed, with its links.
    RemovePort {
        /// Its name.
        name: String,
        /// `input`, `output` or `parameter` (names may repeat across kinds).
        kind: String,
    },
    /// A resource taken while the box runs (`Lock`, `Stop on demand`, ...).
    AddResource {
        /// Its name (`Speech`, `All motors`, a joint).
        name: String,
        /// How it is held.
        lock: String,
    },
    /// A resource given up.
    RemoveResource {
        /// Its name.
        name: String,
    },
}
