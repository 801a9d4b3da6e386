"""GPU only: the ceilings of this card, and which SDPA kernel the `fused` figure comes from.

Prints, on the CUDA device PyTorch sees:
1. measured ceilings: a bf16 matrix product (8192^3, random data) in TFLOP/s and a device-to-device
   copy in TB/s (bytes read + written), each the median of CUDA-event-timed repeats;
2. ``scaled_dot_product_attention`` alone at the issue's shape (bf16, B=4, h=16, head_dim=128,
   no mask) under each backend PyTorch offers, in TFLOP/s counting 4*B*h*n^2*head_dim;
3. the whole ``fused`` module (projections included, as the CLI counts it) under each backend.

    python benchmarks/bench_sdpa_backends.py --seq-len 1024 4096 8192 --out results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from selfattn.bench import flop_count  # noqa: E402
from selfattn.core.torch_attention import build_attention_modules  # noqa: E402

BACKENDS = {"default": None, "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def median_ms(fn, repeats: int = 30, warmup: int = 5) -> float:
    """Median of CUDA-event timings of ``fn()``, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def ceilings() -> dict[str, float]:
    """Measured bf16 matmul rate and copy bandwidth of this card."""
    a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    ms = median_ms(lambda: a @ b)
    src = torch.randn(2**30 // 2, device="cuda", dtype=torch.bfloat16)  # 1 GiB
    dst = torch.empty_like(src)
    copy_ms = median_ms(lambda: dst.copy_(src))
    return {"matmul_bf16_tflops": 2 * 8192**3 / ms / 1e9, "copy_tb_per_s": 2 * src.nbytes / copy_ms / 1e9}


def run_backend(name: str, fn):
    backend = BACKENDS[name]
    try:
        if backend is None:
            return median_ms(fn)
        with sdpa_kernel([backend]):
            return median_ms(fn)
    except RuntimeError as exc:  # the backend does not support this shape, dtype or card
        return f"unavailable: {str(exc).splitlines()[0][:120]}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seq-len", type=int, nargs="+", default=[1024, 4096, 8192])
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--d-model", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU: torch.cuda.is_available() is False")
    torch.manual_seed(0)
    b, h, d = args.batch, args.heads, args.d_model
    hd = d // h
    report = {"device_name": torch.cuda.get_device_name(), "torch": torch.__version__,
              "cudnn": torch.backends.cudnn.version(), **ceilings(), "rows": []}
    print(f"{report['device_name']}  torch {report['torch']}  cuDNN {report['cudnn']}")
    print(f"measured ceilings: bf16 matmul {report['matmul_bf16_tflops']:.0f} TFLOP/s, "
          f"copy {report['copy_tb_per_s']:.2f} TB/s")
    print(f"shape: batch {b}, heads {h}, head_dim {hd}, bfloat16, no mask")  # read by selfattn.bench.summary
    module = build_attention_modules(d, h, dtype=torch.bfloat16, device="cuda", seed=0)["fused"]
    print(f"{'n':>6} {'backend':>10} {'sdpa ms':>9} {'sdpa TF/s':>10} {'module ms':>10} {'module TF/s':>12}")
    for n in args.seq_len:
        q, k, v = (torch.randn(b, h, n, hd, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        x = torch.randn(b, n, d, device="cuda", dtype=torch.bfloat16)
        sdpa_flop = 4 * b * h * n * n * hd
        module_flop = flop_count(b, n, d)
        for name in BACKENDS:
            with torch.inference_mode():
                sdpa = run_backend(name, lambda: F.scaled_dot_product_attention(q, k, v))
                whole = run_backend(name, lambda: module(x))
            row = {"seq_len": n, "backend": name, "sdpa_ms": sdpa, "module_ms": whole}
            if isinstance(sdpa, float):
                row["sdpa_tflops"] = sdpa_flop / sdpa / 1e9
            if isinstance(whole, float):
                row["module_tflops"] = module_flop / whole / 1e9
            report["rows"].append(row)
            if isinstance(sdpa, float) and isinstance(whole, float):
                print(f"{n:>6} {name:>10} {sdpa:>9.3f} {row['sdpa_tflops']:>10.0f} {whole:>10.3f} "
                      f"{row['module_tflops']:>12.0f}")
            else:
                print(f"{n:>6} {name:>10} {sdpa if isinstance(sdpa, str) else whole}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
