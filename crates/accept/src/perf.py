#!/usr/bin/env python3
"""Breakpoint's delivered-performance suite: what each accelerator computes and moves.

Measures, per GPU of this node, with the platform's own PyTorch (CUDA, or an
Ascend NPU through torch_npu; the CPU through PyTorch or NumPy to test the
logic): dense matrix-product throughput for each dtype the card supports,
device-memory bandwidth (a large copy), host<->device bandwidth from pinned
memory both ways, peer-to-peer bandwidth between every pair of GPUs, and an
all-reduce's bus bandwidth across the node's GPUs. Every figure is the median
of timed repeats after untimed warm-ups, with its minimum, maximum and the
settings used. With --duration the matrix product is then repeated on every
GPU at --interval, with the power and SM clock it ran at where the driver
tells them: throughput over time. One JSON document (format "breakpoint-perf")
is written; `breakpoint import` reads it.

    python3 perf.py [--device auto|cuda|npu|cpu|numpy] [--quick]
                    [--duration S --interval S] -o perf.json

--plant GPU:SHARE[@AFTER_S] slows one device by a share of its time (from
AFTER_S seconds into the timeline, or throughout): a test of the analysis, never
a measurement, and recorded as such in the document. --gpus N splits the CPU
into N devices measured in turn, for the same purpose.
"""

import argparse
import json
import math
import os
import platform
import re
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone

FORMAT = "breakpoint-perf"
VERSION = 1

# Each dtype's name in the document, and the flops of one m*n*k product (2mnk).
GPU_DTYPES = ["fp32", "tf32", "bf16", "fp16", "fp8"]


def now_text():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def summary(values):
    """Median, minimum, maximum of the timed repeats."""
    ordered = sorted(values)
    n = len(ordered)
    middle = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2.0
    return {"median": middle, "min": ordered[0], "max": ordered[-1], "repeats": n}


def wall_time(work, iterations):
    """Seconds for `iterations` runs of `work` on the CPU, by the wall clock."""
    started = time.perf_counter()
    for _ in range(iterations):
        work()
    return time.perf_counter() - started


class Planted:
    """Slowdowns asked for by --plant: after each timed repeat on a planted
    device, sleep so that its figure is (1 - share) of what it measured."""

    def __init__(self, specs):
        self.slow = {}
        for spec in specs:
            match = re.fullmatch(r"(\d+):(0?\.\d+)(?:@(\d+(?:\.\d+)?))?", spec)
            if not match:
                sys.exit(f"perf.py: --plant {spec}: write GPU:SHARE[@AFTER_S], e.g. 1:0.25@60")
            share = float(match.group(2))
            if not 0.0 < share < 0.9:
                sys.exit(f"perf.py: --plant {spec}: the share must be between 0 and 0.9")
            after = float(match.group(3)) if match.group(3) else None
            self.slow[int(match.group(1))] = (share, after)
        # Seconds into the timeline of the point being measured: a point
        # is planted by when it began, not by when its work ended.
        self.point_s = None

    def record(self):
        return [
            {"gpu": gpu, "share": share, **({"after_s": after} if after is not None else {})}
            for gpu, (share, after) in sorted(self.slow.items())
        ]

    def stretch(self, gpu, elapsed):
        """The time a repeat that took `elapsed` seconds is made to take."""
        if gpu not in self.slow:
            return elapsed
        share, after = self.slow[gpu]
        if after is not None:
            if self.point_s is None or self.point_s < after:
                return elapsed
        extra = elapsed * share / (1.0 - share)
        time.sleep(extra)
        return elapsed + extra


class NumpyBackend:
    """NumPy on the CPU: the logic, not a measurement of an accelerator."""

    kind = "numpy"
    module = None

    def __init__(self, count):
        import numpy

        self.np = numpy
        self.framework = f"numpy {numpy.__version__}"
        self.count = count
        # Devices split off one CPU, run paced (Suite.time).
        self.simulated = count > 1
        self.settings = {"simulated_devices": count} if self.simulated else {}

    def devices(self):
        name = f"CPU ({platform.processor() or platform.machine()})"
        return [{"index": i, "name": name} for i in range(self.count)]

    def dtypes(self, gpu):
        return {"fp32": None}

    def matrices(self, gpu, dtype, size):
        rng = self.np.random.default_rng(gpu)
        a = rng.standard_normal((size, size), dtype=self.np.float32)
        b = rng.standard_normal((size, size), dtype=self.np.float32)
        out = self.np.empty((size, size), dtype=self.np.float32)
        return lambda: self.np.matmul(a, b, out=out)

    def buffers(self, gpu, nbytes):
        src = self.np.ones(nbytes // 4, dtype=self.np.float32)
        dst = self.np.empty_like(src)
        return lambda: self.np.copyto(dst, src)

    def timed(self, gpu, work, iterations):
        return wall_time(work, iterations)

    def host_transfers(self, gpu, nbytes):
        return None

    def peer_copy(self, src, dst, nbytes):
        return None

    def telemetry(self, gpu):
        return {}


class TorchBackend:
    """PyTorch on CUDA, an Ascend NPU, or the CPU."""

    def __init__(self, kind, count):
        import torch

        self.torch = torch
        self.kind = kind
        self.framework = f"torch {torch.__version__}"
        self.settings = {}
        if kind == "cuda":
            self.module = torch.cuda
            self.settings["cuda"] = torch.version.cuda
        elif kind == "npu":
            self.module = torch.npu
            self.settings["torch_npu"] = getattr(sys.modules.get("torch_npu"), "__version__", "?")
        else:
            self.module = None
        self.count = self.module.device_count() if self.module else count
        self.simulated = not self.module and count > 1
        if self.simulated:
            self.settings["simulated_devices"] = count
        self.nvml = open_nvml() if kind == "cuda" else None

    def dev(self, gpu):
        return self.torch.device(f"{self.kind}:{gpu}") if self.module else self.torch.device("cpu")

    def devices(self):
        if not self.module:
            name = f"CPU ({platform.processor() or platform.machine()})"
            return [{"index": i, "name": name} for i in range(self.count)]
        found = []
        for i in range(self.count):
            entry = {"index": i, "name": self.module.get_device_name(i)}
            try:
                props = self.module.get_device_properties(i)
                entry["memory_mib"] = int(props.total_memory // (1 << 20))
                if self.kind == "cuda":
                    entry["compute_capability"] = f"{props.major}.{props.minor}"
                    entry["multiprocessors"] = props.multi_processor_count
                    if hasattr(props, "pci_bus_id"):
                        entry["pci_bus_id"] = "%08X:%02X:%02X.0" % (
                            getattr(props, "pci_domain_id", 0), props.pci_bus_id, getattr(props, "pci_device_id", 0))
                    uuid = getattr(props, "uuid", None)
                    if uuid is not None:
                        entry["uuid"] = f"GPU-{uuid}"
            except Exception:
                pass
            found.append(entry)
        return found

    def dtypes(self, gpu):
        torch = self.torch
        if not self.module:
            return {"fp32": torch.float32, "bf16": torch.bfloat16}
        wanted = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
        if self.kind == "cuda":
            major, minor = self.module.get_device_capability(gpu)
            if major < 8:
                del wanted["tf32"]
                del wanted["bf16"]
            fp8 = getattr(torch, "float8_e4m3fn", None)
            if fp8 is not None and (major, minor) >= (8, 9) and hasattr(torch, "_scaled_mm"):
                wanted["fp8"] = fp8
        return wanted

    def matrices(self, gpu, dtype, size):
        torch = self.torch
        dev = self.dev(gpu)
        kind = dtype
        target = self.dtypes(gpu)[kind]
        generator = torch.Generator(device="cpu").manual_seed(gpu)
        a = torch.randn(size, size, generator=generator).to(dev)
        b = torch.randn(size, size, generator=generator).to(dev)
        if kind == "fp8":
            a8 = a.to(target)
            # _scaled_mm wants its second operand column-major.
            b8 = b.to(target).t().contiguous().t()
            one = torch.ones((), device=dev)
            return lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        a, b = a.to(target), b.to(target)
        out = torch.empty(size, size, dtype=target, device=dev)
        if self.kind == "cuda":
            allow = kind == "tf32"

            def product():
                torch.backends.cuda.matmul.allow_tf32 = allow
                torch.matmul(a, b, out=out)

            return product
        return lambda: torch.matmul(a, b, out=out)

    def buffers(self, gpu, nbytes):
        torch = self.torch
        src = torch.ones(nbytes // 4, dtype=torch.float32, device=self.dev(gpu))
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    def timed(self, gpu, work, iterations):
        """Seconds for `iterations` runs of `work`, by the device's own events."""
        if not self.module:
            return wall_time(work, iterations)
        start, end = self.enqueue(gpu, work, iterations)
        end.synchronize()
        return start.elapsed_time(end) / 1000.0

    def enqueue(self, gpu, work, iterations):
        """`iterations` runs of `work` launched on `gpu` between two timing
        events; returns the events, the work still running."""
        with self.module.device(gpu):
            start = self.module.Event(enable_timing=True)
            end = self.module.Event(enable_timing=True)
            start.record()
            for _ in range(iterations):
                work()
            end.record()
        return start, end

    def burst(self, works, iterations, midway):
        """`iterations` runs of each GPU's work, on every GPU at once; calls
        `midway` while they run. Seconds each GPU took, by its own events."""
        events = {gpu: self.enqueue(gpu, work, iterations) for gpu, work in works.items()}
        # The launches return at once; the work takes about a second.
        time.sleep(0.4)
        midway()
        taken = {}
        for gpu, (start, end) in events.items():
            end.synchronize()
            taken[gpu] = start.elapsed_time(end) / 1000.0
        return taken

    def host_transfers(self, gpu, nbytes):
        """(host->device, device->host) work on pinned host memory."""
        if not self.module:
            return None
        torch = self.torch
        host = torch.ones(nbytes // 4, dtype=torch.float32).pin_memory()
        back = torch.empty_like(host).pin_memory()
        device = torch.empty(nbytes // 4, dtype=torch.float32, device=self.dev(gpu))
        return (
            lambda: device.copy_(host, non_blocking=True),
            lambda: back.copy_(device, non_blocking=True),
        )

    def peer_copy(self, src, dst, nbytes):
        if not self.module or src == dst:
            return None
        torch = self.torch
        a = torch.ones(nbytes // 4, dtype=torch.float32, device=self.dev(src))
        b = torch.empty(nbytes // 4, dtype=torch.float32, device=self.dev(dst))
        return lambda: b.copy_(a, non_blocking=True)

    def timed_between(self, src, dst, work, iterations):
        """Seconds for a copy between two devices, both drained before and after."""
        for gpu in (src, dst):
            self.module.synchronize(gpu)
        started = time.perf_counter()
        for _ in range(iterations):
            work()
        for gpu in (src, dst):
            self.module.synchronize(gpu)
        return time.perf_counter() - started

    def peer_access(self, src, dst):
        try:
            return bool(self.module.can_device_access_peer(src, dst))
        except Exception:
            return None

    def telemetry(self, gpu):
        """Power (W) and SM clock (MHz) now, where NVML answers."""
        if self.nvml is None:
            return {}
        nvml, handles = self.nvml
        try:
            handle = handles[gpu]
            return {
                "power_w": round(nvml.nvmlDeviceGetPowerUsage(handle) / 1000.0, 1),
                "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM),
            }
        except Exception:
            return {}


def open_nvml():
    """NVML through nvidia-ml-py where it is installed; else no telemetry."""
    try:
        import pynvml as nvml

        nvml.nvmlInit()
        return nvml, [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]
    except Exception:
        return None


def open_backend(wanted, count):
    if wanted == "numpy":
        return NumpyBackend(count)
    if wanted in ("cuda", "npu", "cpu"):
        import torch  # noqa: F401

        if wanted == "npu":
            import torch_npu  # noqa: F401  (registers the npu device)
        return TorchBackend(wanted, count)
    try:
        import torch
    except ImportError:
        return NumpyBackend(count)
    if torch.cuda.is_available():
        return TorchBackend("cuda", count)
    try:
        import torch_npu  # noqa: F401

        if torch.npu.is_available():
            return TorchBackend("npu", count)
    except ImportError:
        pass
    return TorchBackend("cpu", count)


def pcie_links():
    """Each GPU's PCIe link (current and maximum generation and width), by
    nvidia-smi where there is one."""
    fields = "index,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max"
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20,
        ).stdout
    except Exception:
        return {}
    links = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue

        def number(text):
            return int(text) if text.isdigit() else None

        links[int(cells[0])] = {
            "gen": number(cells[1]), "gen_max": number(cells[2]),
            "width": number(cells[3]), "width_max": number(cells[4]),
        }
    return links


def topology():
    """nvidia-smi topo -m's connection between each pair of GPUs (NV18, PIX,
    PXB, PHB, NODE, SYS), where there is one."""
    try:
        out = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True, timeout=20).stdout
    except Exception:
        return {}
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in out.splitlines() if l.strip()]
    if not lines:
        return {}
    header = lines[0].split()
    columns = [c for c in header if re.fullmatch(r"GPU\d+", c)]
    pairs = {}
    for line in lines[1:]:
        cells = line.split()
        if not cells or not re.fullmatch(r"GPU\d+", cells[0]):
            continue
        row = int(cells[0][3:])
        for name, cell in zip(columns, cells[1 : 1 + len(columns)]):
            column = int(name[3:])
            if column != row:
                pairs[(row, column)] = cell
    return pairs


class Suite:
    def __init__(self, backend, args, planted):
        self.backend = backend
        self.args = args
        self.planted = planted
        self.results = []
        self.skipped = []
        # The pace of the test under way (Suite.time), set by its first run.
        self.period = None
        quick = args.quick
        self.gemm_size = args.gemm_size or (1024 if backend.kind in ("numpy", "cpu") else (4096 if quick else 8192))
        self.repeats = args.repeats or (5 if quick else 10)
        self.warmup = 2 if quick else 3
        mib = 64 if backend.kind in ("numpy", "cpu") else (256 if quick else 1024)
        self.copy_bytes = mib << 20
        self.transfer_bytes = (64 if quick else 256) << 20

    def time(self, gpu, work, iterations):
        """Seconds for `iterations` runs of `work` on `gpu`. Devices split off
        the CPU run paced: each run is padded to a fixed period (three times
        what it took when first timed) and counts as that period, so that the
        devices differ by what was planted alone and not by the CPU's noise
        or load. Their figures measure the pace, never the CPU; the work is
        done all the same, so every step of the suite runs. One period serves
        every device of a test."""
        if not self.backend.simulated:
            return self.backend.timed(gpu, work, iterations)
        if self.period is None:
            self.period = 3.0 * summary([self.backend.timed(gpu, work, 1) for _ in range(3)])["median"]
        period = self.period
        started = time.perf_counter()
        for i in range(iterations):
            work()
            rest = started + (i + 1) * period - time.perf_counter()
            if rest > 0:
                time.sleep(rest)
        return iterations * period

    def settings(self):
        return {
            "gemm_size": self.gemm_size,
            "repeats": self.repeats,
            "warmup": self.warmup,
            "copy_mib": self.copy_bytes >> 20,
            "transfer_mib": self.transfer_bytes >> 20,
        }

    def skip(self, test, reason, **where):
        self.skipped.append({"test": test, **where, "reason": reason})

    def measure(self, gpus, make, per_iteration, iterations=1):
        """Warm each device up, then time its repeats in turn across the
        devices (round-robin, so that a change in the machine's load falls on
        all of them alike). `per_iteration` is the work of one run of the
        operation (flops or bytes); the figure is work per second."""
        works = {gpu: make(gpu) for gpu in gpus}
        self.period = None
        for gpu, work in works.items():
            self.backend.timed(gpu, work, self.warmup)
        samples = {gpu: [] for gpu in gpus}
        order = list(works)
        for repeat in range(self.repeats):
            # Each repeat starts on the next device, so that none always
            # follows another's sleep or warm cache.
            shift = repeat % len(order)
            for gpu in order[shift:] + order[:shift]:
                elapsed = self.planted.stretch(gpu, self.time(gpu, works[gpu], iterations))
                samples[gpu].append(per_iteration * iterations / max(elapsed, 1e-9))
        return samples

    def add(self, test, gpu, values, unit, scale, **extra):
        figures = summary([v / scale for v in values])
        self.results.append({"test": test, "gpu": gpu, **extra, "unit": unit, **{
            k: (round(v, 4) if isinstance(v, float) else v) for k, v in figures.items()}})

    def gemm(self, gpus):
        size = self.gemm_size
        flops = 2.0 * size * size * size
        # A repeat long enough to time well: a few products on a GPU.
        iterations = 1 if self.backend.kind in ("numpy", "cpu") else 5
        supported = {gpu: self.backend.dtypes(gpu) for gpu in gpus}
        for dtype in GPU_DTYPES:
            on = [gpu for gpu in gpus if dtype in supported[gpu]]
            if not on:
                self.skip("gemm", "not supported by this device or framework", dtype=dtype)
            for gpu in gpus:
                if on and gpu not in on:
                    self.skip("gemm", "not supported by this device", gpu=gpu, dtype=dtype)
            ready = []
            for gpu in on:
                try:
                    self.backend.timed(gpu, self.backend.matrices(gpu, dtype, size), 1)
                    ready.append(gpu)
                except Exception as error:
                    self.skip("gemm", describe(error), gpu=gpu, dtype=dtype)
            if not ready:
                continue
            samples = self.measure(ready, lambda g: self.backend.matrices(g, dtype, size), flops, iterations)
            for gpu in ready:
                self.add("gemm", gpu, samples[gpu], "TFLOP/s", 1e12, dtype=dtype, m=size, n=size, k=size)
            self.release()

    def device_copy(self, gpus):
        # Bytes read plus bytes written, as memory bandwidth is quoted.
        moved = 2.0 * self.copy_bytes
        iterations = 1 if self.backend.kind in ("numpy", "cpu") else 10
        try:
            samples = self.measure(gpus, lambda g: self.backend.buffers(g, self.copy_bytes), moved, iterations)
        except Exception as error:
            for gpu in gpus:
                self.skip("device_copy", describe(error), gpu=gpu)
            return
        for gpu in gpus:
            self.add("device_copy", gpu, samples[gpu], "GB/s", 1e9, bytes=self.copy_bytes)
        self.release()

    def host_transfers(self, gpus):
        if self.backend.host_transfers(gpus[0], 4096) is None:
            for test in ("h2d", "d2h"):
                self.skip(test, "the CPU has no separate device memory")
            return
        links = pcie_links()
        for direction, test in ((0, "h2d"), (1, "d2h")):
            try:
                samples = self.measure(
                    gpus,
                    lambda g: self.backend.host_transfers(g, self.transfer_bytes)[direction],
                    float(self.transfer_bytes), 5,
                )
            except Exception as error:
                for gpu in gpus:
                    self.skip(test, describe(error), gpu=gpu)
                continue
            for gpu in gpus:
                extra = {"bytes": self.transfer_bytes, "pinned": True}
                if gpu in links:
                    extra["link"] = links[gpu]
                self.add(test, gpu, samples[gpu], "GB/s", 1e9, **extra)
        self.release()

    def peers(self, gpus):
        if len(gpus) < 2 or self.backend.peer_copy(gpus[0], gpus[1], 4096) is None:
            reason = "one GPU: no peer" if len(gpus) < 2 else "the CPU has no peers"
            self.skip("p2p", reason)
            return
        links = topology()
        for src in gpus:
            for dst in gpus:
                if src == dst:
                    continue
                try:
                    work = self.backend.peer_copy(src, dst, self.transfer_bytes)
                    self.backend.timed_between(src, dst, work, self.warmup)
                    samples = {src: []}
                    for _ in range(self.repeats):
                        elapsed = self.backend.timed_between(src, dst, work, 5)
                        samples[src].append(5.0 * self.transfer_bytes / max(elapsed, 1e-9))
                except Exception as error:
                    self.skip("p2p", describe(error), gpu=src, peer=dst)
                    continue
                extra = {"peer": dst, "bytes": self.transfer_bytes}
                access = self.backend.peer_access(src, dst)
                if access is not None:
                    extra["peer_access"] = access
                if (src, dst) in links:
                    extra["topology"] = links[(src, dst)]
                self.add("p2p", src, samples[src], "GB/s", 1e9, **extra)
            self.release()

    def all_reduce(self, gpus):
        if len(gpus) < 2 or self.backend.kind not in ("cuda", "npu"):
            self.skip("all_reduce", "one GPU: nothing to reduce across" if len(gpus) < 2
                      else "no collective library on the CPU")
            return
        try:
            figures = all_reduce_bus_bandwidth(self.backend.kind, len(gpus), self.transfer_bytes,
                                               self.warmup, self.repeats)
        except Exception as error:
            self.skip("all_reduce", describe(error))
            return
        self.results.append({"test": "all_reduce", "gpus": list(gpus), "unit": "GB/s",
                             "bytes": self.transfer_bytes,
                             "backend": "nccl" if self.backend.kind == "cuda" else "hccl",
                             **{k: (round(v, 4) if isinstance(v, float) else v)
                                for k, v in summary(figures).items()}})

    def release(self):
        if self.backend.kind == "cuda":
            self.backend.torch.cuda.empty_cache()

    def timeline(self, gpus, duration, interval):
        """The matrix product on every GPU for `duration`, timed in a burst
        of about a second every `interval` (power and SM clock read in the
        middle of it) and kept running between bursts, so that the GPUs stay
        under load as a training job keeps them: throughput over time."""
        dtype = "bf16" if all("bf16" in self.backend.dtypes(g) for g in gpus) and \
            self.backend.kind not in ("numpy", "cpu") else "fp32"
        size = self.gemm_size
        flops = 2.0 * size * size * size
        works = {g: self.backend.matrices(g, dtype, size) for g in gpus}
        for g, work in works.items():
            self.backend.timed(g, work, self.warmup)
        self.period = None
        # A burst of about a second, shorter where the interval is short.
        burst_s = min(1.0, interval / (2.0 * len(gpus)))
        one = max(1e-6, self.time(gpus[0], works[gpus[0]], 1))
        iterations = max(1, int(burst_s / one))
        loaded = self.backend.module is not None
        points = []
        started = time.monotonic()
        tick = 0
        while True:
            at = started + tick * interval
            if at - started > duration:
                break
            while time.monotonic() < at:
                if loaded:
                    self.backend.burst(works, iterations, lambda: None)
                else:
                    time.sleep(max(0.0, min(0.05, at - time.monotonic())))
            t = time.monotonic() - started
            self.planted.point_s = t
            stamp = now_text()
            if loaded:
                telemetry = {}
                taken = self.backend.burst(
                    works, iterations, lambda: telemetry.update({g: self.backend.telemetry(g) for g in gpus}))
            else:
                telemetry = {g: {} for g in gpus}
                taken = {g: self.time(g, works[g], iterations) for g in gpus}
            for g in gpus:
                elapsed = self.planted.stretch(g, taken[g])
                point = {"t_s": round(t, 3), "at": stamp, "gpu": g,
                         "tflops": round(flops * iterations / max(elapsed, 1e-9) / 1e12, 4)}
                point.update(telemetry.get(g, {}))
                points.append(point)
            tick += 1
        return {"test": "gemm", "dtype": dtype, "m": size, "n": size, "k": size,
                "interval_s": interval, "duration_s": duration, "iterations": iterations, "points": points}


def all_reduce_bus_bandwidth(kind, world, nbytes, warmup, repeats):
    """torch.distributed's all-reduce across the node's GPUs, one process per
    GPU; bus bandwidth as nccl-tests defines it (algorithm bandwidth times
    2(n-1)/n), GB/s per repeat."""
    import tempfile

    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as scratch:
        results = os.path.join(scratch, "figures.json")
        init = "file://" + os.path.join(scratch, "rendezvous")
        mp.spawn(reduce_worker, args=(kind, world, nbytes, warmup, repeats, init, results), nprocs=world)
        with open(results, encoding="utf-8") as f:
            return json.load(f)


def reduce_worker(rank, kind, world, nbytes, warmup, repeats, init, results):
    import torch
    import torch.distributed as dist

    if kind == "npu":
        import torch_npu  # noqa: F401
    module = torch.cuda if kind == "cuda" else torch.npu
    module.set_device(rank)
    dist.init_process_group("nccl" if kind == "cuda" else "hccl", init_method=init, rank=rank, world_size=world)
    data = torch.ones(nbytes // 4, dtype=torch.float32, device=f"{kind}:{rank}")
    for _ in range(warmup):
        dist.all_reduce(data)
    module.synchronize()
    figures = []
    for _ in range(repeats):
        dist.barrier()
        started = time.perf_counter()
        dist.all_reduce(data)
        module.synchronize()
        elapsed = time.perf_counter() - started
        figures.append(nbytes / elapsed * 2.0 * (world - 1) / world / 1e9)
    if rank == 0:
        with open(results, "w", encoding="utf-8") as f:
            json.dump(figures, f)
    dist.destroy_process_group()


def describe(error):
    return f"{type(error).__name__}: {error}".strip().splitlines()[0][:300]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cuda", "npu", "cpu", "numpy"])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument("--duration", type=float, default=0.0, help="seconds of throughput over time (0: none)")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between timeline points")
    parser.add_argument("--gemm-size", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=0)
    parser.add_argument("--gpus", type=int, default=1, help="CPU devices to measure in turn (tests)")
    parser.add_argument("--plant", action="append", default=[], help="GPU:SHARE[@AFTER_S] (tests)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if args.device in ("numpy", "cpu") and args.gpus > 1:
        # Simulated devices share the CPU: one thread each, timed in turn.
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    if args.duration > 0 and args.interval <= 0:
        sys.exit("perf.py: --interval must be positive")
    planted = Planted(args.plant)
    try:
        backend = open_backend(args.device, max(1, args.gpus))
    except ImportError as error:
        sys.exit(f"perf.py: --device {args.device}: {error} (install PyTorch, or NumPy for the CPU)")
    suite = Suite(backend, args, planted)
    devices = backend.devices()
    gpus = [d["index"] for d in devices]
    if not gpus:
        sys.exit(f"perf.py: {backend.framework} sees no {backend.kind} device")
    for gpu in planted.slow:
        if gpu not in gpus:
            sys.exit(f"perf.py: --plant {gpu}: there is no device {gpu}")
    document = {
        "format": FORMAT,
        "version": VERSION,
        "started_at": now_text(),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "framework": backend.framework,
        "backend": backend.kind,
        "settings": {**suite.settings(), **backend.settings},
        "gpus": devices,
    }
    if planted.slow:
        document["planted"] = planted.record()
    for step in (suite.gemm, suite.device_copy, suite.host_transfers, suite.peers, suite.all_reduce):
        step(gpus)
        print(f"perf.py: {step.__name__} done", file=sys.stderr, flush=True)
    document["results"] = suite.results
    document["skipped"] = suite.skipped
    if args.duration > 0:
        document["timeline"] = suite.timeline(gpus, args.duration, args.interval)
    document["finished_at"] = now_text()
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
    print(f"perf.py: {len(suite.results)} figures on {len(gpus)} {backend.kind} device(s) "
          f"with {backend.framework}; {len(suite.skipped)} skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
