//! Data worked out once per robot model from `choreo-robot`'s (joint indices, the chain's
//! steps, the supports by name), kept for the life of the process.

use std::sync::OnceLock;

use choreo_robot::Model;

/// One value per model, made the first time it is asked for.
pub(crate) struct PerModel<T> {
    nao: OnceLock<T>,
    pepper: OnceLock<T>,
}

impl<T> PerModel<T> {
    /// Nothing made yet (for a `static`).
    pub(crate) const fn new() -> PerModel<T> {
        PerModel {
            nao: OnceLock::new(),
            pepper: OnceLock::new(),
        }
    }

    /// `model`'s value, made by `make` if it is the first time.
    pub(crate) fn get(&self, model: Model, make: impl FnOnce() -> T) -> &T {
        match model {
            Model::Nao => &self.nao,
            Model::Pepper => &self.pepper,
        }
        .get_or_init(make)
    }
}
