//! The parts of the `choreo` command that its tests build runs with too: the script host of a
//! behavior's boxes and the project's behaviors as ALBehaviorManager runs them ([`nested`]),
//! and the robot's language a package's manifest implies ([`manifest`]).
//! The command itself is `main.rs`.

pub mod manifest;
pub mod nested;
