//! `try 13`: QuoteFlow for real. An inbound HTTP front on the listening
//! socket the judge hands over (file descriptor FD), with one shared
//! `Gate` of the learner's, runs the learner's `fan_out` in a live `Env`
//! (real clock, sleeps, threads, outbound slots and HTTP calls to the
//! judge's supplier servers) and answers through the learner's `to_http`.
//! It serves COUNT inbound connections, then ends.

use super::{at, line};
use crate::advanced::{fan_out, to_http, Gate};
use lab_api::advanced::{
    Env, FanOutError, QuoteRequest, Reply, SupplierOutcome, SupplierReport, BUDGET, OUTBOUND_LIMIT,
};
use lab_harness::live13::{Live, LiveEvent, LiveNote, LiveSupplier, OutboundSlots};
use lab_wire::http;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Inbound requests in flight at most: small, so the demonstration fills it.
const GATE_CAPACITY: u32 = 2;
/// The front gives up when no connection comes for this long.
const IDLE: Duration = Duration::from_secs(20);

/// `NAME=PORT` → a supplier on 127.0.0.1.
fn supplier(arg: &str) -> Result<LiveSupplier, String> {
    let (name, port) = arg
        .split_once('=')
        .ok_or_else(|| format!("bad supplier {arg:?}"))?;
    let port: u16 = port.parse().map_err(|_| format!("bad port in {arg:?}"))?;
    Ok(LiveSupplier {
        name: name.to_string(),
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    })
}

/// The request a target asks for (its query needs no decoding: the judge's
/// client sends letters and digits).
fn request_of(target: &str) -> QuoteRequest {
    QuoteRequest {
        id: http::query(target, "id").unwrap_or("").to_string(),
        item: http::query(target, "item").unwrap_or("").to_string(),
        quantity: http::query(target, "quantity")
            .and_then(|q| q.parse().ok())
            .unwrap_or(0),
    }
}

fn outcome(o: &SupplierOutcome) -> String {
    match o {
        SupplierOutcome::Quote { total_cents } => format!("quote {total_cents} cents"),
        SupplierOutcome::OutOfStock => "out_of_stock".into(),
        SupplierOutcome::NotFound => "not_found".into(),
        SupplierOutcome::HttpStatus(s) => format!("http_status {s}"),
        SupplierOutcome::TransportError => "transport_error".into(),
        SupplierOutcome::BadData => "bad_data".into(),
        SupplierOutcome::Protocol => "protocol".into(),
        SupplierOutcome::Decode => "decode".into(),
        SupplierOutcome::TimedOut => "timed_out".into(),
    }
}

fn body(result: &Result<Vec<SupplierReport>, FanOutError>) -> String {
    match result {
        Ok(reports) => reports
            .iter()
            .map(|r| format!("{}: {}\n", r.supplier, outcome(&r.outcome)))
            .collect(),
        Err(FanOutError::Rejected) => "rejected: the service is full\n".into(),
        Err(FanOutError::InvalidArgument) => "invalid request\n".into(),
    }
}

fn reply_name(r: &Result<Reply, lab_api::advanced::CallError>) -> String {
    match r {
        Ok(Reply::Offer(o)) => format!(
            "200 offer {} x {} + {} shipping{}",
            o.unit_cents,
            o.quantity,
            o.shipping_cents,
            if o.in_stock { "" } else { ", not in stock" }
        ),
        Ok(Reply::Status(s)) => format!("{s}"),
        Err(e) => format!("{e:?}"),
    }
}

/// Prints what the live world saw, tagged with the inbound request.
fn note(tag: String, origin: Instant) -> LiveNote {
    Arc::new(move |event| match event {
        LiveEvent::Call {
            supplier, timeout, ..
        } => line(format_args!(
            "  t={:6.3}  [{tag}] {supplier}: call(timeout = {timeout:.3})",
            at(origin)
        )),
        LiveEvent::Answered {
            supplier, result, ..
        } => line(format_args!(
            "  t={:6.3}  [{tag}] {supplier}:   <- {}",
            at(origin),
            reply_name(&result)
        )),
        LiveEvent::Pause {
            supplier, seconds, ..
        } => line(format_args!(
            "  t={:6.3}  [{tag}] {supplier}: sleep({seconds:.3})",
            at(origin)
        )),
        LiveEvent::SlotWait {
            supplier,
            from,
            got,
            ..
        } => line(format_args!(
            "  t={:6.3}  [{tag}] {supplier}: waited for an outbound slot since t={from:.3}: {}",
            at(origin),
            if got { "got one" } else { "none in time" }
        )),
    })
}

/// The panic's message, for the judge.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".into())
}

struct Front<'a> {
    origin: Instant,
    gate: &'a Gate,
    slots: Arc<OutboundSlots>,
    suppliers: &'a [LiveSupplier],
    /// The first panic of the learner's code, passed on at the end.
    panicked: Mutex<Option<String>>,
}

impl Front<'_> {
    fn serve(&self, mut stream: TcpStream) {
        let first = http::request_line(&mut stream);
        let target = http::target(&first).to_string();
        let request = request_of(&target);
        let tag = request.id.clone();
        line(format_args!(
            "  t={:6.3}  [{tag}] front: {first} (gate: {} of {GATE_CAPACITY} in use)",
            at(self.origin),
            self.gate.in_use()
        ));
        let names: Vec<&str> = self.suppliers.iter().map(|s| s.name.as_str()).collect();
        let env = Env::with_world(Box::new(Live::new(
            self.origin,
            Arc::clone(&self.slots),
            self.suppliers.to_vec(),
            note(tag.clone(), self.origin),
        )));
        let deadline = env.now() + BUDGET;
        let answered = catch_unwind(AssertUnwindSafe(|| {
            let result = fan_out(&request, &names, deadline, &env, self.gate);
            (to_http(&result), body(&result))
        }));
        let (status, retry_after, text) = match answered {
            Ok((reply, text)) => (reply.status, reply.retry_after, text),
            Err(payload) => {
                let why = message(payload.as_ref());
                let mut first = self.panicked.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert_with(|| why.clone());
                (500, None, format!("your code panicked: {why}\n"))
            }
        };
        let seconds = retry_after.map(|s| s.to_string());
        let mut fields = vec![("Content-Type", "text/plain")];
        fields.extend(seconds.as_deref().map(|s| ("Retry-After", s)));
        http::respond(&mut stream, status, &fields, &text);
        line(format_args!(
            "  t={:6.3}  [{tag}] front: answered {status}{}",
            at(self.origin),
            retry_after.map_or(String::new(), |s| format!(", Retry-After: {s}"))
        ));
    }
}

pub fn run(fd: &str, count: &str, suppliers: &[String]) -> Result<(), String> {
    let fd: i32 = fd.parse().map_err(|_| format!("bad descriptor {fd:?}"))?;
    let count: usize = count.parse().map_err(|_| format!("bad count {count:?}"))?;
    let suppliers = suppliers
        .iter()
        .map(|s| supplier(s))
        .collect::<Result<Vec<_>, _>>()?;
    if fd < 3 {
        return Err(format!("descriptor {fd} is not a listening socket"));
    }
    let listener = handed_listener(fd)?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("the front's socket: {e}"))?;
    let origin = Instant::now();
    let gate = Gate::new(GATE_CAPACITY).map_err(|e| format!("Gate::new: {}", e.0))?;
    let names: Vec<&str> = suppliers.iter().map(|s| s.name.as_str()).collect();
    line(format_args!(
        "front: fan_out over {} with a gate of {GATE_CAPACITY}, {OUTBOUND_LIMIT} outbound slots \
         and a budget of {BUDGET} s per request (t from the front's start)",
        names.join(", ")
    ));
    let front = Front {
        origin,
        gate: &gate,
        slots: Arc::new(OutboundSlots::new(OUTBOUND_LIMIT)),
        suppliers: &suppliers,
        panicked: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        let mut served = 0;
        let mut idle_since = Instant::now();
        while served < count && idle_since.elapsed() < IDLE {
            match listener.accept() {
                Ok((stream, _)) => {
                    served += 1;
                    idle_since = Instant::now();
                    let front = &front;
                    scope.spawn(move || front.serve(stream));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(2)),
            }
        }
    });
    match front
        .panicked
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        Some(why) => Err(format!("your code panicked: {why}")),
        None => Ok(()),
    }
}

/// The judge's listening socket, handed as descriptor `fd`.
#[cfg(unix)]
fn handed_listener(fd: i32) -> Result<TcpListener, String> {
    use std::os::fd::FromRawFd;
    // SAFETY: the judge made `fd` this process's copy of its listening
    // socket, and nothing else in this process uses that number.
    Ok(unsafe { TcpListener::from_raw_fd(fd) })
}

/// The judge's listening socket, handed as an inherited socket whose value
/// is in `LAB_HANDLE_<fd>` (Windows hands no descriptor by number).
#[cfg(windows)]
fn handed_listener(fd: i32) -> Result<TcpListener, String> {
    use std::os::windows::io::FromRawSocket;
    let raw: u64 = std::env::var(format!("{}{fd}", lab_wire::HANDLE_VAR))
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or(format!("descriptor {fd} is not a listening socket"))?;
    // SAFETY: the judge made this socket inheritable for this process alone.
    Ok(unsafe { TcpListener::from_raw_socket(raw as _) })
}
