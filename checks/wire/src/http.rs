//! HTTP/1.1 as `lab.sh try` speaks it, on both sides and nowhere else: the
//! judge's servers and inbound client, and the runners' clients (`try 08`,
//! `try 11`, `try 13`'s supplier calls) and front (`try 13`). One request
//! per connection (`Connection: close`), a body read to the end of the
//! stream, no chunked coding. Never used by the checks.
//!
//! It lives here because the judge and both runners already depend on this
//! crate, which is compiled once with the kit: sharing it adds no crate to
//! the learner's build.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The longest answer a client reads, or request head a server reads.
pub const MAX_MESSAGE: usize = 64 * 1024;
/// How long a server waits for a request's head.
const HEAD_WAIT: Duration = Duration::from_secs(5);
/// How often a client waiting for its answer asks whether to give up.
const POLL: Duration = Duration::from_millis(50);

/// Why a client got no answer.
#[derive(Debug)]
pub enum Failure {
    /// The time given was not a positive number: nothing was sent.
    NoTime,
    Connect(std::io::Error),
    Write(std::io::Error),
    /// Reading the answer broke, or the time ran out first.
    Read(std::io::Error),
    /// The answer is longer than [`MAX_MESSAGE`].
    TooLong,
}

impl Failure {
    /// Whether the time ran out (rather than the connection failing).
    pub fn timed_out(&self) -> bool {
        match self {
            Failure::NoTime => true,
            Failure::Connect(e) | Failure::Write(e) | Failure::Read(e) => timed_out(e),
            Failure::TooLong => false,
        }
    }
}

fn timed_out(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

/// A request's head: `METHOD TARGET HTTP/1.1`, `Host` and `Connection: close`.
pub fn request(method: &str, target: &str, host: SocketAddr) -> String {
    format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
}

/// Sends `request` to `addr` over a fresh connection and reads the whole
/// answer, all within `timeout` seconds; gives up early once `stop` says so
/// (asked about every 50 ms while the answer is awaited).
pub fn exchange(
    addr: SocketAddr,
    request: &str,
    timeout: f64,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<u8>, Failure> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Failure::NoTime);
    }
    let limit = Duration::from_secs_f64(timeout.min(3600.0));
    let deadline = Instant::now() + limit;
    let left = || deadline.saturating_duration_since(Instant::now());
    let mut stream = TcpStream::connect_timeout(&addr, limit).map_err(Failure::Connect)?;
    stream
        .set_write_timeout(Some(left().max(Duration::from_millis(1))))
        .and_then(|()| stream.write_all(request.as_bytes()))
        .map_err(Failure::Write)?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let rest = left();
        if rest.is_zero() {
            return Err(Failure::Read(std::io::ErrorKind::TimedOut.into()));
        }
        stream
            .set_read_timeout(Some(rest.min(POLL)))
            .map_err(Failure::Read)?;
        match stream.read(&mut buf) {
            Ok(0) => return Ok(raw),
            Ok(n) if raw.len() + n > MAX_MESSAGE => return Err(Failure::TooLong),
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) if timed_out(&e) && !stop() => {}
            Err(e) => return Err(Failure::Read(e)),
        }
    }
}

/// An answer as a client read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// Every header field, in order: name as sent, value without the
    /// spaces and tabs around it.
    pub fields: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    /// `None` when `raw` is not an HTTP/1.x answer with a head, a blank
    /// line and a three-digit status.
    pub fn parse(raw: &[u8]) -> Option<Answer> {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n")?;
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .filter(|l| l.starts_with("HTTP/1."))
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .filter(|s| (100..=999).contains(s))?;
        let fields = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(name, value)| {
                let value = value.trim_matches(|c| c == ' ' || c == '\t');
                (name.to_string(), value.to_string())
            })
            .collect();
        Some(Answer {
            status,
            fields,
            body: body.to_string(),
        })
    }

    /// The values of every field named `name` (any case), in order.
    pub fn fields<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.fields
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// `%XX` for every byte but letters, digits and `-._~`.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Reads a request's head (up to the blank line, at most 5 s and
/// [`MAX_MESSAGE`] bytes); returns its first line.
pub fn request_line(stream: &mut TcpStream) -> String {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(HEAD_WAIT));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_MESSAGE {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&head)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// The target of a request line (`/` when there is none).
pub fn target(request_line: &str) -> &str {
    request_line.split(' ').nth(1).unwrap_or("/")
}

/// The value of `key` in a target's query string, as sent (not decoded).
pub fn query<'a>(target: &'a str, key: &str) -> Option<&'a str> {
    let (_, q) = target.split_once('?')?;
    q.split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes one whole answer (its length, `Connection: close`, then
/// `fields`); the connection closes when the stream is dropped.
pub fn respond(stream: &mut TcpStream, status: u16, fields: &[(&str, &str)], body: &str) {
    let fields: String = fields
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let answer = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n{fields}\r\n{body}",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(answer.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn answers_parse_with_every_field_in_order() {
        let raw = b"HTTP/1.1 503 Busy\r\nRetry-After: 1 \r\nretry-after:\tsoon\r\n\r\nbody";
        let a = Answer::parse(raw).unwrap();
        assert_eq!(a.status, 503);
        assert_eq!(a.fields("Retry-After").collect::<Vec<_>>(), ["1", "soon"]);
        assert_eq!(a.body, "body");
        assert_eq!(Answer::parse(b"HTTP/1.1 200 OK\r\n"), None);
        assert_eq!(Answer::parse(b"SMTP 200 OK\r\n\r\n"), None);
        assert_eq!(Answer::parse(b"HTTP/1.1 42 Odd\r\n\r\n"), None);
    }

    #[test]
    fn targets_queries_and_encoding() {
        let line = "GET /quote?id=r%201&item=bolt&quantity=2 HTTP/1.1";
        assert_eq!(query(target(line), "id"), Some("r%201"));
        assert_eq!(query(target(line), "quantity"), Some("2"));
        assert_eq!(query(target(line), "size"), None);
        assert_eq!(target(""), "/");
        assert_eq!(encode("r 1/é"), "r%201%2F%C3%A9");
    }

    #[test]
    fn a_server_and_a_client_talk() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let line = request_line(&mut stream);
            respond(&mut stream, 429, &[("Retry-After", "2")], "later\n");
            line
        });
        let raw = exchange(addr, &request("GET", "/x?a=1", addr), 5.0, &|| false).unwrap();
        assert_eq!(server.join().unwrap(), "GET /x?a=1 HTTP/1.1");
        let a = Answer::parse(&raw).unwrap();
        assert_eq!((a.status, a.body.as_str()), (429, "later\n"));
        assert_eq!(a.fields("retry-after").collect::<Vec<_>>(), ["2"]);
        assert!(matches!(
            exchange(addr, "", 0.0, &|| false),
            Err(Failure::NoTime)
        ));
    }

    #[test]
    fn a_silent_server_times_out_or_is_given_up_on() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let timed = exchange(addr, &request("GET", "/", addr), 0.1, &|| false);
        assert!(timed.as_ref().is_err_and(Failure::timed_out), "{timed:?}");
        let stopped = exchange(addr, &request("GET", "/", addr), 60.0, &|| true);
        assert!(stopped.is_err_and(|f| f.timed_out()));
        drop(listener);
    }
}
