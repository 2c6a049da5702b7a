#!/usr/bin/env python3
"""Breakpoint's reference operator suite: numeric drift and operator coverage.

Runs a fixed set of common operators on seeded inputs, on whatever device is
here (PyTorch on CUDA or an Ascend NPU, else PyTorch or NumPy on the CPU), and
writes every output to one JSON document (format "breakpoint-operators").
`breakpoint accept drift` compares two such documents, operator by operator.

The inputs come from Python's own seeded generator, one stream per operator,
so they are the same bytes on every machine, with or without NumPy, and adding
an operator never changes another's inputs. Each operator runs with the
framework's defaults (TF32 included where the platform enables it): the drift
measured is the drift a user's model would see. An operator that fails is
recorded with its error and counts against coverage.

    python3 operators.py [--device auto|cuda|npu|cpu|numpy] [--seed N] -o out.json
"""

import argparse
import base64
import json
import math
import platform
import random
import socket
import sys
import time
from array import array
from datetime import datetime, timezone

FORMAT = "breakpoint-operators"
VERSION = 1
# Changes whenever an operator, its shapes or its inputs change: outputs of
# different suites are never compared.
SUITE = "ops-1"


def uniform(name, seed, index, shape, low=-1.0, high=1.0):
    """The operator's index-th input: uniform in [low, high), float32."""
    rng = random.Random(f"{SUITE}:{seed}:{name}:{index}")
    count = math.prod(shape)
    span = high - low
    return array("f", (low + span * rng.random() for _ in range(count))), shape


# Each operator: its name, its inputs (shape and range), and the attribute
# that names its implementation on a backend.
OPERATORS = [
    ("matmul", [((128, 96),), ((96, 64),)]),
    ("batched_matmul", [((8, 48, 64),), ((8, 64, 32),)]),
    ("conv2d", [((2, 8, 24, 24),), ((16, 8, 3, 3), -0.3, 0.3), ((16,),)]),
    ("attention", [((2, 4, 48, 32),), ((2, 4, 48, 32),), ((2, 4, 48, 32),)]),
    ("layer_norm", [((64, 128), -3.0, 3.0), ((128,), 0.5, 1.5), ((128,),)]),
    (
        "batch_norm",
        [((8, 16, 10, 10), -2.0, 2.0), ((16,),), ((16,), 0.5, 1.5), ((16,), 0.5, 1.5), ((16,),)],
    ),
    ("softmax", [((32, 100), -8.0, 8.0)]),
    ("gelu", [((4096,), -6.0, 6.0)]),
    ("softplus", [((4096,), -10.0, 10.0)]),
    ("interpolate_bilinear", [((2, 3, 12, 12),)]),
    (
        "gru",
        [((10, 4, 16),), ((72, 16), -0.2, 0.2), ((72, 24), -0.2, 0.2), ((72,), -0.2, 0.2), ((72,), -0.2, 0.2)],
    ),
    ("max_pool2d", [((2, 4, 16, 16),)]),
    ("sum", [((65536,), 0.5, 1.5)]),
    ("cumsum", [((4, 2048), 0.5, 1.5)]),
]

GRU_HIDDEN = 24
INTERPOLATE_TO = (20, 20)
EPS = 1e-5


class NumpyBackend:
    """Plain NumPy on the CPU, float32 throughout."""

    def __init__(self):
        import numpy

        self.np = numpy
        self.framework = f"numpy {numpy.__version__}"
        self.device = f"cpu ({platform.processor() or platform.machine()})"
        self.settings = {}

    def tensor(self, data, shape):
        return self.np.frombuffer(data.tobytes(), dtype=self.np.float32).reshape(shape).copy()

    def output(self, value):
        value = self.np.ascontiguousarray(value, dtype="<f4")
        return list(value.shape), value.tobytes()

    def sync(self):
        pass

    def matmul(self, a, b):
        return a @ b

    def batched_matmul(self, a, b):
        return self.np.matmul(a, b)

    def conv2d(self, x, w, b):
        np = self.np
        n, c, h, width = x.shape
        out_channels, _, kh, kw = w.shape
        padded = np.zeros((n, c, h + 2, width + 2), dtype=np.float32)
        padded[:, :, 1:-1, 1:-1] = x
        out = np.zeros((n, out_channels, h, width), dtype=np.float32)
        for i in range(kh):
            for j in range(kw):
                window = padded[:, :, i : i + h, j : j + width]
                out += np.einsum("nchw,oc->nohw", window, w[:, :, i, j])
        return out + b[None, :, None, None]

    def _softmax(self, x):
        shifted = x - x.max(axis=-1, keepdims=True)
        e = self.np.exp(shifted)
        return e / e.sum(axis=-1, keepdims=True)

    def attention(self, q, k, v):
        scores = self.np.matmul(q, self.np.swapaxes(k, -1, -2)) / self.np.float32(math.sqrt(q.shape[-1]))
        return self.np.matmul(self._softmax(scores), v)

    def layer_norm(self, x, gamma, beta):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / self.np.sqrt(var + self.np.float32(EPS)) * gamma + beta

    def batch_norm(self, x, mean, var, weight, bias):
        shape = (1, -1, 1, 1)
        scale = weight.reshape(shape) / self.np.sqrt(var.reshape(shape) + self.np.float32(EPS))
        return (x - mean.reshape(shape)) * scale + bias.reshape(shape)

    def softmax(self, x):
        return self._softmax(x)

    def gelu(self, x):
        np = self.np
        inner = np.float32(math.sqrt(2.0 / math.pi)) * (x + np.float32(0.044715) * x**3)
        return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(inner))

    def softplus(self, x):
        return self.np.log1p(self.np.exp(x))

    def interpolate_bilinear(self, x):
        np = self.np

        # align_corners=False: a pixel's centre maps to the source's centre.
        def axis(size_in, size_out):
            src = (np.arange(size_out, dtype=np.float64) + 0.5) * (size_in / size_out) - 0.5
            src = np.maximum(src, 0.0)
            low = np.floor(src).astype(np.int64)
            high = np.minimum(low + 1, size_in - 1)
            return low, high, (src - low).astype(np.float32)

        y0, y1, ly = axis(x.shape[2], INTERPOLATE_TO[0])
        x0, x1, lx = axis(x.shape[3], INTERPOLATE_TO[1])
        top = x[:, :, y0, :]
        bottom = x[:, :, y1, :]
        ly = ly[None, None, :, None]
        lx = lx[None, None, None, :]
        row_top = top[:, :, :, x0] * (1 - lx) + top[:, :, :, x1] * lx
        row_bottom = bottom[:, :, :, x0] * (1 - lx) + bottom[:, :, :, x1] * lx
        return row_top * (1 - ly) + row_bottom * ly

    def gru(self, x, w_ih, w_hh, b_ih, b_hh):
        np = self.np
        hidden = GRU_HIDDEN
        h = np.zeros((x.shape[1], hidden), dtype=np.float32)

        def sigmoid(v):
            return np.float32(1.0) / (np.float32(1.0) + np.exp(-v))

        outputs = []
        for t in range(x.shape[0]):
            gi = x[t] @ w_ih.T + b_ih
            gh = h @ w_hh.T + b_hh
            r = sigmoid(gi[:, :hidden] + gh[:, :hidden])
            z = sigmoid(gi[:, hidden : 2 * hidden] + gh[:, hidden : 2 * hidden])
            n = np.tanh(gi[:, 2 * hidden :] + r * gh[:, 2 * hidden :])
            h = (1 - z) * n + z * h
            outputs.append(h)
        return np.stack(outputs)

    def max_pool2d(self, x):
        n, c, h, w = x.shape
        return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

    def sum(self, x):
        return x.sum(dtype=self.np.float32).reshape(1)

    def cumsum(self, x):
        return self.np.cumsum(x, axis=-1, dtype=self.np.float32)


class TorchBackend:
    """PyTorch on the device asked for: the platform's own kernels."""

    def __init__(self, device):
        import torch

        self.torch = torch
        self.f = torch.nn.functional
        self.dev = torch.device(device)
        self.framework = f"torch {torch.__version__}"
        self.settings = {}
        if self.dev.type == "cuda":
            self.device = f"{device} ({torch.cuda.get_device_name(self.dev)})"
            self.settings = {
                "cuda": torch.version.cuda,
                "matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
                "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
                "float32_matmul_precision": torch.get_float32_matmul_precision(),
            }
        elif self.dev.type == "npu":
            self.device = f"{device} ({torch.npu.get_device_name(self.dev)})"
            self.settings = {"torch_npu": getattr(sys.modules.get("torch_npu"), "__version__", "?")}
        else:
            self.device = f"cpu ({platform.processor() or platform.machine()})"

    def tensor(self, data, shape):
        t = self.torch.frombuffer(bytearray(data.tobytes()), dtype=self.torch.float32)
        return t.reshape(shape).to(self.dev)

    def output(self, value):
        value = value.detach().to("cpu", self.torch.float32).contiguous()
        data = array("f", value.reshape(-1).tolist())
        if sys.byteorder == "big":
            data.byteswap()
        return list(value.shape), data.tobytes()

    def sync(self):
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize(self.dev)
        elif self.dev.type == "npu":
            self.torch.npu.synchronize(self.dev)

    def matmul(self, a, b):
        return a @ b

    def batched_matmul(self, a, b):
        return self.torch.bmm(a, b)

    def conv2d(self, x, w, b):
        return self.f.conv2d(x, w, b, padding=1)

    def attention(self, q, k, v):
        if hasattr(self.f, "scaled_dot_product_attention"):
            return self.f.scaled_dot_product_attention(q, k, v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        return self.torch.softmax(scores, dim=-1) @ v

    def layer_norm(self, x, gamma, beta):
        return self.f.layer_norm(x, (x.shape[-1],), gamma, beta, EPS)

    def batch_norm(self, x, mean, var, weight, bias):
        return self.f.batch_norm(x, mean, var, weight, bias, training=False, eps=EPS)

    def softmax(self, x):
        return self.torch.softmax(x, dim=-1)

    def gelu(self, x):
        return self.f.gelu(x, approximate="tanh")

    def softplus(self, x):
        return self.f.softplus(x)

    def interpolate_bilinear(self, x):
        return self.f.interpolate(x, size=INTERPOLATE_TO, mode="bilinear", align_corners=False)

    def gru(self, x, w_ih, w_hh, b_ih, b_hh):
        torch = self.torch
        layer = torch.nn.GRU(x.shape[-1], GRU_HIDDEN).to(self.dev)
        with torch.no_grad():
            layer.weight_ih_l0.copy_(w_ih)
            layer.weight_hh_l0.copy_(w_hh)
            layer.bias_ih_l0.copy_(b_ih)
            layer.bias_hh_l0.copy_(b_hh)
            out, _ = layer(x)
        return out

    def max_pool2d(self, x):
        return self.f.max_pool2d(x, 2)

    def sum(self, x):
        return x.sum().reshape(1)

    def cumsum(self, x):
        return self.torch.cumsum(x, dim=-1)


def open_backend(wanted):
    """The backend asked for, or with `auto` the best one here."""
    if wanted == "numpy":
        return NumpyBackend()
    if wanted in ("cuda", "npu", "cpu"):
        import torch

        if wanted == "npu":
            import torch_npu  # noqa: F401  (registers the npu device)
        return TorchBackend(f"{wanted}:0" if wanted != "cpu" else "cpu")
    try:
        import torch
    except ImportError:
        return NumpyBackend()
    if torch.cuda.is_available():
        return TorchBackend("cuda:0")
    try:
        import torch_npu  # noqa: F401

        if torch.npu.is_available():
            return TorchBackend("npu:0")
    except ImportError:
        pass
    return TorchBackend("cpu")


def run(backend, seed):
    results = []
    for name, specs in OPERATORS:
        entry = {"name": name}
        try:
            inputs = []
            for index, spec in enumerate(specs):
                shape, *bounds = spec
                data, shape = uniform(name, seed, index, shape, *bounds)
                inputs.append(backend.tensor(data, shape))
            started = time.perf_counter()
            value = getattr(backend, name)(*inputs)
            backend.sync()
            entry["ms"] = round((time.perf_counter() - started) * 1000.0, 3)
            shape, data = backend.output(value)
            entry["shape"] = shape
            entry["dtype"] = "float32"
            entry["data"] = base64.b64encode(data).decode("ascii")
        except Exception as error:  # an operator the platform cannot run
            entry["error"] = f"{type(error).__name__}: {error}".strip()[:500]
        results.append(entry)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cuda", "npu", "cpu", "numpy"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    try:
        backend = open_backend(args.device)
    except ImportError as error:
        sys.exit(f"operators.py: --device {args.device}: {error} (install PyTorch, or NumPy for the CPU)")
    document = {
        "format": FORMAT,
        "version": VERSION,
        "suite": SUITE,
        "seed": args.seed,
        "host": socket.gethostname(),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "python": platform.python_version(),
        "framework": backend.framework,
        "device": backend.device,
        "settings": backend.settings,
        "operators": run(backend, args.seed),
    }
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(document, out)
        out.write("\n")
    failed = [o["name"] for o in document["operators"] if "error" in o]
    print(
        f"{len(document['operators']) - len(failed)} of {len(document['operators'])} operators ran "
        f"on {backend.device} with {backend.framework}"
        + (f"; failed: {', '.join(failed)}" if failed else ""),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
