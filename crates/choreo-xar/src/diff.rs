//! Semantic differences between two behaviors.
