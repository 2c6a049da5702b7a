//! The NVIDIA driver's kernel messages that are evidence: Xid errors, GPUs
//! falling off the bus or failing to initialise, GSP firmware and NVSwitch
//! errors, and the lines that tell which GPUs the machine has.
//!
//! ```text
//! NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.
//! NVRM: Xid (0000:03:00): 13, Graphics SM Warp Exception …        (older drivers)
//! NVRM: GPU at PCI:0000:3b:00: GPU-5f0a…                          (bus → UUID)
//! NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.
//! NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0x56:1474)
//! NVRM: RmInitAdapter failed! (0x31:0x40:2583)
//! nvidia 0000:3b:00.0: enabling device (0000 -> 0003)              (driver probe)
//! nvidia-nvswitch2: SXid (PCI:0000:05:00.0): 12028, …
//! ```

/// What one message says.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Message {
    Xid {
        bus: Option<String>,
        code: u32,
        /// The driver's words after the code ("pid=0, GPU has fallen off
        /// the bus.").
        text: String,
    },
    FellOffBus {
        bus: Option<String>,
    },
    InitFailed {
        bus: Option<String>,
        text: String,
    },
    /// GSP firmware trouble reported outside an Xid (heartbeat, RPC).
    Gsp {
        bus: Option<String>,
        text: String,
    },
    /// An NVSwitch error: its own numbering, reported as a note.
    SXid {
        code: u32,
        text: String,
    },
    /// The GPU at a bus is this UUID.
    Uuid {
        bus: String,
        uuid: String,
    },
    /// The driver took charge of the GPU at this bus: the machine has it.
    Probed {
        bus: String,
    },
    /// A tool could not reach the GPU (nvidia-smi's "Unable to determine
    /// the device handle …" pasted beside the kernel's lines).
    Unreachable {
        bus: Option<String>,
        text: String,
    },
}

/// The message a line's text holds, if it is one of the above.
pub(super) fn recognise(message: &str) -> Option<Message> {
    if let Some(rest) = message.strip_prefix("NVRM: ") {
        return nvrm(rest.trim_start());
    }
    // "nvidia 0000:3b:00.0: …": the kernel's device prefix for the driver.
    if let Some(rest) = message.strip_prefix("nvidia ") {
        let (device, _) = rest.split_once(": ")?;
        return pci_address(device).map(|bus| Message::Probed { bus });
    }
    if message.starts_with("nvidia-nvswitch")
        && let Some((_, rest)) = message.split_once("SXid (")
    {
        let (_, after) = rest.split_once("): ")?;
        let (code, text) = after.split_once(',').unwrap_or((after, ""));
        return Some(Message::SXid {
            code: code.trim().parse().ok()?,
            text: text.trim().to_string(),
        });
    }
    None
}

/// The earlier Xid a driver's words name as the cause of this one
/// ("… caused by previous Xid 149", "due to Xid 145"), if any.
pub(super) fn named_cause(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    [
        "caused by previous xid",
        "caused by xid",
        "due to previous xid",
        "due to xid",
    ]
    .iter()
    .find_map(|phrase| {
        let after = lower
            .split_once(phrase)?
            .1
            .trim_start_matches([' ', ':', '#']);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        after[..digits].parse().ok()
    })
}

fn nvrm(rest: &str) -> Option<Message> {
    if let Some(after) = rest.strip_prefix("Xid (") {
        let (bus, after) = after.split_once("):")?;
        let after = after.trim_start();
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let code: u32 = after[..digits].parse().ok()?;
        let text = after[digits..]
            .trim_start_matches([',', ' '])
            .trim()
            .to_string();
        return Some(Message::Xid {
            bus: pci_address(bus.trim_start_matches("PCI:")),
            code,
            text,
        });
    }
    // "GPU at PCI:0000:3b:00: GPU-…" / "GPU 0000:3b:00.0: …"
    let (bus, said) = match rest.strip_prefix("GPU at ") {
        Some(after) => match after.trim_start_matches("PCI:").split_once(": ") {
            Some((bus, said)) if pci_address(bus).is_some() => (pci_address(bus), said.trim()),
            _ => (None, rest),
        },
        None => match rest.strip_prefix("GPU ") {
            Some(after) => match after.split_once(": ") {
                Some((bus, said)) if pci_address(bus).is_some() => (pci_address(bus), said.trim()),
                _ => (None, rest),
            },
            None => (None, rest),
        },
    };
    if let (Some(bus), Some(uuid)) = (&bus, said.strip_prefix("GPU-")) {
        let uuid = uuid.split_whitespace().next().unwrap_or(uuid);
        return Some(Message::Uuid {
            bus: bus.clone(),
            uuid: format!("GPU-{uuid}"),
        });
    }
    let lower = said.to_ascii_lowercase();
    if lower.contains("fallen off the bus") {
        // "GPU at 0000:3b:00.0 has fallen off the bus." names it inside.
        let bus = bus.or_else(|| said.split_whitespace().find_map(pci_address));
        return Some(Message::FellOffBus { bus });
    }
    if lower.contains("rminitadapter failed") || lower.contains("rm_init_adapter failed") {
        return Some(Message::InitFailed {
            bus,
            text: said.to_string(),
        });
    }
    if lower.contains("gsp")
        && ["timeout", "timed out", "error", "failed", "fatal"]
            .iter()
            .any(|w| lower.contains(w))
    {
        return Some(Message::Gsp {
            bus,
            text: said.to_string(),
        });
    }
    None
}

/// A PCI address as the kernel and the driver write it ("0000:3b:00",
/// "0000:3b:00.0", "PCI:0000:3b:00") in nvidia-smi's spelling,
/// "00000000:3B:00.0", so that it matches the inventories of other logs.
pub(crate) fn pci_address(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches([':', '.', ',']);
    let text = text.strip_prefix("PCI:").unwrap_or(text);
    let (address, function) = match text.rsplit_once('.') {
        Some((a, f)) => (a, f.parse::<u8>().ok().filter(|f| *f < 8)?),
        None => (text, 0),
    };
    let parts: Vec<&str> = address.split(':').collect();
    let hex = |s: &str, max: usize| {
        (!s.is_empty() && s.len() <= max && s.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(s, 16).ok())
            .flatten()
    };
    let (domain, bus, device) = match parts.as_slice() {
        [d, b, dev] => (hex(d, 8)?, hex(b, 2)?, hex(dev, 2)?),
        _ => return None,
    };
    if device > 0x1f {
        return None;
    }
    Some(format!("{domain:08X}:{bus:02X}:{device:02X}.{function}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xid_lines_of_old_and_new_drivers() {
        assert_eq!(
            recognise("NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus."),
            Some(Message::Xid {
                bus: Some("00000000:3B:00.0".into()),
                code: 79,
                text: "pid=0, GPU has fallen off the bus.".into()
            })
        );
        assert_eq!(
            recognise("NVRM: Xid (0000:03:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 1)"),
            Some(Message::Xid {
                bus: Some("00000000:03:00.0".into()),
                code: 13,
                text: "Graphics SM Warp Exception on (GPC 0, TPC 1)".into()
            })
        );
        assert_eq!(
            recognise(
                "NVRM: Xid (PCI:0000:b7:00): 149, NETIR_LINK_EVT  Fatal error detected on link 14"
            ),
            Some(Message::Xid {
                bus: Some("00000000:B7:00.0".into()),
                code: 149,
                text: "NETIR_LINK_EVT  Fatal error detected on link 14".into()
            })
        );
    }

    #[test]
    fn the_other_driver_messages() {
        assert_eq!(
            recognise("NVRM: GPU at PCI:0000:3b:00: GPU-5f0a2c1e-77d1-4c1b-9a9e-0c4d2b3a1f10"),
            Some(Message::Uuid {
                bus: "00000000:3B:00.0".into(),
                uuid: "GPU-5f0a2c1e-77d1-4c1b-9a9e-0c4d2b3a1f10".into()
            })
        );
        assert_eq!(
            recognise("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."),
            Some(Message::FellOffBus {
                bus: Some("00000000:3B:00.0".into())
            })
        );
        assert_eq!(
            recognise("NVRM: GPU at 0000:3b:00.0 has fallen off the bus."),
            Some(Message::FellOffBus {
                bus: Some("00000000:3B:00.0".into())
            })
        );
        assert_eq!(
            recognise("NVRM: RmInitAdapter failed! (0x31:0x40:2583)"),
            Some(Message::InitFailed {
                bus: None,
                text: "RmInitAdapter failed! (0x31:0x40:2583)".into()
            })
        );
        assert_eq!(
            recognise("nvidia 0000:3b:00.0: enabling device (0000 -> 0003)"),
            Some(Message::Probed {
                bus: "00000000:3B:00.0".into()
            })
        );
        assert!(matches!(
            recognise(
                "nvidia-nvswitch2: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error"
            ),
            Some(Message::SXid { code: 12028, .. })
        ));
        assert!(matches!(
            recognise("NVRM: GPU0 _kgspRpcRecvPoll: GSP RPC timeout after 6000ms"),
            Some(Message::Gsp { bus: None, .. })
        ));
        assert_eq!(
            recognise("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05"),
            None
        );
        assert_eq!(recognise("usb 1-1: new high-speed USB device"), None);
    }

    #[test]
    fn pci_addresses_take_nvidia_smi_spelling() {
        assert_eq!(
            pci_address("0000:3b:00").as_deref(),
            Some("00000000:3B:00.0")
        );
        assert_eq!(
            pci_address("00000000:3B:00.0").as_deref(),
            Some("00000000:3B:00.0")
        );
        assert_eq!(
            pci_address("PCI:0001:c1:00.1:").as_deref(),
            Some("00000001:C1:00.1")
        );
        for bad in ["3b:00", "0000:zz:00", "0000:3b:40", "0000:3b:00.9", ""] {
            assert_eq!(pci_address(bad), None, "{bad}");
        }
    }
}
