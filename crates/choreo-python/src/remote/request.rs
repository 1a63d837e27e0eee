//! What box code asks of the engine ([`Request`]) and its bytes, with those of a robot's
//! errors and of timeline commands: each request's tag is a lower-case letter (orders take
//! upper-case ones).

use std::time::Duration;

use choreo_engine::{RobotError, TimelineCommand};

use super::wire::{Reader, WireError, Writer};
use crate::stack::HookRequest;
use choreo_base::Value;

/// What box code asks of the engine, on the lane of the order it runs for.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Fire an output (no answer).
    Fire(u64, String, Value),
    /// A parameter's value.
    Parameter(u64, String),
    /// Set a parameter.
    SetParameter(u64, String, Value),
    /// A command to the own timeline (no answer).
    Timeline(u64, TimelineCommand),
    /// A command to the parent timeline.
    ParentTimeline(u64, TimelineCommand),
    /// The own timeline's frame rate.
    Fps(u64),
    /// The parent timeline's frame rate.
    ParentFps(u64),
    /// A robot call: box, service, method, arguments.
    Call(u64, String, String, Vec<Value>),
    /// A robot task started: box, service, method, arguments.
    Post(u64, String, String, Vec<Value>),
    /// Whether the robot has a module.
    HasService(u64, String),
    /// A log line: box, level, text, characters already cut (no answer).
    Log(u64, String, String, u64),
    /// An exception nothing caught: box, source, text (no answer).
    Uncaught(u64, String, String),
    /// Behavior time now.
    Now(u64),
    /// Sleep this many nanoseconds of behavior time (answered with the time it woke at).
    Sleep(u64, u64),
    /// Let the activities due now run first.
    PassTurn(u64),
    /// A whole number drawn by chance: box, outcomes, the generator's outcome (answered
    /// with the outcome the run takes).
    Draw(u64, u64, u64),
    /// Start a counted thread that runs the work numbered so: box, name, work.
    Spawn(u64, String, u64),
    /// Subscribe to an ALMemory key: box, key, subscription.
    Subscribe(u64, String, u64),
    /// Connect to a module's signal: box, service, signal, subscription.
    ConnectSignal(u64, String, String, u64),
    /// End a subscription: box, subscription (no answer).
    Unsubscribe(u64, u64),
    /// Install NAOqi OS's package imported by this name.
    Install(u64, String),
    /// What a stack's Python behavior's `cx` asks of the stack's runner (no box: the
    /// behavior is the one whose hook the lane's order runs).
    Stack(HookRequest),
}

impl Request {
    /// Whether the engine's side answers it (else the box host goes on at once).
    pub fn answered(&self) -> bool {
        !matches!(
            self,
            Request::Fire(..)
                | Request::Timeline(..)
                | Request::Log(..)
                | Request::Uncaught(..)
                | Request::Unsubscribe(..)
        )
    }
}

/// A request's bytes.
pub(super) fn encode(r: &Request) -> Writer {
    match r {
        Request::Fire(h, name, value) => {
            let mut w = Writer::tagged(b'f');
            w.u64(*h).str(name).value(value);
            w
        }
        Request::Parameter(h, name) => boxed(b'p', *h, |w| w.str(name)),
        Request::SetParameter(h, name, value) => boxed(b's', *h, |w| w.str(name).value(value)),
        Request::Timeline(h, c) => boxed(b't', *h, |w| put_command(w, c)),
        Request::ParentTimeline(h, c) => boxed(b'u', *h, |w| put_command(w, c)),
        Request::Fps(h) => boxed(b'r', *h, |w| w),
        Request::ParentFps(h) => boxed(b'q', *h, |w| w),
        Request::Call(h, s, m, args) => boxed(b'c', *h, |w| w.str(s).str(m).values(args)),
        Request::Post(h, s, m, args) => boxed(b'o', *h, |w| w.str(s).str(m).values(args)),
        Request::HasService(h, s) => boxed(b'h', *h, |w| w.str(s)),
        Request::Log(h, level, text, cut) => boxed(b'l', *h, |w| w.str(level).str(text).u64(*cut)),
        Request::Uncaught(h, source, text) => boxed(b'x', *h, |w| w.str(source).str(text)),
        Request::Now(h) => boxed(b'n', *h, |w| w),
        Request::Sleep(h, ns) => boxed(b'z', *h, |w| w.u64(*ns)),
        Request::PassTurn(h) => boxed(b'y', *h, |w| w),
        Request::Draw(h, of, drew) => boxed(b'd', *h, |w| w.u64(*of).u64(*drew)),
        Request::Spawn(h, name, work) => boxed(b'w', *h, |w| w.str(name).u64(*work)),
        Request::Subscribe(h, key, id) => boxed(b'm', *h, |w| w.str(key).u64(*id)),
        Request::ConnectSignal(h, s, sig, id) => boxed(b'g', *h, |w| w.str(s).str(sig).u64(*id)),
        Request::Unsubscribe(h, id) => boxed(b'k', *h, |w| w.u64(*id)),
        Request::Install(h, name) => boxed(b'i', *h, |w| w.str(name)),
        Request::Stack(request) => {
            let mut w = Writer::tagged(b'b');
            super::stack_wire::put_request(&mut w, request);
            w
        }
    }
}

/// A request of `tag` naming box `handle`, the rest written by `rest`.
fn boxed(tag: u8, handle: u64, rest: impl FnOnce(&mut Writer) -> &mut Writer) -> Writer {
    let mut w = Writer::tagged(tag);
    w.u64(handle);
    rest(&mut w);
    w
}

/// The request of `tag` in `r`.
pub(super) fn decode(tag: u8, r: &mut Reader<'_>) -> Result<Request, WireError> {
    if tag == b'b' {
        return Ok(Request::Stack(super::stack_wire::get_request(r)?));
    }
    let h = r.u64()?;
    Ok(match tag {
        b'f' => Request::Fire(h, r.str()?, r.value()?),
        b'p' => Request::Parameter(h, r.str()?),
        b's' => Request::SetParameter(h, r.str()?, r.value()?),
        b't' => Request::Timeline(h, get_command(r)?),
        b'u' => Request::ParentTimeline(h, get_command(r)?),
        b'r' => Request::Fps(h),
        b'q' => Request::ParentFps(h),
        b'c' => Request::Call(h, r.str()?, r.str()?, r.values()?),
        b'o' => Request::Post(h, r.str()?, r.str()?, r.values()?),
        b'h' => Request::HasService(h, r.str()?),
        b'l' => Request::Log(h, r.str()?, r.str()?, r.u64()?),
        b'x' => Request::Uncaught(h, r.str()?, r.str()?),
        b'n' => Request::Now(h),
        b'z' => Request::Sleep(h, r.u64()?),
        b'y' => Request::PassTurn(h),
        b'd' => Request::Draw(h, r.u64()?, r.u64()?),
        b'w' => Request::Spawn(h, r.str()?, r.u64()?),
        b'm' => Request::Subscribe(h, r.str()?, r.u64()?),
        b'g' => Request::ConnectSignal(h, r.str()?, r.str()?, r.u64()?),
        b'k' => Request::Unsubscribe(h, r.u64()?),
        b'i' => Request::Install(h, r.str()?),
        t => return Err(WireError(format!("no request has tag {t}"))),
    })
}

fn put_command<'w>(w: &'w mut Writer, c: &TimelineCommand) -> &'w mut Writer {
    match c {
        TimelineCommand::Play => w.u8(0),
        TimelineCommand::Pause => w.u8(1),
        TimelineCommand::Stop => w.u8(2),
        TimelineCommand::GoToFrame(f) => w.u8(3).i64(*f),
        TimelineCommand::GoToLabel(l) => w.u8(4).str(l),
        TimelineCommand::SetFps(f) => w.u8(5).u32(*f),
    }
}

fn get_command(r: &mut Reader<'_>) -> Result<TimelineCommand, WireError> {
    Ok(match r.u8()? {
        0 => TimelineCommand::Play,
        1 => TimelineCommand::Pause,
        2 => TimelineCommand::Stop,
        3 => TimelineCommand::GoToFrame(r.i64()?),
        4 => TimelineCommand::GoToLabel(r.str()?),
        5 => TimelineCommand::SetFps(r.u32()?),
        t => return Err(WireError(format!("no timeline command has tag {t}"))),
    })
}

/// A robot's error, by kind, so that box code sees the same message and kind.
pub(super) fn put_robot_error<'w>(w: &'w mut Writer, e: &RobotError) -> &'w mut Writer {
    match e {
        RobotError::NoRobot => w.u8(0),
        RobotError::UnknownService(s) => w.u8(1).str(s),
        RobotError::UnknownMethod {
            service,
            method,
            signature,
            detail,
        } => w.u8(2).str(service).str(method).str(signature).str(detail),
        RobotError::BadArguments(s) => w.u8(3).str(s),
        RobotError::Disconnected(s) => w.u8(4).str(s),
        RobotError::Timeout(d) => w.u8(5).u64(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
        RobotError::Failed(s) => w.u8(6).str(s),
        RobotError::CannotPost(s) => w.u8(7).str(s),
    }
}

/// A robot's error read back.
pub(super) fn get_robot_error(r: &mut Reader<'_>) -> Result<RobotError, WireError> {
    Ok(match r.u8()? {
        0 => RobotError::NoRobot,
        1 => RobotError::UnknownService(r.str()?),
        2 => RobotError::UnknownMethod {
            service: r.str()?,
            method: r.str()?,
            signature: r.str()?,
            detail: r.str()?,
        },
        3 => RobotError::BadArguments(r.str()?),
        4 => RobotError::Disconnected(r.str()?),
        5 => RobotError::Timeout(Duration::from_nanos(r.u64()?)),
        6 => RobotError::Failed(r.str()?),
        7 => RobotError::CannotPost(r.str()?),
        t => return Err(WireError(format!("no robot error has tag {t}"))),
    })
}
