//! The bytes of what a stack's Python behavior's hook and the stack's runner say to each
//! other (`crate::stack::talk`), inside a lane's request and answer frames.

use super::wire::{Reader, WireError, Writer};
use crate::stack::{Declared, HookAnswer, HookRequest, Hooked, State};

/// A hook's request's bytes (after the message's tag).
pub(super) fn put_request(w: &mut Writer, r: &HookRequest) {
    match r {
        HookRequest::Wants(name) => w.u8(0).str(name),
        HookRequest::Delegate(name, token) => w.u8(1).str(name).opt_u64(*token),
        HookRequest::Run(service, method, args, token) => w
            .u8(2)
            .str(service)
            .str(method)
            .values(args)
            .opt_u64(*token),
        HookRequest::CancelDelegates(allow) => w.u8(3).bool(*allow),
        HookRequest::CancelSelf(failure) => w.u8(4).opt_str(failure.as_deref()),
        HookRequest::Call(service, method, args) => w.u8(5).str(service).str(method).values(args),
        HookRequest::Log(level, text) => w.u8(6).str(level).str(text),
        HookRequest::State => w.u8(7),
    };
}

/// A hook's request read back.
pub(super) fn get_request(r: &mut Reader<'_>) -> Result<HookRequest, WireError> {
    Ok(match r.u8()? {
        0 => HookRequest::Wants(r.str()?),
        1 => HookRequest::Delegate(r.str()?, r.opt_u64()?),
        2 => HookRequest::Run(r.str()?, r.str()?, r.values()?, r.opt_u64()?),
        3 => HookRequest::CancelDelegates(r.bool()?),
        4 => HookRequest::CancelSelf(r.opt_str()?),
        5 => HookRequest::Call(r.str()?, r.str()?, r.values()?),
        6 => HookRequest::Log(r.str()?, r.str()?),
        7 => HookRequest::State,
        t => {
            return Err(WireError(format!(
                "no request of a stack's hook has tag {t}"
            )));
        }
    })
}

/// An answer of the stack's bytes (after the answer's tag).
pub(super) fn put_answer(w: &mut Writer, a: &HookAnswer) {
    match a {
        HookAnswer::Bool(b) => {
            w.u8(0).bool(*b);
        }
        HookAnswer::Unit(r) => {
            w.u8(1).opt_str(r.as_ref().err().map(String::as_str));
        }
        HookAnswer::Value(r) => {
            match r {
                Ok(v) => w.u8(2).u8(0).value(v),
                Err(e) => w.u8(2).u8(1).str(e),
            };
        }
        HookAnswer::State(s) => {
            w.u8(3)
                .u64(s.tick)
                .u64(s.now.to_bits())
                .bool(s.activated)
                .bool(s.delegated)
                .bool(s.can_delegate)
                .len(s.inputs.len());
            for (name, value) in &s.inputs {
                w.str(name).value(value);
            }
        }
        HookAnswer::Loaded(r) => {
            match r {
                Ok(d) => w
                    .u8(4)
                    .u8(0)
                    .strs(&d.delegates)
                    .strs(&d.linked)
                    .bool(d.always_delegates)
                    .strs(&d.subscriptions),
                Err(e) => w.u8(4).u8(1).str(e),
            };
        }
        HookAnswer::Hooked(h) => {
            match h {
                Hooked::Missing => w.u8(5).u8(0),
                Hooked::Returned(v) => w.u8(5).u8(1).value(v),
                Hooked::Raised(t) => w.u8(5).u8(2).str(t),
            };
        }
    }
}

/// An answer of the stack's read back.
pub(super) fn get_answer(r: &mut Reader<'_>) -> Result<HookAnswer, WireError> {
    Ok(match r.u8()? {
        0 => HookAnswer::Bool(r.bool()?),
        1 => HookAnswer::Unit(match r.opt_str()? {
            None => Ok(()),
            Some(e) => Err(e),
        }),
        2 => HookAnswer::Value(if r.bool()? {
            Err(r.str()?)
        } else {
            Ok(r.value()?)
        }),
        3 => {
            let (tick, now) = (r.u64()?, f64::from_bits(r.u64()?));
            let (activated, delegated, can_delegate) = (r.bool()?, r.bool()?, r.bool()?);
            let n = r.count(2)?;
            let inputs = (0..n)
                .map(|_| Ok((r.str()?, r.value()?)))
                .collect::<Result<_, WireError>>()?;
            HookAnswer::State(State {
                tick,
                now,
                activated,
                delegated,
                can_delegate,
                inputs,
            })
        }
        4 => HookAnswer::Loaded(if r.bool()? {
            Err(r.str()?)
        } else {
            Ok(Declared {
                delegates: r.strs()?,
                linked: r.strs()?,
                always_delegates: r.bool()?,
                subscriptions: r.strs()?,
            })
        }),
        5 => HookAnswer::Hooked(match r.u8()? {
            0 => Hooked::Missing,
            1 => Hooked::Returned(r.value()?),
            2 => Hooked::Raised(r.str()?),
            t => return Err(WireError(format!("no hook's end has tag {t}"))),
        }),
        t => return Err(WireError(format!("no answer of a stack's has tag {t}"))),
    })
}
