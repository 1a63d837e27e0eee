//! The stack's definitions installed as the robot's behaviors (what `PlayChoregraphe`
//! plays): each loaded, its diagnostics shown ([`crate::stack_driver::Installed`]).

use std::path::Path;
use std::sync::Arc;

use choreo_stack::definitions::definition::Definition;

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::report::live::Verbosity;
use crate::stack_driver::{Installed, installed_name};

/// Loads the Choregraphe behaviors the `PlayChoregraphe` leaves name by `path` (relative to
/// the stack's folder; `behaviorName` picks one of a project's behaviors).
pub(crate) fn install(
    dir: &Path,
    defs: &[Definition],
    verbosity: Verbosity,
) -> CliResult<Vec<Installed>> {
    let mut out = Vec::new();
    for def in defs.iter().filter(|d| d.class == "PlayChoregraphe") {
        let Some(path) = def.keys.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        let path = dir.join(path);
        let project =
            Arc::new(input::load_to_run(&path, verbosity).map_err(|e| e.recoded(CliError::Load))?);
        let picked = def.keys.get("behaviorName").and_then(|n| n.as_str());
        let behavior =
            input::pick_behavior(&project, &path, picked).map_err(|e| e.recoded(CliError::Load))?;
        let index = project
            .behaviors
            .iter()
            .position(|b| std::ptr::eq(b, behavior))
            .unwrap_or(0);
        let files = project
            .on_disk()
            .map_err(|e| CliError::Load(format!("{}: {e}", path.display())))?;
        out.push(Installed {
            name: installed_name(def),
            project,
            index,
            files,
        });
    }
    Ok(out)
}
