//! A conversation with QiChat topics, as `choreo chat` holds it ([`Session`]): the dialog
//! engine, its memory, the topics and Dialog boxes loaded, each line said and answered.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use choreo_qichat::dialog::{Action, CallArg, Dialog, Host, HostError, Step};
use choreo_xar::model::{BoxDef, InputNature};

/// Why a topic, a dialog or a behavior could not be added to a conversation.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// A file could not be read or holds no topic to talk to: why, at the file.
    #[error("{0}")]
    Load(String),
    /// A topic its parser refused without an error to say.
    #[error("the topic cannot be read")]
    Unsaid,
}

type ChatResult<T> = Result<T, ChatError>;

/// What the robot answers: what it says, the rule's topic, its steps.
pub use choreo_qichat::dialog::Answer;

/// How many answers one line may set off through the memory events their `$var=value`
/// raise (`e:` rules answering them), before the chain is cut.
const MAX_FOLLOW_UPS: usize = 16;

/// A Dialog box of a behavior: its path (`behavior_1/root/Talk`), the memory prefix of its
/// ports, and its topic.
pub struct DialogBox {
    /// Its path, `behavior_1/root/Talk`.
    pub path: String,
    prefix: String,
    topic: String,
}

/// What the engine runs beside in the terminal: variables in a map, the wall clock, a
/// simulated NAO whose services `^call` calls (as ALDialog on the simulated robot does), and
/// the embedded CPython for `%script`.
pub struct ChatHost {
    /// ALMemory's keys as the dialog sees them.
    pub memory: HashMap<String, String>,
    /// The simulated robot `^call` calls, once made.
    pub robot: Option<choreo_naoqi::SimRobot>,
    /// Of `%script` (the project's code); `None`: `--no-sandbox`.
    pub confinement: Option<std::sync::Arc<choreo_python::confinement::Confinement>>,
    /// Where `%script` runs: a box host of its own, started at the first one (a chat
    /// without scripts starts no interpreter), or this process's confined threads.
    pub scripts: Scripts,
}

/// Where a chat's `%script` runs.
pub enum Scripts {
    /// In a box host of its own (the default), once started; with the bound on its memory.
    BoxHost(
        Option<std::sync::Arc<choreo_python::remote::BoxHost>>,
        Option<u64>,
    ),
    /// On this process's threads (`--sandbox=threads`, `--no-sandbox`).
    Here,
}

impl Host for ChatHost {
    fn get(&self, key: &str) -> Option<String> {
        self.memory.get(key).cloned()
    }
    fn set(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => self.memory.insert(key.to_string(), v.to_string()),
            None => self.memory.remove(key),
        };
    }
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
    }
    fn call(
        &mut self,
        service: &str,
        method: &str,
        args: &[CallArg],
    ) -> Result<Option<String>, HostError> {
        self.robot
            .get_or_insert_with(|| choreo_naoqi::SimRobot::new(choreo_naoqi::Model::Nao))
            .dialog_call(service, method, args)
    }
    fn script(&mut self, code: &str) -> Result<String, HostError> {
        let raised = |exception: String| HostError::Raised { exception };
        let (Scripts::BoxHost(host, memory), Some(confinement)) =
            (&mut self.scripts, &self.confinement)
        else {
            return crate::api::dialog_script(code, self.confinement.as_ref());
        };
        let host = match host {
            Some(host) => host,
            None => {
                let boxes = crate::nested::BoxCode::in_box_host(
                    std::sync::Arc::clone(confinement),
                    *memory,
                )
                .map_err(|e| raised(e.to_string()))?;
                match boxes.host {
                    Some(started) => host.insert(started),
                    // No program can serve as one (said once): this process's threads.
                    None => return crate::api::dialog_script(code, Some(confinement)),
                }
            }
        };
        host.dialog_script(code).map_err(|e| raised(e.exception))
    }
}

/// A conversation: the engine, its memory, where each topic came from, the Dialog boxes.
pub struct Session {
    /// The dialog engine.
    pub dialog: Dialog,
    /// What it runs beside.
    pub memory: ChatHost,
    /// Topic name → the file shown for it.
    pub files: Vec<(String, String)>,
    /// The Dialog boxes of the behaviors added.
    pub boxes: Vec<DialogBox>,
}

impl Session {
    /// A conversation with no topic yet: the dialog engine's `^rand` seeded with `seed` (the
    /// same seed, the same conversation); `%script` run where `scripts` says, confined to
    /// reading the folders of `paths` (the topics and behaviors to add) and what `allowed`
    /// allows, or unconfined (`None`: `--no-sandbox`).
    pub fn new(
        seed: u64,
        paths: &[PathBuf],
        allowed: Option<crate::Allowed>,
        scripts: Scripts,
    ) -> Session {
        let confinement = allowed.map(|allowed| {
            let read: Vec<PathBuf> = paths
                .iter()
                .map(|p| match p.is_dir() {
                    true => p.clone(),
                    false => p
                        .parent()
                        .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
                })
                .collect();
            std::sync::Arc::new(choreo_python::confinement::Confinement::new(
                &[],
                &read,
                allowed,
            ))
        });
        Session {
            dialog: Dialog::new(seed),
            memory: ChatHost {
                memory: HashMap::new(),
                robot: None,
                confinement,
                scripts,
            },
            files: Vec::new(),
            boxes: Vec::new(),
        }
    }

    /// Adds a topic, a `.dlg`'s topic in `lang`, or a behavior's Dialog boxes.
    /// `warn` is told each warning and notice of the topics read.
    pub fn add(&mut self, path: &Path, lang: &str, warn: &mut dyn FnMut(String)) -> ChatResult<()> {
        let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        match extension.as_deref() {
            Some("top") => self
                .load_topic(path, path.display().to_string(), warn)
                .map(|name| {
                    self.dialog.activate(&name);
                }),
            Some("dlg") => {
                let topic = dlg_topic(path, &path.display().to_string(), lang)?;
                let name = self.load_topic(&topic, topic.display().to_string(), warn)?;
                self.dialog.activate(&name);
                Ok(())
            }
            _ => self.add_behavior(path, lang, warn),
        }
    }

    /// Loads the topic at `path` (with the concepts of the files it includes), named
    /// `shown` in messages; its name.
    fn load_topic(
        &mut self,
        path: &Path,
        shown: String,
        warn: &mut dyn FnMut(String),
    ) -> ChatResult<String> {
        let bytes = std::fs::read(path)
            .map_err(|e| ChatError::Load(format!("{shown}: cannot read: {e}")))?;
        let mut topic = match choreo_qichat::parse(&shown, &bytes) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    warn(w.to_string());
                }
                for n in choreo_qichat::notices(&parsed.topic, &shown) {
                    warn(n.to_string());
                }
                parsed.topic
            }
            Err(errors) if errors.is_empty() => return Err(ChatError::Unsaid),
            Err(errors) => {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                return Err(ChatError::Load(lines.join("\n")));
            }
        };
        let folder = path.parent().unwrap_or(Path::new("."));
        let mut read = |name: &str| {
            std::fs::read(folder.join(name)).map_err(|e| format!("cannot read {name}: {e}").into())
        };
        if let Err(e) = choreo_qichat::include(&mut topic, &mut read) {
            return Err(ChatError::Load(format!("{shown}: {e}")));
        }
        let name = self.dialog.load(topic);
        self.files.push((name.clone(), shown));
        Ok(name)
    }

    /// Loads the topics of every Dialog box of the behaviors at `path`, in `lang`.
    fn add_behavior(
        &mut self,
        path: &Path,
        lang: &str,
        warn: &mut dyn FnMut(String),
    ) -> ChatResult<()> {
        let project = choreo_xar::source::load_path_to_run(path)
            .map_err(|e| ChatError::Load(e.to_string()))?;
        let files = project
            .on_disk()
            .map_err(|e| ChatError::Load(e.to_string()))?;
        let before = self.boxes.len();
        for behavior in &project.behaviors {
            let folder = files.behavior_dir(behavior);
            let at = choreo_xar::source::Project::behavior_folder(behavior);
            let mut todo: Vec<(&BoxDef, String)> = vec![(&behavior.xar.root_box, "root".into())];
            while let Some((def, box_path)) = todo.pop() {
                for d in def.diagrams() {
                    for b in d.boxes.iter().rev() {
                        todo.push((b, format!("{box_path}/{}", b.name)));
                    }
                }
                let Some(file) = &def.dialog_file else {
                    continue;
                };
                // Files named as the project's members: `project.pml!dialogs/x_enu.top`.
                let member = |p: &Path| {
                    let inside = tidy(p.strip_prefix(files.path()).unwrap_or(p));
                    format!("{}!{inside}", path.display())
                };
                let dlg = folder.join(file);
                let top = dlg_topic(&dlg, &member(&dlg), lang)?;
                let topic = self.load_topic(&top, member(&top), warn)?;
                let shown = if at.is_empty() {
                    box_path
                } else {
                    format!("{at}/{box_path}")
                };
                let prefix = format!("{shown}/");
                let ports = def
                    .inputs
                    .iter()
                    .filter(|i| i.nature != InputNature::OnLoad)
                    .map(|i| &i.name)
                    .chain(def.outputs.iter().map(|o| &o.name));
                for port in ports {
                    self.dialog
                        .set_variable_path(&topic, port, &format!("{prefix}{port}"));
                }
                self.boxes.push(DialogBox {
                    path: shown,
                    prefix,
                    topic,
                });
            }
        }
        if self.boxes.len() == before {
            return Err(ChatError::Load(format!(
                "{}: no Dialog box",
                path.display()
            )));
        }
        Ok(())
    }

    /// Starts every Dialog box, as its onStart does: its topic activated, its `onStart`
    /// event raised. The answers, in order.
    pub fn start(&mut self) -> Vec<Answer> {
        let keys: Vec<String> = self
            .boxes
            .iter()
            .map(|b| format!("{}onStart", b.prefix))
            .collect();
        for b in &self.boxes {
            self.dialog.activate(&b.topic);
        }
        let mut answers = Vec::new();
        for key in keys {
            answers.extend(self.hear(&format!("e:{key}")).into_iter().flatten());
        }
        answers
    }

    /// What the human said (or `e:Key`, an event): the answer, then those its memory writes
    /// set off (`e:` rules of their keys); a Dialog box whose onStopped is set stops.
    pub fn hear(&mut self, line: &str) -> Vec<Option<Answer>> {
        let first = match line.strip_prefix("e:") {
            Some(key) => self.dialog.event(key.trim(), &mut self.memory),
            None => self.dialog.input(line, &mut self.memory),
        };
        let mut out = vec![first];
        let mut i = 0;
        while i < out.len() && out.len() <= MAX_FOLLOW_UPS {
            let keys: Vec<String> = out[i]
                .iter()
                .flat_map(|a| a.steps.iter())
                .filter_map(|s| match s {
                    Step::Set { key, .. } => Some(key.clone()),
                    _ => None,
                })
                .collect();
            for key in keys {
                if let Some(b) = self
                    .boxes
                    .iter()
                    .find(|b| key == format!("{}onStopped", b.prefix))
                {
                    let topic = b.topic.clone();
                    self.dialog.deactivate(&topic);
                }
                if let Some(next) = self.dialog.event(&key, &mut self.memory) {
                    out.push(Some(next));
                }
            }
            i += 1;
        }
        out
    }

    /// The answer as printed: `robot: text`, the rule that gave it, then what it does
    /// besides speaking (actions, memory writes, a Dialog box's outputs).
    pub fn show(&self, answer: Option<&Answer>) -> String {
        let Some(a) = answer else {
            return "robot: (no rule matches)".to_string();
        };
        let file = self
            .files
            .iter()
            .find(|(n, _)| *n == a.topic)
            .map_or(a.topic.as_str(), |(_, p)| p.as_str());
        let said = if a.failed {
            "(nothing valid to say)"
        } else {
            a.text.as_str()
        };
        let mut out = format!("robot: {said}   [{file}:{}]", a.rule.line);
        for step in &a.steps {
            let line = match step {
                Step::Say(_) => continue,
                Step::Do(action) => match action {
                    Action::Animated { function, arg } => format!("{function}: {arg}"),
                    Action::Play(sound) => format!("play: {sound}"),
                    Action::SwitchFocus(b) => format!("switch focus: {b}"),
                    Action::Call {
                        service, method, ..
                    } => format!("call without waiting: {service}.{method}"),
                    Action::EndDiscuss(r) => format!("end of discussion: {r}"),
                    Action::Notice(n) => format!("notice: {n}"),
                },
                Step::Set { key, value } => {
                    let port = self
                        .boxes
                        .iter()
                        .find_map(|b| Some((b, key.strip_prefix(&b.prefix)?)));
                    match (port, value) {
                        (Some((b, port)), _) => format!("{}: output {port}", b.path),
                        (None, Some(v)) => format!("${key} = {v}"),
                        (None, None) => format!("${key} cleared"),
                    }
                }
            };
            out.push_str(&format!("\n       ({line})"));
        }
        out
    }
}

/// `path` with `a/../` and `./` taken out, `/` between its parts.
fn tidy(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// The `.top` file of `.dlg` file `path` in `lang`, or why there is none.
fn dlg_topic(path: &Path, shown: &str, lang: &str) -> ChatResult<PathBuf> {
    let bytes =
        std::fs::read(path).map_err(|e| ChatError::Load(format!("{shown}: cannot read: {e}")))?;
    let dialog = choreo_xar::project_files::read_dlg(shown, &bytes)
        .map_err(|e| ChatError::Load(e.to_string()))?
        .value;
    let Some(topic) = dialog.topics.iter().find(|t| t.language == lang) else {
        let langs: Vec<&str> = dialog.topics.iter().map(|t| t.language.as_str()).collect();
        return Err(ChatError::Load(format!(
            "{shown}: no topic in {lang} (it has: {}); choose one with --lang",
            langs.join(", ")
        )));
    };
    Ok(path.parent().unwrap_or(Path::new(".")).join(&topic.file))
}
