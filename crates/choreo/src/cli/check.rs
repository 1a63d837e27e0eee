//! `choreo check`: per-file validation of every Choregraphe format ([`crate::check`]), with
//! a progress bar, the files' results and a summary.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::check::{Options, check, files};
use crate::cli::error::{CliError, CliResult};
use crate::exit;

/// `choreo check`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Files or folders to check.
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// One JSON object per file on stdout, then a summary object.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print only files with warnings or errors, and the summary.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Also judge every motion timeline's physics without running it: where the robot
    /// would fall, keys its motors reach late, arms meeting the body (warnings).
    #[arg(long)]
    pub(crate) body: bool,
    /// Check every file anew, neither reading nor writing the cache of results in the
    /// user's cache folder (`$XDG_CACHE_HOME/choreo`): for CI, or to time the check.
    #[arg(long)]
    pub(crate) no_cache: bool,
}

/// Above this many files, a progress bar is shown on stderr (when it is a terminal).
const PROGRESS_THRESHOLD: usize = 20;

/// Checks every file under `paths` (exit 1 when one has errors) and says what is found
/// file by file, in order, then the summary.
pub fn run(args: &CheckArgs) -> CliResult {
    let files = files(&args.paths).map_err(|e| CliError::Usage(e.to_string()))?;
    let bar = if files.len() > PROGRESS_THRESHOLD && !args.json {
        let bar = ProgressBar::new(files.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let options = Options {
        body: args.body,
        cache: !args.no_cache,
    };
    let shown = check(&files, options, &|| bar.inc(1));
    bar.finish_and_clear();
    let mut tally = Tally::default();
    for s in &shown {
        tally.add(&s.status);
        if args.json {
            outln!("{}", s.json);
        } else if !(args.quiet && s.status == "ok") {
            out!("{}", s.text);
        }
    }
    if args.json {
        outln!(
            "{}",
            json!({"summary": {"files": tally.files, "ok": tally.ok, "warnings": tally.warned,
                "errors": tally.failed}})
        );
    } else {
        outln!(
            "checked {} file(s): {} ok, {} with warnings, {} with errors",
            tally.files,
            tally.ok,
            tally.warned,
            tally.failed
        );
    }
    Ok(if tally.failed > 0 { exit::NO } else { exit::OK })
}

#[derive(Default)]
struct Tally {
    files: usize,
    ok: usize,
    warned: usize,
    failed: usize,
}

impl Tally {
    /// Counts a file of `status` (`ok`, `warn` or `error`).
    fn add(&mut self, status: &str) {
        self.files += 1;
        match status {
            "error" => self.failed += 1,
            "warn" => self.warned += 1,
            _ => self.ok += 1,
        }
    }
}
