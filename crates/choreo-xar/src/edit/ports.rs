//! A box's own fields as Choregraphe's Edit box dialog changes them (2.8: "Box - Inputs/
//! outputs" and "Box - Optional components", `software/choregraphe/objects/`): inputs,
//! outputs and parameters added, edited in place ("Edit the selected item", `box.html`,
//! "Edit Box widget") and removed, resources taken and given up.
//!
//! The rules, from those pages and the format:
//! - inputs, outputs and parameters share one id space (links name ports by id): a new one
//!   takes the box's highest id plus one;
//! - an input's or output's name becomes Python (`onInput_<name>`, `self.<name>()`): a
//!   Python name, and none of the box's other inputs and outputs has it; a parameter's name
//!   "has to be unique for each box" (scripts read it by name);
//! - a parameter's default is a value of its type, within its min and max;
//! - a port removed takes its links with it, outside the box and inside its diagrams;
//! - a resource is named once per box;
//! - a port edited keeps its id, so its links stay ("When you create or edit a box input",
//!   the same widget sets name, tooltip, type and nature); its new name follows the rules of
//!   a new one, its own old name aside;
//! - an input or output edited keeps the links Choregraphe draws (`links.rs`), outside the
//!   box and inside its diagrams: a new type or nature that one of them would not pass is
//!   refused, naming the link and why, as a refused link is; a link that already broke the
//!   rules is not this edit's doing and does not refuse it. A new nature sets `inner` as a
//!   new port's (onLoad and ALMemory inputs are "only visible within the diagram");
//! - a parameter edited: the dialog sets its default ("the default value of the parameter
//!   (value between Min value and Max value)"), so the given value becomes the default and
//!   the value it has now stays (a new name or type keeps it) if the new type, min and max
//!   take it, else the edit is refused; min and max are the Integer's and Float's only, so a
//!   new type that is neither drops them, and Multiple Choices, "Custom string possible"
//!   and Password are the String's only, so a new type other than String drops them;
//! - only the attributes whose value changes are rewritten, so `choreo diff` shows the edit.
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
    /// The input, output or parameter named `name` given the fields of `port` in place: its
    /// id, and so its links, stay. A parameter's `value` becomes its default; the value it
    /// has now is kept (see the module's rules).
    ChangePort {
        /// Its name now.
        name: String,
        /// `input`, `output` or `parameter`: `port`'s kind.
        kind: String,
        /// Its new fields.
        port: NewPort,
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
