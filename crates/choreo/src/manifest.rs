//! What a package's manifest says about the robot that runs it, beyond its model.

use choreo_robot::languages::{Language, by_locale};
use choreo_xar::source::Project;

/// The language a robot running the package speaks, when its manifest says the package
/// does not speak English (a robot's default): the first of its supported languages that a
/// robot has. A German-only package runs on a robot set to German.
pub fn language(project: &Project) -> Option<&'static Language> {
    let supported = &project.manifest.as_ref()?.supported_languages;
    if supported.is_empty() || supported.iter().any(|l| l == "en_US") {
        return None;
    }
    supported.iter().find_map(|l| by_locale(l))
}
