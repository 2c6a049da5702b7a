//! The HTTP that `probe serve` speaks: one `GET` answered per connection,
//! then closed — what a Prometheus scrape needs and nothing more.
//!
//! Whoever connects is untrusted. A request's head (request line and
//! headers) is read through a bounded buffer: at most [`HEAD_LIMIT`] bytes
//! and [`HEAD_TIME`], else it is answered `431` or `408` and dropped, so no
//! client decides how much memory the probe holds or how long it waits.
//! Connections are served one at a time, each within those bounds.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The most a request's head may take; a scrape's is a few hundred bytes.
pub const HEAD_LIMIT: usize = 16 << 10;
/// How long a client may take to send its head.
pub const HEAD_TIME: Duration = Duration::from_secs(2);

/// A listening socket, polled so that it can stop.
pub struct Server {
    listener: TcpListener,
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
        Ok(Self { listener })
    }

    pub fn address(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Answer connections with `answer` until `stop`.
    pub fn run(&self, stop: &AtomicBool, answer: impl Fn(&Request<'_>) -> Response) {
        while !stop.load(Ordering::Relaxed) {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    // A client that misbehaves only loses its own answer.
                    let _ = serve_one(stream, &answer);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

fn serve_one(
    mut stream: TcpStream,
    answer: &impl Fn(&Request<'_>) -> Response,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(HEAD_TIME))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let response = match read_head(&mut stream) {
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
    write_response(&mut stream, &response)
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
    let deadline = std::time::Instant::now() + HEAD_TIME;
    loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            return Ok(head);
        }
        if head.len() >= HEAD_LIMIT {
            return Err(Refusal::TooLarge);
        }
        if std::time::Instant::now() >= deadline {
            return Err(Refusal::TooSlow);
        }
        let want = buf.len().min(HEAD_LIMIT - head.len());
        match stream.read(&mut buf[..want]) {
            Ok(0) => return Err(Refusal::Closed),
            Ok(n) => head.extend_from_slice(&buf[..n]),
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

fn write_response(stream: &mut TcpStream, r: &Response) -> std::io::Result<()> {
    let reason = match r.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        _ => "",
    };
    write!(
        stream,
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        r.status,
        r.content_type,
        r.body.len()
    )?;
    stream.write_all(r.body.as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
