//! The box host's protocol (docs/security.md, The box host): what choreo orders the box host
//! to run ([`Order`]), what box code asks of the engine ([`Request`]), and the answers to
//! both ([`Answer`]). Each is one frame of a lane (`super::lane`); its first byte says which.
//!
//! A request that needs no answer (a log line, an output fired, a timeline command) is sent
//! and not waited for: the lane keeps the order, and the engine's side handles it before the
//! hook's own answer, as it would have in one process.

use choreo_base::Value;
use choreo_engine::{Hook, RobotError, ScriptError};

use super::request::Request;
use super::wire::{Reader, WireError, Writer};
use crate::side::{BoxInfo, ClockFacts};
use crate::stack::HookAnswer;

/// The protocol's version: the first thing each side says (a box host of another build is
/// refused rather than misread).
pub const VERSION: u32 = 3;

/// What box code's Python host of one run knows of it (`PythonOptions` without the
/// confinement, which is the box host's own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostOptions {
    /// `PythonOptions::behavior_path`.
    pub behavior_path: String,
    /// `PythonOptions::package_uid`.
    pub package_uid: String,
    /// `PythonOptions::behavior_relative_path`.
    pub behavior_relative_path: String,
    /// `PythonOptions::robot_root`.
    pub robot_root: Option<String>,
}

/// What choreo orders the box host to do, on a lane.
#[derive(Debug, Clone, PartialEq)]
pub enum Order {
    /// A Python host for one run; answered with its number.
    NewHost(HostOptions),
    /// Compile these scripts (original text, box path) ahead of their boxes.
    Prepare {
        /// The host.
        host: u32,
        /// Each script and the box path that names it.
        scripts: Vec<(String, String)>,
    },
    /// Construct a box (R1): run its script, make its `MyClass`.
    Construct {
        /// The host.
        host: u32,
        /// The box's handle, chosen by choreo.
        handle: u64,
        /// The box.
        info: BoxInfo,
        /// The run's clock.
        clock: ClockFacts,
    },
    /// Run a hook of a box.
    Call {
        /// The box.
        handle: u64,
        /// The hook.
        hook: Hook,
    },
    /// Hand an update to a subscription's callback.
    Deliver {
        /// The subscription.
        id: u64,
        /// The key or signal.
        key: String,
        /// The value.
        value: Value,
    },
    /// Run work box code handed to the engine (a thread's function).
    Work(u64),
    /// Run a dialog's `%script` (its source); answered with what it printed.
    DialogScript(String),
    /// Make a stack's Python behavior: an instance of `class` of the module `source` (the
    /// text of `file`), with `params`; answered with what it declares.
    StackLoad {
        /// Its handle, chosen by choreo.
        handle: u64,
        /// The `.py` file, as its tracebacks name it.
        file: String,
        /// The class.
        class: String,
        /// The constructor's keyword arguments (a map, or none).
        params: Value,
        /// The module's text.
        source: String,
    },
    /// Call a method of a stack's Python behavior; its `cx`'s requests come back on the
    /// lane; answered with how it went.
    StackHook {
        /// The behavior.
        handle: u64,
        /// The method.
        name: String,
        /// Its arguments after `cx`.
        args: Vec<Value>,
    },
}

/// The answer to an order or a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Done, nothing to say.
    Done,
    /// Yes or no.
    Bool(bool),
    /// A number.
    Number(u64),
    /// A number, or none.
    MaybeNumber(Option<u64>),
    /// A value, or none.
    MaybeValue(Option<Value>),
    /// A text, or none.
    MaybeText(Option<String>),
    /// Done, or why not.
    Unit(Result<(), String>),
    /// A robot call's result.
    Robot(Result<Value, RobotError>),
    /// A box constructed: whether it has a `MyClass`, the optional hooks it defines.
    Constructed(bool, Vec<String>),
    /// A hook's or a construction's failure, or success.
    Script(Result<(), ScriptError>),
    /// What a `%script` printed, or the exception it raised.
    Printed(Result<String, String>),
    /// A stack's answer: the runner's to a hook's `cx`, the box host's to a stack's order.
    Stack(HookAnswer),
}

/// A message on a lane: an order, a request, or an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// choreo to the box host.
    Order(Order),
    /// The box host to choreo.
    Request(Request),
    /// Either way.
    Answer(Answer),
}

impl Order {
    /// The bytes of this order as a message (no copy of it made first).
    pub fn encode(&self) -> Vec<u8> {
        encode_order(self).bytes
    }
}

impl Message {
    /// The message's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let w = match self {
            Message::Order(o) => encode_order(o),
            Message::Request(r) => super::request::encode(r),
            Message::Answer(a) => encode_answer(a),
        };
        w.bytes
    }

    /// The message in `bytes`, all of them.
    pub fn decode(bytes: &[u8]) -> Result<Message, WireError> {
        let mut r = Reader::new(bytes);
        let message = match r.u8()? {
            b'A' => Message::Answer(decode_answer(&mut r)?),
            tag if tag.is_ascii_uppercase() => Message::Order(decode_order(tag, &mut r)?),
            tag => Message::Request(super::request::decode(tag, &mut r)?),
        };
        r.finish()?;
        Ok(message)
    }
}

fn encode_order(o: &Order) -> Writer {
    match o {
        Order::NewHost(h) => {
            let mut w = Writer::tagged(b'H');
            w.str(&h.behavior_path)
                .str(&h.package_uid)
                .str(&h.behavior_relative_path)
                .opt_str(h.robot_root.as_deref());
            w
        }
        Order::Prepare { host, scripts } => {
            let mut w = Writer::tagged(b'P');
            w.u32(*host).len(scripts.len());
            for (code, path) in scripts {
                w.str(code).str(path);
            }
            w
        }
        Order::Construct {
            host,
            handle,
            info,
            clock,
        } => {
            let mut w = Writer::tagged(b'C');
            w.u32(*host).u64(*handle);
            put_info(&mut w, info);
            w.bool(clock.virtual_time)
                .u64(clock.seed)
                .u64(clock.start_ms);
            w
        }
        Order::Call { handle, hook } => {
            let mut w = Writer::tagged(b'K');
            w.u64(*handle);
            put_hook(&mut w, hook);
            w
        }
        Order::Deliver { id, key, value } => {
            let mut w = Writer::tagged(b'V');
            w.u64(*id).str(key).value(value);
            w
        }
        Order::Work(id) => {
            let mut w = Writer::tagged(b'W');
            w.u64(*id);
            w
        }
        Order::DialogScript(code) => {
            let mut w = Writer::tagged(b'S');
            w.str(code);
            w
        }
        Order::StackLoad {
            handle,
            file,
            class,
            params,
            source,
        } => {
            let mut w = Writer::tagged(b'L');
            w.u64(*handle)
                .str(file)
                .str(class)
                .value(params)
                .str(source);
            w
        }
        Order::StackHook { handle, name, args } => {
            let mut w = Writer::tagged(b'B');
            w.u64(*handle).str(name).values(args);
            w
        }
    }
}

fn decode_order(tag: u8, r: &mut Reader<'_>) -> Result<Order, WireError> {
    Ok(match tag {
        b'H' => Order::NewHost(HostOptions {
            behavior_path: r.str()?,
            package_uid: r.str()?,
            behavior_relative_path: r.str()?,
            robot_root: r.opt_str()?,
        }),
        b'P' => {
            let host = r.u32()?;
            let n = r.count(8)?;
            let scripts = (0..n)
                .map(|_| Ok((r.str()?, r.str()?)))
                .collect::<Result<_, WireError>>()?;
            Order::Prepare { host, scripts }
        }
        b'C' => Order::Construct {
            host: r.u32()?,
            handle: r.u64()?,
            info: get_info(r)?,
            clock: ClockFacts {
                virtual_time: r.bool()?,
                seed: r.u64()?,
                start_ms: r.u64()?,
            },
        },
        b'K' => Order::Call {
            handle: r.u64()?,
            hook: get_hook(r)?,
        },
        b'V' => Order::Deliver {
            id: r.u64()?,
            key: r.str()?,
            value: r.value()?,
        },
        b'W' => Order::Work(r.u64()?),
        b'S' => Order::DialogScript(r.str()?),
        b'L' => Order::StackLoad {
            handle: r.u64()?,
            file: r.str()?,
            class: r.str()?,
            params: r.value()?,
            source: r.str()?,
        },
        b'B' => Order::StackHook {
            handle: r.u64()?,
            name: r.str()?,
            args: r.values()?,
        },
        t => return Err(WireError(format!("no order has tag {t}"))),
    })
}

fn put_info(w: &mut Writer, info: &BoxInfo) {
    w.u32(info.id)
        .str(&info.path)
        .str(&info.name)
        .opt_u64(info.parent.map(u64::from))
        .bool(info.has_resources)
        .strs(&info.inputs)
        .strs(&info.outputs)
        .strs(&info.parameters)
        .i64(info.end_frame)
        .str(&info.code);
}

fn get_info(r: &mut Reader<'_>) -> Result<BoxInfo, WireError> {
    Ok(BoxInfo {
        id: r.u32()?,
        path: r.str()?,
        name: r.str()?,
        parent: r
            .opt_u64()?
            .map(|p| u32::try_from(p).map_err(|_| WireError("a parent past u32".into())))
            .transpose()?,
        has_resources: r.bool()?,
        inputs: r.strs()?,
        outputs: r.strs()?,
        parameters: r.strs()?,
        end_frame: r.i64()?,
        code: r.str()?,
    })
}

fn put_hook(w: &mut Writer, hook: &Hook) {
    match hook {
        Hook::Load => w.u8(0),
        Hook::Unload => w.u8(1),
        Hook::Input { name, value } => w.u8(2).str(name).value(value),
        Hook::ResourceLost => w.u8(3),
        Hook::ResourceError => w.u8(4),
        Hook::Resource { name } => w.u8(5).str(name),
    };
}

fn get_hook(r: &mut Reader<'_>) -> Result<Hook, WireError> {
    Ok(match r.u8()? {
        0 => Hook::Load,
        1 => Hook::Unload,
        2 => Hook::Input {
            name: r.str()?.into(),
            value: r.value()?,
        },
        3 => Hook::ResourceLost,
        4 => Hook::ResourceError,
        5 => Hook::Resource { name: r.str()? },
        t => return Err(WireError(format!("no hook has tag {t}"))),
    })
}

fn encode_answer(a: &Answer) -> Writer {
    let mut w = Writer::tagged(b'A');
    match a {
        Answer::Done => {
            w.u8(0);
        }
        Answer::Bool(b) => {
            w.u8(1).bool(*b);
        }
        Answer::Number(n) => {
            w.u8(2).u64(*n);
        }
        Answer::MaybeNumber(n) => {
            w.u8(3).opt_u64(*n);
        }
        Answer::MaybeValue(v) => {
            w.u8(4);
            match v {
                Some(v) => w.u8(1).value(v),
                None => w.u8(0),
            };
        }
        Answer::MaybeText(t) => {
            w.u8(5).opt_str(t.as_deref());
        }
        Answer::Unit(r) => {
            w.u8(6).opt_str(r.as_ref().err().map(String::as_str));
        }
        Answer::Robot(r) => {
            w.u8(7);
            match r {
                Ok(v) => w.u8(0).value(v),
                Err(e) => super::request::put_robot_error(w.u8(1), e),
            };
        }
        Answer::Constructed(has_script, optional) => {
            w.u8(8).bool(*has_script).strs(optional);
        }
        Answer::Script(r) => {
            w.u8(9);
            match r {
                Ok(()) => w.u8(0),
                Err(e) => w.u8(1).str(&e.message).opt_u64(e.line.map(u64::from)),
            };
        }
        Answer::Printed(r) => {
            match r {
                Ok(text) => w.u8(10).u8(0).str(text),
                Err(e) => w.u8(10).u8(1).str(e),
            };
        }
        Answer::Stack(a) => super::stack_wire::put_answer(w.u8(11), a),
    }
    w
}

fn decode_answer(r: &mut Reader<'_>) -> Result<Answer, WireError> {
    Ok(match r.u8()? {
        0 => Answer::Done,
        1 => Answer::Bool(r.bool()?),
        2 => Answer::Number(r.u64()?),
        3 => Answer::MaybeNumber(r.opt_u64()?),
        4 => Answer::MaybeValue(if r.bool()? { Some(r.value()?) } else { None }),
        5 => Answer::MaybeText(r.opt_str()?),
        6 => Answer::Unit(match r.opt_str()? {
            None => Ok(()),
            Some(e) => Err(e),
        }),
        7 => Answer::Robot(if r.bool()? {
            Err(super::request::get_robot_error(r)?)
        } else {
            Ok(r.value()?)
        }),
        8 => Answer::Constructed(r.bool()?, r.strs()?),
        9 => Answer::Script(if r.bool()? {
            let message = r.str()?;
            let line = r.opt_u64()?.map(|l| u32::try_from(l).unwrap_or(u32::MAX));
            Err(ScriptError { message, line })
        } else {
            Ok(())
        }),
        10 => Answer::Printed(if r.bool()? {
            Err(r.str()?)
        } else {
            Ok(r.str()?)
        }),
        11 => Answer::Stack(super::stack_wire::get_answer(r)?),
        t => return Err(WireError(format!("no answer has tag {t}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::{Declared, HookRequest, Hooked, State};

    #[test]
    fn every_kind_of_order_and_answer_reads_back_and_a_cut_one_is_refused() {
        let messages = [
            Message::Order(Order::NewHost(HostOptions::default())),
            Message::Order(Order::Prepare {
                host: 3,
                scripts: vec![("pass".into(), "root/B".into())],
            }),
            Message::Order(Order::Deliver {
                id: 9,
                key: "k".into(),
                value: Value::None,
            }),
            Message::Order(Order::Work(7)),
            Message::Order(Order::DialogScript("print 1+2\n".into())),
            Message::Answer(Answer::Done),
            Message::Answer(Answer::Bool(true)),
            Message::Answer(Answer::Number(u64::MAX)),
            Message::Answer(Answer::MaybeNumber(None)),
            Message::Answer(Answer::MaybeValue(Some(Value::None))),
            Message::Answer(Answer::MaybeText(Some("é".into()))),
            Message::Answer(Answer::Unit(Err("no".into()))),
            Message::Answer(Answer::Robot(Ok(Value::None))),
            Message::Answer(Answer::Constructed(true, vec!["onResource".into()])),
            Message::Answer(Answer::Script(Err(ScriptError::new("boom")))),
            Message::Answer(Answer::Printed(Ok("3".into()))),
            Message::Answer(Answer::Printed(Err("ValueError: no".into()))),
            Message::Order(Order::StackLoad {
                handle: 4,
                file: "stack/a.py".into(),
                class: "A".into(),
                params: Value::Map(vec![(Value::String("n".into()), Value::Int(2))]),
                source: "class A: pass\n".into(),
            }),
            Message::Order(Order::StackHook {
                handle: 4,
                name: "update".into(),
                args: vec![Value::Int(1)],
            }),
            Message::Request(Request::Stack(HookRequest::Run(
                "ALTextToSpeech".into(),
                "say".into(),
                vec![Value::String("hi".into())],
                Some(3),
            ))),
            Message::Request(Request::Stack(HookRequest::CancelSelf(Some("no".into())))),
            Message::Request(Request::Stack(HookRequest::State)),
            Message::Answer(Answer::Stack(HookAnswer::State(State {
                tick: 7,
                now: 0.25,
                activated: true,
                delegated: false,
                can_delegate: true,
                inputs: vec![("touched".into(), Value::Bool(true))],
            }))),
            Message::Answer(Answer::Stack(HookAnswer::Loaded(Ok(Declared {
                delegates: vec!["B".into()],
                linked: Vec::new(),
                always_delegates: false,
                subscriptions: vec!["k".into()],
            })))),
            Message::Answer(Answer::Stack(HookAnswer::Hooked(Hooked::Missing))),
            Message::Answer(Answer::Stack(HookAnswer::Hooked(Hooked::Returned(
                Value::Float(1.5),
            )))),
            Message::Answer(Answer::Stack(HookAnswer::Value(Err("no robot".into())))),
        ];
        for m in messages {
            let bytes = m.encode();
            assert_eq!(Message::decode(&bytes), Ok(m.clone()));
            assert!(Message::decode(&bytes[..bytes.len() - 1]).is_err(), "{m:?}");
        }
    }
}
