//! Behaviors of the behavior stack written in Python: every hook of the contract, the runner
//! API from `cx`, refusals as exceptions, and the rules checked on the trace.

use std::path::Path;

use choreo_engine::Value;
use choreo_python::stack::PythonBehavior;
use choreo_stack::core::check::{Tree, check};
use choreo_stack::core::trace::describe;
use choreo_stack::{Builder, Options, Runner, Tick};

const BEHAVIORS: &str = r#"
class Parent:
    always_delegates = False

    def __init__(self, child="Child"):
        self.child = child
        self.asked = False
        self.kept = None

    def delegates(self):
        return [self.child]

    def wants_to_be_activated(self, cx):
        # No stack change from here (L5): refused, as an exception.
        try:
            cx.cancel_self()
        except RuntimeError as e:
            cx.log("refused: %s" % e)
        return True

    def update(self, cx):
        if cx.is_activated() and not self.asked and cx.wants(self.child):
            cx.delegate(self.child, callback=7)
            self.asked = True
            self.kept = cx
            try:
                cx.delegate(self.child)
            except RuntimeError as e:
                cx.log("second: %s" % e)

    def on_delegation_done(self, cx, token, done):
        cx.log("done %d at tick %d: %r" % (token, cx.tick, done))
        try:
            self.kept.tick
        except RuntimeError as e:
            cx.log("old cx: %s" % e)
        cx.cancel_self()


class Child:
    always_delegates = False
    subscriptions = ["Touch"]

    def __init__(self):
        self.updates = 0

    def wants_to_be_activated(self, cx):
        return True

    def on_input(self, cx, name, value):
        cx.log("input %s=%r" % (name, value))

    def update(self, cx):
        if cx.is_activated():
            self.updates += 1
            if self.updates == 2:
                cx.cancel_self(failure="tired")


class Broken:
    def wants_to_be_activated(self, cx):
        return True

    def update(self, cx):
        raise ValueError("no luck")
"#;

fn file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("behaviors.py");
    std::fs::write(&path, BEHAVIORS).unwrap();
    (dir, path)
}

fn runner(file: &Path, base: &str, others: &[&str]) -> Runner {
    let mut b = Builder::new();
    b.add(
        base,
        Box::new(PythonBehavior::load(file, base, &Value::None, None, None).unwrap()),
    );
    for o in others {
        b.add(
            o,
            Box::new(PythonBehavior::load(file, o, &Value::None, None, None).unwrap()),
        );
    }
    b.build(
        base,
        Options {
            keep_trace: true,
            ..Options::default()
        },
    )
    .unwrap()
}

fn lines(r: &Runner) -> Vec<String> {
    r.trace()
        .records()
        .iter()
        .map(|rec| describe(rec, r.names()).trim_start().to_string())
        .collect()
}

fn assert_clean(r: &Runner) {
    let v = check(r.trace().records(), &Tree::of(r));
    assert!(v.is_empty(), "{v:?}\n{:#?}", lines(r));
}

#[test]
fn a_python_parent_delegates_to_a_python_child_and_hears_how_it_ended() {
    let (_dir, file) = file();
    let mut r = runner(&file, "Parent", &["Child"]);
    r.tick().unwrap();
    r.inbox().post("Touch", Value::Int(1));
    while r.tick().unwrap() == Tick::Running && r.tick_count() < 10 {}
    let all = lines(&r);
    let logs: Vec<&str> = all
        .iter()
        .filter_map(|l| l.split_once(" log(").map(|(_, x)| x))
        .collect();
    assert_eq!(
        logs,
        [
            "Parent, info: refused: no stack change from inside wants_to_be_activated)",
            "Parent, info: second: not the top of the stack)",
            "Child, info: input Touch=1)",
            // The child ended in tick 2; the callback comes in tick 3 (C1).
            "Parent, info: done 7 at tick 3: ('failure', 'tired'))",
            "Parent, info: old cx: this context belongs to a hook that has returned)",
        ],
        "{all:#?}"
    );
    assert!(r.is_finished());
    assert_clean(&r);
}

#[test]
fn an_exception_in_a_hook_is_logged_with_its_traceback_and_the_stack_goes_on() {
    let (_dir, file) = file();
    let mut r = runner(&file, "Broken", &[]);
    for _ in 0..3 {
        r.tick().unwrap();
    }
    let errors: Vec<String> = lines(&r)
        .into_iter()
        .filter(|l| l.contains("log(Broken, error:"))
        .collect();
    // Broken always delegates and never does: cancelled at its first update (C6), after
    // its exception was logged.
    assert_eq!(errors.len(), 1, "{:#?}", lines(&r));
    assert!(
        errors[0].contains("Broken.update: Traceback"),
        "{}",
        errors[0]
    );
    let line = BEHAVIORS
        .lines()
        .position(|l| l.contains("raise ValueError"))
        .unwrap()
        + 1;
    let at = format!("behaviors.py\", line {line}, in update");
    assert!(errors[0].contains(&at), "{}", errors[0]);
    assert!(errors[0].contains("ValueError: no luck"), "{}", errors[0]);
    assert_clean(&r);
}

#[test]
fn what_cannot_load_says_why() {
    let (dir, file) = file();
    let e = PythonBehavior::load(&file, "Nobody", &Value::None, None, None)
        .err()
        .unwrap();
    assert!(e.to_string().ends_with("no class \"Nobody\" in it"), "{e}");
    let bad = dir.path().join("bad.py");
    std::fs::write(&bad, "class A:\n    def f(self:\n        pass\n").unwrap();
    let e = PythonBehavior::load(&bad, "A", &Value::None, None, None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("SyntaxError"), "{e}");
    assert!(e.to_string().contains("line 2"), "{e}");
    // Parameters arrive as keyword arguments.
    let p = PythonBehavior::load(
        &file,
        "Parent",
        &Value::Map(vec![(
            Value::String("child".into()),
            Value::String("Other".into()),
        )]),
        None,
        None,
    )
    .unwrap();
    assert_eq!(choreo_stack::Behavior::delegates(&p), ["Other"]);
}
