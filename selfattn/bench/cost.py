"""What a sweep will cost before it runs: seconds on one CPU thread, bytes per run, and the budgets for both."""

from __future__ import annotations

import math

import torch

from selfattn.bench.limits import DTYPES, MiB, BenchConfig, limits_for
from selfattn.bench.machine import available_memory_bytes
from selfattn.bench.results import flop_count
from selfattn.errors import InputError

# One forward call on one CPU thread, by (impl, dtype): (sustained GFLOP/s, ns per element of the
# (B, h, n, n) scores). Fitted to the slowest calls measured on a 2-core AMD EPYC (torch 2.13, one
# thread; float16 has no fast CPU kernels), rounded towards slower; estimate_call_seconds.
CPU_SPEED: dict[tuple[str, str], tuple[float, float]] = {
    ("naive", "float32"): (60, 8.5), ("fused", "float32"): (60, 0.5), ("torch_mha", "float32"): (60, 3.5),
    ("naive", "bfloat16"): (100, 5.0), ("fused", "bfloat16"): (100, 1.0), ("torch_mha", "bfloat16"): (100, 1.5),
    ("naive", "float16"): (4, 21.0), ("fused", "float16"): (16, 0.5), ("torch_mha", "float16"): (8, 17.0),
}
CALL_OVERHEAD_S = 0.0005  # Python and dispatch around one small call
RUN_OVERHEAD_S = 0.04  # per run: the memory profiler, the timer's set-up, the record
MEMORY_HEADROOM = 0.8  # refuse a run whose estimate exceeds this share of free memory
ROUNDS = 5  # timing rounds per configuration, the implementations taking turns in each


def estimate_run_bytes(impl: str, batch: int, seq_len: int, d_model: int, heads: int, dtype: str, device: str) -> int:
    """Analytic upper estimate of the bytes one forward call needs, weights and input included.

    Counts the weights (4 d_model^2 + biases), input, fused q/k/v projection, a possible
    contiguous copy of q/k/v, head merge and output; plus, where the implementation keeps it,
    the (B, h, n, n) score matrix: twice for ``naive`` (scores and softmax), once for
    ``torch_mha``'s CPU fast path (even heads), never for ``fused``.
    """
    size = torch.empty((), dtype=DTYPES[dtype]).element_size()
    bnd = batch * seq_len * d_model
    elements = 4 * d_model * d_model + 4 * d_model + 11 * bnd
    scores = batch * heads * seq_len * seq_len
    if impl == "naive":
        elements += 2 * scores
    elif impl == "torch_mha" and device == "cpu" and heads % 2 == 0:
        elements += scores
    return elements * size + 4 * batch * heads * seq_len  # + float32 log-sum-exp of fused kernels


def estimate_call_seconds(impl: str, batch: int, seq_len: int, d_model: int, heads: int, dtype: str) -> float:
    """Estimated seconds of one forward call on one CPU thread (:data:`CPU_SPEED`; an upper estimate for CUDA)."""
    gflops, ns_per_score = CPU_SPEED[(impl, dtype)]
    scores = batch * heads * seq_len * seq_len
    return flop_count(batch, seq_len, d_model) / (gflops * 1e9) + scores * ns_per_score * 1e-9 + CALL_OVERHEAD_S


def estimate_run_seconds(impl: str, seq_len: int, heads: int, config: BenchConfig) -> float:
    """Estimated seconds of one run of ``config``: warm-up, the measured and the calibrating calls, the rounds.

    Each of the ``ROUNDS`` rounds times a block of at least one call, about ``min_run_time / ROUNDS``
    seconds: in all ``min_run_time``, or ``ROUNDS`` calls where one call takes longer than a round.
    """
    call = estimate_call_seconds(impl, config.batch, seq_len, config.d_model, heads, config.dtype)
    return (config.warmup + 2) * call + max(config.min_run_time, ROUNDS * call) + call + RUN_OVERHEAD_S


def estimate_sweep_seconds(config: BenchConfig) -> float:
    """Estimated seconds of the whole sweep on one CPU thread: every run, and the modules built per head count."""
    build = len(config.heads) * len(config.impls) * 4 * config.d_model ** 2 * 20e-9  # xavier init, ~20 ns a weight
    return build + sum(estimate_run_seconds(impl, n, h, config)
                       for h in config.heads for n in config.seq_lens for impl in config.impls)


def check_cost(config: BenchConfig, hosted: bool | None = None) -> float:
    """The sweep's estimated seconds; InputError ``bench_cost`` (params estimate_s, budget_s) above the budget."""
    estimate, budget = estimate_sweep_seconds(config), limits_for(hosted)["cpu_budget_s"]
    if budget is not None and estimate > budget:
        raise InputError("bench_cost", f"Refused: this sweep would take about {estimate:.0f} s of computing; at "
                         f"most {budget:.0f} s may be used here. Choose fewer or shorter runs, a smaller batch "
                         "or d_model, or float32/bfloat16.", estimate_s=math.ceil(estimate), budget_s=round(budget))
    return estimate


def estimate_memory_bytes(config: BenchConfig) -> int:
    """Largest :func:`estimate_run_bytes` over every run of the config."""
    return max(estimate_run_bytes(impl, config.batch, n, config.d_model, h, config.dtype, config.device)
               for impl in config.impls for h in config.heads for n in config.seq_lens)


def memory_budget_bytes(config: BenchConfig, hosted: bool | None = None) -> int:
    """Bytes a single run may use: MEMORY_HEADROOM of free memory, capped by the config and hosted limits."""
    budget = int(available_memory_bytes(config.device) * MEMORY_HEADROOM)
    for cap in (config.memory_cap_bytes, limits_for(hosted)["memory_cap_bytes"]):
        if cap is not None:
            budget = min(budget, cap)
    return budget


def memory_error(estimate: int, budget: int) -> InputError:
    return InputError("bench_memory",
                      f"Refused: this run needs about {estimate / MiB:.0f} MiB but only {budget / MiB:.0f} MiB "
                      "may be used here; use a shorter sequence, fewer heads or a smaller batch.",
                      estimate_mib=round(estimate / MiB), budget_mib=round(budget / MiB))
