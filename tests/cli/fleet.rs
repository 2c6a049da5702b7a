//! `import --prometheus` and `probe serve` through the binary, against a
//! small recorded server (the real Prometheus runs in tests/fleet).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use crate::util::Workspace;

/// Answers Prometheus API calls with recorded bodies; 401 without the
/// right bearer token.
fn recorded_server(token: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            reader.read_line(&mut request).unwrap();
            let mut authorised = false;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                    break;
                }
                if line.to_ascii_lowercase().starts_with("authorization:") {
                    authorised = line.trim_end().ends_with(&format!("Bearer {token}"));
                }
            }
            let path = request.split(' ').nth(1).unwrap_or("");
            let (status, body) = if !authorised {
                ("401 Unauthorized", "Unauthorized\n".to_string())
            } else if path.starts_with("/api/v1/series") {
                (
                    "200 OK",
                    r#"{"status":"success","data":[{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-1","Hostname":"node-a"}]}"#.to_string(),
                )
            } else {
                (
                    "200 OK",
                    r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-1","Hostname":"node-a","modelName":"NVIDIA H100 80GB HBM3"},"values":[[1780300800,"650.5"],[1780300815,"651.5"],[1780300830,"652.5"]]}]}}"#.to_string(),
                )
            };
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

#[test]
fn a_pull_through_the_binary_with_a_token_from_the_environment() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Cluster"]);
    let url = recorded_server("s3cret");
    let args = [
        "import",
        "--prometheus",
        &url,
        "--from",
        "2026-06-01T08:00:00Z",
        "--to",
        "2026-06-01T08:00:30Z",
        "--platform",
        "Cluster",
        "--token-env",
        "PROM_TOKEN",
    ];
    // A wrong token: refused as such, nothing stored.
    let out = ws.cmd(&args).env("PROM_TOKEN", "wrong").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refused the credentials (HTTP 401)") && !stderr.contains("wrong"),
        "{stderr}"
    );
    assert!(ws.json(&["runs", "list"]).as_array().unwrap().is_empty());

    let out = ws.cmd(&args).env("PROM_TOKEN", "s3cret").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("pulled 1 node(s) of Cluster"), "{text}");
    let run = ws.json(&["runs", "show", "1"]);
    assert_eq!(run["sample_count"], 3);
    assert_eq!(run["metadata"]["prometheus"]["node"], "node-a");
    assert_eq!(run["metadata"]["prometheus"]["url"], url);
    assert!(
        !run.to_string().contains("s3cret"),
        "no secret in provenance"
    );
    // The same range again: nothing added.
    let again = ws.cmd(&args).env("PROM_TOKEN", "s3cret").output().unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("already imported"));
    assert_eq!(ws.json(&["runs", "list"]).as_array().unwrap().len(), 1);
}

/// `probe serve` on a free loopback port over the recorded trace: the
/// child and the address it bound.
fn start_serve(ws: &Workspace) -> (std::process::Child, String) {
    let trace = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/probe/trace.json");
    let mut child = ws
        .process(&[
            "probe",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--interval",
            "200ms",
            "--host",
            "node-x",
            "--replay-trace",
            trace.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("serving http://")
        .and_then(|l| l.split('/').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    (child, addr)
}

fn scrape(addr: &str, head: &[u8]) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    // A server that refuses early may close before all of it is written.
    let _ = stream.write_all(head);
    let mut body = String::new();
    let _ = stream.read_to_string(&mut body);
    body
}

#[test]
fn probe_serve_answers_metrics_on_loopback() {
    let ws = Workspace::new();
    let (mut child, addr) = start_serve(&ws);
    let body = scrape(
        &addr,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let missing = scrape(&addr, b"GET /other HTTP/1.1\r\n\r\n");
    let _ = child.kill();
    let _ = child.wait();
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(
        body.contains("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",device=\"nvidia0\",Hostname=\"node-x\""),
        "{body}"
    );
    assert!(body.contains("breakpoint_gpu_up{gpu=\"1\""), "{body}");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
}

#[test]
fn probe_serve_refuses_an_oversized_request_and_goes_on_serving() {
    let ws = Workspace::new();
    let (mut child, addr) = start_serve(&ws);
    // One header line of 8 MiB: refused once the head passes 16 KiB, not
    // held.
    let mut huge = b"GET /metrics HTTP/1.1\r\nX-Junk: ".to_vec();
    huge.resize(huge.len() + (8 << 20), b'a');
    let refused = scrape(&addr, &huge);
    let after = scrape(&addr, b"GET /metrics HTTP/1.1\r\n\r\n");
    let _ = child.kill();
    let _ = child.wait();
    assert!(refused.starts_with("HTTP/1.1 431"), "{refused:.200}");
    assert!(after.starts_with("HTTP/1.1 200"), "{after:.200}");
}

/// A server that accepts a connection and never answers: a pull waits on
/// it until its request timeout.
fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    format!("http://{addr}")
}

#[test]
fn a_summary_pull_names_the_flag_at_fault_and_stores_nothing() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Cluster"]);
    let url = recorded_server("s3cret");
    let pull = |extra: &[&str]| {
        let mut args = vec![
            "import",
            "--prometheus",
            &url,
            "--from",
            "2026-06-01T08:00:00Z",
            "--to",
            "2026-06-01T08:00:30Z",
            "--platform",
            "Cluster",
            "--token-env",
            "PROM_TOKEN",
            "--summaries",
        ];
        args.extend_from_slice(extra);
        let out = ws.cmd(&args).env("PROM_TOKEN", "s3cret").output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let short = pull(&[]);
    assert!(
        short.contains("--to the range is shorter than one window (3600 s)"),
        "{short}"
    );
    let odd = pull(&["--window", "7m"]);
    assert!(
        odd.contains("--window 420 s: a window divides a day evenly"),
        "{odd}"
    );
    let both = ws
        .cmd(&[
            "import",
            "--prometheus",
            &url,
            "--from",
            "2026-06-01T08:00:00Z",
        ])
        .args(["--to", "2026-06-01T09:00:00Z", "--platform", "Cluster"])
        .args(["--summaries", "--samples"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2), "clap refuses the pair");
    assert!(ws.json(&["runs", "list"]).as_array().unwrap().is_empty());
}

#[test]
fn ctrl_c_stops_a_pull_waiting_on_a_silent_server_and_stores_nothing() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Cluster"]);
    let url = silent_server();
    let child = ws
        .process(&[
            "import",
            "--prometheus",
            &url,
            "--platform",
            "Cluster",
            "--from",
            "2026-06-01T08:00:00Z",
            "--to",
            "2026-06-01T09:00:00Z",
            "--request-timeout",
            "60s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let it connect and wait on the first request.
    std::thread::sleep(std::time::Duration::from_millis(800));
    let asked = std::time::Instant::now();
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("nothing of this pull was stored"),
        "{stderr}"
    );
    // It does not wait out the 60 s request timeout.
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(20),
        "{stderr}"
    );
    assert_eq!(ws.json(&["runs", "list"]).as_array().unwrap().len(), 0);
}

/// Ten clients that connect and say nothing (or half a request line) do not
/// hold up a real scrape: each connection is served on its own.
#[test]
fn idle_connections_do_not_delay_a_scrape_of_probe_serve() {
    let ws = Workspace::new();
    let (mut child, addr) = start_serve(&ws);
    let idle: Vec<std::net::TcpStream> = (0..10)
        .map(|i| {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            if i % 2 == 1 {
                let _ = s.write_all(b"GET /met");
            }
            s
        })
        .collect();
    let body = scrape(
        &addr,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    // Served one at a time, the scrape would have been answered only after
    // every idle connection had been refused for its silence (408); here
    // they are still waiting, unanswered, when the scrape has its answer.
    let unanswered = idle
        .iter()
        .filter(|s| {
            s.set_nonblocking(true).unwrap();
            let mut byte = [0u8; 1];
            matches!((&**s).read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
        })
        .count();
    let _ = child.kill();
    let _ = child.wait();
    assert!(body.starts_with("HTTP/1.1 200"), "{body:.200}");
    assert_eq!(
        unanswered,
        idle.len(),
        "the scrape waited behind idle connections"
    );
}
