//! Where outcome lines go. Careful mode writes every line at once. Fast mode
//! hands lines to a flusher thread that writes them about every millisecond:
//! a hanging case still leaves every finished outcome on disk, while a crash
//! may lose the last millisecond's lines, which the judge then reruns in
//! careful mode to find the exact case.

use std::fs::File;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub enum Sink {
    Careful(Arc<Mutex<File>>),
    Fast {
        pending: Arc<Mutex<Vec<u8>>>,
        done: Arc<AtomicBool>,
        flusher: JoinHandle<io::Result<()>>,
    },
}

fn drain(pending: &Mutex<Vec<u8>>, file: &mut File) -> io::Result<()> {
    let bytes = std::mem::take(&mut *pending.lock().unwrap_or_else(|e| e.into_inner()));
    if !bytes.is_empty() {
        file.write_all(&bytes)?;
        file.flush()?;
    }
    Ok(())
}

impl Sink {
    pub fn new(mut file: File, careful: bool) -> io::Result<Sink> {
        if careful {
            return Ok(Sink::Careful(Arc::new(Mutex::new(file))));
        }
        let pending = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicBool::new(false));
        let (p, d) = (Arc::clone(&pending), Arc::clone(&done));
        let flusher = std::thread::Builder::new()
            .name("flusher".into())
            .spawn(move || loop {
                let last = d.load(Ordering::SeqCst);
                drain(&p, &mut file)?;
                if last {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(1));
            })?;
        Ok(Sink::Fast {
            pending,
            done,
            flusher,
        })
    }

    pub fn line(&mut self, text: &[u8]) -> io::Result<()> {
        self.handle().line(text)
    }

    /// Another way to write lines to the same place (another thread's).
    pub fn handle(&self) -> Handle {
        match self {
            Sink::Careful(file) => Handle::File(Arc::clone(file)),
            Sink::Fast { pending, .. } => Handle::Pending(Arc::clone(pending)),
        }
    }

    /// Writes everything still pending.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Careful(file) => file.lock().unwrap_or_else(|e| e.into_inner()).flush(),
            Sink::Fast { done, flusher, .. } => {
                done.store(true, Ordering::SeqCst);
                flusher
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("the flusher panicked")))
            }
        }
    }
}

/// Where a [`Sink`] writes, shared: a line is written whole, never between
/// the bytes of another.
pub enum Handle {
    File(Arc<Mutex<File>>),
    Pending(Arc<Mutex<Vec<u8>>>),
}

impl Handle {
    pub fn line(&self, text: &[u8]) -> io::Result<()> {
        match self {
            Handle::File(file) => {
                let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
                file.write_all(text)?;
                file.flush()
            }
            Handle::Pending(pending) => {
                pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(text);
                Ok(())
            }
        }
    }
}
