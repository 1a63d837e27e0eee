//! The parser never panics: random bytes, random QiChat-ish text, and random truncations and
//! splices of the corpus's topics give a topic or located errors.

use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn corpus_topics() -> Vec<Vec<u8>> {
    let Some(corpus) = choreo_testkit::corpus("qichat fuzz over corpus topics") else {
        return Vec::new();
    };
    choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "top"))
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

fn check(bytes: &[u8]) {
    if let Err(errors) = choreo_qichat::parse("f.top", bytes) {
        assert!(!errors.is_empty());
        for e in errors {
            assert!(e.span.line >= 1 && e.span.column >= 1, "{e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&bytes);
    }

    #[test]
    fn random_qichat_text_never_panics(
        text in "(topic: ~t\\(\\)\n)?([uec]?[0-9]?:|proposal:|concept:|[ \n\t\"\\[\\]{}()~$_*!^%#=<>a-z0-9/])*"
    ) {
        check(text.as_bytes());
    }
}

#[test]
fn truncated_and_spliced_corpus_topics_never_panic() {
    let topics = corpus_topics();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for bytes in &topics {
        let n = bytes.len();
        for _ in 0..16 {
            let cut = (0..=n)
                .new_tree(&mut runner)
                .map(|t| t.current())
                .unwrap_or(0);
            check(&bytes[..cut]);
            let from = (0..=cut)
                .new_tree(&mut runner)
                .map(|t| t.current())
                .unwrap_or(0);
            let mut spliced = bytes[..from].to_vec();
            spliced.extend_from_slice(&bytes[cut..]);
            check(&spliced);
        }
    }
}
