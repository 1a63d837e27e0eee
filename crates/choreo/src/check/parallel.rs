//! Work on many files at once: each core's thread takes the next file as it is free, the
//! largest first (a long file started last would keep one core busy alone at the end).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `work` on every file, on as many threads as the machine has cores, each taking the next
/// file when it is free, the largest files first (so that no large file is left to one
/// thread at the end); the results in the files' order.
pub(crate) fn in_parallel<T: Send>(
    files: &[PathBuf],
    work: &(dyn Fn(usize, &PathBuf) -> T + Sync),
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(files.len().max(1));
    let mut order: Vec<(u64, usize)> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (std::fs::metadata(f).map_or(0, |m| m.len()), i))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(_, i)) = order.get(at) else { break };
                        let Some(f) = files.get(i) else { break };
                        mine.push((i, work(i, f)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}
