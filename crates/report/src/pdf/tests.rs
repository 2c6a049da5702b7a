#![allow(clippy::unwrap_used)]

use breakpoint_api::catalogue::keys;
use breakpoint_api::ranking::RankRequest;
use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{Format, ImportOptions, import_reader};
use breakpoint_core::metrics::catalog::{self, METRICS};
use breakpoint_core::store::Store;

use super::{ReportOptions, compose};
use crate::model::gather;
use crate::text::Lang;

/// A platform with a few power samples and a kernel log that lost a GPU
/// (Xid 79), as the report in `lang` shows it, every text of it.
fn report_texts(lang: Lang) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).unwrap();
    let platform = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform.id)
    };
    let mut csv = String::from("timestamp, index, power.draw [W]\n");
    for s in 0..30 {
        csv.push_str(&format!("2026/11/30 00:12:{s:02}.000, 0, 250.00 W\n"));
    }
    import_reader(
        &store,
        csv.as_bytes(),
        "gpu.csv",
        Format::SmiCsv,
        &options,
        None,
    )
    .unwrap();
    let kernel = "2026-11-30T08:12:40.517204+08:00 node1 kernel: nvidia 0000:17:00.0: enabling device (0000 -> 0002)\n\
                  2026-11-30T08:12:44.123456+08:00 node1 kernel: NVRM: Xid (PCI:0000:17:00): 79, pid=0, GPU has fallen off the bus.\n";
    import_reader(
        &store,
        kernel.as_bytes(),
        "kern.log",
        Format::KernelLog,
        &options,
        None,
    )
    .unwrap();
    let data = gather(&store, &RankRequest::default(), lang, None).unwrap();
    let layout = compose(
        &data,
        &ReportOptions {
            title: None,
            date: jiff::civil::date(2026, 12, 1),
            lang,
            evidence: None,
            job: None,
        },
    )
    .unwrap();
    layout.texts().map(str::to_string).collect()
}

#[test]
fn the_chinese_report_names_metrics_xids_and_units_in_chinese() {
    let zh = report_texts(Lang::Zh);
    let has = |needle: &str| zh.iter().any(|t| t.contains(needle));
    // Metric names: the breakpoint tables and the method appendix.
    for m in METRICS {
        assert!(has(m.name_zh), "{}: {}", m.key, m.name_zh);
        assert!(!zh.iter().any(|t| t == m.name), "{} is in English", m.name);
    }
    // The Xid's meaning in the hardware table.
    assert!(has("GPU 从总线脱落（掉卡）"));
    assert!(!has("GPU has fallen off the bus"));
    // Units in words, and the method's anchors.
    assert!(has("次/100 GPU 小时"));
    assert!(has("评分锚点："));
    assert!(!has("Anchors:"));
    let interruptions = catalog::metric(keys::SUSTAIN_INTERRUPTIONS_PER_100H).unwrap();
    assert!(has(interruptions.name_zh));
}

#[test]
fn the_english_report_keeps_its_words() {
    let en = report_texts(Lang::En);
    let has = |needle: &str| en.iter().any(|t| t.contains(needle));
    assert!(has("GPU has fallen off the bus"));
    assert!(has("Interruptions per 100 GPU-hours"));
    assert!(has("/100 GPU-h"));
    assert!(has("Anchors: 100 at"));
    assert!(!en.iter().any(|t| crate::fonts::needs_cjk(t)));
}
