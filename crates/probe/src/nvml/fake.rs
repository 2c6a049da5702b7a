//! An NVML that answers as it is scripted: each GPU's facts, readings,
//! field values, XIDs and processes, or the error NVML gives for each, and
//! optionally NVML's latency per call. Tests change a GPU mid-run (it
//! falls off the bus, needs a reset, comes back) through a shared handle;
//! the tick benchmark uses the latencies.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::time::Duration;

use super::api::{DeviceFacts, FieldAnswers, MigFacts, NvmlApi, NvmlError, Scalar, Xid};

/// An NVML error, by name (NVML's own errors carry library handles and
/// cannot be copied; these make the same error afresh at every call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    GpuLost,
    NotSupported,
    NoPermission,
    InsufficientPower,
    ResetRequired,
    InvalidArg,
    NotFound,
    Timeout,
    Unknown,
    /// The call is missing from this driver (an older NVML).
    MissingCall,
}

impl Code {
    pub fn error(self) -> NvmlError {
        match self {
            Code::GpuLost => NvmlError::GpuLost,
            Code::NotSupported => NvmlError::NotSupported,
            Code::NoPermission => NvmlError::NoPermission,
            Code::InsufficientPower => NvmlError::InsufficientPower,
            Code::ResetRequired => NvmlError::ResetRequired,
            Code::InvalidArg => NvmlError::InvalidArg,
            Code::NotFound => NvmlError::NotFound,
            Code::Timeout => NvmlError::Timeout,
            Code::Unknown => NvmlError::Unknown,
            Code::MissingCall => NvmlError::FailedToLoadSymbol("nvmlDeviceGetMemoryInfo_v2".into()),
        }
    }
}

pub type Answer<T> = Result<T, Code>;

/// One scripted GPU. What is not set answers `NotSupported`.
#[derive(Debug, Clone)]
pub struct FakeGpu {
    /// `Err` when the GPU cannot be opened at all.
    pub facts: Answer<DeviceFacts>,
    /// Per link; past the last one, `InvalidArg`.
    pub nvlinks: Vec<Answer<bool>>,
    pub mig: Answer<Vec<MigFacts>>,
    pub scalars: HashMap<Scalar, Answer<i64>>,
    pub utilization: Answer<(u32, u32)>,
    pub memory: Answer<(u64, u64)>,
    /// Field values by id: (value, NVML's timestamp in µs).
    pub fields: HashMap<u32, Answer<(i64, i64)>>,
    pub watch: Answer<()>,
    /// XIDs waiting to be collected, in order.
    pub xids: VecDeque<Xid>,
    /// What waiting for an XID answers when none is queued.
    pub idle_wait: Code,
    pub pids: Answer<Vec<u32>>,
    /// When set, every call on this GPU answers this (a lost GPU).
    pub every_call: Option<Code>,
}

impl FakeGpu {
    /// A healthy A100 80GB that reports everything.
    pub fn a100(index: u32) -> Self {
        let scalars = HashMap::from([
            (Scalar::PowerMw, Ok(250_000)),
            (Scalar::EnergyMj, Ok(123_456_789)),
            (Scalar::TempGpuC, Ok(65)),
            (Scalar::SmClockMhz, Ok(1410)),
            (Scalar::MemClockMhz, Ok(1593)),
            (Scalar::ThrottleMask, Ok(0)),
            (Scalar::FanPct, Err(Code::NotSupported)),
            (Scalar::Pstate, Ok(0)),
            (Scalar::PowerLimitMw, Ok(400_000)),
            (Scalar::UtilEncPct, Ok(0)),
            (Scalar::UtilDecPct, Ok(0)),
            (Scalar::PowerViolationNs, Ok(1_500_000)),
            (Scalar::ThermalViolationNs, Ok(0)),
            (Scalar::PcieReplays, Ok(0)),
            (Scalar::EccCorrectedVolatile, Ok(0)),
            (Scalar::EccUncorrectedVolatile, Ok(0)),
            (Scalar::EccCorrectedAggregate, Ok(2)),
            (Scalar::EccUncorrectedAggregate, Ok(0)),
        ]);
        Self {
            facts: Ok(DeviceFacts {
                name: Some("NVIDIA A100-SXM4-80GB".into()),
                uuid: Some(format!("GPU-0000000{index}-fake-4000-8000-000000000000")),
                pci_bus_id: Some(format!("00000000:{:02X}:00.0", 0x07 + index)),
                memory_total_bytes: Some(80 * 1024 * 1024 * 1024),
                mig_enabled: Some(false),
                ..DeviceFacts::default()
            }),
            nvlinks: vec![Ok(true); 12],
            mig: Ok(Vec::new()),
            scalars,
            utilization: Ok((97, 40)),
            memory: Ok((60 << 30, 80 << 30)),
            fields: HashMap::from([
                (super::api::FIELD_MEMORY_TEMP, Ok((72, 0))),
                (super::api::FIELD_PCIE_TX_BYTES, Ok((0, 0))),
                (super::api::FIELD_PCIE_RX_BYTES, Ok((0, 0))),
            ]),
            watch: Ok(()),
            xids: VecDeque::new(),
            idle_wait: Code::Timeout,
            pids: Ok(Vec::new()),
            every_call: None,
        }
    }
}

#[derive(Debug, Default)]
pub struct FakeState {
    pub count: Option<Code>,
    pub gpus: Vec<FakeGpu>,
    /// How long every call takes.
    pub latency: Duration,
    /// How many calls were made, by anyone.
    pub calls: u64,
}

/// The scripted NVML; clones share one state, so a test keeps a handle to
/// change GPUs while a session runs on another.
#[derive(Debug, Clone, Default)]
pub struct FakeNvml {
    pub state: Rc<RefCell<FakeState>>,
}

impl FakeNvml {
    pub fn new(gpus: Vec<FakeGpu>) -> Self {
        Self {
            state: Rc::new(RefCell::new(FakeState {
                gpus,
                ..FakeState::default()
            })),
        }
    }

    /// Change one GPU.
    pub fn gpu(&self, index: u32, change: impl FnOnce(&mut FakeGpu)) {
        change(&mut self.state.borrow_mut().gpus[index as usize]);
    }

    pub fn calls(&self) -> u64 {
        self.state.borrow().calls
    }

    /// Answer for `gpu` as scripted, after the call's latency.
    fn on<T>(
        &self,
        gpu: u32,
        pick: impl FnOnce(&mut FakeGpu) -> Answer<T>,
    ) -> Result<T, NvmlError> {
        let latency = {
            let mut s = self.state.borrow_mut();
            s.calls += 1;
            s.latency
        };
        spend(latency);
        let mut s = self.state.borrow_mut();
        let Some(g) = s.gpus.get_mut(gpu as usize) else {
            return Err(NvmlError::InvalidArg);
        };
        if let Some(code) = g.every_call {
            return Err(code.error());
        }
        pick(g).map_err(Code::error)
    }
}

/// Take `d` as a driver call does: busy, not asleep (a sleep of 20 µs
/// lasts 60 µs or more under Linux's timer slack).
pub fn spend(d: Duration) {
    if d.is_zero() {
        return;
    }
    let start = std::time::Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

impl NvmlApi for FakeNvml {
    fn device_count(&self) -> Result<u32, NvmlError> {
        let s = self.state.borrow();
        match s.count {
            Some(code) => Err(code.error()),
            None => Ok(s.gpus.len() as u32),
        }
    }

    fn driver_version(&self) -> Option<String> {
        Some("535.104.05".into())
    }

    fn cuda_version(&self) -> Option<i32> {
        Some(12020)
    }

    fn facts(&self, gpu: u32) -> Result<DeviceFacts, NvmlError> {
        self.on(gpu, |g| g.facts.clone())
    }

    fn nvlink_active(&self, gpu: u32, link: u32) -> Result<bool, NvmlError> {
        self.on(gpu, |g| {
            g.nvlinks
                .get(link as usize)
                .copied()
                .unwrap_or(Err(Code::InvalidArg))
        })
    }

    fn mig_instances(&self, gpu: u32) -> Result<Vec<MigFacts>, NvmlError> {
        self.on(gpu, |g| g.mig.clone())
    }

    fn scalar(&self, gpu: u32, what: Scalar) -> Result<i64, NvmlError> {
        self.on(gpu, |g| {
            g.scalars
                .get(&what)
                .copied()
                .unwrap_or(Err(Code::NotSupported))
        })
    }

    fn utilization(&self, gpu: u32) -> Result<(u32, u32), NvmlError> {
        self.on(gpu, |g| g.utilization)
    }

    fn memory(&self, gpu: u32) -> Result<(u64, u64), NvmlError> {
        self.on(gpu, |g| g.memory)
    }

    fn fields(&self, gpu: u32, ids: &[u32]) -> Result<FieldAnswers, NvmlError> {
        let answers: Vec<Answer<(i64, i64)>> = self.on(gpu, |g| {
            Ok(ids
                .iter()
                .map(|id| g.fields.get(id).copied().unwrap_or(Err(Code::NotSupported)))
                .collect())
        })?;
        Ok(answers
            .into_iter()
            .map(|a| a.map_err(Code::error))
            .collect())
    }

    fn watch_xids(&mut self, gpu: u32) -> Result<(), NvmlError> {
        self.on(gpu, |g| g.watch)
    }

    fn next_xid(&self, gpu: u32, _timeout_ms: u32) -> Result<Xid, NvmlError> {
        // An XID is delivered even by a GPU that answers nothing else:
        // that is how Xid 79 (fallen off the bus) arrives.
        let latency = self.state.borrow().latency;
        spend(latency);
        let mut s = self.state.borrow_mut();
        s.calls += 1;
        let g = s.gpus.get_mut(gpu as usize).ok_or(NvmlError::InvalidArg)?;
        match g.xids.pop_front() {
            Some(x) => Ok(x),
            None => Err(g.idle_wait.error()),
        }
    }

    fn compute_pids(&self, gpu: u32) -> Result<Vec<u32>, NvmlError> {
        self.on(gpu, |g| g.pids.clone())
    }
}
