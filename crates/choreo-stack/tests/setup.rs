//! Building a runner: located errors for what cannot run.

use crate::support;

use choreo_stack::{Builder, Options, SetupError};
use support::*;

fn build(behaviors: Vec<(&str, Probe)>, base: &str) -> Result<(), SetupError> {
    let mut b = Builder::new();
    for (id, p) in behaviors {
        b.add(id, Box::new(p));
    }
    b.build(base, Options::default()).map(|_| ())
}

#[test]
fn unknown_names_duplicates_and_cycles_are_refused_with_the_names() {
    assert_eq!(
        build(vec![("a", Probe::new().delegates(&["nope"]))], "a"),
        Err(SetupError::UnknownBehavior {
            behavior: "a".into(),
            named: "nope".into(),
            what: "delegate"
        })
    );
    assert_eq!(
        build(vec![("a", Probe::leaf()), ("a", Probe::leaf())], "a"),
        Err(SetupError::DuplicateId("a".into()))
    );
    assert_eq!(
        build(vec![("a", Probe::leaf())], "b"),
        Err(SetupError::UnknownBase("b".into()))
    );
    let cycle = build(
        vec![
            ("a", Probe::new().delegates(&["b"])),
            ("b", Probe::new().linked(&["c"])),
            ("c", Probe::new().delegates(&["a"])),
        ],
        "a",
    );
    assert_eq!(
        cycle,
        Err(SetupError::Cycle(vec![
            "a".into(),
            "b".into(),
            "c".into(),
            "a".into()
        ]))
    );
    assert!(matches!(
        build(vec![("a", Probe::new().delegates(&["a"]))], "a"),
        Err(SetupError::Cycle(_))
    ));
}

#[test]
fn anonymous_behaviors_are_private_to_their_owner_and_may_not_take_a_global_id() {
    let mut b = Builder::new();
    b.add("owner", Box::new(parent_of("helper").always(false)));
    b.add_anonymous("owner", "helper", Box::new(Probe::leaf()));
    let mut r = b
        .build(
            "owner",
            Options {
                keep_trace: true,
                ..Options::default()
            },
        )
        .unwrap();
    ticks(&mut r, 1);
    assert_eq!(r.names()[r.stack()[1].index()], "@helper");
    assert_eq!(r.id("helper"), None);
    assert_clean(&r);
    // Nobody else sees it.
    let mut b = Builder::new();
    b.add("owner", Box::new(Probe::leaf()));
    b.add("other", Box::new(Probe::new().delegates(&["secret"])));
    b.add_anonymous("owner", "secret", Box::new(Probe::leaf()));
    assert!(matches!(
        b.build("owner", Options::default()),
        Err(SetupError::UnknownBehavior { .. })
    ));
    // A name that is also a global id, or twice the same name, is refused (§10.3).
    for second in ["global", "mine"] {
        let mut b = Builder::new();
        b.add("owner", Box::new(Probe::leaf()));
        b.add("global", Box::new(Probe::leaf()));
        b.add_anonymous("owner", "mine", Box::new(Probe::leaf()));
        b.add_anonymous("owner", second, Box::new(Probe::leaf()));
        assert_eq!(
            b.build("owner", Options::default()).err(),
            Some(SetupError::DuplicateId(format!("@{second}")))
        );
    }
}

#[test]
fn a_base_that_does_not_want_is_an_error_and_leaves_no_stack() {
    let mut r = runner(vec![("a", Probe::leaf().wants(|_| false))], "a");
    assert_eq!(r.tick(), Err(SetupError::BaseDoesNotWant("a".into())));
    assert!(r.stack().is_empty());
    assert_clean(&r);
}
