//! libqicore's `qi::File`, served from bytes in memory: what a client passes as an `o` to
//! a method taking a file (NAOqi 2.5+'s `PackageManager.install(o)`), which the receiver
//! reads back over the client's socket.
//!
//! The object answers as libqicore's file does (NAOqi 2.5 and later): `read(offset,
//! count)`, `read(count)` from the cursor, `seek(offset)` (false at or past the end),
//! `close()`, `size()`, `isOpen()`, `isRemote()` (false: the bytes are here), and
//! `operationProgress()`, the file's `ProgressNotifier`; and the deprecated `_read`,
//! `_seek`, `_close` older receivers call. A read of more than [`MAX_READ_SIZE`] bytes is
//! an error; a read at the end gives no bytes; a closed file refuses everything but
//! `size()` (0 then), `isOpen()`, `isRemote()` and `operationProgress()`.
//!
//! The receiver (libqicore's `copyToLocal`) calls `size()`, `operationProgress()`, then
//! `read(offset, 512 KiB)` until it has every byte, and drives the notifier: `reset()`,
//! `notifyRunning()`, `notifyProgressed(fraction)` after each read, `notifyFinished()` (or
//! `notifyFailed()`, `notifyCanceled()`; older receivers the `_`-prefixed names). The
//! notifier keeps that state in its `status` (0 idle, 1 running, 2 finished, 3 failed, 4
//! canceled) and `progress` properties, and [`FileObject::observed`] reports each change.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use choreo_base::Value;
use choreo_base::lock;

use crate::error::Error;
use crate::server::object::{MethodError, ObjectBuilder, Out, ServedObject};
use crate::session::arg::Arg;

/// The most bytes one read may ask for (libqicore's `File::MAX_READ_SIZE`).
pub const MAX_READ_SIZE: i64 = 1_000_000;

/// Where a transfer stands, as the receiver says through the notifier (libqicore's
/// `ProgressNotifier::Status`, sent as an int).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferStatus {
    /// Not started (0).
    Idle,
    /// Under way (1).
    Running,
    /// Every byte arrived (2).
    Finished,
    /// The receiver gave up (3).
    Failed,
    /// The receiver canceled it (4).
    Canceled,
}

impl TransferStatus {
    /// The int libqicore sends for it.
    pub fn code(self) -> i64 {
        match self {
            TransferStatus::Idle => 0,
            TransferStatus::Running => 1,
            TransferStatus::Finished => 2,
            TransferStatus::Failed => 3,
            TransferStatus::Canceled => 4,
        }
    }

    /// Whether the transfer is over (finished, failed or canceled).
    pub fn is_over(self) -> bool {
        matches!(
            self,
            TransferStatus::Finished | TransferStatus::Failed | TransferStatus::Canceled
        )
    }
}

/// A transfer's progress: what the receiver notified, and how far it has read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// The status the receiver set.
    pub status: TransferStatus,
    /// The fraction (0 to 1) the receiver notified last.
    pub fraction: f64,
    /// The end of the furthest read served so far, in bytes.
    pub bytes_read: u64,
    /// The file's size in bytes.
    pub size: u64,
}

/// Receives each change of a transfer's [`Progress`] (on a socket's threads: keep it short).
pub type ProgressObserver = Arc<dyn Fn(&Progress) + Send + Sync>;

struct Cursor {
    position: u64,
    open: bool,
}

struct State {
    bytes: Vec<u8>,
    cursor: Mutex<Cursor>,
    progress: Mutex<Progress>,
    changed: Condvar,
    /// The [`FileObject`] was dropped: `waitForFinished` stops waiting.
    abandoned: AtomicBool,
    bytes_read: AtomicU64,
    observer: Option<ProgressObserver>,
    /// The notifier object, to keep its properties in step.
    notifier: OnceLock<Weak<ServedObject>>,
}

impl State {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn snapshot(&self) -> Progress {
        let mut p = *lock(&self.progress);
        p.bytes_read = self.bytes_read.load(Ordering::SeqCst);
        p
    }

    /// Applies `change` to the progress, mirrors it in the notifier's properties, wakes
    /// `waitForFinished` and tells the observer (of a change only).
    fn update(&self, change: impl FnOnce(&mut Progress)) {
        let (before, after) = {
            let mut p = lock(&self.progress);
            let before = *p;
            change(&mut p);
            (before, *p)
        };
        self.changed.notify_all();
        let status = before.status != after.status;
        let fraction = before.fraction.to_bits() != after.fraction.to_bits();
        if let Some(notifier) = self.notifier.get().and_then(Weak::upgrade) {
            if status {
                let _ = notifier.set_property("status", Value::Int(after.status.code()));
            }
            if fraction {
                let _ = notifier.set_property("progress", Value::Float(after.fraction));
            }
        }
        if status || fraction {
            self.observe();
        }
    }

    fn observe(&self) {
        if let Some(observer) = &self.observer {
            observer(&self.snapshot());
        }
    }

    fn require_open(&self) -> Result<MutexGuard<'_, Cursor>, MethodError> {
        let cursor = lock(&self.cursor);
        if cursor.open {
            Ok(cursor)
        } else {
            Err("Trying to manipulate a closed file access.".into())
        }
    }

    fn seek(&self, offset: i64) -> Result<bool, MethodError> {
        let mut cursor = self.require_open()?;
        match u64::try_from(offset) {
            Ok(at) if at < self.size() => {
                cursor.position = at;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn read(&self, count: i64) -> Result<Vec<u8>, MethodError> {
        let mut cursor = self.require_open()?;
        if count > MAX_READ_SIZE {
            return Err("Tried to read too much data at once.".into());
        }
        let count = u64::try_from(count).unwrap_or(0);
        let start = cursor.position.min(self.size());
        let end = start.saturating_add(count).min(self.size());
        cursor.position = end;
        drop(cursor);
        // `end` and `start` are within the bytes, whose length is a usize.
        let chunk = self
            .bytes
            .get(start as usize..end as usize)
            .unwrap_or_default()
            .to_vec();
        if self.bytes_read.fetch_max(end, Ordering::SeqCst) < end {
            self.observe();
        }
        Ok(chunk)
    }

    fn read_at(&self, offset: i64, count: i64) -> Result<Vec<u8>, MethodError> {
        if self.seek(offset)? {
            self.read(count)
        } else {
            Ok(Vec::new())
        }
    }

    fn close(&self) {
        lock(&self.cursor).open = false;
    }

    /// Waits until the transfer is over or the file abandoned.
    fn wait_finished(&self) {
        let mut p = lock(&self.progress);
        while !p.status.is_over() && !self.abandoned.load(Ordering::SeqCst) {
            p = self
                .changed
                .wait_timeout(p, Duration::from_millis(200))
                .map_or_else(|e| e.into_inner().0, |(g, _)| g);
        }
    }
}

fn int_arg(args: &[Value], i: usize) -> Result<i64, MethodError> {
    match args.get(i) {
        Some(Value::Int(n)) => Ok(*n),
        Some(Value::UInt(n)) => i64::try_from(*n).map_err(|_| format!("{n} is too large").into()),
        other => Err(format!("expected an integer, got {other:?}").into()),
    }
}

fn float_arg(args: &[Value], i: usize) -> Result<f64, MethodError> {
    match args.get(i) {
        Some(Value::Float(x)) => Ok(*x),
        Some(Value::Int(n)) => Ok(*n as f64),
        other => Err(format!("expected a number, got {other:?}").into()),
    }
}

fn none() -> Result<Out, MethodError> {
    Ok(Out::Value(Value::None))
}

/// libqicore's ProgressNotifier for `state`'s transfer: its members in libqicore's order,
/// then the deprecated `_` names.
fn notifier(state: &Arc<State>) -> Result<Arc<ServedObject>, Error> {
    let set = |status: TransferStatus| {
        let s = Arc::clone(state);
        move |_: Vec<Value>| {
            s.update(|p| p.status = status);
            none()
        }
    };
    let progressed = || {
        let s = Arc::clone(state);
        move |a: Vec<Value>| {
            let fraction = float_arg(&a, 0)?;
            s.update(|p| p.fraction = fraction);
            none()
        }
    };
    let reset = || {
        let s = Arc::clone(state);
        move |_: Vec<Value>| {
            s.update(|p| {
                p.status = TransferStatus::Idle;
                p.fraction = 0.0;
            });
            none()
        }
    };
    let waiter = Arc::clone(state);
    let running = Arc::clone(state);
    let object = ObjectBuilder::new("ProgressNotifier")
        .method_inline("notifyRunning", "()", "v", set(TransferStatus::Running))
        .method_inline("notifyFinished", "()", "v", set(TransferStatus::Finished))
        .method_inline("notifyCanceled", "()", "v", set(TransferStatus::Canceled))
        .method_inline("notifyFailed", "()", "v", set(TransferStatus::Failed))
        .method_inline("notifyProgressed", "(d)", "v", progressed())
        .method("waitForFinished", "()", "v", move |_| {
            waiter.wait_finished();
            none()
        })
        .method_inline("isRunning", "()", "b", move |_| {
            Ok(Out::Value(Value::Bool(
                lock(&running.progress).status == TransferStatus::Running,
            )))
        })
        .method_inline("reset", "()", "v", reset())
        .property("progress", "d", Value::Float(0.0))
        .property("status", "i", Value::Int(TransferStatus::Idle.code()))
        .method_inline("_reset", "()", "v", reset())
        .method_inline("_notifyRunning", "()", "v", set(TransferStatus::Running))
        .method_inline("_notifyFinished", "()", "v", set(TransferStatus::Finished))
        .method_inline("_notifyCanceled", "()", "v", set(TransferStatus::Canceled))
        .method_inline("_notifyFailed", "()", "v", set(TransferStatus::Failed))
        .method_inline("_notifyProgressed", "(d)", "v", progressed())
        .build()?;
    let _ = state.notifier.set(Arc::downgrade(&object));
    Ok(object)
}

/// A `qi::File` served from memory, with its ProgressNotifier (see the module doc). Pass
/// [`FileObject::arg`] to a call; the receiver reads it back over that call's socket.
pub struct FileObject {
    file: Arc<ServedObject>,
    state: Arc<State>,
}

impl Drop for FileObject {
    fn drop(&mut self) {
        self.state.abandoned.store(true, Ordering::SeqCst);
        self.state.changed.notify_all();
    }
}

impl FileObject {
    /// A file holding `bytes`.
    pub fn new(bytes: Vec<u8>) -> Result<FileObject, Error> {
        FileObject::build(bytes, None)
    }

    /// A file holding `bytes` whose progress changes (notified by the receiver, or reads
    /// reaching further) go to `observer`.
    pub fn observed(
        bytes: Vec<u8>,
        observer: impl Fn(&Progress) + Send + Sync + 'static,
    ) -> Result<FileObject, Error> {
        FileObject::build(bytes, Some(Arc::new(observer)))
    }

    fn build(bytes: Vec<u8>, observer: Option<ProgressObserver>) -> Result<FileObject, Error> {
        let size = bytes.len() as u64;
        let state = Arc::new(State {
            bytes,
            cursor: Mutex::new(Cursor {
                position: 0,
                open: true,
            }),
            progress: Mutex::new(Progress {
                status: TransferStatus::Idle,
                fraction: 0.0,
                bytes_read: 0,
                size,
            }),
            changed: Condvar::new(),
            abandoned: AtomicBool::new(false),
            bytes_read: AtomicU64::new(0),
            observer,
            notifier: OnceLock::new(),
        });
        let notifier = notifier(&state)?;
        let raw = |r: Result<Vec<u8>, MethodError>| r.map(|b| Out::Value(Value::Raw(b)));
        let (s1, s2, s3, s4) = (
            Arc::clone(&state),
            Arc::clone(&state),
            Arc::clone(&state),
            Arc::clone(&state),
        );
        let (s5, s6, s7, s8) = (
            Arc::clone(&state),
            Arc::clone(&state),
            Arc::clone(&state),
            Arc::clone(&state),
        );
        let (s9, s10) = (Arc::clone(&state), Arc::clone(&state));
        let file = ObjectBuilder::new("File")
            .method("read", "(ll)", "r", move |a| {
                raw(s1.read_at(int_arg(&a, 0)?, int_arg(&a, 1)?))
            })
            .method("read", "(l)", "r", move |a| raw(s2.read(int_arg(&a, 0)?)))
            .method_inline("seek", "(l)", "b", move |a| {
                Ok(Out::Value(Value::Bool(s3.seek(int_arg(&a, 0)?)?)))
            })
            .method_inline("close", "()", "v", move |_| {
                s4.close();
                none()
            })
            .method_inline("size", "()", "l", move |_| {
                let open = lock(&s5.cursor).open;
                let size = if open { s5.size() } else { 0 };
                Ok(Out::Value(Value::Int(
                    i64::try_from(size).unwrap_or(i64::MAX),
                )))
            })
            .method_inline("isOpen", "()", "b", move |_| {
                Ok(Out::Value(Value::Bool(lock(&s6.cursor).open)))
            })
            .method_inline("isRemote", "()", "b", |_| {
                Ok(Out::Value(Value::Bool(false)))
            })
            .method_inline("operationProgress", "()", "o", move |_| {
                Ok(Out::Object(Arc::clone(&notifier)))
            })
            .method("_read", "(ll)", "r", move |a| {
                raw(s7.read_at(int_arg(&a, 0)?, int_arg(&a, 1)?))
            })
            .method("_read", "(l)", "r", move |a| raw(s8.read(int_arg(&a, 0)?)))
            .method_inline("_seek", "(l)", "b", move |a| {
                Ok(Out::Value(Value::Bool(s9.seek(int_arg(&a, 0)?)?)))
            })
            .method_inline("_close", "()", "v", move |_| {
                s10.close();
                none()
            })
            .build()?;
        Ok(FileObject { file, state })
    }

    /// The served object (for [`Arg::Object`]).
    pub fn object(&self) -> Arc<ServedObject> {
        Arc::clone(&self.file)
    }

    /// The file as a call's argument.
    pub fn arg(&self) -> Arg {
        Arg::Object(self.object())
    }

    /// The transfer's progress now.
    pub fn progress(&self) -> Progress {
        self.state.snapshot()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.state.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_seeks_and_closes_as_libqicore_does() {
        let f = FileObject::new((0u8..=9).collect()).map_err(|e| e.to_string());
        let Ok(f) = f else {
            panic!("{f:?}", f = f.err());
        };
        let s = &f.state;
        assert_eq!(s.read_at(2, 3), Ok(vec![2, 3, 4]));
        assert_eq!(s.read(2), Ok(vec![5, 6]));
        assert_eq!(s.read(100), Ok(vec![7, 8, 9]));
        assert_eq!(s.read(1), Ok(vec![]));
        assert_eq!(s.read_at(10, 1), Ok(vec![]));
        assert_eq!(s.seek(10), Ok(false));
        assert_eq!(s.seek(-1), Ok(false));
        assert!(s.read(MAX_READ_SIZE + 1).is_err());
        assert_eq!(f.progress().bytes_read, 10);
        s.close();
        assert!(s.read(1).is_err());
        assert!(s.seek(0).is_err());
    }

    #[test]
    fn the_notifier_keeps_the_receivers_state() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let f = FileObject::observed(vec![0; 4], move |p| lock(&log).push((p.status, p.fraction)));
        let Ok(f) = f else {
            panic!("no file");
        };
        let s = &f.state;
        s.update(|p| p.status = TransferStatus::Running);
        s.update(|p| p.fraction = 0.5);
        s.update(|p| p.status = TransferStatus::Finished);
        s.wait_finished();
        let notifier = s.notifier.get().and_then(Weak::upgrade);
        let Some(notifier) = notifier else {
            panic!("no notifier");
        };
        assert_eq!(notifier.property("status"), Some(Value::Int(2)));
        assert_eq!(notifier.property("progress"), Some(Value::Float(0.5)));
        assert_eq!(
            *lock(&seen),
            vec![
                (TransferStatus::Running, 0.0),
                (TransferStatus::Running, 0.5),
                (TransferStatus::Finished, 0.5)
            ]
        );
    }
}
