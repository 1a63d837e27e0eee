//! What `choreo edit` costs on the corpus's largest behavior (2.4 MB, the yoga demo): each
//! figure beside its floor, in one run.
//!
//! - `open`: the file read into a `Session` (its model and its element index), the engine's
//!   `Graph` and the `structure` message the page draws; the anchor is `read_xar` alone,
//!   the reading any tool must do.
//! - `save`: one move written (`Session::apply`: the patch, the whole text read again, the
//!   file written beside and renamed over, synced); the anchor is the same bytes written and
//!   synced, the floor of a durable save.
//! - `answer`: what the page waits for after an edit besides the save: the new `structure`
//!   and `choreo check`'s problems (`Editor` computes both).
//!
//! `cargo bench -p choreo-editor --bench editor` (median of 15 rounds, pairs interleaved);
//! under `cargo test --benches` one round. Without the corpus: a NOTICE, nothing measured.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use choreo_editor::Session;
use choreo_engine::graph::Graph;
use choreo_xar::edit::{BoxRef, Edit, Step};

const LARGEST: &str = "foteinipapadopoulou__HRI_yoga_robot/Yoga_Nao_Choregraphe/behavior_demo_with_feedback/behavior.xar";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// The bytes written and synced, as a save's floor.
fn write_synced(path: &Path, bytes: &[u8]) {
    use std::io::Write as _;
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
}

fn main() {
    let Some(corpus) = choreo_testkit::corpus("the editor benchmark's behavior") else {
        return;
    };
    let rounds = if std::env::args().any(|a| a == "--bench") {
        15
    } else {
        1
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("behavior.xar");
    let bytes = std::fs::read(corpus.join(LARGEST)).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    let floor = dir.path().join("floor.xar");

    let (mut open, mut read) = (Vec::new(), Vec::new());
    let (mut save, mut write) = (Vec::new(), Vec::new());
    let (mut structure, mut problems) = (Vec::new(), Vec::new());
    let scripts = choreo_python::box_scripts::BoxScripts::default();
    for round in 0..rounds {
        read.push(timed(|| {
            choreo_xar::read_xar("behavior.xar", &std::fs::read(&file).unwrap()).unwrap();
        }));
        let mut session = None;
        open.push(timed(|| {
            let s = Session::open(&file).unwrap();
            let graph = Graph::new(s.document().xar());
            let message = choreo_monitor::structure::structure(&graph, &[], None);
            assert!(message["boxes"].as_array().unwrap().len() > 100);
            session = Some(s);
        }));
        let mut session = session.unwrap();
        let first = session
            .document()
            .xar()
            .root_box
            .diagrams()
            .next()
            .unwrap()
            .boxes[0]
            .id;
        let at = BoxRef(vec![Step {
            layer: 0,
            keyframe: 0,
            id: first,
        }]);
        let edit = Edit::Move {
            at,
            x: 100 + round,
            y: 50,
        };
        save.push(timed(|| session.apply(&edit).unwrap()));
        write.push(timed(|| write_synced(&floor, &bytes)));
        structure.push(timed(|| {
            let graph = Graph::new(session.document().xar());
            choreo_monitor::structure::structure(&graph, &[], None);
        }));
        problems.push(timed(|| {
            choreo_xar::source::check_file_with(
                "behavior.xar",
                session.document().bytes(),
                Some(&scripts),
            );
        }));
    }
    let (open, read) = (median(open), median(read));
    let (save, write) = (median(save), median(write));
    println!("editor: {} bytes, {rounds} rounds, medians", bytes.len());
    println!(
        "open {:.1} ms | read_xar {:.1} ms | ratio {:.2}",
        ms(open),
        ms(read),
        ms(open) / ms(read)
    );
    println!(
        "save {:.1} ms | write+sync {:.1} ms | ratio {:.2}",
        ms(save),
        ms(write),
        ms(save) / ms(write)
    );
    println!(
        "answer: structure {:.1} ms, problems {:.1} ms",
        ms(median(structure)),
        ms(median(problems))
    );
}
