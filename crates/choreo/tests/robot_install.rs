//! `choreo robot install URL PKG` against a fake PackageManager hosted by the real libqi
//! (PyPI `qi` 3.1.5, CHOREO_QI_PYTHON; `fixtures/fake_package_manager.py`), which records
//! every call it gets and the bytes it read through the qi::File choreo served.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support;
use support::cli::{choreo, stderr, stdout};
use support::project::{make_project, manifest as project_manifest};
use support::qi::{Fixture, python};

const UUID: &str = "install-test-7f3a";

/// A manifest as Choregraphe writes one, with `uuid` (none when `None`).
fn manifest(uuid: Option<&str>) -> String {
    let uuid = uuid.map(|u| format!(" uuid=\"{u}\"")).unwrap_or_default();
    format!(
        "<?xml version='1.0' encoding='UTF-8'?>\n<package{uuid} version=\"1.2.3\" \
         format_version=\"4\">\n  <names><name lang=\"en_US\">Install test</name></names>\n  \
         <supportedLanguages><language>en_US</language></supportedLanguages>\n  \
         <descriptionLanguages><language>en_US</language></descriptionLanguages>\n  \
         <contents/>\n</package>\n"
    )
}

/// A .pkg (zip): `manifest.xml` when given, and `filler` bytes of noise that deflate
/// cannot shrink much, so the package takes several 512 KiB reads.
fn package(manifest: Option<&str>, filler: usize) -> Vec<u8> {
    let mut files = choreo_xar::FileTree::new();
    if let Some(m) = manifest {
        files.insert("manifest.xml".into(), m.as_bytes().to_vec());
    }
    let mut x: u32 = 0x1234_5678;
    let noise: Vec<u8> = (0..filler)
        .map(|_| {
            // xorshift32
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    files.insert("noise.bin".into(), noise);
    choreo_xar::archive::pack_zip("test.pkg", &files).unwrap()
}

/// Writes `bytes` as `name` in `dir`.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The fake's record: each call's method and arguments, in order.
fn calls(record: &Path) -> Vec<(String, serde_json::Value)> {
    let Ok(text) = std::fs::read_to_string(record.join("calls.jsonl")) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v[0].as_str().unwrap().to_string(), v[1].clone())
        })
        .collect()
}

fn names(calls: &[(String, serde_json::Value)]) -> Vec<&str> {
    calls.iter().map(|(m, _)| m.as_str()).collect()
}

fn install(url: &str, pkg: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["robot", "install", url, pkg.to_str().unwrap()];
    args.extend_from_slice(extra);
    choreo(&args)
}

#[test]
fn install_reads_the_package_over_qi_after_removing_the_old_one() {
    let Some(py) = python("install_reads_the_package_over_qi_after_removing_the_old_one") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let robot = Fixture::start(&py, "fake_package_manager.py", &[record.to_str().unwrap()]);
    let bytes = package(Some(&manifest(Some(UUID))), 1_200_000);
    let pkg = write(dir.path(), "app.pkg", &bytes);

    let o = install(&robot.url, &pkg, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("installed {UUID} 1.2.3 on {}\n", robot.url)
    );
    let first = calls(&record);
    // removePkg first (the fake raises: nothing installed; the error is ignored), then the
    // file, read as copyToLocal reads it.
    let size = bytes.len();
    let mut expected = vec![
        ("removePkg".to_string(), serde_json::json!([UUID])),
        ("install".to_string(), serde_json::json!(["<qi::File>"])),
        ("File.size".to_string(), serde_json::json!([size])),
        ("File.operationProgress".to_string(), serde_json::json!([])),
        (
            "ProgressNotifier.notifyRunning".to_string(),
            serde_json::json!([]),
        ),
    ];
    let mut offset = 0;
    while offset < size {
        let got = (size - offset).min(524_288);
        expected.push((
            "File.read".to_string(),
            serde_json::json!([offset, 524_288, got]),
        ));
        offset += got;
        expected.push((
            "ProgressNotifier.notifyProgressed".to_string(),
            serde_json::json!([offset as f64 / size as f64]),
        ));
    }
    expected.extend([
        (
            "ProgressNotifier.notifyFinished".to_string(),
            serde_json::json!([]),
        ),
        // The notifier's status property followed: 2, finished.
        (
            "ProgressNotifier.status".to_string(),
            serde_json::json!([2]),
        ),
        (
            "received".to_string(),
            serde_json::json!(["received-1.pkg", size]),
        ),
    ]);
    assert_eq!(first, expected);
    assert_eq!(std::fs::read(record.join("received-1.pkg")).unwrap(), bytes);

    // --keep-old: no removePkg; --json.
    let o = install(&robot.url, &pkg, &["--keep-old", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        answer,
        serde_json::json!({"installed": UUID, "version": "1.2.3", "url": robot.url})
    );
    let all = calls(&record);
    let second = names(&all[first.len()..]);
    assert_eq!(second.first(), Some(&"install"), "{second:?}");
    assert!(!second.contains(&"removePkg"), "{second:?}");
    assert_eq!(std::fs::read(record.join("received-2.pkg")).unwrap(), bytes);

    // Installed now: removePkg succeeds, and the package is installed again.
    let o = install(&robot.url, &pkg, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    robot.stop();
}

#[test]
fn a_package_choreo_builds_is_one_the_robot_accepts() {
    let Some(py) = python("a_package_choreo_builds_is_one_the_robot_accepts") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let robot = Fixture::start(&py, "fake_package_manager.py", &[record.to_str().unwrap()]);
    let proj = make_project(dir.path(), "proj", &project_manifest("built-app"));
    let pkg = dir.path().join("built.pkg");
    let o = choreo(&[
        "package",
        proj.to_str().unwrap(),
        "-o",
        pkg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = install(&robot.url, &pkg, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("installed built-app 1.2.0 on {}\n", robot.url)
    );
    // The fake checked it as PackageManager does and kept what it read: the package.
    let all = calls(&record);
    assert_eq!(names(&all).first(), Some(&"removePkg"));
    assert_eq!(all[0].1, serde_json::json!(["built-app"]));
    assert_eq!(
        std::fs::read(record.join("received-1.pkg")).unwrap(),
        std::fs::read(&pkg).unwrap()
    );
    robot.stop();
}

#[test]
fn a_package_the_robot_cannot_install_is_refused_before_any_call() {
    let Some(py) = python("a_package_the_robot_cannot_install_is_refused_before_any_call") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let robot = Fixture::start(&py, "fake_package_manager.py", &[record.to_str().unwrap()]);

    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("bare.pkg", package(None, 100), "no manifest.xml"),
        (
            "anonymous.pkg",
            package(Some(&manifest(None)), 100),
            "has no uuid",
        ),
        ("text.pkg", b"not a zip".to_vec(), "not a package"),
    ];
    for (name, bytes, why) in cases {
        let pkg = write(dir.path(), name, &bytes);
        let o = install(&robot.url, &pkg, &[]);
        assert_eq!(o.status.code(), Some(4), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{name}: {}", stderr(&o));
    }
    let o = install(&robot.url, &dir.path().join("missing.pkg"), &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let pkg = write(
        dir.path(),
        "app.pkg",
        &package(Some(&manifest(Some(UUID))), 100),
    );
    let o = install(&robot.url, &pkg, &["--remote-path", "home/nao/app.pkg"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("absolute"), "{}", stderr(&o));

    robot.stop();
    assert_eq!(calls(&record), Vec::new());
}

#[test]
fn a_naoqi_2_1_robot_installs_from_a_path_on_the_robot() {
    let Some(py) = python("a_naoqi_2_1_robot_installs_from_a_path_on_the_robot") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let robot = Fixture::start(
        &py,
        "fake_package_manager.py",
        &[record.to_str().unwrap(), "--naoqi-2.1"],
    );
    let bytes = package(Some(&manifest(Some(UUID))), 1000);
    let pkg = write(dir.path(), "app.pkg", &bytes);

    // No install(o): nothing is removed, and the user is told what to do.
    let o = install(&robot.url, &pkg, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(text.contains("no install(o)"), "{text}");
    assert!(text.contains("scp "), "{text}");
    assert!(text.contains("nao@127.0.0.1:/home/nao/app.pkg"), "{text}");
    assert!(text.contains("--remote-path /home/nao/app.pkg"), "{text}");
    assert_eq!(calls(&record), Vec::new());

    // The package "copied to the robot" (the fake robot's disk is this one).
    let on_robot = write(dir.path(), "copied.pkg", &bytes);
    let remote = on_robot.to_str().unwrap();
    let o = install(&robot.url, &pkg, &["--remote-path", remote]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("installed {UUID} 1.2.3 on {}\n", robot.url)
    );
    assert_eq!(
        calls(&record),
        vec![
            ("removePkg".to_string(), serde_json::json!([UUID])),
            ("install".to_string(), serde_json::json!([remote])),
        ]
    );

    // A path where no package is: PackageManager answers false, an error exit.
    let o = install(&robot.url, &pkg, &["--remote-path", "/nowhere/app.pkg"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("refused"), "{}", stderr(&o));
    robot.stop();
}

#[test]
fn a_robot_lost_mid_transfer_is_a_clear_error_and_no_hang() {
    let Some(py) = python("a_robot_lost_mid_transfer_is_a_clear_error_and_no_hang") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let mut robot = Fixture::start(
        &py,
        "fake_package_manager.py",
        &[record.to_str().unwrap(), "--die-after-reads", "1"],
    );
    let pkg = write(
        dir.path(),
        "app.pkg",
        &package(Some(&manifest(Some(UUID))), 1_200_000),
    );
    let start = Instant::now();
    let o = install(&robot.url, &pkg, &[]);
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(text.contains("the robot was lost during install"), "{text}");
    assert!(text.contains("had read 524288 of"), "{text}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(robot.exits_within(Duration::from_secs(10)));
    let seen = calls(&record);
    assert_eq!(names(&seen).last(), Some(&"File.read"), "{seen:?}");
}
