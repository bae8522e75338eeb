//! The one worker pool: grading and the self-test run their subjects on a
//! few named threads, each with its own slot index, and hand every result to
//! the calling thread as soon as it is ready.

use std::sync::{mpsc, Mutex};

/// Runs `work(j, item)` for every item on `jobs` threads named `{name}-{j}`
/// (j is the worker's index, e.g. for its build slot). `on_done` sees each
/// result on the calling thread, in finishing order; when it returns an
/// error, no further items are started and that error is returned.
pub fn run<T: Send, R: Send>(
    name: &str,
    jobs: usize,
    items: Vec<T>,
    work: impl Fn(usize, T) -> R + Sync,
    mut on_done: impl FnMut(R) -> Result<(), String>,
) -> Result<(), String> {
    let workers = jobs.clamp(1, items.len().max(1));
    let queue = Mutex::new(items);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for j in 0..workers {
            let (tx, queue, work) = (tx.clone(), &queue, &work);
            let spawned = std::thread::Builder::new()
                .name(format!("{name}-{j}"))
                .spawn_scoped(scope, move || loop {
                    let next = queue
                        .lock()
                        .ok()
                        .and_then(|mut q| (!q.is_empty()).then(|| q.remove(0)));
                    let Some(item) = next else { break };
                    if tx.send(work(j, item)).is_err() {
                        break;
                    }
                });
            if let Err(e) = spawned {
                return Err(format!("cannot start worker {name}-{j}: {e}"));
            }
        }
        drop(tx);
        let mut failure = None;
        for result in rx {
            if failure.is_some() {
                continue; // drain what running workers still finish
            }
            if let Err(e) = on_done(result) {
                failure = Some(e);
                if let Ok(mut q) = queue.lock() {
                    q.clear();
                }
            }
        }
        failure.map_or(Ok(()), Err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_done_once_and_workers_know_their_index() {
        let mut seen = Vec::new();
        run(
            "t",
            2,
            (0..20).collect(),
            |j, i: u32| (j, i * 2),
            |(j, v)| {
                assert!(j < 2);
                seen.push(v);
                Ok(())
            },
        )
        .unwrap();
        seen.sort();
        assert_eq!(seen, (0..20).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_stops_new_work_and_is_returned() {
        let mut done = 0;
        let r = run(
            "t",
            1,
            (0..100).collect(),
            |_, i: u32| i,
            |i| {
                done += 1;
                if i == 3 {
                    Err("stop".into())
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop".into()));
        assert!(done < 100);
    }
}
