//! The stock animation library of NAO and Pepper as data: each animation's name, how long it
//! plays and its tags (the sets ALAnimationPlayer's `runTag` and ALAnimatedSpeech's
//! `^startTag` choose from), read once from `data/animations.txt` ([`Library::stock`]); and how
//! ALAnimationPlayer reads a name ([`expand`]: the `animations` package, `[posture]` by the
//! posture family's folder, `[robot]`), finds an animation, the animations of a tag under a
//! folder, and the closest names.
//!
//! The file has a `[NAO]` and a `[Pepper]` section, one line an animation:
//! `path | seconds source | tags`. The path is under the `animations` package; the seconds are
//! its length; the source says where that length comes from (`xar`: measured on the stock
//! behavior, the last key of its timeline over its fps; `nao`: Pepper's, taken from NAO's
//! animation of the same path; `default`: 2.0 s where no source says); the tags are its
//! manifest's. NAO's 867 animations and their tags are those of the NAO animation library 7.0.3
//! (NAOqi 2.8; 864 measured, 3 without a timeline at 2.0 s); Pepper's 92 names are the NAOqi 2.5
//! documentation's list and the corpus's `ShowTablet_1`. `scripts/animation-library` rewrites
//! the sections from a copy of the package.
//!
//! Its users: the simulated robot's ALAnimationPlayer and ALAnimatedSpeech (choreo-naoqi's
//! `animation.rs` and `animated_speech.rs`: each animation's length, and the gesture its tags
//! choose).
//!
//! ```
//! use choreo_robot::Model;
//! use choreo_robot::animations::Library;
//! let hey = Library::stock().find(Model::Nao, "animations/Stand/Gestures/Hey_1");
//! assert_eq!(hey.map(|a| a.seconds), Some(4.24));
//! assert!(hey.is_some_and(|a| a.has_tag("hello")));
//! let hello = Library::stock().tagged(Model::Pepper, "hello", "animations/Stand/").next();
//! assert_eq!(hello.map(|a| a.path), Some("Stand/Gestures/Hey_1"));
//! ```

use std::fmt;
use std::sync::OnceLock;

use crate::Model;

/// The library's text (see its header for the format).
const TEXT: &str = include_str!("../data/animations.txt");

/// The package holding the stock animations: a name is `animations/` + an animation's path.
pub const PACKAGE: &str = "animations";

/// Where an animation's length comes from (the data file's header says more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Measured on the stock behavior: its timeline's last key over its fps (`xar`).
    Behavior,
    /// No source for Pepper's: NAO's animation of the same path (`nao`).
    Nao,
    /// No source at all: [`DEFAULT_SECONDS`] (`default`).
    Default,
}

impl Source {
    fn from_mark(mark: &str) -> Option<Source> {
        match mark {
            "xar" => Some(Source::Behavior),
            "nao" => Some(Source::Nao),
            "default" => Some(Source::Default),
            _ => None,
        }
    }
}

/// The length taken for an animation no source measures (docs/simulated-robot.md, Durations).
pub const DEFAULT_SECONDS: f64 = 2.0;

/// One stock animation.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Its path in the package, such as `Stand/Gestures/Hey_1`.
    pub path: &'static str,
    /// How long it plays, in seconds.
    pub seconds: f64,
    /// Where that length comes from.
    pub source: Source,
    /// Its tags, such as `hello`, `hey`, `hi`.
    pub tags: Vec<&'static str>,
}

impl Animation {
    /// The name scripts give it: `animations/Stand/Gestures/Hey_1`.
    pub fn name(&self) -> String {
        format!("{PACKAGE}/{}", self.path)
    }

    /// Whether it has tag `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.contains(&tag)
    }

    /// Whether its name starts with `prefix` (a folder such as `animations/Stand/`).
    pub fn is_under(&self, prefix: &str) -> bool {
        prefix
            .strip_prefix(PACKAGE)
            .and_then(|p| p.strip_prefix('/'))
            .is_some_and(|p| self.path.starts_with(p))
    }
}

/// The library: NAO's animations and Pepper's, in the data file's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Library {
    nao: Vec<Animation>,
    pepper: Vec<Animation>,
}

/// A line of the library's text that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for LibraryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "animation library line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LibraryError {}

impl Library {
    /// The stock library, parsed once from `data/animations.txt` (a test keeps it well
    /// formed; were it not, this would be the empty library).
    pub fn stock() -> &'static Library {
        static LIBRARY: OnceLock<Library> = OnceLock::new();
        LIBRARY.get_or_init(|| Library::parse(TEXT).unwrap_or_default())
    }

    /// Reads a library in the format of `data/animations.txt`: section lines `[NAO]` and
    /// `[Pepper]`, then `path | seconds source | tags` lines, `#` comments. Checks every
    /// field, and that no path comes twice in a section.
    pub fn parse(text: &'static str) -> Result<Library, LibraryError> {
        let mut library = Library::default();
        for item in crate::model::sectioned(text, "an animation") {
            let (line, model, content) =
                item.map_err(|(line, message)| LibraryError { line, message })?;
            let fail = |message: String| LibraryError { line, message };
            let [path, timing, tags] = content.split('|').map(str::trim).collect::<Vec<_>>()[..]
            else {
                return Err(fail(
                    "an animation needs `path | seconds source | tags`".into(),
                ));
            };
            let [seconds, source] = timing.split_whitespace().collect::<Vec<_>>()[..] else {
                return Err(fail(format!("{timing:?} is not `seconds source`")));
            };
            let seconds: f64 = seconds
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 0.0)
                .ok_or_else(|| fail(format!("{seconds:?} is not a positive length")))?;
            let source = Source::from_mark(source)
                .ok_or_else(|| fail(format!("{source:?} is not a source")))?;
            if path.is_empty() || path.starts_with('/') || path.ends_with('/') {
                return Err(fail(format!("{path:?} is not an animation path")));
            }
            let list = library.of_mut(model);
            if list.iter().any(|a| a.path == path) {
                return Err(fail(format!("{path} comes twice for {}", model.name())));
            }
            list.push(Animation {
                path,
                seconds,
                source,
                tags: tags
                    .split(';')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect(),
            });
        }
        Ok(library)
    }

    fn of_mut(&mut self, model: Model) -> &mut Vec<Animation> {
        match model {
            Model::Nao => &mut self.nao,
            Model::Pepper => &mut self.pepper,
        }
    }

    /// The animations `model` has.
    pub fn of(&self, model: Model) -> &[Animation] {
        match model {
            Model::Nao => &self.nao,
            Model::Pepper => &self.pepper,
        }
    }

    /// The animation named `name` (`animations/...`) on `model`.
    pub fn find(&self, model: Model, name: &str) -> Option<&Animation> {
        let path = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
        self.of(model).iter().find(|a| a.path == path)
    }

    /// The animations of `model` under `prefix` (such as `animations/Stand/`) with tag
    /// `tag`, in the library's order.
    pub fn tagged<'a>(
        &'a self,
        model: Model,
        tag: &'a str,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a Animation> + 'a {
        self.of(model)
            .iter()
            .filter(move |a| a.has_tag(tag) && a.is_under(prefix))
    }

    /// Every tag of `model`'s animations under `prefix`, each once, sorted.
    pub fn tags(&self, model: Model, prefix: &str) -> Vec<&'static str> {
        let mut tags: Vec<&'static str> = self
            .of(model)
            .iter()
            .filter(|a| a.is_under(prefix))
            .flat_map(|a| a.tags.iter().copied())
            .collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    }

    /// Up to `count` names of `model`'s animations closest to `name` by edit distance,
    /// nearest first, none further than a third of `name`'s length (at least 2).
    pub fn closest(&self, model: Model, name: &str, count: usize) -> Vec<String> {
        let limit = (name.chars().count() / 3).max(2);
        let mut scored: Vec<(usize, String)> = self
            .of(model)
            .iter()
            .map(|a| a.name())
            .map(|n| (crate::naoqi::edit_distance(name, &n), n))
            .filter(|(d, n)| *d <= limit && n != name)
            .collect();
        scored.sort();
        scored.into_iter().take(count).map(|(_, n)| n).collect()
    }

    /// The median length of `model`'s animations under `prefix`, if it has any.
    pub fn median_seconds(&self, model: Model, prefix: &str) -> Option<f64> {
        let mut lengths: Vec<f64> = self
            .of(model)
            .iter()
            .filter(|a| a.is_under(prefix))
            .map(|a| a.seconds)
            .collect();
        lengths.sort_by(f64::total_cmp);
        let n = lengths.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(lengths[n / 2]),
            _ => Some((lengths[n / 2 - 1] + lengths[n / 2]) / 2.0),
        }
    }
}

/// The folder of the stock library a posture family plays from, what ALAnimationPlayer puts
/// for `[posture]`: `Stand` (Standing), `Sit` (Sitting), `SitOnPod` (SittingOnChair); none
/// for another family (the path is then not valid).
pub fn posture_folder(family: &str) -> Option<&'static str> {
    match family {
        "Standing" => Some("Stand"),
        "Sitting" => Some("Sit"),
        "SittingOnChair" => Some("SitOnPod"),
        _ => None,
    }
}

/// What ALAnimationPlayer puts for `[robot]`: `Nao` or `Pepper`.
pub fn robot_folder(model: Model) -> &'static str {
    match model {
        Model::Nao => "Nao",
        Model::Pepper => "Pepper",
    }
}

/// `name` with ALAnimationPlayer's patterns replaced: `[posture]` by the folder of posture
/// family `family` ([`posture_folder`]), `[robot]` by [`robot_folder`]. An error names the
/// pattern that cannot be replaced.
pub fn expand(name: &str, model: Model, family: &str) -> Result<String, NoPostureFolder> {
    let mut out = name.replace("[robot]", robot_folder(model));
    if out.contains("[posture]") {
        let folder = posture_folder(family).ok_or_else(|| NoPostureFolder {
            family: family.to_string(),
        })?;
        out = out.replace("[posture]", folder);
    }
    Ok(out)
}

/// `[posture]` in an animation's name while the robot is in a posture family that has no
/// folder of animations (ALAnimationPlayer fails so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPostureFolder {
    /// The robot's posture family.
    pub family: String,
}

impl fmt::Display for NoPostureFolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[posture] has no folder in the posture family {:?} (Standing, Sitting and \
             SittingOnChair have one)",
            self.family
        )
    }
}

impl std::error::Error for NoPostureFolder {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_is_well_formed() {
        let parsed = Library::parse(TEXT);
        assert!(parsed.is_ok(), "{:?}", parsed.err());
        let library = Library::stock();
        assert!(
            library.of(Model::Nao).len() >= 860,
            "{}",
            library.of(Model::Nao).len()
        );
        assert!(library.of(Model::Pepper).len() >= 90);
        // Every Pepper figure says where it comes from, and NAO's measured ones are NAO's.
        for a in library.of(Model::Pepper) {
            assert_ne!(a.source, Source::Behavior, "{}", a.path);
            if a.source == Source::Nao {
                let nao = library.find(Model::Nao, &a.name());
                assert_eq!(nao.map(|n| n.seconds), Some(a.seconds), "{}", a.path);
            }
        }
        let measured = library
            .of(Model::Nao)
            .iter()
            .filter(|a| a.source == Source::Behavior)
            .count();
        assert!(measured >= 860, "{measured}");
    }

    #[test]
    fn the_names_the_corpus_uses_are_there() {
        let library = Library::stock();
        for name in [
            "animations/Stand/Gestures/Hey_1",
            "animations/Stand/Gestures/YouKnowWhat_1",
            "animations/Stand/Gestures/Hey_6",
            "animations/Stand/Gestures/Hey_5",
            "animations/Stand/Gestures/Hey_2",
            "animations/Stand/Emotions/Negative/Sorry_1",
            "animations/Stand/Waiting/Think_2",
            "animations/Stand/Gestures/Salute_3",
            "animations/Stand/Emotions/Positive/Laugh_3",
            "animations/Stand/Emotions/Positive/Happy_1",
            "animations/Stand/Emotions/Negative/Sad_1",
        ] {
            assert!(library.find(Model::Nao, name).is_some(), "{name}");
        }
        for name in [
            "animations/Stand/Gestures/Hey_1",
            "animations/Stand/Gestures/ShowTablet_1",
            "animations/Stand/Waiting/Think_2",
        ] {
            assert!(library.find(Model::Pepper, name).is_some(), "{name}");
        }
        assert!(
            library
                .find(Model::Pepper, "animations/Sit/Gestures/Hey_3")
                .is_none()
        );
        assert!(
            library.find(Model::Nao, "Stand/Gestures/Hey_1").is_none(),
            "no package"
        );
    }

    #[test]
    fn tags_group_animations_as_the_manifest_does() {
        let library = Library::stock();
        let hello: Vec<&str> = library
            .tagged(Model::Nao, "hello", "animations/Stand/")
            .map(|a| a.path)
            .collect();
        assert!(hello.contains(&"Stand/Gestures/Hey_1"), "{hello:?}");
        assert!(hello.iter().all(|p| p.starts_with("Stand/")));
        let yes = library
            .tagged(Model::Nao, "yes", "animations/Stand/Gestures")
            .count();
        assert!(yes >= 3, "{yes}");
        assert!(
            library
                .tags(Model::Nao, "animations/Sit/")
                .contains(&"happy")
        );
        assert_eq!(
            library
                .tagged(Model::Nao, "no-such-tag", "animations/")
                .count(),
            0
        );
    }

    #[test]
    fn names_are_expanded_and_close_names_proposed() {
        assert_eq!(
            expand("animations/[posture]/Gestures/Hey_1", Model::Nao, "Sitting"),
            Ok("animations/Sit/Gestures/Hey_1".to_string())
        );
        assert_eq!(
            expand("my_dances/[robot]/salsa", Model::Pepper, "Unknown"),
            Ok("my_dances/Pepper/salsa".to_string())
        );
        let crouching = expand(
            "animations/[posture]/Gestures/Hey_1",
            Model::Nao,
            "Crouching",
        );
        assert!(crouching.is_err_and(|e| e.to_string().contains("Crouching")));
        let near = Library::stock().closest(Model::Nao, "animations/Stand/Gestures/Hey_9", 3);
        assert!(near.iter().any(|n| n.ends_with("Hey_1")), "{near:?}");
        let median =
            Library::stock().median_seconds(Model::Nao, "animations/Stand/BodyTalk/Speaking/");
        assert!(
            median.is_some_and(|m| (1.0..4.0).contains(&m)),
            "{median:?}"
        );
    }

    #[test]
    fn malformed_libraries_are_refused_with_their_line() {
        let cases: [(&'static str, usize, &str); 6] = [
            ("a | 1.0 xar | t\n", 1, "before any section"),
            ("[Robby]\n", 1, "unknown section"),
            ("[NAO]\na | 1.0 xar\n", 2, "needs"),
            ("[NAO]\na | -1 xar | \n", 2, "positive"),
            ("[NAO]\na | 1.0 guess | \n", 2, "not a source"),
            ("[NAO]\na | 1.0 xar | \na | 2.0 xar | \n", 3, "twice"),
        ];
        for (text, line, says) in cases {
            let err = Library::parse(text).err();
            assert_eq!(err.as_ref().map(|e| e.line), Some(line), "{text}");
            assert!(err.is_some_and(|e| e.message.contains(says)), "{text}");
        }
    }
}
