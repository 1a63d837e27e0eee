//! Which links Choregraphe lets a user draw in a diagram, from its documentation (2.8,
//! `software/choregraphe/objects/box_input_output.html`, "Box - Inputs/outputs"):
//!
//! - a signal enters a diagram from an input of its owner that is visible inside it (all
//!   but `onStop`, "only visible outside the box"), or leaves a box of the diagram by an
//!   output;
//! - it reaches an input of a box of the diagram that is visible from outside (not an
//!   `inner` one: `onLoad` and ALMemory inputs are "only visible within the diagram"), a
//!   parameter of such a box, or an output of the owner ("to stimulate it from the diagram
//!   ... connect it to a sub-box output");
//! - types: "the information the output sends has to be understandable by the input", and
//!   "you can connect any type of I/O to a Bang input". A Dynamic input takes any signal
//!   (it "represents either a simple event ... or an event carrying a data"). What else is
//!   "understandable" the page does not list; the files Choregraphe saved show it (every
//!   link of the corpus's 260-odd files passes these rules: `tests/edit_corpus.rs`): a
//!   Dynamic output reaches Number and String inputs (Choregraphe's own Choice, Sonar and
//!   Learn Face boxes do it), and a Number output reaches String inputs (two projects). A
//!   Bang carries no data, so it reaches no Number or String input, and a String output
//!   reaches no Number input.

use crate::model::{BoxDef, Diagram, InputNature, PortRef, PortType};

/// A link as the file writes it: from a port of box `from` to a port of box `to`; box 0 is
/// the diagram's owner (its inputs feed the diagram, its outputs take results out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRef {
    /// `outputowner`: the box the signal leaves.
    pub from: i32,
    /// `indexofoutput`: the port it leaves by.
    pub from_port: i32,
    /// `inputowner`: the box the signal reaches.
    pub to: i32,
    /// `indexofinput`: the port or parameter it reaches.
    pub to_port: i32,
}

/// The diagram's owner, as links name it.
const OWNER: i32 = 0;

/// `Ok` when `link` may be drawn in `diagram` of `owner`; else why not, in the user's words.
pub(super) fn check(owner: &BoxDef, diagram: &Diagram, link: LinkRef) -> Result<(), String> {
    let box_named = |id: i32| {
        diagram
            .box_by_id(id)
            .ok_or_else(|| format!("the diagram has no box with id {id}"))
    };
    let sent = if link.from == OWNER {
        match owner.port(link.from_port) {
            Some(PortRef::Input(i)) if i.nature == InputNature::OnStop => {
                return Err(format!(
                    "{}'s input {} (onStop) is not visible inside its diagram",
                    owner.name, i.name
                ));
            }
            Some(PortRef::Input(i)) => i.port_type,
            _ => {
                return Err(format!(
                    "{} has no input with id {} to feed its diagram",
                    owner.name, link.from_port
                ));
            }
        }
    } else {
        let b = box_named(link.from)?;
        match b.port(link.from_port) {
            Some(PortRef::Output(o)) => o.port_type,
            _ => {
                return Err(format!(
                    "{} has no output with id {}: a link leaves a box by an output",
                    b.name, link.from_port
                ));
            }
        }
    };
    let (name, taken) = if link.to == OWNER {
        match owner.port(link.to_port) {
            Some(PortRef::Output(o)) => {
                (format!("{}'s output {}", owner.name, o.name), o.port_type)
            }
            _ => {
                return Err(format!(
                    "{} has no output with id {} for its diagram to reach",
                    owner.name, link.to_port
                ));
            }
        }
    } else {
        let b = box_named(link.to)?;
        match b.port(link.to_port) {
            Some(PortRef::Input(i)) if i.is_inner() => {
                return Err(format!(
                    "{}'s input {} is only visible inside its own diagram",
                    b.name, i.name
                ));
            }
            Some(PortRef::Input(i)) => (format!("{}'s input {}", b.name, i.name), i.port_type),
            Some(PortRef::Parameter(_)) => return duplicate(diagram, link),
            _ => {
                return Err(format!(
                    "{} has no input or parameter with id {}: a link reaches a box by one",
                    b.name, link.to_port
                ));
            }
        }
    };
    if !understood(sent, taken) {
        return Err(format!(
            "{name} takes a {}, which a {} output does not send",
            taken.name(),
            sent.name()
        ));
    }
    duplicate(diagram, link)
}

/// Whether an input of type `taken` understands what an output of type `sent` sends.
fn understood(sent: PortType, taken: PortType) -> bool {
    matches!(taken, PortType::Bang | PortType::Dynamic)
        || matches!(sent, PortType::Dynamic)
        || sent == taken
        || (sent, taken) == (PortType::Number, PortType::String)
}

/// Refuses a link the diagram already has.
fn duplicate(diagram: &Diagram, link: LinkRef) -> Result<(), String> {
    let there = diagram.links.iter().any(|l| {
        l.output_owner == link.from
            && l.index_of_output == link.from_port
            && l.input_owner == link.to
            && l.index_of_input == link.to_port
    });
    if there {
        return Err("the diagram already has this link".to_string());
    }
    Ok(())
}
