//! `choreo export-python X -o main.py`: a behavior as a small Python program that runs it with
//! the `choreo` package, on a robot (`python main.py IP [PORT]`, as QiCore's `main.py` meant
//! to) or on the simulated one (`python main.py`). The program names the input by its path
//! relative to the program's own folder, so the two can move together.

use std::path::PathBuf;

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::exit;

/// `choreo export-python`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct ExportArgs {
    /// The behavior: a .xar, project folder, .pml, .crg, .pkg or split folder.
    pub(crate) path: PathBuf,
    /// The program to write.
    #[arg(short, long, default_value = "main.py")]
    pub(crate) output: PathBuf,
    /// The behavior of a project (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// Replace an existing file.
    #[arg(long)]
    pub(crate) force: bool,
}

/// Writes the program.
pub fn export(args: &ExportArgs) -> CliResult {
    let project = input::load(&args.path, false)?;
    let project = crate::Project::new(&args.path, std::sync::Arc::new(project));
    let name = project
        .behavior(args.behavior.as_deref())
        .map_err(|e| CliError::Load(e.to_string()))?
        .behavior()
        .name
        .clone();
    if args.output.exists() && !args.force {
        return Err(CliError::Write(format!(
            "{}: already exists (--force replaces it)",
            args.output.display()
        )));
    }
    let folder = match args.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let text = match crate::export_python::program(&args.path, &folder, &name) {
        Ok(text) => text,
        Err(e) => {
            return Err(CliError::Usage(format!("{}: {e}", args.path.display())));
        }
    };
    match std::fs::write(&args.output, text) {
        Ok(()) => {
            outln!(
                "wrote {} (python {} [IP [PORT]] runs {name})",
                args.output.display(),
                args.output.display()
            );
            Ok(exit::OK)
        }
        Err(e) => Err(CliError::Write(format!(
            "{}: cannot write: {e}",
            args.output.display()
        ))),
    }
}
