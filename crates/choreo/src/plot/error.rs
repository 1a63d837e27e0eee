//! Why a plot could not be made.

/// Why a plot could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The trace file could not be read.
    #[error(transparent)]
    Trace(#[from] crate::trace_file::TraceFileError),
    /// The trace holds no `joints` event.
    #[error("{0}")]
    NoJoints(String),
    /// The image could not be drawn or written.
    #[error("{0}")]
    Draw(String),
}
