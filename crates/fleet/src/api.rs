//! Prometheus's HTTP API (and servers that speak it: Thanos, VictoriaMetrics,
//! Mimir), behind a trait so the pull is tested against recorded answers as
//! well as a real server.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

/// Why a call failed: worth retrying (the server is away for a moment, or
/// busy and says when to come back) or not (it said no, or said something
/// we cannot read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    Transient(String),
    /// HTTP 429 or 503: the server is shedding load; `Retry-After`, where
    /// it sent one, says how long it asks the client to wait.
    Busy {
        message: String,
        retry_after: Option<Duration>,
    },
    Refused(String),
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Transient(m) | ApiError::Refused(m) => f.write_str(m),
            ApiError::Busy { message, .. } => f.write_str(message),
        }
    }
}

/// A `Retry-After` value (RFC 9110 §10.2.3): a number of seconds, or an
/// HTTP date, read against `now`. `None` for anything else.
pub fn retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(Duration::try_from(at.duration_since(now)).unwrap_or(Duration::ZERO))
}

/// A Prometheus-compatible server.
pub trait PromApi: Sync {
    /// `GET {path}?{params}`; the answer's `data`, or why there is none.
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<Value, ApiError>;

    /// The same answer as the server wrote it (a whole API document), for
    /// a caller that reads it without building a tree of it: a range answer
    /// held as `Value`s takes ten times its text.
    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
        let data = self.get(path, params)?;
        Ok(serde_json::json!({ "status": "success", "data": data }).to_string())
    }
}

/// The most a token file may hold.
const TOKEN_LIMIT: u64 = 64 << 10;

/// How to authenticate. Secrets come from the environment or a file, never
/// from a flag's value (shell history, process lists) nor into provenance.
#[derive(Clone, Default)]
pub enum Credentials {
    #[default]
    None,
    Bearer(String),
    /// `user:password`.
    Basic(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Credentials::None => "none",
            Credentials::Bearer(_) => "bearer token (hidden)",
            Credentials::Basic(_) => "basic auth (hidden)",
        })
    }
}

impl Credentials {
    /// From the named sources, at most one of which may be given.
    pub fn from_sources(
        token_env: Option<&str>,
        token_file: Option<&Path>,
        basic_env: Option<&str>,
    ) -> Result<Credentials, String> {
        let env = |name: &str| {
            std::env::var(name)
                .map(|v| v.trim().to_string())
                .ok()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("the environment variable {name} is not set"))
        };
        match (token_env, token_file, basic_env) {
            (None, None, None) => Ok(Credentials::None),
            (Some(name), None, None) => Ok(Credentials::Bearer(env(name)?)),
            (None, Some(path), None) => {
                // A token is a few kilobytes at most; /dev/zero or a log
                // named by mistake is not read to its end.
                use std::io::Read;
                let mut bytes = Vec::new();
                std::fs::File::open(path)
                    .and_then(|f| f.take(TOKEN_LIMIT + 1).read_to_end(&mut bytes))
                    .map_err(|e| format!("{}: cannot read the token: {e}", path.display()))?;
                if bytes.len() as u64 > TOKEN_LIMIT {
                    return Err(format!(
                        "{}: more than {} KiB; a token file holds one token",
                        path.display(),
                        TOKEN_LIMIT >> 10
                    ));
                }
                let token = String::from_utf8(bytes)
                    .map_err(|_| format!("{}: the token is not text", path.display()))?;
                let token = token.trim();
                if token.is_empty() {
                    return Err(format!("{}: the token file is empty", path.display()));
                }
                Ok(Credentials::Bearer(token.to_string()))
            }
            (None, None, Some(name)) => {
                let pair = env(name)?;
                if !pair.contains(':') {
                    return Err(format!("{name} must hold user:password"));
                }
                Ok(Credentials::Basic(pair))
            }
            _ => Err("give one way to authenticate, not several".into()),
        }
    }

    fn header(&self) -> Option<String> {
        use base64::Engine;
        match self {
            Credentials::None => None,
            Credentials::Bearer(t) => Some(format!("Bearer {t}")),
            Credentials::Basic(pair) => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair.as_bytes())
            )),
        }
    }
}

/// The URL as provenance may keep it: no user or password in it.
pub fn without_credentials(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    }
}

/// The real server, over HTTP(S): system roots, or a CA file's.
pub struct HttpApi {
    agent: ureq::Agent,
    base: String,
    auth: Option<String>,
}

impl HttpApi {
    pub fn new(
        url: &str,
        credentials: &Credentials,
        ca_file: Option<&Path>,
        timeout: Duration,
    ) -> Result<HttpApi, String> {
        let base = url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            // Said without any password written into it.
            return Err(format!(
                "{}: give the server's http:// or https:// address",
                without_credentials(url)
            ));
        }
        // Credentials written into the URL are taken out of it and sent as
        // basic auth, so the URL kept anywhere carries none.
        let mut auth = credentials.header();
        let clean = without_credentials(&base);
        if clean != base {
            if auth.is_some() {
                return Err("credentials are both in the URL and given otherwise".into());
            }
            let userinfo = base
                .split_once("://")
                .and_then(|(_, rest)| rest.split('/').next())
                .and_then(|a| a.rsplit_once('@'))
                .map(|(u, _)| u.to_string())
                .unwrap_or_default();
            auth = Credentials::Basic(userinfo).header();
        }
        let roots = match ca_file {
            None => ureq::tls::RootCerts::PlatformVerifier,
            Some(path) => {
                let pem = read_ca_file(path)?;
                let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                    .filter_map(|item| match item {
                        Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                        _ => None,
                    })
                    .collect();
                if certs.is_empty() {
                    return Err(format!("{}: no certificate in the CA file", path.display()));
                }
                ureq::tls::RootCerts::new_with_certs(&certs)
            }
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
            .build()
            .into();
        Ok(HttpApi {
            agent,
            base: clean,
            auth,
        })
    }

    pub fn url(&self) -> &str {
        &self.base
    }
}

/// The most bytes a CA file may hold: a system's whole bundle of roots is
/// about 200 KB.
const CA_FILE_LIMIT: u64 = 4 << 20;

/// A CA file's bytes, bounded by what is read — a device or a pipe says
/// its size is 0, and /dev/zero never ends.
fn read_ca_file(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let shown = breakpoint_core::text::printable(&path.display().to_string()).into_owned();
    let file =
        std::fs::File::open(path).map_err(|e| format!("{shown}: cannot read the CA file: {e}"))?;
    let mut pem = Vec::new();
    file.take(CA_FILE_LIMIT + 1)
        .read_to_end(&mut pem)
        .map_err(|e| format!("{shown}: cannot read the CA file: {e}"))?;
    if pem.len() as u64 > CA_FILE_LIMIT {
        return Err(format!(
            "{shown}: larger than {} MiB: not a CA file (a system's whole bundle is about 200 KB)",
            CA_FILE_LIMIT >> 20
        ));
    }
    Ok(pem)
}

/// An answer to one chunk of one node's range is a few megabytes (the pull
/// asks for at most 11 000 points of each of a node's series); one past
/// this, inflated, is refused before it is read further.
pub const BODY_LIMIT: u64 = 64 << 20;

impl PromApi for HttpApi {
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<Value, ApiError> {
        let (body, status) = self.call(path, params)?;
        answer_data(&body, status)
    }

    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
        Ok(self.call(path, params)?.0)
    }
}

impl HttpApi {
    /// One request: the body (at most [`BODY_LIMIT`] once inflated) and the
    /// status, or why there is none.
    fn call(&self, path: &str, params: &[(&str, String)]) -> Result<(String, u16), ApiError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.agent.get(&url);
        for (k, v) in params {
            request = request.query(*k, v);
        }
        if let Some(auth) = &self.auth {
            request = request.header("Authorization", auth);
        }
        let mut response = request.call().map_err(|e| match e {
            ureq::Error::Timeout(_) => ApiError::Transient(format!("{}: timed out", self.base)),
            ureq::Error::Io(e) => ApiError::Transient(match e.kind() {
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset => {
                    format!("{}: cannot connect ({e})", self.base)
                }
                _ => format!("{}: {e}", self.base),
            }),
            ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                ApiError::Transient(format!("{}: cannot connect ({e})", self.base))
            }
            other => ApiError::Refused(format!("{}: {other}", self.base)),
        })?;
        let status = response.status().as_u16();
        let wait = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, jiff::Timestamp::now()));
        let body = read_bounded(&mut response.body_mut().as_reader(), &self.base)?;
        match status {
            401 | 403 => {
                return Err(ApiError::Refused(format!(
                    "{}: the server refused the credentials (HTTP {status})",
                    self.base
                )));
            }
            429 | 503 => {
                return Err(ApiError::Busy {
                    message: format!(
                        "{}: HTTP {status}: {}",
                        self.base,
                        breakpoint_core::text::printable_excerpt(&body, 200)
                    ),
                    retry_after: wait,
                });
            }
            500..=599 => {
                return Err(ApiError::Transient(format!(
                    "{}: HTTP {status}: {}",
                    self.base,
                    breakpoint_core::text::printable_excerpt(&body, 200)
                )));
            }
            _ => {}
        }
        Ok((body, status))
    }
}

/// An answer's body, inflated, in at most [`BODY_LIMIT`] bytes of memory:
/// read in pieces into a buffer that never grows past the limit, and
/// refused — not retried — at the first byte beyond it (a gzip bomb is as
/// large the next time).
fn read_bounded(reader: &mut impl std::io::Read, base: &str) -> Result<String, ApiError> {
    let mut body = Vec::with_capacity(1 << 20);
    let mut piece = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(ApiError::Transient(format!(
                    "{base}: the answer was cut off: {e}"
                )));
            }
        };
        if body.len() + n > BODY_LIMIT as usize {
            return Err(ApiError::Refused(format!(
                "{base}: an answer larger than {} MiB once inflated: refused",
                BODY_LIMIT >> 20
            )));
        }
        if body.len() + n > body.capacity() {
            // Doubling, but never past the limit.
            let want = (body.capacity() * 2).clamp(body.len() + n, BODY_LIMIT as usize);
            body.reserve_exact(want - body.len());
        }
        body.extend_from_slice(&piece[..n]);
    }
    String::from_utf8(body)
        .map_err(|_| ApiError::Refused(format!("{base}: the answer is not UTF-8 text: refused")))
}

/// The `data` of an API answer, or the server's own error.
pub fn answer_data(body: &str, status: u16) -> Result<Value, ApiError> {
    let doc: Value = serde_json::from_str(body).map_err(|e| {
        ApiError::Refused(format!(
            "HTTP {status}, not a Prometheus API answer ({e}): {}",
            breakpoint_core::text::printable_excerpt(body, 200)
        ))
    })?;
    if doc.get("status").and_then(Value::as_str) != Some("success") {
        // The server's words, but not all of them (some answer pages).
        let said = |key: &str, default: &str| {
            breakpoint_core::text::printable_excerpt(
                doc.get(key).and_then(Value::as_str).unwrap_or(default),
                200,
            )
        };
        return Err(ApiError::Refused(format!(
            "the server answered {}: {}",
            said("errorType", "an error"),
            said("error", "no message")
        )));
    }
    doc.get("data")
        .cloned()
        .ok_or_else(|| ApiError::Refused("the answer holds no data".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_ca_file_that_never_ends_is_refused_at_its_bound() {
        let e = read_ca_file(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("/dev/zero: larger than 4 MiB"), "{e}");
        let e = HttpApi::new(
            "http://127.0.0.1:9",
            &Credentials::None,
            Some(Path::new("/dev/zero")),
            Duration::from_secs(1),
        )
        .err()
        .unwrap();
        assert!(e.contains("larger than 4 MiB"), "{e}");
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        let now: jiff::Timestamp = "2026-12-05T07:28:00Z".parse().unwrap();
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Sat, 05 Dec 2026 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        // A date already past: ask again at once.
        assert_eq!(
            retry_after("Sat, 05 Dec 2026 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }

    #[test]
    fn an_answer_past_the_limit_is_refused_not_retried() {
        use std::io::Read;
        let mut small = &b"{\"status\":\"success\"}"[..];
        assert_eq!(
            read_bounded(&mut small, "http://p").ok().as_deref(),
            Some("{\"status\":\"success\"}")
        );
        let mut bomb = std::io::repeat(b'0').take(BODY_LIMIT + 1);
        match read_bounded(&mut bomb, "http://p") {
            Err(ApiError::Refused(why)) => assert!(why.contains("larger than 64 MiB"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// A server on a local port that answers each request with `answer`.
    fn answering(answer: &'static str, requests: usize) -> String {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(requests) {
                let mut stream = stream.unwrap();
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        url
    }

    #[test]
    fn a_server_shedding_load_is_busy_with_its_retry_after_and_a_failing_one_transient() {
        let api = |url: &str| {
            HttpApi::new(url, &Credentials::None, None, Duration::from_secs(5)).unwrap()
        };
        let url = answering(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy",
            1,
        );
        match api(&url).get("/api/v1/series", &[]) {
            Err(ApiError::Busy {
                message,
                retry_after,
            }) => {
                assert_eq!(retry_after, Some(Duration::from_secs(7)));
                assert!(message.contains("HTTP 429: busy"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let url = answering(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            1,
        );
        assert!(matches!(
            api(&url).get("/api/v1/series", &[]),
            Err(ApiError::Busy {
                retry_after: None,
                ..
            })
        ));
        let url = answering(
            "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            1,
        );
        assert!(matches!(
            api(&url).get("/api/v1/series", &[]),
            Err(ApiError::Transient(_))
        ));
    }

    #[test]
    fn credentials_never_stay_in_the_url() {
        assert_eq!(
            without_credentials("https://ops:s3cret@prom.example:9090/api"),
            "https://prom.example:9090/api"
        );
        assert_eq!(
            without_credentials("http://127.0.0.1:9090"),
            "http://127.0.0.1:9090"
        );
        let api = HttpApi::new(
            "http://ops:s3cret@127.0.0.1:9",
            &Credentials::None,
            None,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(api.url(), "http://127.0.0.1:9");
        assert_eq!(api.auth.as_deref(), Some("Basic b3BzOnMzY3JldA=="));
        assert!(format!("{:?}", Credentials::Bearer("x".into())).contains("hidden"));
        // A wrong scheme is said without the password.
        let e = HttpApi::new(
            "ftp://ops:s3cret@prom.example/x",
            &Credentials::None,
            None,
            Duration::from_secs(1),
        )
        .err()
        .unwrap();
        assert!(
            !e.contains("s3cret") && e.contains("ftp://prom.example/x"),
            "{e}"
        );
    }

    #[test]
    fn server_errors_are_said_as_the_server_says_them() {
        let e = answer_data(
            r#"{"status":"error","errorType":"bad_data","error":"parse error at char 3"}"#,
            400,
        )
        .unwrap_err();
        assert_eq!(
            e,
            ApiError::Refused("the server answered bad_data: parse error at char 3".into())
        );
        assert!(matches!(
            answer_data("<html>gateway</html>", 200),
            Err(ApiError::Refused(_))
        ));
        // A 5 kB message is cut to an excerpt.
        let long = format!(
            r#"{{"status":"error","errorType":"internal","error":"{}"}}"#,
            "x".repeat(5000)
        );
        let e = answer_data(&long, 500).unwrap_err().to_string();
        assert!(e.len() < 400 && e.ends_with("more bytes)"), "{e}");
    }

    #[test]
    fn a_token_file_is_read_up_to_a_limit() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; 100 << 10]).unwrap();
        let e = Credentials::from_sources(None, Some(&big), None).unwrap_err();
        assert!(e.contains("more than 64 KiB"), "{e}");
        #[cfg(unix)]
        {
            let e =
                Credentials::from_sources(None, Some(Path::new("/dev/zero")), None).unwrap_err();
            assert!(e.contains("more than 64 KiB"), "{e}");
        }
        let ok = dir.path().join("token");
        std::fs::write(&ok, "abc\n").unwrap();
        assert!(matches!(
            Credentials::from_sources(None, Some(&ok), None),
            Ok(Credentials::Bearer(t)) if t == "abc"
        ));
    }
}
