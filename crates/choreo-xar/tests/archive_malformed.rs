//! Malformed and hostile archives: each gives the documented error, naming the archive and
//! member, without panicking and without allocating what the archive claims.

use crate::archive_build;

use std::io::Write;

use archive_build::{ar, ar_header, behavior_xar, crg, gzip, raw_header, tar, tar_special, zip};
use choreo_xar::archive::{Limits, MAX_TOTAL_SIZE, unpack, unpack_with};
use choreo_xar::source::{check_file, load_bytes};
use choreo_xar::{Error, ErrorKind};

fn unpack_err(name: &str, bytes: &[u8]) -> Error {
    match unpack(name, bytes) {
        Ok(u) => panic!(
            "{name}: expected an error, unpacked {:?}",
            u.value.files.keys()
        ),
        Err(e) => e,
    }
}

fn assert_error(e: &Error, kind: ErrorKind, file: &str, words: &str) {
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.diagnostic().file, file, "{e}");
    assert!(e.to_string().contains(words), "{e:?} should say {words:?}");
}

fn small_limits() -> Limits {
    Limits {
        max_total_size: 1 << 20,
        max_entries: 10,
    }
}

#[test]
fn a_valid_crg_unpacks_with_members_in_any_order() {
    let data = gzip(&tar(&[
        ("./behavior.xar", &behavior_xar("Hello")),
        ("sounds/", b""),
    ]));
    let control = gzip(&tar(&[(
        "control",
        b"Type: ChoregrapheProject\ntitle: T\n",
    )]));
    let bytes = ar(&[
        ("data.tar.gz", &data),
        ("control.tar.gz", &control),
        ("debian-binary", b"2.0\n"),
    ]);
    let u = unpack("x.crg", &bytes).unwrap();
    assert!(u.warnings.is_empty());
    // `sounds/` is a folder in the old tar way (a regular entry named with a slash): skipped.
    assert_eq!(u.value.files.keys().collect::<Vec<_>>(), ["behavior.xar"]);
    assert_eq!(
        u.value.control.as_deref(),
        Some("Type: ChoregrapheProject\ntitle: T\n")
    );
    let p = load_bytes("x.crg", &bytes).unwrap();
    assert_eq!(p.name, "T");
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].name, "T");
}

#[test]
fn a_crg_with_only_debian_binary_is_an_empty_project() {
    let bytes = ar(&[("debian-binary", b"2.0\n")]);
    let u = unpack("empty.crg", &bytes).unwrap();
    assert!(u.value.files.is_empty());
    assert_eq!(u.value.control, None);
    assert_eq!(u.warnings.len(), 1);
    assert!(
        u.warnings[0].message.contains("empty project"),
        "{}",
        u.warnings[0]
    );
    let p = load_bytes("empty.crg", &bytes).unwrap();
    assert!(p.behaviors.is_empty());
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("empty project"))
    );
    let report = check_file("empty.crg", &bytes);
    assert_eq!(report.error_count(), 0);
    assert!(report.warning_count() >= 1);
}

#[test]
fn truncated_ar_archives_are_refused() {
    let full = crg("T", &gzip(&tar(&[("behavior.xar", &behavior_xar("B"))])));
    // Cut inside the last member's body, then inside a header.
    let e = unpack_err("cut.crg", &full[..full.len() - 10]);
    assert_error(&e, ErrorKind::Archive, "cut.crg", "truncated");
    let e = unpack_err("cut.crg", &full[..8 + 30]);
    assert_error(&e, ErrorKind::Archive, "cut.crg", "cut short");
    // The magic alone is an archive with no members: an empty project.
    assert!(
        unpack("magic.crg", b"!<arch>\n")
            .unwrap()
            .value
            .files
            .is_empty()
    );
}

#[test]
fn bad_ar_headers_are_refused() {
    let mut bytes = b"!<arch>\n".to_vec();
    let mut header = ar_header("data.tar.gz/", 4);
    header[48..58].copy_from_slice(b"12x4      ");
    bytes.extend(&header);
    bytes.extend(b"abcd");
    let e = unpack_err("size.crg", &bytes);
    assert_error(&e, ErrorKind::Archive, "size.crg", "bad size field");

    // A size far beyond the file must not be trusted (nor allocated).
    let mut bytes = b"!<arch>\n".to_vec();
    let mut header = ar_header("data.tar.gz/", 4);
    header[48..58].copy_from_slice(b"9999999999");
    bytes.extend(&header);
    bytes.extend(b"abcd");
    let e = unpack_err("huge.crg", &bytes);
    assert_error(
        &e,
        ErrorKind::Archive,
        "huge.crg",
        "claims 9999999999 bytes",
    );

    let mut bytes = b"!<arch>\n".to_vec();
    let mut header = ar_header("debian-binary/", 4);
    header[58] = b'X';
    bytes.extend(&header);
    bytes.extend(b"2.0\n");
    let e = unpack_err("marker.crg", &bytes);
    assert_error(&e, ErrorKind::Archive, "marker.crg", "no end marker");

    let data = gzip(&tar(&[]));
    let e = unpack_err(
        "twice.crg",
        &ar(&[("data.tar.gz", &data), ("data.tar.gz", &data)]),
    );
    assert_error(&e, ErrorKind::Archive, "twice.crg", "appears twice");
}

#[test]
fn gzip_garbage_names_the_member() {
    let mut garbage = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03".to_vec();
    garbage.extend((0..200u8).map(|i| i.wrapping_mul(37)));
    let e = unpack_err("g.crg", &crg("T", &garbage));
    assert_error(
        &e,
        ErrorKind::Archive,
        "g.crg!data.tar.gz",
        "malformed tar data",
    );

    let e = unpack_err("n.crg", &crg("T", b"neither gzip nor tar"));
    assert_error(
        &e,
        ErrorKind::Archive,
        "n.crg!data.tar.gz",
        "neither gzip nor tar",
    );
}

#[test]
fn tar_entries_leaving_the_folder_are_refused() {
    for name in ["../x", "a/../../x", "/etc/passwd", "C:/windows/x"] {
        let data = gzip(&tar(&[(name, b"evil")]));
        let e = unpack_err("p.crg", &crg("T", &data));
        assert_error(&e, ErrorKind::UnsafePath, "p.crg!data.tar.gz", name);
    }
}

#[test]
fn tar_links_and_devices_are_refused() {
    for (kind, target) in [
        (tar::EntryType::Symlink, "/etc/passwd"),
        (tar::EntryType::Link, "behavior.xar"),
        (tar::EntryType::Char, ""),
        (tar::EntryType::Block, ""),
        (tar::EntryType::Fifo, ""),
    ] {
        let data = gzip(&tar_special("innocent.txt", kind, target));
        let e = unpack_err("l.crg", &crg("T", &data));
        assert_error(
            &e,
            ErrorKind::UnsafePath,
            "l.crg!data.tar.gz",
            "innocent.txt",
        );
    }
}

#[test]
fn tar_bombs_stop_at_the_cap() {
    // An entry whose size alone is over the cap: refused before reading it.
    let zeros = vec![0u8; 2 << 20];
    let data = gzip(&tar(&[("big.bin", &zeros)]));
    assert!(
        data.len() < 10_000,
        "the bomb is small: {} bytes",
        data.len()
    );
    let e = unpack_with("b.crg", &crg("T", &data), small_limits()).unwrap_err();
    assert_error(
        &e,
        ErrorKind::TooLarge,
        "b.crg!data.tar.gz",
        "more than 1048576 bytes",
    );

    // Entries that fit one by one but not together.
    let half = vec![0u8; 600 << 10];
    let data = gzip(&tar(&[("a.bin", &half), ("b.bin", &half)]));
    let e = unpack_with("t.crg", &crg("T", &data), small_limits()).unwrap_err();
    assert_error(
        &e,
        ErrorKind::TooLarge,
        "t.crg!data.tar.gz",
        "decompression bomb",
    );

    // A GNU long-name entry of 4 MiB: the tar reader would hold it in memory; the
    // decompressed stream is capped instead.
    let mut b = tar::Builder::new(Vec::new());
    let long = vec![b'a'; 4 << 20];
    let h = raw_header(
        "././@LongLink",
        tar::EntryType::GNULongName,
        long.len() as u64,
    );
    b.append(&h, &long[..]).unwrap();
    let h = raw_header("x", tar::EntryType::Regular, 1);
    b.append(&h, &b"x"[..]).unwrap();
    let data = gzip(&b.into_inner().unwrap());
    let e = unpack_with("ln.crg", &crg("T", &data), small_limits()).unwrap_err();
    assert_error(
        &e,
        ErrorKind::TooLarge,
        "ln.crg!data.tar.gz",
        "decompression bomb",
    );

    // Too many entries.
    let names: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    let e = unpack_with("m.crg", &crg("T", &gzip(&tar(&files))), small_limits()).unwrap_err();
    assert_error(
        &e,
        ErrorKind::TooLarge,
        "m.crg!data.tar.gz",
        "more than 10 entries",
    );
}

#[test]
fn a_zip_bomb_over_the_default_cap_is_too_large() {
    // 257 MiB of zeros deflate to about 256 KiB.
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    w.start_file("bomb.bin", options).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let chunks = MAX_TOTAL_SIZE / (1 << 20) + 1;
    for _ in 0..chunks {
        w.write_all(&chunk).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    assert!(
        bytes.len() < 2 << 20,
        "the bomb is small: {} bytes",
        bytes.len()
    );
    let e = unpack_err("bomb.pkg", &bytes);
    assert_error(
        &e,
        ErrorKind::TooLarge,
        "bomb.pkg",
        "more than 268435456 bytes",
    );
}

#[test]
fn zip_bombs_with_forged_sizes_stop_at_the_cap_or_fail() {
    let zeros = vec![0u8; 3 << 20];
    let bytes = zip(&[("a.bin", &zeros[..]), ("b.bin", &zeros[..])]);
    let e = unpack_with("z.pkg", &bytes, small_limits()).unwrap_err();
    assert_error(&e, ErrorKind::TooLarge, "z.pkg", "decompression bomb");

    // Claim 1 KiB where the data inflates to 3 MiB: never more than the claim is read.
    let mut forged = zip(&[("a.bin", &zeros[..])]);
    let size = (3u32 << 20).to_le_bytes();
    let small = 1024u32.to_le_bytes();
    let mut patched = 0;
    for i in 0..forged.len().saturating_sub(4) {
        if forged[i..i + 4] == size {
            forged[i..i + 4].copy_from_slice(&small);
            patched += 1;
        }
    }
    assert_eq!(
        patched, 2,
        "uncompressed size in the local and central headers"
    );
    match unpack_with("f.pkg", &forged, small_limits()) {
        Ok(u) => assert!(u.value.files.values().all(|f| f.len() <= 1024)),
        Err(e) => assert_eq!(e.kind(), ErrorKind::Archive, "{e}"),
    }
}

#[test]
fn zip_entries_leaving_the_folder_or_linking_are_refused() {
    for name in [
        "../evil.txt",
        "a/../../evil.txt",
        "/abs/evil.txt",
        "..\\evil.txt",
    ] {
        let e = unpack_err("e.pkg", &zip(&[(name, b"x")]));
        assert_error(&e, ErrorKind::UnsafePath, "e.pkg", "evil.txt");
    }
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.add_symlink(
        "link",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let e = unpack_err("s.pkg", &bytes);
    assert_error(&e, ErrorKind::UnsafePath, "s.pkg", "symbolic link");
}

#[test]
fn a_pkg_unpacks_and_loads_through_its_manifest() {
    let manifest = br#"<?xml version='1.0' encoding='UTF-8'?>
<package uuid="demo-1" version="1.0.0">
 <names><name lang="en_US">Demo</name></names>
 <contents>
  <behaviorContent path="behavior_1"><nature>interactive</nature></behaviorContent>
  <behaviorContent path="gone"/>
 </contents>
</package>
"#;
    let xar = behavior_xar("Say");
    let bytes = zip(&[
        ("manifest.xml", &manifest[..]),
        ("behavior_1/", b""),
        ("behavior_1/behavior.xar", &xar),
    ]);
    let u = unpack("demo-1-1.0.0.pkg", &bytes).unwrap();
    assert_eq!(u.value.files.len(), 2);
    assert_eq!(u.value.control, None);
    let p = load_bytes("demo-1-1.0.0.pkg", &bytes).unwrap();
    assert_eq!(p.name, "Demo");
    assert_eq!(
        p.manifest.as_ref().and_then(|m| m.uuid.as_deref()),
        Some("demo-1")
    );
    assert_eq!(p.behaviors.len(), 1);
    assert_eq!(p.behaviors[0].name, "behavior_1");
    assert_eq!(p.behaviors[0].path, "behavior_1/behavior.xar");
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(
        p.warnings[0].message.contains("\"gone\" is missing"),
        "{}",
        p.warnings[0]
    );
}

#[test]
fn archives_inside_archives_are_checked_with_nested_names() {
    let inner = crg(
        "Inner",
        &gzip(&tar(&[("behavior.xar", &behavior_xar("X"))])),
    );
    let outer = crg("Outer", &gzip(&tar(&[("nested/inner.crg", &inner)])));
    let report = check_file("outer.crg", &outer);
    assert_eq!(report.error_count(), 0, "{report:#?}");
    let names: Vec<&str> = report.all().iter().map(|r| r.file.as_str()).collect();
    assert_eq!(
        names,
        [
            "outer.crg",
            "outer.crg!nested/inner.crg",
            "outer.crg!nested/inner.crg!behavior.xar"
        ]
    );
    assert_eq!(
        report.all()[2].summary,
        "behavior: 1 box, 2 links, 0 timelines"
    );

    // A broken member is reported under its full name; the archive itself is fine.
    let broken = crg(
        "B",
        &gzip(&tar(&[("behavior_1/behavior.xar", b"<ChoregrapheProject")])),
    );
    let report = check_file("b.crg", &broken);
    assert_eq!(report.error, None);
    assert_eq!(report.error_count(), 1);
    let e = report.members[0].error.as_ref().unwrap();
    assert_eq!(e.diagnostic().file, "b.crg!behavior_1/behavior.xar");
}

#[test]
fn non_archives_are_refused_saying_what_they_are() {
    let e = unpack_err("x.crg", b"import qi\n\nclass A: pass\n");
    assert_error(&e, ErrorKind::Unsupported, "x.crg", "Python source");
    let e = unpack_err("x.pkg", b"\x00\x01garbage");
    assert_error(&e, ErrorKind::Archive, "x.pkg", "not an archive");
    // `check` goes by content: a project file named `.crg` is read as a project file, with
    // a warning saying what the name claimed.
    let report = check_file("x.crg", b"<?xml version='1.0'?>\n<Package name='p'/>");
    assert_eq!(report.error, None);
    let w = &report.warnings[0];
    assert_eq!(w.kind, ErrorKind::WrongRoot);
    assert!(w.to_string().contains(".pml"), "{w}");
    assert!(report.summary.contains("project"), "{}", report.summary);
}
