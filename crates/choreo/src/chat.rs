//! `choreo chat TOPIC.top...`: talk with QiChat topics in the terminal (or through a pipe):
//! each line read is what the human says, and the robot's answer is printed with the rule
//! that gave it. `--script FILE` plays a written conversation and checks the answers.

use std::collections::HashMap;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use choreo_qichat::dialog::{Action, Answer, Dialog};

use crate::exit;

/// What `choreo chat` was asked.
pub struct ChatArgs {
    /// The `.top` files, or `.dlg` files (their topic in `lang`); all loaded and activated,
    /// the first in focus.
    pub topics: Vec<PathBuf>,
    /// The language of the `.dlg` files' topics (`enu`, `frf`, ...).
    pub lang: String,
    /// A conversation to check instead of reading standard input.
    pub script: Option<PathBuf>,
    /// The seed of `^rand`.
    pub seed: u64,
}

/// Runs the chat; returns the exit code (4: a topic does not parse; 1: the script's
/// expectations were not all met).
pub fn run(args: &ChatArgs) -> u8 {
    let mut dialog = Dialog::new(args.seed);
    let mut files = Vec::new();
    let mut paths = Vec::new();
    for path in &args.topics {
        match dlg_topic(path, &args.lang) {
            Ok(p) => paths.push(p),
            Err(code) => return code,
        }
    }
    for path in &paths {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                errln!("{}: cannot read: {e}", path.display());
                return exit::LOAD;
            }
        };
        match choreo_qichat::parse(&path.display().to_string(), &bytes) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    errln!("{w}");
                }
                let name = dialog.load(parsed.topic);
                dialog.activate(&name);
                files.push((name, path.clone()));
            }
            Err(errors) => {
                for e in errors {
                    errln!("{e}");
                }
                return exit::LOAD;
            }
        }
    }
    let mut memory = HashMap::new();
    match &args.script {
        Some(script) => run_script(&mut dialog, &mut memory, &files, script),
        None => {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else {
                    break;
                };
                if line.trim().is_empty() {
                    continue;
                }
                let answer = dialog.input(&line, &mut memory);
                outln!("{}", show(answer.as_ref(), &files));
            }
            exit::OK
        }
    }
}

/// The `.top` file to load for `path`: itself, or for a `.dlg` its topic in `lang` (the
/// exit code after saying why, when there is none).
fn dlg_topic(path: &Path, lang: &str) -> Result<PathBuf, u8> {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("dlg"))
    {
        return Ok(path.to_path_buf());
    }
    let bytes = std::fs::read(path).map_err(|e| {
        errln!("{}: cannot read: {e}", path.display());
        exit::LOAD
    })?;
    let dialog = choreo_xar::package::read_dlg(&path.display().to_string(), &bytes)
        .map_err(|e| {
            errln!("{e}");
            exit::LOAD
        })?
        .value;
    let Some(topic) = dialog.topics.iter().find(|t| t.language == lang) else {
        let langs: Vec<&str> = dialog.topics.iter().map(|t| t.language.as_str()).collect();
        errln!(
            "{}: no topic in {lang} (it has: {}); choose one with --lang",
            path.display(),
            langs.join(", ")
        );
        return Err(exit::LOAD);
    };
    Ok(path.parent().unwrap_or(Path::new(".")).join(&topic.file))
}

/// The answer as printed: `robot: text`, the rule that gave it, the actions.
fn show(answer: Option<&Answer>, files: &[(String, PathBuf)]) -> String {
    let Some(a) = answer else {
        return "robot: (no rule matches)".to_string();
    };
    let file = files
        .iter()
        .find(|(n, _)| *n == a.topic)
        .map_or_else(|| a.topic.clone(), |(_, p)| p.display().to_string());
    let mut out = format!("robot: {}   [{file}:{}]", a.text, a.rule.line);
    for action in a.actions() {
        let (what, arg) = match action {
            Action::Start(b) => ("start", b.as_str()),
            Action::Run(b) => ("run", b.as_str()),
            Action::Stop(b) => ("stop", b.as_str()),
            Action::Wait(b) => ("wait", b.as_str()),
            Action::EndDiscuss(r) => ("end of discussion", r.as_str()),
            Action::Unsupported(f) => ("not supported here", f.as_str()),
        };
        out.push_str(&format!("\n       ({what}: {arg})"));
    }
    out
}

/// Plays `script`: `> what the human says` lines, each followed by the robot's expected
/// answer on a `< ...` line (`< *`: anything; `<` alone: no answer). Comments start with `#`.
fn run_script(
    dialog: &mut Dialog,
    memory: &mut HashMap<String, String>,
    files: &[(String, PathBuf)],
    script: &Path,
) -> u8 {
    let text = match std::fs::read_to_string(script) {
        Ok(t) => t,
        Err(e) => {
            errln!("{}: cannot read: {e}", script.display());
            return exit::LOAD;
        }
    };
    let mut last: Option<Option<Answer>> = None;
    let mut failures = 0;
    let mut checks = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(said) = line.strip_prefix('>') {
            let answer = dialog.input(said.trim(), memory);
            outln!("human: {}", said.trim());
            outln!("{}", show(answer.as_ref(), files));
            last = Some(answer);
        } else if let Some(expected) = line.strip_prefix('<') {
            let expected = expected.trim();
            checks += 1;
            let Some(got) = &last else {
                errln!(
                    "{}:{}: an expected answer with nothing said before it",
                    script.display(),
                    n + 1
                );
                failures += 1;
                continue;
            };
            let ok = match (expected, got) {
                ("*", Some(_)) | ("", None) => true,
                (e, Some(a)) => a.text.eq_ignore_ascii_case(e),
                _ => false,
            };
            if !ok {
                failures += 1;
                let got = got.as_ref().map_or("(no answer)", |a| a.text.as_str());
                errln!(
                    "{}:{}: expected {:?}, the robot said {got:?}",
                    script.display(),
                    n + 1,
                    if expected.is_empty() {
                        "(no answer)"
                    } else {
                        expected
                    }
                );
            }
        } else if !line.is_empty() && !line.starts_with('#') {
            errln!(
                "{}:{}: a line must start with '>', '<' or '#'",
                script.display(),
                n + 1
            );
            failures += 1;
        }
    }
    outln!("{checks} answers checked, {failures} wrong");
    if failures == 0 { exit::OK } else { exit::NO }
}
