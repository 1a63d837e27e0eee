//! `choreo edit`: a behavior's file edited from the monitor's page (docs/editor.md); the
//! work is choreo-editor's; Play runs `choreo run` apart (`play`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use choreo_editor::{Editor, Kept, Library, Project, Session};
use choreo_engine::graph::Graph;
use choreo_monitor::{Monitor, MonitorOptions};
use choreo_xar::source::{FileKind, sniff};

use crate::cli::error::{CliError, CliResult};
use crate::exit;

/// `choreo edit`'s arguments.
#[derive(clap::Args)]
pub(crate) struct EditArgs {
    /// The behavior: its `behavior.xar`, or a project (its folder, `.pml`, `.crg`, `.pkg`
    /// or readable folder).
    pub(crate) path: PathBuf,
    /// The behavior of a project (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// Serve the page at ADDR (default: 127.0.0.1 on a free port). An address other than
    /// loopback puts a random token in the URL.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub(crate) listen: SocketAddr,
    /// A box library the page offers boxes from besides the basic ones: a Choregraphe
    /// library folder (`libraries/box/standard`) or a `.cbl`. Repeatable.
    #[arg(long, value_name = "PATH")]
    pub(crate) library: Vec<PathBuf>,
}

impl EditArgs {
    /// `choreo edit PATH` with its defaults (`choreo new --edit`).
    pub(crate) fn of(path: PathBuf) -> EditArgs {
        EditArgs {
            path,
            behavior: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            library: Vec::new(),
        }
    }
}

/// Serves the editor until Ctrl-C; every edit is on disk when the page is told it took.
pub fn run(args: &EditArgs) -> CliResult {
    empty_folder(&args.path)?;
    let Chosen {
        file,
        title,
        model,
        pml,
        kept,
    } = behavior_file(&args.path, args.behavior.as_deref())?;
    let session = Session::open(&file).map_err(|e| CliError::Load(e.to_string()))?;
    let mut library = Library::basic();
    for path in &args.library {
        let count = library
            .add(path)
            .map_err(|e| CliError::Load(e.to_string()))?;
        errln!("{}: {count} boxes", path.display());
    }
    let options = MonitorOptions {
        addr: args.listen,
        title,
        model: Some(model.clone()),
        control: false,
        edit: true,
        stack: None,
        played: Vec::new(),
    };
    let graph = Graph::new(session.document().xar());
    let monitor = Arc::new(
        Monitor::start(&graph, options).map_err(|e| CliError::Usage(format!("--listen: {e}")))?,
    );
    if !args.listen.ip().is_loopback() {
        errln!(
            "warning: the editor listens on {}, not only on this machine: anyone who has the \
             URL (its token) can change {}",
            args.listen,
            file.display()
        );
    }
    let commands = monitor
        .commands()
        .ok_or_else(|| CliError::Runtime("the editor's commands were taken".into()))?;
    errln!("editing {}", file.display());
    errln!("editor: {}", monitor.url());
    let interrupts = crate::cli::run::count_interrupts();
    let player = crate::play::RunPlayer::new(&model);
    let robot = choreo_robot::Model::from_hint(&model).unwrap_or(choreo_robot::Model::Nao);
    let mut editor = Editor::new(session, library, Arc::clone(&monitor))
        .for_robot(robot)
        .with_player(Box::new(player));
    if let Some(kept) = kept {
        errln!(
            "{} is written back after each change (its working copy: {})",
            kept.source().display(),
            kept.working().display()
        );
        editor = editor.kept_in(kept);
    }
    if let Some(pml) = pml {
        match Project::open(&pml) {
            Ok(project) => editor = editor.in_project(project),
            Err(why) => errln!("warning: {why}: the project's behaviors cannot be changed here"),
        }
    }
    editor.serve(&commands, || interrupts.load(Ordering::SeqCst) > 0);
    monitor.close();
    Ok(exit::OK)
}

/// An empty folder holds nothing to edit yet: `choreo new` is offered.
fn empty_folder(path: &Path) -> CliResult<()> {
    let empty = std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none());
    if !empty {
        return Ok(());
    }
    let p = path.display();
    Err(CliError::Load(format!(
        "{p}: an empty folder, nothing to edit yet. `choreo new project {p} --edit` makes a \
         project there as Choregraphe's New does and opens it (`choreo new behavior {p}`: a \
         behavior alone)"
    )))
}

/// The behavior `choreo edit` opens, and what the page is told of it.
struct Chosen {
    /// Its XAR file.
    file: PathBuf,
    /// The page's title.
    title: String,
    /// The robot the 3D view shows and the timelines are for.
    model: String,
    /// The project's `.pml`, when it has one: its behaviors can be opened, added, renamed
    /// and deleted, and its dialogs are opened only inside its folder.
    pml: Option<PathBuf>,
    /// The archive or readable folder the project is kept in, and its working copy.
    kept: Option<Kept>,
}

/// The behavior of `path` to edit (`behavior`, else the first), in a XAR file on disk: the
/// project's own, or its working copy's when it is kept in an archive or a readable folder.
fn behavior_file(path: &Path, behavior: Option<&str>) -> CliResult<Chosen> {
    // A project whose other behaviors do not read (a merge conflict left in one) still
    // opens the behavior asked for; those are warned about.
    let project = crate::cli::input::load(path, true)?;
    let chosen = crate::cli::input::pick_behavior(&project, path, behavior)?;
    // The robot the project is for, else NAO (as Choregraphe starts).
    let model = crate::implied::model(&project)
        .map_or(choreo_robot::Model::Nao, |m| m.value)
        .name()
        .to_lowercase();
    if chosen.path == choreo_xar::split::MARKER_FILE {
        return Err(CliError::Load(format!(
            "{}: a behavior's split folder is not edited in place; `choreo convert` it to \
             XAR, edit that, and convert it back",
            path.display()
        )));
    }
    let on_disk = project.root.as_ref().map(|root| root.join(&chosen.path));
    // A library's `box.xar` is a XAR file too, edited in place as Choregraphe edits it.
    let is_xar = on_disk.as_ref().is_some_and(|file| {
        std::fs::read(file).ok().is_some_and(|b| {
            matches!(
                sniff(&chosen.path, &b),
                Some(FileKind::Xar | FileKind::BoxXar)
            )
        })
    });
    if let (Some(root), Some(file), true) = (&project.root, on_disk, is_xar) {
        return Ok(Chosen {
            title: file.display().to_string(),
            file,
            model,
            pml: project.pml_path.as_ref().map(|p| root.join(p)),
            kept: None,
        });
    }
    // An archive or a readable folder: edited in a working copy, written back after each
    // change.
    let kept = Kept::open(path, &project).map_err(|e| CliError::Load(e.to_string()))?;
    let working = kept.working().to_path_buf();
    Ok(Chosen {
        title: path.display().to_string(),
        file: working.join(&chosen.path),
        model,
        pml: project.pml_path.as_ref().map(|p| working.join(p)),
        kept: Some(kept),
    })
}
