//! A timeline's balance as `choreo plot` shows it under its curves: choreo-body's judgement
//! (`choreo check --body`), seen from above.

use choreo_motion::Motion;

/// A timeline's balance as choreo-body judges it (from StandInit, else the first posture
/// judged), seen from above, in centimetres: the robot faces up the page, its left is the
/// page's left (a point is (-y, x) of the start's ground frame).
pub(super) struct BalanceView {
    /// The support polygons at the start and at the last step judged.
    pub(super) polygon: Vec<(f64, f64)>,
    pub(super) last_polygon: Vec<(f64, f64)>,
    /// The CoM's and the ZMP's paths, in runs (a gap where they are not known).
    pub(super) com: Vec<Vec<(f64, f64)>>,
    pub(super) zmp: Vec<Vec<(f64, f64)>>,
    /// Where the CoM was when the robot began to fall.
    pub(super) fall: Option<(f64, f64)>,
    /// What was found, a line each (the postures first).
    pub(super) notes: Vec<String>,
}

/// `m`'s balance view, where balance is in question: the robot stands at its start (a
/// timeline that starts sitting or lying has none), and the timeline moves its legs or makes
/// it fall (a head's nod or an arm's wave shows its curves alone).
pub(super) fn balance_of(m: &Motion) -> Option<BalanceView> {
    use choreo_body::check::{Finding, check};
    let report = check(m, "StandInit")?;
    let path = &report.path;
    let legs = choreo_body::stance::leg_joints(m.robot);
    let moves_legs = m.curves.iter().any(|c| {
        m.robot
            .joint_index(&c.actuator)
            .is_some_and(|i| legs.contains(&i))
    });
    let falls = report
        .findings
        .iter()
        .any(|f| matches!(f, Finding::Fall { .. }));
    if path.com.iter().all(Option::is_none) || !(moves_legs || falls) {
        return None;
    }
    let top = |p: &[f64; 2]| (-p[1] * 100.0, p[0] * 100.0);
    let runs = |points: &[Option<[f64; 2]>]| {
        let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for p in points {
            match (p, out.last_mut()) {
                (Some(p), Some(run)) => run.push(top(p)),
                (None, Some(run)) if !run.is_empty() => out.push(Vec::new()),
                _ => {}
            }
        }
        out.retain(|r| !r.is_empty());
        out
    };
    let (fps, start) = (f64::from(m.fps.max(1)), m.start);
    let mut notes = vec![format!("from {}", report.postures.join(", "))];
    let mut fall = None;
    let (mut late, mut contacts) = (0, 0);
    for finding in &report.findings {
        match finding {
            Finding::Fall { fall: f, .. } => {
                let k = path.times.partition_point(|t| *t < f.time - 1e-9);
                fall = path.com.get(k).copied().flatten().map(|p| top(&p));
                notes.push(finding.describe(fps, start));
            }
            Finding::Late { .. } => late += 1,
            Finding::Collision { .. } => contacts += 1,
            Finding::StaysDown { .. } => notes.push(finding.describe(fps, start)),
        }
    }
    let ends_down = path.com.last().is_some_and(Option::is_none);
    if fall.is_none() {
        notes.push(if ends_down {
            "ends on the floor without a fall (sitting, kneeling or on its hands)".to_string()
        } else {
            "stands throughout".to_string()
        });
    }
    notes.push(format!(
        "{late} key{} reached late, {contacts} arm contact{} with the body",
        if late == 1 { "" } else { "s" },
        if contacts == 1 { "" } else { "s" }
    ));
    Some(BalanceView {
        polygon: path.polygon.iter().map(top).collect(),
        last_polygon: path.last_polygon.iter().map(top).collect(),
        com: runs(&path.com),
        zmp: runs(&path.zmp),
        fall,
        notes,
    })
}
