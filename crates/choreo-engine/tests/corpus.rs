//! Every behavior of the shared corpus instantiates, starts and stops with native
//! placeholder boxes (hooks that do nothing), in virtual time, and unloads completely.

use std::time::Duration;

use choreo_engine::trace::Step;
use choreo_engine::{Engine, NativeHost, Options, Outcome, Trace};

#[test]
fn every_corpus_behavior_loads_runs_and_unloads_with_placeholder_boxes() {
    let Some(dir) = choreo_testkit::corpus("corpus instantiation") else {
        return;
    };
    let files = choreo_testkit::files_under(&dir, &|p| choreo_testkit::has_extension(p, &["xar"]));
    let (mut ran, mut unreadable, mut boxes, mut finished, mut limited) = (0, 0, 0, 0, 0);
    for f in &files {
        let Ok(parsed) = choreo_xar::read_xar(&f.display().to_string(), &std::fs::read(f).unwrap())
        else {
            unreadable += 1; // the merge-conflict file
            continue;
        };
        let trace = Trace::new();
        let engine = Engine::load(
            &parsed.value,
            &NativeHost::new(),
            Options {
                virtual_time: true,
                trace: trace.clone(),
                time_limit: Some(Duration::from_secs(60)),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        engine.start();
        let outcome = engine.wait(Duration::from_secs(30));
        assert!(
            matches!(
                outcome,
                Outcome::Finished | Outcome::Idle | Outcome::TimeLimit
            ),
            "{}: {outcome:?}",
            f.display()
        );
        if outcome == Outcome::TimeLimit {
            limited += 1;
        }
        if outcome == Outcome::Finished {
            finished += 1;
        } else {
            engine.stop();
            assert_eq!(
                engine.wait(Duration::from_secs(30)),
                Outcome::Stopped,
                "{}",
                f.display()
            );
        }
        drop(engine);
        // Invariants: every onLoad is matched by one onUnload, every box destroyed.
        let events = trace.events();
        let count = |hook: &str| {
            events
                .iter()
                .filter(|e| matches!(&e.step, Step::Call { hook: h } if h == hook))
                .count()
        };
        assert_eq!(count("onLoad"), count("onUnload"), "{}", f.display());
        let news = events.iter().filter(|e| e.step == Step::New).count();
        let dels = events.iter().filter(|e| e.step == Step::Del).count();
        assert_eq!(news, dels, "{}", f.display());
        boxes += news;
        ran += 1;
    }
    println!(
        "corpus: {} XAR files, {ran} instantiated, started and unloaded ({boxes} boxes; {finished} finished by themselves with placeholder boxes, {limited} still playing after 60 virtual seconds), {unreadable} unreadable (merge conflict)",
        files.len()
    );
    assert_eq!(unreadable, 1);
    assert!(ran > 250);
}
