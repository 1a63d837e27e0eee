//! `choreo stack`: behavior stacks defined in JSON (crates/choreo-stack). `check` validates
//! every definition of a folder and the tree they make; `tree` prints the delegation tree
//! from the base, as `GetAllDelegates` gives it.

use std::path::{Path, PathBuf};

use choreo_stack::definitions::definition::{Definition, load_dir};
use choreo_stack::{LoadError, Options, Runner};
use clap::Subcommand;

use crate::cli::error::{CliError, CliResult};
use crate::cli::stack_run::StackRunArgs;
use crate::exit;
use crate::report::live::Verbosity;

/// `choreo stack ...`.
#[derive(Subcommand)]
// Parsed once per process: the size of its largest variant does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum StackCommand {
    /// Validate every definition of a folder and the tree they make (exit 1 on an error).
    #[command(after_help = crate::cli::help::STACK)]
    Check {
        /// The folder of behavior definitions (*.json).
        dir: PathBuf,
        /// The base behavior; by default the one behavior no other delegates to.
        #[arg(long)]
        base: Option<String>,
    },
    /// Run a stack on the simulated robot: its changes live, a report at the end. Ctrl-C
    /// cancels the stack top-down.
    #[command(after_help = crate::cli::help::STACK)]
    Run(StackRunArgs),
    /// Print the delegation tree from the base (what each behavior may delegate to).
    #[command(after_help = crate::cli::help::STACK)]
    Tree {
        /// The folder of behavior definitions (*.json).
        dir: PathBuf,
        /// The base behavior; by default the one behavior no other delegates to.
        #[arg(long)]
        base: Option<String>,
    },
}

/// Hands `choreo stack ...` to its command.
pub fn run(command: StackCommand) -> CliResult {
    match command {
        StackCommand::Check { dir, base } => check(&dir, base.as_deref()),
        StackCommand::Tree { dir, base } => tree(&dir, base.as_deref()),
        StackCommand::Run(args) => crate::cli::stack_run::run(&args),
    }
}

/// Loads `dir` into a runner (never ticked): the definitions and the runner, or why not
/// (exit 1: a definition or the tree is wrong; 4: the folder cannot be read).
pub(crate) fn load(dir: &Path, base: Option<&str>) -> CliResult<(Vec<Definition>, Runner)> {
    let defs = match load_dir(dir) {
        Ok(d) => d,
        Err(e) => {
            let message = e.to_string();
            return Err(if e.line.is_none() && e.file == dir {
                CliError::Load(message)
            } else {
                CliError::No(message)
            });
        }
    };
    // The Choregraphe behaviors the leaves play are loaded too: a path that does not load is
    // an error of the stack.
    let installed = crate::cli::stack_run::install(dir, &defs, Verbosity::Quiet)
        .map_err(|e| e.recoded(CliError::No))?;
    // The Python behaviors' code runs as they load: confined as `stack run` confines it
    // without flags (the stack's folder to read, nothing to write; in a box host;
    // docs/security.md).
    let folder = dir.to_path_buf();
    let own: crate::stack_driver::OwnCode = std::sync::LazyLock::new(Box::new(move || {
        let confinement = std::sync::Arc::new(choreo_python::confinement::Confinement::new(
            &[],
            &[folder],
            crate::Allowed::default(),
        ));
        crate::nested::BoxCode::in_box_host(confinement, None)
            .map_err(|e| crate::stack_driver::NoBoxCode(e.to_string()))
    }));
    let classes = crate::stack_driver::classes(dir, &installed, std::sync::Arc::new(own));
    match classes.build(&defs, base, Options::default()) {
        Ok(r) => Ok((defs, r)),
        Err(e) => {
            let where_ = match &e {
                LoadError::Definition(_) => String::new(),
                _ => format!("{}: ", dir.display()),
            };
            Err(CliError::No(format!("{where_}{e}")))
        }
    }
}

/// `choreo stack check DIR`: 0 if every definition is valid and they make a stack.
pub fn check(dir: &Path, base: Option<&str>) -> CliResult {
    let (defs, runner) = load(dir, base)?;
    let seen: std::collections::BTreeSet<usize> = runner
        .delegation_tree()
        .iter()
        .map(|(b, _)| b.index())
        .collect();
    let total = runner.names().len();
    outln!(
        "{}: {} behaviors ({} anonymous), base {}, {} reachable from it",
        dir.display(),
        total,
        defs.iter().filter(|d| d.owner.is_some()).count(),
        runner.names()[runner.base().index()],
        seen.len()
    );
    for (i, name) in runner.names().iter().enumerate() {
        if !seen.contains(&i) {
            outln!("warning: {name} is not reachable from the base");
        }
    }
    Ok(exit::OK)
}

/// `choreo stack tree DIR`: the delegation tree from the base, one behavior a line.
pub fn tree(dir: &Path, base: Option<&str>) -> CliResult {
    let (defs, runner) = load(dir, base)?;
    let class = |name: &str| {
        defs.iter()
            .find(|d| d.id == name || format!("@{}", d.id) == name)
            .map_or("?", |d| d.class.as_str())
    };
    let mut printed = std::collections::BTreeSet::new();
    for (b, depth) in runner.delegation_tree() {
        let name = &runner.names()[b.index()];
        let again = !printed.insert(b.index());
        let linked = if runner.linked_of(b).is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = runner
                .linked_of(b)
                .iter()
                .map(|l| runner.names()[l.index()].as_str())
                .collect();
            format!(", linked: {}", names.join(", "))
        };
        if again {
            outln!("{}{name} (see above)", "  ".repeat(depth));
        } else {
            outln!("{}{name} ({}{linked})", "  ".repeat(depth), class(name));
        }
    }
    Ok(exit::OK)
}
