//! `choreo convert`: a behavior to the split format and back, a whole project to a readable
//! folder and back to any container (a `.pml` folder, `.crg`, `.cbl`, `.pkg`), or motion
//! timelines to `.qianim` animations.

mod animation;

use std::path::{Path, PathBuf};

use choreo_xar::project::{Container, PROJECT_FILE};
use choreo_xar::source::Project;
use choreo_xar::{FileTree, split, write_xar};

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::exit;

use crate::convert_output::{
    Ownership, QIANIM, has_extension, is_current_dir, make_room, write_tree,
};
use animation::to_qianim;

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

/// Converts `input` to `output` as `to` says (by default as `output`'s name implies, see
/// [`Target::of_output`]).
pub fn run(args: &ConvertArgs) -> CliResult {
    let (input, output, to, force) = (&args.input, &args.output, args.to, args.force);
    let project = input::load(input, false)?;
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
            .map_err(CliError::from)
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

/// A failed write.
fn written((path, e): (std::path::PathBuf, std::io::Error)) -> CliError {
    CliError::Write(format!("{}: cannot write: {e}", path.display()))
}
