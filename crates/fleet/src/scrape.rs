//! The HTTP that `probe serve` speaks: one `GET` answered per connection,
//! then closed — what a Prometheus scrape needs and nothing more.
//!
//! Whoever connects is untrusted. A request's head (request line and
//! headers) is read through a bounded buffer: at most [`HEAD_LIMIT`] bytes
//! and [`HEAD_TIME`], else it is answered `431` or `408` and dropped, so no
//! client decides how much memory the probe holds or how long it waits.
//!
//! Each connection is served on its own thread, so a client that is slow
//! or silent only holds up itself: a scrape never waits behind it. At most
//! [`CONNECTION_LIMIT`] are served at once; one past that is answered `503`
//! at once by the accepting thread and closed, never queued, so neither
//! threads nor sockets grow with what clients open.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Scope;
use std::time::{Duration, Instant};

/// The most a request's head may take; a scrape's is a few hundred bytes.
pub const HEAD_LIMIT: usize = 16 << 10;
/// How long a client may take to send its head.
pub const HEAD_TIME: Duration = Duration::from_secs(2);
/// How long a client may take to take the answer: a reader that stalls
/// would otherwise keep its thread and its place.
pub const WRITE_TIME: Duration = Duration::from_secs(5);
/// Connections served at once. A Prometheus pair needs two; the rest is
/// room for dashboards and people with curl, while a flood of idle sockets
/// costs at most this many threads.
pub const CONNECTION_LIMIT: usize = 64;

/// How often an idle listener looks for a connection (and for `stop`).
const POLL: Duration = Duration::from_millis(50);
/// How often it looks for one while connections are coming in: the
/// kernel's queue of them (128) fills within one idle poll under a burst,
/// and each connection dropped then waits a second or more to be retried.
const BURST_POLL: Duration = Duration::from_millis(1);
/// How long after a connection the listener keeps looking that often.
const BURST: Duration = Duration::from_secs(1);

/// A listening socket, polled so that it can stop.
pub struct Server {
    listener: TcpListener,
    connection_limit: usize,
    /// Connections being served now.
    open: AtomicUsize,
}

/// A request as far as serving needs it.
pub struct Request<'a> {
    pub method: &'a str,
    /// Without its query string.
    pub path: &'a str,
}

/// An answer: status, content type and body.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Server {
    pub fn bind(address: SocketAddr) -> std::io::Result<Self> {
        let listener = TcpListener::bind(address)?;
        listener.set_nonblocking(true)?;
        Ok(Self {
            listener,
            connection_limit: CONNECTION_LIMIT,
            open: AtomicUsize::new(0),
        })
    }

    pub fn address(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Answer connections with `answer` until `stop`; returns once the
    /// connections still open have been answered, each within its bounds.
    pub fn run(&self, stop: &AtomicBool, answer: impl Fn(&Request<'_>) -> Response + Sync) {
        let answer = &answer;
        std::thread::scope(|scope| {
            let mut last = None::<Instant>;
            while !stop.load(Ordering::Relaxed) {
                match self.listener.accept() {
                    Ok((stream, _)) => {
                        last = Some(Instant::now());
                        self.dispatch(scope, stream, answer);
                    }
                    // Nothing waiting, or a passing failure such as running
                    // out of descriptors: look again shortly.
                    Err(_) => std::thread::sleep(match last {
                        Some(t) if t.elapsed() < BURST => BURST_POLL,
                        _ => POLL,
                    }),
                }
            }
        });
    }

    fn dispatch<'scope, 'env>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        stream: TcpStream,
        answer: &'env (impl Fn(&Request<'_>) -> Response + Sync),
    ) {
        let Some(slot) = Slot::take(&self.open, self.connection_limit) else {
            refuse_busy(&stream);
            return;
        };
        // Should the thread not start, the closure is dropped with the
        // stream and the slot: the client sees its connection closed.
        let _ = std::thread::Builder::new()
            .name("probe-serve-http".into())
            .spawn_scoped(scope, move || {
                let _slot = slot;
                // A client that misbehaves only loses its own answer.
                let _ = serve_one(&stream, answer);
            });
    }

    #[cfg(test)]
    fn with_connection_limit(mut self, limit: usize) -> Self {
        self.connection_limit = limit;
        self
    }

    #[cfg(test)]
    fn open_connections(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }
}

/// One place among the connections served at once, given back on drop so
/// that no way out of a connection's thread can leak it.
struct Slot<'a>(&'a AtomicUsize);

impl<'a> Slot<'a> {
    fn take(open: &'a AtomicUsize, limit: usize) -> Option<Self> {
        open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < limit).then_some(n + 1)
        })
        .ok()
        .map(|_| Self(open))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Past the limit: said on the accepting thread without waiting on the
/// client for anything, so a flood cannot slow the accepting of scrapes.
fn refuse_busy(stream: &TcpStream) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    // A fresh connection's send buffer takes these few hundred bytes whole,
    // so one write that cannot block is enough.
    let _ = (&*stream).write(&encode(&plain(
        503,
        "too many connections at once; try again\n",
    )));
    let _ = stream.shutdown(Shutdown::Write);
    // Closing on unread bytes sends a reset, which may cost the client the
    // answer it has not read yet; what already came is read off first.
    let mut sink = [0u8; 4096];
    for _ in 0..4 {
        if !matches!((&*stream).read(&mut sink), Ok(n) if n > 0) {
            break;
        }
    }
}

fn serve_one(
    stream: &TcpStream,
    answer: &impl Fn(&Request<'_>) -> Response,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    let mut reader = ByDeadline {
        stream,
        deadline: Instant::now() + HEAD_TIME,
    };
    let response = match read_head(&mut reader) {
        Ok(head) => match parse(&head) {
            Some(request) => answer(&request),
            None => plain(
                400,
                "a request line like GET /metrics HTTP/1.1 was expected\n",
            ),
        },
        Err(Refusal::TooLarge) => plain(431, "the request's head is too large\n"),
        Err(Refusal::TooSlow) => plain(408, "the request's head did not arrive in time\n"),
        Err(Refusal::Closed) => return Ok(()),
    };
    write_by(stream, &encode(&response), Instant::now() + WRITE_TIME)
}

/// Reads that all end by one deadline: a client trickling a byte at a time
/// gets no fresh timeout with each.
struct ByDeadline<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for ByDeadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        (&*self.stream).read(buf)
    }
}

enum Refusal {
    TooLarge,
    TooSlow,
    Closed,
}

/// Bytes up to the blank line that ends a request's head.
fn read_head(stream: &mut impl Read) -> Result<Vec<u8>, Refusal> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    let deadline = Instant::now() + HEAD_TIME;
    loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            return Ok(head);
        }
        if head.len() >= HEAD_LIMIT {
            return Err(Refusal::TooLarge);
        }
        if Instant::now() >= deadline {
            return Err(Refusal::TooSlow);
        }
        let want = buf.len().min(HEAD_LIMIT - head.len());
        match stream.read(&mut buf[..want]) {
            Ok(0) => return Err(Refusal::Closed),
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Refusal::TooSlow);
            }
            Err(_) => return Err(Refusal::Closed),
        }
    }
}

/// "GET /metrics?x=1 HTTP/1.1" → method and path.
fn parse(head: &[u8]) -> Option<Request<'_>> {
    let line_end = head.iter().position(|b| *b == b'\n')?;
    let line = std::str::from_utf8(&head[..line_end]).ok()?.trim_end();
    let mut parts = line.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if !version.starts_with("HTTP/1.") || parts.next().is_some() {
        return None;
    }
    let path = target.split('?').next().unwrap_or(target);
    Some(Request { method, path })
}

pub fn plain(status: u16, body: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.to_string(),
    }
}

/// The whole answer, status line to body, as the bytes to send.
fn encode(r: &Response) -> Vec<u8> {
    let reason = match r.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "",
    };
    let mut bytes = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        r.status,
        r.content_type,
        r.body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(r.body.as_bytes());
    bytes
}

/// All of `bytes` by `deadline`, however slowly the client reads.
fn write_by(stream: &TcpStream, mut bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        match (&*stream).write(bytes) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn metrics(request: &Request<'_>) -> Response {
        if request.path == "/metrics" {
            plain(200, "up 1\n")
        } else {
            plain(404, "no\n")
        }
    }

    /// One request on a fresh connection; the whole answer, as far as it came.
    fn ask(address: SocketAddr, head: &[u8]) -> String {
        ask_within(address, head, Duration::from_secs(5))
    }

    fn ask_within(address: SocketAddr, head: &[u8], wait: Duration) -> String {
        let mut stream = TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(wait)).unwrap();
        let _ = stream.write_all(head);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    }

    fn server() -> (Server, SocketAddr) {
        let server = Server::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let address = server.address().unwrap();
        (server, address)
    }

    /// Stops the server when a test ends, failed assertions included, so
    /// that a failure is reported rather than waiting on the server forever.
    struct StopOnDrop<'a>(&'a AtomicBool);

    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    const SCRAPE: &[u8] = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

    #[test]
    fn idle_connections_do_not_delay_a_scrape() {
        // One at a time, each idle client held the next for HEAD_TIME: ten
        // of them pushed a scrape past Prometheus's 10 s timeout.
        let (server, address) = server();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| server.run(&stop, metrics));
            let _stop = StopOnDrop(&stop);
            // Ten clients that hold their connection and never finish a
            // head: half send nothing, half half a request line.
            let idle: Vec<TcpStream> = (0..10)
                .map(|i| {
                    let mut s = TcpStream::connect(address).unwrap();
                    if i % 2 == 1 {
                        s.write_all(b"GET /met").unwrap();
                    }
                    s
                })
                .collect();
            // Let the server take them all in before the scrape arrives.
            std::thread::sleep(Duration::from_millis(200));
            let started = Instant::now();
            let answer = ask(address, SCRAPE);
            let took = started.elapsed();
            stop.store(true, Ordering::Relaxed);
            drop(idle);
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
            assert!(answer.ends_with("up 1\n"), "{answer}");
            assert!(
                took < Duration::from_millis(1500),
                "the scrape took {took:?}"
            );
        });
    }

    #[test]
    fn a_head_ends_at_its_blank_line_and_is_refused_past_the_limit() {
        let mut ok = &b"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\nrest"[..];
        let head = read_head(&mut ok).ok().unwrap_or_default();
        let r = parse(&head).map(|r| (r.method.to_string(), r.path.to_string()));
        assert_eq!(r, Some(("GET".into(), "/metrics".into())));
        let huge = [b'a'; 1 << 20];
        let mut huge = &huge[..];
        assert!(matches!(read_head(&mut huge), Err(Refusal::TooLarge)));
        assert!(matches!(
            read_head(&mut &b"GET /"[..]),
            Err(Refusal::Closed)
        ));
        assert!(parse(b"nonsense\r\n\r\n").is_none());
    }

    #[test]
    fn past_the_limit_a_connection_is_refused_at_once_not_queued() {
        let (server, address) = server();
        let server = server.with_connection_limit(4);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| server.run(&stop, metrics));
            let _stop = StopOnDrop(&stop);
            let mut idle: Vec<TcpStream> = (0..4)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            // Accepted in the order they connected, so the four hold every
            // place by the time the next is taken in.
            let started = Instant::now();
            let refused = ask(address, SCRAPE);
            let took = started.elapsed();
            assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
            assert!(took < Duration::from_millis(1500), "refused after {took:?}");
            assert_eq!(server.open_connections(), 4);

            // Once the idle ones run out of time their places are free.
            for s in &mut idle {
                s.set_read_timeout(Some(HEAD_TIME * 3)).unwrap();
                let mut answer = Vec::new();
                let _ = s.read_to_end(&mut answer);
                let answer = String::from_utf8_lossy(&answer);
                assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            let answer = loop {
                let answer = ask(address, SCRAPE);
                if answer.starts_with("HTTP/1.1 200") || Instant::now() > deadline {
                    break answer;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            stop.store(true, Ordering::Relaxed);
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        });
        assert_eq!(server.open_connections(), 0);
    }

    #[test]
    fn a_head_trickled_in_is_cut_off_at_its_time() {
        let (server, address) = server();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| server.run(&stop, metrics));
            let _stop = StopOnDrop(&stop);
            let mut s = TcpStream::connect(address).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            let started = Instant::now();
            let mut answer = Vec::new();
            // A byte at a time, each well inside any per-read timeout.
            for b in b"GET /metrics HTTP/1.1\r\nX-Slow: ".iter().cycle() {
                if s.write_all(&[*b]).is_err() {
                    break;
                }
                let mut buf = [0u8; 512];
                match s.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => answer.extend_from_slice(&buf[..n]),
                    Err(_) => {}
                }
                if !answer.is_empty() || started.elapsed() > HEAD_TIME * 3 {
                    break;
                }
            }
            let took = started.elapsed();
            stop.store(true, Ordering::Relaxed);
            let answer = String::from_utf8_lossy(&answer);
            assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
            assert!(took < HEAD_TIME + Duration::from_millis(1500), "{took:?}");
        });
    }

    #[test]
    fn malformed_requests_are_refused_and_a_thousand_scrapes_at_once_all_answered() {
        let (server, address) = server();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| server.run(&stop, metrics));
            let _stop = StopOnDrop(&stop);
            let bad = ask(address, b"nonsense\r\n\r\n");
            assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
            let bad = ask(address, b"\xff\xfe /metrics HTTP/1.1\r\n\r\n");
            assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
            let other = ask(address, b"GET /other HTTP/1.1\r\n\r\n");
            assert!(other.starts_with("HTTP/1.1 404"), "{other}");
            let mut huge = b"GET /metrics HTTP/1.1\r\nX-Junk: ".to_vec();
            huge.resize(huge.len() + (8 << 20), b'a');
            let refused = ask(address, &huge);
            assert!(refused.starts_with("HTTP/1.1 431"), "{refused:.200}");

            // The kernel queues at most 128 connections not yet accepted; a
            // thousand at once overflow it and those dropped are retried
            // after 1, 3, 7 s whatever the server does, hence the wait.
            let answers: Vec<String> = (0..1000)
                .map(|_| scope.spawn(|| ask_within(address, SCRAPE, Duration::from_secs(30))))
                .collect::<Vec<_>>()
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect();
            let served = answers
                .iter()
                .filter(|a| a.starts_with("HTTP/1.1 200"))
                .count();
            // Past the limit a client is told to come back, never left
            // without an answer.
            for a in &answers {
                assert!(
                    a.starts_with("HTTP/1.1 200") || a.starts_with("HTTP/1.1 503"),
                    "{a}"
                );
            }
            assert!(served > 0);
            let after = ask(address, SCRAPE);
            stop.store(true, Ordering::Relaxed);
            assert!(after.starts_with("HTTP/1.1 200"), "{after}");
        });
    }
}
