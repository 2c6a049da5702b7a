//! Each GPU's energy, kept beside its samples (the model's
//! `samples::energy`): the sample writer keeps what it tallied, and
//! `metrics::energy` keeps what it had to integrate from the samples.

use std::collections::BTreeMap;

use rusqlite::params;

use super::Store;
use crate::error::Result;
use crate::samples::energy::{GpuEnergy, RULE};

impl Store {
    /// The energy kept for each of a run's GPUs under today's rule: `None`
    /// for a GPU known to have no power interval. GPUs not listed are not
    /// known yet.
    pub fn kept_energy(&self, run_id: i64) -> Result<BTreeMap<u32, Option<GpuEnergy>>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT gpu, kwh, hours, working_w, waiting_w FROM gpu_energy
             WHERE run_id = ?1 AND rule = ?2",
        )?;
        let rows = stmt.query_map(params![run_id, RULE], |r| {
            let gpu: u32 = r.get(0)?;
            let energy = r
                .get::<_, Option<f64>>(1)?
                .map(|kwh| -> rusqlite::Result<GpuEnergy> {
                    Ok(GpuEnergy {
                        gpu,
                        kwh,
                        hours: r.get::<_, Option<f64>>(2)?.unwrap_or(0.0),
                        working_w: r.get(3)?,
                        waiting_w: r.get(4)?,
                    })
                })
                .transpose()?;
            Ok((gpu, energy))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Keep GPU `gpu`'s energy in run `run_id` (`None`: it has none).
    pub fn keep_energy(&self, run_id: i64, gpu: u32, energy: Option<&GpuEnergy>) -> Result<()> {
        self.conn()
            .prepare_cached(
                "INSERT OR REPLACE INTO gpu_energy
                 (run_id, gpu, rule, kwh, hours, working_w, waiting_w)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                run_id,
                gpu,
                RULE,
                energy.map(|e| e.kwh),
                energy.map(|e| e.hours),
                energy.and_then(|e| e.working_w),
                energy.and_then(|e| e.waiting_w),
            ])?;
        Ok(())
    }

    /// Forget GPU `gpu`'s energy in run `run_id`: its samples changed.
    pub(crate) fn forget_energy(&self, run_id: i64, gpu: u32) -> Result<()> {
        self.conn()
            .prepare_cached("DELETE FROM gpu_energy WHERE run_id = ?1 AND gpu = ?2")?
            .execute(params![run_id, gpu])?;
        Ok(())
    }
}
