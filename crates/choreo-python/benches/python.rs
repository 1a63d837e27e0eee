//! Python box costs, each side by side with the native-box equivalent in the same run
//! (virtual time, behaviors generated as XAR text):
//!
//! 1. `load`: `Engine::load` of 2,000 boxes in one diagram (then dropping the engine), with
//!    `PythonHost` — every box running a stock-like script of 50 lines (the Say box's shape),
//!    once the same text in every box (stock boxes copied; compiled once) and once a distinct
//!    text per box (each compiled) — and with `NativeHost` placeholders. Target: < 0.5 s for
//!    the Python load.
//! 2. `hop`: a chain of N boxes (N = 1,000): each box's onStart hook fires its output `next`
//!    into the next box's onStart, the last into root's onStopped; timed from `Engine::start`
//!    to `Outcome::Finished`, with a 1-hop baseline (box 1 straight to root.onStopped) so that
//!    net time per hop = (chain − baseline) / (N − 1): the input-to-output round trip
//!    through the engine. Python boxes (`def onInput_onStart(self): self.next()`) against
//!    native boxes on workers (`NativeHost::with`) and inline (`with_inline`). Target: ≤ 5 µs
//!    per Python round trip.
//! 3. `hook`: one Python hook called directly (`BoxCode::call` with a bang, the script
//!    returning at once) against a native one: the cost of entering Python, without the
//!    engine's hand-off to a worker.
//!
//! After criterion, a side-by-side summary (`PYTHON_BENCH_ROUNDS` rounds, default 9, each
//! measuring every variant once) prints medians and the Python / native ratios.
//!
//! Run: `cargo bench -p choreo-python --bench python`. Without `--bench` (`cargo test
//! --benches`) sizes are 10× smaller and each routine runs once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::graph::BoxNode;
use choreo_engine::{
    BoxCode, BoxContext, Engine, Hook, NativeHost, Options, Outcome, ScriptHost, Value,
};
use choreo_python::{PythonHost, PythonOptions};
use choreo_xar::model::XarFile;
use criterion::Criterion;

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

/// `n` boxes running the stock script; `distinct`: each with its own text (a comment).
fn load_xar(n: i64, distinct: bool) -> XarFile {
    let mut d = String::new();
    for i in 1..=n {
        let code = if distinct {
            format!("# box {i}\n{STOCK}")
        } else {
            STOCK.to_string()
        };
        push_box(&mut d, "Say", i, &code);
    }
    read(&d)
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
    fn construct(&self, node: &BoxNode, ctx: &BoxContext) -> Result<Arc<dyn BoxCode>, String> {
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
        name: "onStart".to_string(),
        value: Value::None,
    }
}

fn bench(c: &mut Criterion, sizes: Sizes) {
    let same = load_xar(sizes.boxes, false);
    let distinct = load_xar(sizes.boxes, true);
    let mut g = c.benchmark_group(format!("load_{}", sizes.boxes));
    g.sample_size(10);
    g.bench_function("python_same_script", |b| {
        b.iter(|| time_load(&same, &python()))
    });
    g.bench_function("python_distinct_scripts", |b| {
        b.iter(|| time_load(&distinct, &python()))
    });
    g.bench_function("native", |b| {
        b.iter(|| time_load(&same, &NativeHost::new()))
    });
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
    g.bench_function("native", |b| b.iter(|| n_code.call(&hook, &n_ctx)));
    g.finish();
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Every variant once per round, interleaved; medians and ratios.
fn side_by_side(sizes: Sizes) {
    let same = load_xar(sizes.boxes, false);
    let distinct = load_xar(sizes.boxes, true);
    let chain = chain_xar(sizes.chain, true);
    let base = chain_xar(sizes.chain, false);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut load = [Vec::new(), Vec::new(), Vec::new()];
    let mut hops: [Vec<f64>; 3] = Default::default();
    for _ in 0..sizes.rounds {
        load[0].push(ms(time_load(&same, &python())));
        load[1].push(ms(time_load(&distinct, &python())));
        load[2].push(ms(time_load(&same, &NativeHost::new())));
        let per_hop = |host: &dyn ScriptHost| {
            let c = time_run(&chain, host).as_secs_f64();
            let b = time_run(&base, host).as_secs_f64();
            (c - b) / (sizes.chain - 1) as f64 * 1e6
        };
        hops[0].push(per_hop(&python()));
        hops[1].push(per_hop(&native_hops(false)));
        hops[2].push(per_hop(&native_hops(true)));
    }
    let [py_same, py_distinct, native] = load.map(median);
    let [py_hop, worker_hop, inline_hop] = hops.map(median);
    println!(
        "\nside by side, {} rounds (medians):\n\
         load of {} boxes: python same script {py_same:.1} ms, python distinct scripts \
         {py_distinct:.1} ms, native {native:.1} ms (python / native {:.1}x)\n\
         net per hop (round trip through the engine): python {py_hop:.2} us, native worker \
         {worker_hop:.2} us, native inline {inline_hop:.2} us (python / native worker {:.2}x)",
        sizes.rounds,
        sizes.boxes,
        py_distinct / native,
        py_hop / worker_hop,
    );
}

fn main() {
    let sizes = Sizes::from_args();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, sizes);
    c.final_summary();
    side_by_side(sizes);
}
