//! lspci listings: the accelerators in PCI order and their link widths.

use breakpoint_core::import::Format;

use crate::util::*;

#[test]
fn a_gpu_running_x8_of_x16_is_a_delivery_problem() {
    let (store, r) = import("lspci/h100-8gpu-one-x8.txt", |_| {});
    assert_eq!(
        (r.format, r.kind.as_str(), r.gpus),
        (Format::Lspci, "delivery", 8)
    );
    let run = store.run(r.run_id).unwrap();
    let g = &run.inventory[5];
    assert_eq!(g.pci_bus_id.as_deref(), Some("00000000:AB:00.0"));
    assert_eq!(
        (
            g.pcie_gen_max,
            g.pcie_width_max,
            g.pcie_gen_current,
            g.pcie_width_current
        ),
        (Some(5), Some(16), Some(5), Some(8))
    );
    assert_eq!(
        g.accelerator
            .as_ref()
            .map(|a| (a.family.as_str(), a.memory_gb)),
        Some(("H100", Some(80)))
    );
    // The bridges and the x8 InfiniBand card are not accelerators.
    assert!(run.inventory.iter().all(|g| g.accelerator.is_some()));
    assert_eq!(
        r.warnings,
        vec!["00000000:AB:00.0 (H100 SXM5 80GB) runs its PCIe link at x8 of the x16 it can: half the bandwidth to the host or less".to_string()]
    );
    let values = breakpoint_core::metrics::compute_run(&store, &run).unwrap();
    let m = values
        .iter()
        .find(|v| v.key == "startup.delivery_mismatches")
        .unwrap();
    assert_eq!(m.value, 1.0);
    assert!(
        m.detail
            .as_deref()
            .unwrap()
            .contains("PCIe x8 on 1 GPU (00000000:AB:00.0)")
    );
}

#[test]
fn a_link_slowed_at_idle_is_not_a_problem() {
    let (store, r) = import("lspci/a100-pcie-D-nn.txt", |_| {});
    assert_eq!((r.format, r.gpus), (Format::Lspci, 2));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.inventory[0].pcie_gen_current, Some(1));
    assert_eq!(
        run.inventory[0]
            .accelerator
            .as_ref()
            .map(|a| a.canonical.as_str()),
        Some("NVIDIA A100 80GB PCIe")
    );
    let values = breakpoint_core::metrics::compute_run(&store, &run).unwrap();
    let m = values
        .iter()
        .find(|v| v.key == "startup.delivery_mismatches")
        .unwrap();
    assert_eq!(m.value, 0.0);
}

#[test]
fn ascend_and_geforce_listings() {
    let (store, r) = import("lspci/ascend-910b.txt", |_| {});
    assert_eq!(r.gpus, 2);
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[1]
            .accelerator
            .as_ref()
            .map(|a| a.family.as_str()),
        Some("Ascend 910B")
    );

    // Plain lspci: the GPUs are counted (the board's Intel graphics and the
    // cards' audio functions are not), their links unknown.
    let (store, r) = import("lspci/plain-rtx4090.txt", |_| {});
    assert_eq!((r.format, r.gpus), (Format::Lspci, 2));
    assert!(r.warnings.iter().any(|w| w.contains("no link status")));
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[0]
            .accelerator
            .as_ref()
            .map(|a| a.raw.as_str()),
        Some("GeForce RTX 4090")
    );
}

#[test]
fn a_listing_without_accelerators_is_refused_saying_so() {
    let (_, result) = try_import("lspci/plain-rtx4090.txt", |o| {
        o.format = Some(Format::Lspci);
    });
    assert!(result.is_ok());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lspci.txt");
    std::fs::write(
        &path,
        "00:00.0 Host bridge: Intel Corporation Device 7a04 (rev 01)\n\
         05:00.0 Ethernet controller: Realtek Semiconductor Co., Ltd. RTL8125 2.5GbE Controller (rev 05)\n",
    )
    .unwrap();
    let (store, platform) = crate::util::store();
    let e = breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("lspci lists 2 devices and none is an accelerator"),
        "{e}"
    );
}
