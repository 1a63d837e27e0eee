//! `choreo convert` to `.qianim`: each motion timeline as an animation file.

use std::collections::HashSet;
use std::path::Path;

use choreo_motion::qianim;
use choreo_xar::source::Behavior;

use crate::cli::error::{CliError, CliResult};
use crate::exit;

use crate::convert_output::{Ownership, QIANIM, folder_name, has_extension, make_room, safe_name};

/// Writes every motion timeline of `behaviors` as a `.qianim` file: `output` itself when it
/// ends in `.qianim` and there is exactly one, else one file per timeline in the folder
/// `output`, named after the box path (`root_Tai_Chi_Chuan.qianim`; with several behaviors,
/// after the behavior too). Everything is converted before anything is written.
pub(super) fn to_qianim(
    input: &Path,
    behaviors: &[Behavior],
    output: &Path,
    force: bool,
) -> CliResult {
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
