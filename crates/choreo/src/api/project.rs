//! Any input opened: a `.xar`, a behavior or project folder, a `.pml`, an archive (`.crg`,
//! `.cbl`, `.pkg`), a split or readable folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use choreo_robot::Model;
use choreo_xar::source::{Behavior, load_path_to_run};
use choreo_xar::{Diagnostic, Severity};

use crate::api::error::{Error, Result};

/// An opened input and its behaviors; cheap to clone (the files are shared).
#[derive(Clone)]
pub struct Project {
    path: PathBuf,
    inner: Arc<choreo_xar::source::Project>,
}

impl Project {
    /// Opens any input choreo reads. Every behavior must be readable: one that is not is
    /// [`Error::Broken`], with each error located (see [`Project::open_partial`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Project> {
        let project = Project::open_partial(path)?;
        let errors: Vec<Diagnostic> = project
            .warnings()
            .iter()
            .filter(|w| w.severity == Severity::Error)
            .cloned()
            .collect();
        if errors.is_empty() {
            Ok(project)
        } else {
            Err(Error::Broken {
                path: project.path,
                errors,
            })
        }
    }

    /// Opens any input, keeping the behaviors that can be read; those that cannot are in
    /// [`Project::warnings`] at error severity.
    pub fn open_partial(path: impl AsRef<Path>) -> Result<Project> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(Error::NotFound {
                path: path.to_path_buf(),
            });
        }
        let inner = load_path_to_run(path).map_err(|e| Error::Unreadable { diagnostic: e.0 })?;
        Ok(Project {
            path: path.to_path_buf(),
            inner: Arc::new(inner),
        })
    }

    /// An input already read by choreo-xar (the command line reads it first, to show its
    /// warnings as it likes), opened from `path`.
    pub fn new(path: impl Into<PathBuf>, project: Arc<choreo_xar::source::Project>) -> Project {
        Project {
            path: path.into(),
            inner: project,
        }
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its name (the `.pml`'s, the archive's title, the manifest's, or the file's).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its behaviors' names, in project order (the first is run by default).
    pub fn behaviors(&self) -> Vec<&str> {
        self.inner
            .behaviors
            .iter()
            .map(|b| b.name.as_str())
            .collect()
    }

    /// What reading it found to say: missing files, unknown elements, and (at error
    /// severity) behaviors that cannot be read. Each is located.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.inner.warnings
    }

    /// The robot it was made for: the manifest's, else the one its content shows, else NAO
    /// ([`crate::implied::model`]).
    pub fn model(&self) -> Model {
        self.implied_model().map_or(Model::Nao, |m| m.value)
    }

    /// The model the project names (its manifest, else its content) with the reason a
    /// run's report gives; `None` when nothing names one.
    pub fn implied_model(&self) -> Option<crate::implied::Implied<Model>> {
        crate::implied::model(&self.inner)
    }

    /// The NAOqi name of the language a robot running it speaks, when not English (see
    /// [`crate::implied::language`]).
    pub fn language(&self) -> Option<&'static str> {
        crate::implied::language(&self.inner).map(|l| l.value.name)
    }

    /// The index of behavior `name` (`None`: the first one).
    pub(crate) fn index_of(&self, name: Option<&str>) -> Result<usize> {
        let behaviors = &self.inner.behaviors;
        let found = match name {
            Some(name) => behaviors.iter().position(|b| b.name == name),
            None => (!behaviors.is_empty()).then_some(0),
        };
        found.ok_or_else(|| Error::NoBehavior {
            path: self.path.clone(),
            name: name.map(str::to_string),
            available: self.behaviors().iter().map(|s| s.to_string()).collect(),
        })
    }

    /// The project as choreo-xar read it.
    pub fn files(&self) -> &Arc<choreo_xar::source::Project> {
        &self.inner
    }

    /// Behavior `index` (it exists: indexes come from [`Project::index_of`]).
    pub(crate) fn behavior_at(&self, index: usize) -> &Behavior {
        &self.inner.behaviors[index]
    }
}
