//! The reference's own examples: every Example + Execution pair of the NAOqi 2.8 QiChat
//! syntax page (and of the 2.1 page where it differs, the Introduction page's `recover:`,
//! the ALDialog API page's examples), one file each in `tests/reference/`, the topic as the
//! page gives it and the exchange the page shows. Answers are compared ignoring case and
//! punctuation; `a | b` accepts either (randomness). Where the page contradicts its own
//! topic, the file says so in a `# contradiction:` comment and follows the rule text.
//!
//! The format: the topic text (several topics separated by `---`), a line `===`, then
//! `> what the human says` (`> e:Event` or `> e:Event=value`: an event raised), `< the
//! answer` (`<` alone: nothing said), `! api call` (forceOutput, gotoTag TAG TOPIC,
//! gotoTopic TOPIC, setFocus TOPIC, activateTag/deactivateTag TAG TOPIC, setConcept NAME
//! LANGUAGE a | b, addToConcept ..., clearConcepts, set KEY VALUE (memory), user NAME VALUE
//! (the focused user's data), stub Service.method RESULT, time YYYY-MM-DD hh:mm).

use crate::support;

use std::path::Path;

use choreo_qichat::dialog::{Answer, Dialog};
use choreo_qichat::matcher::words;
use support::TestHost;

/// Files that need more than this crate has, each with the test that plays it instead.
const ELSEWHERE: &[(&str, &str)] = &[(
    "script.chat",
    "%script runs Python: crates/choreo/tests/chat.rs plays it through `choreo chat`, whose \
     %script runs in the embedded CPython",
)];

/// `YYYY-MM-DD hh:mm` as ms since the epoch (UTC), by hand: days from civil.
fn epoch_ms(text: &str) -> u64 {
    let (date, time) = text
        .trim()
        .split_once(' ')
        .unwrap_or((text.trim(), "00:00"));
    let d: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let t: Vec<i64> = time.split(':').map(|x| x.parse().unwrap()).collect();
    let (y, m) = if d[1] <= 2 {
        (d[0] - 1, d[1] + 9)
    } else {
        (d[0], d[1] - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d[2] - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from((days * 86_400 + t[0] * 3600 + t[1] * 60) * 1000).unwrap()
}

fn plain(text: &str) -> String {
    words(text).join(" ")
}

/// Plays one file; the differences found, each with its line.
fn play(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let (topics, exchange) = text
        .split_once("\n===\n")
        .unwrap_or_else(|| panic!("{name}: no `===` line"));
    let header_lines = topics.lines().count() + 1;
    let mut d = Dialog::new(1);
    let mut host = TestHost::default();
    for (i, source) in topics.split("\n---\n").enumerate() {
        match choreo_qichat::parse_str(&format!("{name}#{i}"), source) {
            Ok(topic) => {
                let n = d.load(topic);
                d.activate(&n);
            }
            Err(e) => return vec![format!("{name}: does not parse: {}", e[0])],
        }
    }
    let mut failures = Vec::new();
    let mut last: Option<Option<Answer>> = None;
    for (k, line) in exchange.lines().enumerate() {
        let at = format!("{name}:{}", header_lines + k + 1);
        let line = line.trim();
        if let Some(said) = line.strip_prefix('>') {
            let said = said.trim();
            last = Some(match said.strip_prefix("e:") {
                Some(event) => {
                    let (key, value) = event.split_once('=').unwrap_or((event, "1"));
                    host.memory.insert(key.into(), value.into());
                    d.event(key, &mut host)
                }
                None => d.input(said, &mut host),
            });
        } else if let Some(expected) = line.strip_prefix('<') {
            let got = last
                .take()
                .unwrap_or_else(|| panic!("{at}: `<` with nothing before it"));
            let got_text = got.as_ref().map(|a| plain(&a.text)).unwrap_or_default();
            let ok = if expected.trim().is_empty() {
                got_text.is_empty()
            } else {
                expected.split(" | ").any(|e| plain(e) == got_text)
            };
            if !ok {
                failures.push(format!(
                    "{at}: expected {:?}, got {got_text:?}",
                    expected.trim()
                ));
            }
        } else if let Some(call) = line.strip_prefix('!') {
            let mut parts = call.split_whitespace();
            let method = parts.next().unwrap_or_default();
            let rest: Vec<&str> = parts.collect();
            let arg = |i: usize| rest.get(i).copied().unwrap_or_default();
            let list = || -> Vec<String> {
                rest[2..]
                    .join(" ")
                    .split(" | ")
                    .map(|s| s.trim().to_string())
                    .collect()
            };
            match method {
                "forceOutput" => last = Some(d.propose(&mut host)),
                "gotoTag" => last = Some(d.goto_tag(arg(1), arg(0), &mut host)),
                "gotoTopic" => last = Some(d.goto_topic(arg(0), &mut host)),
                "setFocus" => assert!(d.set_focus(arg(0)), "{at}: cannot focus {}", arg(0)),
                "activateTag" => assert!(d.set_tag(arg(1), arg(0), true), "{at}"),
                "deactivateTag" => assert!(d.set_tag(arg(1), arg(0), false), "{at}"),
                "setConcept" => d.set_concept(arg(0), list()),
                "addToConcept" => d.add_to_concept(arg(0), list()),
                "clearConcepts" => d.clear_concepts(),
                "set" => {
                    host.memory.insert(arg(0).into(), rest[1..].join(" "));
                }
                "user" => d.insert_user_data(0, arg(0), &rest[1..].join(" ")),
                "stub" => {
                    host.results
                        .insert(arg(0).into(), Some(rest[1..].join(" ")));
                }
                "time" => host.now = epoch_ms(&rest.join(" ")),
                other => panic!("{at}: unknown API line `! {other}`"),
            }
        } else if !line.is_empty() && !line.starts_with('#') {
            panic!("{at}: a line must start with '>', '<', '!' or '#'");
        }
    }
    failures
}

#[test]
fn every_example_of_the_reference_answers_as_the_page_says() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "chat"))
        .collect();
    files.sort();
    assert!(files.len() >= 80, "only {} example files", files.len());
    let mut failures = Vec::new();
    let mut failing_files = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if let Some((_, why)) = ELSEWHERE.iter().find(|(n, _)| *n == name) {
            println!("{name}: played elsewhere ({why})");
            continue;
        }
        let found = play(f);
        if !found.is_empty() {
            failing_files += 1;
        }
        failures.extend(found);
    }
    println!(
        "{} example files, {failing_files} with differences",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
