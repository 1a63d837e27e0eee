//! XAR v3 files (`behavior.xar`, `box.xar`): reader and writer.

mod content;
mod read;
mod scripts;
mod write;

pub use read::read_xar;
pub use scripts::{ScriptAt, ScriptCheck, ScriptProblem, scripts_at};
pub use write::write_xar;

pub(crate) use content::code_of_raw_content;
