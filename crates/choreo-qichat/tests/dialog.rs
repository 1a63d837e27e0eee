//! The dialog engine's core: conversations against hand-written topics, each with the
//! exchange expected.

use std::collections::HashMap;

use choreo_qichat::dialog::{Action, Dialog, Step};

fn topic(name: &str, body: &str) -> choreo_qichat::Topic {
    let text = format!("topic: ~{name}()\nlanguage: enu\n{body}\n");
    choreo_qichat::parse_str(&format!("{name}.top"), &text).unwrap()
}

/// What the robot answers to each line (`None`: no rule matched), variables in `memory`.
fn exchange_in(
    d: &mut Dialog,
    memory: &mut HashMap<String, String>,
    lines: &[&str],
) -> Vec<Option<String>> {
    lines
        .iter()
        .map(|l| d.input(l, memory).map(|a| a.text))
        .collect()
}

/// [`exchange_in`] with a fresh memory.
fn exchange(d: &mut Dialog, lines: &[&str]) -> Vec<Option<String>> {
    exchange_in(d, &mut HashMap::new(), lines)
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
    let mut memory = HashMap::new();
    assert_eq!(
        exchange_in(
            &mut d,
            &mut memory,
            &[
                "My name is Ada",
                "what is my name",
                "I like green",
                "goodbye"
            ]
        ),
        [
            said("nice to meet you Ada"),
            said("your name is Ada"),
            said("green is nice"),
            None
        ]
    );
    // A capture keeps the case it was said in: the 2.8 page answers "my name is David"
    // with "nice to meet you David".
    assert_eq!(memory.get("name").map(String::as_str), Some("Ada"));
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
fn exist_and_not_exist_choose_like_conditions() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "who",
        "u:(who am I) [\"^exist(name) you are $name\" \"I do not know\"]\n\
         u:(am I new) ^notExist(name) yes you are new\n\
         u:(call me _*) ok $name=$1",
    ));
    d.activate("who");
    assert_eq!(
        exchange(
            &mut d,
            &[
                "who am I",
                "am I new",
                "call me Ada",
                "who am I",
                "am I new"
            ]
        ),
        [
            said("I do not know"),
            said("yes you are new"),
            said("ok"),
            said("you are Ada"),
            said("")
        ]
    );
}

#[test]
fn proposals_goto_and_next_proposal() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "quiz",
        "proposal: %q1 what is two plus two?\n  u1:(four) right ^nextProposal\n  u1:(*) no, try again ^gotoReactivate(q1)\nproposal: %q2 what color is the sky?\n  u1:(blue) right",
    ));
    d.activate("quiz");
    assert_eq!(
        d.propose(&mut HashMap::new()).unwrap().text,
        "what is two plus two?"
    );
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
    assert_eq!(
        d.event("FrontTactilTouched", &mut HashMap::new())
            .unwrap()
            .text,
        "that tickles"
    );
    assert!(d.event("Other", &mut HashMap::new()).is_none());
    let a = d.input("dance", &mut HashMap::new()).unwrap();
    assert_eq!(a.text, "let's go");
    assert_eq!(
        a.steps,
        [
            Step::Say("let's go".into()),
            Step::Do(Action::Animated {
                function: "start".into(),
                arg: "dances/macarena".into()
            }),
            Step::Do(Action::EndDiscuss("done".into()))
        ]
    );
    // No robot to call: the call fails, said where it happens.
    assert_eq!(
        d.input("call", &mut HashMap::new()).unwrap().actions(),
        [&Action::Notice(
            "^call: no robot to call ALMemory.getData".into()
        )]
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
        "proposal: %a one ^gotoReactivate(b)\nproposal: %b two ^gotoReactivate(a)",
    ));
    d.activate("loop");
    let a = d.propose(&mut HashMap::new()).unwrap();
    // Bounded: 16 rules said (the proposal and 15 jumps), then it stops.
    assert_eq!(a.text.split(' ').count(), 16);
}

#[test]
fn a_used_proposal_is_gone_to_only_when_reactivated() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "used",
        "proposal: %p pick a number\n\
         u:(again) ^goto(p)\n\
         u:(really again) ^gotoReactivate(p)\n\
         u:(next) ^nextProposal\n\
         proposal: %q second question",
    ));
    d.activate("used");
    let mut memory = HashMap::new();
    assert_eq!(d.propose(&mut memory).unwrap().text, "pick a number");
    assert_eq!(
        exchange_in(
            &mut d,
            &mut memory,
            &["again", "really again", "next", "next"]
        ),
        [
            said(""),
            said("pick a number"),
            said("second question"),
            said("")
        ]
    );
    // Every proposal is used: the robot has nothing left to propose.
    assert!(d.propose(&mut memory).is_none());
}

#[test]
fn same_previous_and_random_proposals() {
    let mut d = Dialog::new(3);
    d.load(topic(
        "jokes",
        "u:(e:onStart) ^gotoRandom(joke)\n\
         u:(repeat) ^sameProposal\n\
         u:(before) ^previousProposal\n\
         u:(another) ^gotoRandom(joke)\n\
         proposal: %joke one\n\
         proposal: %joke two\n\
         proposal: %joke three",
    ));
    d.activate("jokes");
    let mut memory = HashMap::new();
    let mut told = vec![d.event("onStart", &mut memory).unwrap().text];
    let again = d.input("repeat", &mut memory).unwrap().text;
    assert_eq!(again, told[0]);
    told.push(d.input("another", &mut memory).unwrap().text);
    told.push(d.input("another", &mut memory).unwrap().text);
    // Three different jokes, each told once, then none is left.
    let mut sorted = told.clone();
    sorted.sort();
    assert_eq!(sorted, ["one", "three", "two"]);
    assert_eq!(d.input("another", &mut memory).unwrap().text, "");
    assert_eq!(d.input("before", &mut memory).unwrap().text, told[1]);
}

#[test]
fn stay_in_scope_keeps_the_subrules_and_clear_forgets_a_variable() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "colors",
        "u:(ask me) what is your favorite color? $asked=1\n\
         \x20 u1:(_[red blue]) $1, nice. $color=$1\n\
         \x20 u1:(e:Dialog/NotUnderstood) say a color please ^stayInScope\n\
         \x20 u1:(*) I did not get it ^stayInScope\n\
         u:(forget it) ok ^clear(color)\n\
         u:(my color) $color==blue you like blue",
    ));
    d.activate("colors");
    let mut memory = HashMap::new();
    assert_eq!(
        exchange_in(&mut d, &mut memory, &["ask me", "green please", "blue"]),
        [
            said("what is your favorite color?"),
            said("I did not get it"),
            said("blue, nice.")
        ]
    );
    assert_eq!(memory.get("color").map(String::as_str), Some("blue"));
    assert_eq!(
        exchange_in(&mut d, &mut memory, &["my color"]),
        [said("you like blue")]
    );
    // The event rule of a subrule answers only in its scope.
    assert!(d.event("Dialog/NotUnderstood", &mut memory).is_none());
    d.input("ask me", &mut memory);
    assert_eq!(
        d.event("Dialog/NotUnderstood", &mut memory).unwrap().text,
        "say a color please"
    );
    // Still in scope after ^stayInScope; an answer without it leaves.
    assert_eq!(
        exchange_in(&mut d, &mut memory, &["red"]),
        [said("red, nice.")]
    );
    assert_eq!(
        d.input("forget it", &mut memory).unwrap().steps,
        [
            Step::Say("ok".into()),
            Step::Set {
                key: "color".into(),
                value: None
            }
        ]
    );
    assert_eq!(memory.get("color"), None);
    assert_eq!(exchange_in(&mut d, &mut memory, &["my color"]), [said("")]);
}

#[test]
fn private_rules_answer_only_in_focus() {
    let mut d = Dialog::new(1);
    d.load(topic("a", "u:(hello) hello from a"));
    d.load(topic(
        "b",
        "u:^private(secret) b's secret\nu:(b please) b here",
    ));
    d.activate("a");
    d.activate("b");
    assert_eq!(
        exchange(&mut d, &["secret", "b please", "secret"]),
        [None, said("b here"), said("b's secret")]
    );
}

#[test]
fn a_bound_topic_reads_and_writes_its_own_keys_in_order() {
    // A Dialog box's topic: its inputs and outputs are its own memory keys.
    let body = "u:(e:onStart) welcome $answer=yes $onStopped=1 ^start(anim/wave) bye";
    let mut d = Dialog::new(1);
    d.load(topic("box1", body));
    d.load(topic("box2", &body.replace("welcome", "hello")));
    for (topic, prefix) in [("box1", "B1/"), ("box2", "B2/")] {
        for name in ["onStart", "onStopped"] {
            assert!(d.set_variable_path(topic, name, &format!("{prefix}{name}")));
        }
    }
    assert!(!d.set_variable_path("box3", "onStart", "B3/onStart"));
    d.activate("box1");
    d.activate("box2");
    assert_eq!(d.events(), ["B1/onStart", "B2/onStart"]);
    let mut memory = HashMap::new();
    assert!(d.event("onStart", &mut memory).is_none());
    let a = d.event("B2/onStart", &mut memory).unwrap();
    assert_eq!(a.topic, "box2");
    assert_eq!(
        a.steps,
        [
            Step::Say("hello".into()),
            Step::Set {
                key: "answer".into(),
                value: Some("yes".into())
            },
            Step::Set {
                key: "B2/onStopped".into(),
                value: Some("1".into())
            },
            Step::Do(Action::Animated {
                function: "start".into(),
                arg: "anim/wave".into()
            }),
            Step::Say("bye".into()),
        ]
    );
    assert_eq!(a.text, "hello bye");
    assert_eq!(memory.get("B2/onStopped").map(String::as_str), Some("1"));
}

#[test]
fn a_topic_s_own_concept_comes_before_another_topic_s_of_the_same_name() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "a",
        "concept:(first) [hello]\nu:(e:go) ~first from a",
    ));
    d.load(topic(
        "b",
        "concept:(first) [hi]\nconcept:(only_a) [x]\nu:(e:go2) ~first from b",
    ));
    d.activate("a");
    d.activate("b");
    let mut memory = HashMap::new();
    assert_eq!(d.event("go", &mut memory).unwrap().text, "hello from a");
    assert_eq!(d.event("go2", &mut memory).unwrap().text, "hi from b");
}

/// `$var=value` inside a concept's item, as the reference's lexicons write them
/// (`lexicon_english.html`: `concept:(birth_month) ["january $month=1" "february $month=2"
/// ...]`, French `"de l' $article="de l'" ..."`): heard, the item sets the variable and
/// matches only its words; said, the item's words are said and the variable set.
#[test]
fn an_assignment_in_a_concept_sets_its_variable_and_is_not_a_word() {
    let mut d = Dialog::new(1);
    d.load(topic(
        "birth",
        "concept:(birth_month) [\"january $month=1\" \"february $month=2\"]\n\
         concept:(article) [\"de l' $article=\"de l'\"\" \"du $article=du\"]\n\
         concept:(greet) [\"hello there $greeted=yes\"]\n\
         u:(I was born in ~birth_month) you were born in month $month\n\
         u:(I want ~article eau) article $article\n\
         u:(start) ~greet\n\
         u:(did you greet) $greeted",
    ));
    assert!(d.activate("birth"));
    let mut memory = HashMap::new();
    assert_eq!(
        exchange_in(
            &mut d,
            &mut memory,
            &[
                "I was born in february",
                "I want de l' eau",
                "start",
                "did you greet"
            ]
        ),
        [
            said("you were born in month 2"),
            said("article de l'"),
            said("hello there"),
            said("yes"),
        ]
    );
    assert_eq!(memory.get("month").map(String::as_str), Some("2"));
}
