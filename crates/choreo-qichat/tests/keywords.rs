//! The keywords of the 2.8 syntax page that its own examples (`tests/reference/`) leave
//! unexercised: each test quotes the rule text it checks, with a topic written for it.

use crate::support;

use choreo_qichat::dialog::{Action, Dialog, Step};
use support::TestHost;

fn topic(name: &str, head: &str, body: &str) -> choreo_qichat::Topic {
    let text = format!("topic: ~{name}{head}()\nlanguage: English\n{body}\n");
    choreo_qichat::parse_str(&format!("{name}.top"), &text).unwrap()
}

/// A dialog with `topics` loaded and activated, the first in focus.
fn dialog(topics: Vec<choreo_qichat::Topic>) -> Dialog {
    let mut d = Dialog::new(1);
    for t in topics {
        let n = d.load(t);
        d.activate(&n);
    }
    d
}

/// What the robot says to each line (`""`: nothing; `-`: no rule at all).
fn talk(d: &mut Dialog, host: &mut TestHost, lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .map(|l| match l.strip_prefix("e:") {
            Some(e) => d.event(e, host),
            None => d.input(l, host),
        })
        .map(|a| a.map_or_else(|| "-".to_string(), |a| a.text))
        .collect()
}

#[test]
fn overload_hides_the_topic_it_redefines() {
    // overload: "Allows you to redefine another topic. The overloaded topic will never be
    // activated."
    let mut d = dialog(vec![
        topic("mysetup", "", "u:(raise your volume) ok, louder"),
        topic(
            "mine",
            "",
            "overload: mysetup\nu:(raise your volume) I don't want to make it",
        ),
    ]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(&mut d, &mut h, &["raise your volume"]),
        ["I don't want to make it"]
    );
}

#[test]
fn description_is_the_focus_description() {
    // description: "Current focus description is in variable $Dialog/FocusDescription."
    let d = dialog(vec![topic("cook", "", "description: cook\nu:(hello) hi")]);
    assert_eq!(d.focus_description(), Some("cook"));
}

#[test]
fn included_files_bring_their_concepts() {
    // include: "Includes a file in the topic" (the page's ~confirmation / ~negation).
    let mut t = topic(
        "ok",
        "",
        "include:my_lexicon_enu.top\nu:(hello) are you ok ?\n   u1:(~confirmation) yupi\n   u1:(~negation) Doh !",
    );
    choreo_qichat::include(&mut t, &mut |name: &str| {
        assert_eq!(name, "my_lexicon_enu.top");
        Ok(b"topic: ~lex()\nlanguage: English\nconcept:(confirmation) [yes yeah]\nconcept:(negation) [no nope]\n".to_vec())
    })
    .unwrap();
    let mut d = dialog(vec![t]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(&mut d, &mut h, &["hello", "nope"]),
        ["are you ok ?", "Doh !"]
    );
}

#[test]
fn topic_tag_reactivate_and_topic_random() {
    // ^topicTagReactivate: "jump to a deactivated Proposal from another topic and reactivate
    // it". ^topicRandom: "jump to an activated Proposal among activated topics. If no
    // proposal are available, function has no effect and event Dialog/NothingToSay is
    // raised." ^noPick: "the Dialog engine cannot decide by itself to give the focus".
    let mut d = dialog(vec![
        topic(
            "a",
            "",
            "u:(again) ^topicTagReactivate(b, tip)\nu:(anything) ^topicRandom\nu:(e:Dialog/NothingToSay) I have nothing to say",
        ),
        topic("b", "", "proposal: %tip drink water"),
        topic("c", " ^noPick", "proposal: never picked"),
    ]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(&mut d, &mut h, &["anything", "anything", "again", "again"]),
        [
            "drink water",
            "I have nothing to say",
            "drink water",
            "drink water"
        ]
    );
}

#[test]
fn repeat_takes_the_listed_words_in_any_order() {
    // ^repeat: "The Human input is recognized if one or several word(s) among the list are
    // said, regardless of the order."
    let mut d = dialog(vec![topic(
        "r",
        "",
        "u:(^repeat[red green blue]) nice colors ^exact",
    )]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(&mut d, &mut h, &["blue", "green red blue", "yellow"]),
        ["nice colors", "nice colors", "-"]
    );
}

#[test]
fn no_stay_keeps_the_focus_where_it_was() {
    // ^noStay: "If a rule matches in the topic, the Robot output is executed, but the Focus
    // stays on the previous topic."
    let mut d = dialog(vec![
        topic("main", "", "u:(hello) hello from main"),
        topic("side", " ^noStay", "u:(time) it is late"),
    ]);
    let mut h = TestHost::default();
    assert_eq!(talk(&mut d, &mut h, &["time"]), ["it is late"]);
    assert_eq!(d.focus(), Some("main"));
}

#[test]
fn reset_on_focus_brings_the_proposals_back() {
    // ^resetOnFocus: "reactivates all proposals of a Topic when the topic gets the Focus and
    // all his proposals has been previously deactivated."
    let mut d = dialog(vec![
        topic("other", "", "u:(elsewhere) ok"),
        topic(
            "quiz",
            " ^resetOnFocus",
            "proposal: first question\nu:(quiz) ^nextProposal",
        ),
    ]);
    let mut h = TestHost::default();
    d.set_focus("quiz");
    assert_eq!(
        talk(&mut d, &mut h, &["quiz", "quiz"]),
        ["first question", ""]
    );
    assert_eq!(
        talk(&mut d, &mut h, &["elsewhere", "quiz"]),
        ["ok", "first question"]
    );
}

#[test]
fn fallback_topics_answer_last() {
    // ^fallback: "Its rules will be taken in consideration after the rules of ... the recover
    // sections of all topics."
    let mut d = dialog(vec![
        topic(
            "fb",
            " ^fallback",
            "u:(hello) from the fallback\nu:(anything) only the fallback",
        ),
        topic(
            "main",
            "",
            "u:(zzz) z\nrecover:\nu:(hello) from a recover section",
        ),
    ]);
    let mut h = TestHost::default();
    d.set_focus("fb");
    assert_eq!(
        talk(&mut d, &mut h, &["hello", "anything"]),
        ["from a recover section", "only the fallback"]
    );
}

#[test]
fn animated_speech_sound_and_behavior_functions_are_actions_in_place() {
    // ^run, ^mode, ^runSound, ^play, ^switchFocus, ^pCall: things done at their place.
    let mut d = dialog(vec![topic(
        "act",
        "",
        "u:(show me) look ^run(animations/Stand/Gestures/Hey_1) \"^mode(disabled) calm\" ^runSound(sounds/bip) ^play(bip) ^pCall(ALMotion.rest()) done ^switchFocus(weather/.)",
    )]);
    let mut h = TestHost::default();
    let a = d.input("show me", &mut h).unwrap();
    assert_eq!(a.text, "look calm done");
    let actions: Vec<String> = a
        .actions()
        .iter()
        .map(|x| match x {
            Action::Animated { function, arg } => format!("{function}({arg})"),
            Action::Play(s) => format!("play {s}"),
            Action::Call {
                service, method, ..
            } => format!("pCall {service}.{method}"),
            Action::SwitchFocus(b) => format!("switch {b}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        actions,
        [
            "run(animations/Stand/Gestures/Hey_1)",
            "mode(disabled)",
            "runSound(sounds/bip)",
            "play bip",
            "pCall ALMotion.rest",
            "switch weather/."
        ]
    );
}

#[test]
fn s_call_and_call_errors() {
    // ^sCall: "Allows to call a Naoqi method and manages the result"; e1: "a subrule matched
    // if the called method throws or if the result is empty".
    let mut d = dialog(vec![topic(
        "call",
        "",
        "u:(where am I) ^sCall(ALLocalization.getRoom())\n  c1:(_*) in the $1\n  e1: I do not know",
    )]);
    let mut h = TestHost::default();
    h.results
        .insert("ALLocalization.getRoom".into(), Some("kitchen".into()));
    assert_eq!(talk(&mut d, &mut h, &["where am I"]), ["in the kitchen"]);
    h.results.insert("ALLocalization.getRoom".into(), None);
    assert_eq!(talk(&mut d, &mut h, &["where am I"]), ["I do not know"]);
    h.results.clear();
    assert_eq!(talk(&mut d, &mut h, &["where am I"]), ["I do not know"]);
}

#[test]
fn qichat_events_same_rule_not_understood_in_a_row_and_failure() {
    // Dialog/SameRule: "Raised when a rule is triggered twice in a row."
    // Dialog/NotUnderstood2/3: "didn't understand 2 (3) or more chains in a row".
    // Dialog/Failure: "Raised when 3 Dialog/Fallback or 3 Dialog/NotUnderstood have been
    // raised consecutively".
    let mut d = dialog(vec![topic(
        "ev",
        "",
        "u:(hello) hello\nu:(e:Dialog/SameRule) you said that already\n\
         u:(e:Dialog/NotUnderstood) pardon?\nu:(e:Dialog/NotUnderstood2) pardon again?",
    )]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(
            &mut d,
            &mut h,
            &["hello", "hello", "hello", "blah", "blah", "blah"]
        ),
        [
            "hello",
            "you said that already",
            "hello",
            "pardon?",
            "pardon again?",
            "pardon again?"
        ]
    );
    let mut d = dialog(vec![topic(
        "fail",
        "",
        "u:(e:Dialog/NotUnderstood) pardon?\nu:(e:Dialog/Failure) let us talk about something else",
    )]);
    assert_eq!(
        talk(&mut d, &mut h, &["blah", "blah", "blah"]),
        ["pardon?", "pardon?", "let us talk about something else"]
    );
}

#[test]
fn keep_focus_answers_another_topic_then_its_fallback_rule() {
    // ^keepFocus: "If an input from another topic matches, then the answer of the other topic
    // is said but the focus stays in keepFocus topic and an internal event e:Dialog/Fallback
    // is raised." (the page's example topic).
    let mut d = dialog(vec![
        topic(
            "topicName",
            " ^keepFocus",
            "Proposal: %tag how are you ?\nu1:(well) great ^releaseFocus\nu1:(bad) great ! ^releaseFocus\n\
             u:(e:Dialog/Fallback) can you answer my question ?  ^gotoReactivate(tag)",
        ),
        topic("weather", "", "u:(is it raining) no, it is sunny"),
    ]);
    let mut h = TestHost::default();
    assert_eq!(
        d.goto_topic("topicName", &mut h).unwrap().text,
        "how are you ?"
    );
    assert_eq!(
        talk(&mut d, &mut h, &["is it raining"]),
        ["no, it is sunny can you answer my question ? how are you ?"]
    );
    assert_eq!(d.focus(), Some("topicName"));
    assert_eq!(talk(&mut d, &mut h, &["well"]), ["great"]);
}

#[test]
fn say_time_says_a_time_its_way() {
    // sayTime: "def:sayTime($hour, $minute) output ... Says a time at specified format."
    let mut d = dialog(vec![topic(
        "date",
        "",
        "def:sayTime($hour, $minute) it is $hour $minute\nu:(lunch time) lunch at 12:30",
    )]);
    let mut h = TestHost::default();
    assert_eq!(
        talk(&mut d, &mut h, &["lunch time"]),
        ["lunch at it is 12 30"]
    );
}

#[test]
fn break_and_variable_writes_keep_their_place() {
    // ^break: "Forces dialog engine to re-evaluate the rest of the sentence" (here the whole
    // output is worked out at once: it changes nothing said); a write is a step at its place.
    let mut d = dialog(vec![topic("b", "", "u:(count) one ^break two $n=2 three")]);
    let mut h = TestHost::default();
    let a = d.input("count", &mut h).unwrap();
    assert_eq!(
        a.steps,
        [
            Step::Say("one two".into()),
            Step::Set {
                key: "n".into(),
                value: Some("2".into())
            },
            Step::Say("three".into())
        ]
    );
}

#[test]
fn less_priority_loses_a_conflict_even_in_focus() {
    // ^lessPriority: "In case of conflict match with another rule, the rule with
    // ^lessPriority won't be chosen."
    let mut d = dialog(vec![
        topic(
            "music",
            "",
            "u:(help ^lessPriority) I can help you to choose music by voice.",
        ),
        topic("general", "", "u:(help) what can I do for you?"),
    ]);
    let mut h = TestHost::default();
    assert_eq!(d.focus(), Some("music"));
    assert_eq!(talk(&mut d, &mut h, &["help"]), ["what can I do for you?"]);
    d.deactivate("general");
    assert_eq!(
        talk(&mut d, &mut h, &["help"]),
        ["I can help you to choose music by voice."]
    );
}
