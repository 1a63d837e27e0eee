//! Test behaviors whose hooks a test scripts with closures, and helpers to run a stack and
//! read its trace.

use std::sync::{Arc, Mutex};

use choreo_stack::core::check::{Tree, check};
use choreo_stack::core::trace::describe;
use choreo_stack::{Action, Behavior, Builder, Completed, Context, Options, Runner, World};

type Hook = Box<dyn FnMut(&mut Context<'_>) + Send>;
type Wants = Box<dyn FnMut(&mut Context<'_>) -> bool + Send>;
type Done = Box<dyn FnMut(&mut Context<'_>, u64, Completed) + Send>;

/// A behavior whose hooks are closures (each does nothing by default; it wants to be
/// activated; it always delegates unless told).
pub struct Probe {
    delegates: Vec<String>,
    linked: Vec<String>,
    always: bool,
    subscriptions: Vec<String>,
    wants: Wants,
    activated: Hook,
    update: Hook,
    deactivated: Hook,
    done: Done,
    input: Hook,
}

impl Probe {
    pub fn new() -> Probe {
        Probe {
            delegates: Vec::new(),
            linked: Vec::new(),
            always: true,
            subscriptions: Vec::new(),
            wants: Box::new(|_| true),
            activated: Box::new(|_| {}),
            update: Box::new(|_| {}),
            deactivated: Box::new(|_| {}),
            done: Box::new(|_, _, _| {}),
            input: Box::new(|_| {}),
        }
    }

    /// A leaf: no delegates, does not have to delegate.
    pub fn leaf() -> Probe {
        Probe::new().always(false)
    }

    pub fn delegates(mut self, d: &[&str]) -> Probe {
        self.delegates = d.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn linked(mut self, d: &[&str]) -> Probe {
        self.linked = d.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn always(mut self, always: bool) -> Probe {
        self.always = always;
        self
    }

    pub fn subscribe(mut self, names: &[&str]) -> Probe {
        self.subscriptions = names.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn wants(mut self, f: impl FnMut(&mut Context<'_>) -> bool + Send + 'static) -> Probe {
        self.wants = Box::new(f);
        self
    }

    pub fn on_activated(mut self, f: impl FnMut(&mut Context<'_>) + Send + 'static) -> Probe {
        self.activated = Box::new(f);
        self
    }

    pub fn on_update(mut self, f: impl FnMut(&mut Context<'_>) + Send + 'static) -> Probe {
        self.update = Box::new(f);
        self
    }

    /// Runs `f` after the update it has.
    pub fn and_update(mut self, mut f: impl FnMut(&mut Context<'_>) + Send + 'static) -> Probe {
        let mut first = std::mem::replace(&mut self.update, Box::new(|_| {}));
        self.update = Box::new(move |cx| {
            first(cx);
            f(cx);
        });
        self
    }

    pub fn on_deactivated(mut self, f: impl FnMut(&mut Context<'_>) + Send + 'static) -> Probe {
        self.deactivated = Box::new(f);
        self
    }

    pub fn on_done(
        mut self,
        f: impl FnMut(&mut Context<'_>, u64, Completed) + Send + 'static,
    ) -> Probe {
        self.done = Box::new(f);
        self
    }

    pub fn on_input(mut self, f: impl FnMut(&mut Context<'_>) + Send + 'static) -> Probe {
        self.input = Box::new(f);
        self
    }
}

impl Behavior for Probe {
    fn delegates(&self) -> Vec<String> {
        self.delegates.clone()
    }
    fn linked(&self) -> Vec<String> {
        self.linked.clone()
    }
    fn always_delegates(&self) -> bool {
        self.always
    }
    fn subscriptions(&self) -> Vec<String> {
        self.subscriptions.clone()
    }
    fn wants_to_be_activated(&mut self, cx: &mut Context<'_>) -> bool {
        (self.wants)(cx)
    }
    fn on_activated(&mut self, cx: &mut Context<'_>) {
        (self.activated)(cx)
    }
    fn update(&mut self, cx: &mut Context<'_>) {
        (self.update)(cx)
    }
    fn on_deactivated(&mut self, cx: &mut Context<'_>) {
        (self.deactivated)(cx)
    }
    fn on_delegation_done(&mut self, cx: &mut Context<'_>, token: u64, done: Completed) {
        (self.done)(cx, token, done)
    }
    fn on_input(&mut self, cx: &mut Context<'_>, _input: &choreo_stack::Input) {
        (self.input)(cx)
    }
}

/// Asks `name` whether it wants, then delegates to it: what a parent does.
pub fn ask_and_delegate(cx: &mut Context<'_>, name: &str) -> Result<(), choreo_stack::StackError> {
    let b = cx.find(name).expect("a behavior of the test");
    match cx.wants(b)? {
        true => cx.delegate(b),
        false => Err(choreo_stack::StackError::NotWanting),
    }
}

/// Delegates to `name` once, at its first update (or activation), and keeps it.
pub fn parent_of(name: &'static str) -> Probe {
    let started = Arc::new(Mutex::new(false));
    Probe::new().delegates(&[name]).on_update(move |cx| {
        let mut s = started.lock().unwrap();
        if !*s && cx.is_activated() && !cx.is_control_delegated() {
            *s = ask_and_delegate(cx, name).is_ok();
        }
    })
}

/// A runner of `behaviors` on `base`, keeping its trace.
pub fn runner(behaviors: Vec<(&str, Probe)>, base: &str) -> Runner {
    runner_with(behaviors, base, Options::default())
}

pub fn runner_with(behaviors: Vec<(&str, Probe)>, base: &str, mut options: Options) -> Runner {
    options.keep_trace = true;
    let mut b = Builder::new();
    for (id, p) in behaviors {
        b.add(id, Box::new(p));
    }
    b.build(base, options).expect("a valid stack")
}

/// Runs `n` ticks (fewer if the stack finishes).
pub fn ticks(r: &mut Runner, n: usize) {
    for _ in 0..n {
        if r.tick().expect("the base wants") == choreo_stack::Tick::Finished {
            break;
        }
    }
}

/// The trace as lines `tick event`, without tick boundaries, init and scope counts
/// (`all`: everything).
pub fn lines(r: &Runner, all: bool) -> Vec<String> {
    r.trace()
        .records()
        .iter()
        .filter(|rec| {
            all || !matches!(
                rec.event,
                choreo_stack::Event::TickBegin
                    | choreo_stack::Event::TickEnd
                    | choreo_stack::Event::Init { .. }
                    | choreo_stack::Event::ScopeRefInc { .. }
                    | choreo_stack::Event::ScopeRefDec { .. }
            )
        })
        .map(|rec| describe(rec, r.names()).trim_start().to_string())
        .collect()
}

/// The lines of tick `n` (see [`lines`]).
pub fn tick_lines(r: &Runner, n: u64) -> Vec<String> {
    lines(r, false)
        .into_iter()
        .filter(|l| l.split(' ').next() == Some(&n.to_string()))
        .map(|l| {
            l.split_once(' ')
                .map(|(_, e)| e.to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// Asserts that the checker finds nothing wrong in the trace.
pub fn assert_clean(r: &Runner) {
    let v = check(r.trace().records(), &Tree::of(r));
    assert!(
        v.is_empty(),
        "violations:\n{}\ntrace:\n{}",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        lines(r, true).join("\n")
    );
}

/// Where an index of `lines` holds `what` (panics if absent).
pub fn at(lines: &[String], what: &str) -> usize {
    lines
        .iter()
        .position(|l| l.ends_with(what))
        .unwrap_or_else(|| panic!("{what:?} not in\n{}", lines.join("\n")))
}

/// An action that ends after `ticks` polls with `result`; counts its starts and cancels and
/// notes when it is dropped.
pub struct Timed {
    pub tag: String,
    pub ticks: u32,
    pub result: Completed,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Action for Timed {
    fn tag(&self) -> String {
        self.tag.clone()
    }
    fn start(&mut self, _: &World) -> Result<(), choreo_stack::ActionError> {
        self.log.lock().unwrap().push(format!("start {}", self.tag));
        Ok(())
    }
    fn poll(&mut self, _: &World) -> Option<Completed> {
        if self.ticks == 0 {
            return Some(self.result.clone());
        }
        self.ticks -= 1;
        None
    }
    fn cancel(&mut self, _: &World) {
        self.log
            .lock()
            .unwrap()
            .push(format!("cancel {}", self.tag));
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        if let Ok(mut l) = self.log.lock() {
            l.push(format!("drop {}", self.tag));
        }
    }
}
