//! Hostile behaviors (docs/security.md): a box of box code written for the purpose, in a
//! folder of its own beside one box code must not reach, run by `choreo run` as a user
//! runs it; what it printed, how it ended, and that no file outside changed.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use choreo_testkit::{files_under, xar_text};

/// A hostile behavior in a folder of its own, with a folder beside its project that box
/// code must not reach (`outside`), run from that folder.
pub struct Hostile {
    pub dir: tempfile::TempDir,
    pub file: PathBuf,
}

/// How a run ended.
pub struct Ran {
    pub code: Option<i32>,
    pub out: String,
    pub err: String,
    pub took: Duration,
}

impl Ran {
    /// Asserts the exit code, showing the output when it differs.
    pub fn exits(&self, code: i32) -> &Ran {
        assert_eq!(self.code, Some(code), "{}\n{}", self.out, self.err);
        self
    }

    /// Asserts `text` is in standard output or error.
    pub fn says(&self, text: &str) -> &Ran {
        assert!(
            self.out.contains(text) || self.err.contains(text),
            "{text:?} not said:\n{}\n{}",
            self.out,
            self.err
        );
        self
    }

    /// Asserts the run took less than `secs` of real time.
    pub fn within(&self, secs: u64) -> &Ran {
        assert!(
            self.took < Duration::from_secs(secs),
            "took {:?}:\n{}",
            self.took,
            self.out
        );
        self
    }
}

/// The script of the hostile box: `class MyClass(GeneratedClass):` then `body` (its line
/// 1 is the class line; the body's first line is line 2).
pub fn behavior(body: &str) -> String {
    let script = format!(
        "<script language=\"4\"><content><![CDATA[class MyClass(GeneratedClass):\n{body}]]></content></script>"
    );
    let boxed = xar_text::boxed("Hostile", 1, &script, "");
    let links = format!(
        "{}{}",
        xar_text::link(0, 2, 1, 2),
        xar_text::link(1, 4, 0, 4)
    );
    xar_text::behavior(&format!("{boxed}{links}"))
}

impl Hostile {
    /// A behavior whose box has `body` (`{outside}` stands for the folder box code must not
    /// reach).
    pub fn new(body: &str) -> Hostile {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "the user's secret").unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let file = project.join("hostile.xar");
        let body = body.replace("{outside}", &outside.display().to_string());
        std::fs::write(&file, behavior(&body)).unwrap();
        Hostile { dir, file }
    }

    /// `choreo stack run stack` from its folder (the stack's definitions in `stack/`): what
    /// it printed on standard error.
    pub fn stack_run(&self) -> String {
        self.stack(&["--timeout", "5"]).1
    }

    /// `choreo stack run stack --fast` with `args`, from its folder: its exit code and what
    /// it printed on standard error.
    pub fn stack(&self, args: &[&str]) -> (Option<i32>, String) {
        let o = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .args(["stack", "run", "stack", "--fast"])
            .args(args)
            .current_dir(self.dir.path())
            .process_group(0)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    /// A stack in `stack/` of Python behaviors: `file` holding `source`, and a definition
    /// of each `(behaviorID, class)` of it.
    pub fn python_stack(&self, file: &str, source: &str, behaviors: &[(&str, &str)]) {
        let stack = self.dir.path().join("stack");
        std::fs::create_dir_all(&stack).unwrap();
        std::fs::write(stack.join(file), source).unwrap();
        for (id, class) in behaviors {
            std::fs::write(
                stack.join(format!("{id}.json")),
                format!(
                    r#"{{"behaviorID": "{id}", "behaviorClass": "Python", "file": "{file}", "class": "{class}"}}"#
                ),
            )
            .unwrap();
        }
    }

    pub fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    /// `choreo run` of it in virtual time with `args`, from its folder; every file of that
    /// folder but the project's is the same after.
    pub fn run(&self, args: &[&str]) -> Ran {
        let mut command = self.command(args);
        let before = tree(self.dir.path());
        let started = Instant::now();
        let o: Output = command.output().unwrap();
        let ran = Ran {
            code: o.status.code(),
            out: String::from_utf8_lossy(&o.stdout).into_owned(),
            err: String::from_utf8_lossy(&o.stderr).into_owned(),
            took: started.elapsed(),
        };
        assert_eq!(
            before,
            tree(self.dir.path()),
            "a file changed outside the run's folders:\n{}",
            ran.out
        );
        ran
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_choreo"));
        command.arg("run").arg(&self.file).arg("--fast");
        if !args.contains(&"--timeout") {
            command.args(["--timeout", "20"]);
        }
        command
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            // A group of its own: a signal box code sends its group reaches no test.
            .process_group(0);
        command
    }
}

/// Every file under `dir` with its length and time of change.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    files_under(dir, &|_| true)
        .into_iter()
        .map(|f| {
            let meta = std::fs::symlink_metadata(&f).ok();
            let len = meta.as_ref().map_or(0, std::fs::Metadata::len);
            (f, (len, meta.and_then(|m| m.modified().ok())))
        })
        .collect()
}

/// How many processes run with `marker` in their command line.
pub fn alive(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| {
                    String::from_utf8_lossy(&c)
                        .replace('\0', " ")
                        .contains(marker)
                })
                .unwrap_or(false)
        })
        .count()
}
