//! Format detection from the first bytes of a file — never from its name,
//! because logs travel as `gpu.log`, `out.txt` or `metrics` whatever they hold.

use super::Format;
use crate::transcript;

/// The format of a file, from its first (up to 64 KiB) bytes.
pub fn detect(head: &[u8]) -> Result<Format, String> {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    // `date` lines a monitoring loop writes between outputs say nothing of
    // the format.
    let mut dates = super::timestamps::TimeReader::new(jiff::tz::TimeZone::UTC);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| {
            !l.trim().is_empty()
                && dates.parse_date_line(l).is_none()
                // A pasted transcript's prompts say nothing of it either.
                && !transcript::is_prompt(l)
        })
        .take(64)
        .collect();
    let Some(first) = lines.first().map(|l| l.trim_start()) else {
        return Err("the file is empty".into());
    };

    // A provider's price answer (JSON), perhaps under the command that
    // printed it: by keys only those answers have.
    if let Some(format) = super::parsers::price_catalogs::json_format(&lines, text) {
        return Ok(format);
    }
    // The launch records of the tools buyers run.
    if first.starts_with(['[', '{']) && super::parsers::launch_records::is_dstack_events_json(text)
    {
        return Ok(Format::DstackEvents);
    }
    if lines
        .iter()
        .take(8)
        .any(|l| super::parsers::launch_records::is_dstack_events_text(l))
    {
        return Ok(Format::DstackEvents);
    }
    if lines
        .iter()
        .take(8)
        .any(|l| super::parsers::launch_records::is_jobs_table(l))
    {
        return Ok(Format::SkyJobs);
    }
    if lines
        .iter()
        .take(40)
        .any(|l| super::parsers::launch_records::is_sky_launch_line(l))
    {
        return Ok(Format::SkyLaunchLog);
    }
    if first.starts_with('<') && text.contains("<nvidia_smi_log") {
        return Ok(Format::SmiXml);
    }
    if first.starts_with('{')
        && let Some(format) = json_format(first, text)
    {
        return Ok(format);
    }
    // The field's health checks, by the lines only their outputs print.
    if let Some(format) = super::parsers::health_checks::detect(&lines) {
        return Ok(format);
    }
    if is_kernel_log(&lines) {
        return Ok(Format::KernelLog);
    }
    if let Some(format) = amd_format(&lines, text) {
        return Ok(format);
    }
    if is_gpustat_text(&lines) {
        return Ok(Format::Gpustat);
    }
    if first.starts_with('[') {
        return table_format(text).ok_or_else(unknown);
    }
    if let Some(format) = tool_output_format(&lines, text) {
        return Ok(format);
    }
    if first.contains(',')
        && let Some(format) = csv_format(first, text)
    {
        return Ok(format);
    }
    // A one-field query (`nvidia-smi --query-gpu=power.draw --format=csv` in
    // a loop): the header names one field with its unit.
    if is_one_field_query(first) {
        return Ok(Format::SmiCsv);
    }
    Err(unknown())
}

/// "utilization.gpu [%]", "power.draw [W]", "clocks.sm [MHz]": a dotted
/// query field with its unit in brackets, and nothing else on the line.
fn is_one_field_query(line: &str) -> bool {
    let Some((name, unit)) = line.trim().split_once(" [") else {
        return false;
    };
    unit.ends_with(']')
        && !unit[..unit.len() - 1].contains(['[', ']'])
        && name.contains('.')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_'))
}

/// JSON documents and JSON Lines, by the keys they hold.
fn json_format(first: &str, text: &str) -> Option<Format> {
    if super::parsers::launch_records::is_sky_timeline(text) {
        return Some(Format::SkyTimeline);
    }
    if text.contains("\"nvbandwidth\"") && text.contains("\"testcases\"") {
        return Some(Format::Nvbandwidth);
    }
    if super::parsers::cmax_audit::is_cmax_audit(text) {
        return Some(Format::CmaxAudit);
    }
    if super::parsers::spot_advisor::is_spot_advisor(text) {
        return Some(Format::SpotAdvisor);
    }
    if super::parsers::spot_trace::is_spot_trace(text) {
        return Some(Format::SpotTrace);
    }
    if text.contains("\"breakpoint-perf\"") {
        return Some(Format::PerfLog);
    }
    if text.contains("\"query_time\"") && text.contains("\"gpus\"") {
        return Some(Format::Gpustat);
    }
    if text.contains("\"breakpoint-probe\"") {
        return Some(Format::ProbeLog);
    }
    if first.contains("\"breakpoint-network\"") {
        return Some(Format::NetworkLog);
    }
    if first.contains("\"breakpoint-storage\"") {
        return Some(Format::StorageLog);
    }
    if text.contains("\"breakpoint-drift\"") {
        return Some(Format::DriftLog);
    }
    if first.contains("\"__REALTIME_TIMESTAMP\"") {
        return Some(Format::KernelLog);
    }
    if text.contains("\"resultType\"") || (text.contains("\"status\"") && text.contains("\"data\""))
    {
        return Some(Format::PromRange);
    }
    if text.contains("DCGM GPU Diagnostic") || text.contains("\"test_categories\"") {
        return Some(Format::DcgmDiag);
    }
    if first.contains("\"timestamp\"")
        && ["\"power\"", "\"temp\"", "\"util\"", "\"mem_used\""]
            .iter()
            .any(|k| first.contains(k))
    {
        return Some(Format::ScriptLog);
    }
    if text.contains("\"status\"") && text.contains("\"error\"") {
        return Some(Format::PromRange);
    }
    None
}

/// Kernel logs (dmesg, journalctl, syslog): most lines carry a kernel log
/// time prefix, and the NVIDIA driver speaks somewhere — or the journal's
/// own header opens the file.
fn is_kernel_log(lines: &[&str]) -> bool {
    use super::parsers::kernel_log::{is_kernel_line, mentions_driver};
    let journal = lines.first().is_some_and(|l| {
        l.starts_with("-- Logs begin at ") || l.starts_with("-- Journal begins at ")
    });
    // The tools' own messages and the lines a terminal wrapped are set
    // aside before the kernel's lines are counted (prompts already are).
    let judged: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            !(transcript::is_tool_chatter(l)
                || (l.starts_with([' ', '\t']) && l.trim_start().starts_with("NVRM: ")))
        })
        .collect();
    let shaped = judged.iter().filter(|l| is_kernel_line(l)).count();
    shaped > 0
        && (journal || (shaped * 2 > judged.len() && judged.iter().any(|l| mentions_driver(l))))
}

/// AMD's tools: rocm-smi's `"card0"` objects or `device,` CSV header;
/// amd-smi's `gpu,` CSV header, its `GPU  POWER  …` text header, or GPU
/// objects with its metric names.
fn amd_format(lines: &[&str], text: &str) -> Option<Format> {
    let first = lines.first()?.trim_start();
    if (first.starts_with('{') && text.contains("\"card0\""))
        || (first.starts_with("device,") && first.contains("(%)"))
    {
        return Some(Format::RocmSmi);
    }
    let amd_names = [
        "power_usage",
        "socket_power",
        "gfx_util",
        "gfx_activity",
        "hotspot_temperature",
        "gfx_clock",
    ];
    if first.starts_with(['[', '{'])
        && text.contains("\"gpu\"")
        && amd_names.iter().any(|n| text.contains(n))
    {
        return Some(Format::AmdSmi);
    }
    lines.iter().find_map(|l| {
        let lower = l.trim_start().to_ascii_lowercase();
        let csv = lower.starts_with("gpu,") && amd_names.iter().any(|n| lower.contains(n));
        let table = lower.starts_with("gpu ")
            && ["gfx_util", "gpu_temp", "gfx_clock", "power"]
                .iter()
                .filter(|n| lower.split_whitespace().any(|w| w == **n))
                .count()
                >= 2;
        (csv || table).then_some(Format::AmdSmi)
    })
}

/// gpustat: "[0] NVIDIA A100-SXM4-80GB | 54°C, 100 % | 61227 / 81920 MB".
fn is_gpustat_text(lines: &[&str]) -> bool {
    lines.iter().any(|l| {
        l.starts_with('[')
            && l.contains("] ")
            && l.contains(" | ")
            && (l.contains("°C") || l.contains("'C"))
    })
}

/// The text the GPU tools write: `nvidia-smi -q`, plain `nvidia-smi`,
/// `nvidia-smi dmon`, `dcgmi dmon`, Prometheus exposition.
fn tool_output_format(lines: &[&str], text: &str) -> Option<Format> {
    // nvidia-smi -q text.
    if text.contains("==============NVSMI LOG==============")
        || lines
            .iter()
            .any(|l| l.starts_with("Attached GPUs") && l.contains(':'))
    {
        return Some(Format::SmiQuery);
    }
    // lspci: device lines ("3b:00.0 3D controller: NVIDIA …").
    if lines
        .iter()
        .filter(|l| super::parsers::lspci::device_header(l).is_some())
        .count()
        * 2
        > lines
            .iter()
            .filter(|l| !l.starts_with(char::is_whitespace))
            .count()
    {
        return Some(Format::Lspci);
    }
    // Ascend's npu-smi: its table's banner, or the watch stream's header.
    if lines.iter().any(|l| {
        l.strip_prefix('|')
            .is_some_and(|r| r.trim_start().starts_with("npu-smi "))
            || l.trim_start().starts_with("NpuID(Idx)")
    }) {
        return Some(Format::NpuSmi);
    }
    // Cambricon's cnmon: its table's banner, or `cnmon info`'s cards.
    if lines.iter().any(|l| {
        l.strip_prefix('|')
            .is_some_and(|r| r.trim_start().starts_with("CNMON "))
    }) || (lines.iter().any(|l| {
        l.strip_prefix("Card ")
            .is_some_and(|n| n.trim().bytes().all(|c| c.is_ascii_digit()))
    }) && text.contains("MLU"))
    {
        return Some(Format::Cnmon);
    }
    // The `dcgmi diag` table: its header row, the line dcgmi prints first,
    // or — pasted without either — its stages and status rows.
    if lines.iter().any(|l| {
        l.starts_with("Successfully ran diagnostic")
            || (l.starts_with('|') && {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                cells.get(1..3) == Some(&["Diagnostic", "Result"][..])
            })
    }) || super::parsers::dcgm_diag::looks_like_rows(lines)
    {
        return Some(Format::DcgmDiag);
    }
    // Plain `nvidia-smi`: the boxed table under its banner, whatever the
    // banner's labels ("Driver Version", "KMD Version", …).
    if lines.iter().any(|l| is_smi_banner(l)) {
        return Some(Format::SmiTable);
    }
    // dmon headers: "# gpu   pwr  gtemp …" or "#Date  Time  gpu …".
    if let Some(h) = lines.iter().find(|l| l.starts_with('#')) {
        let words: Vec<String> = h
            .trim_start_matches('#')
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        if words.first().is_some_and(|w| w == "entity") {
            return Some(Format::DcgmiDmon);
        }
        if words.iter().any(|w| w == "gpu")
            && words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "pwr" | "sm" | "gtemp" | "mem" | "fb" | "mclk" | "rxpci" | "sbecc"
                )
            })
        {
            return Some(Format::SmiDmon);
        }
    }
    // Prometheus exposition text.
    if lines
        .iter()
        .any(|l| l.starts_with("# HELP ") || l.starts_with("# TYPE ") || l.starts_with("DCGM_FI_"))
    {
        return Some(Format::PromText);
    }
    if lines.iter().any(|l| {
        l.trim_start().starts_with("GPU ")
            && lines.iter().any(|h| h.trim_start().starts_with("#Entity"))
    }) {
        return Some(Format::DcgmiDmon);
    }
    // Part of an `nvidia-smi -q` report copied from under a GPU, without
    // the report's banner or the GPU's header line.
    if super::parsers::smi_query::looks_like_excerpt(lines) {
        return Some(Format::SmiQuery);
    }
    None
}

/// "| NVIDIA-SMI 535.104.05   …": a box line opening with the tool's name
/// and a version number.
fn is_smi_banner(line: &str) -> bool {
    line.strip_prefix('|')
        .and_then(|l| l.trim_start().strip_prefix("NVIDIA-SMI "))
        .is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
}

/// CSV: nvidia-smi query output (with or without a header), or one of the
/// documented tables.
fn csv_format(first: &str, text: &str) -> Option<Format> {
    // A price catalog, by the columns only it has.
    if let Some(f) = super::parsers::price_catalogs::csv_format(first, text) {
        return Some(f);
    }
    if let Some(f) = table_format(first) {
        return Some(f);
    }
    // A provider's bill export, by what its columns mean.
    if super::parsers::bill_export::recognise(first).is_some() {
        return Some(Format::BillExport);
    }
    // A billing event stream names its events in the rows, not the header.
    if first.split(',').any(|c| c.trim() == "event")
        && table_format(text) == Some(Format::BillingEvents)
    {
        return Some(Format::BillingEvents);
    }
    let header = first.to_ascii_lowercase();
    let smi_fields = [
        "timestamp",
        "index",
        "uuid",
        "pci.bus_id",
        "power.draw",
        "temperature.gpu",
        "utilization.gpu",
        "memory.used",
        "clocks.sm",
        "clocks.current.sm",
        "name",
    ];
    if header
        .split(',')
        .map(|f| f.trim().split(" [").next().unwrap_or(""))
        .any(|f| {
            smi_fields.contains(&f)
                || f.starts_with("clocks_throttle_reasons")
                || f.starts_with("clocks_event_reasons")
        })
    {
        return Some(Format::SmiCsv);
    }
    // Header-less nvidia-smi output: values that carry its units or its time format.
    if looks_like_smi_values(first) {
        return Some(Format::SmiCsv);
    }
    None
}

/// The formats are listed by `breakpoint import --help` and in
/// docs/formats.md: the whole list would not fit the one-line message.
fn unknown() -> String {
    "cannot tell the format from the content; give it with --format (`breakpoint import --help` lists them)".into()
}

/// The documented tables, recognised by their column names.
fn table_format(text: &str) -> Option<Format> {
    let has = |k: &str| text.contains(k);
    if has("submitted_at") {
        Some(Format::StartupTable)
    } else if has("from_env") && has("to_env") {
        Some(Format::SwitchTable)
    } else if has("billed_seconds") {
        Some(Format::BillingTable)
    } else if has("fault") && has("recovered") {
        Some(Format::DrillTable)
    } else if has("event") && (has("compute_start") || has("queue_start") || has("io_wait_start")) {
        Some(Format::BillingEvents)
    } else {
        None
    }
}

fn looks_like_smi_values(line: &str) -> bool {
    let cells: Vec<&str> = line.split(',').map(str::trim).collect();
    let smi_time = |c: &str| {
        let b = c.as_bytes();
        b.len() >= 19 && b[4] == b'/' && b[7] == b'/' && b[13] == b':'
    };
    let unit = |c: &str| {
        [" W", " MiB", " MHz", " %"].iter().any(|u| c.ends_with(u))
            || c.starts_with("GPU-")
            || c.starts_with("0x")
    };
    cells.len() >= 2 && cells.iter().any(|c| smi_time(c) || unit(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_shapes_are_recognised() {
        let cases: &[(&str, Format)] = &[
            (
                "timestamp, index, power.draw [W]\n2024/06/01 11:27:05.177, 0, 33.09 W\n",
                Format::SmiCsv,
            ),
            ("2024/06/01 11:27:05.177, 0, 33.09 W\n", Format::SmiCsv),
            (
                "utilization.gpu [%]\n37 %\nutilization.gpu [%]\n41 %\n",
                Format::SmiCsv,
            ),
            ("power.draw [W]\n71.35 W\n", Format::SmiCsv),
            (
                "# gpu   pwr  gtemp  mtemp     sm    mem\n# Idx     W      C      C      %      %\n",
                Format::SmiDmon,
            ),
            ("#Date       Time        gpu   pwr\n", Format::SmiDmon),
            (
                "node-3  Sat Jun  1 11:27:05 2024  535.104.05\n[0] NVIDIA A100-SXM4-80GB | 33°C,   0 % |     4 / 81920 MB |\n",
                Format::Gpustat,
            ),
            (
                "{\n    \"hostname\": \"node-3\",\n    \"query_time\": \"2024-06-01T11:27:05.1\",\n    \"gpus\": []\n}\n",
                Format::Gpustat,
            ),
            (
                "Sat Jun  1 11:27:05 2024\n+-----+\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n",
                Format::SmiTable,
            ),
            (
                "Wed Nov 18 09:14:02 2026\n+-----+\n| NVIDIA-SMI 590.48.01     KMD Version: 590.48.01     CUDA UMD Version: 13.1 |\n",
                Format::SmiTable,
            ),
            (
                "[    0.000000] Linux version 6.1.0\n[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n",
                Format::KernelLog,
            ),
            (
                "Jun  1 11:27:05 node-3 kernel: [ 1234.5] NVRM: Xid (PCI:0000:3b:00): 48, pid=1\n",
                Format::KernelLog,
            ),
            (
                "-- Logs begin at Sat 2024-06-01 10:00:00 UTC, end at Sat 2024-06-01 12:00:00 UTC. --\nJun 01 10:00:00 n kernel: Linux version\n",
                Format::KernelLog,
            ),
            (
                "{\"__REALTIME_TIMESTAMP\":\"1717241225123456\",\"MESSAGE\":\"NVRM: x\"}\n",
                Format::KernelLog,
            ),
            (
                "Successfully ran diagnostic for group.\n+----+----+\n| Diagnostic                | Result                                         |\n",
                Format::DcgmDiag,
            ),
            (
                "3b:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n\tSubsystem: NVIDIA Corporation Device 16c1\n",
                Format::Lspci,
            ),
            (
                "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>\n",
                Format::SmiXml,
            ),
            (
                "\n==============NVSMI LOG==============\n\nTimestamp : x\n",
                Format::SmiQuery,
            ),
            (
                "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n",
                Format::PromText,
            ),
            ("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 99\n", Format::PromText),
            (
                "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
                Format::PromRange,
            ),
            (
                "{\"format\":\"breakpoint-probe\",\"version\":1}\n",
                Format::ProbeLog,
            ),
            (
                "{\"format\":\"breakpoint-network\",\"version\":1,\"interval_ms\":5000,\"targets\":[]}\n",
                Format::NetworkLog,
            ),
            (
                "{\"format\":\"breakpoint-storage\",\"version\":1,\"host\":\"n1\"}\n",
                Format::StorageLog,
            ),
            (
                "{\n  \"format\": \"breakpoint-drift\",\n  \"version\": 1,\n",
                Format::DriftLog,
            ),
            (
                "{\"timestamp\": \"2024-06-01T11:27:05\", \"power\": 248.5, \"temp\": 71}\n",
                Format::ScriptLog,
            ),
            (
                "#Entity   GPUTL  POWER\n      ID\n    GPU 0     99  250.1\n",
                Format::DcgmiDmon,
            ),
            (
                "scenario,image,submitted_at,first_compute_at,outcome\n",
                Format::StartupTable,
            ),
            (
                "from_env,to_env,success,manual_steps,duration_s\n",
                Format::SwitchTable,
            ),
            ("fault,detected,recovered,recovery_s\n", Format::DrillTable),
            (
                "instance,start,end,billed_seconds,amount,currency,unit_price\n",
                Format::BillingTable,
            ),
            (
                "timestamp,event,instance\n2024-06-01T00:00:00Z,compute_start,i-1\n",
                Format::BillingEvents,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(detect(text.as_bytes()), Ok(*want), "{text:?}");
        }
    }

    /// The first 64 KiB of a file as the importer hands them to `detect`:
    /// decompressed and decoded to UTF-8.
    fn head_of(path: &std::path::Path) -> Vec<u8> {
        use std::io::Read;
        let file = std::fs::File::open(path).unwrap();
        let (text, _) = crate::decode::decode(std::io::BufReader::new(file)).unwrap();
        let mut head = Vec::new();
        // A cut-off gzip still leaves a head.
        let _ = text.take(64 << 10).read_to_end(&mut head);
        head
    }

    fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files_under(&path, out);
            } else {
                out.push(path);
            }
        }
    }

    const PRICE_FORMATS: &[Format] = &[
        Format::SkypilotCatalog,
        Format::GpuhuntCatalog,
        Format::AwsPriceList,
        Format::AliyunPrice,
        Format::TencentPrice,
        Format::HuaweiPrice,
    ];

    /// Every price catalog and answer fixture is recognised as its format,
    /// and no other fixture is taken for one: the catalogs' checks come
    /// before other formats' and must steal none of them.
    #[test]
    fn price_fixtures_are_recognised_and_steal_no_other_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let catalogs: &[(&str, Format)] = &[
            ("skypilot-aws-vms.csv", Format::SkypilotCatalog),
            ("gpuhunt-aws.csv", Format::GpuhuntCatalog),
            ("aws-price-list-ec2.csv", Format::AwsPriceList),
            ("aliyun-describe-price.json", Format::AliyunPrice),
            ("aliyun-describe-price-list.json", Format::AliyunPrice),
            ("aliyun-describe-price-bare.json", Format::AliyunPrice),
            ("tencent-inquiry-price.json", Format::TencentPrice),
            ("tencent-inquiry-price-bare.txt", Format::TencentPrice),
            ("huawei-resource-ratings.json", Format::HuaweiPrice),
            ("huawei-resource-ratings-bare.json", Format::HuaweiPrice),
        ];
        for (name, want) in catalogs {
            let path = root.join("logs/catalogs").join(name);
            assert_eq!(detect(&head_of(&path)), Ok(*want), "{name}");
        }
        let mut files = Vec::new();
        files_under(&root, &mut files);
        let mut others = 0;
        for path in files {
            // Catalogs, and the hostile corpus's crafted ones.
            let crafted_catalog = path.starts_with(root.join("hostile"))
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("catalog-"));
            if path.starts_with(root.join("logs/catalogs")) || crafted_catalog {
                continue;
            }
            others += 1;
            let got = detect(&head_of(&path));
            assert!(
                !got.as_ref().is_ok_and(|f| PRICE_FORMATS.contains(f)),
                "{} is now read as {got:?}",
                path.display()
            );
        }
        assert!(others > 100, "{others} other fixtures");
    }

    #[test]
    fn price_shapes_are_recognised() {
        let cases: &[(&str, Format)] = &[
            (
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n",
                Format::SkypilotCatalog,
            ),
            (
                "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags\n",
                Format::GpuhuntCatalog,
            ),
            (
                "\"SKU\",\"OfferTermCode\",\"RateCode\",\"TermType\",\"Unit\",\"PricePerUnit\",\"Currency\",\"Instance Type\"\n",
                Format::AwsPriceList,
            ),
            (
                "{\"RequestId\": \"x\", \"PriceInfo\": {\"Price\": {\"TradePrice\": 45.6}}}\n",
                Format::AliyunPrice,
            ),
            (
                "Inquiry result:\n{\"Response\": {\"Price\": {\"InstancePrice\": {\"UnitPrice\": 30.2}}}}\n",
                Format::TencentPrice,
            ),
            (
                "[{\"request\": {}, \"response\": {\"amount\": 1, \"official_website_amount\": 1, \"product_rating_results\": []}}]\n",
                Format::HuaweiPrice,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(detect(text.as_bytes()), Ok(*want), "{text:?}");
        }
        // The offer file's metadata alone, without its header, is no catalog.
        assert!(detect(b"\"FormatVersion\",\"v1.0\"\n\"OfferCode\",\"AmazonEC2\"\n").is_err());
    }

    #[test]
    fn unknown_content_asks_for_the_format() {
        let e = detect(b"hello world\n").unwrap_err();
        assert!(e.contains("--format"), "{e}");
        assert_eq!(detect(b"").unwrap_err(), "the file is empty");
    }
}
