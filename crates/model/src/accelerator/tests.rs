use super::*;
use FormFactor::{Oam, Pcie, Sxm};
use Vendor::{Amd, Ascend, Cambricon, Nvidia};

/// (raw spelling, vendor, family, model, memory GB, form factor)
#[allow(clippy::type_complexity)]
const SPELLINGS: &[(&str, Vendor, &str, &str, Option<u32>, Option<FormFactor>)] = &[
    (
        "NVIDIA A100-SXM4-80GB",
        Nvidia,
        "A100",
        "A100",
        Some(80),
        Some(Sxm),
    ),
    (
        "NVIDIA A100-SXM4-40GB",
        Nvidia,
        "A100",
        "A100",
        Some(40),
        Some(Sxm),
    ),
    (
        "NVIDIA A100-PCIE-40GB",
        Nvidia,
        "A100",
        "A100",
        Some(40),
        Some(Pcie),
    ),
    (
        "NVIDIA A100 80GB PCIe",
        Nvidia,
        "A100",
        "A100",
        Some(80),
        Some(Pcie),
    ),
    (
        "A100 80GB PCIe",
        Nvidia,
        "A100",
        "A100",
        Some(80),
        Some(Pcie),
    ),
    ("a100-80g", Nvidia, "A100", "A100", Some(80), None),
    ("A100 80 GB", Nvidia, "A100", "A100", Some(80), None),
    (
        "NVIDIA A800-SXM4-80GB",
        Nvidia,
        "A800",
        "A800",
        Some(80),
        Some(Sxm),
    ),
    (
        "NVIDIA A800 80GB PCIe",
        Nvidia,
        "A800",
        "A800",
        Some(80),
        Some(Pcie),
    ),
    (
        "Tesla V100S-PCIE-32GB",
        Nvidia,
        "V100S",
        "V100S",
        Some(32),
        Some(Pcie),
    ),
    (
        "Tesla V100-SXM2-32GB",
        Nvidia,
        "V100",
        "V100",
        Some(32),
        Some(Sxm),
    ),
    (
        "Tesla V100-SXM2-16GB",
        Nvidia,
        "V100",
        "V100",
        Some(16),
        Some(Sxm),
    ),
    (
        "Tesla V100-PCIE-16GB",
        Nvidia,
        "V100",
        "V100",
        Some(16),
        Some(Pcie),
    ),
    (
        "Tesla P100-PCIE-16GB",
        Nvidia,
        "P100",
        "P100",
        Some(16),
        Some(Pcie),
    ),
    ("Tesla T4", Nvidia, "T4", "T4", Some(16), Some(Pcie)),
    ("Tesla P40", Nvidia, "P40", "P40", Some(24), Some(Pcie)),
    ("Tesla K80", Nvidia, "K80", "K80", Some(24), Some(Pcie)),
    (
        "NVIDIA H100 80GB HBM3",
        Nvidia,
        "H100",
        "H100",
        Some(80),
        Some(Sxm),
    ),
    (
        "NVIDIA H100 PCIe",
        Nvidia,
        "H100",
        "H100",
        Some(80),
        Some(Pcie),
    ),
    (
        "NVIDIA H100 NVL",
        Nvidia,
        "H100",
        "H100 NVL",
        Some(94),
        Some(Pcie),
    ),
    (
        "H100 SXM5 80GB",
        Nvidia,
        "H100",
        "H100",
        Some(80),
        Some(Sxm),
    ),
    ("NVIDIA H800", Nvidia, "H800", "H800", Some(80), None),
    ("NVIDIA H20", Nvidia, "H20", "H20", Some(96), None),
    ("NVIDIA H200", Nvidia, "H200", "H200", Some(141), None),
    (
        "NVIDIA H200 NVL",
        Nvidia,
        "H200",
        "H200 NVL",
        Some(141),
        Some(Pcie),
    ),
    ("NVIDIA B200", Nvidia, "B200", "B200", None, Some(Sxm)),
    ("NVIDIA L40S", Nvidia, "L40S", "L40S", Some(48), Some(Pcie)),
    ("NVIDIA L40", Nvidia, "L40", "L40", Some(48), Some(Pcie)),
    ("NVIDIA L20", Nvidia, "L20", "L20", Some(48), Some(Pcie)),
    ("NVIDIA L4", Nvidia, "L4", "L4", Some(24), Some(Pcie)),
    ("NVIDIA A10", Nvidia, "A10", "A10", Some(24), Some(Pcie)),
    ("NVIDIA A10G", Nvidia, "A10G", "A10G", Some(24), Some(Pcie)),
    ("NVIDIA A30", Nvidia, "A30", "A30", Some(24), Some(Pcie)),
    ("NVIDIA A40", Nvidia, "A40", "A40", Some(48), Some(Pcie)),
    (
        "NVIDIA RTX A6000",
        Nvidia,
        "RTX A6000",
        "RTX A6000",
        Some(48),
        Some(Pcie),
    ),
    (
        "NVIDIA RTX 6000 Ada Generation",
        Nvidia,
        "RTX 6000 Ada",
        "RTX 6000 Ada",
        Some(48),
        Some(Pcie),
    ),
    (
        "Quadro RTX 8000",
        Nvidia,
        "Quadro RTX 8000",
        "Quadro RTX 8000",
        Some(48),
        Some(Pcie),
    ),
    (
        "GeForce RTX 4090",
        Nvidia,
        "RTX 4090",
        "RTX 4090",
        Some(24),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 4090",
        Nvidia,
        "RTX 4090",
        "RTX 4090",
        Some(24),
        Some(Pcie),
    ),
    (
        "RTX4090",
        Nvidia,
        "RTX 4090",
        "RTX 4090",
        Some(24),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 4090 D",
        Nvidia,
        "RTX 4090D",
        "RTX 4090D",
        Some(24),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 3090",
        Nvidia,
        "RTX 3090",
        "RTX 3090",
        Some(24),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 3090 Ti",
        Nvidia,
        "RTX 3090 Ti",
        "RTX 3090 Ti",
        Some(24),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 5090",
        Nvidia,
        "RTX 5090",
        "RTX 5090",
        Some(32),
        Some(Pcie),
    ),
    (
        "NVIDIA GeForce RTX 2080 Ti",
        Nvidia,
        "RTX 2080 Ti",
        "RTX 2080 Ti",
        Some(11),
        Some(Pcie),
    ),
    (
        "Ascend 910B3",
        Ascend,
        "Ascend 910B",
        "Ascend 910B3",
        Some(64),
        None,
    ),
    (
        "Ascend910B4",
        Ascend,
        "Ascend 910B",
        "Ascend 910B4",
        Some(32),
        None,
    ),
    (
        "Huawei Ascend 910B",
        Ascend,
        "Ascend 910B",
        "Ascend 910B",
        None,
        None,
    ),
    (
        "Ascend 910",
        Ascend,
        "Ascend 910",
        "Ascend 910",
        Some(32),
        None,
    ),
    (
        "Ascend 310P3",
        Ascend,
        "Ascend 310P",
        "Ascend 310P3",
        None,
        Some(Pcie),
    ),
    (
        "MLU370-X8",
        Cambricon,
        "MLU370",
        "MLU370-X8",
        Some(48),
        Some(Pcie),
    ),
    (
        "Cambricon MLU590",
        Cambricon,
        "MLU590",
        "MLU590",
        Some(80),
        None,
    ),
    (
        "AMD Instinct MI300X",
        Amd,
        "MI300X",
        "MI300X",
        Some(192),
        Some(Oam),
    ),
    (
        "AMD Instinct MI250X",
        Amd,
        "MI250X",
        "MI250X",
        Some(128),
        Some(Oam),
    ),
];

#[test]
fn real_spellings_normalise() {
    for (raw, vendor, family, model, memory, form) in SPELLINGS {
        let a = normalise(raw);
        assert_eq!(
            (
                a.vendor,
                a.family.as_str(),
                a.model.as_str(),
                a.memory_gb,
                a.form_factor
            ),
            (*vendor, *family, *model, *memory, *form),
            "normalising {raw:?}"
        );
        assert_eq!(a.raw, *raw);
    }
    assert!(SPELLINGS.len() >= 30);
}

#[test]
fn canonical_spelling_is_stable() {
    assert_eq!(
        normalise("NVIDIA A100-SXM4-80GB").canonical,
        "NVIDIA A100 80GB SXM"
    );
    assert_eq!(normalise("a100-80g").canonical, "NVIDIA A100 80GB");
    assert_eq!(
        normalise("Ascend 910B3").canonical,
        "Huawei Ascend 910B3 64GB"
    );
    assert_eq!(
        normalise("GeForce RTX 4090").canonical,
        "NVIDIA RTX 4090 24GB PCIe"
    );
}

#[test]
fn same_product_tolerates_what_a_side_does_not_say() {
    let ordered = normalise("A100 80GB SXM");
    assert!(ordered.same_product(&normalise("NVIDIA A100-SXM4-80GB")));
    assert!(ordered.same_product(&normalise("a100-80g")));
    assert!(!ordered.same_product(&normalise("NVIDIA A100-PCIE-40GB")));
    assert!(!ordered.same_product(&normalise("NVIDIA A800-SXM4-80GB")));
    assert!(normalise("Ascend 910B").same_product(&normalise("Ascend 910B3")));
}

#[test]
fn unknown_names_keep_their_words() {
    let a = normalise("Kunlunxin P800");
    assert!(!a.known);
    assert_eq!(a.vendor, Vendor::Other);
    assert_eq!(a.family, "KUNLUNXIN P800");
    assert!(a.same_product(&normalise("kunlunxin p800")));
    let empty = normalise("   ");
    assert_eq!(empty.family, "");
}
