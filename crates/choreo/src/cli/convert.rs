//! `choreo convert`: a behavior to the split format and back, a whole project to a readable
//! folder and back to any container (a `.pml` folder, `.crg`, `.cbl`, `.pkg`), or motion
//! timelines to `.qianim` animations.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use choreo_motion::qianim;
use choreo_xar::project::{self, Container, PROJECT_FILE};
use choreo_xar::source::{Behavior, Project, read_dir_tree};
use choreo_xar::{FileTree, split, write_xar};

use crate::cli::error::{CliError, CliResult};
use crate::cli::report;
use crate::exit;

/// `choreo convert`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct ConvertArgs {
    /// What to read.
    pub(crate) input: PathBuf,
    /// What to write: a folder (the readable form; a Choregraphe project folder when the
    /// input is a readable one), a .xar, .crg, .pkg or .cbl file, `folder/name.pml`, or
    /// (`--to qianim`) a .qianim file or a folder of them.
    pub(crate) output: PathBuf,
    /// What to write; by default as OUTPUT's name says (see OUTPUT).
    #[arg(long, value_enum)]
    pub(crate) to: Option<Target>,
    /// Replace an existing output.
    #[arg(long)]
    pub(crate) force: bool,
}

/// What `convert` writes (`--to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// The readable form, a folder: a lone behavior's split folder, or a project's readable
    /// folder (every file, each behavior split).
    Split,
    /// One XAR file.
    Xar,
    /// Every motion timeline as a `.qianim` v2 animation (NAOqi 2.9, QiSDK).
    Qianim,
    /// A Choregraphe project folder: its `.pml` and every file, behaviors as XAR.
    Pml,
    /// A Choregraphe project archive.
    Crg,
    /// A package, as PackageManager installs it (a zip; `choreo package` checks it too).
    Pkg,
    /// A box library archive.
    Cbl,
}

impl Target {
    /// The target an output's name implies: by its extension (`.xar`, `.qianim`, `.pml`,
    /// `.crg`, `.pkg`, `.cbl`); else a folder, the Choregraphe project folder when the input
    /// is a readable one, the readable form otherwise.
    fn of_output(output: &Path, readable_input: bool) -> Target {
        let by_name = [
            ("xar", Target::Xar),
            (QIANIM, Target::Qianim),
            ("pml", Target::Pml),
            ("crg", Target::Crg),
            ("pkg", Target::Pkg),
            ("cbl", Target::Cbl),
        ];
        match by_name.iter().find(|(e, _)| has_extension(output, e)) {
            Some((_, t)) => *t,
            None if readable_input => Target::Pml,
            None => Target::Split,
        }
    }

    /// The archive this target writes, if it writes one.
    fn container(self) -> Option<Container> {
        match self {
            Target::Crg => Some(Container::Crg),
            Target::Pkg => Some(Container::Pkg),
            Target::Cbl => Some(Container::Cbl),
            Target::Split | Target::Xar | Target::Qianim | Target::Pml => None,
        }
    }
}

/// Outputs whose name says archive: never written as a folder.
const ARCHIVES: [&str; 3] = ["crg", "pkg", "cbl"];

/// The extension of `.qianim` files.
const QIANIM: &str = "qianim";

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// Converts `input` to `output` as `to` says (by default as `output`'s name implies, see
/// [`Target::of_output`]).
pub fn run(args: &ConvertArgs) -> CliResult {
    let (input, output, to, force) = (&args.input, &args.output, args.to, args.force);
    let project = report::load(input, false)?;
    let readable_input = input.is_dir() && input.join(PROJECT_FILE).is_file();
    let target = to.unwrap_or_else(|| Target::of_output(output, readable_input));
    // A name that says archive never becomes a folder.
    if target.container().is_none()
        && target != Target::Xar
        && let Some(ext) = ARCHIVES.iter().find(|e| has_extension(output, e))
    {
        return Err(CliError::Usage(format!(
            "{}: a .{ext} is an archive, not a folder: use --to {ext} or another name",
            output.display()
        )));
    }
    if project.behaviors.is_empty() && matches!(target, Target::Xar | Target::Qianim) {
        return Err(CliError::Load(format!(
            "{}: no behavior to convert",
            input.display()
        )));
    }
    let result = match target {
        Target::Qianim => return to_qianim(input, &project.behaviors, output, force),
        Target::Xar => to_xar(input, &project, output, force),
        Target::Split if is_lone(&project) => make_room(output, force, &Ownership::READABLE)
            .and_then(|()| {
                write_tree(output, &split::to_tree(&project.behaviors[0].xar)).map_err(written)
            }),
        Target::Split => to_readable(input, &project, output, force),
        Target::Pml => to_pml_folder(input, &project, output, force),
        Target::Crg | Target::Pkg | Target::Cbl => {
            let container = target.container().unwrap_or_default();
            to_archive(&project, container, output, force)
        }
    };
    result?;
    outln!(
        "wrote {} ({} behavior(s))",
        output.display(),
        project.behaviors.len()
    );
    Ok(exit::OK)
}

/// Whether `project` is one behavior and nothing else (a `.xar`, a split folder, or a folder
/// holding only its `behavior.xar`; not an archive, whose control text a readable folder
/// keeps): its readable form is its split folder.
fn is_lone(project: &Project) -> bool {
    match project.behaviors.as_slice() {
        [only] => {
            project.container == Container::Folder
                && (only.path == split::MARKER_FILE || project.files.len() == 1)
        }
        _ => false,
    }
}

/// A failed write.
fn written((path, e): (PathBuf, std::io::Error)) -> CliError {
    CliError::Write(format!("{}: cannot write: {e}", path.display()))
}

fn to_xar(input: &Path, project: &Project, output: &Path, force: bool) -> CliResult<()> {
    let [only] = project.behaviors.as_slice() else {
        return Err(CliError::Usage(format!(
            "{} holds {} behaviors: convert it to a folder instead of one .xar file",
            input.display(),
            project.behaviors.len()
        )));
    };
    make_room(output, force, &Ownership::NONE)?;
    std::fs::write(output, write_xar(&only.xar)).map_err(|e| written((output.to_path_buf(), e)))
}

/// Writes the project's readable folder (see [`choreo_xar::project`]).
fn to_readable(input: &Path, project: &Project, output: &Path, force: bool) -> CliResult<()> {
    let tree = project
        .readable(&input.display().to_string())
        .map_err(|e| CliError::Load(e.to_string()))?;
    make_room(output, force, &Ownership::READABLE)?;
    write_tree(output, &tree).map_err(written)
}

/// Writes the project as a Choregraphe project folder: `output` itself, or, for an output
/// named `X.pml`, its folder, the project's `.pml` renamed `X.pml`.
fn to_pml_folder(input: &Path, project: &Project, output: &Path, force: bool) -> CliResult<()> {
    let mut files = project.packed().files;
    let mut folder = output.to_path_buf();
    if has_extension(output, "pml") {
        let parent = output.parent().filter(|p| !p.as_os_str().is_empty());
        let Some(parent) = parent.filter(|p| !is_current_dir(p)) else {
            return Err(CliError::Usage(format!(
                "{}: name the project's folder too (`out/{}`): it is replaced",
                output.display(),
                output.display()
            )));
        };
        let Some(pml) = top_pml(&files) else {
            return Err(CliError::Usage(format!(
                "{}: has no .pml (a Choregraphe 1.x project or a box library): write it to a \
                 folder",
                input.display()
            )));
        };
        let name = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(bytes) = files.remove(&pml) {
            let renamed = match pml.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/{name}"),
                None => name,
            };
            files.insert(renamed, bytes);
        }
        folder = parent.to_path_buf();
    }
    make_room(&folder, force, &Ownership::READABLE)?;
    write_tree(&folder, &files).map_err(written)
}

/// Whether `dir` is the current folder.
fn is_current_dir(dir: &Path) -> bool {
    let here = std::env::current_dir().and_then(std::fs::canonicalize);
    matches!((here, std::fs::canonicalize(dir)), (Ok(a), Ok(b)) if a == b)
}

/// The shallowest `.pml` of `files`.
fn top_pml(files: &FileTree) -> Option<String> {
    files
        .keys()
        .filter(|k| {
            Path::new(k.as_str())
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pml"))
        })
        .min_by_key(|k| k.matches('/').count())
        .cloned()
}

/// Writes the project as an archive.
fn to_archive(
    project: &Project,
    container: Container,
    output: &Path,
    force: bool,
) -> CliResult<()> {
    let files = project.packed().files;
    // A project keeps its control text only into the same kind of archive.
    let control = (project.container == container)
        .then_some(project.control.as_deref())
        .flatten();
    let shown = output.display().to_string();
    let bytes = match container.pack(&shown, &project.name, control, &files) {
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            return Err(CliError::Write(e.to_string()));
        }
        // Nothing to say: every target that reaches here has a container.
        None => return Err(CliError::Shown(exit::USAGE)),
    };
    make_room(output, force, &Ownership::NONE)?;
    std::fs::write(output, bytes).map_err(|e| written((output.to_path_buf(), e)))
}

/// Which existing folders an output may replace.
struct Ownership {
    /// What such a folder is, in messages (`a split behavior`).
    what: &'static str,
    /// Whether the folder is one.
    owns: fn(&Path) -> bool,
}

impl Ownership {
    /// Split behaviors, readable projects and Choregraphe projects.
    const READABLE: Ownership = Ownership {
        what: "a split behavior or a project",
        owns: |dir| {
            read_dir_tree(dir).is_ok_and(|t| {
                split::is_split_tree(&t)
                    || project::is_readable_tree(&t)
                    || choreo_xar::source::load_tree("", t).is_ok()
            })
        },
    };

    /// Never a folder (for file outputs).
    const NONE: Ownership = Ownership {
        what: "a file",
        owns: |_| false,
    };

    /// Folders of `.qianim` files and nothing else.
    const QIANIM: Ownership = Ownership {
        what: "a folder of .qianim files only",
        owns: |dir| {
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries.into_iter().all(|e| {
                    e.is_ok_and(|e| {
                        let path = e.path();
                        path.is_file() && has_extension(&path, QIANIM)
                    })
                })
            })
        },
    };
}

/// Refuses to overwrite an existing output unless `force`; with `force`, an existing
/// folder is replaced only if it is one of ours (never an unrelated directory).
fn make_room(output: &Path, force: bool, ours: &Ownership) -> CliResult<()> {
    if !output.exists() {
        return Ok(());
    }
    if !force {
        return Err(CliError::Usage(format!(
            "{}: already exists (use --force to replace it)",
            output.display()
        )));
    }
    if output.is_dir() {
        if !(ours.owns)(output) {
            return Err(CliError::Usage(format!(
                "{}: is a folder but not {}; refusing to replace it",
                output.display(),
                ours.what
            )));
        }
        if let Err(e) = std::fs::remove_dir_all(output) {
            return Err(CliError::Write(format!(
                "{}: cannot remove: {e}",
                output.display()
            )));
        }
    }
    Ok(())
}

/// A folder name for a behavior's display name (`a.crg!behavior_1/behavior.xar`).
fn folder_name(name: &str) -> String {
    let inner = name.rsplit('!').next().unwrap_or(name);
    let stem = inner
        .trim_end_matches("/behavior.xar")
        .trim_end_matches("/box.xar");
    safe_name(stem, "-_. ")
}

/// `name` with every character but letters, digits and those of `keep` replaced by `_`.
fn safe_name(name: &str, keep: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || keep.contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes every motion timeline of `behaviors` as a `.qianim` file: `output` itself when it
/// ends in `.qianim` and there is exactly one, else one file per timeline in the folder
/// `output`, named after the box path (`root_Tai_Chi_Chuan.qianim`; with several behaviors,
/// after the behavior too). Everything is converted before anything is written.
fn to_qianim(input: &Path, behaviors: &[Behavior], output: &Path, force: bool) -> CliResult {
    let mut files = Vec::new();
    let mut taken = HashSet::new();
    for b in behaviors {
        for found in qianim::box_animations(&b.xar.root_box) {
            let shown = if behaviors.len() > 1 {
                format!("{}: {}", b.name, found.path)
            } else {
                found.path.clone()
            };
            for (actuator, w) in &found.warnings {
                errln!("warning: {shown}: {actuator}: {w}");
            }
            let written = match qianim::write(&found.animation) {
                Ok(w) => w,
                Err(e) => {
                    return Err(CliError::Write(format!(
                        "{}: {shown}: cannot write as .qianim: {e}",
                        input.display()
                    )));
                }
            };
            for (actuator, w) in &written.warnings {
                errln!("warning: {shown}: {actuator}: {w}");
            }
            let mut stem = safe_name(&found.path, "-_.");
            if behaviors.len() > 1 {
                stem = format!("{}_{stem}", safe_name(&folder_name(&b.name), "-_."));
            }
            let name = unique_name(&stem, &mut taken);
            let curves = found.animation.tracks.len();
            files.push((name, shown, curves, written.text));
        }
    }
    let single = has_extension(output, QIANIM);
    match files.len() {
        0 => {
            return Err(CliError::Load(format!(
                "{}: no motion timeline to convert (a box whose timeline has fps > 0 and \
                 unmuted keyed curves)",
                input.display()
            )));
        }
        1 => {}
        n if single => {
            return Err(CliError::Usage(format!(
                "{} holds {n} motion timelines: convert it to a folder instead of one .qianim file",
                input.display()
            )));
        }
        _ => {}
    }
    make_room(output, force, &Ownership::QIANIM)?;
    if !single && let Err(e) = std::fs::create_dir_all(output) {
        return Err(CliError::Write(format!(
            "{}: cannot create: {e}",
            output.display()
        )));
    }
    for (name, shown, curves, text) in &files {
        let path = if single {
            output.to_path_buf()
        } else {
            output.join(name)
        };
        if let Err(e) = std::fs::write(&path, text) {
            return Err(CliError::Write(format!(
                "{}: cannot write: {e}",
                path.display()
            )));
        }
        outln!("wrote {} ({shown}: {curves} curve(s))", path.display());
    }
    Ok(exit::OK)
}

/// `stem.qianim`, or `stem_2.qianim`, `stem_3.qianim`... when taken (recorded in `taken`).
fn unique_name(stem: &str, taken: &mut HashSet<String>) -> String {
    let mut name = format!("{stem}.{QIANIM}");
    let mut n = 1;
    while !taken.insert(name.to_lowercase()) {
        n += 1;
        name = format!("{stem}_{n}.{QIANIM}");
    }
    name
}

fn write_tree(dir: &Path, tree: &FileTree) -> Result<(), (PathBuf, std::io::Error)> {
    for (rel, bytes) in tree {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| (parent.to_path_buf(), e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| (path.clone(), e))?;
    }
    Ok(())
}
