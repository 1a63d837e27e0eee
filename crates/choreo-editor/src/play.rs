//! Play from a box: the box on its own, as the behavior played. Why a behavior of its own:
//! what "from a box" starts must be what a run starts, with the same lifecycle, so the box
//! is put alone in Choregraphe's new behavior ([`crate::project`]'s empty root), its first
//! onStart input fed by the root's onStart and each of its stopping outputs (onStopped,
//! success, failure) ending the root, and that file is what `choreo run` plays. It is
//! written beside the behavior (`PLAY_FILE`), so that paths relative to the behavior (a
//! Dialog box's `.dlg`, sounds) are found as when the behavior plays, and removed when the
//! play ends or another starts.

use choreo_xar::edit::{BoxRef, DiagramRef, Document, Edit, LinkRef};
use choreo_xar::model::{InputNature, OutputNature};

/// The file a box played alone is written to, in the behavior's folder (hidden: no
/// `.pml` lists it, so it is never packaged).
pub(crate) const PLAY_FILE: &str = ".choreo-play.xar";

/// The bytes of a behavior whose root diagram holds only the box at `at` of `document`,
/// started and stopped by the root.
pub(crate) fn box_alone(document: &Document, at: &BoxRef) -> Result<Vec<u8>, String> {
    let text = document.box_text(at).map_err(|e| e.to_string())?;
    let mut alone = Document::open(PLAY_FILE, crate::project::NEW_BEHAVIOR.as_bytes())
        .map_err(|e| e.to_string())?;
    let diagram = DiagramRef {
        owner: BoxRef::default(),
        layer: 0,
        keyframe: 0,
    };
    let add = Edit::Add {
        diagram: diagram.clone(),
        text,
        x: 120,
        y: 80,
    };
    alone.apply(&add).map_err(|e| e.to_string())?;
    let root = &alone.xar().root_box;
    let b = alone
        .diagram(&diagram)
        .ok()
        .and_then(|d| d.boxes.first())
        .ok_or("the box was not added")?;
    let start = b
        .inputs
        .iter()
        .find(|p| p.nature == InputNature::OnStart)
        .ok_or_else(|| format!("{} has no onStart input to play it from", b.name))?;
    let root_start = root
        .inputs
        .iter()
        .find(|p| p.nature == InputNature::OnStart);
    let root_stopped = root
        .outputs
        .iter()
        .find(|p| p.nature == OutputNature::Stopped);
    let (Some(root_start), Some(root_stopped)) = (root_start, root_stopped) else {
        return Err("the new behavior has no onStart and onStopped".into());
    };
    let mut links = vec![LinkRef {
        from: 0,
        from_port: root_start.id,
        to: b.id,
        to_port: start.id,
    }];
    links.extend(
        b.outputs
            .iter()
            .filter(|p| p.nature == OutputNature::Stopped)
            .map(|p| LinkRef {
                from: b.id,
                from_port: p.id,
                to: 0,
                to_port: root_stopped.id,
            }),
    );
    for link in links {
        let edit = Edit::Link {
            diagram: diagram.clone(),
            link,
        };
        alone.apply(&edit).map_err(|e| e.to_string())?;
    }
    Ok(alone.bytes().to_vec())
}
