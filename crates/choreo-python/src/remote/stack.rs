//! The behavior stack's own Python behaviors in the box host: choreo's side of them
//! (`BoxHost::stack_load`, `stack_hook`, `stack_drop`); the bytes of what a hook and the
//! stack's runner say are `super::stack_wire`'s.
//!
//! A hook is an order on the runner's thread's lane; the requests its `cx` makes come back
//! on that lane and are answered there by the runner, as they were on a thread of choreo's.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use choreo_engine::Value;

use super::control::Record;
use super::message::{Answer, Order};
use super::process::BoxHost;
use crate::stack::{Declared, HookAnswer, HookRequest, Hooked};

impl BoxHost {
    /// Makes an instance of class `class` of `source` (the text of `file`) in the box
    /// host, with `params`: its handle and what it declares, or why not.
    pub(crate) fn stack_load(
        self: &Arc<Self>,
        file: &Path,
        class: &str,
        params: &Value,
        source: &str,
    ) -> Result<(u64, Declared), String> {
        let handle = self.next_handle.fetch_add(1, Ordering::SeqCst);
        let order = Order::StackLoad {
            handle,
            file: file.display().to_string(),
            class: class.to_string(),
            params: params.clone(),
            source: source.to_string(),
        };
        match self.order(&order) {
            Ok(Answer::Stack(HookAnswer::Loaded(made))) => made.map(|d| (handle, d)),
            Ok(_) => Err(self.broken("answered a load out of turn").to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Calls method `name` of behavior `handle` with `args`, the requests of its `cx`
    /// answered by `serve` on this thread.
    pub(crate) fn stack_hook(
        self: &Arc<Self>,
        handle: u64,
        name: &str,
        args: &[Value],
        serve: &mut dyn FnMut(HookRequest) -> HookAnswer,
    ) -> Hooked {
        let order = Order::StackHook {
            handle,
            name: name.to_string(),
            args: args.to_vec(),
        };
        match self.order_serving(&order, serve) {
            Ok(Answer::Stack(HookAnswer::Hooked(hooked))) => hooked,
            Ok(_) => Hooked::Raised(self.broken("answered a hook out of turn").to_string()),
            Err(e) => Hooked::Raised(e.to_string()),
        }
    }

    /// Behavior `handle` is gone: the box host lets its object go.
    pub(crate) fn stack_drop(&self, handle: u64) {
        // The box host may be gone: nothing to tell it then.
        if !self.killed.load(Ordering::SeqCst) {
            let _ = self.control.send(&Record::DropBox(handle));
        }
    }
}
