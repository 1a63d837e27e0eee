//! The syntax tree of a topic. Every node keeps the [`Span`] where it starts, so that the
//! dialog engine can say "rule at x.top:12".

use crate::error::Span;

/// A parsed `.top` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Topic {
    /// The name after `topic: ~` (without the `~`).
    pub name: String,
    /// Where the `topic:` line is.
    pub span: Span,
    /// The `language:` line (`enu` or, since NAOqi 2.7, `English`), if the topic has one.
    pub language: Option<Language>,
    /// The properties written after the name (`topic: ~t ^noPick ^fallback ()`).
    pub properties: Vec<TopicProperty>,
    /// `description:`: what `Dialog/FocusDescription` says while the topic has the focus.
    pub description: Option<String>,
    /// `overload: name`: the topic this one replaces (never activated while this one is
    /// loaded).
    pub overload: Option<Named>,
    /// `concept:` definitions, in file order.
    pub concepts: Vec<Concept>,
    /// `dynamic:` declarations, in file order.
    pub dynamics: Vec<Named>,
    /// `include:` files, in file order (not read: including is the engine's business).
    pub includes: Vec<Named>,
    /// `def:name($a, $b) output`: functions the outputs call as `^name(x, y)`.
    pub defs: Vec<Def>,
    /// Other header lines (`pronunciation:`), kept as text: nothing is heard by sound.
    pub directives: Vec<Directive>,
    /// Top-level rules (`u:`, `proposal:`, `e:`, `l:`, `s:`) in file order, each with its
    /// subrules; those after a `recover:` line have [`Rule::recover`] set.
    pub rules: Vec<Rule>,
}

impl Topic {
    /// The top-level user rules (`u:`), in file order.
    pub fn user_rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(|r| r.kind == RuleKind::User)
    }

    /// The proposals, in file order (the order `^nextProposal` follows).
    pub fn proposals(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(|r| r.kind == RuleKind::Proposal)
    }

    /// Whether the topic has property `p`.
    pub fn has(&self, p: TopicProperty) -> bool {
        self.properties.contains(&p)
    }

    /// The top-level event rules (`e:`), in file order.
    pub fn events(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(|r| r.kind == RuleKind::Event)
    }

    /// Every rule, subrules included, depth first in file order.
    pub fn all_rules(&self) -> Vec<&Rule> {
        let mut out = Vec::new();
        let mut stack: Vec<&Rule> = self.rules.iter().rev().collect();
        while let Some(r) = stack.pop() {
            out.push(r);
            stack.extend(r.subrules.iter().rev());
        }
        out
    }
}

/// A `language:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    /// The language as written: a code (`enu`, NAOqi 2.1's way, deprecated since 2.7) or a
    /// NAOqi name (`English`, 2.8's way).
    pub code: String,
    /// Where it is.
    pub span: Span,
}

impl Language {
    /// The codes NAOqi 2.x documents (`enu`, `frf`, `ged`, ...). Others are kept as written.
    pub const KNOWN: &[&str] = &[
        "arw", "cnh", "czc", "dad", "dun", "enu", "eng", "fif", "frf", "ged", "grg", "iti", "jpj",
        "kok", "mnc", "mnt", "nor", "plp", "ptb", "ptp", "rur", "spe", "sws", "trt",
    ];

    /// The QiChat code, whichever way the line spells it (`English` is `enu`); an unknown
    /// language as written.
    pub fn qichat_code(&self) -> &str {
        match choreo_robot::languages::by_name(&self.code) {
            Some(l) => l.code,
            None => &self.code,
        }
    }

    /// Whether the language is one NAOqi 2.x documents.
    pub fn is_known(&self) -> bool {
        Self::KNOWN.contains(&self.qichat_code())
    }
}

/// A property written after a topic's name (`topic: ~t ^noPick ()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopicProperty {
    /// `^noPick`: the engine never gives this topic the focus by itself.
    NoPick,
    /// `^noStay`: its rules answer, the focus stays where it was.
    NoStay,
    /// `^keepFocus`: another topic's rule answers, the focus stays here and
    /// `Dialog/Fallback` is raised.
    KeepFocus,
    /// `^fallback`: its rules come after every other topic's, recover sections included.
    Fallback,
    /// `^resetOnFocus`: its proposals are all available again when it gets the focus with
    /// none left.
    ResetOnFocus,
    /// `^preProcess`: its answer comes before another topic's to the same input.
    PreProcess,
    /// `^postProcess`: its answer comes after another topic's to the same input.
    PostProcess,
    /// `^preProcessReplace`: its answer replaces another topic's to the same input.
    PreProcessReplace,
    /// `^notInEmbeddedASR`: its rules are not given to the embedded speech recognition.
    NotInEmbeddedAsr,
}

impl TopicProperty {
    /// The property a name spells (as documented, without `^`).
    pub fn from_name(name: &str) -> Option<Self> {
        use TopicProperty::*;
        Some(match name {
            "noPick" => NoPick,
            "noStay" => NoStay,
            "keepFocus" => KeepFocus,
            "fallback" => Fallback,
            "resetOnFocus" => ResetOnFocus,
            "preProcess" => PreProcess,
            "postProcess" => PostProcess,
            "preProcessReplace" => PreProcessReplace,
            "notInEmbeddedASR" => NotInEmbeddedAsr,
            _ => return None,
        })
    }

    /// The name as written in a topic.
    pub fn name(self) -> &'static str {
        use TopicProperty::*;
        match self {
            NoPick => "noPick",
            NoStay => "noStay",
            KeepFocus => "keepFocus",
            Fallback => "fallback",
            ResetOnFocus => "resetOnFocus",
            PreProcess => "preProcess",
            PostProcess => "postProcess",
            PreProcessReplace => "preProcessReplace",
            NotInEmbeddedAsr => "notInEmbeddedASR",
        }
    }
}

/// `def:name($a, $b) output`: a function of the topic's own.
#[derive(Debug, Clone, PartialEq)]
pub struct Def {
    /// Its name (called as `^name(...)`).
    pub name: String,
    /// Its parameters' names, without `$`: local to the body.
    pub params: Vec<String>,
    /// What a call says and does.
    pub body: Vec<OutputNode>,
    /// Where the `def:` line starts.
    pub span: Span,
}

/// A name with its position (`dynamic:` and `include:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The name (or file name) as written.
    pub name: String,
    /// Where the line starts.
    pub span: Span,
}

/// A header line this parser keeps without reading (`pronunciation:(I) [i]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The keyword before `:`.
    pub keyword: String,
    /// The rest of the line, trimmed.
    pub text: String,
    /// Where the line starts.
    pub span: Span,
}

/// `concept:(name) body`: a static concept. Its body is a pattern sequence (usually one
/// choice, sometimes with words around it, or `^rand[...]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Concept {
    /// The name in parentheses.
    pub name: String,
    /// The body.
    pub body: Vec<PatternNode>,
    /// Where the line starts.
    pub span: Span,
}

/// What kind of rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `u:` (level 0) or a subrule `uN:` (level N).
    User,
    /// `proposal:`: the robot speaks first.
    Proposal,
    /// `e:Event output`: an ALMemory event answered.
    Event,
    /// `cN:` (level N): matched against what the `^call(...)` of its parent returned.
    CallResult,
    /// `eN:` (level N): answers when the `^call(...)` of its parent failed or returned
    /// nothing.
    CallError,
    /// `l:`: a learning rule, matched beside the rule that answers.
    Learning,
    /// `s:(output) modifications`: a skin, applied to the robot's outputs it matches.
    Skin,
}

/// A rule, with its subrules.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// User, proposal, event or call result.
    pub kind: RuleKind,
    /// 0 for `u:`, `proposal:` and `e:`; N for `uN:` and `cN:`.
    pub level: u32,
    /// Functions written between `u:` and the pattern (`u:^private(...)`).
    pub modifiers: Vec<Function<PatternNode>>,
    /// What the human says. Empty for a proposal; one [`PatternKind::Event`] for `e:`.
    pub pattern: Vec<PatternNode>,
    /// What the robot does.
    pub output: Vec<OutputNode>,
    /// The bookmark the output starts with (`proposal: %name ...`), if any.
    pub tag: Option<String>,
    /// Where the keyword (`u:`, `proposal:`, ...) is.
    pub span: Span,
    /// Where the output starts (after the pattern).
    pub output_span: Span,
    /// `u(N+1):` and `c(N+1):` rules that follow it.
    pub subrules: Vec<Rule>,
    /// After a `recover:` line: answers only when no main-section rule of any topic does.
    pub recover: bool,
}

impl Rule {
    /// Every bookmark (`%name`) of the output, at any depth, in order.
    pub fn bookmarks(&self) -> Vec<&str> {
        let mut out = Vec::new();
        visit_output(&self.output, &mut |n| {
            if let OutputKind::Bookmark(b) = &n.kind {
                out.push(b.as_str());
            }
        });
        out
    }

    /// Whether a modifier or the pattern says `^name` (`^private`, `^exact`,
    /// `^lessPriority`).
    pub fn says(&self, builtin: Builtin) -> bool {
        self.modifiers.iter().any(|m| m.builtin == Some(builtin))
            || self
                .pattern
                .iter()
                .any(|n| matches!(&n.kind, PatternKind::Function(f) if f.builtin == Some(builtin)))
    }

    /// The tags of the pattern (`u:(hello %greeting)`): all must be active for the rule to
    /// match.
    pub fn input_tags(&self) -> Vec<&str> {
        self.pattern
            .iter()
            .filter_map(|n| match &n.kind {
                PatternKind::Tag(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Every function called by the output, at any depth, in order.
    pub fn functions(&self) -> Vec<&Function<OutputNode>> {
        let mut out = Vec::new();
        visit_output(&self.output, &mut |n| {
            if let OutputKind::Function(f) = &n.kind {
                out.push(f);
            }
        });
        out
    }
}

/// Calls `f` on every output node, choices and function arguments included, in order
/// (explicit stack: no recursion).
pub fn visit_output<'a>(nodes: &'a [OutputNode], f: &mut dyn FnMut(&'a OutputNode)) {
    let mut stack: Vec<&'a OutputNode> = nodes.iter().rev().collect();
    while let Some(n) = stack.pop() {
        f(n);
        let children: &'a [Alternative<OutputNode>] = match &n.kind {
            OutputKind::Choice(alts) | OutputKind::Optional(alts) => alts,
            OutputKind::Function(Function {
                args: Args::Choice(alts),
                ..
            }) => alts,
            _ => &[],
        };
        for a in children.iter().rev() {
            stack.extend(a.nodes.iter().rev());
        }
    }
}

/// A node of a pattern (what the human says).
#[derive(Debug, Clone, PartialEq)]
pub struct PatternNode {
    /// What it is.
    pub kind: PatternKind,
    /// Where it starts.
    pub span: Span,
}

/// The kinds of pattern nodes.
#[derive(Debug, Clone, PartialEq)]
pub enum PatternKind {
    /// A word, as written (punctuation included; matching normalises).
    Word(String),
    /// `"several words"`: a sequence.
    Phrase(Vec<PatternNode>),
    /// `[a b "c d"]`: one of the items.
    Choice(Vec<PatternNode>),
    /// `{a}` or `{a b}`: the items, optionally (NAOqi reads several items as a choice).
    Optional(Vec<PatternNode>),
    /// `~name`: a concept (static or dynamic).
    Concept(String),
    /// `*`: any words.
    Wildcard,
    /// `_x`: what `x` matched is stored as `$1`, `$2`, ... in order.
    Capture(Box<PatternNode>),
    /// `!word`: the rule does not match if the word is said.
    Not(Box<PatternNode>),
    /// `$var`: the variable's value, said.
    Variable(String),
    /// `$var==value` (and the other comparisons): a condition.
    Condition(Condition),
    /// `$var=value`: the variable set when what it sits in is heard or said, matching no
    /// word (the reference's lexicons: `concept:(birth_month) ["january $month=1" ...]`).
    Assign {
        /// The variable's name (ALMemory key).
        variable: String,
        /// Its new value.
        value: Operand,
    },
    /// `e:Name`: the ALMemory event `Name` raised.
    Event(String),
    /// `%tag`: the rule's tag; it matches only while the tag is active.
    Tag(String),
    /// `^name(...)` or `^name[...]` (`^rand` in concepts, `^private`, `^repeat`, ...).
    Function(Function<PatternNode>),
}

/// A node of an output (what the robot does).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputNode {
    /// What it is.
    pub kind: OutputKind,
    /// Where it starts.
    pub span: Span,
}

/// The kinds of output nodes.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputKind {
    /// Words to say, whitespace runs made one space. Animated-speech tags (`\pau=500\`) are
    /// kept in the text, as written.
    Text(String),
    /// `$1`, `$2`: what the n-th capture of the pattern matched.
    CaptureRef(u32),
    /// `$var`: the variable's value, said.
    Variable(String),
    /// `$var=value`: the variable set.
    Assign {
        /// The variable's name (ALMemory key).
        variable: String,
        /// Its new value.
        value: Operand,
    },
    /// `$var==value` and the other comparisons: the alternative it starts is taken only if
    /// it holds.
    Condition(Condition),
    /// `[a "b c" "$x==1 d"]`: the first alternative that can be said (conditions hold, not
    /// already said).
    Choice(Vec<Alternative<OutputNode>>),
    /// `{a b}`: one of the items or nothing, picked at random (the 2.8 page: `{human buddy}`
    /// is "a choice [human buddy ^empty]").
    Optional(Vec<Alternative<OutputNode>>),
    /// `~name`: an item of the concept, said.
    Concept(String),
    /// `%name`: a bookmark (a target for `^goto`).
    Bookmark(String),
    /// `^name(...)`, `^name[...]` or `^name`: a function. Known names have a [`Builtin`].
    Function(Function<OutputNode>),
    /// `%script` ... `%script`: Python source run by NAOqi's dialog, kept as written.
    Script(String),
    /// No space between the nodes around it (`$name's`, `now-$m-01`): said as one word.
    Glue,
}

/// One alternative of a choice: a bare item or a quoted phrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative<N> {
    /// Its nodes (one for a bare item).
    pub nodes: Vec<N>,
    /// Whether it was quoted (`"a b"`).
    pub quoted: bool,
    /// Where it starts.
    pub span: Span,
}

/// `^name`, `^name(args)` or `^name[choice]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Function<N> {
    /// The name, as written (without `^`).
    pub name: String,
    /// The function when NAOqi documents it; `None` for any other name (the engine says
    /// "not supported here").
    pub builtin: Option<Builtin>,
    /// Its arguments.
    pub args: Args<N>,
    /// Where the `^` is.
    pub span: Span,
}

/// The arguments of a function.
#[derive(Debug, Clone, PartialEq)]
pub enum Args<N> {
    /// `^name`.
    None,
    /// `^name(a, b)`: the text between the parentheses split on top-level commas, trimmed
    /// (quotes and nested parentheses kept as written: `^call(ALMemory.getData("k"))` has
    /// one argument, `ALMemory.getData("k")`).
    List(Vec<String>),
    /// `^name[a b]` (`^rand`, `^first`): alternatives.
    Choice(Vec<Alternative<N>>),
}

/// The functions of the NAOqi 2.8 QiChat syntax page (and QiSDK's `^endDiscuss` and
/// `^execute`, which real topics call). Topic properties (`^noPick`, ...) are
/// [`TopicProperty`]; a `def:` function is called by its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    Activate,
    Deactivate,
    Break,
    Clear,
    Concatenate,
    Empty,
    Enumerate,
    Exist,
    NotExist,
    First,
    FirstOptional,
    Frequency,
    Goto,
    GotoRandom,
    GotoReactivate,
    TopicTag,
    TopicTagReactivate,
    Topic,
    TopicRandom,
    NextProposal,
    PreviousProposal,
    SameProposal,
    Play,
    Private,
    LessPriority,
    Exact,
    Rand,
    Repeat,
    Size,
    StayInScope,
    ClearConcept,
    RemoveFromConcept,
    AddToConcept,
    IsInConcept,
    CurrentDateTime,
    CurrentDate,
    CurrentTime,
    EndOfWeek,
    GetUserInfo,
    SetUserInfo,
    HasUserInfo,
    RemoveUserInfo,
    SwitchFocus,
    ReleaseFocus,
    Call,
    SCall,
    PCall,
    Mode,
    Run,
    RunTag,
    RunSound,
    Start,
    StartTag,
    StartSound,
    Stop,
    StopTag,
    StopSound,
    Wait,
    WaitTag,
    WaitSound,
    AddWord,
    Replace,
    Wiki,
    AddKnowledge,
    UpdateKnowledge,
    ContainsKnowledge,
    NotContainsKnowledge,
    RemoveKnowledge,
    QueryKnowledge,
    GetKnowledgeId,
    AddMetadata,
    QueryMetadata,
    UpdateMetadata,
    ContainsMetadata,
    NotContainsMetadata,
    RemoveMetadata,
    SetExpiringKnowledge,
    SetHappeningKnowledge,
    EndDiscuss,
    Execute,
}

impl Builtin {
    /// Every builtin with its name as written (without `^`).
    pub const ALL: &[(Builtin, &str)] = &[
        (Builtin::Activate, "activate"),
        (Builtin::Deactivate, "deactivate"),
        (Builtin::Break, "break"),
        (Builtin::Clear, "clear"),
        (Builtin::Concatenate, "concatenate"),
        (Builtin::Empty, "empty"),
        (Builtin::Enumerate, "enumerate"),
        (Builtin::Exist, "exist"),
        (Builtin::NotExist, "notExist"),
        (Builtin::First, "first"),
        (Builtin::FirstOptional, "firstOptional"),
        (Builtin::Frequency, "frequency"),
        (Builtin::Goto, "goto"),
        (Builtin::GotoRandom, "gotoRandom"),
        (Builtin::GotoReactivate, "gotoReactivate"),
        (Builtin::TopicTag, "topicTag"),
        (Builtin::TopicTagReactivate, "topicTagReactivate"),
        (Builtin::Topic, "topic"),
        (Builtin::TopicRandom, "topicRandom"),
        (Builtin::NextProposal, "nextProposal"),
        (Builtin::PreviousProposal, "previousProposal"),
        (Builtin::SameProposal, "sameProposal"),
        (Builtin::Play, "play"),
        (Builtin::Private, "private"),
        (Builtin::LessPriority, "lessPriority"),
        (Builtin::Exact, "exact"),
        (Builtin::Rand, "rand"),
        (Builtin::Repeat, "repeat"),
        (Builtin::Size, "size"),
        (Builtin::StayInScope, "stayInScope"),
        (Builtin::ClearConcept, "clearConcept"),
        (Builtin::RemoveFromConcept, "removeFromConcept"),
        (Builtin::AddToConcept, "addToConcept"),
        (Builtin::IsInConcept, "isInConcept"),
        (Builtin::CurrentDateTime, "currentDateTime"),
        (Builtin::CurrentDate, "currentDate"),
        (Builtin::CurrentTime, "currentTime"),
        (Builtin::EndOfWeek, "endOfWeek"),
        (Builtin::GetUserInfo, "getUserInfo"),
        (Builtin::SetUserInfo, "setUserInfo"),
        (Builtin::HasUserInfo, "hasUserInfo"),
        (Builtin::RemoveUserInfo, "removeUserInfo"),
        (Builtin::SwitchFocus, "switchFocus"),
        (Builtin::ReleaseFocus, "releaseFocus"),
        (Builtin::Call, "call"),
        (Builtin::SCall, "sCall"),
        (Builtin::PCall, "pCall"),
        (Builtin::Mode, "mode"),
        (Builtin::Run, "run"),
        (Builtin::RunTag, "runTag"),
        (Builtin::RunSound, "runSound"),
        (Builtin::Start, "start"),
        (Builtin::StartTag, "startTag"),
        (Builtin::StartSound, "startSound"),
        (Builtin::Stop, "stop"),
        (Builtin::StopTag, "stopTag"),
        (Builtin::StopSound, "stopSound"),
        (Builtin::Wait, "wait"),
        (Builtin::WaitTag, "waitTag"),
        (Builtin::WaitSound, "waitSound"),
        (Builtin::AddWord, "addword"),
        (Builtin::Replace, "replace"),
        (Builtin::Wiki, "wiki"),
        (Builtin::AddKnowledge, "addKnowledge"),
        (Builtin::UpdateKnowledge, "updateKnowledge"),
        (Builtin::ContainsKnowledge, "containsKnowledge"),
        (Builtin::NotContainsKnowledge, "notContainsKnowledge"),
        (Builtin::RemoveKnowledge, "removeKnowledge"),
        (Builtin::QueryKnowledge, "queryKnowledge"),
        (Builtin::GetKnowledgeId, "getKnowledgeId"),
        (Builtin::AddMetadata, "addMetadata"),
        (Builtin::QueryMetadata, "queryMetadata"),
        (Builtin::UpdateMetadata, "updateMetadata"),
        (Builtin::ContainsMetadata, "containsMetadata"),
        (Builtin::NotContainsMetadata, "notContainsMetadata"),
        (Builtin::RemoveMetadata, "removeMetadata"),
        (Builtin::SetExpiringKnowledge, "setExpiringKnowledge"),
        (Builtin::SetHappeningKnowledge, "setHappeningKnowledge"),
        (Builtin::EndDiscuss, "endDiscuss"),
        (Builtin::Execute, "execute"),
    ];

    /// The builtin a name spells (case as documented), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(b, _)| *b)
    }

    /// The name as written (without `^`).
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(b, _)| *b == self)
            .map_or("", |(_, n)| n)
    }
}

/// `left op right`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The variable compared (`$var`).
    pub left: Operand,
    /// The comparison.
    pub op: CompareOp,
    /// What it is compared with.
    pub right: Operand,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==`
    Eq,
    /// `!=` or `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A value in an assignment or a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// `$var`.
    Variable(String),
    /// `$1`.
    CaptureRef(u32),
    /// A word or a quoted string (quotes removed).
    Literal(String),
    /// A quoted value with something to work out (`$size="^size(~cocktails)"`).
    Output(Vec<OutputNode>),
}
