//! What an NVIDIA Xid error means, and whose fault it is.
//!
//! The driver reports serious GPU errors as numbered "Xid" messages in the
//! kernel log (and DCGM as `XID_ERRORS`). Some are the platform's doing —
//! memory that fails ECC, a GPU that fell off the bus, a link that broke —
//! others are the program's — an illegal memory access, a kernel killed by
//! its owner. A buyer judges the platform only on the first kind, so each
//! code carries who is at fault; the second kind is shown, never counted.
//!
//! Checked, code by code, against NVIDIA's public Xid catalogue for Ampere
//! and newer GPUs ("Analyzing Xid Errors with the Xid Catalog" in the Xid
//! Errors documentation: each code's mnemonic, whether it applies to A100,
//! H100, B100 and GB200, its immediate and investigatory resolution and when
//! it is raised), with the older "Xid Errors" chapter for the few codes only
//! earlier GPUs raise; codes marked unused everywhere are left out. The
//! meanings are summarised. The severity follows the immediate resolution:
//! nothing to do is a warning, restarting the program an error, resetting
//! the GPU or restarting or servicing the machine fatal. Where NVIDIA names
//! both the program and the driver or hardware as causes the code is marked
//! `Either`. NVIDIA resolves the NVLink codes 144–150 by sub-error; each
//! code here takes the gravest verdict among its sub-errors that nothing
//! else reports, since a sub-error needing a GPU reset that also raises
//! Xid 48 or 154 is counted there.

use serde::Serialize;

labelled_enum! {
    /// Who caused an error, as far as the code tells.
    pub enum Blame ("blame") {
        /// Hardware, firmware, driver or interconnect: counts against the
        /// platform.
        Platform => "platform",
        /// The user's program (bad memory access, killed context): shown,
        /// not counted against the platform.
        Application => "application",
        /// The documentation names both; counted, with the doubt shown.
        Either => "either",
    }
}

labelled_enum! {
    pub enum Severity ("severity") {
        /// The GPU is unusable until reset or the node is serviced.
        Fatal => "fatal",
        /// The work on the GPU stopped; the GPU itself may go on.
        Error => "error",
        /// Recorded and corrected; nothing stopped.
        Warning => "warning",
    }
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct XidInfo {
    pub code: u32,
    pub meaning: &'static str,
    /// The meaning in Simplified Chinese, for the Chinese report and the
    /// app.
    pub meaning_zh: &'static str,
    pub severity: Severity,
    pub blame: Blame,
}

impl XidInfo {
    /// Whether the error stopped work on the GPU (a warning did not).
    pub fn interrupts(&self) -> bool {
        self.severity != Severity::Warning
    }

    /// Whether it counts against the platform's sustain score.
    pub fn counts_against_platform(&self) -> bool {
        self.interrupts() && self.blame != Blame::Application
    }

    /// The meaning in Chinese or in English.
    pub fn meaning_in(&self, zh: bool) -> &'static str {
        if zh { self.meaning_zh } else { self.meaning }
    }
}

const fn x(
    code: u32,
    meaning: &'static str,
    meaning_zh: &'static str,
    severity: Severity,
    blame: Blame,
) -> XidInfo {
    XidInfo {
        code,
        meaning,
        meaning_zh,
        severity,
        blame,
    }
}

use Blame::{Application, Either, Platform};
use Severity::{Error, Fatal, Warning};

/// Sorted by code (looked up by binary search).
const CATALOGUE: &[XidInfo] = &[
    x(
        8,
        "GPU stopped processing (a channel timed out)",
        "GPU 停止处理（通道超时）",
        Error,
        Either,
    ),
    x(
        11,
        "invalid or corrupted push buffer stream",
        "推送缓冲区（push buffer）命令流无效或损坏",
        Error,
        Either,
    ),
    x(
        13,
        "graphics engine exception (usually the program: an out-of-bounds access or illegal instruction in a kernel)",
        "图形引擎异常（通常是程序所致：内核越界访问或非法指令）",
        Error,
        Application,
    ),
    x(
        14,
        "injected test error (raised on purpose from user space)",
        "注入的测试错误（由用户态有意触发）",
        Warning,
        Application,
    ),
    x(
        25,
        "invalid or illegal push buffer stream",
        "推送缓冲区命令流无效或非法",
        Error,
        Either,
    ),
    x(
        31,
        "GPU memory page fault (illegal memory access by the program)",
        "GPU 显存页错误（程序非法访问内存）",
        Error,
        Application,
    ),
    x(
        32,
        "invalid or corrupted push buffer stream (often poor PCIe signal quality)",
        "推送缓冲区命令流无效或损坏（常因 PCIe 信号质量差）",
        Error,
        Either,
    ),
    x(
        37,
        "driver firmware error (unimplemented firmware method)",
        "驱动固件错误（未实现的固件方法）",
        Warning,
        Either,
    ),
    x(
        38,
        "driver firmware error (firmware watchdog timeout)",
        "驱动固件错误（固件看门狗超时）",
        Warning,
        Platform,
    ),
    x(
        39,
        "copy engine exception (CE0)",
        "拷贝引擎异常（CE0）",
        Error,
        Platform,
    ),
    x(
        40,
        "copy engine exception (CE1)",
        "拷贝引擎异常（CE1）",
        Error,
        Platform,
    ),
    x(
        41,
        "copy engine exception (CE2)",
        "拷贝引擎异常（CE2）",
        Error,
        Platform,
    ),
    x(
        43,
        "GPU stopped processing a context (the program faulted or was stopped; the GPU is healthy)",
        "GPU 停止处理某个上下文（程序出错或被终止；GPU 本身正常）",
        Error,
        Application,
    ),
    x(
        44,
        "graphics engine fault during a context switch",
        "上下文切换时图形引擎故障",
        Warning,
        Platform,
    ),
    x(
        45,
        "preemptive cleanup after a context ended (follows a killed or faulted program)",
        "上下文结束后的抢占式清理（随程序被终止或出错出现）",
        Error,
        Application,
    ),
    x(
        46,
        "GPU stopped processing (GPU timeout)",
        "GPU 停止处理（GPU 超时）",
        Fatal,
        Platform,
    ),
    x(
        48,
        "double-bit ECC error (uncorrectable memory error)",
        "双位 ECC 错误（不可纠正的显存错误）",
        Fatal,
        Platform,
    ),
    x(
        54,
        "auxiliary power is not connected to the GPU board (clocks reduced)",
        "GPU 板卡未接辅助供电（时钟已降低）",
        Fatal,
        Platform,
    ),
    x(
        56,
        "display engine error (older GPUs)",
        "显示引擎错误（旧款 GPU）",
        Error,
        Platform,
    ),
    x(
        57,
        "error programming the video memory interface (older GPUs)",
        "显存接口编程错误（旧款 GPU）",
        Fatal,
        Platform,
    ),
    x(
        60,
        "video processor exception (SEC2)",
        "视频处理器异常（SEC2）",
        Error,
        Either,
    ),
    x(
        61,
        "internal micro-controller breakpoint or warning (older GPUs)",
        "内部微控制器断点或警告（旧款 GPU）",
        Error,
        Platform,
    ),
    x(
        62,
        "internal micro-controller halt",
        "内部微控制器停机",
        Fatal,
        Platform,
    ),
    x(
        63,
        "ECC page retirement or row remapping recorded",
        "已记录 ECC 页退役或行重映射",
        Warning,
        Platform,
    ),
    x(
        64,
        "ECC page retirement or row remapping failed",
        "ECC 页退役或行重映射失败",
        Fatal,
        Platform,
    ),
    x(
        66,
        "illegal register access by the driver",
        "驱动非法访问寄存器",
        Warning,
        Either,
    ),
    x(
        67,
        "illegal access by the driver (verification violation)",
        "驱动非法访问（校验违规）",
        Warning,
        Either,
    ),
    x(
        68,
        "video decoder exception (NVDEC0)",
        "视频解码器异常（NVDEC0）",
        Error,
        Platform,
    ),
    x(
        69,
        "graphics engine class error",
        "图形引擎类（class）错误",
        Error,
        Either,
    ),
    x(
        70,
        "copy engine exception (CE3)",
        "拷贝引擎异常（CE3）",
        Error,
        Platform,
    ),
    x(
        71,
        "copy engine exception (CE4)",
        "拷贝引擎异常（CE4）",
        Error,
        Platform,
    ),
    x(
        72,
        "copy engine exception (CE5)",
        "拷贝引擎异常（CE5）",
        Error,
        Platform,
    ),
    x(
        74,
        "NVLink error (link to a GPU or NVSwitch failed)",
        "NVLink 错误（到 GPU 或 NVSwitch 的链路故障）",
        Fatal,
        Platform,
    ),
    x(
        75,
        "copy engine exception (CE6)",
        "拷贝引擎异常（CE6）",
        Error,
        Platform,
    ),
    x(
        76,
        "copy engine exception (CE7)",
        "拷贝引擎异常（CE7）",
        Error,
        Platform,
    ),
    x(
        77,
        "copy engine exception (CE8)",
        "拷贝引擎异常（CE8）",
        Error,
        Platform,
    ),
    x(
        78,
        "vGPU could not start (guest and host drivers incompatible, or vGPU type unsupported)",
        "vGPU 无法启动（客户机与宿主机驱动不兼容，或不支持该 vGPU 类型）",
        Fatal,
        Either,
    ),
    x(
        79,
        "GPU has fallen off the bus",
        "GPU 从总线脱落（掉卡）",
        Fatal,
        Platform,
    ),
    x(
        80,
        "corrupted data sent to the GPU (push buffer CRC mismatch)",
        "发送到 GPU 的数据已损坏（推送缓冲区 CRC 不匹配）",
        Error,
        Either,
    ),
    x(
        82,
        "JPEG engine exception (NVJPG0)",
        "JPEG 引擎异常（NVJPG0）",
        Error,
        Platform,
    ),
    x(
        83,
        "video decoder exception (NVDEC1)",
        "视频解码器异常（NVDEC1）",
        Error,
        Platform,
    ),
    x(
        84,
        "video decoder exception (NVDEC2)",
        "视频解码器异常（NVDEC2）",
        Error,
        Platform,
    ),
    x(
        85,
        "copy engine exception (CE9)",
        "拷贝引擎异常（CE9）",
        Error,
        Platform,
    ),
    x(
        86,
        "optical flow engine exception (OFA0)",
        "光流引擎异常（OFA0）",
        Error,
        Platform,
    ),
    x(
        88,
        "video decoder exception (NVDEC3)",
        "视频解码器异常（NVDEC3）",
        Error,
        Platform,
    ),
    x(
        89,
        "video decoder exception (NVDEC4)",
        "视频解码器异常（NVDEC4）",
        Error,
        Platform,
    ),
    x(
        92,
        "high single-bit ECC error rate",
        "单位 ECC 错误率过高",
        Warning,
        Platform,
    ),
    x(
        93,
        "InfoROM wear limit reached (InfoROM not updated)",
        "InfoROM 达到写入寿命上限（InfoROM 未更新）",
        Warning,
        Platform,
    ),
    x(
        94,
        "contained ECC error (the affected program was stopped)",
        "已隔离的 ECC 错误（受影响的程序已被终止）",
        Error,
        Platform,
    ),
    x(
        95,
        "uncontained ECC error (every program on the GPU was stopped)",
        "未隔离的 ECC 错误（GPU 上所有程序均被终止）",
        Fatal,
        Platform,
    ),
    x(
        96,
        "video decoder exception (NVDEC5)",
        "视频解码器异常（NVDEC5）",
        Error,
        Platform,
    ),
    x(
        97,
        "video decoder exception (NVDEC6)",
        "视频解码器异常（NVDEC6）",
        Error,
        Platform,
    ),
    x(
        98,
        "video decoder exception (NVDEC7)",
        "视频解码器异常（NVDEC7）",
        Error,
        Platform,
    ),
    x(
        99,
        "JPEG engine exception (NVJPG1)",
        "JPEG 引擎异常（NVJPG1）",
        Error,
        Platform,
    ),
    x(
        100,
        "JPEG engine exception (NVJPG2)",
        "JPEG 引擎异常（NVJPG2）",
        Error,
        Platform,
    ),
    x(
        101,
        "JPEG engine exception (NVJPG3)",
        "JPEG 引擎异常（NVJPG3）",
        Error,
        Platform,
    ),
    x(
        102,
        "JPEG engine exception (NVJPG4)",
        "JPEG 引擎异常（NVJPG4）",
        Error,
        Platform,
    ),
    x(
        103,
        "JPEG engine exception (NVJPG5)",
        "JPEG 引擎异常（NVJPG5）",
        Error,
        Platform,
    ),
    x(
        104,
        "JPEG engine exception (NVJPG6)",
        "JPEG 引擎异常（NVJPG6）",
        Error,
        Platform,
    ),
    x(
        105,
        "JPEG engine exception (NVJPG7)",
        "JPEG 引擎异常（NVJPG7）",
        Error,
        Platform,
    ),
    x(
        106,
        "SMBPBI test message (out-of-band management)",
        "SMBPBI 测试消息（带外管理）",
        Warning,
        Platform,
    ),
    x(
        107,
        "SMBPBI silent test message (out-of-band management)",
        "SMBPBI 静默测试消息（带外管理）",
        Warning,
        Platform,
    ),
    x(
        109,
        "context switch timeout",
        "上下文切换超时",
        Fatal,
        Either,
    ),
    x(110, "security fault", "安全故障", Fatal, Platform),
    x(
        119,
        "GSP firmware RPC timeout",
        "GSP 固件 RPC 超时",
        Fatal,
        Platform,
    ),
    x(120, "GSP firmware error", "GSP 固件错误", Fatal, Platform),
    x(
        121,
        "C2C link corrected error",
        "C2C 链路已纠正错误",
        Warning,
        Platform,
    ),
    x(
        122,
        "SPI PMU RPC read failure (older GPUs)",
        "SPI PMU RPC 读取失败（旧款 GPU）",
        Error,
        Platform,
    ),
    x(
        123,
        "SPI PMU RPC write failure (older GPUs)",
        "SPI PMU RPC 写入失败（旧款 GPU）",
        Error,
        Platform,
    ),
    x(
        124,
        "SPI PMU RPC erase failure (older GPUs)",
        "SPI PMU RPC 擦除失败（旧款 GPU）",
        Error,
        Platform,
    ),
    x(
        126,
        "copy engine exception (CE10)",
        "拷贝引擎异常（CE10）",
        Error,
        Platform,
    ),
    x(
        127,
        "copy engine exception (CE11)",
        "拷贝引擎异常（CE11）",
        Error,
        Platform,
    ),
    x(
        128,
        "copy engine exception (CE12)",
        "拷贝引擎异常（CE12）",
        Error,
        Platform,
    ),
    x(
        129,
        "copy engine exception (CE13)",
        "拷贝引擎异常（CE13）",
        Error,
        Platform,
    ),
    x(
        130,
        "copy engine exception (CE14)",
        "拷贝引擎异常（CE14）",
        Error,
        Platform,
    ),
    x(
        131,
        "copy engine exception (CE15)",
        "拷贝引擎异常（CE15）",
        Error,
        Platform,
    ),
    x(
        132,
        "copy engine exception (CE16)",
        "拷贝引擎异常（CE16）",
        Error,
        Platform,
    ),
    x(
        133,
        "copy engine exception (CE17)",
        "拷贝引擎异常（CE17）",
        Error,
        Platform,
    ),
    x(
        134,
        "copy engine exception (CE18)",
        "拷贝引擎异常（CE18）",
        Error,
        Platform,
    ),
    x(
        135,
        "copy engine exception (CE19)",
        "拷贝引擎异常（CE19）",
        Error,
        Platform,
    ),
    x(
        136,
        "NVLink training failed",
        "NVLink 链路训练失败",
        Fatal,
        Platform,
    ),
    x(
        137,
        "NVLink privilege error (illegal peer-to-peer access by the program)",
        "NVLink 权限错误（程序非法点对点访问）",
        Error,
        Application,
    ),
    x(
        139,
        "optical flow engine exception (OFA1)",
        "光流引擎异常（OFA1）",
        Error,
        Platform,
    ),
    x(
        140,
        "unrecovered ECC error",
        "未恢复的 ECC 错误",
        Fatal,
        Platform,
    ),
    x(
        141,
        "CUDA fast path error",
        "CUDA 快速路径错误",
        Warning,
        Platform,
    ),
    x(
        142,
        "video encoder exception (NVENC3)",
        "视频编码器异常（NVENC3）",
        Error,
        Platform,
    ),
    x(
        143,
        "GPU initialisation failure",
        "GPU 初始化失败",
        Fatal,
        Platform,
    ),
    x(
        144,
        "NVLink: SAW error (mostly non-fatal; a fatal one also raises Xid 48)",
        "NVLink：SAW 错误（多为非致命；致命时另报 Xid 48）",
        Warning,
        Platform,
    ),
    x(
        145,
        "NVLink: RLW error (may stop the program; a fatal one also raises Xid 48)",
        "NVLink：RLW 错误（可能终止程序；致命时另报 Xid 48）",
        Error,
        Platform,
    ),
    x(
        146,
        "NVLink: TLW error (mostly non-fatal; a fatal one also raises Xid 48)",
        "NVLink：TLW 错误（多为非致命；致命时另报 Xid 48）",
        Warning,
        Platform,
    ),
    x(
        147,
        "NVLink: TREX error (non-fatal)",
        "NVLink：TREX 错误（非致命）",
        Warning,
        Platform,
    ),
    x(
        148,
        "NVLink: NVLPW control error (non-fatal)",
        "NVLink：NVLPW 控制错误（非致命）",
        Warning,
        Platform,
    ),
    x(
        149,
        "NVLink: NETIR link event (link down or fatal link error)",
        "NVLink：NETIR 链路事件（链路断开或致命链路错误）",
        Fatal,
        Platform,
    ),
    x(
        150,
        "NVLink: MSE error (firmware watchdog or degraded)",
        "NVLink：MSE 错误（固件看门狗超时或链路降级）",
        Fatal,
        Platform,
    ),
    x(
        151,
        "confidential computing key rotation failed (the VM must restart)",
        "机密计算密钥轮换失败（虚拟机须重启）",
        Fatal,
        Platform,
    ),
    x(
        152,
        "DLA SMMU error (not on data-centre GPUs)",
        "DLA SMMU 错误（数据中心 GPU 不涉及）",
        Warning,
        Platform,
    ),
    x(
        153,
        "DLA timeout (not on data-centre GPUs)",
        "DLA 超时（数据中心 GPU 不涉及）",
        Warning,
        Platform,
    ),
    x(
        154,
        "GPU recovery action changed (the driver asks to drain, reset or reboot)",
        "GPU 恢复操作变更（驱动要求排空、重置 GPU 或重启）",
        Fatal,
        Platform,
    ),
    x(
        155,
        "NVLink: link taken down on purpose by software or a user",
        "NVLink：链路被软件或用户主动关闭",
        Fatal,
        Either,
    ),
    x(
        156,
        "resource retirement event (GPU reset required to apply it)",
        "资源退役事件（需重置 GPU 才能生效）",
        Fatal,
        Platform,
    ),
    x(
        157,
        "resource retirement failed (no spare resources left)",
        "资源退役失败（已无备用资源）",
        Warning,
        Platform,
    ),
    x(158, "GPU fatal timeout", "GPU 致命超时", Fatal, Platform),
    x(
        159,
        "C2C: CHI non-data error (reset needed where UVM or vGPU is in use)",
        "C2C：CHI 非数据错误（使用 UVM 或 vGPU 时需重置）",
        Fatal,
        Platform,
    ),
    x(
        160,
        "channel retirement event",
        "通道退役事件",
        Warning,
        Either,
    ),
    x(
        161,
        "channel retirement failed",
        "通道退役失败",
        Warning,
        Either,
    ),
    x(
        162,
        "power smoothing circuitry re-engaged",
        "功率平滑电路重新启用",
        Warning,
        Platform,
    ),
    x(
        163,
        "power smoothing circuitry disengaged",
        "功率平滑电路已停用",
        Warning,
        Platform,
    ),
    x(
        164,
        "power smoothing circuitry near the end of its lifetime",
        "功率平滑电路接近寿命终点",
        Warning,
        Platform,
    ),
    x(
        165,
        "power smoothing circuitry lifetime exhausted (power smoothing disabled)",
        "功率平滑电路寿命耗尽（功率平滑已禁用）",
        Warning,
        Platform,
    ),
    x(
        166,
        "NVLink: confidential traffic before the link was set up for encryption",
        "NVLink：链路完成加密配置前出现机密流量",
        Error,
        Platform,
    ),
    x(167, "PCIe fatal timeout", "PCIe 致命超时", Fatal, Platform),
    x(
        168,
        "reduced GPU memory capacity (errors in the write-protected region)",
        "GPU 显存容量减少（写保护区域出错）",
        Warning,
        Platform,
    ),
    x(
        169,
        "internal micro-controller halt (SEC2)",
        "内部微控制器停机（SEC2）",
        Fatal,
        Platform,
    ),
    x(
        170,
        "NVLink: unexpected interrupt in confidential computing mode",
        "NVLink：机密计算模式下出现意外中断",
        Error,
        Platform,
    ),
    x(
        171,
        "uncorrectable DRAM error (detail of an Xid 48)",
        "不可纠正的 DRAM 错误（Xid 48 的细分）",
        Fatal,
        Platform,
    ),
    x(
        172,
        "uncorrectable SRAM error (detail of an Xid 48)",
        "不可纠正的 SRAM 错误（Xid 48 的细分）",
        Fatal,
        Platform,
    ),
];

/// The catalogue entry for a code, if the code is known.
pub fn lookup(code: u32) -> Option<&'static XidInfo> {
    CATALOGUE
        .binary_search_by_key(&code, |e| e.code)
        .ok()
        .map(|i| &CATALOGUE[i])
}

/// A known code's meaning in Chinese or in English.
pub fn meaning_in(code: u32, zh: bool) -> Option<&'static str> {
    lookup(code).map(|info| info.meaning_in(zh))
}

/// Whether an Xid counts against the platform: known application faults
/// and recorded warnings do not; unknown codes do, because a buyer would
/// rather see an unexplained error than miss one.
pub fn counts_against_platform(code: Option<i64>) -> bool {
    match code.and_then(|c| u32::try_from(c).ok()).and_then(lookup) {
        Some(info) => info.counts_against_platform(),
        None => true,
    }
}

/// Whether an Xid stopped work (anything but a recorded warning).
pub fn interrupts(code: Option<i64>) -> bool {
    code.and_then(|c| u32::try_from(c).ok())
        .and_then(lookup)
        .is_none_or(XidInfo::interrupts)
}

/// Two faults of the same GPU this close are one incident: a fallen-off
/// line next to its Xid 79, an NVLink error behind its link event, a failed
/// initialisation retried by every nvidia-smi call.
pub const SAME_INCIDENT_MS: i64 = 60_000;

/// "Xid 79: GPU has fallen off the bus (fatal, platform)" — or the bare
/// code when it is not in the catalogue.
pub fn describe(code: i64) -> String {
    match u32::try_from(code).ok().and_then(lookup) {
        Some(info) => format!(
            "Xid {code}: {} ({}, {})",
            info.meaning,
            info.severity.as_str(),
            match info.blame {
                Blame::Platform => "platform fault",
                Blame::Application => "application fault, not counted",
                Blame::Either => "platform or application",
            }
        ),
        None => format!("Xid {code}: not in the catalogue (counted as a platform fault)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_sorted_and_unique() {
        // Binary search needs strictly increasing codes: a code out of
        // place or repeated would be missed by `lookup`.
        for w in CATALOGUE.windows(2) {
            assert!(
                w[0].code < w[1].code,
                "Xid {} is followed by Xid {}",
                w[0].code,
                w[1].code
            );
        }
        for info in CATALOGUE {
            assert_eq!(lookup(info.code), Some(info), "{}", info.code);
            assert!(!info.meaning.is_empty(), "{}", info.code);
        }
    }

    #[test]
    fn every_code_has_a_chinese_meaning() {
        let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
        for info in CATALOGUE {
            assert!(info.meaning_zh.chars().any(cjk), "Xid {}", info.code);
            assert_ne!(info.meaning_zh, info.meaning, "Xid {}", info.code);
            assert_eq!(meaning_in(info.code, true), Some(info.meaning_zh));
            assert_eq!(meaning_in(info.code, false), Some(info.meaning));
        }
        assert_eq!(meaning_in(79, true), Some("GPU 从总线脱落（掉卡）"));
        assert_eq!(meaning_in(4242, true), None);
    }

    fn verdict(code: u32) -> (Severity, Blame) {
        let info = lookup(code).unwrap_or_else(|| panic!("Xid {code} is not in the catalogue"));
        (info.severity, info.blame)
    }

    #[test]
    fn codes_checked_against_nvidias_catalogue() {
        // Uncorrectable memory, a lost GPU, GPU timeouts and firmware
        // faults need a reset or a reboot: the platform's, fatal.
        for code in [46, 48, 62, 64, 79, 95, 119, 120, 140, 143, 158, 171, 172] {
            assert_eq!(verdict(code), (Fatal, Platform), "{code}");
        }
        // The program's faults: shown, never counted.
        for code in [13, 31, 43, 45, 137] {
            assert_eq!(verdict(code).1, Application, "{code}");
            assert!(!counts_against_platform(Some(code.into())), "{code}");
        }
        // Engine exceptions the program is restarted after: errors of the
        // platform's hardware.
        for code in [39, 68, 94, 126, 135, 139] {
            assert_eq!(verdict(code), (Error, Platform), "{code}");
        }
        // NVIDIA's answer is "no action": recorded, not counted.
        for code in [14, 38, 44, 63, 92, 121, 141, 147, 148, 157, 162] {
            assert_eq!(verdict(code).0, Warning, "{code}");
            assert!(!interrupts(Some(code.into())), "{code}");
            assert!(!counts_against_platform(Some(code.into())), "{code}");
        }
        // A context switch timeout now asks for a GPU reset; the cause
        // may be the program or the driver.
        assert_eq!(verdict(109), (Fatal, Either));
        // NVLink: a link that went down, a broken link, the recovery
        // action that follows.
        for code in [74, 149, 150, 154] {
            assert_eq!(verdict(code), (Fatal, Platform), "{code}");
            assert!(counts_against_platform(Some(code.into())), "{code}");
        }
        assert!(describe(149).starts_with("Xid 149: NVLink"));
        // Codes NVIDIA marks unused on every GPU are not catalogued (and
        // so count, as any unknown code does).
        for code in [1, 9, 47, 90, 108, 111, 118, 125, 138] {
            assert!(lookup(code).is_none(), "{code}");
        }
    }

    #[test]
    fn application_faults_and_warnings_do_not_count_against_the_platform() {
        for code in [13, 31, 43, 45] {
            assert!(!counts_against_platform(Some(code)), "{code}");
            assert!(interrupts(Some(code)), "{code}");
        }
        for code in [48, 79, 74, 95, 109, 119, 149] {
            assert!(counts_against_platform(Some(code)), "{code}");
        }
        assert!(!counts_against_platform(Some(63)));
        assert!(!interrupts(Some(92)));
        // Unknown and missing codes count: better seen than missed.
        assert!(counts_against_platform(Some(999)));
        assert!(counts_against_platform(None));
    }

    #[test]
    fn descriptions_name_meaning_severity_and_blame() {
        assert_eq!(
            describe(79),
            "Xid 79: GPU has fallen off the bus (fatal, platform fault)"
        );
        assert!(describe(31).contains("application fault, not counted"));
        assert!(describe(4242).contains("not in the catalogue"));
    }
}
