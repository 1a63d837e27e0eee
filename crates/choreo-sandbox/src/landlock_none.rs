//! Landlock's place on systems that have none (macOS, Windows): nothing is enforced, and
//! `shortfall` says so once per run (docs/platforms.md); box code is judged in Python only.

use super::{Error, Rules, Support};

/// What `shortfall` says of [`Support::None`] here.
pub(crate) const NONE_SAID: &str = "this system has no Landlock (Linux's confinement of box \
     code's threads): box code is judged in Python only, which native code it calls can pass \
     by";

/// Nothing to ask.
pub(crate) fn support() -> Support {
    Support::None
}

/// The rules, kept for nothing.
#[derive(Debug)]
pub(crate) struct Confinement;

impl Confinement {
    pub(crate) fn new(_rules: &Rules) -> Result<Confinement, Error> {
        Ok(Confinement)
    }

    /// The program starts as it is.
    pub(crate) fn confine_program(
        &self,
        _command: &mut std::process::Command,
    ) -> Result<(), Error> {
        Ok(())
    }

    /// Nothing enforced.
    pub(crate) fn restrict_self(&self) -> Result<bool, Error> {
        Ok(false)
    }
}
