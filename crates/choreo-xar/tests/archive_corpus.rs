//! Every `.crg` and `.cbl` of the shared corpus unpacks, every XAR inside reads, and loading
//! and checking them give the behaviors and no errors.

use crate::support;

use choreo_xar::archive::{control_field, unpack};
use choreo_xar::source::{FileKind, check_file, load_bytes, sniff};
use choreo_xar::{RootKind, read_xar};

#[test]
fn every_corpus_archive_unpacks_and_its_behaviors_read() {
    let Some(files) = support::corpus_files(".crg and .cbl archives", 45, &|p| {
        p.extension().is_some_and(|e| e == "crg" || e == "cbl")
    }) else {
        return;
    };
    let (mut members, mut xars, mut behaviors, mut plain_tar, mut no_uuid) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).unwrap();
        let is_cbl = name.ends_with(".cbl");
        let expected = if is_cbl { FileKind::Cbl } else { FileKind::Crg };
        assert_eq!(sniff(&name, &bytes), Some(expected), "{name}");
        let unpacked = match unpack(&name, &bytes) {
            Ok(u) => u,
            Err(e) => {
                failures.push(format!("unpack: {e}"));
                continue;
            }
        };
        assert!(
            unpacked.warnings.is_empty(),
            "{name}: {:?}",
            unpacked.warnings
        );
        let u = unpacked.value;
        assert!(!u.files.is_empty(), "{name}: no files");
        let control = u
            .control
            .as_deref()
            .unwrap_or_else(|| panic!("{name}: no control"));
        if is_cbl {
            assert!(
                control.trim().is_empty(),
                "{name}: a .cbl's control file is empty"
            );
            let meta = String::from_utf8_lossy(&u.files[".metadata"]).into_owned();
            assert_eq!(
                control_field(&meta, "Type"),
                Some("ChoregrapheBoxLibrary"),
                "{name}"
            );
        } else {
            assert_eq!(
                control_field(control, "Type"),
                Some("ChoregrapheProject"),
                "{name}"
            );
        }
        // handshake.crg holds plain tar data under the name data.tar.gz.
        plain_tar += usize::from(!bytes.windows(3).any(|w| w == b"\x1f\x8b\x08"));
        members += u.files.len();
        for (path, data) in &u.files {
            if !path.ends_with(".xar") {
                continue;
            }
            xars += 1;
            match read_xar(&format!("{name}!{path}"), data) {
                Ok(x) if is_cbl => assert_eq!(x.value.root, RootKind::Box, "{name}!{path}"),
                Ok(_) => {}
                Err(e) => failures.push(format!("read: {e}")),
            }
        }
        // Loading gives one behavior per XAR (a 1.x .crg: the root behavior.xar).
        match load_bytes(&name, &bytes) {
            Ok(p) => {
                let n_xar = u.files.keys().filter(|k| k.ends_with(".xar")).count();
                assert_eq!(p.behaviors.len(), n_xar, "{name}: {:?}", p.warnings);
                // VoiceEmotionAnalysis.crg's manifest.xml has no uuid; nothing else is wrong.
                for w in &p.warnings {
                    assert!(w.message.contains("no uuid"), "{name}: {w}");
                    no_uuid += 1;
                }
                assert!(!p.name.is_empty());
                behaviors += p.behaviors.len();
            }
            Err(e) => failures.push(format!("load: {e}")),
        }
        // Checking reports every XAR member, named archive!member, without errors.
        let report = check_file(&name, &bytes);
        assert_eq!(report.kind, Some(expected));
        assert_eq!(report.error_count(), 0, "{name}: {report:#?}");
        let xar_reports = report
            .members
            .iter()
            .filter(|m| m.file.ends_with(".xar"))
            .count();
        assert_eq!(
            xar_reports,
            u.files.keys().filter(|k| k.ends_with(".xar")).count()
        );
        assert!(
            report
                .members
                .iter()
                .all(|m| m.file.starts_with(&format!("{name}!")))
        );
    }
    println!(
        "archive corpus: {} archives ({plain_tar} with plain tar data), {members} members, {xars} XAR files read, {behaviors} behaviors loaded",
        files.len()
    );
    support::assert_no_failures(&failures);
    assert_eq!(
        plain_tar, 1,
        "one corpus .crg stores a plain tar as data.tar.gz"
    );
    assert_eq!(no_uuid, 1, "one corpus .crg has a manifest without uuid");
}

#[test]
fn library_boxes_are_named_by_their_decoded_folder() {
    let Some(corpus) = choreo_testkit::corpus("library boxes are named by their decoded folder")
    else {
        return;
    };
    let f = corpus.join(
        "NSKmiyajima__NSK_Pepper_Helpful-Choregraphe-Boxes/Speech Scenario Compile/Speech Scenario Compile.cbl",
    );
    let p = load_bytes("Speech Scenario Compile.cbl", &std::fs::read(f).unwrap()).unwrap();
    let names: Vec<&str> = p.behaviors.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Custom Speech Reco.", "Speech Scenario Compile"]);
    assert_eq!(p.behaviors[0].path, "Custom Speech Reco%2e/box.xar");
}
