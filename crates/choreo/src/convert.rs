//! `choreo convert`: XAR (or any readable input) to the split format and back, or its
//! motion timelines to `.qianim` animations.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use choreo_motion::qianim;
use choreo_xar::source::{Behavior, read_dir_tree};
use choreo_xar::{FileTree, split, write_xar};

use crate::exit;
use crate::report;

/// What `convert` writes (`--to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// The readable split format: a folder.
    Split,
    /// One XAR file.
    Xar,
    /// Every motion timeline as a `.qianim` v2 animation (NAOqi 2.9, QiSDK).
    Qianim,
}

impl Target {
    /// The target an output's name implies: `.xar` and `.qianim` files, else a split folder.
    fn of_output(output: &Path) -> Target {
        if has_extension(output, "xar") {
            Target::Xar
        } else if has_extension(output, QIANIM) {
            Target::Qianim
        } else {
            Target::Split
        }
    }
}

/// Outputs that name a project or an archive (written by no target yet).
const ARCHIVES: [&str; 4] = ["crg", "pkg", "cbl", "pml"];

/// The extension of `.qianim` files.
const QIANIM: &str = "qianim";

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// Converts `input` to `output` as `to` says (by default as `output`'s name implies: a
/// `.xar` file, `.qianim` animations, or a split folder); returns the exit code.
pub fn run(input: &Path, output: &Path, to: Option<Target>, force: bool) -> u8 {
    let project = match report::load(input, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if project.behaviors.is_empty() {
        errln!("{}: no behavior to convert", input.display());
        return exit::LOAD;
    }
    // A name that says archive or project file never becomes a folder.
    if to.is_none()
        && let Some(ext) = ARCHIVES.iter().find(|e| has_extension(output, e))
    {
        errln!(
            "{}: writing a .{ext} is not supported yet; convert to a folder (the split \
             format) or to a .xar",
            output.display()
        );
        return exit::USAGE;
    }
    let target = to.unwrap_or_else(|| Target::of_output(output));
    if target == Target::Qianim {
        return to_qianim(input, &project.behaviors, output, force);
    }
    if let Err(code) = make_room(output, force, &Ownership::SPLIT) {
        return code;
    }
    let result = if target == Target::Xar {
        let [only] = project.behaviors.as_slice() else {
            errln!(
                "{} holds {} behaviors: convert it to a folder instead of one .xar file",
                input.display(),
                project.behaviors.len()
            );
            return exit::USAGE;
        };
        std::fs::write(output, write_xar(&only.xar)).map_err(|e| (output.to_path_buf(), e))
    } else {
        write_split(&project.behaviors, output)
    };
    match result {
        Ok(()) => {
            outln!(
                "wrote {} ({} behavior(s))",
                output.display(),
                project.behaviors.len()
            );
            exit::OK
        }
        Err((path, e)) => {
            errln!("{}: cannot write: {e}", path.display());
            exit::WRITE
        }
    }
}

/// Which existing folders an output may replace.
struct Ownership {
    /// What such a folder is, in messages (`a split behavior`).
    what: &'static str,
    /// Whether the folder is one.
    owns: fn(&Path) -> bool,
}

impl Ownership {
    /// Split folders.
    const SPLIT: Ownership = Ownership {
        what: "a split behavior",
        owns: |dir| read_dir_tree(dir).is_ok_and(|t| split::is_split_tree(&t)),
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
fn make_room(output: &Path, force: bool, ours: &Ownership) -> Result<(), u8> {
    if !output.exists() {
        return Ok(());
    }
    if !force {
        errln!(
            "{}: already exists (use --force to replace it)",
            output.display()
        );
        return Err(exit::USAGE);
    }
    if output.is_dir() {
        if !(ours.owns)(output) {
            errln!(
                "{}: is a folder but not {}; refusing to replace it",
                output.display(),
                ours.what
            );
            return Err(exit::USAGE);
        }
        if let Err(e) = std::fs::remove_dir_all(output) {
            errln!("{}: cannot remove: {e}", output.display());
            return Err(exit::WRITE);
        }
    }
    Ok(())
}

/// Writes each behavior's split tree: into `output` itself when there is one behavior,
/// else into one subfolder per behavior.
fn write_split(behaviors: &[Behavior], output: &Path) -> Result<(), (PathBuf, std::io::Error)> {
    for b in behaviors {
        let dir = if behaviors.len() == 1 {
            output.to_path_buf()
        } else {
            output.join(folder_name(&b.name))
        };
        write_tree(&dir, &split::to_tree(&b.xar))?;
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
fn to_qianim(input: &Path, behaviors: &[Behavior], output: &Path, force: bool) -> u8 {
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
                    errln!("{}: {shown}: cannot write as .qianim: {e}", input.display());
                    return exit::WRITE;
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
            errln!(
                "{}: no motion timeline to convert (a box whose timeline has fps > 0 and \
                 unmuted keyed curves)",
                input.display()
            );
            return exit::LOAD;
        }
        1 => {}
        n if single => {
            errln!(
                "{} holds {n} motion timelines: convert it to a folder instead of one .qianim file",
                input.display()
            );
            return exit::USAGE;
        }
        _ => {}
    }
    if let Err(code) = make_room(output, force, &Ownership::QIANIM) {
        return code;
    }
    if !single && let Err(e) = std::fs::create_dir_all(output) {
        errln!("{}: cannot create: {e}", output.display());
        return exit::WRITE;
    }
    for (name, shown, curves, text) in &files {
        let path = if single {
            output.to_path_buf()
        } else {
            output.join(name)
        };
        if let Err(e) = std::fs::write(&path, text) {
            errln!("{}: cannot write: {e}", path.display());
            return exit::WRITE;
        }
        outln!("wrote {} ({shown}: {curves} curve(s))", path.display());
    }
    exit::OK
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
