//! Output that fits: on the demo, what a pipe gets of the commands a buyer
//! reads most stays within 100 columns (tables narrowed column by column,
//! prose wrapped with a hanging indent), and `--wide` gives every line whole.

use unicode_width::UnicodeWidthStr;

use crate::util::Workspace;

const COMMANDS: &[&[&str]] = &[
    &["runs", "list"],
    &["bill"],
    &["bill", "--disputes"],
    &["explain", "Platform E (demo)"],
    &["cost", "--job", "gpus=8,work=2000h,deadline=14d"],
    &["rank"],
];

#[test]
fn what_a_buyer_reads_fits_a_hundred_columns_when_piped() {
    let ws = Workspace::new();
    ws.ok(&["demo", "--samples", "300"]);
    for args in COMMANDS {
        let text = ws.piped(args);
        let widest = text.lines().map(|l| l.width()).max().unwrap_or(0);
        assert!(widest <= 100, "{args:?}: {widest} columns\n{text}");
    }
    // Narrowed, never cut: every run is still listed with its file.
    let listed = ws.piped(&["runs", "list"]);
    assert!(
        listed.contains("demo-a-startup") && listed.contains("Platform F"),
        "{listed}"
    );
    // With --wide nothing wraps: a platform's name and its file share
    // their line, however wide the listing gets.
    let wide = ws.ok(&["runs", "list"]);
    let row = wide
        .lines()
        .find(|l| l.contains("demo-a-nvidia-smi.csv"))
        .expect("the first run's file whole");
    assert!(row.contains("Platform A (demo)"), "{row}");
    let explained = ws.ok(&["explain", "Platform E (demo)"]);
    assert!(
        explained.lines().any(|l| l.width() > 100),
        "--wide leaves explain's lines whole"
    );
}

/// `explain` says every measured metric in the API's words — the string
/// the app's explained cell and the PDF's pages print — money in the
/// currency the platforms are compared in, never the catalogue's
/// placeholder.
#[test]
fn explain_says_each_figure_in_the_words_every_face_uses() {
    let ws = Workspace::new();
    ws.ok(&["demo", "--samples", "300"]);
    let json = ws.json(&["explain", "Platform E (demo)"]);
    let text = ws.ok(&["explain", "Platform E (demo)"]);
    let currency = json["money"]["currency"]["currency"].as_str();
    assert_eq!(currency, Some("CNY"));
    let mut said = 0;
    for b in json["breakpoints"].as_array().unwrap() {
        for m in b["metrics"].as_array().unwrap() {
            let Some(v) = m["value"].as_f64() else {
                continue;
            };
            let unit = m["unit"].as_str().unwrap();
            let figure = breakpoint_api::presentation::metric_value(v, unit, currency, false);
            assert!(text.contains(&figure), "{}: {figure}\n{text}", m["key"]);
            said += 1;
        }
    }
    assert!(said > 30, "{said}");
    assert!(
        !text.contains("currency/GPU-h") && text.contains("CNY/GPU-h"),
        "{text}"
    );
}
