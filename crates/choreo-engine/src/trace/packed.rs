//! A record's [`Stored`] packed into two plain words.
//!
//! Why words and not the enum itself: a record of the enum is built field by field in memory
//! (a tag byte, a `u16`, a `u32`) and then copied into the buffer with wide loads, which
//! wait for the narrow stores before them; measured, those waits were most of what
//! recording cost a signal hop. Two `u64`s are made in registers and stored as they are.
//!
//! Each word is `kind | x << 8 | port << 16 | box << 32`: the first says what happened (the
//! kind, and for a hook its kind in `x`, for a value whether it waits beside the record),
//! the second is a delivery's target end, or a hook's `ok`.

use crate::graph::BoxId;
use crate::trace::stored::{End, HookRef, Stored};

/// See the [module](self) doc.
pub(super) type Words = [u64; 2];

const CALL: u8 = 1;
const RET: u8 = 2;
const IN: u8 = 3;
const OUT: u8 = 4;
const DELIVER: u8 = 5;
const DROPPED: u8 = 6;
const STEP: u8 = 7;
const OTHER: u8 = 8;

#[inline(always)]
fn word(kind: u8, x: u8, port: u16, b: BoxId) -> u64 {
    u64::from(kind) | u64::from(x) << 8 | u64::from(port) << 16 | u64::from(b.0) << 32
}

/// `(kind, x, port, box)` of a word.
fn fields(w: u64) -> (u8, u8, u16, BoxId) {
    (
        (w & 0xff) as u8,
        (w >> 8 & 0xff) as u8,
        (w >> 16 & 0xffff) as u16,
        BoxId((w >> 32) as u32),
    )
}

#[inline(always)]
fn hook_code(h: HookRef) -> (u8, u16) {
    match h {
        HookRef::Load => (0, 0),
        HookRef::Unload => (1, 0),
        HookRef::Input(i) => (2, i),
        HookRef::ResourceLost => (3, 0),
        HookRef::ResourceError => (4, 0),
        HookRef::Resource => (5, 0),
    }
}

fn hook_of(x: u8, port: u16) -> HookRef {
    match x {
        0 => HookRef::Load,
        1 => HookRef::Unload,
        2 => HookRef::Input(port),
        3 => HookRef::ResourceLost,
        4 => HookRef::ResourceError,
        _ => HookRef::Resource,
    }
}

#[inline(always)]
fn end_word(kind: u8, e: End) -> u64 {
    let (x, b, port) = match e {
        End::Output(b, p) => (0, b, p),
        End::Input(b, p) => (1, b, p),
        End::Parameter(b, p) => (2, b, p),
        End::OwnerInput(b, p) => (3, b, p),
        End::OwnerOutput(b, p) => (4, b, p),
    };
    word(kind, x, port, b)
}

fn end_of(w: u64) -> End {
    let (_, x, port, b) = fields(w);
    match x {
        0 => End::Output(b, port),
        1 => End::Input(b, port),
        2 => End::Parameter(b, port),
        3 => End::OwnerInput(b, port),
        _ => End::OwnerOutput(b, port),
    }
}

/// `s` as two words.
#[inline(always)]
pub(super) fn pack(s: Stored) -> Words {
    match s {
        Stored::Call(b, h) => {
            let (x, i) = hook_code(h);
            [word(CALL, x, i, b), 0]
        }
        Stored::Ret(b, h, ok) => {
            let (x, i) = hook_code(h);
            [word(RET, x, i, b), u64::from(ok)]
        }
        Stored::In(b, i, beside) => [word(IN, u8::from(beside), i, b), 0],
        Stored::Out(b, i, beside) => [word(OUT, u8::from(beside), i, b), 0],
        Stored::Deliver(from, to) => [end_word(DELIVER, from), end_word(0, to)],
        Stored::Dropped(b, i) => [word(DROPPED, 0, i, b), 0],
        Stored::Step(b) => [word(STEP, 0, 0, b), 0],
        Stored::Other => [word(OTHER, 0, 0, BoxId(0)), 0],
    }
}

/// The [`Stored`] two words are ([`pack`]'s inverse).
pub(super) fn unpack(w: Words) -> Stored {
    let (kind, x, port, b) = fields(w[0]);
    match kind {
        CALL => Stored::Call(b, hook_of(x, port)),
        RET => Stored::Ret(b, hook_of(x, port), w[1] != 0),
        IN => Stored::In(b, port, x != 0),
        OUT => Stored::Out(b, port, x != 0),
        DELIVER => Stored::Deliver(end_of(w[0]), end_of(w[1])),
        DROPPED => Stored::Dropped(b, port),
        STEP => Stored::Step(b),
        _ => Stored::Other,
    }
}

/// Whether the record of these words carries a payload (a value that is not `None`, a
/// step, an event with its path): what [`Stored::has_payload`] says of [`unpack`]'s.
#[inline]
pub(super) fn has_payload(w: &Words) -> bool {
    let (kind, x) = ((w[0] & 0xff) as u8, (w[0] >> 8 & 0xff) as u8);
    matches!(kind, STEP | OTHER) || (matches!(kind, IN | OUT) && x != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stored_comes_back_unpacked_as_it_was_packed() {
        let boxes = [0, 1, 7, 65_535, 65_536, u32::MAX - 1, u32::MAX].map(BoxId);
        let ports = [0, 1, 300, u16::MAX];
        let mut tried = 0;
        for &b in &boxes {
            for &p in &ports {
                let hooks = [
                    HookRef::Load,
                    HookRef::Unload,
                    HookRef::Input(p),
                    HookRef::ResourceLost,
                    HookRef::ResourceError,
                    HookRef::Resource,
                ];
                let ends = [
                    End::Output(b, p),
                    End::Input(b, p),
                    End::Parameter(b, p),
                    End::OwnerInput(b, p),
                    End::OwnerOutput(b, p),
                ];
                let mut all = vec![Stored::Dropped(b, p), Stored::Step(b), Stored::Other];
                for h in hooks {
                    all.extend([Stored::Call(b, h), Stored::Ret(b, h, true)]);
                    all.push(Stored::Ret(b, h, false));
                }
                for beside in [false, true] {
                    all.extend([Stored::In(b, p, beside), Stored::Out(b, p, beside)]);
                }
                for from in ends {
                    // The target's box and port differ from the source's.
                    let to = End::Input(BoxId(b.0 ^ 0x5555_5555), p ^ 0x0f0f);
                    all.extend([Stored::Deliver(from, to), Stored::Deliver(to, from)]);
                }
                for s in all {
                    let w = pack(s);
                    let back = unpack(w);
                    assert_eq!(format!("{back:?}"), format!("{s:?}"));
                    assert_eq!(has_payload(&w), s.has_payload(), "{s:?}");
                    tried += 1;
                }
            }
        }
        assert_eq!(tried, 7 * 4 * 35);
    }
}
