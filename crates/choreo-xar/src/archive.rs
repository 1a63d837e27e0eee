//! Archives: `.crg` / `.cbl` (ar holding data.tar.gz) and `.pkg` (zip), unpacked into a
//! [`crate::FileTree`] with path checks and a size cap.
