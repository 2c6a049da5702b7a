//! Faults planted in real health-check outputs, shared by the import and
//! the CLI tests (each includes this file by path).

/// An nccl-tests output whose all-reduce table's last row has 3 wrong
/// results out of place.
pub fn plant_wrong(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let end = lines
        .iter()
        .position(|l| l.starts_with("# Collective test concluded: all_reduce"))
        .expect("an all-reduce table");
    let row = (0..end)
        .rev()
        .find(|&i| !lines[i].starts_with('#') && !lines[i].trim().is_empty())
        .expect("a row in it");
    let mut cells: Vec<String> = lines[row].split_whitespace().map(str::to_string).collect();
    // size count type redop root | time algbw busbw #wrong (out of place)
    cells[8] = "3".into();
    lines[row] = format!("  {}", cells.join("  "));
    lines.join("\n") + "\n"
}
