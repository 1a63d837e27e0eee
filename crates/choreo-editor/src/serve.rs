//! `choreo edit`'s server: a [`Session`] answering the monitor's editing pages.
//!
//! Every command is answered: an edit, an undo or a redo that took sends every page the new
//! `structure` and then `edited` with `ok` true; one refused sends `edited` with `ok` false and
//! why, so that a page which moved a box before asking puts it back. The file is watched
//! between commands: a change by another program is told to the pages at once (not only at
//! the next edit), and `reload` takes it.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use choreo_engine::graph::Graph;
use choreo_monitor::{Command, Monitor};
use serde_json::{Value, json};

use crate::{Library, Session, SessionError, wire};

/// How often the file is compared with what the session wrote, between commands.
const DISK_POLL: Duration = Duration::from_millis(500);

/// A session served to the pages of `monitor`.
pub struct Editor<'m> {
    session: Session,
    library: Library,
    monitor: &'m Monitor,
    /// Whether the pages were told the file changed on disk (told once until reloaded).
    told_changed: bool,
}

impl<'m> Editor<'m> {
    /// Serves `session` to `monitor`'s pages (a monitor started with `edit`), offering the
    /// boxes of `library`; sends them the behavior as the file holds it now.
    pub fn new(session: Session, library: Library, monitor: &'m Monitor) -> Editor<'m> {
        monitor.restructure(&Graph::new(session.document().xar()));
        Editor {
            session,
            library,
            monitor,
            told_changed: false,
        }
    }

    /// The session (its file and history).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Answers `commands` until `done` says so (checked at least every half second).
    pub fn serve(&mut self, commands: &Receiver<Command>, done: impl Fn() -> bool) {
        let mut polled = Instant::now();
        while !done() {
            match commands.recv_timeout(DISK_POLL) {
                Ok(command) => self.handle(command),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if polled.elapsed() >= DISK_POLL {
                polled = Instant::now();
                self.watch_disk();
            }
        }
    }

    /// Carries out one page's command and tells the pages what came of it.
    pub fn handle(&mut self, command: Command) {
        let done = match command {
            Command::Edit(v) => wire::edit(self.session.document(), &self.library, &v)
                .map_err(|e| e.to_string())
                .and_then(|edit| self.session.apply(&edit).map_err(|e| self.why(e))),
            Command::Undo => self.session.undo().map_err(|e| self.why(e)),
            Command::Redo => self.session.redo().map_err(|e| self.why(e)),
            Command::Reload => self.session.reload().map_err(|e| self.why(e)).map(|()| {
                self.told_changed = false;
            }),
            Command::Inspect(at) => {
                let answer = wire::box_ref(&at)
                    .map_err(|e| e.to_string())
                    .and_then(|at| {
                        wire::inspect(self.session.document(), &at).map_err(|e| e.to_string())
                    });
                match answer {
                    Ok(fields) => self.monitor.tell(&fields),
                    Err(why) => self.monitor.tell(&json!({"type": "refused", "why": why})),
                }
                return;
            }
            Command::Library => {
                self.monitor.tell(&self.library.message());
                return;
            }
            // Not an editor's: the monitor does not send them to an editor's owner.
            Command::Stop | Command::Stimulate { .. } => return,
        };
        if done.is_ok() {
            self.monitor
                .restructure(&Graph::new(self.session.document().xar()));
        }
        self.monitor.tell(&self.outcome(done.err()));
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
    fn outcome(&self, refused: Option<String>) -> Value {
        let (undo, redo) = self.session.history();
        json!({
            "type": "edited",
            "ok": refused.is_none(),
            "why": refused,
            "undo": undo,
            "redo": redo,
            "file": self.session.path().display().to_string(),
            "changed_on_disk": self.told_changed,
        })
    }

    /// Tells the pages when another program changed the file.
    fn watch_disk(&mut self) {
        if self.told_changed {
            return;
        }
        match self.session.changed_on_disk() {
            Ok(false) => {}
            Ok(true) => {
                self.told_changed = true;
                let why = format!(
                    "{} changed on disk: reload it to go on editing",
                    self.session.path().display()
                );
                self.monitor.tell(&self.outcome(Some(why)));
            }
            Err(e) => {
                self.told_changed = true;
                self.monitor.tell(&self.outcome(Some(e.to_string())));
            }
        }
    }
}
