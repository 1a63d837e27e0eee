//! Python box costs, each side by side with the native-box equivalent in the same run
//! (virtual time, behaviors generated as XAR text):
//!
//! 1. `load`: `Engine::load` of 2,000 boxes in one diagram (then dropping the engine), with
//!    `PythonHost` — every box running a stock-like script of 50 lines (the Say box's shape),
//!    once the same text in every box (stock boxes copied; compiled twice, then reused) and
//!    once a distinct text per box (a first comment line of its own; new texts for every
//!    load, so that each load compiles all of them) — and with `NativeHost` placeholders.
//!    Next to them the compile anchor, the floor of the distinct load: CPython's own
//!    `compile()` of the same 2,000 distinct texts in a loop, the interpreter lock taken once,
//!    no choreo. Target: < 0.5 s for the Python load of distinct scripts.
//! 2. `hop`: a chain of N boxes (N = 1,000): each box's onStart hook fires its output `next`
//!    into the next box's onStart, the last into root's onStopped; timed from `Engine::start`
//!    to `Outcome::Finished`, with a 1-hop baseline (box 1 straight to root.onStopped) so that
//!    net time per hop = (chain − baseline) / (N − 1): the input-to-output round trip
//!    through the engine. Python boxes (`def onInput_onStart(self): self.next()`) against
//!    native boxes on workers (`NativeHost::with`) and inline (`with_inline`). Target: ≤ 5 µs
//!    per Python round trip.
//! 3. `hook`: one Python hook called directly (`BoxCode::call` with a bang, the script
//!    returning at once) against a native one: the cost of entering Python, without the
//!    engine's hand-off to a worker. `python` calls it on the thread that started the
//!    interpreter, `python_other_thread` on another thread, as the engine's workers do.
//! 4. `fixer` (side by side only): the Python-2 fixer on the distinct box scripts of the
//!    shared corpus (skipped with a notice when it is absent): [`fixer::needs_fixing`] on
//!    every script, and [`fixer::fix`] on every script (the quick scan, then the fixer on
//!    those it does not let through), as the host calls it; one pass timed 10 times a round.
//!
//! After criterion, a side-by-side summary (`PYTHON_BENCH_ROUNDS` rounds, default 9, each
//! measuring every variant once, the order rotating from round to round) prints medians and
//! ratios, with the load average at start and end. `PYTHON_BENCH_PARTS` picks parts (`load`,
//! `hop`, `hook`, `fixer`, comma-separated; all by default; `cold`, below), `PYTHON_BENCH_HOSTS` the
//! hop hosts (`python`, `worker`, `inline`). Under `--profile-time` only criterion runs. To
//! compare two builds side by side, run them one round each in turn with a filter that
//! matches no criterion benchmark:
//!
//! ```sh
//! PYTHON_BENCH_ROUNDS=1 PYTHON_BENCH_PARTS=hop target/release/deps/python-* --bench none
//! ```
//!
//! `PYTHON_BENCH_PARTS=cold` (with such a filter) measures a fresh process before anything
//! else runs in it: the interpreter's start, the first load of 2,000 distinct scripts (which
//! sets the runtime up: the shim modules), a second load of other distinct scripts, and the
//! compile anchor of those; run it in a few processes for a range.
//!
//! Run: `cargo bench -p choreo-python --bench python`. Without `--bench` (`cargo test
//! --benches`) sizes are 10× smaller and each routine runs once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::graph::BoxNode;
use choreo_engine::{
    BoxCode, BoxContext, Engine, Hook, NativeHost, Options, Outcome, ScriptError, ScriptHost, Value,
};
use choreo_python::{PythonHost, PythonOptions, fixer};
use choreo_xar::model::XarFile;
use criterion::{BatchSize, Criterion};
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;

#[path = "../tests/support/corpus.rs"]
mod corpus;

const WAIT: Duration = Duration::from_secs(300);

const PORTS: &str = r#"<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/><Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/><Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/><Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/><Output name="next" type="1" type_size="1" nature="2" inner="0" id="5"/>"#;

/// A script shaped like the stock Say box (constructor forms, proxies made in onLoad,
/// post + wait in onStart, stop in onUnload).
const STOCK: &str = r#"import time

class MyClass(GeneratedClass):
    def __init__(self):
        try: # disable autoBind
          GeneratedClass.__init__(self, False)
        except TypeError: # if NAOqi < 1.14
          GeneratedClass.__init__( self )
        self.tts = None
        self.ttsStop = None
        self.bIsRunning = False
        self.ids = []

    def onLoad(self):
        self.tts = ALProxy("ALTextToSpeech")
        self.ttsStop = ALProxy("ALTextToSpeech", True) #Create another proxy as wait is blocking if audioout is remote

    def onUnload(self):
        for id in self.ids:
            try:
                self.ttsStop.stop(id)
            except:
                pass
        while( self.bIsRunning ):
            time.sleep( 0.2 )

    def onInput_onStart(self):
        self.bIsRunning = True
        try:
            sentence = "\RSPD="+ str( self.getParameter("Speed (%)") ) + "\ "
            sentence += "\VCT="+ str( self.getParameter("Voice shaping (%)") ) + "\ "
            sentence += self.getParameter("Text")
            sentence +=  "\RST\ "
            id = self.tts.post.say(str(sentence))
            self.ids.append(id)
            self.tts.wait(id, 0)
        finally:
            try:
                self.ids.remove(id)
            except:
                pass
            if( self.ids == [] ):
                self.onStopped() # activate the output of the box
                self.bIsRunning = False

    def onInput_onStop(self):
        self.onUnload()
        self.bIsRunning = False
        self.onStopped()
"#;

/// The hop box's script.
const HOP: &str =
    "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        self.next()\n";

/// A script whose onStart returns at once.
const NOTHING: &str =
    "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        pass\n";

#[derive(Clone, Copy)]
struct Sizes {
    boxes: i64,
    chain: i64,
    rounds: usize,
}

impl Sizes {
    fn from_args() -> Sizes {
        let rounds = std::env::var("PYTHON_BENCH_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(9);
        if std::env::args().any(|a| a == "--bench") {
            Sizes {
                boxes: 2_000,
                chain: 1_000,
                rounds,
            }
        } else {
            Sizes {
                boxes: 200,
                chain: 100,
                rounds: 1,
            }
        }
    }
}

fn script(code: &str) -> String {
    format!(r#"<script language="4"><content><![CDATA[{code}]]></content></script>"#)
}

fn push_box(out: &mut String, name: &str, id: i64, code: &str) {
    write!(
        out,
        r#"<Box name="{name}" id="{id}">{PORTS}{}</Box>"#,
        script(code)
    )
    .unwrap();
}

fn push_link(out: &mut String, src: i64, src_port: u32, dst: i64, dst_port: u32) {
    write!(
        out,
        r#"<Link inputowner="{dst}" indexofinput="{dst_port}" outputowner="{src}" indexofoutput="{src_port}"/>"#
    )
    .unwrap();
}

fn read(inner: &str) -> XarFile {
    let xml = format!(
        r#"<ChoregrapheProject xar_version="3"><Box name="root" id="-1">{PORTS}<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1"><Diagram>{inner}</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>"#
    );
    choreo_xar::read_xar("bench.xar", xml.as_bytes())
        .expect("the generated behavior reads")
        .value
}

/// `n` texts of the stock script, each its own if `salt` is given (a first comment line;
/// texts differ from those of any other salt: compiled scripts are cached by text in the
/// process).
fn stock_texts(n: i64, salt: Option<usize>) -> Vec<String> {
    (1..=n)
        .map(|i| match salt {
            Some(salt) => format!("# box {i} ({salt})\n{STOCK}"),
            None => STOCK.to_string(),
        })
        .collect()
}

/// `n` boxes running the stock script, each with its own text if `salt` is given.
fn load_xar(n: i64, salt: Option<usize>) -> XarFile {
    let mut d = String::new();
    for (i, code) in (1..).zip(stock_texts(n, salt)) {
        push_box(&mut d, "Say", i, &code);
    }
    read(&d)
}

/// A salt not used before in this process.
fn fresh_salt() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `n` hop boxes chained (`linked`), or only box 1 → root.onStopped.
fn chain_xar(n: i64, linked: bool) -> XarFile {
    let mut d = String::new();
    for i in 1..=n {
        push_box(&mut d, "hop", i, HOP);
    }
    push_link(&mut d, 0, 2, 1, 2);
    if linked {
        for i in 1..n {
            push_link(&mut d, i, 5, i + 1, 2);
        }
        push_link(&mut d, n, 5, 0, 4);
    } else {
        push_link(&mut d, 1, 5, 0, 4);
    }
    read(&d)
}

fn python() -> PythonHost {
    PythonHost::new(PythonOptions::default())
}

/// Native hop boxes, inline or on workers.
fn native_hops(inline: bool) -> NativeHost {
    let hop = |hook: &Hook, ctx: &BoxContext| {
        if matches!(hook, Hook::Input { name, .. } if name == "onStart") {
            ctx.fire("next", Value::None)?;
        }
        Ok(())
    };
    if inline {
        NativeHost::new().with_inline("hop", hop)
    } else {
        NativeHost::new().with("hop", hop)
    }
}

fn virtual_time() -> Options {
    Options {
        virtual_time: true,
        ..Default::default()
    }
}

/// Load (and drop) time of `x` with `host`.
fn time_load(x: &XarFile, host: &dyn ScriptHost) -> Duration {
    let t = Instant::now();
    let engine = Engine::load(x, host, virtual_time()).expect("loads");
    drop(engine);
    t.elapsed()
}

/// The compile floor: CPython's own `compile()` of `texts` in a loop (the flags choreo
/// uses, the interpreter lock taken once), without choreo.
fn time_compile(texts: &[String]) -> Duration {
    Python::attach(|py| {
        let compile = py.import("builtins").unwrap().getattr("compile").unwrap();
        let kwargs = [("dont_inherit", true)].into_py_dict(py).unwrap();
        let t = Instant::now();
        for text in texts {
            compile
                .call((text.as_str(), "root/Say", "exec"), Some(&kwargs))
                .unwrap();
        }
        t.elapsed()
    })
}

/// Start → finished of `x` with `host` (load not timed).
fn time_run(x: &XarFile, host: &dyn ScriptHost) -> Duration {
    let engine = Engine::load(x, host, virtual_time()).expect("loads");
    let t = Instant::now();
    engine.start();
    assert_eq!(engine.wait(WAIT), Outcome::Finished);
    let d = t.elapsed();
    drop(engine);
    d
}

/// A host that keeps the code and context of the box named `hop` (to call its hook
/// directly).
struct Keep<'a> {
    host: &'a dyn ScriptHost,
    kept: Mutex<Option<(Arc<dyn BoxCode>, BoxContext)>>,
}

impl ScriptHost for Keep<'_> {
    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, ScriptError> {
        let code = self.host.construct(node, ctx)?;
        if node.name == "hop" {
            *self.kept.lock().unwrap() = Some((Arc::clone(&code), ctx.clone()));
        }
        Ok(code)
    }
}

/// An engine holding one box `hop` running `code` (Python) or the native equivalent, and
/// that box's code and context.
fn one_hook(host: &dyn ScriptHost, code: &str) -> (Engine, Arc<dyn BoxCode>, BoxContext) {
    let mut d = String::new();
    push_box(&mut d, "hop", 1, code);
    let keep = Keep {
        host,
        kept: Mutex::new(None),
    };
    let engine = Engine::load(&read(&d), &keep, virtual_time()).expect("loads");
    let (code, ctx) = keep.kept.lock().unwrap().take().expect("the hop box");
    (engine, code, ctx)
}

fn start_hook() -> Hook {
    Hook::Input {
        name: "onStart".into(),
        value: Value::None,
    }
}

fn bench(c: &mut Criterion, sizes: Sizes) {
    let same = load_xar(sizes.boxes, None);
    let texts = stock_texts(sizes.boxes, Some(0));
    let mut g = c.benchmark_group(format!("load_{}", sizes.boxes));
    g.sample_size(10);
    g.bench_function("python_same_script", |b| {
        b.iter(|| time_load(&same, &python()))
    });
    // New texts for every load, so that each one compiles all of them.
    g.bench_function("python_distinct_scripts", |b| {
        b.iter_batched(
            || load_xar(sizes.boxes, Some(fresh_salt())),
            |x| time_load(&x, &python()),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("native", |b| {
        b.iter(|| time_load(&same, &NativeHost::new()))
    });
    g.bench_function("compile_anchor", |b| b.iter(|| time_compile(&texts)));
    g.finish();

    let chain = chain_xar(sizes.chain, true);
    let base = chain_xar(sizes.chain, false);
    let mut g = c.benchmark_group(format!("hop_{}", sizes.chain));
    g.sample_size(10);
    for (name, x) in [("chain", &chain), ("baseline", &base)] {
        g.bench_function(format!("python/{name}"), |b| {
            b.iter(|| time_run(x, &python()))
        });
        g.bench_function(format!("native_worker/{name}"), |b| {
            b.iter(|| time_run(x, &native_hops(false)))
        });
        g.bench_function(format!("native_inline/{name}"), |b| {
            b.iter(|| time_run(x, &native_hops(true)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("hook");
    let py = python();
    let (_e1, py_code, py_ctx) = one_hook(&py, NOTHING);
    let native = NativeHost::new().with("hop", |_, _| Ok(()));
    let (_e2, n_code, n_ctx) = one_hook(&native, "");
    let hook = start_hook();
    g.bench_function("python", |b| b.iter(|| py_code.call(&hook, &py_ctx)));
    g.bench_function("python_other_thread", |b| {
        b.iter_custom(|n| time_hook(&py_code, &py_ctx, n, true))
    });
    g.bench_function("native", |b| b.iter(|| n_code.call(&hook, &n_ctx)));
    g.finish();
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `calls` calls of `code`'s onStart hook, on this thread or on another thread (as on a
/// worker of the engine, which is not the thread that started the interpreter); the time.
fn time_hook(
    code: &Arc<dyn BoxCode>,
    ctx: &BoxContext,
    calls: u64,
    other_thread: bool,
) -> Duration {
    let hook = start_hook();
    let run = || {
        let t = Instant::now();
        for _ in 0..calls {
            code.call(&hook, ctx).unwrap();
        }
        t.elapsed()
    };
    if other_thread {
        std::thread::scope(|s| s.spawn(run).join().unwrap())
    } else {
        run()
    }
}

/// Which parts run (`PYTHON_BENCH_PARTS`, a comma-separated list of `cold`, `load`, `hop`,
/// `hook`, `fixer`; all but `cold` by default). None under criterion's `--profile-time`.
fn parts() -> Vec<String> {
    if std::env::args().any(|a| a.starts_with("--profile-time")) {
        return Vec::new();
    }
    std::env::var("PYTHON_BENCH_PARTS")
        .unwrap_or_else(|_| "load,hop,hook,fixer".to_string())
        .split(',')
        .map(|p| p.trim().to_string())
        .collect()
}

/// Makes a fresh host for one run.
type MakeHost = dyn Fn() -> Box<dyn ScriptHost>;

/// Every variant once per round, the order rotating from round to round so that background
/// load hits them alike; medians and ratios.
fn side_by_side(sizes: Sizes) {
    let parts = parts();
    if parts.is_empty() {
        return;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "\nside by side, {} rounds (medians), load average at start {}",
        sizes.rounds,
        choreo_testkit::load_average()
    );
    if parts.iter().any(|p| p == "load") {
        let same = load_xar(sizes.boxes, None);
        let mut load: [Vec<f64>; 4] = Default::default();
        for round in 0..sizes.rounds {
            // New texts each round, so that every round compiles them.
            let salt = fresh_salt();
            let distinct = load_xar(sizes.boxes, Some(salt));
            let texts = stock_texts(sizes.boxes, Some(salt));
            for k in 0..4 {
                let v = (round + k) % 4;
                load[v].push(ms(match v {
                    0 => time_load(&same, &python()),
                    1 => time_load(&distinct, &python()),
                    2 => time_load(&same, &NativeHost::new()),
                    _ => time_compile(&texts),
                }));
            }
        }
        let (lo, hi) = (
            load[1].iter().copied().fold(f64::INFINITY, f64::min),
            load[1].iter().copied().fold(0.0, f64::max),
        );
        let [py_same, py_distinct, native, anchor] = load.map(median);
        println!(
            "load of {} boxes: python same script {py_same:.1} ms, python distinct scripts \
             {py_distinct:.1} ms (rounds {lo:.1}..{hi:.1}), native {native:.1} ms; compile \
             anchor (compile() of the distinct texts) {anchor:.1} ms; python distinct / \
             anchor {:.2}x, python distinct / native {:.1}x",
            sizes.boxes,
            py_distinct / anchor,
            py_distinct / native,
        );
    }
    if parts.iter().any(|p| p == "hop") {
        let chain = chain_xar(sizes.chain, true);
        let base = chain_xar(sizes.chain, false);
        let hosts: [(&str, &MakeHost); 3] = [
            ("python", &|| Box::new(python())),
            ("native worker", &|| Box::new(native_hops(false))),
            ("native inline", &|| Box::new(native_hops(true))),
        ];
        // Which hosts (`PYTHON_BENCH_HOSTS`: names containing one of its comma-separated
        // words; all by default).
        let only = std::env::var("PYTHON_BENCH_HOSTS").unwrap_or_default();
        let runs = |name: &str| only.is_empty() || only.split(',').any(|w| name.contains(w));
        // Per host: chain times, baseline times (seconds), in round order.
        let mut t: [[Vec<f64>; 2]; 3] = Default::default();
        for round in 0..sizes.rounds {
            for k in 0..6 {
                let v = (round + k) % 6;
                let (h, x) = (v / 2, if v % 2 == 0 { &chain } else { &base });
                if runs(hosts[h].0) {
                    t[h][v % 2].push(time_run(x, hosts[h].1().as_ref()).as_secs_f64());
                }
            }
        }
        let n = sizes.chain as f64;
        let mut nets = [f64::NAN; 3];
        for (h, (name, _)) in hosts.iter().enumerate() {
            if !runs(name) {
                continue;
            }
            let net: Vec<f64> = (0..sizes.rounds)
                .map(|r| (t[h][0][r] - t[h][1][r]) / (n - 1.0) * 1e6)
                .collect();
            let net = median(net);
            nets[h] = net;
            println!(
                "hop {name}: chain {:.2} ms, 1-hop baseline {:.2} ms, gross {:.2} us/hop, \
                 net {net:.2} us/hop (round trip through the engine)",
                median(t[h][0].clone()) * 1e3,
                median(t[h][1].clone()) * 1e3,
                median(t[h][0].clone()) / n * 1e6,
            );
        }
        println!(
            "net per hop: python / native worker {:.2}x, native worker / native inline {:.1}x",
            nets[0] / nets[1],
            nets[1] / nets[2],
        );
    }
    if parts.iter().any(|p| p == "hook") {
        let py = python();
        let (_e1, py_code, py_ctx) = one_hook(&py, NOTHING);
        let native = NativeHost::new().with("hop", |_, _| Ok(()));
        let (_e2, n_code, n_ctx) = one_hook(&native, "");
        let calls = 20_000;
        let mut t: [Vec<f64>; 3] = Default::default();
        for round in 0..sizes.rounds {
            for k in 0..3 {
                let v = (round + k) % 3;
                let d = match v {
                    0 => time_hook(&py_code, &py_ctx, calls, false),
                    1 => time_hook(&py_code, &py_ctx, calls, true),
                    _ => time_hook(&n_code, &n_ctx, calls, false),
                };
                t[v].push(d.as_secs_f64() / calls as f64 * 1e9);
            }
        }
        let [main, other, native] = t.map(median);
        println!(
            "hook call: python {main:.0} ns (interpreter's main thread), python {other:.0} ns \
             (another thread), native {native:.0} ns"
        );
    }
    if parts.iter().any(|p| p == "fixer") {
        fixer_part(sizes);
    }
    println!("load average at end {}", choreo_testkit::load_average());
}

/// The fixer on the corpus's distinct scripts: the quick scan alone, then `fix` as the host
/// calls it (medians of the rounds, 10 passes each).
fn fixer_part(sizes: Sizes) {
    let Some(dir) = choreo_testkit::corpus("fixer bench") else {
        return;
    };
    let (scripts, _) = corpus::corpus_scripts(&dir);
    let scripts: Vec<&String> = scripts.keys().collect();
    let bytes: usize = scripts.iter().map(|s| s.len()).sum();
    let passes = 10;
    let mut t: [Vec<f64>; 2] = Default::default();
    let mut through = 0;
    for round in 0..sizes.rounds {
        for k in 0..2 {
            let v = (round + k) % 2;
            let start = Instant::now();
            for _ in 0..passes {
                if v == 0 {
                    through = scripts
                        .iter()
                        .filter(|s| !fixer::needs_fixing(std::hint::black_box(s)))
                        .count();
                } else {
                    for s in &scripts {
                        std::hint::black_box(fixer::fix(std::hint::black_box(s)));
                    }
                }
            }
            t[v].push(start.elapsed().as_secs_f64() * 1e3 / f64::from(passes));
        }
    }
    let [scan, fix] = t.map(median);
    println!(
        "fixer on the {} distinct corpus scripts ({:.1} MB): quick scan {scan:.2} ms ({through} \
         skip the fixer), fix {fix:.2} ms",
        scripts.len(),
        bytes as f64 / 1e6,
    );
}

/// The first loads in this process (run it with a filter that matches no criterion
/// benchmark): starting the interpreter, the first load of distinct scripts (which sets up
/// the runtime: the shim modules), a second load of other distinct scripts, and the
/// compile anchor for those.
fn cold(sizes: Sizes) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let t = Instant::now();
    let host = python();
    let start = t.elapsed();
    let first = load_xar(sizes.boxes, Some(fresh_salt()));
    let first = time_load(&first, &host);
    let salt = fresh_salt();
    let second = time_load(&load_xar(sizes.boxes, Some(salt)), &python());
    let anchor = time_compile(&stock_texts(sizes.boxes, Some(salt)));
    println!(
        "cold process: interpreter start {:.1} ms, first load of {} distinct scripts {:.1} ms \
         (with the runtime's set-up), second load {:.1} ms, compile anchor {:.1} ms (first / \
         anchor {:.2}x)",
        ms(start),
        sizes.boxes,
        ms(first),
        ms(second),
        ms(anchor),
        first.as_secs_f64() / anchor.as_secs_f64(),
    );
}

fn main() {
    let sizes = Sizes::from_args();
    if parts().iter().any(|p| p == "cold") {
        // Before criterion, whose set-up starts the interpreter.
        cold(sizes);
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, sizes);
    c.final_summary();
    side_by_side(sizes);
}
