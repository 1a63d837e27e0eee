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
    /// The `language:` code (`enu`, `frf`, `jpj`, ...), if the topic says one.
    pub language: Option<Language>,
    /// `concept:` definitions, in file order.
    pub concepts: Vec<Concept>,
    /// `dynamic:` declarations, in file order.
    pub dynamics: Vec<Named>,
    /// `include:` files, in file order (not read: including is the engine's business).
    pub includes: Vec<Named>,
    /// Other header lines (`pronunciation:`, `def:`), kept as text.
    pub directives: Vec<Directive>,
    /// Top-level rules (`u:`, `proposal:`, `e:`) in file order, each with its subrules.
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
    /// The code as written (`enu`).
    pub code: String,
    /// Where the code is.
    pub span: Span,
}

impl Language {
    /// The codes NAOqi 2.x documents (`enu`, `frf`, `ged`, ...). Others are kept as written.
    pub const KNOWN: &[&str] = &[
        "arw", "cnh", "czc", "dad", "dun", "enu", "eng", "fif", "frf", "ged", "grg", "iti", "jpj",
        "kok", "mnc", "mnt", "nor", "plp", "ptb", "ptp", "rur", "spe", "sws", "trt",
    ];

    /// Whether the code is one NAOqi 2.x documents.
    pub fn is_known(&self) -> bool {
        Self::KNOWN.contains(&self.code.as_str())
    }
}

/// A name with its position (`dynamic:` and `include:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The name (or file name) as written.
    pub name: String,
    /// Where the line starts.
    pub span: Span,
}

/// A header line this parser keeps without reading (`pronunciation:(I) [i]`, `def:...`).
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
            OutputKind::Choice(alts) => alts,
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
    /// `e:Name`: the ALMemory event `Name` raised.
    Event(String),
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
    /// `~name`: an item of the concept, said.
    Concept(String),
    /// `%name`: a bookmark (a target for `^goto`).
    Bookmark(String),
    /// `^name(...)`, `^name[...]` or `^name`: a function. Known names have a [`Builtin`].
    Function(Function<OutputNode>),
    /// `%script` ... `%script`: Python source run by NAOqi's dialog, kept as written.
    Script(String),
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

/// The functions NAOqi 2.x documents (and the ones real topics call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    Rand,
    First,
    Goto,
    GotoReactivate,
    GotoRandom,
    SameProposal,
    NextProposal,
    PreviousProposal,
    TopicTag,
    Start,
    Stop,
    Run,
    Wait,
    StartTag,
    StopTag,
    WaitTag,
    RunTag,
    Clear,
    StayInScope,
    EndDiscuss,
    Private,
    Repeat,
    NoStay,
    NotInEmbeddedAsr,
    Execute,
    Call,
    Exist,
    NotExist,
    Break,
}

impl Builtin {
    /// The builtin a name spells (case as documented), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        use Builtin::*;
        Some(match name {
            "rand" => Rand,
            "first" => First,
            "goto" => Goto,
            "gotoReactivate" => GotoReactivate,
            "gotoRandom" => GotoRandom,
            "sameProposal" => SameProposal,
            "nextProposal" => NextProposal,
            "previousProposal" => PreviousProposal,
            "topicTag" => TopicTag,
            "start" => Start,
            "stop" => Stop,
            "run" => Run,
            "wait" => Wait,
            "startTag" => StartTag,
            "stopTag" => StopTag,
            "waitTag" => WaitTag,
            "runTag" => RunTag,
            "clear" => Clear,
            "stayInScope" => StayInScope,
            "endDiscuss" => EndDiscuss,
            "private" => Private,
            "repeat" => Repeat,
            "noStay" => NoStay,
            "notInEmbeddedASR" => NotInEmbeddedAsr,
            "execute" => Execute,
            "call" => Call,
            "exist" => Exist,
            "notExist" => NotExist,
            "break" => Break,
            _ => return None,
        })
    }
}

/// `left op right`.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// `$var`.
    Variable(String),
    /// `$1`.
    CaptureRef(u32),
    /// A word or a quoted string (quotes removed).
    Literal(String),
}
