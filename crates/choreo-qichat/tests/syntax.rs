//! One test per QiChat syntax element: a hand-written topic and the tree it gives (written
//! back as QiChat by the nodes' `Display`, which normalises spacing), and the errors with
//! their exact positions.

use choreo_qichat::{
    Args, Builtin, CompareOp, Condition, Operand, OutputKind, PatternKind, RuleKind, Seq, Span,
    Topic, parse, parse_str,
};

fn topic(src: &str) -> Topic {
    match parse_str("t.top", src) {
        Ok(t) => t,
        Err(errors) => panic!(
            "{}",
            errors.iter().map(|e| format!("{e}\n")).collect::<String>()
        ),
    }
}

fn rules(src: &str) -> Vec<String> {
    topic(src)
        .all_rules()
        .iter()
        .map(|r| r.to_string())
        .collect()
}

fn errors(src: &str) -> Vec<String> {
    match parse_str("x.top", src) {
        Ok(t) => panic!("parsed: {t:#?}"),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

const HEAD: &str = "topic: ~t()\nlanguage: enu\n";

#[test]
fn header_lines() {
    let t = topic(
        "# a comment\ntopic: ~my_topic ()\nlanguage: frf\n\
         concept:(color) [red green \"light blue\"]\n\
         dynamic: songs\ninclude: lexicon_frf.top\npronunciation:(I) [i]\n",
    );
    assert_eq!(t.name, "my_topic");
    assert_eq!(t.span, Span::new(2, 1));
    let lang = t
        .language
        .as_ref()
        .map(|l| (l.code.as_str(), l.span, l.is_known()));
    assert_eq!(lang, Some(("frf", Span::new(3, 11), true)));
    assert_eq!(t.concepts.len(), 1);
    assert_eq!(t.concepts[0].name, "color");
    assert_eq!(
        Seq(&t.concepts[0].body).to_string(),
        "[red green \"light blue\"]"
    );
    assert_eq!(t.concepts[0].span, Span::new(4, 1));
    assert_eq!(t.dynamics[0].name, "songs");
    assert_eq!(t.includes[0].name, "lexicon_frf.top");
    assert_eq!(t.directives[0].keyword, "pronunciation");
    assert_eq!(t.directives[0].text, "(I) [i]");
}

#[test]
fn every_corpus_language_is_kept_and_unknown_ones_too() {
    for code in [
        "enu", "frf", "spe", "ged", "iti", "jpj", "mnc", "dun", "xyz",
    ] {
        let t = topic(&format!("topic: ~t()\nlanguage: {code}\n"));
        let lang = t.language.as_ref().map(|l| (l.code.clone(), l.is_known()));
        assert_eq!(lang, Some((code.to_owned(), code != "xyz")));
    }
}

#[test]
fn concept_over_several_lines_with_words_around_and_functions() {
    let t = topic(&format!(
        "{HEAD}concept:(yes) [\n    e:Dialog/Yes\n    \"{{oh}} [yes yeah] {{please \"me too\"}}\"\n    sure # comment\n]\n\
         concept:(wine) [red white] wine\nconcept:(hi) ^rand[hi hello]\n"
    ));
    let bodies: Vec<String> = t
        .concepts
        .iter()
        .map(|c| Seq(&c.body).to_string())
        .collect();
    assert_eq!(
        bodies,
        [
            "[e:Dialog/Yes \"{oh} [yes yeah] {please \"me too\"}\" sure]",
            "[red white] wine",
            "^rand[hi hello]",
        ]
    );
}

#[test]
fn user_rule_pattern_and_output_with_positions() {
    let t = topic(&format!("{HEAD}u:(hello robot) hi, human!\n"));
    let r = &t.rules[0];
    assert_eq!((r.kind, r.level), (RuleKind::User, 0));
    assert_eq!(r.span, Span::new(3, 1));
    assert_eq!(r.pattern[1].span, Span::new(3, 10));
    assert_eq!(r.output_span, Span::new(3, 17));
    assert_eq!(r.to_string(), "u:(hello robot) hi, human!");
}

#[test]
fn subrules_nest_by_level_number_not_indentation() {
    let t = topic(&format!(
        "{HEAD}u:(a) A\n        u1:(b) B\nu2:(c) C\n  u2:(d) D\n u1:(e) E\nu:(f) F\n"
    ));
    assert_eq!(t.rules.len(), 2);
    let a = &t.rules[0];
    assert_eq!(a.subrules.len(), 2);
    assert_eq!(a.subrules[0].to_string(), "u1:(b) B");
    let b2: Vec<String> = a.subrules[0]
        .subrules
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(b2, ["u2:(c) C", "u2:(d) D"]);
    assert_eq!(a.subrules[1].to_string(), "u1:(e) E");
    assert_eq!(a.subrules[1].level, 1);
}

#[test]
fn subrule_without_parent_is_a_located_error() {
    assert_eq!(
        errors(&format!("{HEAD}u:(a) A\n  u2:(b) B\n")),
        ["x.top:4:3: in subrule u2: `u2:` with no `u1:` rule before it"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u1:(b) B\n")),
        ["x.top:3:1: in subrule u1: `u1:` with no `u:`, `proposal:` or `e:` rule before it"]
    );
}

#[test]
fn proposals_with_bookmarks_and_their_subrules() {
    let t = topic(&format!(
        "{HEAD}proposal: %ask do you like fish?\n    u1:(yes) good\nproposal:%next\n\n    next one\n"
    ));
    let p: Vec<_> = t.proposals().collect();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].tag.as_deref(), Some("ask"));
    assert_eq!(p[0].to_string(), "proposal: %ask do you like fish?");
    assert_eq!(p[0].subrules[0].to_string(), "u1:(yes) good");
    assert_eq!(p[1].tag.as_deref(), Some("next"));
    assert_eq!(p[1].to_string(), "proposal: %next next one");
    assert_eq!(p[1].bookmarks(), ["next"]);
}

#[test]
fn event_rules_with_and_without_parentheses() {
    let t = topic(&format!(
        "{HEAD}e:FrontTactilTouched ouch\ne:(Dialog/NotUnderstood) sorry?\n"
    ));
    let e: Vec<String> = t.events().map(|r| r.to_string()).collect();
    assert_eq!(
        e,
        [
            "e:(FrontTactilTouched) ouch",
            "e:(Dialog/NotUnderstood) sorry?"
        ]
    );
    assert!(
        matches!(&t.rules[0].pattern[0].kind, PatternKind::Event(n) if n == "FrontTactilTouched")
    );
}

#[test]
fn call_subrules_match_what_call_returned() {
    let t = topic(&format!(
        "{HEAD}u:(count) ^call(ALMemory.getData(\"n\"))\n    c1:(_*) there are $1\n"
    ));
    let r = &t.rules[0];
    let f = r.functions();
    assert_eq!(f[0].builtin, Some(Builtin::Call));
    assert_eq!(
        f[0].args,
        Args::List(vec!["ALMemory.getData(\"n\")".into()])
    );
    assert_eq!(r.subrules[0].kind, RuleKind::CallResult);
    assert_eq!(r.subrules[0].to_string(), "c1:(_*) there are $1");
}

#[test]
fn private_rule_modifier() {
    let t = topic(&format!("{HEAD}u:^private(secret) yes\n"));
    assert_eq!(t.rules[0].modifiers[0].builtin, Some(Builtin::Private));
    assert_eq!(t.rules[0].to_string(), "u:^private(secret) yes");
}

#[test]
fn pattern_elements() {
    let r = rules(&format!(
        "{HEAD}u:(i [like love \"am fond of\"] {{red}} ~fruit * _~color _* _[a b] !not $name) ok\n"
    ));
    assert_eq!(
        r,
        ["u:(i [like love \"am fond of\"] {red} ~fruit * _~color _* _[a b] !not $name) ok"]
    );
    let t = topic(&format!("{HEAD}u:(_~color) ok\n"));
    match &t.rules[0].pattern[0].kind {
        PatternKind::Capture(inner) => {
            assert_eq!(inner.kind, PatternKind::Concept("color".into()));
            assert_eq!(inner.span, Span::new(3, 5));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn conditions_and_events_in_patterns() {
    let t = topic(&format!(
        "{HEAD}u:([e:FaceDetected hello] $mood==happy) hi\n"
    ));
    assert_eq!(
        t.rules[0].to_string(),
        "u:([e:FaceDetected hello] $mood==happy) hi"
    );
    assert_eq!(
        t.rules[0].pattern[1].kind,
        PatternKind::Condition(Condition {
            left: Operand::Variable("mood".into()),
            op: CompareOp::Eq,
            right: Operand::Literal("happy".into()),
        })
    );
}

#[test]
fn nested_groups_and_quotes_inside_choices() {
    let r = rules(&format!(
        "{HEAD}u:([\"{{oh}} [yes \"of course\" \"I [am do]\"]\" ok]) fine\n"
    ));
    assert_eq!(
        r,
        ["u:([\"{oh} [yes \"of course\" \"I [am do]\"]\" ok]) fine"]
    );
}

#[test]
fn output_captures_variables_and_assignments() {
    let t = topic(&format!(
        "{HEAD}u:(my name is _*) $name=$1 hello $1, I am $robot/name. $a=on. $q=\"a b\" $e=\"\"\n"
    ));
    let kinds: Vec<&OutputKind> = t.rules[0].output.iter().map(|n| &n.kind).collect();
    assert_eq!(
        kinds[0],
        &OutputKind::Assign {
            variable: "name".into(),
            value: Operand::CaptureRef(1)
        }
    );
    assert_eq!(kinds[2], &OutputKind::CaptureRef(1));
    // Text touching a node is glued to it: said as written, without a space.
    assert_eq!(kinds[3], &OutputKind::Glue);
    assert_eq!(kinds[5], &OutputKind::Variable("robot/name".into()));
    assert_eq!(
        kinds[8],
        &OutputKind::Assign {
            variable: "a".into(),
            value: Operand::Literal("on".into())
        }
    );
    assert_eq!(
        Seq(&t.rules[0].output).to_string(),
        "$name=$1 hello $1, I am $robot/name. $a=on. $q=\"a b\" $e=\"\""
    );
}

#[test]
fn conditional_choices_in_outputs() {
    let t = topic(&format!(
        "{HEAD}u:(who am i) [\"$name==david hi david\" \"$score>10 well done\" \"^exist(name) hi $name\" \"no idea\"]\n"
    ));
    let OutputKind::Choice(alts) = &t.rules[0].output[0].kind else {
        panic!()
    };
    assert_eq!(alts.len(), 4);
    assert!(matches!(&alts[1].nodes[0].kind, OutputKind::Condition(c) if c.op == CompareOp::Gt));
    assert!(
        matches!(&alts[2].nodes[0].kind, OutputKind::Function(f) if f.builtin == Some(Builtin::Exist))
    );
    assert_eq!(alts[3].span, Span::new(3, 85));
}

#[test]
fn rand_and_first() {
    let t = topic(&format!(
        "{HEAD}u:(hi) ^rand[hi hello \"hey there\"] ^first[\"$x==1 one\" two]\n"
    ));
    let f = t.rules[0].functions();
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(f[0].builtin, Some(Builtin::Rand));
    assert!(matches!(&f[0].args, Args::Choice(a) if a.len() == 3 && a[2].quoted));
    assert_eq!(f[1].to_string(), "^first[\"$x==1 one\" two]");
}

#[test]
fn every_documented_function_and_any_other_name() {
    let names = [
        ("^goto(tag)", Builtin::Goto),
        ("^gotoReactivate(tag)", Builtin::GotoReactivate),
        ("^sameProposal", Builtin::SameProposal),
        ("^nextProposal", Builtin::NextProposal),
        ("^previousProposal", Builtin::PreviousProposal),
        ("^gotoRandom(tag)", Builtin::GotoRandom),
        ("^start(animations/Stand/Gestures/Hey_1)", Builtin::Start),
        ("^stop(a/b)", Builtin::Stop),
        ("^run(a/b)", Builtin::Run),
        ("^wait(a/b)", Builtin::Wait),
        ("^clear(name)", Builtin::Clear),
        ("^stayInScope", Builtin::StayInScope),
        ("^endDiscuss(done)", Builtin::EndDiscuss),
        ("^topicTag(other, tag)", Builtin::TopicTag),
        ("^execute(handler, a)", Builtin::Execute),
        ("^startTag(show)", Builtin::StartTag),
    ];
    for (src, builtin) in names {
        let t = topic(&format!("{HEAD}u:(x) {src}\n"));
        let f = t.rules[0].functions();
        assert_eq!(f[0].builtin, Some(builtin), "{src}");
        assert_eq!(f[0].to_string(), src);
    }
    let t = topic(&format!(
        "{HEAD}u:(x) ^somethingNew(a, \"b, c\", f(1, 2)) ^bare ok\n"
    ));
    let f = t.rules[0].functions();
    assert_eq!(f[0].builtin, None);
    assert_eq!(
        f[0].args,
        Args::List(vec!["a".into(), "\"b, c\"".into(), "f(1, 2)".into()])
    );
    assert_eq!((f[1].name.as_str(), &f[1].args), ("bare", &Args::None));
}

#[test]
fn bookmarks_inline_tags_and_concepts_in_outputs() {
    let t = topic(&format!(
        "{HEAD}u:(x) ~greeting \\pau=500\\ %middle then \\rspd=80\\ slowly ^start(a/b)^wait(a/b)\n"
    ));
    assert_eq!(
        Seq(&t.rules[0].output).to_string(),
        "~greeting \\pau=500\\ %middle then \\rspd=80\\ slowly ^start(a/b) ^wait(a/b)"
    );
    assert_eq!(t.rules[0].bookmarks(), ["middle"]);
    assert_eq!(t.rules[0].tag, None);
}

#[test]
fn outputs_continue_on_following_lines_until_the_next_entry() {
    let t = topic(&format!(
        "{HEAD}u:(e:onStart)\n    ^nextProposal\nproposal:\n\n  Now we are here.\n  # a comment\n  $step=1\n  Bye.\nu:(x) y\n"
    ));
    let r: Vec<String> = t.all_rules().iter().map(|r| r.to_string()).collect();
    assert_eq!(
        r,
        [
            "u:(e:onStart) ^nextProposal",
            "proposal: Now we are here. $step=1 Bye.",
            "u:(x) y"
        ]
    );
}

#[test]
fn python_script_blocks_are_kept() {
    let t = topic(&format!(
        "{HEAD}u:(time) it is\n%script\ntry:\n    print now()\nexcept: pass\n%script\nu:(x) y\n"
    ));
    assert_eq!(
        t.rules[0].output[1].kind,
        OutputKind::Script("try:\n    print now()\nexcept: pass\n".into())
    );
    assert_eq!(t.rules.len(), 2);
}

#[test]
fn latin1_is_read_with_a_warning_and_a_bom_is_skipped() {
    let latin1 = b"topic: ~t()\nlanguage: frf\nu:(bonjour) \xe7a va tr\xe8s bien\n";
    let p = parse("l.top", latin1).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        p.topic.rules[0].to_string(),
        "u:(bonjour) \u{e7}a va tr\u{e8}s bien"
    );
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(
        p.warnings[0].to_string(),
        "l.top: warning: not UTF-8 (first bad byte on line 3): read as Latin-1; save it as UTF-8 to silence this"
    );
    let bom = b"\xef\xbb\xbftopic: ~t()\nu:(a) b\n";
    let p = parse("b.top", bom).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((p.topic.name.as_str(), p.warnings.len()), ("t", 0));
    assert_eq!(p.topic.span, Span::new(1, 1));
}

#[test]
fn crlf_and_full_width_spaces() {
    let t = topic("topic: ~t()\r\nlanguage: jpj\r\nu:(やあ\u{3000}こんにちは) どうも\r\n");
    assert_eq!(Seq(&t.rules[0].pattern).to_string(), "やあ こんにちは");
    assert_eq!(t.language.map(|l| l.code), Some("jpj".into()));
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn unclosed_choice_names_where_it_opened() {
    assert_eq!(
        errors(&format!("{HEAD}u:(i [like love) ok\n")),
        ["x.top:3:16: in user rule: expected ']' to close the choice opened at 3:6, found ')'"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(i [like love\nu:(b) c\n")),
        ["x.top:3:16: in user rule: expected ']' to close the choice opened at 3:6"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(hi) [\"a b\" c\n")),
        ["x.top:3:16: in user rule: expected ']' to close the choice opened at 3:8"]
    );
}

#[test]
fn unclosed_pattern_phrase_optional_and_arguments() {
    assert_eq!(
        errors(&format!("{HEAD}u:(hello\nproposal: hi\n")),
        ["x.top:3:9: in user rule: expected ')' to close the pattern opened at 3:3"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(\"a b) c\n")),
        ["x.top:3:8: in user rule: expected '\"' to close the phrase opened at 3:4, found ')'"]
    );
    assert_eq!(
        errors(&format!("{HEAD}concept:(c) [a {{b c]\n")),
        [
            "x.top:3:20: in concept: expected '}' to close the optional part opened at 3:16, found ']'"
        ]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(a) ^goto(tag\n")),
        ["x.top:3:16: in user rule: expected ')' to close the arguments of ^goto opened at 3:12"]
    );
}

#[test]
fn misplaced_things() {
    assert_eq!(
        errors(&format!("{HEAD}u: hello) hi\n")),
        ["x.top:3:4: in user rule: expected '(' to open the rule's pattern, found 'h'"]
    );
    assert_eq!(
        errors(&format!("{HEAD}hello there\n")),
        [
            "x.top:3:1: in topic: expected a rule or a header (`u:`, `proposal:`, `concept:`, ...), found `hello`"
        ]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(a) b ] c\n")),
        ["x.top:3:9: in user rule: ']' closes no choice"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(a _) b\n")),
        ["x.top:3:7: in user rule: expected something to capture after '_', found ')'"]
    );
    assert_eq!(
        errors("language: enu\nu:(a) b\n"),
        ["x.top:1:1: in topic: expected a `topic: ~name()` line, found none"]
    );
    assert_eq!(
        errors("topic: name\n"),
        ["x.top:1:8: in topic header: expected `~name` after `topic:`, found 'n'"]
    );
    assert_eq!(
        errors(&format!("{HEAD}concept: [a b]\n")),
        ["x.top:3:10: in concept: expected '(' before the concept's name, found '['"]
    );
    assert_eq!(
        errors(&format!("{HEAD}u:(a) %script\nprint 1\n")),
        ["x.top:4:8: in user rule: expected a line `%script` to close the script opened at 3:7"]
    );
}

#[test]
fn errors_are_all_reported_after_recovery() {
    let e = errors(&format!(
        "{HEAD}u:(a [b) c\nu:(fine) ok\nu:(d {{e) f\nu:(also fine) ok\n"
    ));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("x.top:3:"));
    assert!(e[1].starts_with("x.top:5:"));
}

#[test]
fn nesting_deeper_than_the_limit_is_an_error_not_a_crash() {
    let deep = "[".repeat(10_000);
    let e = errors(&format!("{HEAD}u:({deep}) x\n"));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].contains("groups nested deeper than 64 levels"),
        "{e:?}"
    );
    let captures = "_".repeat(10_000);
    let e = errors(&format!("{HEAD}u:({captures}a) x\n"));
    assert!(e[0].contains("nested deeper"), "{e:?}");
    let out = "[".repeat(10_000);
    let e = errors(&format!("{HEAD}u:(a) {out}\n"));
    assert!(e[0].contains("nested deeper"), "{e:?}");
    let ok = format!("{}a{}", "[".repeat(60), "]".repeat(60));
    topic(&format!("{HEAD}u:({ok}) x\n"));
}
