//! Who makes an accelerator and in what physical form: the words an
//! accelerator name is normalised into.

labelled_enum! {
    pub enum Vendor ("vendor") {
        Nvidia => "nvidia",
        Ascend => "ascend",
        Cambricon => "cambricon",
        Amd => "amd",
        Other => "other",
    }
}

labelled_enum! {
    /// The physical form of the accelerator: the same chip as PCIe card and
    /// as SXM module are different products (power limit, NVLink).
    pub enum FormFactor ("form_factor") {
        Pcie => "pcie",
        Sxm => "sxm",
        Oam => "oam",
    }
}
