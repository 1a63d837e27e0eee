//! Matching inputs against rule patterns: one test per pattern element, with the captures.

use std::collections::HashMap;

use choreo_qichat::matcher::{Heard, Lookup, match_heard, match_pattern, tokens, words};
use choreo_qichat::{PatternNode, Topic};

/// A topic with `rules` (and `concepts`), parsed.
fn topic(body: &str) -> Topic {
    let text = format!("topic: ~t()\nlanguage: enu\n{body}\n");
    choreo_qichat::parse_str("t.top", &text).unwrap()
}

/// Whether the `n`-th rule of `t` matches `input`, and its captures.
fn captures(t: &Topic, n: usize, input: &str) -> Option<Vec<String>> {
    let rule = t.user_rules().nth(n).unwrap();
    match_pattern(&rule.pattern, input, t).map(|m| m.captures)
}

fn matches(t: &Topic, input: &str) -> bool {
    captures(t, 0, input).is_some()
}

#[test]
fn words_ignore_case_and_punctuation_and_the_whole_input_must_match() {
    assert_eq!(
        words("Hello, Pepper! How's it going?"),
        ["hello", "pepper", "how's", "it", "going"]
    );
    let t = topic("u:(hello pepper) hi");
    assert!(matches(&t, "Hello, Pepper!"));
    assert!(!matches(&t, "hello"));
    assert!(!matches(&t, "hello pepper please"));
    assert!(!matches(&t, "pepper hello"));
}

#[test]
fn choices_optional_parts_and_phrases() {
    let t = topic(r#"u:({please} [hi hello "good morning"] {robot}) hi"#);
    for yes in [
        "hi",
        "please hello",
        "good morning robot",
        "please good morning robot",
    ] {
        assert!(matches(&t, yes), "{yes}");
    }
    for no in ["good", "morning", "please", "hi hi", "robot hi"] {
        assert!(!matches(&t, no), "{no}");
    }
}

#[test]
fn concepts_static_nested_and_with_rand() {
    let t = topic(
        "concept:(color) [red green \"light blue\"]\nconcept:(thing) [~color car]\n\
         concept:(greet) ^rand[hi hello]\nu:(a ~thing) ok\nu:(~greet) ok",
    );
    assert!(matches(&t, "a red"));
    assert!(matches(&t, "a light blue"));
    assert!(matches(&t, "a car"));
    assert!(!matches(&t, "a blue"));
    assert!(captures(&t, 1, "hello").is_some());
    assert!(captures(&t, 1, "hey").is_none());
}

#[test]
fn wildcards_match_any_words_none_included() {
    let t = topic("u:(I * you) ok");
    assert!(matches(&t, "I you"));
    assert!(matches(&t, "I really really like you"));
    assert!(!matches(&t, "I like you too"));
}

#[test]
fn captures_are_numbered_in_order_and_keep_the_words_said() {
    let t =
        topic("concept:(color) [red green \"light blue\"]\nu:(my _~color car is _* now) ok $1 $2");
    assert_eq!(
        captures(&t, 0, "My light blue car is very fast now"),
        Some(vec!["light blue".to_string(), "very fast".to_string()])
    );
    assert_eq!(
        captures(&t, 0, "my red car is now"),
        Some(vec!["red".to_string(), String::new()])
    );
}

#[test]
fn a_negated_word_must_not_come_next() {
    let t = topic("u:(I !not like it) good");
    assert!(matches(&t, "I like it"));
    assert!(!matches(&t, "I not like it"));
}

/// Concepts, dynamic phrases and variables for the tests.
struct World {
    topic: Topic,
    dynamic: HashMap<String, Vec<String>>,
    vars: HashMap<String, String>,
}

impl Lookup for World {
    fn concept(&self, name: &str) -> Option<&[PatternNode]> {
        self.topic.concept(name)
    }
    fn dynamic(&self, name: &str) -> Option<Vec<String>> {
        self.dynamic.get(name).cloned()
    }
    fn variable(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

#[test]
fn dynamic_concepts_variables_and_conditions() {
    let w = World {
        topic: topic(
            "dynamic: song\nu:(play _~song) ok\nu:(my name is $name) ok\nu:($mood==happy how are you) great\nu:($age>=18 can I drink) yes",
        ),
        dynamic: HashMap::from([(
            "song".into(),
            vec!["Yellow Submarine".into(), "Help".into()],
        )]),
        vars: HashMap::from([
            ("name".into(), "Jean Luc".into()),
            ("mood".into(), "Happy".into()),
            ("age".into(), "21".into()),
        ]),
    };
    let m = |n: usize, input: &str| {
        let rule = w.topic.user_rules().nth(n).unwrap();
        match_pattern(&rule.pattern, input, &w).map(|m| m.captures)
    };
    assert_eq!(
        m(0, "play yellow submarine"),
        Some(vec!["yellow submarine".to_string()])
    );
    assert_eq!(m(0, "play yesterday"), None);
    assert!(m(1, "my name is Jean Luc").is_some());
    assert!(m(1, "my name is Jean").is_none());
    assert!(m(2, "how are you").is_some());
    assert!(m(3, "can I drink").is_some());
    let young = World {
        vars: HashMap::from([("age".into(), "12".into())]),
        ..w
    };
    let rule = young.topic.user_rules().nth(3).unwrap();
    assert!(match_pattern(&rule.pattern, "can I drink", &young).is_none());
}

#[test]
fn events_never_match_speech() {
    let t = topic("e:FrontTactilTouched ouch");
    let rule = t.events().next().unwrap();
    assert!(match_pattern(&rule.pattern, "FrontTactilTouched", &t).is_none());
}

#[test]
fn a_concept_naming_itself_and_a_storm_of_wildcards_end_quickly() {
    let t = topic("concept:(loop) [~loop word]\nu:(~loop) ok");
    assert!(matches(&t, "word"));
    assert!(!matches(&t, "other"));
    // 20 wildcards against 60 words: an answer, with bounded work.
    let stars = vec!["*"; 20].join(" ");
    let t = topic(&format!("u:({stars} end) ok"));
    // States are merged by where they end, so this is quadratic, not exponential.
    let input = vec!["w"; 60].join(" ") + " end";
    assert!(matches(&t, &input));
    let wrong = vec!["w"; 60].join(" ");
    assert!(!matches(&t, &wrong));
}

/// Whether the first rule of `t` matches `input` with words the rule does not have allowed
/// (as the dialog engine matches), and whether it covered everything.
fn partial(t: &Topic, input: &str) -> Option<bool> {
    let rule = t.user_rules().next().unwrap();
    let toks = tokens(input);
    match_heard(&rule.pattern, Heard::Said(input, &toks), t, true).map(|m| m.exact)
}

#[test]
fn more_words_than_the_rule_match_unless_exact() {
    // The 2.8 syntax page, ^exact: "'Hello robot' will match u:(hello) rule."
    let t = topic("u:(hello) hi");
    assert_eq!(partial(&t, "hello"), Some(true));
    assert_eq!(partial(&t, "Hello robot"), Some(false));
    assert_eq!(partial(&t, "goodbye robot"), None);
    // Between the rule's words too: the page's ^addToConcept execution answers "fill in
    // the fridge" with u:(fill the fridge).
    assert_eq!(
        partial(&topic("u:(fill the fridge) ok"), "fill in the fridge"),
        Some(false)
    );
    // Never inside a phrase.
    assert_eq!(
        partial(&topic("u:(\"the fridge\") ok"), "the big fridge"),
        None
    );
    // A forbidden word may not hide among the extra words next to it.
    let t = topic("u:(!don't tell me a new one) great");
    assert_eq!(partial(&t, "tell me a new one"), Some(true));
    assert_eq!(partial(&t, "don't tell me a new one"), None);
    assert_eq!(partial(&t, "please tell me a new one"), Some(false));
}

#[test]
fn languages_without_spaces_match_character_by_character() {
    // The issue's real-Pepper example: u:(何か飲みたい) answers "何か飲みたいな".
    let t = topic("u:(何か飲みたい) はい");
    assert_eq!(partial(&t, "何か飲みたいな"), Some(false));
    assert_eq!(partial(&t, "何か飲みたい"), Some(true));
    assert_eq!(partial(&t, "何も"), None);
    let t = topic("u:(私は _* です) こんにちは");
    let rule = t.user_rules().next().unwrap();
    let said = "私はペッパーです。";
    let toks = tokens(said);
    let m = match_heard(&rule.pattern, Heard::Said(said, &toks), &t, true).unwrap();
    assert_eq!(m.captures, ["ペッパー"]);
}

#[test]
fn a_capture_keeps_the_case_it_was_said_in() {
    // The 2.8 page, Input storing: "my name is David" → "nice to meet you David".
    let t = topic("u:(my name is _*) nice to meet you $1");
    assert_eq!(
        captures(&t, 0, "my name is David"),
        Some(vec!["David".to_string()])
    );
    assert_eq!(
        captures(&t, 0, "My name is Ada Lovelace!"),
        Some(vec!["Ada Lovelace".to_string()])
    );
}
