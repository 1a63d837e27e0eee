//! The `choreo` command end to end: exit codes, output, snapshots of `inspect`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::cli::{choreo, stderr, stdout, text, timeline_behavior, workspace};

const HELLO: &str = "examples/hello/behavior.xar";
const DANCE: &str = "examples/dance/behavior.xar";

#[test]
fn check_accepts_the_example() {
    let o = choreo(&["check", "examples/hello"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ok    examples/hello/behavior.xar"), "{out}");
    assert!(
        out.contains("checked 1 file(s): 1 ok, 0 with warnings, 0 with errors"),
        "{out}"
    );
}

#[test]
fn check_shows_file_line_column_and_the_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xar");
    let text = std::fs::read_to_string(workspace().join(DANCE))
        .unwrap()
        .replace("fps=\"25\"", "fps=\"fast\"");
    std::fs::write(&bad, text).unwrap();
    let o = choreo(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(
            "bad.xar:44:29: error: attribute fps=\"fast\" is not an integer (at root/Dance)"
        ),
        "{out}"
    );
    assert!(
        out.contains("44 |                             <Timeline enable=\"1\" fps=\"fast\""),
        "{out}"
    );
    assert!(
        out.contains("0 ok, 0 with warnings, 1 with errors"),
        "{out}"
    );
}

#[test]
fn check_reads_qichat_topics_and_locates_every_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.top");
    std::fs::write(
        &bad,
        "topic: ~t()\nlanguage: enu\nu:([hello hi) there\nu:(fine) ok\nu2:(orphan) no parent\n",
    )
    .unwrap();
    let o = choreo(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("bad.top:3:13: error: in user rule: expected ']' to close the choice opened at 3:4, found ')'"),
        "{out}"
    );
    assert!(out.contains("3 | u:([hello hi) there"), "{out}");
    // The parser goes on after an error: the orphan subrule is reported too.
    assert!(out.contains("bad.top:5:"), "{out}");
    assert!(
        out.contains("0 ok, 0 with warnings, 1 with errors"),
        "{out}"
    );
}

#[test]
fn check_json_gives_one_object_per_file_and_a_summary() {
    let o = choreo(&["check", "--json", HELLO]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["status"], "ok");
    assert_eq!(lines[1]["summary"]["files"], 1);
}

#[test]
fn check_reports_every_corpus_file_and_only_the_broken_ones_fail() {
    let Some(corpus) = choreo_testkit::corpus("choreo check of the corpus") else {
        return;
    };
    let o = choreo(&["check", "--json", corpus.to_str().unwrap()]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (files, summary) = lines.split_at(lines.len() - 1);
    println!("choreo check corpus: {}", summary[0]);
    assert!(
        files.len() > 500,
        "expected the corpus's ~600 files, got {}",
        files.len()
    );
    let failed: Vec<(&str, &serde_json::Value)> = files
        .iter()
        .filter(|f| f["status"] == "error")
        .map(|f| (f["file"].as_str().unwrap(), &f["diagnostics"][0]["kind"]))
        .collect();
    // The two broken files of the corpus: the XAR with git merge-conflict markers, and a
    // `.dlg` that holds a `.pml` cut off in its first element.
    assert_eq!(failed.len(), 2, "{failed:#?}");
    assert!(
        failed[0]
            .0
            .ends_with("behavior_without_feedback/behavior.xar"),
        "{failed:?}"
    );
    assert_eq!(failed[0].1, "MergeConflict");
    assert!(
        failed[1].0.ends_with("ExampleDialog/ExampleDialog.dlg"),
        "{failed:?}"
    );
    assert_eq!(failed[1].1, "Truncated");
    assert_eq!(summary[0]["summary"]["errors"], 2);
    assert_eq!(o.status.code(), Some(1));
    // Every box script of the corpus compiles after the Python-2 fixer: no script error.
    // What will fail at run time: 7 scripts fire an output their box does not declare
    // (`onStopped` of a box without it, ...), 5 read a parameter no box around them has
    // (the training example's "my parameter" of a box declaring "parameter name", ...), 1
    // calls a method its proxy's module has in no version (the training example's
    // `ALMemory.insertEvent`: ALMemory's API page has `insertData` and `raiseEvent`).
    let scripts: Vec<&serde_json::Value> = files
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .filter(|d| d["kind"] == "Script")
        .collect();
    let count = |what: &str| {
        scripts
            .iter()
            .filter(|d| d["message"].as_str().unwrap().contains(what))
            .count()
    };
    assert!(
        scripts.iter().all(|d| d["severity"] == "warning"),
        "{scripts:#?}"
    );
    assert_eq!(count("fires output"), 7, "{scripts:#?}");
    assert_eq!(count("reads parameter"), 5, "{scripts:#?}");
    assert_eq!(
        count("calls ALMemory.insertEvent, which no NAOqi version has"),
        1,
        "{scripts:#?}"
    );
    assert_eq!(scripts.len(), 13, "{scripts:#?}");
}

#[test]
fn check_reports_a_box_script_syntax_error_at_the_xar_line() {
    // examples/hello with one broken line in the Say Hello box's script.
    let good = std::fs::read_to_string(workspace().join(HELLO)).unwrap();
    let bad = good.replacen(
        "        self.task = self.tts.post.say(",
        "        self.task = = self.tts.post.say(",
        1,
    );
    assert_ne!(good, bad);
    let xar_line = bad
        .lines()
        .position(|l| l.contains("self.task = = self"))
        .unwrap()
        + 1;
    // In the script, the line of `<![CDATA[class MyClass` is line 1.
    let cdata = bad
        .lines()
        .take(xar_line)
        .enumerate()
        .filter(|(_, l)| l.contains("<![CDATA["))
        .map(|(i, _)| i + 1)
        .last()
        .unwrap();
    let script_line = xar_line - cdata + 1;
    assert_eq!(script_line, 15);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    std::fs::write(&file, &bad).unwrap();
    let o = choreo(&["check", file.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains(&format!("behavior.xar:{xar_line}:")),
        "expected line {xar_line}: {out}"
    );
    assert!(
        out.contains(&format!(
            "box root/Say Hello: Python syntax error (line {script_line} of its script)"
        )),
        "{out}"
    );
    let o = choreo(&["check", "--json", file.to_str().unwrap()]);
    let report: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    let d = &report["diagnostics"][0];
    assert_eq!(d["kind"], "Script", "{report}");
    assert_eq!(d["line"], xar_line, "{report}");
    // The untouched behavior (Python 2 scripts included) is ok.
    let o = choreo(&["check", HELLO]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn diff_shows_script_lines_moved_keys_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let motion =
        std::fs::read_to_string(workspace().join("crates/choreo/tests/fixtures/motion.xar"))
            .unwrap();
    // Every key one frame later.
    let mut shifted = String::new();
    let mut rest = motion.as_str();
    while let Some(i) = rest.find("<Key frame=\"") {
        let start = i + "<Key frame=\"".len();
        let end = start + rest[start..].find('"').unwrap();
        let frame: i32 = rest[start..end].parse().unwrap();
        shifted.push_str(&rest[..start]);
        shifted.push_str(&(frame + 1).to_string());
        rest = &rest[end..];
    }
    shifted.push_str(rest);
    let (a, b) = (dir.path().join("a.xar"), dir.path().join("b.xar"));
    std::fs::write(&a, &motion).unwrap();
    std::fs::write(&b, &shifted).unwrap();
    let o = choreo(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("11 keys of 4 curve(s) moved +1 frame(s)"),
        "{out}"
    );
    assert!(out.contains("1 difference(s)"), "{out}");
    // A value scaled, a key changed (with -v: the key), a script line, in JSON too.
    let hello = std::fs::read_to_string(workspace().join(HELLO)).unwrap();
    let edited = hello.replacen(
        "        self.task = None\n        self.onStopped()",
        "        self.task = None\n        self.log(\"done\")\n        self.onStopped()",
        1,
    );
    assert_ne!(hello, edited);
    std::fs::write(&a, &hello).unwrap();
    std::fs::write(&b, &edited).unwrap();
    let o = choreo(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(out.contains("root/Say Hello: script changed"), "{out}");
    assert!(out.contains("    +        self.log(\"done\")"), "{out}");
    assert!(!out.contains("    -"), "only a line added: {out}");
    let o = choreo(&["diff", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.last().unwrap()["summary"]["differences"], 1);
    assert_eq!(lines[0]["path"], "root/Say Hello");
    assert!(lines[0]["details"][0].as_str().unwrap().starts_with("@@ -"));
    let scaled = motion.replacen("value=\"80\"", "value=\"40\"", 2).replacen(
        "value=\"-40\"",
        "value=\"-20\"",
        1,
    );
    std::fs::write(&a, &motion).unwrap();
    std::fs::write(&b, &scaled).unwrap();
    let o = choreo(&["diff", "-v", a.to_str().unwrap(), b.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(
        out.contains("curve RShoulderPitch: values of 3 keys scaled ×0.5"),
        "{out}"
    );
    assert!(out.contains("    frame 30: -40 -> -20"), "{out}");
}

#[test]
fn git_diff_of_xar_files_shows_choreo_diff_through_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args([
                "-c",
                &format!(
                    "diff.choreo.command={} git-diff",
                    env!("CARGO_BIN_EXE_choreo")
                ),
            ])
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {o:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    git(&["init", "-q"]);
    // The two lines docs/commands.md gives.
    std::fs::write(dir.path().join(".gitattributes"), "*.xar diff=choreo\n").unwrap();
    let hello = std::fs::read_to_string(workspace().join(HELLO)).unwrap();
    std::fs::write(dir.path().join("behavior.xar"), &hello).unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "hello"]);
    // Layout only: git's own diff would show every line, choreo's none.
    std::fs::write(
        dir.path().join("behavior.xar"),
        hello.replace("    <", "  <"),
    )
    .unwrap();
    let out = git(&["diff"]);
    assert!(
        out.contains("diff --choreo a/behavior.xar b/behavior.xar"),
        "{out}"
    );
    assert!(out.contains("equal"), "{out}");
    // A parameter's value changes: one line, before -> after.
    let edited = hello.replacen("Hello! I am running in choreo.", "Hi there.", 1);
    assert_ne!(edited, hello);
    std::fs::write(dir.path().join("behavior.xar"), edited).unwrap();
    let out = git(&["diff"]);
    assert!(out.contains("Hi there."), "{out}");
    assert!(out.contains("1 difference(s)"), "{out}");
}

#[test]
fn inspect_shows_the_box_tree() {
    let o = choreo(&["inspect", HELLO]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("inspect_hello", stdout(&o));
}

#[test]
fn inspect_corpus_samples() {
    let Some(corpus) = choreo_testkit::corpus("choreo inspect of corpus samples") else {
        return;
    };
    let lib = choreo_testkit::LIBRARY;
    for (name, rel) in [
        (
            "inspect_stock_say",
            format!("{lib}/standard/Audio/Voice/Say/behavior.xar"),
        ),
        (
            "inspect_stock_tai_chi",
            format!("{lib}/standard/Motions/Dances/Tai Chi Chuan/behavior.xar"),
        ),
    ] {
        let path = corpus.join(&rel);
        let o = choreo(&["inspect", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{rel}: {}", stderr(&o));
        let text = stdout(&o).replace(&corpus.display().to_string(), "<corpus>");
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn convert_to_split_and_back_is_equal() {
    let dir = tempfile::tempdir().unwrap();
    let split = dir.path().join("hello");
    let back = dir.path().join("back.xar");
    let o = choreo(&["convert", HELLO, split.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(split.is_dir());
    let o = choreo(&["convert", split.to_str().unwrap(), back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = choreo(&["diff", "--editor", HELLO, back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).trim(), "equal");
    // The split folder is itself a valid input to diff and check.
    let o = choreo(&["diff", HELLO, split.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = choreo(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("split folder: behavior: 3 boxes, 4 links, 0 timelines"),
        "{out}"
    );
    assert!(out.contains("checked 2 file(s): 2 ok"), "{out}");
}

#[test]
fn convert_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.xar");
    std::fs::write(&out, "keep me").unwrap();
    let o = choreo(&["convert", HELLO, out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    let o = choreo(&["convert", "--force", HELLO, out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    // A folder that is not a split behavior is never replaced.
    let o = choreo(&["convert", "--force", HELLO, dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn diff_reports_changes_with_exit_code_one() {
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("changed.xar");
    let text = std::fs::read_to_string(workspace().join(DANCE))
        .unwrap()
        .replace(
            "<Key frame=\"1\" value=\"0\" />",
            "<Key frame=\"1\" value=\"20\" />",
        )
        .replace("value=\"Thank you!\"", "value=\"Bonjour\"");
    std::fs::write(&changed, text).unwrap();
    let o = choreo(&["diff", DANCE, changed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("root/Bow Out parameter \"Text\": value: \"Thank you!\" -> \"Bonjour\""),
        "{out}"
    );
    assert!(
        out.contains("root/Dance/Timeline curve HipRoll: keys changed (1 -> 1 keys, 1 differ)"),
        "{out}"
    );
    assert!(out.contains("2 difference(s)"), "{out}");
}

#[test]
fn exit_codes_for_missing_and_invalid_inputs() {
    let o = choreo(&["inspect", "no/such/file.xar"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xar");
    std::fs::write(&bad, "<ChoregrapheProject><Box name='root'").unwrap();
    let o = choreo(&["inspect", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    assert!(stderr(&o).contains("bad.xar:1:"), "{}", stderr(&o));
    let o = choreo(&["diff", HELLO, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    let o = choreo(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Each command's help ends with its own exit codes, then examples (as cargo's and
/// ripgrep's do): `check` lists 1 for files with errors, and nothing of `run`'s.
#[test]
fn each_command_s_help_lists_its_own_exit_codes_then_examples() {
    for command in [
        "run",
        "robot",
        "sim",
        "check",
        "inspect",
        "convert",
        "export-python",
        "replay",
        "package",
        "plot",
        "motion",
        "chat",
        "stack",
        "diff",
        "edit",
        "explore",
    ] {
        let out = stdout(&choreo(&[command, "--help"]));
        let codes = out
            .find("Exit codes:")
            .unwrap_or_else(|| panic!("{command}: {out}"));
        let examples = out
            .find("Examples:")
            .unwrap_or_else(|| panic!("{command}: {out}"));
        assert!(codes < examples, "{command}: {out}");
        assert!(
            out[examples..].contains(&format!("choreo {command}")),
            "{command}: {out}"
        );
    }
    let check = stdout(&choreo(&["check", "--help"]));
    assert!(check.contains("1    some file has errors"), "{check}");
    assert!(
        !check.contains("--strict") && !check.contains("130"),
        "{check}"
    );
}

/// `choreo --help` fits a screen: at most 40 lines of at most 80 columns, one line a
/// command, opening with what choreo does.
#[test]
fn help_fits_a_screen_and_opens_with_what_the_command_does_now() {
    let out = stdout(&choreo(&["--help"]));
    assert!(
        out.lines().count() <= 40,
        "{} lines:\n{out}",
        out.lines().count()
    );
    for line in out.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    let opening: String = out.lines().take(3).collect::<Vec<_>>().join(" ");
    for what in [
        "simulated robot",
        "physics",
        "virtual time",
        "QiChat",
        "editors",
    ] {
        assert!(opening.contains(what), "{what}: {opening}");
    }
    for command in ["lsp", "chat", "plot", "stack", "sim"] {
        assert!(out.contains(&format!("  {command} ")), "{command}: {out}");
    }
}

/// `choreo --version` says the version, the commit, the NAOqi versions it speaks and the
/// Python box code runs in.
#[test]
fn version_names_the_commit_the_naoqi_versions_and_python() {
    let out = stdout(&choreo(&["--version"]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!("choreo {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert_eq!(
        lines[1],
        "NAOqi: 2.1, 2.5, 2.8, 2.9 (qi messaging; TLS for 2.9)"
    );
    assert!(lines[2].starts_with("Python: 3."), "{out}");
}

/// An error reads `error: ...`, then `help: ...` where the fix is known.
#[test]
fn an_error_says_error_then_help() {
    let o = choreo(&["run", "no-such-behavior.xar"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0], "error: no-such-behavior.xar: no such file or folder",
        "{err}"
    );
    assert!(
        lines[1].starts_with("help: give a behavior (.xar)"),
        "{err}"
    );
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // `choreo check FOLDER | head -1`: the reader goes away after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .args(["check", "examples", "crates/choreo-xar/tests"])
        .current_dir(workspace())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
}

/// The dance example with a motion curve its file mutes: a head curve with an explicit
/// handle and a hand curve instead (one motion timeline, `root/Dance`).
fn dance_with_motion(dir: &Path) -> PathBuf {
    let muted = r#"<ActuatorCurve name="value" actuator="HipRoll" recordable="0" mute="1" unit="0">
                                        <Key frame="1" value="0" />
                                    </ActuatorCurve>"#;
    let curves = r#"<ActuatorCurve name="value" actuator="HeadYaw" recordable="0" mute="0" unit="-1">
                                        <Key frame="1" value="0" />
                                        <Key frame="40" value="30.5">
                                            <Tangent side="left" interpType="bezier" abscissaParam="-5" ordinateParam="2" />
                                            <Tangent side="right" interpType="bezier" abscissaParam="10" ordinateParam="-1" />
                                        </Key>
                                        <Key frame="90" value="-12" />
                                    </ActuatorCurve>
                                    <ActuatorCurve name="value" actuator="LHand" recordable="0" mute="0" unit="1">
                                        <Key frame="10" value="0.3" />
                                        <Key frame="60" value="0.9" />
                                    </ActuatorCurve>"#;
    let text = std::fs::read_to_string(workspace().join(DANCE)).unwrap();
    assert!(text.contains(muted));
    let path = dir.join("dance.xar");
    std::fs::write(&path, text.replace(muted, curves)).unwrap();
    path
}

/// The animations choreo-motion makes of the behavior at `path` (what the files must hold).
fn animations_of(path: &Path) -> Vec<choreo_motion::qianim::BoxAnimation> {
    let bytes = std::fs::read(path).unwrap();
    let xar = choreo_xar::read_xar("in.xar", &bytes).unwrap().value;
    choreo_motion::qianim::box_animations(&xar.root_box)
}

fn read_qianim(path: &Path) -> choreo_motion::qianim::Animation {
    let bytes = std::fs::read(path).unwrap();
    choreo_motion::qianim::read(&path.display().to_string(), &bytes).unwrap()
}

#[test]
fn convert_to_qianim_writes_the_motion_timeline_and_it_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let xar = dance_with_motion(dir.path());
    let want = animations_of(&xar);
    assert_eq!(want.len(), 1);
    assert_eq!(want[0].path, "root/Dance");
    // One timeline, OUT ending in .qianim: that file.
    let file = dir.path().join("dance.qianim");
    let o = choreo(&[
        "convert",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(root/Dance: 2 curve(s))"),
        "{}",
        stdout(&o)
    );
    let back = read_qianim(&file);
    assert_eq!(back, want[0].animation);
    assert_eq!(back.fps(), Some(25));
    let keys = back.tracks[0].curve.keys();
    assert_eq!(
        keys[1].right,
        choreo_motion::curve::Side::Bezier(10.0, -1.0)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    // XAR frame 1 is frame 0; units by actuator (the XAR's numeric ones are not kept).
    assert!(text.contains(r#"<Key frame="0" value="0">"#), "{text}");
    assert!(
        text.contains(r#"actuator="LHand" mute="0" fps="25" unit="dimensionless""#),
        "{text}"
    );
    assert!(
        text.contains(r#"actuator="HeadYaw" mute="0" fps="25" unit="degree""#),
        "{text}"
    );
    // The same, the target told by the name alone.
    let again = dir.path().join("again.qianim");
    let o = choreo(&["convert", xar.to_str().unwrap(), again.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    // OUT without the extension: a folder, the file named after the box path.
    let folder = dir.path().join("out");
    let o = choreo(&[
        "convert",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        folder.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        read_qianim(&folder.join("root_Dance.qianim")),
        want[0].animation
    );
}

#[test]
fn convert_to_qianim_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.qianim");
    // No motion timeline: the dance's only curve is muted; hello has none.
    for input in [HELLO, DANCE] {
        let o = choreo(&["convert", input, "--to", "qianim", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(4), "{input}");
        assert!(
            stderr(&o).contains("no motion timeline to convert"),
            "{}",
            stderr(&o)
        );
    }
    assert!(!out.exists());
    let xar = dance_with_motion(dir.path());
    let o = choreo(&[
        "convert",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // An existing output needs --force; a folder holding anything but .qianim files is
    // never replaced.
    let o = choreo(&[
        "convert",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = choreo(&[
        "convert",
        "--force",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = choreo(&[
        "convert",
        "--force",
        xar.to_str().unwrap(),
        "--to",
        "qianim",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(xar.exists());
}

#[test]
fn convert_corpus_motion_timelines_to_qianim() {
    let Some(library) = choreo_testkit::library("choreo convert --to qianim of stock boxes") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // One dance: a folder with the file named after its box path.
    let tai_chi = library.join("standard/Motions/Dances/Tai Chi Chuan/behavior.xar");
    let out = dir.path().join("tai_chi");
    let o = choreo(&[
        "convert",
        tai_chi.to_str().unwrap(),
        "--to",
        "qianim",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let want = animations_of(&tai_chi);
    assert_eq!(want.len(), 1);
    let back = read_qianim(&out.join("root_Tai_Chi_Chuan.qianim"));
    assert_eq!(back, want[0].animation);
    assert!(back.tracks.len() > 20, "{}", back.tracks.len());
    // Several timelines: never one file; a folder of one file each, in box order.
    let stand_up = library.join("deprecated/Motions/Stand Up/behavior.xar");
    let one = dir.path().join("stand_up.qianim");
    let o = choreo(&[
        "convert",
        stand_up.to_str().unwrap(),
        "--to",
        "qianim",
        one.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("convert it to a folder"),
        "{}",
        stderr(&o)
    );
    let out = dir.path().join("stand_up");
    let o = choreo(&[
        "convert",
        stand_up.to_str().unwrap(),
        "--to",
        "qianim",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let want = animations_of(&stand_up);
    let printed = stdout(&o);
    let written: Vec<&str> = printed.lines().collect();
    assert_eq!(written.len(), want.len(), "{written:?}");
    assert!(want.len() > 1);
    for (line, w) in written.iter().zip(&want) {
        let file = line
            .strip_prefix("wrote ")
            .and_then(|l| l.split(" (").next())
            .unwrap();
        assert!(line.contains(&format!("({}: ", w.path)), "{line}");
        assert_eq!(read_qianim(Path::new(file)), w.animation, "{line}");
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), want.len());
}

#[test]
fn export_python_writes_a_program_that_finds_its_behavior_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("main.py");
    let program_arg = program.to_str().unwrap();
    let o = choreo(&["export-python", "examples/hello", "-o", program_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&program).unwrap();
    // The behavior's path, relative to the program's folder, leads to the example.
    let line = text
        .lines()
        .find(|l| l.starts_with("BEHAVIOR = "))
        .unwrap()
        .to_string();
    let relative = line.split('"').nth(1).unwrap();
    assert!(
        dunce::canonicalize(dir.path().join(relative).join("behavior.xar")).unwrap()
            == dunce::canonicalize(workspace().join(HELLO)).unwrap(),
        "{line}"
    );
    assert!(text.contains("NAME = \"hello\""), "{text}");
    // It is Python that compiles.
    let compiled = Command::new("/usr/bin/python3.11")
        .args(["-m", "py_compile", program_arg])
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    // An existing file is kept unless --force.
    let o = choreo(&["export-python", "examples/hello", "-o", program_arg]);
    assert_eq!(o.status.code(), Some(6));
    assert!(stderr(&o).contains("already exists (--force replaces it)"));
    let o = choreo(&[
        "export-python",
        "examples/hello",
        "-o",
        program_arg,
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A behavior the input does not have.
    let o = choreo(&[
        "export-python",
        "examples/hello",
        "--behavior",
        "dance",
        "-o",
        program_arg,
    ]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stderr(&o).contains("no behavior \"dance\" (it has: hello)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_body_says_where_a_timeline_makes_nao_fall_and_which_keys_come_late() {
    // Both ankles from -20° to -60° over 4 s: from StandInit (ankles at -20° already),
    // choreo-body's tests/timelines.rs derives by hand that the CoM passes the toes at 2.42 s,
    // frame 61.5.
    let dir = tempfile::tempdir().unwrap();
    let lean = dir.path().join("lean.xar");
    let keys: &[(i32, f64)] = &[(1, -20.0), (101, -60.0)];
    std::fs::write(
        &lean,
        timeline_behavior(&[("LAnklePitch", keys), ("RAnklePitch", keys)]),
    )
    .unwrap();
    let o = choreo(&["check", "--body", lean.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines().any(
            |l| l.contains("warning: body: lean.xar root/Lean (from StandInit")
                && l.contains("falls forwards at 2.42 s (frame 62): the ")
                && l.contains("left the feet ahead of the toes")
        ),
        "{out}"
    );
    assert!(
        out.contains("0 ok, 1 with warnings, 0 with errors"),
        "{out}"
    );
    // Without --body, nothing of it.
    let o = choreo(&["check", lean.to_str().unwrap()]);
    assert!(!stdout(&o).contains("body:"), "{}", stdout(&o));
    // Run, the simulated robot falls there, and says which frame the timeline played.
    let trace = dir.path().join("lean.jsonl");
    let o = choreo(&[
        "run",
        "--fast",
        lean.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let said = "NAO fell forwards at 2.42 s: the zero-moment point left the feet ahead of the \
                toes by 0.0 cm, while root/Lean played frame 61";
    let (out, err) = text(&o);
    assert!(out.contains(said) || err.contains(said), "{out}{err}");
    let logged = support::cli::trace_events(&trace)
        .iter()
        .any(|e| e["event"] == "log" && e["message"] == said);
    assert!(logged, "the trace's log warning says it too");

    // LShoulderPitch from 84° to -60° in 4 frames (0.16 s): 2.513 rad at its motor's top
    // speed (8.27 rad/s) takes 0.3039 s, 0.14 s late.
    let throw = dir.path().join("throw.xar");
    std::fs::write(
        &throw,
        timeline_behavior(&[("LShoulderPitch", &[(1, 84.0), (5, -60.0)])]),
    )
    .unwrap();
    let o = choreo(&["check", "--body", throw.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(
        out.contains("LShoulderPitch reaches its key at 0.16 s (frame 5) 0.14 s late"),
        "{out}"
    );
    // JSON: located, with its kind, joint and frame.
    let o = choreo(&["check", "--body", "--json", throw.to_str().unwrap()]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    let body = first["body"].as_array().unwrap();
    assert!(
        body.iter().any(|f| f["kind"] == "late"
            && f["joint"] == "LShoulderPitch"
            && f["frame"] == 5.0
            && f["box"] == "root/Lean"),
        "{body:?}"
    );
}

#[test]
fn check_body_notes_the_getting_up_motions_the_model_cannot_follow() {
    // The box library's Stand Up: its BellyToStand rises from LyingBelly without a finding;
    // its BackToStand and SitToCrouch end standing, but the body model leaves the robot on
    // the floor (docs/motion.md): a note says so, so that silence never reads "it gets up".
    let Some(library) = choreo_testkit::library("choreo check --body of the Stand Up box") else {
        return;
    };
    let stand_up = library.join("deprecated/Motions/Stand Up/behavior.xar");
    let o = choreo(&["check", "--body", stand_up.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let noted = |name: &str| {
        out.lines().any(|l| {
            l.trim_start().starts_with("note: body: ")
                && l.contains(&format!("Stand Motion/{name} (from "))
                && l.contains("a getting-up motion the body model cannot follow")
        })
    };
    for name in ["BackToStand", "SitToCrouch"] {
        assert!(noted(name), "{name}: {out}");
    }
    assert!(!out.contains("BellyToStand"), "{out}");
    assert!(!out.contains("warning: body:"), "{out}");
    // A note on the model, not a warning on the behavior: the file stays ok.
    assert!(
        out.contains("1 ok, 0 with warnings, 0 with errors"),
        "{out}"
    );
    let o = choreo(&["check", "--body", "--json", stand_up.to_str().unwrap()]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    let body = first["body"].as_array().unwrap();
    assert!(
        body.iter().all(|f| f["kind"] == "stays-down") && body.len() >= 4,
        "{body:?}"
    );
}

/// `choreo check` in a cache folder of its own.
fn check_cached(cache: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
        .arg("check")
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .current_dir(workspace())
        .output()
        .unwrap();
    (o.status.code(), stdout(&o))
}

#[test]
fn check_keeps_its_results_and_never_trusts_a_changed_file_or_a_broken_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let topic = dir.path().join("greet.top");
    let path = topic.to_str().unwrap();
    std::fs::write(&topic, "topic: ~greet()\nlanguage: enu\nu:(hello) hi\n").unwrap();
    let first = check_cached(&cache, &[path]);
    assert_eq!(first.0, Some(0), "{}", first.1);
    let entries: Vec<PathBuf> = std::fs::read_dir(cache.join("choreo/check"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(check_cached(&cache, &[path]), first);
    // The same length, a parenthesis left open: an error, whatever the cache holds.
    std::fs::write(&topic, "topic: ~greet()\nlanguage: enu\nu:(hello  hi\n").unwrap();
    let broken = check_cached(&cache, &[path]);
    assert_eq!(broken.0, Some(1), "{}", broken.1);
    assert!(broken.1.contains("greet.top:3:"), "{}", broken.1);
    // A corrupt entry is ignored and written again.
    std::fs::write(&entries[0], "{\"key\": tru").unwrap();
    assert_eq!(check_cached(&cache, &[path]), broken);
    let rewritten = std::fs::read_to_string(&entries[0]).unwrap();
    assert!(rewritten.starts_with("{\"key\":"), "{rewritten}");
    // --no-cache neither reads nor writes it.
    std::fs::remove_file(&entries[0]).unwrap();
    assert_eq!(check_cached(&cache, &["--no-cache", path]), broken);
    assert_eq!(
        std::fs::read_dir(cache.join("choreo/check"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn two_checks_of_one_tree_at_once_both_give_the_whole_result() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (code, fresh) = check_cached(&cache, &["--no-cache", "examples"]);
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args(["check", "examples"])
            .env("XDG_CACHE_HOME", &cache)
            .current_dir(workspace())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Twice: with the cache empty (both write every entry), then full (both read them).
    for round in ["empty", "full"] {
        let (a, b) = (spawn(), spawn());
        for child in [a, b] {
            let o = child.wait_with_output().unwrap();
            assert_eq!(o.status.code(), code, "{round}");
            assert_eq!(stdout(&o), fresh, "{round}");
        }
    }
}
