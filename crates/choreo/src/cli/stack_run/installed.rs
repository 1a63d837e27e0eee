//! The stack's definitions installed as the robot's behaviors (what `PlayChoregraphe`
//! plays), and the classes a definition may name.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use choreo_engine::Value;
use choreo_stack::builtins::robot::PlayChoregraphe;
use choreo_stack::definitions::definition::{Definition, Spec};
use choreo_stack::{Behavior, Classes, DefinitionError};
use choreo_xar::source::{FilesOnDisk, Project};

use crate::cli::error::{CliError, CliResult};
use crate::cli::monitor::Played;
use crate::cli::report;
use crate::nested::BoxCode;
use crate::report::live::Verbosity;

/// A Choregraphe behavior a `PlayChoregraphe` leaf plays: loaded, its files on disk, and the
/// name it is installed under on the simulated robot.
pub(crate) struct Installed {
    pub(super) name: String,
    pub(super) project: Arc<Project>,
    pub(super) index: usize,
    pub(super) files: FilesOnDisk,
}

impl Installed {
    /// The prefix of its events' paths (`Dance:` for `Dance:root/Say`).
    pub(super) fn prefix(&self) -> String {
        format!("{}:", self.name.trim_start_matches("stack/"))
    }
}

/// The behaviors the stack's leaves play, as the monitor draws them.
pub(crate) fn played(installed: &[Installed]) -> Played {
    installed
        .iter()
        .filter_map(|i| {
            let b = i.project.behaviors.get(i.index)?;
            Some((
                i.prefix(),
                Arc::new(choreo_engine::graph::Graph::new(&b.xar)),
            ))
        })
        .collect()
}

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
            Arc::new(report::load_to_run(&path, verbosity).map_err(|e| e.recoded(CliError::Load))?);
        let picked = def.keys.get("behaviorName").and_then(|n| n.as_str());
        let behavior = report::pick_behavior(&project, &path, picked)
            .map_err(|e| e.recoded(CliError::Load))?;
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

/// The name a `PlayChoregraphe` leaf's behavior is installed under on the simulated robot.
fn installed_name(def: &Definition) -> String {
    match &def.owner {
        Some(owner) => format!("stack/{owner}/@{}", def.id),
        None => format!("stack/{}", def.id),
    }
}

/// The built-in classes, with `PlayChoregraphe` also taking a `path` (installed here), and
/// Where the stack's own Python behaviors run, made at the first one (a stack without one
/// starts no box host), or why it cannot be.
pub(crate) type OwnCode =
    LazyLock<Result<BoxCode, String>, Box<dyn FnOnce() -> Result<BoxCode, String> + Send>>;

/// `Python`: a class of a `.py` file of the stack's folder (`file`, `class`, `params`), its
/// code run where `own` says.
pub(crate) fn classes(dir: &Path, installed: &[Installed], own: Arc<OwnCode>) -> Classes {
    let mut classes = Classes::builtin();
    let folder = dir.to_path_buf();
    classes.register(
        "Python",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let file = folder.join(spec.string("file")?);
                let class = spec.string("class")?;
                let params = spec
                    .get("params")
                    .map_or(Value::None, choreo_stack::builtins::conditions::json_value);
                if !matches!(params, Value::None | Value::Map(_)) {
                    return Err(spec.error("params", "must be an object (keyword arguments)"));
                }
                let own = own.as_ref().as_ref().map_err(|e| spec.error("file", e))?;
                choreo_python::stack::PythonBehavior::load(
                    &file,
                    &class,
                    &params,
                    own.confinement.clone(),
                    own.host.clone(),
                )
                .map(|b| Box::new(b) as Box<dyn Behavior>)
                .map_err(|e| spec.error("file", e.to_string()))
            },
        ),
    );
    let names: HashSet<String> = installed.iter().map(|i| i.name.clone()).collect();
    classes.register(
        "PlayChoregraphe",
        Box::new(
            move |spec: &Spec<'_>| -> Result<Box<dyn Behavior>, DefinitionError> {
                let name = if spec.get("path").is_some() {
                    let _ = spec.get("behaviorName");
                    let name = installed_name(spec.definition());
                    if !names.contains(&name) {
                        return Err(spec.error("path", "was not loaded"));
                    }
                    name
                } else {
                    spec.string("installed")?
                };
                Ok(Box::new(PlayChoregraphe::new(&name)))
            },
        ),
    );
    classes
}
