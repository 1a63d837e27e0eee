//! A Dialog box's topics, edited as text: the `.dlg` its `<dialogFile>` names gives one
//! `.top` per language; each is read, checked as it is typed and completed by choreo's
//! language server (`choreo_lsp`, served in-process on an in-memory connection: the same
//! code `choreo lsp` runs for any editor), tried with "Try this rule", and saved as the
//! behavior's edits are (beside it, synced, renamed over it; never over another program's
//! change; undone and redone).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

use crate::SessionError;
use crate::changes::Operation;

/// How long one answer of the language server may take (it answers in milliseconds; the
/// bound is for a machine under load).
const ANSWER: Duration = Duration::from_secs(30);

/// One text file open for editing: what it held, and its history.
#[derive(Debug)]
struct TextFile {
    /// What the file held when last read or written here.
    on_disk: String,
    /// Texts it held before each save, the last save's last.
    undo: Vec<String>,
    /// Texts undone, the last undone last.
    redo: Vec<String>,
}

/// The topics open for editing, and the language server that reads them.
#[derive(Default)]
pub(crate) struct Topics {
    files: HashMap<PathBuf, TextFile>,
    lsp: Option<LanguageServer>,
}

/// The topics of the Dialog box whose `<dialogFile>` is `dialog` (relative to `folder`, the
/// behavior's): each language, its file and its text.
/// `within`: the project's folder; a `.dlg` or topic outside it is not opened (a stranger's
/// project cannot make the page show or save a file elsewhere).
pub(crate) fn topics_of(
    folder: &Path,
    dialog: &str,
    within: &Path,
) -> Result<Vec<(String, PathBuf, String)>, String> {
    let inside = |path: &Path| -> Result<PathBuf, String> {
        let real = dunce::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let root = dunce::canonicalize(within).unwrap_or_else(|_| within.to_path_buf());
        if real.starts_with(&root) {
            Ok(real)
        } else {
            Err(format!(
                "{}: outside the project ({}): not opened",
                path.display(),
                root.display()
            ))
        }
    };
    let dlg = inside(&folder.join(dialog))?;
    let bytes = std::fs::read(&dlg).map_err(|e| format!("{}: {e}", dlg.display()))?;
    let parsed = choreo_xar::project_files::read_dlg(&dlg.display().to_string(), &bytes)
        .map_err(|e| e.to_string())?
        .value;
    let base = dlg.parent().unwrap_or(folder);
    parsed
        .topics
        .iter()
        .map(|t| {
            let path = inside(&base.join(&t.file))?;
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((t.language.clone(), path, text))
        })
        .collect()
}

/// A topic in the language `code` added to the dialog `dialog` (as [`topics_of`] names it):
/// the `.dlg`'s new line (`  frf:NAME_frf.top`, after the others) and the new topic
/// (`topic: ~NAME()` / `language: frf`), as Choregraphe's "Add a language" makes them. The
/// topic's path (relative to the project, for its `.pml`), the dialog's name, and the two
/// operations.
pub(crate) fn new_language(
    folder: &Path,
    dialog: &str,
    within: &Path,
    code: &str,
) -> Result<(PathBuf, String, Vec<Operation>), String> {
    let language = choreo_robot::languages::by_code(code)
        .ok_or_else(|| format!("{code:?} is not a language code of NAOqi (enu, frf, jpj, ...)"))?;
    let existing = topics_of(folder, dialog, within)?;
    if existing.iter().any(|(l, _, _)| l == language.code) {
        return Err(format!(
            "the dialog has a topic in {} already",
            language.name
        ));
    }
    let dlg = dunce::canonicalize(folder.join(dialog)).map_err(|e| format!("{dialog}: {e}"))?;
    let before = std::fs::read(&dlg).map_err(|e| format!("{}: {e}", dlg.display()))?;
    let name = choreo_xar::project_files::read_dlg(&dlg.display().to_string(), &before)
        .map_err(|e| e.to_string())?
        .value
        .name;
    let file = format!("{name}_{}.top", language.code);
    let top = dlg.parent().unwrap_or(folder).join(&file);
    if top.exists() {
        return Err(format!("{} is there already", top.display()));
    }
    let mut after = before.clone();
    let newline: &[u8] = if before.windows(2).any(|w| w == b"\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    if !after.is_empty() && !after.ends_with(b"\n") {
        after.extend_from_slice(newline);
    }
    after.extend_from_slice(format!("  {}:{file}", language.code).as_bytes());
    after.extend_from_slice(newline);
    let text = format!("topic: ~{name}()\nlanguage: {}\n\n", language.code);
    let relative = top
        .strip_prefix(dunce::canonicalize(within).unwrap_or_else(|_| within.to_path_buf()))
        .unwrap_or(&top)
        .to_path_buf();
    let ops = vec![
        Operation::File {
            path: dlg,
            before: Some(before),
            after: Some(after),
        },
        Operation::File {
            path: top,
            before: None,
            after: Some(text.into_bytes()),
        },
    ];
    Ok((relative, name, ops))
}

impl Topics {
    /// Remembers what `path` holds now (the page shows it): the file to compare with
    /// before a save.
    pub(crate) fn opened(&mut self, path: &Path, text: &str) {
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| TextFile {
                on_disk: text.to_string(),
                undo: Vec::new(),
                redo: Vec::new(),
            });
    }

    /// Whether `path` is a topic opened here.
    pub(crate) fn is_open(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    /// Writes `text` to the topic `path` (opened before): `Err` when the file changed on
    /// disk since, or cannot be written; nothing is then written.
    pub(crate) fn save(&mut self, path: &Path, text: &str) -> Result<(), SessionError> {
        let file = self.open_file(path)?;
        let before = file.on_disk.clone();
        write_checked(path, &before, text)?;
        let file = self.open_file(path)?;
        file.undo.push(before);
        file.redo.clear();
        file.on_disk = text.to_string();
        Ok(())
    }

    /// Puts back what `path` held before its last save.
    pub(crate) fn undo(&mut self, path: &Path) -> Result<(), SessionError> {
        let file = self.open_file(path)?;
        let before = file
            .undo
            .last()
            .cloned()
            .ok_or(SessionError::NothingToUndo)?;
        let now = file.on_disk.clone();
        write_checked(path, &now, &before)?;
        let file = self.open_file(path)?;
        file.undo.pop();
        file.redo.push(now);
        file.on_disk = before;
        Ok(())
    }

    /// Makes the last undone save of `path` again.
    pub(crate) fn redo(&mut self, path: &Path) -> Result<(), SessionError> {
        let file = self.open_file(path)?;
        let after = file
            .redo
            .last()
            .cloned()
            .ok_or(SessionError::NothingToRedo)?;
        let now = file.on_disk.clone();
        write_checked(path, &now, &after)?;
        let file = self.open_file(path)?;
        file.redo.pop();
        file.undo.push(now);
        file.on_disk = after;
        Ok(())
    }

    /// Forgets every topic's undone saves (a new edit was made).
    pub(crate) fn clear_redo(&mut self) {
        for f in self.files.values_mut() {
            f.redo.clear();
        }
    }

    fn open_file(&mut self, path: &Path) -> Result<&mut TextFile, SessionError> {
        self.files.get_mut(path).ok_or_else(|| SessionError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::other("not opened in this editor"),
        })
    }

    /// The language server, started the first time it is needed.
    fn lsp(&mut self) -> Result<&mut LanguageServer, String> {
        if self.lsp.is_none() {
            self.lsp =
                Some(LanguageServer::start().map_err(|e| format!("the language server: {e}"))?);
        }
        self.lsp
            .as_mut()
            .ok_or_else(|| "the language server did not start".to_string())
    }

    /// The problems the language server finds in `text` as the topic `path`: `{line,
    /// column, severity, message}`, lines and columns from 1.
    pub(crate) fn problems(&mut self, path: &Path, text: &str) -> Result<Vec<Value>, String> {
        let lsp = self.lsp()?;
        let uri = lsp.sync(path, text);
        let found = lsp.diagnostics(&uri)?;
        Ok(found
            .iter()
            .map(|d| {
                json!({
                    "line": d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                    "column": d["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
                    "severity": if d["severity"] == 1 { "error" } else { "warning" },
                    "message": d["message"],
                })
            })
            .collect())
    }

    /// What the language server offers at `line`, `column` (from 1) of `text`: labels and
    /// details.
    pub(crate) fn complete(
        &mut self,
        path: &Path,
        text: &str,
        line: u64,
        column: u64,
    ) -> Result<Vec<Value>, String> {
        let lsp = self.lsp()?;
        let uri = lsp.sync(path, text);
        let params = json!({
            "textDocument": {"uri": uri},
            "position": {"line": line.saturating_sub(1), "character": column.saturating_sub(1)},
        });
        let answer = lsp.request("textDocument/completion", params)?;
        let items = answer.get("items").unwrap_or(&answer);
        Ok(items
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|i| json!({"label": i["label"], "detail": i["detail"], "insert": i["insertText"]}))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// "Try this rule": `sentence` heard by the topic `text` as typed (the rule on `line`,
    /// from 1, named): what the dialog engine answers.
    pub(crate) fn try_rule(
        &mut self,
        path: &Path,
        text: &str,
        line: u64,
        sentence: &str,
    ) -> Result<String, String> {
        let lsp = self.lsp()?;
        let uri = lsp.sync(path, text);
        let params = json!({"command": "choreo.tryRule", "arguments": [uri, line.saturating_sub(1), sentence]});
        let answer = lsp.request("workspace/executeCommand", params)?;
        Ok(answer.as_str().unwrap_or_default().to_string())
    }
}

/// Writes `text` to `path` if it still holds `expected`.
fn write_checked(path: &Path, expected: &str, text: &str) -> Result<(), SessionError> {
    let now = std::fs::read_to_string(path).map_err(|source| SessionError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if now != expected {
        return Err(SessionError::ChangedOnDisk {
            path: path.to_path_buf(),
        });
    }
    crate::write_whole(path, text.as_bytes()).map_err(|source| SessionError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// `choreo_lsp` on a thread of its own, spoken to as any editor speaks to it.
struct LanguageServer {
    connection: Connection,
    thread: Option<std::thread::JoinHandle<()>>,
    next_id: i32,
    /// Each open document's version.
    versions: HashMap<String, i32>,
    /// The diagnostics the server published last: a change makes it publish those of the
    /// document changed, under the URI as it parsed it (which may differ from ours: `..`
    /// resolved, spaces escaped).
    published: Option<Vec<Value>>,
}

impl LanguageServer {
    fn start() -> std::io::Result<LanguageServer> {
        let (server, client) = Connection::memory();
        let thread = std::thread::Builder::new()
            .name("choreo-edit-lsp".into())
            .spawn(move || {
                let _ = choreo_lsp::serve_connection(server);
            })?;
        let mut lsp = LanguageServer {
            connection: client,
            thread: Some(thread),
            next_id: 0,
            versions: HashMap::new(),
            published: None,
        };
        lsp.request("initialize", json!({"capabilities": {}}))
            .map_err(std::io::Error::other)?;
        lsp.notify("initialized", json!({}));
        Ok(lsp)
    }

    fn notify(&self, method: &str, params: Value) {
        let _ = self
            .connection
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )));
    }

    /// Opens or changes the document `path` to `text`: its URI.
    fn sync(&mut self, path: &Path, text: &str) -> String {
        let uri = format!("file://{}", path.display());
        self.published = None;
        match self.versions.get_mut(&uri) {
            Some(v) => {
                *v += 1;
                let params = json!({"textDocument": {"uri": uri, "version": *v}, "contentChanges": [{"text": text}]});
                self.notify("textDocument/didChange", params);
            }
            None => {
                self.versions.insert(uri.clone(), 1);
                let params = json!({"textDocument": {"uri": uri, "languageId": "qichat", "version": 1, "text": text}});
                self.notify("textDocument/didOpen", params);
            }
        }
        uri
    }

    /// The diagnostics the server published for `uri` after its last change ([`Self::sync`]).
    fn diagnostics(&mut self, uri: &str) -> Result<Vec<Value>, String> {
        // A request answered after the change: the publication the change made came before
        // its answer.
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}});
        self.request("textDocument/hover", at)?;
        self.published
            .take()
            .ok_or_else(|| "the language server published nothing for the topic".to_string())
    }

    /// Sends a request and waits for its answer, keeping the diagnostics published meanwhile.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method.to_string(), params);
        self.connection
            .sender
            .send(Message::Request(request))
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + ANSWER;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.connection.receiver.recv_timeout(wait) {
                Ok(Message::Response(r)) if r.id == id => {
                    return match r.error {
                        Some(e) => Err(e.message),
                        None => Ok(r.result.unwrap_or(Value::Null)),
                    };
                }
                Ok(Message::Notification(n)) if n.method == "textDocument/publishDiagnostics" => {
                    let list = n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    self.published = Some(list);
                }
                Ok(_) => {}
                Err(_) => return Err(format!("the language server did not answer {method}")),
            }
        }
    }
}

impl Drop for LanguageServer {
    fn drop(&mut self) {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
