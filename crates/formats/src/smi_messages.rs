//! What nvidia-smi prints instead of a row when it cannot read the GPUs.
//! Sampling loops usually send stderr to the same log (`2>&1`, a cron job's
//! mail, `script`), so these lines sit between the rows of a CSV or dmon
//! log — and they are the evidence that matters most: a GPU fell off the
//! bus, the driver stopped answering. They become `gpu-lost` events instead
//! of stopping the import as unreadable lines.

/// Which GPUs a message is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LostGpus {
    /// One GPU, named by its PCI bus id.
    Bus(String),
    /// Every GPU: the driver or NVML could not be reached.
    All,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmiMessage {
    pub lost: LostGpus,
    /// The message as nvidia-smi wrote it (trimmed).
    pub text: String,
}

/// The message on `line`, if it is one of nvidia-smi's "cannot read the
/// GPU" complaints. Matched on the stable beginnings of the texts the
/// driver generations print; anything else is left to the parser.
pub fn recognise(line: &str) -> Option<SmiMessage> {
    // Every message starts with one of these letters; rows start with a
    // digit or a blank. One byte decides for almost every line; a line is
    // trimmed first only where it starts with no visible character.
    let text = match line.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => line,
        _ => line.trim_start(),
    };
    if !matches!(
        text.as_bytes().first(),
        Some(b'U' | b'u' | b'G' | b'g' | b'N' | b'n' | b'F' | b'f')
    ) {
        return None;
    }
    let text = text.trim_end();
    let message = |lost| {
        Some(SmiMessage {
            lost,
            text: text.to_string(),
        })
    };
    // "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"
    // (older drivers put a space after "GPU"); "… : GPU is lost.  Reboot …".
    if let Some(rest) =
        strip_prefix_ignore_case(text, "Unable to determine the device handle for GPU")
    {
        let rest = rest.trim_start();
        let bus = rest
            .split_once(": ")
            .map_or(rest, |(bus, _)| bus)
            .trim_end_matches(':')
            .trim();
        return if looks_like_bus_id(bus) {
            message(LostGpus::Bus(bus.to_string()))
        } else {
            message(LostGpus::All)
        };
    }
    // "GPU 00000000:3B:00.0: GPU is lost. Reboot the system to recover this GPU"
    if let Some(rest) = strip_prefix_ignore_case(text, "GPU ")
        && let Some((bus, reason)) = rest.split_once(": ")
        && looks_like_bus_id(bus)
        && reason.to_ascii_lowercase().contains("gpu is lost")
    {
        return message(LostGpus::Bus(bus.to_string()));
    }
    const ALL: [&str; 4] = [
        // The driver is gone or was never loaded.
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
        // No GPU is visible any more.
        "No devices were found",
        // "Failed to initialize NVML: Driver/library version mismatch" (a
        // driver upgraded under a running instance), "…: Unknown Error".
        "Failed to initialize NVML",
        "Unable to determine the device handle",
    ];
    if ALL
        .iter()
        .any(|p| strip_prefix_ignore_case(text, p).is_some())
    {
        return message(LostGpus::All);
    }
    None
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// "0000:3B:00.0", "00000000:3B:00.0", "3B:00.0".
fn looks_like_bus_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split([':', '.']).collect();
    (3..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_of_several_driver_generations_are_recognised() {
        let bus = |line: &str| recognise(line).map(|m| m.lost);
        assert_eq!(
            bus("Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"),
            Some(LostGpus::Bus("0000:3B:00.0".into()))
        );
        assert_eq!(
            bus(
                "Unable to determine the device handle for GPU 00000000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU"
            ),
            Some(LostGpus::Bus("00000000:3B:00.0".into()))
        );
        assert_eq!(
            bus("GPU 00000000:3B:00.0: GPU is lost. Reboot the system to recover this GPU"),
            Some(LostGpus::Bus("00000000:3B:00.0".into()))
        );
        for all in [
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
            "No devices were found",
            "Failed to initialize NVML: Driver/library version mismatch",
            "Failed to initialize NVML: Unknown Error",
            "Unable to determine the device handle for gpu: Unknown Error",
        ] {
            assert_eq!(bus(all), Some(LostGpus::All), "{all}");
        }
    }

    #[test]
    fn rows_and_other_text_are_not_messages() {
        for line in [
            "2024/06/01 11:27:05.177, 0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 61.25 W",
            "timestamp, index, name",
            "    0     62     33     41      0      0      0      0   1593    210 ",
            "GPU 00000000:07:00.0",
            "GPU 0: NVIDIA A100 (UUID: GPU-1234)",
            "",
        ] {
            assert_eq!(recognise(line), None, "{line}");
        }
    }
}
