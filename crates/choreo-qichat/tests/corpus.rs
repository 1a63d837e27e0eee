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
