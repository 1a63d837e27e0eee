//! Every `.pml`, `manifest.xml`, `.dlg` and `.top` of the shared corpus: reads, or fails with
//! the documented error (AppleDouble junk, the `.dlg` holding a `.pml`); `.pml` and manifest
//! files round-trip (read -> write -> read gives an equal value and equivalent XML).

use crate::support;

use std::path::{Path, PathBuf};

use choreo_xar::ErrorKind;
use choreo_xar::project_files::{
    read_dlg, read_manifest, read_pml, read_top, write_manifest, write_pml,
};
use choreo_xar::source::{FileKind, sniff};

/// The corpus files named `*.ext` (or `manifest.xml`), at least `at_least` of them.
fn corpus_files(ext: &str, at_least: usize) -> Option<Vec<PathBuf>> {
    support::corpus_files(&format!("{ext} files"), at_least, &|p: &Path| {
        if ext == "manifest.xml" {
            p.file_name().is_some_and(|n| n == "manifest.xml")
        } else {
            p.extension().is_some_and(|e| e == ext)
        }
    })
}

fn is_apple_double(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("._"))
}

/// Reads, writes and rereads every file; returns (round-tripped, AppleDouble skipped).
fn round_trip<T: PartialEq + std::fmt::Debug>(
    files: &[PathBuf],
    read: impl Fn(&str, &[u8]) -> choreo_xar::Result<choreo_xar::Parsed<T>>,
    write: impl Fn(&T) -> String,
) -> (usize, usize) {
    let (mut ok, mut junk, mut identical) = (0, 0, 0);
    let mut failures = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).unwrap();
        if is_apple_double(f) {
            assert_eq!(sniff(&name, &bytes), Some(FileKind::AppleDouble));
            let err = read(&name, &bytes).expect_err("AppleDouble junk is refused");
            assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
            assert!(err.to_string().contains("AppleDouble"), "{err}");
            junk += 1;
            continue;
        }
        let parsed = match read(&name, &bytes) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("read: {e}"));
                continue;
            }
        };
        let written = write(&parsed.value);
        match read(&name, written.as_bytes()) {
            Ok(again) if again.value == parsed.value => {}
            Ok(again) => failures.push(format!(
                "{name}: value differs after write/read:\n{:?}\n{:?}",
                parsed.value, again.value
            )),
            Err(e) => failures.push(format!("{name}: rereading the written XML: {e}")),
        }
        let original = String::from_utf8_lossy(&bytes);
        if let Err(d) = support::xml_equivalent(original.trim_start_matches('\u{feff}'), &written) {
            failures.push(format!("{name}: XML differs: {d}"));
        }
        ok += 1;
        identical += usize::from(written.as_bytes() == bytes.as_slice());
    }
    support::assert_no_failures(&failures);
    println!("{identical} of {ok} written back byte for byte");
    (ok, junk)
}

#[test]
fn every_corpus_pml_reads_and_round_trips() {
    let Some(files) = corpus_files("pml", 60) else {
        return;
    };
    let (ok, junk) = round_trip(&files, read_pml, write_pml);
    println!(
        ".pml corpus: {} files, {ok} round-tripped, {junk} AppleDouble files refused",
        files.len()
    );
    assert_eq!(junk, 2, "the corpus has two ._*.pml AppleDouble files");
    // Typed content of one well-known project.
    let hello = files
        .iter()
        .find(|f| f.ends_with("Hello World.pml"))
        .expect("Hello World.pml");
    let pml = read_pml("Hello World.pml", &std::fs::read(hello).unwrap())
        .unwrap()
        .value;
    assert_eq!(pml.name, "Hello World");
    assert_eq!(pml.format_version.as_deref(), Some("4"));
    assert_eq!(pml.manifest.as_deref(), Some("manifest.xml"));
    assert_eq!(pml.behaviors.len(), 1);
    assert_eq!(pml.behaviors[0].xar_path(), "behaviors/behavior.xar");
    assert_eq!(pml.dialogs.len(), 2);
    assert_eq!(pml.resources.len(), 14);
    assert_eq!(pml.topics.len(), 4);
    assert_eq!(pml.topics[1].language.as_deref(), Some("it_IT"));
    assert_eq!(
        pml.topics[1].topic_name.as_deref(),
        Some("main_with_tablet")
    );
    assert_eq!(pml.translations.len(), 2);
}

#[test]
fn every_corpus_manifest_reads_and_round_trips() {
    let Some(files) = corpus_files("manifest.xml", 50) else {
        return;
    };
    let (ok, _) = round_trip(&files, read_manifest, write_manifest);
    println!(
        "manifest.xml corpus: {} files, {ok} round-tripped",
        files.len()
    );
    let hello = files
        .iter()
        .find(|f| f.to_string_lossy().contains("choregraphe-hello-world"))
        .expect("hello-world manifest");
    let m = read_manifest("manifest.xml", &std::fs::read(hello).unwrap())
        .unwrap()
        .value;
    assert_eq!(m.uuid.as_deref(), Some("helloworld-1823f9"));
    assert_eq!(m.version.as_deref(), Some("0.1.0"));
    assert_eq!(m.names.len(), 2);
    assert_eq!(m.names[1].lang.as_deref(), Some("it_IT"));
    assert_eq!(m.names[1].text, "Ciao Mondo");
    assert_eq!(m.behaviors.len(), 1);
    let b = &m.behaviors[0];
    assert_eq!(b.xar_path(), "behaviors/behavior.xar");
    assert_eq!(b.nature.as_deref(), Some("interactive"));
    assert!(b.user_requestable);
    assert_eq!(b.trigger_sentences.len(), 2);
    assert_eq!(b.permissions, vec!["canRunOnPod".to_string()]);
    assert_eq!(m.naoqi_min_version.as_deref(), Some("2.5"));
    assert_eq!(m.robot_models, vec!["JULIETTE".to_string()]);
}

#[test]
fn every_corpus_dialog_reads_except_the_one_holding_a_pml() {
    let Some(files) = corpus_files("dlg", 80) else {
        return;
    };
    let (mut ok, mut wrong) = (0, 0);
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).unwrap();
        match read_dlg(&name, &bytes) {
            Ok(d) => {
                assert!(!d.value.name.is_empty());
                assert!(!d.value.topics.is_empty(), "{name}: no topics");
                for t in &d.value.topics {
                    assert_eq!(t.language.len(), 3, "{name}: language {:?}", t.language);
                    assert!(t.file.ends_with(".top"), "{name}: {:?}", t.file);
                }
                ok += 1;
            }
            Err(e) => {
                // Trap 7: one .dlg holds a .pml document.
                assert_eq!(e.kind(), ErrorKind::WrongRoot, "{e}");
                assert!(e.to_string().contains("<Package>"), "{e}");
                assert_eq!(e.diagnostic().position.map(|p| p.line), Some(2), "{e}");
                wrong += 1;
            }
        }
    }
    println!(
        ".dlg corpus: {} files, {ok} read, {wrong} refused (a .pml inside)",
        files.len()
    );
    // The same file is in the corpus twice (two copies of one project).
    assert_eq!(wrong, 1);
}

#[test]
fn every_corpus_topic_reads() {
    let Some(files) = corpus_files("top", 90) else {
        return;
    };
    let mut rules = 0;
    let mut languages = std::collections::BTreeMap::new();
    for f in &files {
        let name = f.display().to_string();
        let t = read_top(&name, &std::fs::read(f).unwrap())
            .unwrap_or_else(|e| panic!("{e}"))
            .value;
        assert!(!t.name.is_empty());
        let lang = t
            .language
            .clone()
            .unwrap_or_else(|| panic!("{name}: no language"));
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        // Topic files are named <topic>_<lang>.top.
        if let Some((_, suffix)) = stem.rsplit_once('_')
            && suffix.len() == 3
        {
            assert_eq!(suffix, lang, "{name}");
        }
        *languages.entry(lang).or_insert(0) += 1;
        rules += t.user_rules;
    }
    println!(
        ".top corpus: {} files, {rules} user rules, languages {languages:?}",
        files.len()
    );
    assert!(rules > 100);
}
