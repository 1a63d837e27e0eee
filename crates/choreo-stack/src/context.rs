//! Where [`Context`], the runner API a behavior's hook gets, is found by name; it is
//! defined in [`crate::behavior`], with the hooks it is passed to (the two need each other).

pub use crate::behavior::Context;
