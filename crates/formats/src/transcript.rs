//! What surrounds evidence people paste from a terminal: shell prompts with
//! the command they ran, and the lines tools print that are not the tool's
//! table or log. Detection sets these lines aside before it judges the
//! rest; parsers skip them, and keep what they mean where they mean
//! something (nvidia-smi's "cannot reach the GPU" is a GPU the driver
//! cannot reach).

use std::borrow::Cow;

/// The text of a line as the terminal showed it, without the escape
/// sequences that drew it: `grep --color`'s `ESC[01;31mESC[K` … `ESC[mESC[K`
/// around a match, a coloured prompt, the window title a shell sets
/// (`ESC]0;…BEL`), bracketed paste (`ESC[?2004h`), character-set shifts
/// (`ESC(B`). A `script` transcript keeps them all, and a match cut apart by
/// them (`NVRM` `ESC[m` `:`) would no longer be found. Borrowed, at the cost
/// of one scan, when there is no escape.
pub fn strip_terminal_escapes(line: &str) -> Cow<'_, str> {
    const ESC: u8 = 0x1b;
    let b = line.as_bytes();
    let Some(first) = memchr::memchr(ESC, b) else {
        return Cow::Borrowed(line);
    };
    let mut out = String::with_capacity(line.len());
    // Every cut below falls on an ASCII byte (ESC, or a byte after an
    // ASCII one), so each piece kept is whole UTF-8.
    let mut kept = 0;
    let mut i = first;
    while i < b.len() {
        if b[i] != ESC {
            i += 1;
            continue;
        }
        out.push_str(&line[kept..i]);
        i = escape_end(b, i);
        kept = i;
    }
    out.push_str(&line[kept..]);
    Cow::Owned(out)
}

/// Where the escape sequence at `b[at]` (an ESC) ends. A sequence cut off
/// or malformed ends where it stops making sense, so that no text after it
/// is lost with it.
fn escape_end(b: &[u8], at: usize) -> usize {
    const ESC: u8 = 0x1b;
    const BEL: u8 = 0x07;
    let mut i = at + 1;
    match b.get(i) {
        // CSI: parameters, intermediates, one final byte.
        Some(b'[') => {
            i += 1;
            while b.get(i).is_some_and(|c| (0x20..=0x3f).contains(c)) {
                i += 1;
            }
            if b.get(i).is_some_and(|c| (0x40..=0x7e).contains(c)) {
                i += 1;
            }
            i
        }
        // OSC, DCS, SOS, PM, APC: a string up to BEL or ESC \ (or the end
        // of the line).
        Some(b']' | b'P' | b'X' | b'^' | b'_') => {
            i += 1;
            while i < b.len() {
                match b[i] {
                    BEL => return i + 1,
                    ESC if b.get(i + 1) == Some(&b'\\') => return i + 2,
                    ESC => return i,
                    _ => i += 1,
                }
            }
            i
        }
        // Two- and three-byte escapes: `ESC(B`, `ESC=`, `ESC7`, `ESCM`.
        Some(_) => {
            while b.get(i).is_some_and(|c| (0x20..=0x2f).contains(c)) {
                i += 1;
            }
            if b.get(i).is_some_and(|c| (0x30..=0x7e).contains(c)) {
                i += 1;
            }
            i
        }
        None => i,
    }
}

/// A shell prompt, with or without the command after it:
/// `root@node1:~# dmesg -T | grep NVRM`, `[root@train-03 ~]# dcgmi diag`,
/// `$ nvidia-smi`, `PS C:\> nvidia-smi`, coloured or not. A bare
/// `# command` is not taken for a root prompt: `nvidia-smi dmon` writes its
/// headers that way.
pub fn is_prompt(line: &str) -> bool {
    let line = strip_terminal_escapes(line);
    // Lone carriage returns: several lines of a terminal that ended them
    // with CR alone (or a prompt redrawn over itself). It is a prompt only
    // if every piece is one — a prompt followed by the output of its
    // command is not, or the output would be set aside with it.
    if line.trim_end().contains('\r') {
        let mut pieces = line.split('\r').filter(|p| !p.trim().is_empty()).peekable();
        return pieces.peek().is_some() && pieces.all(is_one_prompt);
    }
    is_one_prompt(&line)
}

fn is_one_prompt(line: &str) -> bool {
    let line = line.trim_end();
    if line == "$" || line.starts_with("$ ") {
        return true;
    }
    if let Some(rest) = line.strip_prefix("PS ")
        && rest.get(1..3) == Some(":\\")
    {
        return rest.contains('>');
    }
    // "[user@host dir]# …"
    if let Some(rest) = line.strip_prefix('[')
        && let Some((inside, after)) = rest.split_once(']')
        && is_user_at_host(inside.split_whitespace().next().unwrap_or(""))
    {
        return after.starts_with(['#', '$']);
    }
    // "user@host:path# …" / "user@host:path$ …" / "user@host ~ % …"
    let Some(head) = line.split_whitespace().next() else {
        return false;
    };
    let Some((who, path)) = head.split_once(':') else {
        return false;
    };
    is_user_at_host(who) && (path.ends_with('#') || path.ends_with('$'))
}

fn is_user_at_host(text: &str) -> bool {
    let Some((user, host)) = text.split_once('@') else {
        return false;
    };
    let fine = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    fine(user) && fine(host)
}

/// A line a GPU tool prints around its output that carries nothing to
/// read as a row: `nvidia-smi -L`'s list, its failure messages, `dcgmi`'s
/// status line.
pub fn is_tool_chatter(line: &str) -> bool {
    let stripped = strip_terminal_escapes(line);
    let line = stripped.trim();
    // Nothing but escapes (bash switching bracketed paste off after a
    // command): the terminal's, and nothing to read.
    if line.is_empty() && matches!(stripped, Cow::Owned(_)) {
        return true;
    }
    if crate::smi_messages::recognise(line).is_some() {
        return true;
    }
    // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)"
    if line.starts_with("GPU ") && line.contains("(UUID: ") {
        return true;
    }
    [
        "Successfully ran diagnostic",
        "NVIDIA-SMI has failed",
        "No devices were found",
        "Error: unable to establish a connection",
    ]
    .iter()
    .any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_of_the_shells_people_use() {
        for p in [
            "root@gpu-node-07:~# dmesg -T | grep -i nvrm",
            "ubuntu@ip-10-0-3-17:/var/log$ grep NVRM kern.log",
            "[root@train-03 ~]# dcgmi diag -r 1",
            "$ sudo dmesg -T | tail",
            "root@gpu-node-07:~# ",
            "PS C:\\Users\\ops> nvidia-smi",
        ] {
            assert!(is_prompt(p), "{p}");
        }
        for not in [
            "[Tue Nov  4 03:12:45 2025] NVRM: Xid (PCI:0000:3b:00): 48, pid=21877",
            "Jun 01 11:27:05 node-3 kernel: NVRM: GPU at PCI:0000:3b:00",
            "| Denylist                  | Pass                                           |",
            "2024/06/01 00:00:01.100, 0, 250.10 W",
            "# gpu   pwr  gtemp  mtemp    sm   mem",
        ] {
            assert!(!is_prompt(not), "{not}");
        }
    }

    #[test]
    fn terminal_escapes_are_taken_out_and_the_text_kept() {
        for (with, without) in [
            // grep --color around a match, and the erase-to-end after it.
            (
                "[  123.456789] NVRM: \x1b[01;31m\x1b[KXid\x1b[m\x1b[K (PCI:0000:3b:00): 79, pid=0",
                "[  123.456789] NVRM: Xid (PCI:0000:3b:00): 79, pid=0",
            ),
            ("\x1b[01;31m\x1b[KNVRM\x1b[m\x1b[K: Xid", "NVRM: Xid"),
            // A window title, a coloured prompt, bracketed paste.
            (
                "\x1b]0;root@gpu-07: ~\x07\x1b[01;32mroot@gpu-07\x1b[00m:\x1b[01;34m~\x1b[00m# dmesg",
                "root@gpu-07:~# dmesg",
            ),
            ("\x1b[?2004hroot@n:~# \x1b[?2004l", "root@n:~# "),
            // OSC ended by ESC \, charset shifts, keypad mode.
            ("\x1b]2;title\x1b\\a\x1b(Bb\x1b=c", "abc"),
            // Text after an escape is kept whole, whatever its script.
            ("\x1b[1m显卡\x1b[0m °C", "显卡 °C"),
            // Cut off at the end of the line.
            ("text\x1b[01;3", "text"),
            ("text\x1b", "text"),
            ("text\x1b]0;unterminated", "text"),
        ] {
            assert_eq!(strip_terminal_escapes(with), without, "{with:?}");
        }
        assert!(matches!(
            strip_terminal_escapes("no escapes, °C"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn coloured_prompts_are_prompts_and_a_prompt_with_output_after_a_cr_is_not() {
        assert!(is_prompt(
            "\x1b]0;root@gpu-07: ~\x07\x1b[01;32mroot@gpu-07\x1b[00m:\x1b[01;34m~\x1b[00m# dmesg"
        ));
        // A prompt redrawn over itself.
        assert!(is_prompt("root@n:~# \rroot@n:~# dmesg\r"));
        // A terminal that ends lines with CR alone: the prompt and the
        // kernel's lines after it are not one prompt.
        assert!(!is_prompt(
            "root@n:~# dmesg\r[  1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=0\r"
        ));
        assert!(is_tool_chatter(
            "\x1b[1mUnable to determine the device handle for GPU0000:3B:00.0: Unknown Error\x1b[0m"
        ));
        assert!(is_tool_chatter("\x1b[?2004l\r"));
        assert!(!is_tool_chatter("   "));
    }

    #[test]
    fn tool_chatter_is_set_aside() {
        assert!(is_tool_chatter(
            "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"
        ));
        assert!(is_tool_chatter(
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4a1c2e77-0b9d-4c5e-8f31-2d6a9e0c7b15)"
        ));
        assert!(is_tool_chatter("Successfully ran diagnostic for group."));
        assert!(!is_tool_chatter("NVRM: Xid (PCI:0000:3b:00): 79, pid=0"));
    }
}
