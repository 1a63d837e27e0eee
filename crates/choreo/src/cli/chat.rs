//! `choreo chat TOPIC.top|DIALOG.dlg|BEHAVIOR...`: talk with QiChat topics in the terminal
//! (or through a pipe): each line read is what the human says (`e:Key` raises a memory
//! event instead), and the robot's answer is printed with the rule that gave it. A
//! behavior (a project, an archive, a `.xar`) brings its Dialog boxes: their topics are
//! loaded with the box's ports bound as the stock Dialog box binds them, and each box
//! starts (its `e:onStart` rules answer first). `--script FILE` plays a written
//! conversation and checks the answers.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use choreo_qichat::dialog::Answer;

use crate::cli::error::{CliError, CliResult};
use crate::exit;

use crate::chat::{ChatError, Scripts, Session};

/// `choreo chat`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct ChatArgs {
    /// .top files, .dlg files (their topic in --lang), or behaviors (a project, an
    /// archive, a .xar: their Dialog boxes, started); all active, the first in focus.
    #[arg(required = true)]
    pub(crate) topics: Vec<PathBuf>,
    /// The language of the .dlg files' and Dialog boxes' topics (QiChat codes: enu, frf,
    /// ged, iti, jpj, ...).
    #[arg(long, default_value = "enu")]
    pub(crate) lang: String,
    /// Play this conversation instead of reading standard input: `> what the human
    /// says`, then `< the answer expected` (`< *`: any answer; `<` alone: none). Exit 1
    /// if an answer differs.
    #[arg(long, value_name = "FILE")]
    pub(crate) script: Option<PathBuf>,
    /// The seed of `^rand` (the same seed, the same conversation).
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// The dialogs' `%script` blocks are the project's code: confined and supervised as
    /// `choreo run`'s box code, with the same flags (docs/security.md).
    #[command(flatten)]
    pub(crate) sandbox: crate::cli::args::sandbox::SandboxFlags,
}

/// Runs the chat (exit 4: a topic does not parse or a behavior does not load; 1: the
/// script's expectations were not all met).
pub fn run(args: &ChatArgs) -> CliResult {
    if let Some(code) = args.sandbox.enter(false) {
        return Ok(code);
    }
    let scripts = match args.sandbox.box_host() {
        true => Scripts::BoxHost(None, args.sandbox.max_memory),
        false => Scripts::Here,
    };
    let mut session = Session::new(args.seed, &args.topics, args.sandbox.allowed(), scripts);
    for path in &args.topics {
        session
            .add(path, &args.lang, &mut |w| errln!("{w}"))
            .map_err(|e| match e {
                ChatError::Load(m) => CliError::Load(m),
                ChatError::Unsaid => CliError::Shown(exit::LOAD),
            })?;
    }
    let started = session.start();
    for answer in &started {
        outln!("{}", session.show(Some(answer)));
    }
    match &args.script {
        Some(script) => run_script(&mut session, started.into_iter().next(), script),
        None => {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else {
                    break;
                };
                if line.trim().is_empty() {
                    continue;
                }
                for answer in session.hear(line.trim()) {
                    outln!("{}", session.show(answer.as_ref()));
                }
            }
            Ok(exit::OK)
        }
    }
}

/// Plays `script`: `> what the human says` lines (or `> e:Key` events), each followed by
/// the robot's expected answer on a `< ...` line (`< *`: anything; `<` alone: no answer);
/// a `<` line before any `>` checks the first answer of the Dialog boxes' start. Comments
/// start with `#`.
fn run_script(session: &mut Session, started: Option<Answer>, script: &Path) -> CliResult {
    let text = match std::fs::read_to_string(script) {
        Ok(t) => t,
        Err(e) => {
            return Err(CliError::Load(format!(
                "{}: cannot read: {e}",
                script.display()
            )));
        }
    };
    let mut last: Option<Option<Answer>> = (!session.boxes.is_empty()).then_some(started);
    let mut failures = 0;
    let mut checks = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(said) = line.strip_prefix('>') {
            outln!("human: {}", said.trim());
            let answers = session.hear(said.trim());
            for answer in &answers {
                outln!("{}", session.show(answer.as_ref()));
            }
            last = answers.into_iter().next();
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
            let said = got.as_ref().map(|a| a.text.as_str()).unwrap_or_default();
            let ok = match expected {
                "*" => !said.is_empty(),
                e => said.eq_ignore_ascii_case(e),
            };
            if !ok {
                failures += 1;
                let got = if said.is_empty() {
                    "nothing".to_string()
                } else {
                    format!("{said:?}")
                };
                errln!(
                    "{}:{}: expected {:?}, the robot said {got}",
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
    Ok(if failures == 0 { exit::OK } else { exit::NO })
}
