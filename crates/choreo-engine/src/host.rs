//! The script-host boundary: the engine calls box code through [`BoxCode`] and box code
//! reaches the engine through [`BoxContext`]. Python boxes (choreo-python) and native Rust
//! boxes are implementations; the engine knows nothing of either.
//!
//! A [`ScriptHost`] prepares a whole behavior's code in one batch at load, then constructs each
//! box's; [`NativeHost`] serves Rust boxes and placeholders.

use std::collections::HashMap;
use std::sync::Arc;

use crate::context::BoxContext;
use crate::error::ScriptError;
use crate::graph::BoxNode;
use crate::hook::Hook;

/// The code of one box instance. Called on worker threads, possibly several hooks at once
/// (C1, C3). An `Err` is an exception escaping the hook (E1).
pub trait BoxCode: Send + Sync {
    /// Runs a hook. A missing hook is not an error: return `Ok(())`.
    fn call(&self, hook: &Hook, ctx: &BoxContext) -> Result<(), ScriptError>;

    /// Whether the box defines an optional hook whose absence changes what the engine does
    /// (`onResourceLost`, `onResourceError`, `onResource`: R9, R12, Q3). Other hooks are
    /// always called; a missing one just returns.
    fn defines(&self, hook: &Hook) -> bool {
        let _ = hook;
        false
    }

    /// True for code that never blocks (no sleep, no waiting on anything): the engine then
    /// runs its hooks on the control thread, skipping the hand-off to a worker.
    fn runs_inline(&self) -> bool {
        false
    }
}

/// Makes box code for box instances; one per behavior run.
pub trait ScriptHost: Send + Sync {
    /// Constructs the code of `node` (R1 `new(B)`); an error fails the behavior's load.
    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, ScriptError>;

    /// Called once at load, with every box, before any is constructed: work a host does
    /// better in one batch (the Python host compiles every script before running any).
    fn prepare(&self, graph: &crate::graph::Graph) {
        let _ = graph;
    }

    /// The code for a box whose script Choregraphe generated when the behavior ran rather
    /// than keeping it in the file (the stock Choice box): `None` runs the file's script.
    fn generated_code(&self, def: &choreo_xar::BoxDef) -> Option<String> {
        let _ = def;
        None
    }
}

/// The code of a native box: a function of the hook and the context.
pub type NativeFn = Arc<dyn Fn(&Hook, &BoxContext) -> Result<(), ScriptError> + Send + Sync>;

/// Native Rust boxes, chosen by box name; boxes with no registered code get a placeholder
/// that does nothing (every hook returns at once), which is enough to load any behavior.
#[derive(Default, Clone)]
pub struct NativeHost {
    /// The code of the boxes of each name: one object for all of them (its code is read at
    /// each hook: one shared object stays near at hand, where one per box was a cache miss
    /// per signal hop in a behavior of many boxes).
    by_name: HashMap<String, Arc<NativeBox>>,
    /// The code of every box of a name with nothing registered.
    placeholder: Arc<NativeBox>,
}

impl NativeHost {
    /// A host where every box is a placeholder.
    pub fn new() -> NativeHost {
        NativeHost::default()
    }

    /// Gives the boxes named `name` the code `f`.
    pub fn with(
        mut self,
        name: &str,
        f: impl Fn(&Hook, &BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
    ) -> NativeHost {
        self.code(name).code = Some((Arc::new(f), false));
        self
    }

    /// Says that the boxes named `name` define the optional hooks `hooks` (script names such
    /// as `onResourceLost`; see [`BoxCode::defines`]); their code receives them.
    pub fn defining(mut self, name: &str, hooks: &[&str]) -> NativeHost {
        self.code(name)
            .defined
            .extend(hooks.iter().map(ToString::to_string));
        self
    }

    /// Gives the boxes named `name` the code `f`, run on the control thread: `f` must never
    /// block (see [`BoxCode::runs_inline`]); a [`BoxContext::sleep`] there returns at once.
    pub fn with_inline(
        mut self,
        name: &str,
        f: impl Fn(&Hook, &BoxContext) -> Result<(), ScriptError> + Send + Sync + 'static,
    ) -> NativeHost {
        self.code(name).code = Some((Arc::new(f), true));
        self
    }

    /// The code of the boxes named `name`, to change as the host is built.
    fn code(&mut self, name: &str) -> &mut NativeBox {
        Arc::make_mut(self.by_name.entry(name.to_string()).or_default())
    }
}

/// A native box: its function and whether it runs inline (no function: a placeholder), and
/// the optional hooks it defines.
#[derive(Default, Clone)]
struct NativeBox {
    code: Option<(NativeFn, bool)>,
    defined: Vec<String>,
}

impl BoxCode for NativeBox {
    fn call(&self, hook: &Hook, ctx: &BoxContext) -> Result<(), ScriptError> {
        match &self.code {
            Some((f, _)) => f(hook, ctx),
            None => Ok(()),
        }
    }

    fn defines(&self, hook: &Hook) -> bool {
        self.defined.contains(&hook.script_name())
    }

    fn runs_inline(&self) -> bool {
        self.code.as_ref().is_none_or(|(_, inline)| *inline)
    }
}

impl ScriptHost for NativeHost {
    fn construct(
        &self,
        node: &BoxNode,
        _ctx: &BoxContext,
    ) -> Result<Arc<dyn BoxCode>, ScriptError> {
        let code = self.by_name.get(&node.name).unwrap_or(&self.placeholder);
        Ok(Arc::clone(code) as Arc<dyn BoxCode>)
    }
}
