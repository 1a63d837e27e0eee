//! `choreo check --body`: every motion timeline of a behavior judged by choreo-body without
//! running it, from each standing posture of the library, and lying ones for a getting-up
//! motion (docs/motion.md, "The body"): where the robot would fall, which keys its motors
//! reach late, where an arm meets the body. Warnings: a check with them still succeeds.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use choreo_body::check::{Finding, check_all, motions_of};
use choreo_motion::motion::Motion;
use choreo_xar::source::Reads;
use serde_json::json;

use super::parallel::in_parallel;

/// One finding, located.
pub(crate) struct Located {
    /// The behavior's file in its project (`behavior_1/behavior.xar`).
    pub behavior: String,
    /// The timeline's box (`root/Dance`).
    pub box_path: String,
    /// The start postures it holds from (`StandInit, Stand`).
    pub postures: String,
    /// The finding, said (`falls backwards at 12.40 s (frame 310): ...`).
    pub text: String,
    /// "fall", "late", "collision", or "stays-down" (a getting-up motion the model cannot
    /// follow: a note on the model, not a warning on the behavior).
    pub kind: &'static str,
    /// The timeline frame.
    pub frame: f64,
    /// The joint, for a late key.
    pub joint: Option<String>,
}

/// Judgements already made in this check, by motion (a project's `.pml`, its behaviors'
/// files and its packages hold the same timelines: each is judged once), shared by the
/// threads that judge.
#[derive(Default)]
struct Judged {
    by_motion: Mutex<HashMap<u64, Arc<OnceLock<Judgements>>>>,
}

/// A motion judged from some start poses: (the postures, what was found, fps, first frame).
type Judgement = (String, Vec<Finding>, f64, i32);

/// Every judgement of one motion, shared.
type Judgements = Arc<[Judgement]>;

impl Judged {
    /// The reports of `motion`: (start postures, findings, fps, start frame) per distinct
    /// start pose. Judged outside the map's lock; a thread meeting a motion another is
    /// judging waits for that judgement.
    fn of(&self, motion: &Motion) -> Judgements {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        motion.hash(&mut hasher);
        let cell = Arc::clone(
            choreo_base::lock(&self.by_motion)
                .entry(hasher.finish())
                .or_default(),
        );
        Arc::clone(cell.get_or_init(|| {
            check_all(motion)
                .into_iter()
                .map(|r| {
                    (
                        r.postures.join(", "),
                        r.findings,
                        f64::from(motion.fps),
                        motion.start,
                    )
                })
                .collect()
        }))
    }
}

/// What the body check finds in the behaviors of `path` (nothing for a file that holds none:
/// a dialog topic, a manifest; what cannot be read is the rest of `check`'s business).
fn findings(path: &Path, judged: &Judged, reads: &Reads) -> Vec<Located> {
    let Ok(project) = choreo_xar::source::load_path_with(path, reads) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for behavior in &project.behaviors {
        for (box_path, motion) in motions_of(&behavior.xar.root_box) {
            for (postures, report, fps, start) in judged.of(&motion).iter() {
                let (fps, start) = (*fps, *start);
                for finding in report {
                    let (kind, joint) = match finding {
                        Finding::Fall { .. } => ("fall", None),
                        Finding::Late { joint, .. } => ("late", Some(joint.clone())),
                        Finding::Collision { .. } => ("collision", None),
                        Finding::StaysDown { .. } => ("stays-down", None),
                    };
                    found.push(Located {
                        behavior: behavior.path.clone(),
                        box_path: box_path.clone(),
                        postures: postures.clone(),
                        text: finding.describe(fps, start),
                        kind,
                        frame: finding.frame(),
                        joint,
                    });
                }
            }
        }
    }
    // The same finding from several start poses: said once, with all of them.
    let mut merged: Vec<Located> = Vec::new();
    for f in found {
        match merged
            .iter_mut()
            .find(|m| m.behavior == f.behavior && m.box_path == f.box_path && m.text == f.text)
        {
            Some(m) => {
                m.postures.push_str(", ");
                m.postures.push_str(&f.postures);
            }
            None => merged.push(f),
        }
    }
    merged
}

/// [`findings`] for each of `files`, in order, judged on every core (see
/// [`in_parallel`]), every motion judged once whichever thread meets it first, every file
/// read once through `reads`.
pub(crate) fn findings_of_all(files: &[std::path::PathBuf], reads: &Reads) -> Vec<Vec<Located>> {
    let judged = Judged::default();
    in_parallel(files, &|_, file| findings(file, &judged, reads))
}

/// The lines `check` prints for `findings`, under a file's status line.
pub(crate) fn lines(findings: &[Located]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            let level = if f.kind == "stays-down" {
                "note"
            } else {
                "warning"
            };
            format!(
                "{level}: body: {} {} (from {}): {}",
                f.behavior, f.box_path, f.postures, f.text
            )
        })
        .collect()
}

/// `findings` as JSON, for `check --json`.
pub(crate) fn to_json(findings: &[Located]) -> serde_json::Value {
    serde_json::Value::Array(
        findings
            .iter()
            .map(|f| {
                json!({
                    "behavior": f.behavior,
                    "box": f.box_path,
                    "postures": f.postures,
                    "kind": f.kind,
                    "frame": f.frame,
                    "joint": f.joint,
                    "message": f.text,
                })
            })
            .collect(),
    )
}
