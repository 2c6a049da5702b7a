//! The columns of a bill export by what they mean: the vocabulary of the
//! headers each provider writes, a header read through it, and the provider
//! named from headers only it writes.

/// Who wrote the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Alibaba,
    Tencent,
    Huawei,
    Aws,
    AutoDl,
    /// Recognised by meaning alone.
    Other,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Alibaba => "Alibaba Cloud bill details",
            Provider::Tencent => "Tencent Cloud bill details",
            Provider::Huawei => "Huawei Cloud expenditure details",
            Provider::Aws => "AWS Cost and Usage Report",
            Provider::AutoDl => "AutoDL-style charge list",
            Provider::Other => "bill export",
        }
    }

    /// The zone of times written without one: the consoles of the Chinese
    /// clouds write Beijing time, the CUR writes UTC; another export is
    /// read in the zone the import was given.
    pub(super) fn zone(self) -> Option<jiff::tz::TimeZone> {
        match self {
            Provider::Aws => Some(jiff::tz::TimeZone::UTC),
            Provider::Other => None,
            _ => Some(jiff::tz::TimeZone::fixed(jiff::tz::offset(8))),
        }
    }

    /// The currency of an export that names none.
    pub(super) fn currency(self) -> Option<&'static str> {
        match self {
            Provider::Aws => Some("USD"),
            Provider::Other => None,
            _ => Some("CNY"),
        }
    }
}

/// What a column means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Meaning {
    LineId,
    Instance,
    Host,
    Start,
    End,
    Usage,
    UsageUnit,
    Amount,
    Currency,
    UnitPrice,
    Product,
    LineType,
}

/// Each meaning's header spellings, normalised (lower case; spaces, `_`,
/// `-`, `/`, `.`, `:` and a bracketed unit removed), in order of
/// preference: the first present wins (an amount due over a total).
const VOCABULARY: &[(Meaning, &[&str])] = &[
    (
        Meaning::LineId,
        &[
            "identitylineitemid",
            "ordernotransactionid",
            "transactionid",
            "交易id",
            "订单号交易号",
            "流水号",
            "账单明细id",
            "明细id",
            "billingitemid",
            "recordid",
            "lineid",
        ],
    ),
    (
        Meaning::Instance,
        &[
            "lineitemresourceid",
            "实例id",
            "资源id",
            "instanceid",
            "resourceid",
            "instance",
        ],
    ),
    (
        Meaning::Host,
        &[
            "resourcetagsusername",
            "实例昵称",
            "实例名称",
            "资源名称",
            "instancename",
            "resourcename",
            "nickname",
            "host",
        ],
    ),
    (
        Meaning::Start,
        &[
            "lineitemusagestartdate",
            "服务开始时间",
            "使用开始时间",
            "计费开始时间",
            "开始时间",
            "usagestarttime",
            "servicestarttime",
            "billingstarttime",
            "starttime",
            "start",
        ],
    ),
    (
        Meaning::End,
        &[
            "lineitemusageenddate",
            "服务结束时间",
            "使用结束时间",
            "计费结束时间",
            "结束时间",
            "usageendtime",
            "serviceendtime",
            "billingendtime",
            "endtime",
            "end",
        ],
    ),
    (
        Meaning::Usage,
        &[
            "lineitemusageamount",
            "用量",
            "使用量",
            "使用时长",
            "时长",
            "usage",
            "usageamount",
            "usageduration",
            "billedseconds",
        ],
    ),
    (
        Meaning::UsageUnit,
        &["pricingunit", "用量单位", "使用量单位", "usageunit"],
    ),
    (
        Meaning::Amount,
        &[
            "lineitemunblendedcost",
            "应付金额",
            "amountdue",
            "pretaxamount",
            "总费用",
            "totalcost",
            "消费金额",
            "金额",
            "费用",
            "amount",
            "cost",
        ],
    ),
    (
        Meaning::Currency,
        &["lineitemcurrencycode", "币种", "货币", "currency"],
    ),
    (
        Meaning::UnitPrice,
        &["lineitemunblendedrate", "单价", "组件刊例价", "unitprice"],
    ),
    (
        Meaning::Product,
        &[
            "lineitemusagetype",
            "产品明细",
            "子产品名称",
            "产品名称",
            "产品类型",
            "产品",
            "resourcetype",
            "servicetype",
            "productname",
            "product",
        ],
    ),
    (Meaning::LineType, &["lineitemlineitemtype"]),
];

/// A header cell normalised, and the unit its brackets named ("时长(小时)").
pub(super) fn normalise(header: &str) -> (String, Option<String>) {
    let header = header
        .trim()
        .trim_start_matches('\u{feff}')
        .trim_matches('"');
    let (name, unit) = match header.find(['(', '（', '[']) {
        Some(at) => {
            let rest = &header[at..];
            let unit = rest
                .trim_matches(|c| matches!(c, '(' | ')' | '（' | '）' | '[' | ']'))
                .to_string();
            (&header[..at], Some(unit))
        }
        None => (header, None),
    };
    let name = name
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '_' | '-' | '/' | '.' | ':'))
        .flat_map(char::to_lowercase)
        .collect();
    (name, unit)
}

/// The columns of a header, by meaning.
#[derive(Debug, Default)]
pub(super) struct Columns {
    at: Vec<(Meaning, usize)>,
    /// Units named in brackets, per column.
    pub(super) units: Vec<Option<String>>,
}

impl Columns {
    pub(super) fn of(header: &[String]) -> Columns {
        let names: Vec<(String, Option<String>)> = header.iter().map(|h| normalise(h)).collect();
        let mut at = Vec::new();
        for (meaning, spellings) in VOCABULARY {
            if let Some(i) = spellings
                .iter()
                .find_map(|s| names.iter().position(|(n, _)| n == s))
            {
                at.push((*meaning, i));
            }
        }
        Columns {
            at,
            units: names.into_iter().map(|(_, u)| u).collect(),
        }
    }

    pub(super) fn get(&self, m: Meaning) -> Option<usize> {
        self.at.iter().find(|(k, _)| *k == m).map(|(_, i)| *i)
    }

    /// Enough to make bill lines of: an instance, an amount, and a period
    /// or a usage.
    pub(super) fn complete(&self) -> bool {
        self.get(Meaning::Instance).is_some()
            && self.get(Meaning::Amount).is_some()
            && self.get(Meaning::Start).is_some()
            && (self.get(Meaning::End).is_some() || self.get(Meaning::Usage).is_some())
    }
}

/// The provider, from headers only it writes.
pub(super) fn provider_of(header: &[String]) -> Provider {
    let names: Vec<String> = header.iter().map(|h| normalise(h).0).collect();
    let has = |n: &str| names.iter().any(|x| x == n);
    if names
        .iter()
        .any(|n| n.starts_with("lineitem") || n.starts_with("identity"))
    {
        Provider::Aws
    } else if has("ordernotransactionid")
        || has("订单号交易号")
        || has("transactiontime") && has("amountdue")
    {
        Provider::Huawei
    } else if has("交易id") || has("组件刊例价") || (has("资源id") && has("总费用")) {
        Provider::Tencent
    } else if (has("账期") || has("billingcycle")) && (has("实例id") || has("instanceid")) {
        Provider::Alibaba
    } else if has("流水号") && has("实例id") {
        Provider::AutoDl
    } else {
        Provider::Other
    }
}
