//! The categories the industry's rating of GPU clouds (SemiAnalysis
//! ClusterMAX 2.0) judges providers in. Breakpoint's four breakpoints are
//! its own lens; a buyer who reads that rating sees the same evidence
//! placed in its ten categories, with what neither Breakpoint nor the
//! rating's audit tool measures said as such.

labelled_enum! {
    /// One of ClusterMAX 2.0's ten categories, in the rating's order.
    pub enum Category ("category") {
        Security => "security",
        Lifecycle => "lifecycle",
        Orchestration => "orchestration",
        Storage => "storage",
        Networking => "networking",
        Reliability => "reliability",
        Monitoring => "monitoring",
        Pricing => "pricing",
        Partnerships => "partnerships",
        Availability => "availability",
    }
}

impl Category {
    /// The category's name as the rating writes it, or in Chinese.
    pub fn name_in(self, zh: bool) -> &'static str {
        match (self, zh) {
            (Category::Security, false) => "Security",
            (Category::Security, true) => "安全",
            (Category::Lifecycle, false) => "Lifecycle",
            (Category::Lifecycle, true) => "生命周期",
            (Category::Orchestration, false) => "Orchestration",
            (Category::Orchestration, true) => "编排",
            (Category::Storage, false) => "Storage",
            (Category::Storage, true) => "存储",
            (Category::Networking, false) => "Networking",
            (Category::Networking, true) => "网络",
            (Category::Reliability, false) => "Reliability",
            (Category::Reliability, true) => "可靠性",
            (Category::Monitoring, false) => "Monitoring",
            (Category::Monitoring, true) => "监控",
            (Category::Pricing, false) => "Pricing",
            (Category::Pricing, true) => "定价",
            (Category::Partnerships, false) => "Partnerships",
            (Category::Partnerships, true) => "合作伙伴",
            (Category::Availability, false) => "Availability",
            (Category::Availability, true) => "可得性",
        }
    }
}
