//! choreo-lsp, behind `choreo lsp`: a Language Server Protocol server over stdio for QiChat topics (`.top`),
//! dialogs (`.dlg`), behaviors (`.xar`), projects (`.pml`) and manifests: `choreo check`'s
//! diagnostics as the text is typed, definitions, references, renames, hovers, completions,
//! outlines, the formatting of topics, and "Try this rule" (docs/editors.md).
//!
//! One thread reads the editor's messages in order and answers each before the next: the
//! documents are small and every answer is computed from the text as typed, so nothing
//! needs to run beside it.

mod boxes;
mod documents;
mod naoqi;
mod topics;
mod try_rule;

use std::path::PathBuf;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, ExecuteCommand, Formatting,
    GotoDefinition, HoverRequest, References, Rename, Request as _,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, Command, CompletionOptions, CompletionParams, CompletionResponse,
    Diagnostic, DiagnosticSeverity, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, DocumentFormattingParams,
    DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandOptions, ExecuteCommandParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams,
    HoverProviderCapability, MarkupContent, MarkupKind, MessageType, OneOf, Position,
    PublishDiagnosticsParams, Range, ReferenceParams, RenameParams, ServerCapabilities,
    ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Url,
};
use serde_json::Value;

use documents::Documents;
use topics::Project;

/// The command behind "Try this rule": arguments `[uri, line, sentence?]`.
const TRY_RULE: &str = "choreo.tryRule";

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The server's capabilities could not be written.
    #[error("lsp: {0}")]
    Capabilities(#[from] serde_json::Error),
    /// The editor's `initialize` exchange failed.
    #[error("lsp: the editor's initialize failed: {0}")]
    Initialize(#[from] lsp_server::ProtocolError),
    /// Reading or writing stdio failed.
    #[error("lsp: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves the editor on stdin and stdout until it says `exit`: whether a `shutdown` request
/// came first (the protocol asks for exit 0 then, 1 without one).
pub fn serve() -> Result<bool, LspError> {
    let (connection, io_threads) = Connection::stdio();
    let clean = serve_connection(connection)?;
    io_threads.join()?;
    Ok(clean)
}

/// Serves the editor at the other end of `connection` until it says `exit` (as [`serve`]):
/// `choreo edit`'s page is served in-process through an in-memory connection
/// (`Connection::memory`), by the same code as any editor.
pub fn serve_connection(connection: Connection) -> Result<bool, LspError> {
    let capabilities = serde_json::to_value(capabilities())?;
    // Nothing of the editor's own description is needed: any client is served the same.
    connection.initialize(capabilities)?;
    let mut server = Server {
        connection,
        docs: Documents::default(),
        scripts: choreo_python::box_scripts::BoxScripts::default(),
    };
    let clean = server.serve();
    drop(server);
    Ok(clean)
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(
                ["~", "%", "$", "^", ".", "\"", "("]
                    .map(String::from)
                    .to_vec(),
            ),
            ..CompletionOptions::default()
        }),
        rename_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![TRY_RULE.to_string()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// The server's state: the connection, the open documents, the box-script checker.
struct Server {
    connection: Connection,
    docs: Documents,
    scripts: choreo_python::box_scripts::BoxScripts,
}

/// A request's result, or a protocol error (code, message).
type Answer = Result<Value, (i32, String)>;

/// The protocol's "invalid params" and "request failed" codes.
const INVALID_PARAMS: i32 = -32602;
const REQUEST_FAILED: i32 = -32803;

impl Server {
    /// Answers messages until `exit`; whether a `shutdown` came first.
    fn serve(&mut self) -> bool {
        while let Ok(message) = self.connection.receiver.recv() {
            match message {
                Message::Request(request) => {
                    if self.connection.handle_shutdown(&request).unwrap_or(true) {
                        return true;
                    }
                    let id = request.id.clone();
                    let answer = self.request(request);
                    self.respond(id, answer);
                }
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
        false
    }

    fn respond(&self, id: RequestId, answer: Answer) {
        let response = match answer {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code, message),
        };
        // A closed connection ends the loop at the next receive.
        let _ = self.connection.sender.send(Message::Response(response));
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        let n = Notification::new(N::METHOD.to_string(), params);
        let _ = self.connection.sender.send(Message::Notification(n));
    }

    fn notification(&mut self, n: Notification) {
        let uri = match n.method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocumentParams>(n.params).map(|p| {
                self.docs
                    .set(p.text_document.uri.clone(), p.text_document.text);
                p.text_document.uri
            }),
            DidChangeTextDocument::METHOD => {
                params::<DidChangeTextDocumentParams>(n.params).and_then(|p| {
                    // Full sync: the last change holds the whole text.
                    let text = p.content_changes.into_iter().last()?.text;
                    self.docs.set(p.text_document.uri.clone(), text);
                    Some(p.text_document.uri)
                })
            }
            DidSaveTextDocument::METHOD => {
                params::<DidSaveTextDocumentParams>(n.params).map(|p| p.text_document.uri)
            }
            DidCloseTextDocument::METHOD => {
                if let Some(p) = params::<DidCloseTextDocumentParams>(n.params) {
                    self.docs.close(&p.text_document.uri);
                    self.notify::<PublishDiagnostics>(PublishDiagnosticsParams::new(
                        p.text_document.uri,
                        Vec::new(),
                        None,
                    ));
                }
                None
            }
            _ => None,
        };
        if let Some(uri) = uri {
            let diagnostics = self.diagnostics(&uri);
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams::new(
                uri,
                diagnostics,
                None,
            ));
        }
    }

    fn request(&mut self, r: Request) -> Answer {
        let value = match r.method.as_str() {
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = parse(r.params)?;
                let at = p.text_document_position_params;
                to_value(GotoDefinitionResponse::Array(
                    self.definition(&at.text_document.uri, at.position),
                ))
            }
            References::METHOD => {
                let p: ReferenceParams = parse(r.params)?;
                let at = p.text_document_position;
                to_value(self.references(&at.text_document.uri, at.position))
            }
            HoverRequest::METHOD => {
                let p: HoverParams = parse(r.params)?;
                let at = p.text_document_position_params;
                let text = self.hover(&at.text_document.uri, at.position);
                to_value(text.map(|value| Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    }),
                    range: None,
                }))
            }
            Completion::METHOD => {
                let p: CompletionParams = parse(r.params)?;
                let at = p.text_document_position;
                let items = self.completion(&at.text_document.uri, at.position);
                to_value(CompletionResponse::Array(items))
            }
            Rename::METHOD => {
                let p: RenameParams = parse(r.params)?;
                let at = p.text_document_position;
                let (path, _) = self.topic(&at.text_document.uri).ok_or((
                    REQUEST_FAILED,
                    "only concepts, tags, variables and functions of topics are renamed".into(),
                ))?;
                let edit = Project::around(&self.docs, &path)
                    .rename(&path, at.position, &p.new_name)
                    .map_err(|e| (REQUEST_FAILED, e))?;
                to_value(edit)
            }
            DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = parse(r.params)?;
                to_value(
                    self.symbols(&p.text_document.uri)
                        .map(DocumentSymbolResponse::Nested),
                )
            }
            Formatting::METHOD => {
                let p: DocumentFormattingParams = parse(r.params)?;
                to_value(self.format(&p.text_document.uri))
            }
            CodeActionRequest::METHOD => {
                let p: CodeActionParams = parse(r.params)?;
                to_value(self.code_actions(&p.text_document.uri, p.range))
            }
            ExecuteCommand::METHOD => {
                let p: ExecuteCommandParams = parse(r.params)?;
                let shown = self.execute(&p)?;
                self.notify::<ShowMessage>(ShowMessageParams {
                    typ: MessageType::INFO,
                    message: shown.clone(),
                });
                Value::String(shown)
            }
            other => return Err((-32601, format!("{other}: not served"))),
        };
        Ok(value)
    }

    /// The path and text of an open `.top` document.
    fn topic(&self, uri: &Url) -> Option<(PathBuf, String)> {
        let path = uri.to_file_path().ok()?;
        documents::is_topic(&path).then_some(())?;
        Some((path, self.docs.text(uri)?.to_string()))
    }

    /// Everything `choreo check` says of the document as typed, and for a topic what its
    /// names earn (see [`Project::diagnostics`]).
    fn diagnostics(&self, uri: &Url) -> Vec<Diagnostic> {
        let Some(text) = self.docs.text(uri) else {
            return Vec::new();
        };
        let path = uri
            .to_file_path()
            .unwrap_or_else(|_| PathBuf::from(uri.path()));
        let name = path.display().to_string();
        let report =
            choreo_xar::source::check_file_with(&name, text.as_bytes(), Some(&self.scripts));
        let mut out: Vec<Diagnostic> = report
            .error
            .iter()
            .map(|e| e.diagnostic())
            .chain(&report.warnings)
            .map(|d| located(text, d))
            .collect();
        if documents::is_topic(&path) {
            out.extend(Project::around(&self.docs, &path).diagnostics(&path));
        }
        out
    }

    fn definition(&self, uri: &Url, at: Position) -> Vec<lsp_types::Location> {
        if let Some((path, _)) = self.topic(uri) {
            return Project::around(&self.docs, &path).definition(&path, at);
        }
        self.docs
            .text(uri)
            .map_or_else(Vec::new, |text| boxes::definition(uri, text, at))
    }

    fn references(&self, uri: &Url, at: Position) -> Vec<lsp_types::Location> {
        if let Some((path, _)) = self.topic(uri) {
            let project = Project::around(&self.docs, &path);
            return project
                .at(&path, at)
                .map_or_else(Vec::new, |o| project.same(&path, o));
        }
        self.docs
            .text(uri)
            .map_or_else(Vec::new, |text| boxes::references(uri, text, at))
    }

    fn hover(&self, uri: &Url, at: Position) -> Option<String> {
        if let Some((path, _)) = self.topic(uri) {
            return Project::around(&self.docs, &path).hover(&path, at);
        }
        let text = self.docs.text(uri)?;
        naoqi::hover(text, at).or_else(|| boxes::hover(text, at))
    }

    fn completion(&self, uri: &Url, at: Position) -> Vec<lsp_types::CompletionItem> {
        if let Some((path, text)) = self.topic(uri) {
            let project = Project::around(&self.docs, &path);
            return topics::completion(&project, &path, &text, at);
        }
        self.docs
            .text(uri)
            .map_or_else(Vec::new, |text| naoqi::completion(text, at))
    }

    fn symbols(&self, uri: &Url) -> Option<Vec<lsp_types::DocumentSymbol>> {
        let text = self.docs.text(uri)?;
        Some(if self.topic(uri).is_some() {
            topics::symbols(text)
        } else {
            boxes::symbols(text)
        })
    }

    /// The whole topic, laid out ([`choreo_qichat::format`]); no edit when it already is.
    fn format(&self, uri: &Url) -> Option<Vec<TextEdit>> {
        let (_, text) = self.topic(uri)?;
        let formatted = choreo_qichat::format::format(&text);
        Some(if formatted == text {
            Vec::new()
        } else {
            vec![TextEdit::new(documents::whole(&text), formatted)]
        })
    }

    /// "Try this rule" on each user rule the range touches.
    fn code_actions(&self, uri: &Url, range: Range) -> Vec<CodeActionOrCommand> {
        let Some((path, text)) = self.topic(uri) else {
            return Vec::new();
        };
        let Ok(topic) = choreo_qichat::parse_str(&path.display().to_string(), &text) else {
            return Vec::new();
        };
        (range.start.line..=range.end.line)
            .filter_map(|line| {
                let n = usize::try_from(line).ok()?;
                let rule = try_rule::rule_at(&topic, n)?;
                let example = try_rule::example(&topic, rule);
                let title = match &example {
                    Some(s) => format!("Try this rule: \"{s}\""),
                    None => "Try this rule".to_string(),
                };
                let mut arguments = vec![Value::String(uri.to_string()), Value::from(line)];
                arguments.extend(example.map(Value::String));
                Some(CodeActionOrCommand::CodeAction(CodeAction {
                    title: title.clone(),
                    kind: Some(CodeActionKind::EMPTY),
                    command: Some(Command::new(title, TRY_RULE.to_string(), Some(arguments))),
                    ..CodeAction::default()
                }))
            })
            .collect()
    }

    /// Runs "Try this rule": `[uri, line, sentence]` (the sentence: the editor's, or the
    /// code action's example).
    fn execute(&self, p: &ExecuteCommandParams) -> Result<String, (i32, String)> {
        if p.command != TRY_RULE {
            return Err((INVALID_PARAMS, format!("{}: no such command", p.command)));
        }
        let uri = p
            .arguments
            .first()
            .and_then(Value::as_str)
            .and_then(|u| Url::parse(u).ok())
            .ok_or((INVALID_PARAMS, "expected [uri, line, sentence]".to_string()))?;
        let (path, text) = self
            .topic(&uri)
            .ok_or((REQUEST_FAILED, format!("{uri}: not an open topic")))?;
        let Some(said) = p.arguments.get(2).and_then(Value::as_str) else {
            return Ok(
                "this rule's pattern gives no sentence to try (a wildcard or an \
                       event): say one with the editor's \"Try a sentence\""
                    .to_string(),
            );
        };
        Ok(try_rule::answer(&path, &text, said))
    }
}

/// A request's parameters, or the protocol's "invalid params".
fn parse<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, (i32, String)> {
    serde_json::from_value(value).map_err(|e| (INVALID_PARAMS, e.to_string()))
}

/// A notification's parameters (a malformed one is dropped: notifications get no answer).
fn params<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}

fn to_value<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A check's diagnostic at its place: from its column to the end of the word there (the
/// whole first line for a diagnostic about the file).
fn located(text: &str, d: &choreo_xar::Diagnostic) -> Diagnostic {
    let range = match d.position {
        Some(p) => {
            let n = usize::try_from(p.line.saturating_sub(1)).unwrap_or(0);
            let line = documents::line_of(text, n);
            let start = line
                .char_indices()
                .nth(usize::try_from(p.column.saturating_sub(1)).unwrap_or(0))
                .map_or(line.len(), |(i, _)| i);
            let end = line[start..]
                .find(char::is_whitespace)
                .map_or(line.len(), |i| start + i)
                .max((start + 1).min(line.len()));
            documents::range(text, n, start, end)
        }
        None => documents::range(text, 0, 0, documents::line_of(text, 0).len()),
    };
    let message = if d.element_path.is_empty() {
        d.message.clone()
    } else {
        format!("{}: {}", d.element_path, d.message)
    };
    Diagnostic {
        range,
        severity: Some(match d.severity {
            choreo_xar::Severity::Error => DiagnosticSeverity::ERROR,
            choreo_xar::Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        source: Some("choreo".into()),
        message,
        ..Diagnostic::default()
    }
}
