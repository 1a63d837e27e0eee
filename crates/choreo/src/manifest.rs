//! What a package's manifest says about the robot that runs it, beyond its model.

use std::collections::BTreeSet;

use choreo_robot::languages::{Language, by_locale, by_name};
use choreo_xar::source::Project;

/// The language a robot running the package speaks, when not English (a robot's default):
/// among the languages the manifest says the package supports (English first, then the
/// manifest's order), the first one every dialog of the project (`.dlg`) has a topic in;
/// when none has them all, English if the manifest lists it, else its first language a
/// robot has. So a German-only package runs on a robot set to German, and so does a package
/// that declares English and German but whose dialogs are German only.
pub fn language(project: &Project) -> Option<&'static Language> {
    let supported: Vec<&'static Language> = project
        .manifest
        .as_ref()?
        .supported_languages
        .iter()
        .filter_map(|l| by_locale(l))
        .collect();
    let english = by_name("English")?;
    let mut candidates: Vec<&'static Language> = Vec::new();
    if supported.contains(&english) {
        candidates.push(english);
    }
    candidates.extend(supported.iter().copied().filter(|l| *l != english));
    let dialogs: Vec<BTreeSet<String>> = project
        .files
        .iter()
        .filter(|(path, _)| path.to_ascii_lowercase().ends_with(".dlg"))
        .filter_map(|(path, bytes)| choreo_xar::package::read_dlg(path, bytes).ok())
        .map(|d| d.value.topics.into_iter().map(|t| t.language).collect())
        .collect();
    let chosen = candidates
        .iter()
        .copied()
        .find(|l| dialogs.iter().all(|codes| codes.contains(l.code)))
        .or_else(|| candidates.first().copied())?;
    (chosen != english).then_some(chosen)
}
