//! Inline hops around a cycle of K boxes, as many as asked: the hop in a steady state, with
//! no load or unload in it. Shared by the engine bench (`side_by_side`) and the `hop_cycle`
//! example, which includes this file.

use std::cell::Cell;

use choreo_engine::{Hook, NativeHost, Value};
use choreo_testkit::generated::{NEXT, behavior, push_box, push_link};
use choreo_xar::model::XarFile;

thread_local! {
    /// Hops made by the running engine: its inline hooks run on its control thread, a
    /// thread of each engine's own, so every run counts from 0.
    static HOPS: Cell<u64> = const { Cell::new(0) };
}

/// `k` boxes `hop`: root.onStart → box 1, box i's `next` → box i + 1's onStart, the last's
/// → the first's; every box's onStopped → the root's.
pub fn cycle_xar(k: i64) -> XarFile {
    let mut d = String::new();
    for i in 1..=k {
        push_box(&mut d, "hop", i, NEXT, None);
    }
    push_link(&mut d, 0, 2, 1, 2);
    for i in 1..=k {
        push_link(&mut d, i, 5, i % k + 1, 2);
        push_link(&mut d, i, 4, 0, 4);
    }
    match choreo_xar::read_xar("cycle.xar", behavior(&d).as_bytes()) {
        Ok(read) => read.value,
        Err(e) => panic!("the generated cycle does not read: {e:?}"),
    }
}

/// Inline `hop` boxes: each onStart fires `next`, but the `hops`th fires onStopped, which
/// ends the behavior (so `hops` is the number of inputs started, the root's first signal
/// included).
pub fn cycle_host(hops: u64) -> NativeHost {
    NativeHost::new().with_inline("hop", move |hook: &Hook, ctx| {
        if let Hook::Input { name, .. } = hook
            && name == "onStart"
        {
            let made = HOPS.get() + 1;
            HOPS.set(made);
            let output = if made >= hops { "onStopped" } else { "next" };
            ctx.fire(output, Value::None)?;
        }
        Ok(())
    })
}
