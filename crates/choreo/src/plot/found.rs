//! The motion timelines of an input (a behavior's timeline boxes, or a `.qianim` file), as
//! `choreo plot` and `choreo motion` read them.

use std::path::Path;

use choreo_motion::Motion;
use choreo_motion::motion::{made_for, timelines};
use choreo_robot::Model;
use choreo_xar::source::{Behavior, Project};

/// Why an input shows no motion.
#[derive(Debug, thiserror::Error)]
pub enum NoMotion {
    /// The box path given names no timeline box.
    #[error("{0}")]
    NoSuchBox(String),
    /// The input cannot be read, or holds no playable motion timeline.
    #[error("{0}")]
    Unreadable(String),
}

/// One motion timeline of the input.
pub struct Located {
    /// Its box path (`root/Tai Chi Chuan`), as traces name it.
    pub path: String,
    /// Its motion.
    pub motion: Motion,
}

/// The motion timelines found in an input.
pub struct Found {
    /// The input, as a title shows it.
    pub name: String,
    /// The timelines, parents first (only those at `--box`'s path when it is given).
    pub timelines: Vec<Located>,
}

/// The motion timelines of `behavior` of `project` (read from `path`), every one or that
/// at `box_path`, with the curves played on the robot the package asks for (`manifest`),
/// else the one each timeline's joints or `model` hint name, else NAO; `warn` is told
/// their warnings (keys clamped, curves left out).
pub fn timelines_of(
    path: &Path,
    project: &Project,
    behavior: &Behavior,
    manifest: Option<Model>,
    box_path: Option<&str>,
    warn: &mut dyn FnMut(String),
) -> Result<Found, NoMotion> {
    let root = behavior.xar.root_box.name.as_str();
    let all = timelines(&behavior.xar.root_box);
    let wanted = |path: &str| match box_path {
        None => true,
        Some(b) => {
            path == b || path.strip_prefix(root).and_then(|p| p.strip_prefix('/')) == Some(b)
        }
    };
    let mut found = Vec::new();
    let mut matched = false;
    for (path, timeline) in all.iter().filter(|(p, _)| wanted(p)) {
        matched = true;
        let robot = manifest
            .or_else(|| timeline.actuator_list.as_ref().and_then(made_for))
            .unwrap_or(Model::Nao);
        let Some(motion) = Motion::from_timeline(timeline, robot) else {
            continue;
        };
        for (joint, warning) in &motion.warnings {
            warn(format!("{path}: {joint}: {warning}"));
        }
        found.push(Located {
            path: path.clone(),
            motion,
        });
    }
    let name = display_name(path, project, &behavior.path);
    if let (Some(b), false) = (box_path, matched) {
        let paths: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
        return Err(NoMotion::NoSuchBox(format!(
            "{name}: --box {b:?}: no timeline box with curves at that path (there: {})",
            if paths.is_empty() {
                "none".to_string()
            } else {
                paths.join(", ")
            }
        )));
    }
    if found.is_empty() {
        return Err(NoMotion::Unreadable(format!(
            "{name}: no motion timeline to show{} (a timeline box with an fps and keyed, \
             unmuted curves of the robot's joints)",
            box_path.map_or(String::new(), |b| format!(" at {b:?}"))
        )));
    }
    Ok(Found {
        name,
        timelines: found,
    })
}

/// A `.qianim` file (one animation, no behavior around it) as one timeline, named after the
/// file: its tracks' curves, frames as in a XAR (`.qianim` frame 0 is frame 1), on the robot
/// its joints name (NAO when they do not tell). An unreadable file, tracks at different frame
/// rates or no playable curve: [`NoMotion::Unreadable`].
pub fn qianim(path: &Path, warn: &mut dyn FnMut(String)) -> Result<Found, NoMotion> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = std::fs::read(path)
        .map_err(|e| NoMotion::Unreadable(format!("{}: {e}", path.display())))?;
    let animation = choreo_motion::qianim::read(&path.display().to_string(), &bytes)
        .map_err(|e| NoMotion::Unreadable(e.to_string()))?;
    let Some(fps) = animation.fps() else {
        return Err(NoMotion::Unreadable(format!(
            "{}: its tracks have different frame rates (one timeline has one)",
            path.display()
        )));
    };
    let curves: Vec<choreo_motion::Curve> = animation.curves().cloned().collect();
    let robot =
        Model::from_joints(curves.iter().map(|c| c.actuator.as_str())).unwrap_or(Model::Nao);
    let Some(motion) = Motion::from_curves(curves, fps, 1, -1, robot) else {
        return Err(NoMotion::Unreadable(format!(
            "{}: no motion to show (no unmuted, keyed curve of the robot's joints)",
            path.display()
        )));
    };
    for (joint, warning) in &motion.warnings {
        warn(format!("{name}: {joint}: {warning}"));
    }
    Ok(Found {
        name: name.clone(),
        timelines: vec![Located { path: name, motion }],
    })
}

/// How titles name the input: its folder and file name (`Tai Chi Chuan/behavior.xar`), and
/// the behavior's file when the input holds several.
fn display_name(path: &Path, project: &Project, behavior: &str) -> String {
    let last: Vec<String> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let name = last.into_iter().rev().collect::<Vec<_>>().join("/");
    if project.behaviors.len() > 1 {
        format!("{name}!{behavior}")
    } else {
        name
    }
}
