//! The project's behaviors in the editor: which one the pages show (each opened keeps its
//! history), and the actions that add, rename and delete them (`crate::project`), undone
//! and redone in the one history with the behaviors' and topics' edits.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Editor, Target};
use crate::Session;
use crate::project::Action;

impl Editor {
    /// Shows the behavior whose file is `file` (opened the first time).
    pub(super) fn show(&mut self, file: &Path) -> Result<(), String> {
        if file == self.session.path() {
            return Ok(());
        }
        let next = match self.others.remove(file) {
            Some(s) => s,
            None => Session::open(file).map_err(|e| e.to_string())?,
        };
        let before = std::mem::replace(&mut self.session, next);
        self.others.insert(before.path().to_path_buf(), before);
        self.told_changed = false;
        self.project_changed = true;
        Ok(())
    }

    /// The page's `open_behavior`: shows the behavior it names.
    pub(super) fn open_behavior(&mut self, v: &Value) -> Result<(), String> {
        let file = PathBuf::from(v["file"].as_str().ok_or("open_behavior names a file")?);
        let known = self.project_behaviors()?.iter().any(|(_, f)| *f == file);
        if !known {
            return Err(format!("{}: not a behavior of the project", file.display()));
        }
        self.show(&file)
    }

    /// A project action the page asks for (`project_add`, `project_rename` with `file` and
    /// `name`, `project_delete` with `file`), made and put in the history.
    pub(super) fn project_edit(&mut self, v: &Value) -> Result<(), String> {
        let project = self.project.as_ref().ok_or(
            "a behavior file alone: open its project (its folder or .pml) to add, rename or \
             delete behaviors",
        )?;
        let current = self.session.path().to_path_buf();
        let file = v["file"].as_str().map_or(current.clone(), PathBuf::from);
        let action = match v["kind"].as_str() {
            Some("project_add") => {
                let (changes, new) = project.add_behavior()?;
                Action::new(changes, None, [Some(new), Some(current)])
            }
            Some("project_rename") => {
                let name = v["name"].as_str().ok_or("a new name is needed")?;
                let (changes, new) = project.rename_behavior(&file, name)?;
                let shown = if file == current {
                    [Some(new.clone()), Some(file.clone())]
                } else {
                    [None, None]
                };
                Action::new(changes, Some((file, new)), shown)
            }
            Some("project_delete") => {
                if project.behaviors()?.len() < 2 {
                    return Err("the project's last behavior is not deleted here".into());
                }
                Action::new(project.delete_behavior(&file)?, None, [None, Some(file)])
            }
            _ => return Err("not a project action the editor knows".into()),
        };
        self.make(&action, false)?;
        self.made(Target::Files(Box::new(action)));
        Ok(())
    }

    /// Makes `action` (undoes it: `back`), then follows it: a moved behavior keeps its
    /// session and history under its new file; the pages show the behavior it names.
    pub(super) fn make(&mut self, action: &Action, back: bool) -> Result<(), String> {
        let changes = if back {
            action.changes.inverse()
        } else {
            action.changes.clone()
        };
        // An edit that is part of the action: undone before the changes, redone after.
        if let (Some(file), true) = (&action.edit, back) {
            self.show(file)?;
            self.session.undo().map_err(|e| self.why(e))?;
        }
        if let Err(e) = changes.make() {
            if let (Some(_), true) = (&action.edit, back) {
                let _ = self.session.redo();
            }
            return Err(self.why(e));
        }
        if let (Some(file), false) = (&action.edit, back) {
            let redone = self
                .show(file)
                .and_then(|()| self.session.redo().map_err(|e| self.why(e)));
            if let Err(e) = redone {
                let _ = changes.inverse().make();
                return Err(e);
            }
        }
        if let Some((from, to)) = &action.moved {
            let (from, to) = if back { (to, from) } else { (from, to) };
            self.moved(from, to);
        }
        self.project_changed = true;
        // A behavior whose file is gone keeps its session: undoing the action gives its
        // file back as that session last wrote it, so its history goes on.
        let wanted = action.shown[usize::from(back)].clone();
        match wanted.filter(|p| p.exists()) {
            Some(file) => self.show(&file)?,
            None if !self.session.path().exists() => {
                let first = self.project_behaviors()?.into_iter().next();
                let (_, file) = first.ok_or("the project has no behavior left")?;
                self.show(&file)?;
            }
            None => {}
        }
        Ok(())
    }

    /// A behavior's file moved from `from` to `to`: its session and history follow.
    fn moved(&mut self, from: &Path, to: &Path) {
        if self.session.path() == from {
            self.session.moved(to);
        } else if let Some(mut s) = self.others.remove(from) {
            s.moved(to);
            self.others.insert(to.to_path_buf(), s);
        }
        for t in self.done.iter_mut().chain(self.undone.iter_mut()) {
            match t {
                Target::Behavior(p) if p == from => *p = to.to_path_buf(),
                // A Dialog box added with its files: its edit is the moved behavior's.
                Target::Files(action) if action.edit.as_deref() == Some(from) => {
                    action.edit = Some(to.to_path_buf());
                }
                _ => {}
            }
        }
    }

    /// The project's behaviors: folder and file (the behavior shown alone without one).
    fn project_behaviors(&self) -> Result<Vec<(String, PathBuf)>, String> {
        match &self.project {
            Some(p) => Ok(p
                .behaviors()?
                .into_iter()
                .map(|b| (b.folder, b.file))
                .collect()),
            None => {
                let file = self.session.path().to_path_buf();
                Ok(vec![(file.display().to_string(), file)])
            }
        }
    }

    /// The `project` message: the behaviors, and which one the pages show.
    pub(super) fn project_message(&self) -> Result<Value, String> {
        let shown = self.session.path();
        Ok(json!({
            "type": "project",
            "editable": self.project.is_some(),
            "behaviors": self.project_behaviors()?.iter().map(|(folder, file)| json!({
                "folder": folder,
                "file": file.display().to_string(),
                "shown": file == shown,
            })).collect::<Vec<_>>(),
        }))
    }
}
