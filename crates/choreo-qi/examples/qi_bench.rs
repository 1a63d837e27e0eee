//! The Rust side of `benches/qi/run.sh`.
//!
//! - `qi_bench client URL SECONDS`: our client against a server with a `ChoreoTest` service
//!   (ping, emit/textDone): sequential latency, calls/s with 1, 8 and 128 in flight,
//!   signals/s; one JSON object on stdout.
//! - `qi_bench sd-client URL SECONDS METHOD`: our client calling a method of the
//!   ServiceDirectory itself (`machineId`, `services`, or `service`, which asks for
//!   `service("ServiceDirectory")`): sequential latency and calls/s with 1, 8 and 128 in
//!   flight; one JSON object on stdout. Against the libqi standalone directory these
//!   methods are C++, so the server is not held by Python's GIL.
//! - `qi_bench serve URL`: our server with the same service; prints `READY <url>` and runs
//!   until stdin closes. A `tcps://` URL serves TLS with a self-signed certificate made at
//!   start (the client accepts it, as it accepts a robot's).

use std::collections::VecDeque;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use choreo_engine::Value;
use choreo_qi::{ObjectBuilder, Out, RemoteObject, ServedObject, Server, ServerOptions, Session};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.get(1).map(String::as_str) {
        Some("client") => client(
            args.get(2).map_or("tcp://127.0.0.1:9559", String::as_str),
            args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0),
        ),
        Some("sd-client") => sd_client(
            args.get(2).map_or("tcp://127.0.0.1:9559", String::as_str),
            args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0),
            args.get(4).map_or("machineId", String::as_str),
        ),
        Some("serve") => serve(args.get(2).map_or("tcp://127.0.0.1:0", String::as_str)),
        _ => Err(
            "usage: qi_bench client URL SECONDS | qi_bench sd-client URL SECONDS METHOD | qi_bench serve URL"
                .to_string(),
        ),
    };
    if let Err(e) = result {
        eprintln!("qi_bench: {e}");
        std::process::exit(1);
    }
}

fn client(url: &str, seconds: f64) -> Result<(), String> {
    let t0 = Instant::now();
    let session = Session::connect(url).map_err(|e| e.to_string())?;
    let svc = session.service("ChoreoTest").map_err(|e| e.to_string())?;
    let connect_ms = t0.elapsed().as_secs_f64() * 1e3;
    let ping = [Value::Int(1)];
    let budget = Duration::from_secs_f64(seconds);
    let sequential = sequential(&svc, "ping", &ping, budget)?;
    let mut in_flight = Vec::new();
    for depth in [1usize, 8, 128] {
        in_flight.push((depth, pipelined(&svc, "ping", &ping, depth, budget)?));
    }
    let (per_s, received) = signals(&svc, 20000)?;
    let flights: Vec<String> = in_flight
        .iter()
        .map(|(d, r)| format!("\"{d}\": {r:.1}"))
        .collect();
    println!(
        "{{\"connect_ms\": {connect_ms:.3}, \"sequential\": {sequential}, \"in_flight\": {{{}}}, \"signals\": {{\"per_s\": {per_s:.1}, \"received\": {received}, \"sent\": 20000}}}}",
        flights.join(", ")
    );
    Ok(())
}

fn sd_client(url: &str, seconds: f64, method: &str) -> Result<(), String> {
    let t0 = Instant::now();
    let session = Session::connect(url).map_err(|e| e.to_string())?;
    let sd = session.directory().map_err(|e| e.to_string())?;
    let connect_ms = t0.elapsed().as_secs_f64() * 1e3;
    let args: Vec<Value> = match method {
        "machineId" | "services" => Vec::new(),
        "service" => vec![Value::String("ServiceDirectory".to_string())],
        other => return Err(format!("sd-client: unknown method {other}")),
    };
    let budget = Duration::from_secs_f64(seconds);
    let sequential = sequential(&sd, method, &args, budget)?;
    let (mut flights, mut cpu) = (Vec::new(), Vec::new());
    // Every call made, warm-up and connection set-up aside: to divide the server's CPU time by.
    let mut total = 200.0 + sequential_calls(&sequential);
    for depth in [1usize, 8, 128] {
        let (cpu0, start) = (cpu_seconds(), Instant::now());
        let rate = pipelined(&sd, method, &args, depth, budget)?;
        let calls = rate * start.elapsed().as_secs_f64();
        total += calls;
        flights.push(format!("\"{depth}\": {rate:.1}"));
        cpu.push(format!(
            "\"{depth}\": {:.2}",
            (cpu_seconds() - cpu0) / calls.max(1.0) * 1e6
        ));
    }
    println!(
        "{{\"connect_ms\": {connect_ms:.3}, \"sequential\": {sequential}, \"in_flight\": {{{}}}, \"cpu_us_per_call\": {{{}}}, \"calls\": {total:.0}}}",
        flights.join(", "),
        cpu.join(", ")
    );
    Ok(())
}

/// The `n` of `sequential`'s JSON.
fn sequential_calls(json: &str) -> f64 {
    json.rsplit_once("\"n\": ")
        .and_then(|(_, n)| n.trim_end_matches('}').trim().parse().ok())
        .unwrap_or(0.0)
}

/// This process's CPU time (user + system, all threads) in seconds, from /proc/self/stat
/// (clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// 200 warm-up calls, then up to 20,000 sequential calls or `budget`: a JSON object with
/// p50/p99 (µs), calls/s and the count.
fn sequential(
    svc: &RemoteObject,
    method: &str,
    args: &[Value],
    budget: Duration,
) -> Result<String, String> {
    for _ in 0..200 {
        svc.call(method, args).map_err(|e| e.to_string())?;
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget && samples.len() < 20000 {
        let t = Instant::now();
        svc.call(method, args).map_err(|e| e.to_string())?;
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    let n = samples.len().max(1);
    let total: f64 = samples.iter().sum();
    let at = |q: usize| {
        samples
            .get((n * q / 100).min(n - 1))
            .copied()
            .unwrap_or(0.0)
            * 1e6
    };
    Ok(format!(
        "{{\"p50_us\": {:.1}, \"p99_us\": {:.1}, \"calls_per_s\": {:.1}, \"n\": {n}}}",
        at(50),
        at(99),
        n as f64 / total
    ))
}

fn pipelined(
    svc: &RemoteObject,
    method: &str,
    args: &[Value],
    depth: usize,
    budget: Duration,
) -> Result<f64, String> {
    let mut queue = VecDeque::new();
    for _ in 0..depth {
        queue.push_back(svc.call_async(method, args).map_err(|e| e.to_string())?);
    }
    let start = Instant::now();
    let mut done = 0u64;
    while start.elapsed() < budget && done < 200_000 {
        if let Some(p) = queue.pop_front() {
            p.wait().map_err(|e| e.to_string())?;
        }
        done += 1;
        queue.push_back(svc.call_async(method, args).map_err(|e| e.to_string())?);
    }
    let rate = done as f64 / start.elapsed().as_secs_f64();
    for p in queue {
        p.wait().map_err(|e| e.to_string())?;
    }
    Ok(rate)
}

fn signals(svc: &RemoteObject, count: u64) -> Result<(f64, u64), String> {
    let got = Arc::new(AtomicU64::new(0));
    let last = Arc::new(Mutex::new(None::<Instant>));
    let (g, l) = (Arc::clone(&got), Arc::clone(&last));
    let link = svc
        .connect("textDone", move |_| {
            g.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut last) = l.lock() {
                *last = Some(Instant::now());
            }
        })
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    svc.call("emit", &[Value::Int(count as i64)])
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while got.load(Ordering::Relaxed) < count && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let end = last
        .lock()
        .ok()
        .and_then(|l| *l)
        .unwrap_or_else(Instant::now);
    svc.disconnect(link).map_err(|e| e.to_string())?;
    let received = got.load(Ordering::Relaxed);
    Ok((received as f64 / (end - start).as_secs_f64(), received))
}

fn service() -> Result<Arc<ServedObject>, String> {
    let me: Arc<Mutex<Option<Arc<ServedObject>>>> = Arc::new(Mutex::new(None));
    let emitter = Arc::clone(&me);
    let said = Arc::new(AtomicU64::new(0));
    let object = ObjectBuilder::new("choreo qi benchmark service")
        .method_inline("ping", "(i)", "i", |a| {
            Ok(Out::Value(a.into_iter().next().unwrap_or_default()))
        })
        .method_inline("say", "(s)", "v", move |_| {
            said.fetch_add(1, Ordering::Relaxed);
            Ok(Out::Value(Value::None))
        })
        .signal("textDone", "(s)")
        .method_inline("emit", "(i)", "v", move |a| {
            let n = match a.first() {
                Some(Value::Int(n)) => *n,
                _ => 0,
            };
            let object = emitter.lock().ok().and_then(|o| o.clone());
            if let Some(o) = object {
                for k in 0..n {
                    o.emit("textDone", vec![Value::String(format!("done{k:011}"))])
                        .map_err(|e| e.to_string())?;
                }
            }
            Ok(Out::Value(Value::None))
        })
        .build()
        .map_err(|e| e.to_string())?;
    if let Ok(mut m) = me.lock() {
        *m = Some(Arc::clone(&object));
    }
    Ok(object)
}

fn serve(url: &str) -> Result<(), String> {
    let mut options = ServerOptions::default();
    if url.starts_with("tcps://") {
        let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()])
            .map_err(|e| e.to_string())?;
        options.tls = Some(choreo_qi::ServerTls {
            certificate: choreo_qi::Pem::Bytes(key.cert.pem().into_bytes()),
            key: choreo_qi::Pem::Bytes(key.signing_key.serialize_pem().into_bytes()),
        });
    }
    let server = Server::standalone(options).map_err(|e| e.to_string())?;
    server
        .register_service("ChoreoTest", service()?)
        .map_err(|e| e.to_string())?;
    let bound = server.listen(url).map_err(|e| e.to_string())?;
    println!("READY {bound}");
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    server.stop();
    Ok(())
}
