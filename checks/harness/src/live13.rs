//! Step 13's live world, for `lab.sh try 13` only: what an `Env` asks of
//! its world (`lab_api::advanced::EnvWorld`) over real time, real threads
//! and real HTTP. Never used by the checks, whose world is the scripted one
//! in `lab-api`. It links no learner code, so it lives here, built once
//! with the harness, and the advanced runner only plugs it in.

use lab_api::advanced::{CallError, EnvWorld, Offer, QuoteRequest, Reply, TaskCancelled};
use lab_wire::http::{self, Answer, Failure};
use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// One supplier of the live world and where it listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSupplier {
    pub name: String,
    pub addr: SocketAddr,
}

/// Outbound slots shared by every live `Env` of one service: calls in
/// flight, across all its fan-outs.
#[derive(Debug)]
pub struct OutboundSlots {
    free: Mutex<u32>,
    freed: Condvar,
}

impl OutboundSlots {
    pub fn new(slots: u32) -> OutboundSlots {
        OutboundSlots {
            free: Mutex::new(slots),
            freed: Condvar::new(),
        }
    }

    /// One slot, waiting until one is given back or until `limit` passes.
    fn take(&self, limit: Option<Instant>) -> bool {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if *free > 0 {
                *free -= 1;
                return true;
            }
            let wait = match limit {
                Some(l) => l.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if wait.is_zero() {
                return false;
            }
            free = self
                .freed
                .wait_timeout(free, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn give_back(&self) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.freed.notify_one();
    }
}

/// Something a task of the live world did (times in seconds on the live
/// clock, `Env::now`).
#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// An `acquire` that had to wait.
    SlotWait {
        supplier: String,
        from: f64,
        at: f64,
        got: bool,
    },
    Call {
        supplier: String,
        at: f64,
        timeout: f64,
    },
    Answered {
        supplier: String,
        at: f64,
        result: Result<Reply, CallError>,
    },
    Pause {
        supplier: String,
        at: f64,
        seconds: f64,
    },
}

/// Writes down each [`LiveEvent`] as it happens.
pub type LiveNote = Arc<dyn Fn(LiveEvent) + Send + Sync>;

thread_local! {
    /// (live world id, task index) of the task running on this thread.
    static LIVE_TASK: Cell<Option<(u64, usize)>> = const { Cell::new(None) };
}

static NEXT_LIVE: AtomicU64 = AtomicU64::new(1);

/// The live world behind an `Env` (see `Env::with_world`).
pub struct Live {
    id: u64,
    origin: Instant,
    slots: Arc<OutboundSlots>,
    suppliers: Vec<LiveSupplier>,
    note: LiveNote,
    seed: Mutex<u64>,
    cancelled: AtomicBool,
}

impl Live {
    pub fn new(
        origin: Instant,
        slots: Arc<OutboundSlots>,
        suppliers: Vec<LiveSupplier>,
        note: LiveNote,
    ) -> Live {
        let id = NEXT_LIVE.fetch_add(1, Ordering::Relaxed);
        let seed = (origin.elapsed().as_nanos() as u64) ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Live {
            id,
            origin,
            slots,
            suppliers,
            note,
            seed: Mutex::new(seed | 1),
            cancelled: AtomicBool::new(false),
        }
    }

    /// The name of the supplier the calling task works for.
    fn own(&self) -> String {
        LIVE_TASK
            .with(Cell::get)
            .filter(|(w, _)| *w == self.id)
            .and_then(|(_, k)| self.suppliers.get(k))
            .map_or_else(|| "?".into(), |s| s.name.clone())
    }

    fn unwind_if_cancelled(&self) {
        if self.cancelled.load(Ordering::SeqCst) {
            std::panic::panic_any(TaskCancelled);
        }
    }
}

impl EnvWorld for Live {
    fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// Every task on its own thread, all at once; like a task group, the
    /// first panic cancels the others (their next use of the world unwinds)
    /// and is passed on once all have ended.
    fn run_all<'t>(&self, tasks: Vec<Box<dyn FnOnce() + Send + 't>>) {
        let outcomes: Vec<std::thread::Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = tasks
                .into_iter()
                .enumerate()
                .map(|(k, task)| {
                    scope.spawn(move || {
                        LIVE_TASK.with(|t| t.set(Some((self.id, k))));
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
                        if result.is_err() {
                            self.cancelled.store(true, Ordering::SeqCst);
                        }
                        result
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(Err))
                .collect()
        });
        let first = outcomes
            .into_iter()
            .filter_map(Result::err)
            .find(|payload| !payload.is::<TaskCancelled>());
        if let Some(payload) = first {
            std::panic::resume_unwind(payload);
        }
    }

    /// Takes a slot (waits for one until `deadline`).
    fn acquire(&self, deadline: f64) -> Option<u64> {
        self.unwind_if_cancelled();
        let from = self.now();
        if from >= deadline || deadline.is_nan() {
            return None;
        }
        let limit = (deadline.is_finite() && deadline - from < 3600.0)
            .then(|| Instant::now() + Duration::from_secs_f64(deadline - from));
        if self.slots.take(Some(Instant::now())) {
            return Some(0);
        }
        let got = self.slots.take(limit);
        (self.note)(LiveEvent::SlotWait {
            supplier: self.own(),
            from,
            at: self.now(),
            got,
        });
        if got && self.cancelled.load(Ordering::SeqCst) {
            self.slots.give_back();
            self.unwind_if_cancelled();
        }
        got.then_some(0)
    }

    /// Live slots are all alike: any one is given back.
    fn release(&self, _slot: u64) {
        self.slots.give_back();
    }

    fn sleep(&self, seconds: f64) {
        self.unwind_if_cancelled();
        if !(seconds.is_finite() && seconds > 0.0) {
            return;
        }
        (self.note)(LiveEvent::Pause {
            supplier: self.own(),
            at: self.now(),
            seconds,
        });
        std::thread::sleep(Duration::from_secs_f64(seconds.min(60.0)));
        self.unwind_if_cancelled();
    }

    fn fraction(&self, _supplier: &str) -> f64 {
        self.unwind_if_cancelled();
        let mut seed = self.seed.lock().unwrap_or_else(|e| e.into_inner());
        // xorshift64*: any fraction in [0, 1) will do for a demonstration.
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn call(
        &self,
        supplier: &str,
        request: &QuoteRequest,
        timeout: f64,
    ) -> Result<Reply, CallError> {
        self.unwind_if_cancelled();
        let Some(addr) = self
            .suppliers
            .iter()
            .find(|s| s.name == supplier)
            .map(|s| s.addr)
        else {
            return Err(CallError::LocalProtocol);
        };
        (self.note)(LiveEvent::Call {
            supplier: supplier.into(),
            at: self.now(),
            timeout,
        });
        let result = if timeout.is_finite() && timeout > 0.0 {
            get(addr, request, Duration::from_secs_f64(timeout.min(3600.0)))
        } else {
            Err(CallError::TimedOut)
        };
        (self.note)(LiveEvent::Answered {
            supplier: supplier.into(),
            at: self.now(),
            result,
        });
        self.unwind_if_cancelled();
        result
    }
}

/// One `GET /quote?...` over a fresh connection, all of it within `limit`.
fn get(addr: SocketAddr, request: &QuoteRequest, limit: Duration) -> Result<Reply, CallError> {
    let target = format!(
        "/quote?id={}&item={}&quantity={}",
        http::encode(&request.id),
        http::encode(&request.item),
        request.quantity
    );
    let sent = http::request("GET", &target, addr);
    let raw = http::exchange(addr, &sent, limit.as_secs_f64(), &|| false).map_err(|f| match f {
        f if f.timed_out() => CallError::TimedOut,
        Failure::Connect(_) => CallError::Connect,
        Failure::Write(_) => CallError::Write,
        Failure::Read(_) => CallError::Read,
        Failure::NoTime | Failure::TooLong => CallError::RemoteProtocol,
    })?;
    let answer = Answer::parse(&raw).ok_or(CallError::RemoteProtocol)?;
    if answer.status != 200 {
        return Ok(Reply::Status(answer.status));
    }
    offer(&answer.body)
        .map(Reply::Offer)
        .ok_or(CallError::Decode)
}

/// `{"unit_cents":…,"quantity":…,"shipping_cents":…,"in_stock":…}`.
fn offer(body: &str) -> Option<Offer> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    Some(Offer {
        unit_cents: v.get("unit_cents")?.as_i64()?,
        quantity: u32::try_from(v.get("quantity")?.as_u64()?).ok()?,
        shipping_cents: v.get("shipping_cents")?.as_i64()?,
        in_stock: v.get("in_stock")?.as_bool()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_body_decodes_into_an_offer_or_not_at_all() {
        let body = r#"{"unit_cents":250,"quantity":4,"shipping_cents":99,"in_stock":true}"#;
        assert_eq!(
            offer(body),
            Some(Offer {
                unit_cents: 250,
                quantity: 4,
                shipping_cents: 99,
                in_stock: true
            })
        );
        assert_eq!(offer(r#"{"unit_cents":"250"}"#), None);
        assert_eq!(offer("not json"), None);
    }

    /// A server on 127.0.0.1 that answers each connection with the next
    /// of `answers` (`None`: holds the connection, saying nothing).
    fn server(answers: Vec<Option<&'static str>>) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for answer in answers {
                let (mut stream, _) = listener.accept().unwrap();
                let mut buf = [0u8; 1024];
                let _ = stream.read(&mut buf);
                match answer {
                    Some(text) => {
                        let _ = stream.write_all(text.as_bytes());
                    }
                    None => std::thread::sleep(Duration::from_millis(500)),
                }
            }
        });
        addr
    }

    #[test]
    fn live_calls_map_real_answers_and_failures() {
        let body = r#"{"unit_cents":250,"quantity":2,"shipping_cents":0,"in_stock":true}"#;
        let ok = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let ok: &'static str = Box::leak(ok.into_boxed_str());
        let busy = "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        let garbled = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nnot json";
        let addr = server(vec![Some(ok), Some(busy), Some(garbled), None]);
        // A port nobody listens on: bound, then closed.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let request = QuoteRequest {
            id: "r1".into(),
            item: "bolt".into(),
            quantity: 2,
        };
        let limit = Duration::from_secs(5);
        assert_eq!(
            get(addr, &request, limit),
            Ok(Reply::Offer(Offer {
                unit_cents: 250,
                quantity: 2,
                shipping_cents: 0,
                in_stock: true
            }))
        );
        assert_eq!(get(addr, &request, limit), Ok(Reply::Status(503)));
        assert_eq!(get(addr, &request, limit), Err(CallError::Decode));
        assert_eq!(
            get(addr, &request, Duration::from_millis(100)),
            Err(CallError::TimedOut)
        );
        assert_eq!(get(closed, &request, limit), Err(CallError::Connect));
    }

    #[test]
    fn a_live_env_runs_tasks_at_once_and_shares_its_slots() {
        use lab_api::advanced::Env;
        use std::sync::mpsc::channel;
        let suppliers = ["a", "b"]
            .iter()
            .map(|n| LiveSupplier {
                name: n.to_string(),
                addr: SocketAddr::from(([127, 0, 0, 1], 9)),
            })
            .collect();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let note: LiveNote = {
            let seen = Arc::clone(&seen);
            Arc::new(move |e| seen.lock().unwrap().push(e))
        };
        let env = Env::with_world(Box::new(Live::new(
            Instant::now(),
            Arc::new(OutboundSlots::new(1)),
            suppliers,
            note,
        )));
        let (held, wait_held) = channel::<()>();
        let (tried, wait_tried) = channel::<()>();
        let (env, far) = (&env, env.now() + 60.0);
        type Task<'a> = Box<dyn FnOnce() -> (bool, bool) + Send + 'a>;
        let tasks: Vec<Task<'_>> = vec![
            Box::new(move || {
                let slot = env.acquire(far);
                held.send(()).unwrap();
                wait_tried.recv().unwrap();
                drop(slot);
                (true, true)
            }),
            Box::new(move || {
                // Runs while task 0 holds the only slot: both at once.
                wait_held.recv().unwrap();
                let none = env.acquire(env.now() + 0.05).is_none();
                tried.send(()).unwrap();
                let some = env.acquire(far).is_some();
                (none, some)
            }),
        ];
        assert_eq!(env.run_all(tasks), vec![(true, true), (true, true)]);
        let waits = seen.lock().unwrap().clone();
        assert!(
            matches!(&waits[0], LiveEvent::SlotWait { supplier, got: false, .. } if supplier == "b"),
            "{waits:?}"
        );
        let panicking: Vec<Box<dyn FnOnce() + Send + '_>> =
            vec![Box::new(|| panic!("boom")), Box::new(|| {})];
        let unwound =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| env.run_all(panicking)));
        assert!(unwound.is_err());
    }

    #[test]
    fn slots_are_taken_and_given_back() {
        let slots = OutboundSlots::new(1);
        assert!(slots.take(Some(Instant::now())));
        assert!(!slots.take(Some(Instant::now() + Duration::from_millis(20))));
        slots.give_back();
        assert!(slots.take(None));
    }
}
