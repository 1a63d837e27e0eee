//! `choreo edit`'s server: a [`Session`] answering the monitor's editing pages.
//!
//! Every command is answered: an edit, an undo or a redo that took sends every page the new
//! `structure`, then `edited` with `ok` true and the behavior's `problems` (as `choreo
//! check` finds them); one refused sends `edited` with `ok` false and why, so that a page
//! which moved a box before asking puts it back. The file is watched between commands: a
//! change by another program is told to the pages at once (not only at the next edit), and
//! `reload` takes it. Play is a [`Player`]'s: the command line's runs `choreo run` apart.

mod behaviors;
mod drafts;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_monitor::{Command, Monitor};
use choreo_python::box_scripts::BoxScripts;
use choreo_robot::Model;
use choreo_xar::ScriptCheck as _;
use choreo_xar::edit::{BoxRef, Document};
use serde_json::{Value, json};

use crate::changes::Changes;
use crate::dialogs::{Topics, new_language, topics_of};
use crate::project::{Action, dialog_entry, topic_entry};
use crate::{Kept, Library, Project, Session, SessionError, wire};

/// How often the file is compared with what the session wrote, between commands.
const DISK_POLL: Duration = Duration::from_millis(500);

/// Why a play did not start.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// A run still plays.
    #[error("the behavior is playing: stop it first")]
    Playing,
    /// No run plays (or it does not listen yet).
    #[error("nothing plays: press Play first")]
    NotPlaying,
    /// The run could not be started.
    #[error("cannot start the run: {0}")]
    Start(#[from] std::io::Error),
}

/// What runs the behavior when a page asks to play it.
pub trait Player {
    /// Starts a run of `file` as the page's `play` message `request` asks (`events`: a
    /// scenario file, `robot`: a robot's URL), what it shows told to `monitor`'s pages;
    /// why not, when it cannot.
    fn play(
        &mut self,
        file: &Path,
        request: &Value,
        monitor: &Arc<Monitor>,
    ) -> Result<(), PlayError>;
    /// Stops the run playing, as Ctrl-C stops one (nothing when none plays).
    fn stop(&mut self);
    /// Hands the run playing a person's doing: the page's `world` message (a sentence
    /// heard, a touch, a face: docs/editor.md, "Talk to it while it plays").
    fn world(&mut self, message: &Value) -> Result<(), PlayError>;
}

/// What an edit changed: a behavior's file, one of its topics, or the project's files.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Behavior(PathBuf),
    Topic(PathBuf),
    Files(Box<Action>),
}

/// A session served to the pages of `monitor`.
pub struct Editor {
    /// The behavior the pages show.
    session: Session,
    /// The project's other behaviors opened here, by file (their histories kept).
    others: HashMap<PathBuf, Session>,
    /// The topics of its Dialog boxes opened in the page.
    topics: Topics,
    /// What each edit made changed, the last last; and each edit undone.
    done: Vec<Target>,
    undone: Vec<Target>,
    library: Library,
    robot: Model,
    /// The project: its behaviors; the topics a page may open are in its folder (without
    /// one, the behavior's).
    project: Option<Project>,
    monitor: Arc<Monitor>,
    player: Option<Box<dyn Player>>,
    /// Whether the pages were told the file changed on disk (told once until reloaded).
    told_changed: bool,
    /// Whether the project's behaviors, or the one shown, changed since the pages were told.
    project_changed: bool,
    /// The file of a box played alone (`crate::play`), removed when the play ends.
    played: Option<PathBuf>,
    /// The archive or readable folder the project is kept in, written back after each
    /// change (the files edited are its working copy's).
    kept: Option<Kept>,
    /// What the pages typed and the file does not hold yet.
    drafts: drafts::Drafts,
}

impl Editor {
    /// Serves `session` to `monitor`'s pages (a monitor started with `edit`), offering the
    /// boxes of `library`; sends them the behavior as the file holds it now.
    pub fn new(session: Session, library: Library, monitor: Arc<Monitor>) -> Editor {
        monitor.restructure(&Graph::new(session.document().xar()));
        Editor {
            session,
            others: HashMap::new(),
            topics: Topics::default(),
            done: Vec::new(),
            undone: Vec::new(),
            library,
            robot: Model::Nao,
            project: None,
            monitor,
            player: None,
            told_changed: false,
            project_changed: false,
            played: None,
            kept: None,
            drafts: drafts::Drafts::default(),
        }
    }

    /// Edits the timelines of a behavior for `robot` (NAO by default): its joints' ranges.
    pub fn for_robot(mut self, robot: Model) -> Editor {
        self.robot = robot;
        self
    }

    /// The behavior's project: its other behaviors can be opened, added, renamed and
    /// deleted, and a Dialog box's topics are opened only inside its folder.
    pub fn in_project(mut self, project: Project) -> Editor {
        self.project = Some(project);
        self
    }

    /// Writes each change back to the archive or readable folder `kept` (the session's file
    /// is in its working copy).
    pub fn kept_in(mut self, kept: Kept) -> Editor {
        self.kept = Some(kept);
        self
    }

    /// Plays the behavior with `player` when a page asks.
    pub fn with_player(mut self, player: Box<dyn Player>) -> Editor {
        self.player = Some(player);
        self
    }

    /// The session (its file and history).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Answers `commands` until `done` says so (checked at least every half second), then
    /// stops a run still playing.
    pub fn serve(&mut self, commands: &Receiver<Command>, done: impl Fn() -> bool) {
        let mut polled = Instant::now();
        while !done() {
            match commands.recv_timeout(DISK_POLL) {
                Ok(command) => self.handle(command),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if polled.elapsed() >= DISK_POLL {
                polled = Instant::now();
                self.watch_disk();
            }
        }
        self.stop_playing();
    }

    /// Stops a run playing, and removes the file of a box it played alone.
    fn stop_playing(&mut self) {
        if let Some(p) = &mut self.player {
            p.stop();
        }
        if let Some(file) = self.played.take() {
            let _ = std::fs::remove_file(file);
        }
    }

    /// What a `play` request plays: the behavior, or (`box`: a box's `ref`) that box alone,
    /// written beside it.
    fn play_file(&mut self, v: &Value) -> Result<PathBuf, String> {
        if let Some(file) = self.played.take() {
            let _ = std::fs::remove_file(file);
        }
        let at = match &v["box"] {
            Value::Null => return Ok(self.session.path().to_path_buf()),
            b => wire::box_ref(b).map_err(|e| e.to_string())?,
        };
        if at.0.is_empty() {
            return Ok(self.session.path().to_path_buf());
        }
        let bytes = crate::play::box_alone(self.session.document(), &at)?;
        let file = self.folder().join(crate::play::PLAY_FILE);
        crate::write_whole(&file, &bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        self.played = Some(file.clone());
        Ok(file)
    }

    /// Carries out one page's command and tells the pages what came of it.
    pub fn handle(&mut self, command: Command) {
        let mut done = match command {
            Command::Edit(v) if v["kind"] == "text" => self.save_topic(&v),
            Command::Edit(v) if v["kind"] == "topic_add" => self.add_topic(&v),
            Command::Edit(v)
                if v["kind"]
                    .as_str()
                    .is_some_and(|k| k.starts_with("project_")) =>
            {
                self.project_edit(&v)
            }
            Command::Edit(v) if v["library"] == crate::library::DIALOG.0 => self.add_dialog(&v),
            Command::Edit(v) => wire::edit(&self.context(), &v)
                .map_err(|e| e.to_string())
                .and_then(|edit| self.session.apply(&edit).map_err(|e| self.why(e)))
                .map(|()| self.made(Target::Behavior(self.session.path().to_path_buf()))),
            Command::Undo => self.step(true),
            Command::Redo => self.step(false),
            Command::Stop => {
                self.stop_playing();
                return;
            }
            Command::Editor(v) if v["type"] == "open_behavior" => self.open_behavior(&v),
            Command::Editor(v) if v["type"] == "reload" => {
                self.session.reload().map_err(|e| self.why(e)).map(|()| {
                    self.told_changed = false;
                    // The behavior's history is gone with its text; its topics' stays.
                    let gone = Target::Behavior(self.session.path().to_path_buf());
                    self.done.retain(|t| *t != gone);
                    self.undone.retain(|t| *t != gone);
                })
            }
            Command::Editor(v) => {
                let answer = self.request(&v).unwrap_or_else(|why| refused(&why));
                self.monitor.tell(&answer);
                return;
            }
            // Not an editor's: the monitor does not send them to an editor's owner.
            Command::Stimulate { .. } | Command::World(_) => return,
        };
        if done.is_ok() {
            self.monitor
                .restructure(&Graph::new(self.session.document().xar()));
            // Kept in an archive or a readable folder: saved only once written back there
            // (the working copy holds the edit; the next one writes it again).
            if let Some(kept) = &mut self.kept
                && let Err(e) = kept.write_back()
            {
                done = Err(e.to_string());
            }
        }
        if std::mem::take(&mut self.project_changed)
            && let Ok(message) = self.project_message()
        {
            self.monitor.tell(&message);
        }
        self.monitor.tell(&self.outcome(done.as_ref().err()));
        if done.is_ok() {
            self.monitor.tell(&problems(self.session.document()));
        }
    }

    /// An edit was made to `target`: what was undone cannot be redone any more.
    fn made(&mut self, target: Target) {
        self.done.push(target);
        self.undone.clear();
        self.session.clear_redo();
        self.topics.clear_redo();
    }

    /// Undoes the last edit made (`back`), or redoes the last undone.
    fn step(&mut self, back: bool) -> Result<(), String> {
        let (from, nothing) = if back {
            (&self.done, SessionError::NothingToUndo)
        } else {
            (&self.undone, SessionError::NothingToRedo)
        };
        let target = from.last().cloned().ok_or_else(|| nothing.to_string())?;
        let stepped = match (&target, back) {
            (Target::Behavior(p), _) => self.show(p).and_then(|()| {
                if back {
                    self.session.undo()
                } else {
                    self.session.redo()
                }
                .map_err(|e| self.why(e))
            }),
            (Target::Topic(p), true) => self.topics.undo(p).map_err(|e| self.why(e)),
            (Target::Topic(p), false) => self.topics.redo(p).map_err(|e| self.why(e)),
            (Target::Files(action), _) => self.make(action, back),
        };
        stepped?;
        let (from, to) = if back {
            (&mut self.done, &mut self.undone)
        } else {
            (&mut self.undone, &mut self.done)
        };
        from.pop();
        to.push(target);
        Ok(())
    }

    /// The behavior's folder (its dialogs' paths start there).
    fn folder(&self) -> PathBuf {
        self.session
            .path()
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf()
    }

    /// The basic Dialog box added: its dialog's files made first (in a project, listed in
    /// its `.pml` too), then the box; one action, undone as one.
    fn add_dialog(&mut self, v: &Value) -> Result<(), String> {
        let folder = self.folder();
        let (name, mut ops) = crate::library::new_dialog(&folder)?;
        let dlg = format!("{name}/{name}.dlg");
        if let Some(project) = &self.project {
            let root = project.root().to_path_buf();
            let inside = |f: &str| folder.join(f).strip_prefix(&root).map(Path::to_path_buf);
            let english = &choreo_robot::languages::LANGUAGES[0];
            if let (Ok(d), Ok(t)) = (inside(&dlg), inside(&format!("{name}/{name}_enu.top"))) {
                let entries = [dialog_entry(&d), topic_entry(&t, &name, english)];
                ops.extend(project.list(&entries)?);
            }
        }
        let text = self
            .library
            .get(crate::library::DIALOG.0)
            .ok_or("no Dialog box in the library")?
            .text
            .replace(crate::library::DIALOG.1, &dlg);
        let mut v = v.clone();
        v["text"] = Value::String(text);
        let edit = wire::edit(&self.context(), &v).map_err(|e| e.to_string())?;
        let changes = Changes(ops);
        changes.make().map_err(|e| self.why(e))?;
        if let Err(e) = self.session.apply(&edit) {
            let _ = changes.inverse().make();
            return Err(self.why(e));
        }
        let shown = self.session.path().to_path_buf();
        let action = Action::new(changes, None, [None, None]).with_edit(shown);
        self.made(Target::Files(Box::new(action)));
        Ok(())
    }

    /// A topic saved (`{"kind": "text", "path", "text"}`): one opened in the page only.
    fn save_topic(&mut self, v: &Value) -> Result<(), String> {
        let (path, text) = self.topic_text(v)?;
        self.topics.save(&path, &text).map_err(|e| self.why(e))?;
        self.made(Target::Topic(path));
        Ok(())
    }

    /// The `path` and `text` of a page's message about a topic it opened.
    fn topic_text(&self, v: &Value) -> Result<(PathBuf, String), String> {
        let path = PathBuf::from(v["path"].as_str().ok_or("a topic is named by its path")?);
        if !self.topics.is_open(&path) {
            return Err(format!("{}: not a topic opened here", path.display()));
        }
        let text = v["text"].as_str().ok_or("the topic's text is missing")?;
        Ok((path, text.to_string()))
    }

    /// The `.dlg` of the Dialog box at `at` (as its `dialogFile` names it), the behavior's
    /// folder, and the folder its topics must be in (the project's).
    fn dialog_of(&self, at: &BoxRef) -> Result<(String, PathBuf, PathBuf), String> {
        let b = self
            .session
            .document()
            .box_def(at)
            .map_err(|e| e.to_string())?;
        let dialog = b
            .dialog_file
            .clone()
            .ok_or_else(|| format!("{} is not a Dialog box", b.name))?;
        let folder = self.folder();
        let within = self
            .project
            .as_ref()
            .map_or_else(|| folder.clone(), |p| p.root().to_path_buf());
        Ok((dialog, folder, within))
    }

    /// A topic in another language added to a Dialog box's dialog (`{"kind": "topic_add",
    /// "box", "language": "frf"}`): the `.dlg`'s line, the topic, and in a project the
    /// `.pml`'s listing, as one action.
    fn add_topic(&mut self, v: &Value) -> Result<(), String> {
        let at = wire::box_ref(&v["box"]).map_err(|e| e.to_string())?;
        let code = v["language"].as_str().ok_or("a language code is needed")?;
        let (dialog, folder, within) = self.dialog_of(&at)?;
        let (relative, name, mut ops) = new_language(&folder, &dialog, &within, code)?;
        if let (Some(project), Some(language)) =
            (&self.project, choreo_robot::languages::by_code(code))
            && let Some(listed) = project.list(&[topic_entry(&relative, &name, language)])?
        {
            ops.push(listed);
        }
        let action = Action::new(Changes(ops), None, [None, None]);
        self.make(&action, false)?;
        self.made(Target::Files(Box::new(action)));
        Ok(())
    }

    /// The `dialog` answer: the topics of the Dialog box at `at`, opened.
    fn dialog(&mut self, at: &BoxRef) -> Result<Value, String> {
        let (dialog, folder, within) = self.dialog_of(at)?;
        let topics = topics_of(&folder, &dialog, &within)?;
        for (_, path, text) in &topics {
            self.topics.opened(path, text);
        }
        Ok(json!({
            "type": "dialog",
            "box": wire::steps(at),
            "file": dialog,
            // What "Add language" offers: NAOqi's languages.
            "languages": choreo_robot::languages::LANGUAGES.iter()
                .map(|l| json!({"code": l.code, "name": l.name})).collect::<Vec<_>>(),
            "topics": topics.iter().map(|(language, path, text)| json!({
                "language": language, "path": path.display().to_string(), "text": text,
            })).collect::<Vec<_>>(),
        }))
    }

    /// Answers about a topic as typed: its problems, completions, a rule tried.
    fn topic_request(&mut self, v: &Value) -> Result<Value, String> {
        let (path, text) = self.topic_text(v)?;
        let shown = path.display().to_string();
        let number = |k: &str| {
            v[k].as_u64()
                .ok_or_else(|| format!("{k} is a number, from 1"))
        };
        Ok(match v["type"].as_str() {
            Some("text_check") => json!({"type": "text_problems", "path": shown,
                "problems": self.topics.problems(&path, &text)?}),
            Some("complete") => json!({"type": "completions", "path": shown, "id": v["id"],
                "items": self.topics.complete(&path, &text, number("line")?, number("column")?)?}),
            _ => {
                let sentence = v["sentence"].as_str().unwrap_or_default();
                let answer = self
                    .topics
                    .try_rule(&path, &text, number("line")?, sentence)?;
                json!({"type": "tried", "path": shown, "sentence": sentence, "answer": answer})
            }
        })
    }

    fn context(&self) -> wire::Context<'_> {
        wire::Context {
            document: self.session.document(),
            library: &self.library,
            robot: self.robot,
        }
    }

    /// The answer to a request that changes nothing in the file.
    fn request(&mut self, v: &Value) -> Result<Value, String> {
        let at = || wire::box_ref(&v["box"]).map_err(|e| e.to_string());
        match v["type"].as_str() {
            Some("inspect") => {
                wire::inspect(self.session.document(), &at()?).map_err(|e| e.to_string())
            }
            Some("library") => Ok(self.library.message()),
            Some("dialog") => self.dialog(&at()?),
            Some("text_check" | "complete" | "try_rule") => self.topic_request(v),
            Some("problems") => Ok(problems(self.session.document())),
            // A page opened (or reloaded) after edits: what its Undo and Redo can do.
            // Told every page: one more page shares the history.
            Some("history") => Ok(json!({
                "type": "history",
                "undo": !self.done.is_empty(),
                "redo": !self.undone.is_empty(),
                "pages": self.monitor.clients(),
            })),
            Some("project") => self.project_message(),
            Some("draft") => self.drafts.keep(v),
            Some("world") => {
                let player = self.player.as_mut().ok_or("this editor cannot play")?;
                player.world(v).map_err(|e| e.to_string())?;
                Ok(json!({"type": "world_done", "step": v["step"], "event": v["event"]}))
            }
            Some("drafts") => Ok(self.drafts.message()),
            Some("check") => {
                let text = v["text"].as_str().ok_or("check needs the script's text")?;
                script_problems(self.session.document(), &at()?, text)
            }
            Some("play") => {
                if self.player.is_none() {
                    return Err("this editor cannot play".into());
                }
                let file = self.play_file(v)?;
                let played = match &mut self.player {
                    Some(player) => player.play(&file, v, &self.monitor),
                    None => return Err("this editor cannot play".into()),
                };
                played.map_err(|e| e.to_string())?;
                Ok(json!({"type": "playing", "file": file.display().to_string()}))
            }
            _ => Err("not a request the editor knows".to_string()),
        }
    }

    /// A refusal in the page's words; a file changed on disk is told once.
    fn why(&mut self, e: SessionError) -> String {
        if matches!(e, SessionError::ChangedOnDisk { .. }) {
            self.told_changed = true;
        }
        e.to_string()
    }

    /// The `edited` message: whether the last command took, why not, and what can be
    /// undone and redone now.
    fn outcome(&self, refused: Option<&String>) -> Value {
        let (undo, redo) = (!self.done.is_empty(), !self.undone.is_empty());
        json!({
            "type": "edited",
            "ok": refused.is_none(),
            "why": refused,
            "undo": undo,
            "redo": redo,
            "file": self.session.path().display().to_string(),
            "changed_on_disk": self.told_changed,
            // the pages open share this one history: each says so when there are several
            "pages": self.monitor.clients(),
        })
    }

    /// Tells the pages when another program changed the file.
    fn watch_disk(&mut self) {
        if self.told_changed {
            return;
        }
        let why = match self.session.changed_on_disk() {
            Ok(false) => return,
            Ok(true) => format!(
                "{} changed on disk: reload it to go on editing",
                self.session.path().display()
            ),
            Err(e) => e.to_string(),
        };
        self.told_changed = true;
        self.monitor.tell(&self.outcome(Some(&why)));
    }
}

fn severity(s: choreo_xar::Severity) -> &'static str {
    match s {
        choreo_xar::Severity::Error => "error",
        choreo_xar::Severity::Warning => "warning",
    }
}

fn refused(why: &str) -> Value {
    json!({"type": "refused", "why": why})
}

/// The `problems` message: what `choreo check` finds in the behavior as it is, each
/// problem with the box it is in.
fn problems(document: &Document) -> Value {
    let scripts = BoxScripts::default();
    let report =
        choreo_xar::source::check_file_with("behavior.xar", document.bytes(), Some(&scripts));
    let list: Vec<Value> = report
        .diagnostics()
        .map(|d| {
            json!({
                "severity": severity(d.severity),
                "message": d.message,
                "box": d.element_path,
                "line": d.position.map(|p| p.line),
            })
        })
        .collect();
    json!({"type": "problems", "problems": list})
}

/// The `script_problems` message: what `choreo check` (and `choreo lsp`) would find in the
/// script of the box at `at` were its code `text`, by the script's own lines.
fn script_problems(document: &Document, at: &BoxRef, text: &str) -> Result<Value, String> {
    let mut ancestors = Vec::new();
    for depth in 0..at.0.len() {
        let up = BoxRef(at.0[..depth].to_vec());
        ancestors.push(document.box_def(&up).map_err(|e| e.to_string())?);
    }
    let mut b = document.box_def(at).map_err(|e| e.to_string())?.clone();
    let script = b.script.get_or_insert_with(Default::default);
    script.content.get_or_insert_with(Default::default).code = text.to_string();
    // A checker of its own: the shared one keeps every text it has seen.
    let found = BoxScripts::default().check(&b, &ancestors);
    Ok(json!({
        "type": "script_problems",
        "box": wire::steps(at),
        "problems": found.iter().map(|p| json!({
            "severity": severity(p.severity),
            "line": p.line, "column": p.column, "message": p.message,
        })).collect::<Vec<_>>(),
    }))
}
