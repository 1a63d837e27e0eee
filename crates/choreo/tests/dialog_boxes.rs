//! The Dialog boxes of the corpus answer as their topics say (issue 14).
//!
//! Every corpus behavior that holds a Dialog box runs on the simulated robot (in the
//! language of its package's manifest; when a Dialog box has no topic in that language, the
//! run is made again in the language of its topics, as a user would with `--lang`). Each
//! Dialog box that loads its topic is then probed: a second run makes the robot hear, right
//! when that box subscribes, a sentence made from the topic's own text (a rule written as
//! plain words, those words with a word before and after them: the 2.8 syntax page says
//! "Dialog engine allows more words in input than in rule"), and the robot must say what
//! the dialog engine answers with that rule for that topic alone. A box the behavior's flow does not start (it waits for a face, a touch) is
//! started by the test, as a link would start it. A box whose topic
//! has no rule a sentence can reach (only `e:` rules, conditions on variables, or all
//! commented out) is counted, not probed. A Dialog box that fails to load must fail for a
//! reason a robot would share: its `.dlg` file or topic is not in the project.

use crate::support;

use std::collections::{BTreeMap, HashMap};

use choreo_engine::Value;
use choreo_engine::trace::Step;
use choreo_qichat::dialog::Dialog;
use choreo_qichat::{PatternKind, RuleKind, Topic};
use choreo_testkit::corpus;
use support::{CorpusBehavior, Run, corpus_behaviors};

/// Virtual seconds a run may take.
const LIMIT: f64 = 30.0;

/// A Dialog box seen loading its topic in a run: its path, whether the behavior's flow
/// started it, the start of the name it subscribes with (`getName()`: the path made an
/// identifier, then its id), its topic (read while the run's files exist: an archive's are
/// unpacked for the run only).
struct Loaded {
    path: String,
    started: bool,
    subscriber: String,
    topic: Topic,
}

/// The Dialog boxes of `job` that loaded their topic, and the errors of Dialog boxes; or
/// why the behavior does not load.
fn first_run(
    job: &CorpusBehavior,
    dialog_names: &[String],
    language: Option<&str>,
) -> Result<(Vec<Loaded>, Vec<String>), String> {
    let run = Run::corpus_with(job, LIMIT, None, language)?;
    run.start();
    let text = |v: &[Value]| match v.first() {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let mut loaded: Vec<Loaded> = Vec::new();
    let mut errors = Vec::new();
    for e in run.events() {
        match &e.step {
            Step::RobotCall { method, args } if method == "ALDialog.loadTopic" => {
                if loaded.iter().any(|l| l.path == e.path) {
                    continue;
                }
                let file = text(args);
                let bytes = std::fs::read(&file).unwrap();
                let identifier: String = e
                    .path
                    .chars()
                    .map(|c| if c.is_alphanumeric() { c } else { '_' })
                    .collect();
                loaded.push(Loaded {
                    path: e.path.clone(),
                    started: false,
                    subscriber: format!("{identifier}_"),
                    topic: choreo_qichat::parse(&file, &bytes).unwrap().topic,
                });
            }
            Step::RobotCall { method, .. } if method == "ALDialog.subscribe" => {
                if let Some(l) = loaded.iter_mut().find(|l| l.path == e.path) {
                    l.started = true;
                }
            }
            Step::Err { hook, text } => {
                let name = e.path.rsplit('/').next().unwrap_or("");
                let base = name.split('[').next().unwrap_or(name);
                if dialog_names.iter().any(|n| n == base) {
                    errors.push(format!("{} {hook}: {text}", e.path));
                }
            }
            _ => {}
        }
    }
    Ok((loaded, errors))
}

/// What a box is probed with, and the answers that count as right.
enum Probe {
    /// The robot hears `said`; the topic answers `expected`.
    Speech { said: String, expected: String },
    /// The box starts; its `e:onStart` rule says one of these (several when it draws with
    /// `^rand`: the run's seed state is not the test's).
    Start { expected: Vec<String> },
}

/// The words of `pattern` as the topic writes them: its words, a choice's first item, a
/// concept's first item, "something" for a wildcard, an optional part left out; `None` when
/// it needs more than text (an event, a variable, a condition, a function).
fn literal(
    pattern: &[choreo_qichat::PatternNode],
    topic: &Topic,
    depth: usize,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for n in pattern {
        match &n.kind {
            PatternKind::Word(w) => out.push(w.clone()),
            PatternKind::Phrase(items) => out.extend(literal(items, topic, depth)?),
            PatternKind::Choice(items) => {
                out.extend(literal(&items[..1.min(items.len())], topic, depth)?)
            }
            PatternKind::Capture(inner) => {
                out.extend(literal(std::slice::from_ref(inner), topic, depth)?)
            }
            PatternKind::Concept(c) if depth < 8 => {
                let body = &topic.concepts.iter().find(|x| x.name == *c)?.body;
                out.extend(literal(body, topic, depth + 1)?);
            }
            PatternKind::Wildcard => out.push("something".into()),
            PatternKind::Optional(_) | PatternKind::Not(_) | PatternKind::Tag(_) => {}
            _ => return None,
        }
    }
    Some(out)
}

/// How to probe `topic`: a sentence made of a top-level rule's own words ([`literal`]) with
/// a word before and after them, when that rule answers it for the
/// topic alone, with what it says; else, when it has one, its `e:onStart` rule's answers;
/// `None` when neither gives a spoken answer.
fn probe(topic: &Topic) -> Option<Probe> {
    let fresh = |seed: u64| {
        let mut d = Dialog::new(seed);
        let name = d.load(topic.clone());
        d.activate(&name);
        d
    };
    for rule in topic.rules.iter().filter(|r| r.kind == RuleKind::User) {
        let Some(words) = literal(&rule.pattern, topic, 0).filter(|w| !w.is_empty()) else {
            continue;
        };
        let said = format!("umm {} hmm", words.join(" "));
        let Some(answer) = fresh(1).input(&said, &mut HashMap::new()) else {
            continue;
        };
        let expected = plain(&answer.text);
        if answer.rule == rule.span && !expected.is_empty() {
            return Some(Probe::Speech { said, expected });
        }
    }
    let mut expected: Vec<String> = (1..=64)
        .filter_map(|seed| fresh(seed).event("onStart", &mut HashMap::new()))
        .map(|a| plain(&a.text))
        .filter(|t| !t.is_empty())
        .collect();
    expected.sort();
    expected.dedup();
    (!expected.is_empty()).then_some(Probe::Start { expected })
}

/// What `said` gets from `topic` alone, if anything is said.
fn answer_alone(topic: &Topic, said: &str) -> Option<String> {
    let mut d = Dialog::new(1);
    let name = d.load(topic.clone());
    d.activate(&name);
    let text = plain(&d.input(said, &mut HashMap::new())?.text);
    (!text.is_empty()).then_some(text)
}

/// Text as the robot's speech record keeps it: animated-speech tags (`\pau=500\`) and
/// instructions (`^start(x)`) dropped, spaces made single, lower-case.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let skip = match c {
            '\\' => rest[1..].find('\\').map(|end| end + 2),
            '^' => rest.find(')').map(|end| end + 1),
            _ => None,
        };
        if let Some(skip) = skip {
            rest = &rest[skip..];
            out.push(' ');
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// YAML text for a string (JSON's quoting is valid YAML).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn corpus_dialog_boxes_answer_as_their_topics_say() {
    let Some(root) = corpus("the corpus's Dialog boxes") else {
        return;
    };
    let (jobs, _) = corpus_behaviors(&root);
    let mut with_dialogs = 0;
    let mut boxes = 0;
    let mut seen = 0;
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for job in &jobs {
        let mut names = Vec::new();
        job.xar.root_box.walk(&mut |b| {
            if b.dialog_file.is_some() {
                names.push(b.name.clone());
            }
        });
        if names.is_empty() {
            continue;
        }
        with_dialogs += 1;
        boxes += names.len();
        let mut language = None;
        let mut first = first_run(job, &names, None);
        // "x.dlg has no topic in English (enu), the robot's language; it has: ged (...)".
        let other = first.as_ref().ok().and_then(|(_, errors)| {
            let e = errors
                .iter()
                .find(|e| e.contains("the robot's language; it has: "))?;
            let codes = e.split("it has: ").nth(1)?.split(" (").next()?;
            let code = codes.split(", ").next()?;
            choreo_robot::languages::by_code(code).map(|l| l.name)
        });
        if let Some(name) = other {
            language = Some(name);
            first = first_run(job, &names, language);
        }
        let (loaded, errors) = match first {
            Ok(found) => found,
            Err(e) => {
                // The corpus run test sorts load failures into ours and the world's.
                let first = e.lines().last().unwrap_or("").to_string();
                outcomes
                    .entry("behavior does not load (see the corpus run)".to_string())
                    .or_default()
                    .push(format!("{}: {first}", job.name));
                continue;
            }
        };
        let errors_seen = errors.iter().filter(|e| e.contains(" onLoad: ")).count();
        for e in errors {
            let world = e.contains("cannot read the dialog") || e.contains("cannot read topic");
            let world = world || e.contains("the robot's language; it has: ");
            let kind = if world {
                "load failed (file missing)"
            } else if e.contains("choreo's sandbox refused reading") {
                // A dialog outside its package (docs/security.md): by design.
                "load failed (refused by the sandbox)"
            } else {
                "load failed (ours)"
            };
            outcomes
                .entry(kind.to_string())
                .or_default()
                .push(format!("{} :: {e}", job.name));
        }
        seen += loaded.len() + errors_seen;
        let topics: Vec<Topic> = loaded.iter().map(|l| l.topic.clone()).collect();
        for l in &loaded {
            let what = format!("{} :: {}", job.name, l.path);
            let Some(probe) = probe(&l.topic) else {
                outcomes
                    .entry("no rule speech or its start can reach".to_string())
                    .or_default()
                    .push(what);
                continue;
            };
            let scenario = match &probe {
                Probe::Speech { said, .. } => format!(
                    "events:\n  - on_call: ALDialog.subscribe\n    contains: {}\n    recognize: {{word: {}, confidence: 1.0}}\n",
                    quoted(&l.subscriber),
                    quoted(said)
                ),
                Probe::Start { .. } => "events: []\n".to_string(),
            };
            let run = Run::corpus_with(job, LIMIT, Some(&scenario), language).unwrap();
            run.start();
            // A box its flow does not start (it waits for a face, a touch...) is started here,
            // as a link would.
            if !l.started {
                if let Err(e) = run.engine.stimulate(&l.path, "onStart", Value::None) {
                    outcomes
                        .entry("cannot be started from outside".to_string())
                        .or_default()
                        .push(format!("{what}: {e}"));
                    continue;
                }
                run.engine.wait(support::WAIT);
            }
            let spoken: Vec<String> = run
                .robot
                .snapshot()
                .spoken
                .iter()
                .map(|t| plain(t))
                .collect();
            let by = if l.started { "its flow" } else { "the test" };
            let (right, line) = match &probe {
                Probe::Speech { said, expected } => (
                    spoken.contains(expected),
                    format!("{what}: heard {said:?}, expected {expected:?}"),
                ),
                // An output that raises an event midway (`... $openhab=turn_on. ...`) with a
                // box subscribed to it is said in parts, one before and one after the event.
                Probe::Start { expected } => (
                    spoken.iter().any(|t| expected.contains(t))
                        || expected
                            .iter()
                            .any(|e| spoken.join(" ").contains(e.as_str())),
                    format!("{what}: started, expected one of {expected:?}"),
                ),
            };
            // Another Dialog box of the behavior may still be active (its flow never stops
            // it, or the test started this box out of its flow): its topic answers first when
            // it has the focus, as ALDialog's order says.
            let other = match &probe {
                Probe::Speech { said, .. } if !right => topics
                    .iter()
                    .filter(|t| t.name != l.topic.name)
                    .filter_map(|t| answer_alone(t, said))
                    .find(|a| spoken.contains(a)),
                _ => None,
            };
            let kind = match (right, &probe, other.is_some()) {
                (true, Probe::Speech { .. }, _) => {
                    format!("speech answered as the topic says (started by {by})")
                }
                (true, Probe::Start { .. }, _) => {
                    format!("start answered as the topic says (started by {by})")
                }
                (false, _, true) => {
                    format!("answered by another active topic in focus (started by {by})")
                }
                (false, _, false) => "answered otherwise".to_string(),
            };
            let detail = if kind == "answered otherwise" {
                format!("{line}, said {spoken:?}\n{}", run.dump())
            } else {
                line
            };
            outcomes.entry(kind).or_default().push(detail);
        }
    }
    println!("{with_dialogs} behaviors hold {boxes} Dialog boxes");
    println!(
        "  in a diagram the run never loads (a keyframe or box not reached): {}",
        boxes.saturating_sub(seen)
    );
    for (kind, list) in &outcomes {
        println!("  {kind}: {}", list.len());
        for l in list {
            println!("    {}", l.lines().next().unwrap_or(""));
        }
    }
    let count = |k: &str| outcomes.get(k).map_or(0, Vec::len);
    assert_eq!(
        count("answered otherwise"),
        0,
        "{:#?}",
        outcomes.get("answered otherwise")
    );
    assert_eq!(
        count("load failed (ours)"),
        0,
        "{:#?}",
        outcomes.get("load failed (ours)")
    );
    // The probe reached real boxes: not a test that passes for want of any.
    let answered: usize = outcomes
        .iter()
        .filter(|(k, _)| k.contains("answered as the topic says"))
        .map(|(_, v)| v.len())
        .sum();
    assert!(answered >= 10, "only {answered} Dialog boxes probed");
}

#[test]
fn the_joke_generator_tells_a_random_joke_laughs_and_finishes() {
    // Its Dialog box's topic: `u:(e:onStart) ^gotoRandom(joke)`, eleven `%joke` proposals
    // each ending with `^gotoReactivate(next)`, and `%next` laughing (`^start` and `^wait`
    // of a stock animation) before `$onStopped=1`.
    let Some(root) = corpus("the joke generator") else {
        return;
    };
    let (jobs, _) = corpus_behaviors(&root.join("PepperIHTE__JokeGenerator"));
    let job = jobs.first().expect("the joke generator's behavior");
    let run = Run::corpus(job, LIMIT).unwrap();
    let moves = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&moves);
    run.robot.set_observer(std::sync::Arc::new(
        move |e: &choreo_naoqi::RobotEvent| match e {
            choreo_naoqi::RobotEvent::MotionStarted {
                method, duration, ..
            }
            | choreo_naoqi::RobotEvent::Said {
                text: method,
                duration,
            } => seen.lock().unwrap().push((method.clone(), *duration)),
            _ => {}
        },
    ));
    let outcome = run.start();
    assert_eq!(outcome, choreo_engine::Outcome::Finished, "{}", run.dump());
    let spoken = run.robot.snapshot().spoken;
    assert_eq!(spoken.len(), 1, "one joke: {spoken:?}");
    let moves = moves.lock().unwrap().clone();
    let find = |what: &str| moves.iter().find(|(m, _)| m.contains(what)).cloned();
    let laugh = find("Laugh_3").unwrap_or_else(|| panic!("the laugh played: {moves:?}"));
    let joke = find(&spoken[0]).unwrap_or_else(|| panic!("the joke said: {moves:?}"));
    let stopped = run.outputs("root/vitsi", "onStopped");
    assert_eq!(stopped.len(), 1, "{}", run.dump());
    // One animated speech: the joke, the laugh started at its end and waited for
    // (`^wait`), so it lasts longer than the laugh; `$onStopped=1` comes after all of it.
    assert!(joke.1 > laugh.1 + 1.0, "{joke:?} {laugh:?}");
    assert!(stopped[0].0 >= joke.1 - 0.01, "{stopped:?} {joke:?}");
}

#[test]
fn a_dialog_box_with_outputs_of_its_own_plays_on_from_a_yes_with_more_words() {
    // The rock-paper-scissors game's Greeting box replaced onStopped by two stopping outputs
    // of its own, `wait` and `play` (`u:(Yes) $play=1`). "yes i do" answers `u:(Yes)` (the
    // reference: "Dialog engine allows more words in input than in rule"); `play` stops the
    // box (its onStop must not look for an onStopped it does not have) and the game begins.
    let Some(root) = corpus("the rock-paper-scissors game") else {
        return;
    };
    let pml = root.join("kossy__Nao-Rock-Paper-Scissors/src/NaoRockPaperScissors.pml");
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("talk.yaml");
    std::fs::write(
        &events,
        "events:\n  - at: 2.0\n    recognize: {word: \"hello nao\", confidence: 0.8}\n  - at: 8.0\n    recognize: {word: \"yes i do\", confidence: 0.8}\n",
    )
    .unwrap();
    let o = support::cli::choreo(&[
        "run",
        pml.to_str().unwrap(),
        "--fast",
        "--timeout",
        "60",
        "--events",
        events.to_str().unwrap(),
    ]);
    let (out, err) = support::cli::text(&o);
    assert!(
        err.contains("says \"Do you want to play a game of rock paper scissors?\""),
        "{err}"
    );
    assert!(err.contains("says \"Ok! Lets play!\""), "{err}");
    assert!(!err.contains("AttributeError"), "{err}");
    assert!(
        out.contains("errors         0") || err.contains("errors         0"),
        "{out}{err}"
    );
}
