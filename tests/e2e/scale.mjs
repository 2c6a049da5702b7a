// A seeded workspace of many platforms for the app-at-scale step: per
// platform an offering with its price, a billing rule, and the evidence of
// the four breakpoints in the formats users import (startup, switch, drill
// and billing tables, an hour of nvidia-smi CSV), each platform drawing a
// character of its own so the ranking has something to order; and one long
// run (8 GPUs × 48 h at 1 Hz, 1.4 M samples) whose timeline the app draws.
// Everything goes in through the command line, as a user's files would.

import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** mulberry32: a small seeded generator, uniform in [0, 1). */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY0 = Date.UTC(2024, 5, 2) / 1000;
const iso = (s) => new Date(Math.round(s * 1000)).toISOString();
const pad = (n, w = 2) => String(n).padStart(w, "0");
/** nvidia-smi's own timestamp: "2024/06/02 00:00:00.123". */
function smiTime(epochS, ms) {
  const d = new Date(epochS * 1000);
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(ms, 3)}`;
}

function tables(dir, p) {
  const rng = seeded(0x5eed + p * 7919);
  const between = (lo, hi) => lo + (hi - lo) * rng();
  const baseline = between(1, 90);
  const peak = baseline * between(1.5, 20);
  let startup = "scenario,image,submitted_at,first_compute_at,outcome\n";
  for (let k = 0; k < 24; k++) {
    const scenario = k < 12 ? "baseline" : "peak";
    const submitted = DAY0 + k * 600;
    if (scenario === "peak" && rng() < 0.1) {
      startup += `${scenario},warm,${iso(submitted)},,timeout\n`;
    } else {
      const latency = (scenario === "peak" ? peak : baseline) * between(0.8, 1.25);
      startup += `${scenario},warm,${iso(submitted)},${iso(submitted + latency)},ok\n`;
    }
  }
  writeFileSync(join(dir, "startup.csv"), startup);
  const steps = between(2, 40);
  let sw = "from_env,to_env,success,manual_steps,duration_s,rel_l2_error,ops_passed,ops_total\n";
  for (const to of ["PyTorch 2.1 + CANN 7.0", "MindSpore 2.3 + CANN 7.0", "PyTorch 2.3 + cu121"]) {
    const s = Math.round(steps * between(0.8, 1.2));
    sw += `PyTorch 2.1 + cu118,${to},${rng() < 0.85},${s},${600 + s * 240},${between(1e-6, 1e-3).toExponential(2)},${Math.floor(127 * between(0.8, 1))},127\n`;
  }
  writeFileSync(join(dir, "switch.csv"), sw);
  const recovery = between(20, 600);
  let drills = "fault,detected,recovered,recovery_s,progress_lost_s\n";
  for (const fault of ["process-kill", "out-of-memory", "bad-data-path", "instance-recreate"]) {
    const r = recovery * between(0.85, 1.15);
    drills += `${fault},yes,yes,${r.toFixed(0)},${(r * 2).toFixed(0)}\n`;
  }
  writeFileSync(join(dir, "drills.csv"), drills);
  const price = between(6, 20);
  const padded = between(0, 0.4);
  let billing = "instance,start,end,billed_seconds,compute_seconds,queue_seconds,io_wait_seconds,amount,currency,unit_price\n";
  for (let job = 0; job < 3; job++) {
    const start = DAY0 + job * 86400;
    const compute = Math.round(between(3000, 9000));
    const billed = Math.round(compute * (1 + padded));
    billing += `job-${job},${iso(start)},${iso(start + billed)},${billed},${compute},0,${billed - compute},${((billed / 3600) * price).toFixed(2)},CNY,${price.toFixed(2)}\n`;
  }
  writeFileSync(join(dir, "billing.csv"), billing);
  // An hour of sustained load at 10 s, with this platform's own sag.
  const sag = between(0, 60);
  let smi = "timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, clocks.sm [MHz]\n";
  for (let r = 0; r < 360; r++) {
    for (let g = 0; g < 8; g++) {
      const watts = 400 - (r > 180 ? sag : 0) + between(-5, 5);
      smi += `${smiTime(DAY0 + 3 * 86400 + r * 10, 100 + g)}, ${g}, ${watts.toFixed(2)} W, ${Math.floor(between(94, 101))} %, ${Math.floor(between(60, 80))}, 1410 MHz\n`;
    }
  }
  writeFileSync(join(dir, "sustain.csv"), smi);
  return { price: price.toFixed(2), granularity: ["1s", "1m", "1h"][Math.floor(rng() * 3)] };
}

/** 8 GPUs × `hours` at 1 Hz as nvidia-smi writes it, streamed to `path`. */
export function writeLongRun(path, hours) {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path);
    out.on("error", reject);
    const rng = seeded(48);
    const seconds = hours * 3600;
    let s = 0;
    let rows = 0;
    out.write("timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, clocks.sm [MHz], clocks_throttle_reasons.active\n");
    const more = () => {
      while (s < seconds) {
        let block = "";
        for (const end = Math.min(seconds, s + 600); s < end; s++) {
          const busy = s % 2700 < 2400;
          for (let g = 0; g < 8; g++) {
            const watts = busy ? 240 + rng() * 12 : 60 + rng() * 2;
            const mask = busy && rng() < 0.005 ? 4 : 0;
            block += `${smiTime(DAY0 + 5 * 86400 + s, 177 + 2 * g)}, ${g}, ${watts.toFixed(2)} W, ${busy ? 94 + Math.floor(rng() * 7) : 0} %, ${busy ? 71 : 45}, ${busy ? 1410 : 210} MHz, 0x${mask.toString(16).padStart(16, "0")}\n`;
            rows++;
          }
        }
        if (!out.write(block)) {
          out.once("drain", more);
          return;
        }
      }
      out.end(() => resolve(rows));
    };
    more();
  });
}

/**
 * Build the workspace through the command line `breakpoint(...args)`:
 * `platforms` platforms named P000 …, their evidence written under `dir`.
 */
export function buildScaleWorkspace(breakpoint, dir, platforms) {
  for (let p = 0; p < platforms; p++) {
    const name = `P${pad(p, 3)}`;
    const logs = join(dir, name);
    mkdirSync(logs, { recursive: true });
    const { price, granularity } = tables(logs, p);
    breakpoint("platform", "add", name);
    breakpoint("offering", "add", "--platform", name, "--accelerator", "A100 80GB SXM", "--count", "8", "--currency", "CNY", "--price-on-demand", price);
    breakpoint("billing", "set", "--platform", name, "--granularity", granularity);
    breakpoint("import", logs, "--platform", name, "--tz", "UTC");
  }
}
