//! `nvidia-smi -q -x`: the same inventory and samples as the text report.

use breakpoint_core::import::Format;

use crate::util::*;

#[test]
fn the_xml_report_reads_as_the_text_report_does() {
    let (text_store, text) = import("smi-q/a100-535.txt", |_| {});
    let (xml_store, xml) = import("smi-xml/a100-535.xml", |_| {});
    assert_eq!(
        (xml.format, xml.kind.as_str(), xml.gpus, xml.samples),
        (Format::SmiXml, "delivery", 2, 2)
    );
    let (a, b) = (
        text_store.run(text.run_id).unwrap(),
        xml_store.run(xml.run_id).unwrap(),
    );
    // Every inventory field, GPU by GPU.
    assert_eq!(a.inventory, b.inventory);
    assert_eq!(b.inventory[1].pcie_width_current, Some(8));
    for gpu in 0..2 {
        assert_eq!(
            all_samples(&text_store, text.run_id, gpu),
            all_samples(&xml_store, xml.run_id, gpu)
        );
    }
    let s = sample_at(&xml_store, xml.run_id, 1, "2023-10-10T14:22:07Z");
    assert_eq!(
        (
            v(&s, breakpoint_core::samples::Field::PowerMw),
            v(&s, breakpoint_core::samples::Field::ThrottleMask),
            v(&s, breakpoint_core::samples::Field::SmClockMhz)
        ),
        (Some(397_860), Some(4), Some(1275))
    );
}

#[test]
fn older_and_newer_dtds() {
    // R470: power_readings, clocks_throttle_reasons, power_limit.
    let (store, r) = import("smi-xml/v100-470.xml", |_| {});
    let run = store.run(r.run_id).unwrap();
    let g = &run.inventory[0];
    assert_eq!(g.power_limit_enforced_w, Some(400.0));
    assert_eq!(g.driver_version.as_deref(), Some("470.182.03"));
    let s = sample_at(&store, r.run_id, 0, "2022-03-08T16:45:07Z");
    assert_eq!(
        (
            v(&s, breakpoint_core::samples::Field::PowerMw),
            v(&s, breakpoint_core::samples::Field::ThrottleMask)
        ),
        (Some(298_120), Some(0))
    );

    // R610: kmd_version and cuda_umd_version, driver_version deprecated.
    let (store, r) = import("smi-xml/h100-610-kmd.xml", |_| {});
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        (
            run.inventory[0].driver_version.as_deref(),
            run.inventory[0].cuda_version.as_deref()
        ),
        (Some("610.43.02"), Some("13.3"))
    );
}

#[test]
fn a_loop_of_documents_with_the_last_cut_off() {
    let (_, r) = import("smi-xml/loop-cut.xml", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiXml, 2, 4));
    assert_eq!(r.interval_ms, Some(5000));
    assert!(
        r.warnings.iter().any(|w| w.contains("cut off")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn malformed_xml_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.xml");
    let text = std::fs::read_to_string(fixture("smi-xml/v100-470.xml"))
        .unwrap()
        .replace(
            "<serial>0323618022452</serial>",
            "<serial>0323618022452</seria>",
        );
    std::fs::write(&path, text).unwrap();
    let (store, platform) = crate::util::store();
    let e = breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.xml:24:24: not well-formed XML: expected 'serial' tag, not 'seria'"),
        "{e}"
    );
    assert!(!e.ends_with("at 24:24"), "{e}");
    assert!(e.contains("not well-formed XML"), "{e}");
}

#[test]
fn a_report_of_some_sections_only() {
    // `nvidia-smi -q -d POWER,TEMPERATURE`: no names, no memory, no clocks.
    let (store, r) = import("smi-q/d-power-temperature.txt", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiQuery, 2, 2));
    let s = sample_at(&store, r.run_id, 1, "2023-10-10T14:25:41Z");
    use breakpoint_core::samples::Field::*;
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, TempMemC),
            v(&s, PowerLimitMw),
            v(&s, SmClockMhz)
        ),
        (Some(398_020), Some(54), Some(66), Some(400_000), None)
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.inventory[1].power_limit_min_w, Some(100.0));
    assert!(run.inventory[1].accelerator.is_none());
}
