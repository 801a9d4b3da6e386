"""CUDA checks: implementations agree on the GPU, the CLI runs there, out-of-memory becomes a record.

Skipped only when ``torch.cuda.is_available()`` is False.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from selfattn.bench import BenchConfig, run_benchmark
from selfattn.core.torch_attention import build_attention_modules

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)"),
]

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("num_heads", [1, 8])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype, tol", [(torch.float32, 2e-3), (torch.bfloat16, 5e-2), (torch.float16, 1e-2)])
def test_impls_agree_on_cuda(num_heads, causal, dtype, tol):
    # Reference: the same weights in float64 on the CPU; TF32 or bf16 rounding stays within tol.
    reference = build_attention_modules(256, num_heads, dtype=torch.float64, seed=5)
    cuda = build_attention_modules(256, num_heads, dtype=dtype, device="cuda", seed=5)
    x = torch.randn(2, 128, 256, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        want = reference["torch_mha"](x, causal=causal)
        scale = want.abs().max().item()
        for impl, module in cuda.items():
            got = module(x.to("cuda", dtype), causal=causal).double().cpu()
            err = (got - want).abs().max().item() / scale
            assert err <= tol, f"{impl}: relative error {err:.2e}"


def test_bench_cli_on_cuda(tmp_path):
    out = tmp_path / "cuda.json"
    done = subprocess.run(
        [sys.executable, "-m", "selfattn.bench", "--device", "cuda", "--dtype", "bfloat16", "--batch", "2",
         "--seq-len", "128", "256", "--d-model", "256", "--heads", "1", "8", "--warmup", "2",
         "--min-run-time", "0.05", "--quiet", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    records = json.loads(out.read_text())["records"]
    assert len(records) == 12
    for r in records:
        assert r["status"] == "ok" and r["device"] == "cuda"
        assert r["device_name"] == torch.cuda.get_device_name()
        assert r["peak_mem_kind"] == "measured_cuda" and r["peak_mem_bytes"] > 0
        assert r["median_ms"] > 0 and r["gflops"] > 0


def _huge_naive(guard: bool) -> BenchConfig:
    # (B, h, n, n) float32 scores: 1 * 16 * 65536^2 * 4 bytes = 275 GB, more than any single GPU holds,
    # so the allocation fails at once instead of filling memory slowly.
    return BenchConfig(device="cuda", dtype="float32", batch=1, seq_lens=(65536,), d_model=256, heads=(16,),
                       impls=("naive",), warmup=1, min_run_time=0.05, guard=guard)


def test_guard_refuses_what_the_gpu_cannot_hold():
    (record,) = run_benchmark(_huge_naive(guard=True))
    assert record["status"] == "refused" and record["error_code"] == "bench_memory"


def test_out_of_memory_becomes_a_record():
    (record,) = run_benchmark(_huge_naive(guard=False))
    assert record["status"] == "oom" and record["error_code"] == "bench_oom"
    assert "OutOfMemoryError" in record["error"] and record["median_ms"] is None
    torch.cuda.synchronize()
    (after,) = run_benchmark(BenchConfig(device="cuda", seq_lens=(64,), d_model=64, heads=(2,), impls=("fused",),
                                         warmup=1, min_run_time=0.05))
    assert after["status"] == "ok"  # the process and the GPU are still usable
