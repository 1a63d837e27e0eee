//! The dialog engine's core: conversations against hand-written topics, each with the
//! exchange expected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use choreo_qichat::dialog::{Action, Dialog};

fn topic(name: &str, body: &str) -> choreo_qichat::Topic {
    let text = format!("topic: ~{name}()\nlanguage: enu\n{body}\n");
    choreo_qichat::parse_str(&format!("{name}.top"), &text).unwrap()
}

/// What the robot answers to each line (`None`: no rule matched).
fn exchange(d: &mut Dialog, lines: &[&str]) -> Vec<Option<String>> {
    lines.iter().map(|l| d.input(l).map(|a| a.text)).collect()
}

fn said(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn a_rule_answers_with_its_captures_and_variables() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "intro",
        "concept:(color) [red green blue]\n\
         u:(my name is _*) nice to meet you $1 $name=$1\n\
         u:(what is my name) your name is $name\n\
         u:(I like _~color) $1 is nice",
    ));
    assert!(d.activate("intro"));
    assert_eq!(
        exchange(
            &mut d,
            &[
                "My name is Ada",
                "what is my name",
                "I like green",
                "goodbye"
            ]
        ),
        [
            said("nice to meet you ada"),
            said("your name is ada"),
            said("green is nice"),
            None
        ]
    );
    assert_eq!(d.variable("name"), Some("ada"));
}

#[test]
fn subrules_answer_only_right_after_their_rule() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "drink",
        "u:(I am thirsty) water or juice?\n  u1:(water) here is water\n  u1:(juice) here is juice\nu:(water) water is good",
    ));
    d.activate("drink");
    assert_eq!(
        exchange(&mut d, &["I am thirsty", "juice", "water"]),
        [
            said("water or juice?"),
            said("here is juice"),
            said("water is good")
        ]
    );
}

#[test]
fn the_focus_topic_answers_before_the_others() {
    let mut d = Dialog::new(1);
    d.load(topic("a", "u:(hello) hello from a\nu:(only a) a"));
    d.load(topic("b", "u:(hello) hello from b\nu:(only b) b"));
    d.activate("a");
    d.activate("b");
    assert_eq!(d.focus(), Some("a"));
    assert_eq!(
        exchange(&mut d, &["hello", "only b", "hello"]),
        [said("hello from a"), said("b"), said("hello from b")]
    );
    assert_eq!(d.focus(), Some("b"));
    d.deactivate("b");
    assert_eq!(exchange(&mut d, &["only b"]), [None]);
}

#[test]
fn output_choices_go_in_order_and_rand_follows_the_seed() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "c",
        "u:(hi) [hello hey \"good day\"]\nu:(dice) ^rand[one two three four five six]",
    ));
    d.activate("c");
    assert_eq!(
        exchange(&mut d, &["hi", "hi", "hi", "hi"]),
        [said("hello"), said("hey"), said("good day"), said("hello")]
    );
    let rolls = |seed: u64| {
        let mut d = Dialog::new(seed);
        d.load(topic("c", "u:(dice) ^rand[one two three four five six]"));
        d.activate("c");
        exchange(&mut d, &["dice"; 8])
    };
    assert_eq!(rolls(7), rolls(7));
    assert_ne!(rolls(7), rolls(8));
}

#[test]
fn conditions_and_first_pick_by_variables() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "mood",
        "u:(how are you) ^first[\"$mood==happy great\" \"$mood==sad not so well\" fine]\n\
         u:(be happy) ok $mood=happy",
    ));
    d.activate("mood");
    assert_eq!(
        exchange(&mut d, &["how are you", "be happy", "how are you"]),
        [said("fine"), said("ok"), said("great")]
    );
}

#[test]
fn proposals_goto_and_next_proposal() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "quiz",
        "proposal: %q1 what is two plus two?\n  u1:(four) right ^nextProposal\n  u1:(*) no, try again ^goto(q1)\nproposal: %q2 what color is the sky?\n  u1:(blue) right",
    ));
    d.activate("quiz");
    assert_eq!(d.propose().unwrap().text, "what is two plus two?");
    assert_eq!(
        exchange(&mut d, &["five", "four", "blue"]),
        [
            said("no, try again what is two plus two?"),
            said("right what color is the sky?"),
            said("right")
        ]
    );
}

#[test]
fn events_and_behaviors_and_what_is_not_supported() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "robot",
        "e:FrontTactilTouched that tickles\nu:(dance) let's go ^start(dances/macarena) ^endDiscuss(done)\nu:(call) ^call(ALMemory.getData(\"x\"))",
    ));
    d.activate("robot");
    assert_eq!(d.event("FrontTactilTouched").unwrap().text, "that tickles");
    assert!(d.event("Other").is_none());
    let a = d.input("dance").unwrap();
    assert_eq!(a.text, "let's go");
    assert_eq!(
        a.actions,
        [
            Action::Start("dances/macarena".into()),
            Action::EndDiscuss("done".into())
        ]
    );
    assert_eq!(
        d.input("call").unwrap().actions,
        [Action::Unsupported("call".into())]
    );
}

#[test]
fn punctuation_after_a_concept_or_capture_joins_its_word() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "p",
        "concept:(hi) [hello hi]\nu:(hey) ~hi, how are you?\nu:(I am _*) $1!",
    ));
    d.activate("p");
    assert_eq!(
        exchange(&mut d, &["hey", "I am fine"]),
        [said("hello, how are you?"), said("fine!")]
    );
}

#[test]
fn an_output_concept_says_its_items_in_order() {
    // The example of the QiChat syntax page.
    let mut d = Dialog::new(1);
    d.load(topic(
        "drinks",
        "concept:(wine) [red white] wine\nconcept:(alcohol) [beer ~wine]\n\
         u:(I want to drink something) do you want ~alcohol?\nu:(do you have _~alcohol) yes, I have $1",
    ));
    d.activate("drinks");
    assert_eq!(
        exchange(
            &mut d,
            &[
                "I want to drink something",
                "I want to drink something",
                "do you have white wine?",
                "I want to drink something",
                "I want to drink something",
            ]
        ),
        [
            said("do you want beer?"),
            said("do you want red wine?"),
            said("yes, I have white wine"),
            said("do you want white wine?"),
            said("do you want beer?"),
        ]
    );
}

#[test]
fn a_goto_loop_ends() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "loop",
        "proposal: %a one ^goto(b)\nproposal: %b two ^goto(a)",
    ));
    d.activate("loop");
    let a = d.propose().unwrap();
    // Bounded: 16 jumps, then it stops.
    assert_eq!(a.text.split(' ').count(), 17);
}
