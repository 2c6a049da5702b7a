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
