//! The rules of the house for every crate of the workspace (docs/architecture.md, "Rules
//! kept by the suite"): no import circle between the files of a crate, arrows between
//! crates pointing down the layers, and no source file or function longer than the limits
//! unless listed below with its reason. A new crate, file or function is covered without
//! being named here.

use std::path::Path;

use choreo_testkit::architecture::{
    LONG_FILE, LONG_FUNCTION, arrow_faults, circles, crates, doc_paths, file_lengths, functions,
    module_graph, string_errors, unused_dependencies, workspace_root,
};

fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn every_crate_keeps_the_rules() {
    let root = dunce::canonicalize(workspace_root()).expect("the workspace root");
    let all = crates(&root);
    assert!(all.len() >= 10, "found only {all:?}");
    let mut faults = Vec::new();
    for krate in &all {
        faults.extend(arrow_faults(krate));
        for dep in unused_dependencies(krate) {
            faults.push(format!(
                "{}: depends on {dep}, which its code never names",
                krate.name
            ));
        }
        for circle in circles(&module_graph(&krate.dir.join("src"))) {
            faults.push(format!(
                "{}: an import circle between {} files: {}",
                krate.name,
                circle.len(),
                circle.join(", ")
            ));
        }
        for (path, lines) in file_lengths(&krate.dir) {
            let rel = relative(&root, &path);
            if lines > LONG_FILE {
                faults.push(format!("{rel}: {lines} lines (over {LONG_FILE}: split it)"));
            }
        }
        for (path, _) in file_lengths(&krate.dir.join("src")) {
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = relative(&root, &path);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (line, name) in string_errors(&text) {
                faults.push(format!(
                    "{rel}:{line}: {name} gives a public error as a String (give it a type)"
                ));
            }
            for (name, line, len) in functions(&text) {
                if len > LONG_FUNCTION {
                    faults.push(format!(
                        "{rel}:{line}: fn {name} is {len} lines (over {LONG_FUNCTION}: split it)"
                    ));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = dunce::canonicalize(workspace_root()).expect("the workspace root");
    let mut docs = vec![root.join("README.md")];
    docs.extend(choreo_testkit::files_under(&root.join("docs"), &|p| {
        choreo_testkit::has_extension(p, &["md"])
    }));
    let mut missing = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        for (line, path) in doc_paths(&text) {
            if !root.join(&path).exists() {
                missing.push(format!("{}:{line}: {path}", relative(&root, &doc)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The most lines a file of the command line may have: it parses, shows and exits; the work
/// is the API's and the libraries'.
const CLI_FILE: usize = 400;

/// The most lines the whole command line may have (`crates/choreo/src/cli/`).
const CLI_TOTAL: usize = 6_000;

/// What the command line's own plumbing is called: its entry (`mod`), the arguments and
/// options commands share (`args`), errors and exit codes, help texts, the inputs read and
/// the output written. Every other file or folder of `cli/` is named after a command.
const CLI_PLUMBING: &[&str] = &["mod", "args", "error", "help", "input", "output"];

/// Types whose one definition is the workspace's (`kind name`): how a run ends, what sets a
/// run up.
const ONE_HOME: &[&str] = &["enum Ending", "struct Setup", "enum Outcome"];

#[test]
fn the_command_line_is_thin_and_each_fact_has_one_home() {
    let root = dunce::canonicalize(workspace_root()).expect("the workspace root");
    let cli = root.join("crates/choreo/src/cli");
    let mut faults = Vec::new();
    let mut total = 0;
    for (path, lines) in file_lengths(&cli) {
        total += lines;
        if lines > CLI_FILE {
            let rel = relative(&root, &path);
            faults.push(format!(
                "{rel}: {lines} lines, a command line file has {CLI_FILE} at most"
            ));
        }
    }
    if total > CLI_TOTAL {
        faults.push(format!(
            "crates/choreo/src/cli: {total} lines, the command line has {CLI_TOTAL} at most \
             (move what is not parsing and printing into the API)"
        ));
    }
    faults.extend(cli_names_faults(&cli));
    let mut sources = Vec::new();
    for krate in crates(&root) {
        sources.extend(choreo_testkit::files_under(&krate.dir.join("src"), &|p| {
            choreo_testkit::has_extension(p, &["rs"])
        }));
    }
    let mut homes: Vec<Vec<String>> = vec![Vec::new(); ONE_HOME.len()];
    for path in &sources {
        let rel = relative(&root, path);
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines() {
            let code = line
                .trim_start()
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            for (i, item) in ONE_HOME.iter().enumerate() {
                if code.starts_with(&format!("{item} ")) || code.starts_with(&format!("{item}<")) {
                    homes[i].push(rel.clone());
                }
            }
            // The poison-tolerant lock is choreo-base's: no copy elsewhere.
            if code.starts_with("fn lock<") && !rel.starts_with("crates/choreo-base/") {
                faults.push(format!(
                    "{rel}: a lock helper of its own (use choreo_base::lock)"
                ));
            }
        }
    }
    for (item, files) in ONE_HOME.iter().zip(&homes) {
        if files.len() != 1 {
            faults.push(format!(
                "{item} is defined {} times: {files:?}",
                files.len()
            ));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The files and folders of `cli/` named neither after a command nor as plumbing: a
/// command is a module the argument types of a `Subcommand` variant come from
/// (`Run(run::RunArgs)`, `Run(StackRunArgs)` imported from `stack_run`).
fn cli_names_faults(cli: &Path) -> Vec<String> {
    let mut commands: Vec<String> = Vec::new();
    for path in choreo_testkit::files_under(cli, &|p| choreo_testkit::has_extension(p, &["rs"])) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim();
            // `Run(run::RunArgs),` and `use crate::cli::stack_run::StackRunArgs;`
            let payload = line
                .split_once('(')
                .map(|(_, rest)| rest)
                .or_else(|| line.strip_prefix("use crate::cli::"));
            let Some(payload) = payload else { continue };
            if let Some((module, ty)) = payload.split_once("::")
                && (ty.contains("Args") || ty.contains("Command"))
                && module.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            {
                commands.push(module.to_string());
            }
        }
    }
    let mut faults = Vec::new();
    for entry in std::fs::read_dir(cli).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = match path.extension() {
            Some(e) if e == "rs" => path.file_stem(),
            Some(_) => continue,
            None => path.file_name(),
        };
        let name = name
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !CLI_PLUMBING.contains(&name.as_str()) && !commands.contains(&name) {
            faults.push(format!(
                "crates/choreo/src/cli/{name}: names no command and is no plumbing of the \
                 command line ({}): a concept of its own belongs in the API",
                CLI_PLUMBING.join(", ")
            ));
        }
    }
    faults
}
