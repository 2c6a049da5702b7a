//! `breakpoint accept`: checks that write logs and import on the spot.

use std::net::TcpListener;

use crate::util::Workspace;

#[test]
fn a_network_check_against_127_0_0_1_imports_and_scores() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().to_string();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let log = ws.dir.path().join("net.jsonl");
    let out = ws.ok(&[
        "accept",
        "network",
        "--target",
        &open,
        "--target",
        &closed,
        "--every",
        "100ms",
        "--duration",
        "1s",
        "-o",
        log.to_str().unwrap(),
        "--platform",
        "Lab",
        "--import",
    ]);
    assert!(out.contains("imported as run 1 of Lab"), "{out}");
    assert!(
        out.contains("100.0 %"),
        "the closed port lost every attempt: {out}"
    );
    let run = ws.json(&["runs", "show", "1"]);
    assert_eq!(run["provenance"]["format"], "network-log");
    let explain = ws.ok(&["explain", "Lab", "sustain"]);
    assert!(
        explain.contains("Network connection loss")
            && explain.contains(&format!("worst endpoint {closed}")),
        "{explain}"
    );
    // Without --platform, --import is refused before anything is measured.
    let out = ws
        .cmd(&["accept", "network", "--target", &open, "--import"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--import needs --platform"));
    drop(listener);
}
