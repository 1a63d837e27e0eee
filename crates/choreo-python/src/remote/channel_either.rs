//! Linux's channel, either of two: its own (`channel_linux`), or, with
//! `CHOREO_BOX_HOST_CHANNEL=mux` in choreo's environment, the one macOS and Windows use
//! (`channel_mux`), so that it is tried here with a real box host (docs/platforms.md). The
//! box host takes the one it was started with.

use std::process::{Child, Command};

use super::channel_linux as own;
use super::channel_mux as mux;
use super::control::{ControlError, Record};
use super::frame::LaneError;

/// The variable that picks the mux.
pub const CHANNEL_VARIABLE: &str = "CHOREO_BOX_HOST_CHANNEL";

/// One end of the control channel.
pub enum Control {
    /// Linux's own.
    Own(own::Control),
    /// The one macOS and Windows use.
    Mux(mux::Control),
}

/// One side's end of a lane.
pub enum Ends {
    /// Linux's own.
    Own(own::Ends),
    /// The one macOS and Windows use.
    Mux(mux::Ends),
}

impl Control {
    /// Starts `command` (the box host) over Linux's channel, or the mux when asked.
    pub fn spawn(command: &mut Command) -> std::io::Result<(Control, Child)> {
        if std::env::var_os(CHANNEL_VARIABLE).is_some_and(|v| v == "mux") {
            let (control, child) = mux::Control::spawn(command)?;
            return Ok((Control::Mux(control), child));
        }
        let (control, child) = own::Control::spawn(command)?;
        Ok((Control::Own(control), child))
    }

    /// The box host's end: the socket it was given as descriptor 3, else its standard
    /// streams.
    pub fn inherited() -> Option<Control> {
        match own::Control::inherited() {
            Some(control) => Some(Control::Own(control)),
            None => mux::Control::inherited().map(Control::Mux),
        }
    }

    /// The descriptors the box host keeps open when it closes all others.
    pub fn kept_descriptors(&self) -> Vec<i32> {
        match self {
            Control::Own(c) => c.kept_descriptors(),
            Control::Mux(c) => c.kept_descriptors(),
        }
    }

    /// Sends `record`.
    pub fn send(&self, record: &Record) -> Result<(), ControlError> {
        match self {
            Control::Own(c) => c.send(record),
            Control::Mux(c) => c.send(record),
        }
    }

    /// Opens a new lane: this side's end.
    pub fn new_lane(&self) -> Result<Ends, ControlError> {
        match self {
            Control::Own(c) => c.new_lane().map(Ends::Own),
            Control::Mux(c) => c.new_lane().map(Ends::Mux),
        }
    }

    /// The next record, with a new lane's ends when it is one; `None` at the end.
    pub fn recv(&self) -> Result<Option<(Record, Option<Ends>)>, ControlError> {
        Ok(match self {
            Control::Own(c) => c.recv()?.map(|(r, e)| (r, e.map(Ends::Own))),
            Control::Mux(c) => c.recv()?.map(|(r, e)| (r, e.map(Ends::Mux))),
        })
    }
}

impl Ends {
    /// Sends one frame.
    pub fn send(&self, bytes: &[u8]) -> Result<(), LaneError> {
        match self {
            Ends::Own(e) => e.send(bytes),
            Ends::Mux(e) => e.send(bytes),
        }
    }

    /// The next frame.
    pub fn recv(&self) -> Result<Vec<u8>, LaneError> {
        match self {
            Ends::Own(e) => e.recv(),
            Ends::Mux(e) => e.recv(),
        }
    }

    /// Whether a frame is there to read.
    pub fn ready(&self) -> bool {
        match self {
            Ends::Own(e) => e.ready(),
            Ends::Mux(e) => e.ready(),
        }
    }
}
