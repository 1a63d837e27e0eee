//! What a project implies about the robot that runs it, where its manifest is silent: the
//! robot's model and the language it speaks, each with the reason a run's report gives.
//!
//! Why: Choregraphe writes `en_US` into every manifest it makes and names a robot only when
//! the author sets one, so a Pepper project or a French one usually says neither. A robot
//! ran it as what it was made for; choreo reads that from the project's content
//! (docs/box-environment.md, "The robot's model and language").

use std::collections::BTreeSet;

use choreo_robot::Model;
use choreo_robot::languages::{LANGUAGES, Language, by_code, by_locale, by_name};
use choreo_xar::source::Project;

/// A choice and why it was made (a phrase for the report: "the manifest asks for it").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implied<T> {
    /// What was chosen.
    pub value: T,
    /// Why, for the report.
    pub why: String,
}

/// The language a robot running the package speaks, when not English (a robot's default).
///
/// First the manifest: among the languages it says the package supports (English first,
/// then the manifest's order), the first one every dialog (`.dlg`) the project's behaviors
/// load (every dialog of the project when they load none) has a topic in; when none has them all, English if the manifest lists it, else its first
/// language a robot has. Then the content: when no topic or dialog of the project exists in
/// that language and all of them share another one, that one (a French-only project keeps
/// Choregraphe's default `en_US` manifest, and on its French robot it spoke French).
pub fn language(project: &Project) -> Option<Implied<&'static Language>> {
    let english = by_name("English")?;
    let supported: Vec<&'static Language> = project
        .manifest
        .as_ref()
        .map(|m| {
            m.supported_languages
                .iter()
                .filter_map(|l| by_locale(l))
                .collect()
        })
        .unwrap_or_default();
    let mut candidates: Vec<&'static Language> = Vec::new();
    if supported.is_empty() || supported.contains(&english) {
        candidates.push(english);
    }
    candidates.extend(supported.iter().copied().filter(|l| *l != english));
    let topics = topic_languages(project);
    let dialogs: Vec<&BTreeSet<String>> = topics
        .iter()
        .filter(|t| t.dialog)
        .map(|t| &t.codes)
        .collect();
    let by_manifest = candidates
        .iter()
        .copied()
        .find(|l| dialogs.iter().all(|codes| codes.contains(l.code)))
        .or_else(|| candidates.first().copied())?;
    if !topics.is_empty() && topics.iter().all(|t| !t.codes.contains(by_manifest.code)) {
        // Every topic and dialog shares these; the manifest's order first, then NAOqi's.
        let shared = LANGUAGES
            .iter()
            .filter(|l| topics.iter().all(|t| t.codes.contains(l.code)));
        let preferred = supported
            .iter()
            .copied()
            .chain(shared.clone())
            .find(|l| topics.iter().all(|t| t.codes.contains(l.code)));
        if let Some(l) = preferred {
            return Some(Implied {
                value: l,
                why: format!(
                    "no topic or dialog of the project is in {}; all of them are in {}",
                    by_manifest.name, l.name
                ),
            });
        }
    }
    (by_manifest != english).then(|| Implied {
        value: by_manifest,
        why: "the manifest's supported languages".to_string(),
    })
}

/// The languages one topic file or dialog of the project is written in.
struct Topics {
    /// A `.dlg` (its topics' codes) rather than a lone `.top` (its own code).
    dialog: bool,
    codes: BTreeSet<String>,
}

/// Every `.dlg` of the project with its topics' languages, and every `.top` no `.dlg`
/// names with its `language:` line (else the `_frf.top` ending Choregraphe gives it).
fn topic_languages(project: &Project) -> Vec<Topics> {
    let mut named: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    let used = used_dialogs(project);
    // A `.top` beside a `.dlg` is that dialog's (Choregraphe keeps each dialog's files in a
    // folder of its own), even where the `.dlg` cannot be read (a Leonding project's
    // `ExampleDialog.dlg` holds a copy of its `.pml`): it is no lone topic.
    let mut dialog_folders: BTreeSet<&str> = BTreeSet::new();
    for (path, bytes) in project.files.iter() {
        if !path.to_ascii_lowercase().ends_with(".dlg") {
            continue;
        }
        dialog_folders.insert(path.rsplit_once('/').map_or("", |(f, _)| f));
        let Ok(dlg) = choreo_xar::project_files::read_dlg(path, bytes) else {
            continue;
        };
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        let mut codes = BTreeSet::new();
        // An unused dialog's topics are no lone topics either: they say nothing too.
        for t in dlg.value.topics {
            named.insert(join(folder, &t.file));
            codes.insert(t.language);
        }
        if used.is_empty() || used.contains(path.as_str()) {
            out.push(Topics {
                dialog: true,
                codes,
            });
        }
    }
    for (path, bytes) in project.files.iter() {
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        if !path.to_ascii_lowercase().ends_with(".top")
            || named.contains(path.as_str())
            || dialog_folders.contains(folder)
        {
            continue;
        }
        let Ok(top) = choreo_xar::project_files::read_top(path, bytes) else {
            continue;
        };
        let code = top.value.language.or_else(|| {
            let stem = path.rsplit_once('.').map_or(path.as_str(), |(s, _)| s);
            let (_, code) = stem.rsplit_once('_')?;
            by_code(code).map(|l| l.code.to_string())
        });
        if let Some(code) = code {
            out.push(Topics {
                dialog: false,
                codes: BTreeSet::from([code]),
            });
        }
    }
    out
}

/// `file` (relative, maybe with `..`) from tree folder `folder`, as a tree path.
/// The dialogs (`.dlg`, paths in the project) the Dialog boxes of the project's behaviors
/// load: a project's other dialogs (an example Choregraphe made, a dialog another language's
/// robot used) say nothing of the language these behaviors are run in.
fn used_dialogs(project: &Project) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for behavior in &project.behaviors {
        let folder = behavior.path.rsplit_once('/').map_or("", |(f, _)| f);
        let mut todo = vec![&behavior.xar.root_box];
        while let Some(def) = todo.pop() {
            todo.extend(def.diagrams().flat_map(|d| d.boxes.iter()));
            if let Some(file) = &def.dialog_file {
                used.insert(join(folder, &file.replace('\\', "/")));
            }
        }
    }
    used
}

fn join(folder: &str, file: &str) -> String {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in file.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The robot the project was made for: the manifest's `robotRequirement` when it names
/// one; else what the content shows (a timeline moving joints only one robot has or made
/// for one, box code calling modules only one robot has); `None` when nothing names one (a
/// robot then is a NAO, the default of Choregraphe's own virtual robot).
pub fn model(project: &Project) -> Option<Implied<Model>> {
    if let (Some(value), Some(m)) = (manifest_model(project), &project.manifest) {
        return Some(Implied {
            value,
            why: format!("the manifest asks for {}", m.robot_models.join(", ")),
        });
    }
    let evidence = model_evidence(project);
    let votes = |model: Model| evidence.iter().filter(|(m, _)| *m == model).count();
    let (pepper, nao) = (votes(Model::Pepper), votes(Model::Nao));
    let value = if pepper > nao {
        Model::Pepper
    } else {
        Model::Nao
    };
    let (_, first) = evidence.iter().find(|(m, _)| *m == value)?;
    let more = pepper.max(nao) - 1;
    let why = match more {
        0 => format!("the manifest names no robot; {first}"),
        _ => format!("the manifest names no robot; {first}, and {more} more sign(s)"),
    };
    Some(Implied { value, why })
}

/// Each sign of a model in the project's content, with the phrase that names it.
fn model_evidence(project: &Project) -> Vec<(Model, String)> {
    let mut out = Vec::new();
    for b in &project.behaviors {
        b.xar.root_box.walk(&mut |bx| {
            if let Some(list) = bx.timeline.as_ref().and_then(|t| t.actuator_list.as_ref()) {
                // A muted curve is not played: it tells nothing of the robot.
                let joints = list
                    .curves
                    .iter()
                    .filter(|c| c.mute != Some(true))
                    .map(|c| c.actuator.as_str());
                if let Some(m) = Model::detect(list.model.as_deref(), joints) {
                    out.push((
                        m,
                        format!("the timeline of {:?} is made for {}", bx.name, m.name()),
                    ));
                }
            }
            if let Some(code) = bx.script.as_ref().and_then(|s| s.content.as_ref()) {
                for (m, module) in choreo_robot::naoqi::Catalogue::naoqi().only_on_one(&code.code) {
                    out.push((
                        m,
                        format!(
                            "box {:?} calls {module}, which only {} has",
                            bx.name,
                            m.name()
                        ),
                    ));
                }
            }
        });
    }
    for (path, bytes) in project.files.iter() {
        if path.ends_with(".py")
            && let Ok(code) = std::str::from_utf8(bytes)
        {
            for (m, module) in choreo_robot::naoqi::Catalogue::naoqi().only_on_one(code) {
                out.push((
                    m,
                    format!("{path} calls {module}, which only {} has", m.name()),
                ));
            }
        }
    }
    out
}

/// The robot the package's manifest asks for (Pepper for `JULIETTE` models); None without
/// a manifest or when it names no robot (Choregraphe's default).
pub fn manifest_model(project: &Project) -> Option<Model> {
    project
        .manifest
        .as_ref()
        .filter(|m| !m.robot_models.is_empty())
        .map(|m| Model::required_by(&m.robot_models))
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    /// The manifest Choregraphe writes: `en_US` whatever the project speaks, no robot.
    const DEFAULT_MANIFEST: &str = "<?xml version='1.0' encoding='UTF-8'?>\n<package uuid=\"p-1\" version=\"0.0.0\"><names><name lang=\"en_US\">P</name></names><supportedLanguages><language>en_US</language></supportedLanguages><requirements/></package>\n";
    const PML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Package name=\"P\" format_version=\"4\"><Manifest src=\"manifest.xml\" /><BehaviorDescriptions><BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" /></BehaviorDescriptions><Dialogs><Dialog name=\"greet\" src=\"greet/greet.dlg\" /></Dialogs></Package>\n";

    /// A behavior whose one box runs `code` and whose timeline (if `model` is given) moves
    /// `joint`.
    fn xar(code: &str, timeline: Option<(&str, &str)>) -> String {
        let ports = r#"<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="1"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="2"/>"#;
        let timeline = timeline.map_or(String::new(), |(model, joint)| {
            format!(
                r#"<Box name="Move" id="2">{ports}<Timeline enable="1" fps="25" size="10"><ActuatorList model="{model}"><ActuatorCurve actuator="{joint}"><Key frame="5" value="1"/></ActuatorCurve></ActuatorList></Timeline></Box>"#
            )
        });
        format!(
            r#"<?xml version="1.0" encoding="UTF-8" ?><ChoregrapheProject xar_version="3"><Box name="root" id="-1">{ports}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram><Box name="Show" id="1">{ports}<script language="4"><content><![CDATA[{code}]]></content></script></Box>{timeline}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
        )
    }

    fn project(files: &[(&str, &[u8])]) -> Project {
        let tree = files
            .iter()
            .map(|(p, b)| (p.to_string(), b.to_vec()))
            .collect();
        let project = choreo_xar::source::load_tree("p", tree).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(project.behaviors.len(), 1, "{:?}", project.warnings);
        project
    }

    fn with_dialog(dlg: &[u8], top: (&str, &[u8])) -> Project {
        let xar = xar("class MyClass(GeneratedClass):\n    pass\n", None);
        project(&[
            ("P.pml", PML.as_bytes()),
            ("manifest.xml", DEFAULT_MANIFEST.as_bytes()),
            ("behavior_1/behavior.xar", xar.as_bytes()),
            ("greet/greet.dlg", dlg),
            (top.0, top.1),
        ])
    }

    #[test]
    fn a_french_only_project_with_choregraphe_s_manifest_is_spoken_in_french() {
        let p = with_dialog(
            b"multilanguage:greet\nfrf:greet_frf.top\n",
            (
                "greet/greet_frf.top",
                b"topic: ~greet()\nlanguage: frf\nu:(bonjour) salut\n",
            ),
        );
        let chosen = language(&p).expect("not English");
        assert_eq!(chosen.value.name, "French");
        assert_eq!(
            chosen.why,
            "no topic or dialog of the project is in English; all of them are in French"
        );
    }

    #[test]
    fn a_project_with_an_english_topic_stays_in_english() {
        let p = with_dialog(
            b"multilanguage:greet\nenu:greet_enu.top\nfrf:greet_frf.top\n",
            (
                "greet/greet_frf.top",
                b"topic: ~greet()\nlanguage: frf\nu:(bonjour) salut\n",
            ),
        );
        assert_eq!(language(&p), None);
    }

    /// The RoboCupJr. projects' layout: the manifest lists English and German; the
    /// behavior's Dialog box loads a German-only dialog; Choregraphe's example dialog, in
    /// English only, is loaded by no box.
    #[test]
    fn the_dialogs_the_behavior_loads_choose_among_the_manifest_s_languages() {
        let manifest = DEFAULT_MANIFEST.replace(
            "<language>en_US</language>",
            "<language>en_US</language><language>de_DE</language>",
        );
        let with_box = |dialog: &str| {
            xar("class MyClass(GeneratedClass):\n    pass\n", None).replace(
                "<Box name=\"Show\" id=\"1\">",
                &format!("<Box name=\"Show\" id=\"1\"><dialogFile>{dialog}</dialogFile>"),
            )
        };
        let files = |xar: &str| {
            project(&[
                ("P.pml", PML.as_bytes()),
                ("manifest.xml", manifest.as_bytes()),
                ("behavior_1/behavior.xar", xar.as_bytes()),
                (
                    "GetName/GetName.dlg",
                    b"multilanguage:GetName\nged:GetName_ged.top\n",
                ),
                (
                    "GetName/GetName_ged.top",
                    b"topic: ~GetName()\nlanguage: ged\n",
                ),
                (
                    "behavior_1/Example/Example.dlg",
                    b"multilanguage:Example\nenu:Example_enu.top\n",
                ),
                (
                    "behavior_1/Example/Example_enu.top",
                    b"topic: ~Example()\nlanguage: enu\n",
                ),
            ])
        };
        let german = files(&with_box("../GetName/GetName.dlg"));
        assert_eq!(language(&german).map(|l| l.value.name), Some("German"));
        // A box that loads the English one: English; no Dialog box: every dialog counts,
        // none is in both, English first.
        assert_eq!(language(&files(&with_box("Example/Example.dlg"))), None);
        let none = xar("class MyClass(GeneratedClass):\n    pass\n", None);
        assert_eq!(language(&files(&none)), None);
    }

    /// The Leonding Sektbar layout: Choregraphe's default manifest (English alone), a box
    /// that loads a German-only dialog, and Choregraphe's example dialog in English, which no
    /// box loads: its topic is no lone topic, so nothing the behavior loads is in English;
    /// nor when the example's `.dlg` cannot be read (the Damenspenden copy's holds its `.pml`).
    #[test]
    fn an_unused_dialogs_topic_does_not_keep_english() {
        for example in [
            &b"multilanguage:ExampleDialog\nenu:ExampleDialog_enu.top\n"[..],
            PML.as_bytes(),
        ] {
            unused_example_dialog(example);
        }
    }

    fn unused_example_dialog(example: &[u8]) {
        let xar = xar("class MyClass(GeneratedClass):\n    pass\n", None).replace(
            "<Box name=\"Show\" id=\"1\">",
            "<Box name=\"Show\" id=\"1\"><dialogFile>../Sentences/Sentences.dlg</dialogFile>",
        );
        let p = project(&[
            ("P.pml", PML.as_bytes()),
            ("manifest.xml", DEFAULT_MANIFEST.as_bytes()),
            ("behavior_1/behavior.xar", xar.as_bytes()),
            (
                "Sentences/Sentences.dlg",
                b"multilanguage:Sentences\nged:Sentences_ged.top\n",
            ),
            (
                "Sentences/Sentences_ged.top",
                b"topic: ~Sentences()\nlanguage: ged\n",
            ),
            ("behavior_1/ExampleDialog/ExampleDialog.dlg", example),
            (
                "behavior_1/ExampleDialog/ExampleDialog_enu.top",
                b"topic: ~ExampleDialog()\nlanguage: enu\n",
            ),
        ]);
        assert_eq!(language(&p).map(|l| l.value.name), Some("German"));
    }

    #[test]
    fn a_latin_1_dlg_is_read_with_a_notice_and_its_language_counts() {
        // Choregraphe on Windows wrote `é` as the byte 0xE9.
        let dlg = b"multilanguage:accueil_\xe9t\xe9\nfrf:greet_frf.top\n";
        let parsed = choreo_xar::project_files::read_dlg("greet/greet.dlg", dlg).expect("read");
        assert_eq!(parsed.value.name, "accueil_été");
        assert_eq!(parsed.warnings.len(), 1);
        assert!(
            parsed.warnings[0].to_string().contains("read as Latin-1"),
            "{:?}",
            parsed.warnings
        );
        let p = with_dialog(
            dlg,
            ("greet/greet_frf.top", b"topic: ~greet()\nlanguage: frf\n"),
        );
        assert_eq!(language(&p).map(|l| l.value.name), Some("French"));
    }

    #[test]
    fn a_lone_topic_tells_its_language_by_its_header_or_its_name() {
        let xar = xar("class MyClass(GeneratedClass):\n    pass\n", None);
        for (name, text) in [
            (
                "behavior_1/quiz.top",
                &b"topic: ~quiz()\nlanguage: ged\n"[..],
            ),
            ("behavior_1/quiz_ged.top", &b"topic: ~quiz()\n"[..]),
        ] {
            let p = project(&[
                ("P.pml", PML.as_bytes()),
                ("manifest.xml", DEFAULT_MANIFEST.as_bytes()),
                ("behavior_1/behavior.xar", xar.as_bytes()),
                (name, text),
            ]);
            assert_eq!(language(&p).map(|l| l.value.name), Some("German"), "{name}");
        }
    }

    fn model_of(
        code: &str,
        timeline: Option<(&str, &str)>,
        manifest: &str,
    ) -> Option<Implied<Model>> {
        let xar = xar(code, timeline);
        model(&project(&[
            ("P.pml", PML.as_bytes()),
            ("manifest.xml", manifest.as_bytes()),
            ("behavior_1/behavior.xar", xar.as_bytes()),
        ]))
    }

    #[test]
    fn the_model_follows_the_content_when_the_manifest_is_silent() {
        let tablet = "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        ALProxy(\"ALTabletService\").showWebview()\n";
        let pepper = model_of(tablet, None, DEFAULT_MANIFEST).expect("a sign");
        assert_eq!(pepper.value, Model::Pepper);
        assert_eq!(
            pepper.why,
            "the manifest names no robot; box \"Show\" calls ALTabletService, which only Pepper has"
        );
        let plain = "class MyClass(GeneratedClass):\n    pass\n";
        // Pepper's own joints (KneePitch), whatever the hint.
        let knee = model_of(plain, Some(("", "KneePitch")), DEFAULT_MANIFEST).expect("a sign");
        assert_eq!(knee.value, Model::Pepper);
        // NAO's legs.
        let legs = model_of(plain, Some(("juliette", "LAnklePitch")), DEFAULT_MANIFEST);
        assert_eq!(legs.map(|m| m.value), Some(Model::Nao));
        // Nothing names a robot.
        assert_eq!(
            model_of(plain, Some(("", "HeadYaw")), DEFAULT_MANIFEST),
            None
        );
        // The manifest wins.
        let nao = DEFAULT_MANIFEST.replace(
            "<requirements/>",
            "<requirements><robotRequirement model=\"NAO\"/></requirements>",
        );
        let asked = model_of(tablet, None, &nao).expect("the manifest");
        assert_eq!(
            (asked.value, asked.why.as_str()),
            (Model::Nao, "the manifest asks for NAO")
        );
    }
}
