#!/usr/bin/env bash
# The NVML probe on a real NVIDIA machine: inventory, a 60 s sample while a
# load runs, the wrapper around that load; then checks that the figures are
# plausible (PCIe width as nvidia-smi says, XIDs watched on every GPU, MIG
# instances as `nvidia-smi -L` lists them, PCIe throughput from the byte
# counters with ticks on time) and prints a short table. Exit status 0 only when every check
# passes. Needs the NVIDIA driver; a load needs python3 with CUDA torch
# (otherwise the load checks are reported as not run, and the script fails).
#
#   tests/gpu/probe-check.sh [path/to/breakpoint]
set -uo pipefail
cd "$(dirname "$0")/../.."
BP=${1:-target/release/breakpoint}
[ -x "$BP" ] || cargo build --release -q -p breakpoint-cli || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/load.py" <<'PY'
import sys, time
import torch
seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
x = torch.randn(8192, 8192, device="cuda")
end = time.time() + seconds
while time.time() < end:
    y = x @ x
torch.cuda.synchronize()
PY
have_torch=no
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null && have_torch=yes

echo "== inventory"
"$BP" --json probe inventory > "$work/inventory.json" || { echo "probe inventory failed"; exit 1; }
"$BP" probe inventory

echo "== 60 s sample while a load runs (torch: $have_torch)"
"$BP" probe sample --interval 1s --duration 60s -o "$work/sample.jsonl" > "$work/sample.out" 2>&1 &
sampler=$!
sleep 5
if [ "$have_torch" = yes ]; then python3 "$work/load.py" 50; fi
wait $sampler
cat "$work/sample.out"

echo "== wrapper around the load"
if [ "$have_torch" = yes ]; then
  "$BP" probe run --interval 500ms -o "$work/wrap.jsonl" -- python3 "$work/load.py" 20
  echo "wrapped exit status: $?"
fi

nvidia-smi --query-gpu=index,pcie.link.width.current --format=csv,noheader,nounits > "$work/smi-width.csv"
nvidia-smi -L > "$work/smi-list.txt"
nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 > "$work/driver.txt"

python3 - "$work" "$have_torch" <<'PY'
import json, sys, statistics
work, have_torch = sys.argv[1], sys.argv[2] == "yes"
inv = json.load(open(f"{work}/inventory.json"))
rows = [json.loads(l) for l in open(f"{work}/sample.jsonl") if l.strip()]
samples = [r for r in rows[1:] if "gpu" in r and "t" in r and "event" not in r]
width = {int(i): int(w) for i, w in (l.split(",") for l in open(f"{work}/smi-width.csv") if l.strip())}
checks = []
for g in inv:
    i = g["index"]
    mine = [s for s in samples if s["gpu"] == i]
    util = [s["util_gpu_pct"] for s in mine if "util_gpu_pct" in s]
    power = sorted(s["power_mw"] / 1000 for s in mine if "power_mw" in s)
    busy_power = [s["power_mw"] / 1000 for s in mine if s.get("util_gpu_pct", 0) > 90 and "power_mw" in s]
    idle_power = power[: max(1, len(power) // 10)] if power else []
    name = (g.get("accelerator") or {}).get("raw", "?")
    print(f"GPU {i} {name}: samples {len(mine)}, util max {max(util) if util else '–'} %, "
          f"power idle {statistics.median(idle_power) if idle_power else float('nan'):.0f} W, "
          f"busy {statistics.median(busy_power) if busy_power else float('nan'):.0f} W, "
          f"PCIe x{g.get('pcie_width_current')} (nvidia-smi x{width.get(i)})")
    checks.append((f"GPU {i}: PCIe width equals nvidia-smi's", g.get("pcie_width_current") == width.get(i)))
    checks.append((f"GPU {i}: about one sample a second", len(mine) >= 55))
    if have_torch and i == 0:
        checks.append(("GPU 0: utilisation above 90 % under load", bool(util) and max(util) > 90))
        checks.append(("GPU 0: busy power well above idle", bool(busy_power) and bool(idle_power)
                       and statistics.median(busy_power) > 1.3 * statistics.median(idle_power)))
# XIDs are watched on every GPU (each on its own event set); a GPU that
# cannot be is named in a note. Data-centre GPUs all support XID events.
notes = [r for r in rows[1:] if r.get("event") == "note"]
unwatched = [n for n in notes if "are not watched" in (n.get("detail") or "")]
for n in unwatched:
    print(f"note: {n.get('detail')}")
datacentre = all(any(k in ((g.get("accelerator") or {}).get("raw") or "") for k in
                     ("A100", "A800", "H100", "H800", "H200", "H20", "B200", "L40", "L20"))
                 for g in inv)
if datacentre:
    checks.append(("XIDs watched on every GPU", not unwatched))
# MIG: the instances the probe lists are the ones nvidia-smi -L lists.
smi_mig, current = {}, None
for line in open(f"{work}/smi-list.txt"):
    if line.startswith("GPU "):
        current = int(line.split()[1].rstrip(":"))
        smi_mig[current] = 0
    elif line.strip().startswith("MIG") and current is not None:
        smi_mig[current] += 1
for g in inv:
    i = g["index"]
    listed = len(g.get("mig_instances", []))
    checks.append((f"GPU {i}: MIG instances as nvidia-smi -L ({smi_mig.get(i, 0)})", listed == smi_mig.get(i, 0)))
    checks.append((f"GPU {i}: readable at start", g.get("unreadable") is None))
# PCIe throughput from the byte counters (R535+): present, and reading it
# never makes a tick late (the old query sampled 20 ms per call).
driver_major = int(open(f"{work}/driver.txt").read().split(".")[0] or 0)
for g in inv:
    i = g["index"]
    mine = [s for s in samples if s["gpu"] == i]
    with_pcie = [s for s in mine if "pcie_rx_kbps" in s]
    if driver_major >= 535:
        checks.append((f"GPU {i}: PCIe throughput in most samples (byte counters)", len(with_pcie) >= len(mine) // 2))
    steps = [b["t"] - a["t"] for a, b in zip(mine, mine[1:])]
    if steps:
        late = sum(1 for d in steps if d > 1100)
        print(f"GPU {i}: sample spacing median {statistics.median(steps)} ms, {late} late by >100 ms")
        checks.append((f"GPU {i}: ticks on time (median spacing 1000 ± 20 ms)", abs(statistics.median(steps) - 1000) <= 20))
if have_torch:
    wrap = [json.loads(l) for l in open(f"{work}/wrap.jsonl") if l.strip()]
    summary = next((r["summary"] for r in wrap if "summary" in r), {})
    startup = [r for r in wrap if "startup" in r]
    print(f"wrapper: exit {summary.get('exit_code')}, wall {summary.get('wall_s')} s, busy {summary.get('busy_s')} s, "
          f"first activity {summary.get('first_activity_s')} s")
    checks.append(("wrapper: startup latency recorded", len(startup) == 1 and summary.get("first_activity_s") is not None))
    checks.append(("wrapper: workload exit status 0", summary.get("exit_code") == 0))
else:
    checks.append(("load checks (python3 with CUDA torch)", False))
print()
failed = 0
for name, ok in checks:
    print(f"{'PASS' if ok else 'FAIL'}  {name}")
    failed += not ok
sys.exit(1 if failed else 0)
PY
