//! The trace as a whole: what is kept, who hears what, in which order, from which thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::*;
use crate::trace::buffer::BUFFER;
use choreo_base::Value;

type Seen = Arc<Mutex<Vec<(u64, String)>>>;

/// A listener noting `(seq, short form)` of every event, and what it noted.
fn collector() -> (Listener, Seen) {
    let seen: Seen = Arc::default();
    let s = Arc::clone(&seen);
    let listener: Listener = Arc::new(move |e: &Event| {
        choreo_base::lock(&s).push((e.seq, e.short()));
    });
    (listener, seen)
}

fn seen(s: &Seen) -> Vec<(u64, String)> {
    choreo_base::lock(s).clone()
}

fn seqs(s: &Seen) -> Vec<u64> {
    seen(s).into_iter().map(|(seq, _)| seq).collect()
}

/// Records frames `from..to` as behavior-level events (no allocation for the path).
fn frames(t: &Trace, from: usize, to: usize) {
    for i in from..to {
        t.record(
            Time(i as u64),
            "",
            Step::Frame {
                frame: i64::try_from(i).unwrap_or(i64::MAX),
            },
        );
    }
}

/// A writer into memory that the test can still read.
#[derive(Clone, Default)]
struct Memory(Arc<Mutex<Vec<u8>>>);

impl Write for Memory {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Memory {
    /// The `seq` of each line written, and the lines.
    fn lines(&self) -> Vec<(u64, String)> {
        let bytes = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|line| {
                let seq = serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64))
                    .unwrap_or(u64::MAX);
                (seq, line.to_string())
            })
            .collect()
    }
}

#[test]
fn an_unkept_trace_announces_every_event_in_order_and_keeps_none() {
    let t = Trace::unkept(None);
    let (listener, s) = collector();
    t.set_listener(listener);
    t.record(Time(1), "a", Step::New);
    t.record(Time(2), "b", Step::Del);
    assert!(t.events().is_empty());
    assert_eq!(t.len(), 2);
    assert_eq!(t.dropped(), 2);
    assert_eq!(
        seen(&s),
        vec![(0, "a new".to_string()), (1, "b del".to_string())]
    );
}

#[test]
fn a_small_ring_keeps_the_last_events_with_their_numbers() {
    let t = Trace::keeping(3);
    frames(&t, 0, 10);
    let events = t.events();
    let kept: Vec<(u64, String)> = events.iter().map(|e| (e.seq, e.short())).collect();
    assert_eq!(
        kept,
        vec![
            (7, "frame 7".to_string()),
            (8, "frame 8".to_string()),
            (9, "frame 9".to_string())
        ]
    );
    assert_eq!(t.len(), 10);
    assert_eq!(t.dropped(), 7);
    // Its 3 records, and at most two chunks (of 3) beside them.
    assert!(t.record_bytes() <= (3 + 2 * 3) * std::mem::size_of::<Record>());
}

/// A buffering thread appends its records a batch at a time: the ring keeps the same tail,
/// numbered the same, as one record at a time would (a batch larger than the ring, batches
/// that overflow it, a ring keeping nothing).
#[test]
fn a_buffered_batch_keeps_what_single_records_would() {
    for (keep, batches) in [
        (3, vec![10]),
        (5, vec![4, 4, 1]),
        (0, vec![6]),
        (8, vec![2, 3]),
    ] {
        let t = Trace::keeping(keep);
        t.buffer_on_this_thread();
        let mut from = 0;
        for n in batches {
            frames(&t, from, from + n);
            flush_thread_buffer();
            from += n;
        }
        BUFFER.with(|b| *b.borrow_mut() = None);
        let seqs: Vec<u64> = t.events().iter().map(|e| e.seq).collect();
        let first = from.saturating_sub(keep) as u64;
        assert_eq!(
            seqs,
            (first..from as u64).collect::<Vec<_>>(),
            "keep {keep}"
        );
        assert!(t.events().iter().all(|e| e.step
            == Step::Frame {
                frame: e.seq as i64
            }));
        assert_eq!((t.len(), t.dropped()), (from, first));
        assert!(t.record_bytes() <= 3 * keep * std::mem::size_of::<Record>());
    }
}

#[test]
fn the_default_ring_keeps_the_last_default_keep_events() {
    let t = Trace::new();
    frames(&t, 0, 100);
    assert_eq!((t.events().len(), t.dropped()), (100, 0));
    frames(&t, 100, DEFAULT_KEEP + 5);
    let events = t.events();
    assert_eq!(events.len(), DEFAULT_KEEP);
    assert_eq!(t.len(), DEFAULT_KEEP + 5);
    assert_eq!(t.dropped(), 5);
    assert_eq!(
        events.first().map(|e| (e.seq, e.short())),
        Some((5, "frame 5".into()))
    );
    let last = (DEFAULT_KEEP + 4) as u64;
    assert_eq!(events.last().map(|e| e.seq), Some(last));
    assert!(events.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    assert!(events.iter().all(|e| e.step
        == Step::Frame {
            frame: e.seq as i64
        }));
    // The ring grew to its size, and no further than two chunks of 4,096 beside it.
    let bytes = t.record_bytes();
    let record = std::mem::size_of::<Record>();
    assert!(
        (DEFAULT_KEEP * record..=(DEFAULT_KEEP + 2 * 4096) * record).contains(&bytes),
        "{bytes} bytes"
    );
    let d = Trace::default();
    frames(&d, 0, DEFAULT_KEEP + 1);
    assert_eq!(d.dropped(), 1);
}

#[test]
fn keep_all_keeps_every_event() {
    let t = Trace::keep_all();
    frames(&t, 0, DEFAULT_KEEP + 10);
    let events = t.events();
    assert_eq!(events.len(), DEFAULT_KEEP + 10);
    assert_eq!(t.dropped(), 0);
    assert!(events.iter().enumerate().all(|(i, e)| e.seq == i as u64));
}

#[test]
fn keeping_nothing_still_tells_every_listener_everything() {
    let t = Trace::keeping(0);
    let (listener, s) = collector();
    t.add_listener(listener);
    frames(&t, 0, 5);
    assert!(t.events().is_empty());
    assert_eq!((t.len(), t.dropped(), t.record_bytes()), (5, 5, 0));
    assert_eq!(seqs(&s), vec![0, 1, 2, 3, 4]);
}

#[test]
fn every_listener_gets_every_event_until_it_is_removed() {
    let t = Trace::new();
    let (la, a) = collector();
    let (lb, b) = collector();
    let (lc, c) = collector();
    t.add_listener(la);
    let idb = t.add_listener(lb);
    let idc = t.set_listener(lc);
    assert_ne!(idb, idc);
    frames(&t, 0, 2);
    t.remove_listener(idb);
    frames(&t, 2, 4);
    // Removing it again, or removing nothing, changes nothing.
    t.remove_listener(idb);
    frames(&t, 4, 5);
    assert_eq!(seqs(&a), vec![0, 1, 2, 3, 4]);
    assert_eq!(seqs(&b), vec![0, 1]);
    assert_eq!(seqs(&c), vec![0, 1, 2, 3, 4]);
    assert_eq!(seen(&a).get(3).map(|e| e.1.clone()), Some("frame 3".into()));
}

#[test]
fn a_listener_may_read_the_trace_and_record_into_it() {
    let out = Memory::default();
    let t = Trace::with_writer(Box::new(out.clone()));
    let read = Arc::new(Mutex::new(Vec::new()));
    let id = {
        let t2 = t.clone();
        let read = Arc::clone(&read);
        t.add_listener(Arc::new(move |e: &Event| {
            if e.path == "a" {
                let flushed = t2.flush_writer().is_ok();
                choreo_base::lock(&read).push((t2.len(), t2.events().len(), flushed));
                t2.record(Time(e.time_ns), "echo", Step::New);
            }
        }))
    };
    let (listener, s) = collector();
    t.add_listener(listener);
    t.record(Time(1), "a", Step::New);
    t.record(Time(2), "b", Step::New);
    t.remove_listener(id);
    let expected = vec![
        (0, "a new".to_string()),
        (1, "echo new".to_string()),
        (2, "b new".to_string()),
    ];
    assert_eq!(seen(&s), expected);
    assert_eq!(*choreo_base::lock(&read), vec![(1, 1, true)]);
    assert_eq!(t.events().len(), 3);
    let written: Vec<u64> = out.lines().into_iter().map(|(seq, _)| seq).collect();
    assert_eq!(written, vec![0, 1, 2]);
}

#[test]
fn a_listener_recording_on_a_buffering_thread_is_delivered_too() {
    let t = Trace::new();
    let id = {
        let t2 = t.clone();
        t.add_listener(Arc::new(move |e: &Event| {
            if e.path == "a" {
                t2.record(Time(e.time_ns), "echo", Step::New);
            }
        }))
    };
    let (listener, s) = collector();
    t.add_listener(listener);
    t.buffer_on_this_thread();
    t.record(Time(1), "a", Step::New);
    t.record(Time(2), "b", Step::New);
    // Buffered: nothing appended yet.
    assert_eq!(t.len(), 0);
    flush_thread_buffer();
    assert_eq!(
        seen(&s),
        vec![
            (0, "a new".to_string()),
            (1, "b new".to_string()),
            (2, "echo new".to_string())
        ]
    );
    assert_eq!(t.len(), 3);
    BUFFER.with(|b| *b.borrow_mut() = None);
    t.remove_listener(id);
}

#[test]
fn threads_recording_at_once_are_announced_in_order_one_at_a_time() {
    const THREADS: usize = 4;
    const EACH: usize = 10_000;
    const PATHS: [&str; THREADS] = ["t0", "t1", "t2", "t3"];
    struct Check {
        next: u64,
        last: [i64; THREADS],
        wrong: Vec<String>,
    }
    let out = Memory::default();
    let t = Trace::with_writer(Box::new(out.clone()));
    let check = Arc::new(Mutex::new(Check {
        next: 0,
        last: [-1; THREADS],
        wrong: Vec::new(),
    }));
    let inside = Arc::new(AtomicBool::new(false));
    {
        let check = Arc::clone(&check);
        let inside = Arc::clone(&inside);
        t.add_listener(Arc::new(move |e: &Event| {
            let mut c = choreo_base::lock(&check);
            if inside.swap(true, Ordering::SeqCst) {
                c.wrong
                    .push(format!("{}: two listener calls at once", e.seq));
            }
            if e.seq != c.next {
                let msg = format!("got seq {} for {}", e.seq, c.next);
                c.wrong.push(msg);
            }
            c.next = e.seq + 1;
            let k = PATHS.iter().position(|p| *p == e.path);
            match (k, &e.step) {
                (Some(k), Step::Frame { frame }) if *frame == c.last[k] + 1 => {
                    c.last[k] = *frame;
                }
                _ => {
                    let msg = format!("{}: out of order {}", e.seq, e.short());
                    c.wrong.push(msg);
                }
            }
            if e.seq.is_multiple_of(500) {
                std::thread::yield_now();
            }
            inside.store(false, Ordering::SeqCst);
        }));
    }
    let (listener, s) = collector();
    t.add_listener(listener);
    std::thread::scope(|scope| {
        for path in PATHS {
            let t = t.clone();
            scope.spawn(move || {
                for i in 0..EACH {
                    t.record(
                        Time(i as u64),
                        path,
                        Step::Frame {
                            frame: i64::try_from(i).unwrap_or(i64::MAX),
                        },
                    );
                }
            });
        }
    });
    let total = (THREADS * EACH) as u64;
    // Every thread returned from `record` only once its events were announced.
    let c = choreo_base::lock(&check);
    assert_eq!(c.wrong, Vec::<String>::new());
    assert_eq!(c.next, total);
    assert_eq!(c.last, [EACH as i64 - 1; THREADS]);
    drop(c);
    assert_eq!(seqs(&s), (0..total).collect::<Vec<u64>>());
    let written: Vec<u64> = out.lines().into_iter().map(|(seq, _)| seq).collect();
    assert_eq!(written, (0..total).collect::<Vec<u64>>());
    assert_eq!(t.len(), THREADS * EACH);
    assert_eq!(t.events().len(), THREADS * EACH);
}

#[test]
fn a_panicking_listener_is_removed_and_the_others_still_hear() {
    let t = Trace::new();
    let (la, a) = collector();
    let (lc, c) = collector();
    let calls = Arc::new(AtomicUsize::new(0));
    t.add_listener(la);
    {
        let calls = Arc::clone(&calls);
        t.add_listener(Arc::new(move |e: &Event| {
            calls.fetch_add(1, Ordering::SeqCst);
            assert!(e.seq != 1, "this listener fails on event 1");
        }));
    }
    t.add_listener(lc);
    frames(&t, 0, 4);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(seqs(&a), vec![0, 1, 2, 3]);
    assert_eq!(seqs(&c), vec![0, 1, 2, 3]);
    assert!(!t.shared.inner.is_poisoned());
    assert_eq!(t.lock().listeners.all().len(), 2);
    // Still usable from another thread.
    std::thread::scope(|scope| {
        scope.spawn(|| frames(&t, 4, 6));
    });
    assert_eq!(seqs(&c), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(t.events().len(), 6);
}

fn graph(root: &str, input: &str) -> Arc<Graph> {
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="{root}" id="-1"><Input name="{input}" type="1" type_size="1" nature="2" inner="0" id="1"/></Box></ChoregrapheProject>"#
    );
    match choreo_xar::read_xar("t.xar", xml.as_bytes()) {
        Ok(x) => Arc::new(Graph::new(&x.value)),
        Err(e) => panic!("test behavior does not read: {e}"),
    }
}

#[test]
fn rebinding_resolves_the_kept_tail_with_its_own_numbers() {
    let t = Trace::keeping(2);
    t.bind(graph("first", "go"));
    for i in 0..3 {
        t.record_box(Time(i), Graph::ROOT, Compact::Call(HookRef::Input(0)));
    }
    t.bind(graph("second", "run"));
    t.record_box(Time(3), Graph::ROOT, Compact::Call(HookRef::Input(0)));
    let kept: Vec<(u64, String)> = t.events().iter().map(|e| (e.seq, e.short())).collect();
    assert_eq!(
        kept,
        vec![
            (2, "first call onInput_go".into()),
            (3, "second call onInput_run".into())
        ]
    );
    assert_eq!(t.dropped(), 2);
}

/// The engine's own records (through its handle) and what other code on its thread records
/// (through the trace) go into one buffer: they keep the order they were made in.
#[test]
fn the_handle_and_the_thread_record_into_one_buffer_in_order() {
    let t = Trace::keep_all();
    t.bind(graph("root", "go"));
    let log = t.buffer_on_this_thread();
    let none = Value::None;
    let text = Value::String("hello".into());
    for i in 0..3 {
        log.record_box(Time(i), Graph::ROOT, Compact::In(0, &none));
        t.record(Time(i), "box code", Step::New);
        log.record_box(Time(i), Graph::ROOT, Compact::In(0, &text));
    }
    assert_eq!(t.len(), 0, "buffered");
    flush_thread_buffer();
    let got: Vec<String> = t.events().iter().map(Event::short).collect();
    let round = ["root in go None", "box code new", "root in go \"hello\""];
    let want: Vec<String> = (0..3)
        .flat_map(|_| round.iter().map(|s| (*s).to_string()))
        .collect();
    assert_eq!(got, want);
    BUFFER.with(|b| *b.borrow_mut() = None);
}
