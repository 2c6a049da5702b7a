//! What surrounds evidence people paste from a terminal: shell prompts with
//! the command they ran, and the lines tools print that are not the tool's
//! table or log. Detection sets these lines aside before it judges the
//! rest; parsers skip them, and keep what they mean where they mean
//! something (nvidia-smi's "cannot reach the GPU" is a GPU the driver
//! cannot reach).

/// A shell prompt, with or without the command after it:
/// `root@node1:~# dmesg -T | grep NVRM`, `[root@train-03 ~]# dcgmi diag`,
/// `$ nvidia-smi`, `PS C:\> nvidia-smi`. A bare `# command` is not taken
/// for a root prompt: `nvidia-smi dmon` writes its headers that way.
pub fn is_prompt(line: &str) -> bool {
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
    let line = line.trim();
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
