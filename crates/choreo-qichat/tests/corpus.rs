//! Every loose `.top` file of the shared corpus parses, but for the files listed in
//! [`BROKEN`], which really are not QiChat (each with its reason).

use std::time::Instant;

/// Corpus files (path ends) that must fail, and why. A file listed here must be wrong for
/// NAOqi too; a file we fail on that NAOqi accepts is our bug.
const BROKEN: &[(&str, &str)] = &[];

#[test]
fn every_corpus_topic_parses() {
    let Some(corpus) = choreo_testkit::corpus("qichat corpus") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "top"));
    assert!(
        files.len() >= 90,
        "only {} .top files in the corpus",
        files.len()
    );
    let started = Instant::now();
    let mut rules = 0;
    let mut warnings = Vec::new();
    let mut failures = Vec::new();
    let mut broken_seen = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_default();
        let name = path
            .strip_prefix(&corpus)
            .unwrap_or(path)
            .display()
            .to_string();
        let expected_broken = BROKEN.iter().find(|(end, _)| name.ends_with(end));
        match (choreo_qichat::parse(&name, &bytes), expected_broken) {
            (Ok(p), None) => {
                rules += p.topic.all_rules().len();
                warnings.extend(p.warnings.iter().map(|w| w.to_string()));
            }
            (Ok(_), Some((end, _))) => {
                failures.push(format!("{name}: listed in BROKEN ({end}) but parses"))
            }
            (Err(errors), Some(_)) => broken_seen.push(format!("{}", errors[0])),
            (Err(errors), None) => {
                failures.extend(errors.iter().take(3).map(|e| e.to_string()));
            }
        }
    }
    let elapsed = started.elapsed();
    println!(
        "qichat corpus: {} files, {} parse ({} rules, {} warnings), {} known broken, in {:.1} ms",
        files.len(),
        files.len() - broken_seen.len() - failures.len().min(files.len()),
        rules,
        warnings.len(),
        broken_seen.len(),
        elapsed.as_secs_f64() * 1e3
    );
    for w in &warnings {
        println!("  {w}");
    }
    for b in &broken_seen {
        println!("  known broken: {b}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every user rule of every corpus topic, matched against inputs that do and do not look
/// like speech: always an answer (no panic, no runaway), and at least some rules of the
/// corpus match a plain greeting.
#[test]
fn every_corpus_rule_can_be_matched_against_any_input() {
    let Some(corpus) = choreo_testkit::corpus("qichat corpus matching") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "top"));
    let long = "the quick brown fox jumps over the lazy dog ".repeat(8);
    let inputs = [
        "",
        "hello",
        "yes",
        "hallo",
        long.as_str(),
        "¿qué? ¡sí! 你好",
    ];
    let (mut tried, mut greeted) = (0usize, 0usize);
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_default();
        let Ok(parsed) = choreo_qichat::parse(&path.display().to_string(), &bytes) else {
            continue;
        };
        for rule in parsed.topic.all_rules() {
            for input in inputs {
                let m = choreo_qichat::matcher::match_pattern(&rule.pattern, input, &parsed.topic);
                tried += 1;
                if m.is_some() && (input == "hello" || input == "hallo") {
                    greeted += 1;
                }
            }
        }
    }
    println!("matched {tried} (rule, input) pairs; {greeted} rules answer a plain greeting");
    assert!(tried > 1000, "{tried}");
    assert!(greeted > 0);
}

/// The topic's Debug text without its positions: what a topic means, wherever its lines are.
fn without_positions(topic: &choreo_qichat::Topic) -> String {
    let text = format!("{topic:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("Span {") {
        out.push_str(&rest[..at]);
        rest = rest[at..].split_once('}').map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

/// Formatting (what `choreo lsp` does to a `.top`) gives the same text a second time, and
/// a topic that parses the same (positions aside), on every corpus topic.
#[test]
fn formatting_every_corpus_topic_is_idempotent_and_keeps_its_meaning() {
    let Some(corpus) = choreo_testkit::corpus("qichat corpus formatting") else {
        return;
    };
    let files =
        choreo_testkit::files_under(&corpus, &|p| p.extension().is_some_and(|e| e == "top"));
    let (mut parsed, mut changed) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let once = choreo_qichat::format::format(&text);
        assert_eq!(
            choreo_qichat::format::format(&once),
            once,
            "{}: not idempotent",
            f.display()
        );
        changed += usize::from(once != text);
        let name = f.display().to_string();
        if let (Ok(before), Ok(after)) = (
            choreo_qichat::parse_str(&name, &text),
            choreo_qichat::parse_str(&name, &once),
        ) {
            parsed += 1;
            assert_eq!(
                without_positions(&before),
                without_positions(&after),
                "{name}: formatting changed the topic"
            );
        }
    }
    println!(
        "formatting: {} topics, {changed} changed, {parsed} parsed the same before and after",
        files.len()
    );
    assert!(parsed >= 50, "only {parsed} topics compared");
}
