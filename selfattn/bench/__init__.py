"""Time naive, fused and reference multi-head attention on CPU or CUDA; save, load and check results.

Command line (``python -m selfattn.bench --help``)::

    python -m selfattn.bench --device cpu --dtype float32 --batch 1 --d-model 512 \\
        --heads 1 8 --seq-len 256 1024 2048 --impl naive fused torch_mha --out results.json

writes one record per (heads, seq_len, impl) to each ``--out`` file: CSV when the name ends in
``.csv``, JSON otherwise (``--out r.json r.csv`` saves the same run both ways).
Exit status: 0 when every run finished, 2 when the configuration is invalid (nothing runs) or
the memory guard refused a run, 3 when a run hit out-of-memory or another kernel error (the
file is still written). Everything else here is a plain function the page calls directly.

What a record's numbers mean:

* ``median_ms`` / ``iqr_ms``: one forward call (projections included) under
  ``torch.inference_mode``. For each (heads, seq_len) the implementations are warmed up
  (``warmup`` calls), then timed in ``ROUNDS`` rounds in which they take turns (the order
  rotates each round), so a busy moment of the machine hits every implementation alike and
  their ratio stays honest; each round times a block of calls (about ``min_run_time / ROUNDS``
  seconds, CUDA synchronised). The record holds the median and inter-quartile range of the
  rounds' per-call times. A timing whose IQR exceeds ``NOISY_IQR_SHARE`` (25 %) of its median
  is *noisy* (:func:`is_noisy`): something else was using the machine, so time it again
  before comparing.
* ``flops``: 4*B*h*n^2*head_dim for attention (q @ k.T and weights @ v) plus
  4 projections x 2*B*n*d_model^2; ``gflops`` is the achieved rate, ``flops / median``, in
  GFLOP/s (divide by 1000 for TFLOP/s). Softmax and biases are not counted.
* ``peak_mem_bytes``: peak bytes allocated during one forward call above what was allocated
  before it (weights and input excluded, output included). ``peak_mem_kind`` says how:
  ``measured_cuda`` (``torch.cuda.max_memory_allocated`` after ``reset_peak_memory_stats``),
  ``measured_cpu_profiler`` (the CPU allocator's alloc/free events from ``torch.profiler``
  with ``profile_memory=True``, replayed in order), or ``estimate`` when measuring failed.
* ``est_mem_bytes``: the analytic estimate the memory guard compared with free memory,
  including weights and input.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from selfattn.bench.results import (DEVICES, DTYPE_NAMES, RECORD_FIELDS, REQUIRED_FIELDS,  # noqa: F401 (re-exported)
                                    RESULTS_MAX_BYTES, RESULTS_MAX_ROWS, SCHEMA, STATUSES, flop_count, load_results,
                                    read_about, records_to_csv, records_to_json, write_results)
from selfattn.bench.guard import MemoryWatch
from selfattn.core.checks import check_heads
from selfattn.core.torch_attention import IMPLS, build_attention_modules
from selfattn.errors import InputError
from selfattn.hosting import is_hosted

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
assert tuple(DTYPES) == DTYPE_NAMES
_MiB = 1024 * 1024
LIMITS: dict[str, dict[str, Any]] = {
    # Sanity bounds for a local run; the memory guard does the real work.
    "local": {"max_batch": 1024, "max_seq_len": 131072, "max_d_model": 16384, "max_heads": 256,
              "max_attention_elements": 2**40, "max_runs": 500, "max_min_run_time": 60.0, "max_warmup": 100,
              "memory_cap_bytes": None, "rss_cap_bytes": None, "cpu_budget_s": None, "threads": None,
              "cooldown_s": 0},
    # A shared public server (SELFATTN_HOSTED=1): any sweep allowed costs at most ~10 s of CPU on one core
    # (docs/reliability.md). cpu_budget_s: the estimate (estimate_sweep_seconds) a sweep may have;
    # cpu_stop_s: the thread CPU time after which the runs left are skipped; memory_cap_bytes: the
    # estimate one run may have; rss_cap_bytes: how far the process's resident memory may rise in a
    # sweep (the runs left are skipped beyond it); threads: torch's threads, for every computation of
    # the process; cooldown_s: between two sweeps of one visitor.
    "hosted": {"max_batch": 4, "max_seq_len": 1024, "max_d_model": 512, "max_heads": 16,
               "max_attention_elements": 2**24, "max_runs": 24, "max_min_run_time": 0.1, "max_warmup": 1,
               "memory_cap_bytes": 160 * _MiB, "rss_cap_bytes": 400 * _MiB, "cpu_budget_s": 6.0, "cpu_stop_s": 8.0,
               "threads": 1, "cooldown_s": 30},
}
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
MAX_BLOCK_CALLS = 100_000  # calls in one round's block, at most
NOISY_IQR_SHARE = 0.25  # IQR above this share of the median: the timing is noisy (quiet runs stay under 10 %)


@dataclass(frozen=True)
class BenchConfig:
    """One benchmark sweep: every impl x heads x seq_len combination is timed."""

    device: str = "cpu"  # "cpu" or "cuda"
    dtype: str = "float32"  # a key of DTYPES
    batch: int = 1  # B
    seq_lens: tuple[int, ...] = (256,)  # n values to sweep
    d_model: int = 512  # model width; every head count must divide it
    heads: tuple[int, ...] = (1, 8)  # h values to sweep
    impls: tuple[str, ...] = IMPLS  # which implementations to time
    warmup: int = 3  # untimed calls before timing
    min_run_time: float = 1.0  # seconds blocked_autorange spends per run
    memory_cap_bytes: int | None = None  # refuse runs estimated above this (None: free memory only)
    guard: bool = True  # refuse runs that would not fit; only CUDA may switch it off (OOM is then caught)
    seed: int = 0  # weights and inputs
    threads: int | None = None  # CPU threads for the sweep (None: torch's own); one is steadiest on a busy machine


def limits_for(hosted: bool | None = None) -> dict[str, Any]:
    """The LIMITS entry that applies (hosted when ``hosted`` is None and SELFATTN_HOSTED=1)."""
    return LIMITS["hosted" if (is_hosted() if hosted is None else hosted) else "local"]


def validate_config(config: BenchConfig, hosted: bool | None = None) -> None:
    """Check a config against the implementations, the machine and the (hosted) limits.

    Raises:
        InputError: codes bench_device, bench_cuda_unavailable, bench_dtype, bench_impl,
            bench_empty, bench_positive, bench_limit, heads_not_divisible, bench_guard_required.
    """
    lim = limits_for(hosted)
    if config.device not in DEVICES:
        raise InputError("bench_device", f"device must be cpu or cuda, got {config.device!r}.",
                         device=str(config.device))
    if config.device == "cuda" and not torch.cuda.is_available():
        raise InputError("bench_cuda_unavailable", "device cuda was asked for, but PyTorch sees no CUDA GPU here.")
    if config.dtype not in DTYPES:
        raise InputError("bench_dtype", f"dtype must be one of {', '.join(DTYPES)}, got {config.dtype!r}.",
                         dtype=str(config.dtype), allowed=", ".join(DTYPES))
    for name in ("seq_lens", "heads", "impls"):
        if not getattr(config, name):
            raise InputError("bench_empty", f"{name} needs at least one value.", name=name)
    for impl in config.impls:
        if impl not in IMPLS:
            raise InputError("bench_impl", f"impl must be one of {', '.join(IMPLS)}, got {impl!r}.",
                             impl=str(impl), allowed=", ".join(IMPLS))
    sized = [("batch", config.batch), ("d_model", config.d_model)]
    sized += [("seq_len", n) for n in config.seq_lens] + [("heads", h) for h in config.heads]
    for name, value in sized:
        if not _is_int(value) or value < 1:
            raise _not_positive(name, value, "a whole number of at least 1")
        if value > lim[f"max_{name}"]:
            raise _limit(name, value, lim[f"max_{name}"])
    if not _is_int(config.warmup) or config.warmup < 0:
        raise _not_positive("warmup", config.warmup, "a whole number of at least 0")
    if config.warmup > lim["max_warmup"]:
        raise _limit("warmup", config.warmup, lim["max_warmup"])
    run_time = config.min_run_time
    if not (_is_int(run_time) or isinstance(run_time, float)) or not math.isfinite(run_time) or run_time <= 0:
        raise _not_positive("min_run_time", run_time, "a positive number of seconds")
    if run_time > lim["max_min_run_time"]:
        raise _limit("min_run_time", run_time, lim["max_min_run_time"])
    if config.threads is not None and (not _is_int(config.threads) or config.threads < 1):
        raise _not_positive("threads", config.threads, "a whole number of at least 1")
    if config.memory_cap_bytes is not None and not (_is_int(config.memory_cap_bytes) and config.memory_cap_bytes > 0):
        raise _not_positive("memory_cap_bytes", config.memory_cap_bytes, "a positive whole number")
    for h in config.heads:
        check_heads(config.d_model, h)
    elements = config.batch * max(config.heads) * max(config.seq_lens) ** 2
    if elements > lim["max_attention_elements"]:
        raise _limit("attention_elements", elements, lim["max_attention_elements"])
    runs = len(config.impls) * len(config.heads) * len(config.seq_lens)
    if runs > lim["max_runs"]:
        raise _limit("runs", runs, lim["max_runs"])
    if not config.guard and (config.device == "cpu" or lim is LIMITS["hosted"]):
        raise InputError("bench_guard_required", "The memory guard can only be switched off for CUDA on a local "
                         "machine; on CPU running out of memory kills the process.", device=config.device)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _not_positive(name: str, value: Any, what: str) -> InputError:
    return InputError("bench_positive", f"{name} must be {what}, got {value!r}.", name=name, value=str(value))


def _limit(name: str, value: Any, limit: Any) -> InputError:
    return InputError("bench_limit", f"{name} = {value} is above the limit of {limit} here.",
                      name=name, value=str(value), limit=str(limit))


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


def limit_threads(hosted: bool | None = None) -> None:
    """Hosted: torch computes on one thread from now on, in every thread of the process that starts later.

    ``torch.set_num_threads`` is process-wide and read by each thread when it first computes, so
    it is set once and left: restoring it after a sweep would race with other visitors' pages
    (the PyTorch check here, the embeddings page's model), which also share the machine.
    """
    threads = limits_for(hosted)["threads"]
    if threads is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def estimate_memory_bytes(config: BenchConfig) -> int:
    """Largest :func:`estimate_run_bytes` over every run of the config."""
    return max(estimate_run_bytes(impl, config.batch, n, config.d_model, h, config.dtype, config.device)
               for impl in config.impls for h in config.heads for n in config.seq_lens)


def available_memory_bytes(device: str) -> int:
    """Free memory: ``torch.cuda.mem_get_info`` on CUDA; MemAvailable (and the cgroup limit) on CPU."""
    if device == "cuda":
        return int(torch.cuda.mem_get_info()[0])
    free = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                free.append(int(line.split()[1]) * 1024)
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            free.append(int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        pass
    if not free:  # not Linux: total physical memory is the best cheap answer
        free.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    return min(free)


def memory_budget_bytes(config: BenchConfig, hosted: bool | None = None) -> int:
    """Bytes a single run may use: MEMORY_HEADROOM of free memory, capped by the config and hosted limits."""
    budget = int(available_memory_bytes(config.device) * MEMORY_HEADROOM)
    for cap in (config.memory_cap_bytes, limits_for(hosted)["memory_cap_bytes"]):
        if cap is not None:
            budget = min(budget, cap)
    return budget


def check_memory(config: BenchConfig, hosted: bool | None = None) -> None:
    """Raise InputError ``bench_memory`` (params estimate_mib, budget_mib) if the largest run would not fit."""
    estimate, budget = estimate_memory_bytes(config), memory_budget_bytes(config, hosted)
    if estimate > budget:
        raise _memory_error(estimate, budget)


def _memory_error(estimate: int, budget: int) -> InputError:
    return InputError("bench_memory",
                      f"Refused: this run needs about {estimate / _MiB:.0f} MiB but only {budget / _MiB:.0f} MiB "
                      "may be used here; use a shorter sequence, fewer heads or a smaller batch.",
                      estimate_mib=round(estimate / _MiB), budget_mib=round(budget / _MiB))


def device_name(device: str) -> str:
    """GPU model for CUDA; CPU model from /proc/cpuinfo (or the platform module) for CPU."""
    if device == "cuda":
        return torch.cuda.get_device_name()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _cpu_peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak of the running sum of CPU allocator alloc/free events recorded during ``fn()``."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # keep the profiler's start/stop lines off stderr
    # Run first in a thread other than the one that imported torch (Streamlit runs each script run
    # in a new thread), the profiler prints "ERROR: External init callback must run in same thread
    # as registerClient" once per process. libkineto writes it straight to stderr whatever the log
    # level, and it only says that PyTorch's client init callback, an empty function, was skipped:
    # the measurement is unaffected.
    from torch.profiler import ProfilerActivity, profile

    # acc_events: one cycle only; it stops torch 2.11 warning that events are cleared between cycles.
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True) as prof:
        fn()
    # kineto_results is not documented API, but it is what the profiler's own memory timeline reads.
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]" and str(e.device_type()).endswith("CPU")]
    running = peak = 0
    for e in sorted(events, key=lambda e: e.start_ns()):
        running += e.nbytes()
        peak = max(peak, running)
    return peak


def _peak_bytes(fn: Callable[[], Any], device: str) -> tuple[int | None, str]:
    if device == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        fn()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base, "measured_cuda"
    try:
        return _cpu_peak_bytes(fn), "measured_cpu_profiler"
    except Exception:  # noqa: BLE001 - the profiler's internals moved; fall back to the estimate
        return None, "estimate"


def _is_oom(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, torch.OutOfMemoryError) or "out of memory" in text or "can't allocate memory" in text


def _seconds_per_call(fn: Callable[[], Any], number: int, device: str) -> float:
    """Wall seconds per call of ``number`` calls of ``fn`` (CUDA synchronised before and after)."""
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / number


def _prepare(module: torch.nn.Module, x: torch.Tensor, config: BenchConfig) -> tuple[Callable[[], Any], int, dict]:
    """Warm up, measure peak memory in one call, time one call to size the rounds' blocks.

    Returns:
        (fn, number, fields): the call, how many calls a round's block makes, the memory fields.
    """
    fn = lambda: module(x)  # noqa: E731
    for _ in range(config.warmup):
        fn()
    peak, kind = _peak_bytes(fn, config.device)
    once = _seconds_per_call(fn, 1, config.device)
    number = int(min(MAX_BLOCK_CALLS, max(1, config.min_run_time / ROUNDS / max(once, 1e-9))))
    return fn, number, {"peak_mem_bytes": peak, "peak_mem_kind": kind}


def _summary(per_call: list[float], flops: int) -> dict:
    """A record's timing fields from the rounds' seconds per call: median, IQR (ms), rounds, GFLOP/s."""
    q1, median, q3 = (float(v) for v in np.percentile(per_call, [25, 50, 75]))
    return {"median_ms": median * 1e3, "iqr_ms": (q3 - q1) * 1e3, "min_ms": min(per_call) * 1e3,
            "runs": len(per_call),
            "gflops": flops / median / 1e9}


def _failure(exc: BaseException) -> dict:
    """The record fields of a run that raised: out of memory, or another kernel error."""
    oom = _is_oom(exc)
    first_line = str(exc).splitlines()[0] if str(exc) else ""
    return {"status": "oom" if oom else "error", "error_code": "bench_oom" if oom else "bench_kernel_error",
            "error": f"{type(exc).__name__}: {first_line}"[:300]}


def run_benchmark(config: BenchConfig, progress: Callable[[int, int, str], None] | None = None,
                  hosted: bool | None = None, memory: MemoryWatch | None = None) -> list[dict]:
    """Time every impl x heads x seq_len run of ``config``.

    Args:
        config: what to run; validated first, and its estimated cost checked (:func:`check_cost`).
        progress: optional callback(done, total, label): before each run with the number of runs
            finished so far and the run about to start (``"naive h=1 n=256"``), and once at the
            end with ``(total, total, "")``.
        hosted: apply the hosted limits (None: follow SELFATTN_HOSTED).
        memory: a running :class:`selfattn.bench.guard.MemoryWatch`; with the limits' rss_cap_bytes,
            the runs left are skipped once resident memory rose more than that.

    Returns:
        One dict per run with the keys of RECORD_FIELDS. A run the memory guard refuses gets
        status "refused", one that runs out of memory "oom", another kernel failure "error";
        the sweep goes on after each. Where the limits set ``cpu_stop_s`` or ``rss_cap_bytes``,
        the runs left once either is reached are "refused" too (``bench_time``, ``bench_rss``).

    Raises:
        InputError: from :func:`validate_config` and :func:`check_cost`.
    """
    validate_config(config, hosted)
    check_cost(config, hosted)
    limit_threads(hosted)
    threads = torch.get_num_threads()
    if config.threads is None or config.device != "cpu" or limits_for(hosted)["threads"] is not None:
        return _sweep(config, progress, hosted, memory)
    torch.set_num_threads(min(config.threads, os.cpu_count() or 1))  # process-wide: set back when the sweep ends
    try:
        return _sweep(config, progress, hosted, memory)
    finally:
        torch.set_num_threads(threads)


def _sweep(config: BenchConfig, progress: Callable[[int, int, str], None] | None, hosted: bool | None,
           memory: MemoryWatch | None) -> list[dict]:
    """The runs of :func:`run_benchmark`, on the threads already set."""
    lim = limits_for(hosted)
    runs = [(h, n, impl) for h in config.heads for n in config.seq_lens for impl in config.impls]
    budget = memory_budget_bytes(config, hosted) if config.guard else None
    common = {"device": config.device, "device_name": device_name(config.device), "dtype": config.dtype,
              "batch": config.batch, "d_model": config.d_model, "torch_version": torch.__version__,
              "num_threads": torch.get_num_threads()}
    dtype, records, modules = DTYPES[config.dtype], [], {}
    started, done = time.thread_time(), 0  # torch on one thread computes in this one
    for h in config.heads:
        for n in config.seq_lens:
            ready: dict[str, tuple[dict, Callable[[], Any], int]] = {}  # impl -> (record, call, block size)
            planned = 0.0  # estimated seconds of the runs of this (h, n) accepted so far
            gen = torch.Generator(device=config.device).manual_seed(config.seed + n)
            x = None  # (B, n, d_model), one input for every implementation, made once a run may start
            with torch.inference_mode():
                for impl in config.impls:
                    if progress:
                        progress(done, len(runs), f"{impl} h={h} n={n}")
                    done += 1
                    record = _new_record(common, impl, h, n, config)
                    records.append(record)
                    seconds = estimate_run_seconds(impl, n, h, config)
                    refusal = _refusal(record, lim, started, planned + seconds, memory, budget)
                    if refusal:
                        record.update(status="refused", **refusal)
                        continue
                    planned += seconds
                    try:
                        if x is None:
                            x = torch.randn(config.batch, n, config.d_model, generator=gen, device=config.device,
                                            dtype=dtype)
                        if h not in modules:
                            modules.clear()  # one head count's weights in memory at a time
                            modules[h] = build_attention_modules(config.d_model, h, impls=config.impls,
                                                                 device=config.device, dtype=dtype, seed=config.seed)
                        fn, number, fields = _prepare(modules[h][impl], x, config)
                        record.update(fields)
                        ready[impl] = (record, fn, number)
                    except Exception as exc:  # noqa: BLE001 - every failure becomes a record, the sweep goes on
                        record.update(_failure(exc))
                per_call: dict[str, list[float]] = {impl: [] for impl in ready}
                for turn in range(ROUNDS):  # the implementations take turns; the order rotates each round
                    order = list(ready)[turn % max(len(ready), 1):] + list(ready)[:turn % max(len(ready), 1)]
                    for impl in order:
                        record, fn, number = ready[impl]
                        if record["status"] != "ok":
                            continue
                        try:
                            per_call[impl].append(_seconds_per_call(fn, number, config.device))
                        except Exception as exc:  # noqa: BLE001
                            record.update(_failure(exc))
                for impl, (record, _, _) in ready.items():
                    if record["status"] == "ok":
                        record.update(_summary(per_call[impl], record["flops"]))
                        if record["peak_mem_kind"] == "estimate":
                            record["peak_mem_bytes"] = record["est_mem_bytes"]
            del x, ready
            if config.device == "cuda":
                torch.cuda.empty_cache()
    if progress:
        progress(len(runs), len(runs), "")
    return records


def _new_record(common: dict, impl: str, h: int, n: int, config: BenchConfig) -> dict:
    est = estimate_run_bytes(impl, config.batch, n, config.d_model, h, config.dtype, config.device)
    fields = {**common, "impl": impl, "heads": h, "head_dim": config.d_model // h, "seq_len": n,
              "median_ms": None, "iqr_ms": None, "min_ms": None, "runs": 0,
              "flops": flop_count(config.batch, n, config.d_model),
              "gflops": None, "peak_mem_bytes": None, "peak_mem_kind": "", "est_mem_bytes": est,
              "status": "ok", "error_code": "", "error": ""}
    return {k: fields[k] for k in RECORD_FIELDS}


def _refusal(record: dict, lim: dict, started: float, seconds: float, memory: MemoryWatch | None,
             budget: int | None) -> dict:
    """Why a run may not start ({} when it may): the hosted CPU time or memory used up, or the memory guard."""
    stop = lim.get("cpu_stop_s")
    if stop is not None and time.thread_time() - started + seconds > stop:
        return {"error_code": "bench_time", "error": f"Skipped: the sweep had used its {stop:g} s of computing on "
                                                      "this server."}
    if memory is not None and memory.over(lim["rss_cap_bytes"]):
        return {"error_code": "bench_rss", "error": f"Skipped: the sweep had used its "
                                                    f"{lim['rss_cap_bytes'] // _MiB} MiB of memory on this server."}
    if budget is not None and record["est_mem_bytes"] > budget:
        err = _memory_error(record["est_mem_bytes"], budget)
        return {"error_code": err.code, "error": str(err)}
    return {}


def is_noisy(record: dict) -> bool:
    """True for a finished run whose IQR is more than NOISY_IQR_SHARE of its median time."""
    median, iqr = record.get("median_ms"), record.get("iqr_ms")
    if record.get("status") != "ok" or median is None or iqr is None or median <= 0:
        return False
    return iqr > NOISY_IQR_SHARE * median


def speed_ratios(records: list[dict], slower: str = "naive", faster: str = "fused",
                 field: str = "median_ms") -> list[dict]:
    """Time ratio ``slower / faster`` for each (device, dtype, batch, d_model, heads, seq_len) where both ran ok.

    Args:
        field: the time compared, ``median_ms`` or ``min_ms`` (the best round, steadier on a busy machine;
            records written before it have none).

    Returns:
        dicts with heads, seq_len, ratio (> 1 means ``faster`` really is faster) and both times.
    """
    key = lambda r: (r["device"], r["dtype"], r["batch"], r["d_model"], r["heads"], r["seq_len"])
    ok = {(key(r), r["impl"]): r[field] for r in records if r["status"] == "ok" and r.get(field)}
    out = []
    for r in records:
        if r["impl"] == slower and (key(r), slower) in ok and (key(r), faster) in ok:
            a, b = ok[(key(r), slower)], ok[(key(r), faster)]
            out.append({"heads": r["heads"], "seq_len": r["seq_len"], "ratio": a / b,
                        f"{slower}_ms": a, f"{faster}_ms": b})
    return out



def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m selfattn.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--dtype", default="float32", help="float32, bfloat16 or float16")
    p.add_argument("--batch", type=int, default=1, help="B")
    p.add_argument("--seq-len", type=int, nargs="+", default=[256], help="one or more sequence lengths n")
    p.add_argument("--d-model", type=int, default=512, help="model width")
    p.add_argument("--heads", type=int, nargs="+", default=[1, 8], help="one or more head counts, e.g. 1 8")
    p.add_argument("--impl", nargs="+", default=list(IMPLS), help="any of " + " ".join(IMPLS))
    p.add_argument("--warmup", type=int, default=3, help="untimed calls before timing")
    p.add_argument("--min-run-time", type=float, default=1.0, help="seconds of timing per run")
    p.add_argument("--max-memory-mib", type=int, default=None, help="refuse runs estimated above this")
    p.add_argument("--no-guard", action="store_true", help="CUDA only: skip the memory guard (OOM becomes a record)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's own setting)")
    p.add_argument("--out", nargs="+", default=[], help="results file(s): .csv for CSV, anything else JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    config = BenchConfig(device=args.device, dtype=args.dtype, batch=args.batch, seq_lens=tuple(args.seq_len),
                         d_model=args.d_model, heads=tuple(args.heads), impls=tuple(args.impl), warmup=args.warmup,
                         min_run_time=args.min_run_time, guard=not args.no_guard, seed=args.seed, threads=args.threads,
                         memory_cap_bytes=None if args.max_memory_mib is None else args.max_memory_mib * _MiB)
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    try:
        records = run_benchmark(config, progress=lambda done, total, label: label and say(
            f"[{done + 1}/{total}] {label}"))  # counted from 1: the run starting now
    except InputError as exc:
        print(f"error [{exc.code}]: {exc}", file=sys.stderr)
        return 2
    print(f"{'impl':>9} {'h':>3} {'n':>6} {'median_ms':>10} {'iqr_ms':>8} {'GFLOP/s':>8} {'peak_MiB':>9}  status")
    for r in records:
        num = lambda v, f: format(v, f) if v is not None else "-"
        peak = None if r["peak_mem_bytes"] is None else r["peak_mem_bytes"] / _MiB
        print(f"{r['impl']:>9} {r['heads']:>3} {r['seq_len']:>6} {num(r['median_ms'], '10.3f')} "
              f"{num(r['iqr_ms'], '8.3f')} {num(r['gflops'], '8.1f')} {num(peak, '9.1f')}  {r['status']} {r['error']}"
              + ("noisy" if is_noisy(r) else ""))
    if any(is_noisy(r) for r in records):
        print(f"noisy: IQR above {NOISY_IQR_SHARE:.0%} of the median; time those runs again on a quiet machine.")
    for slower, faster in (("naive", "fused"), ("fused", "torch_mha")):
        for q in speed_ratios(records, slower, faster):
            print(f"{slower}/{faster} time ratio h={q['heads']} n={q['seq_len']}: {q['ratio']:.2f}")
    about = {"measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "machine": f"{device_name(config.device)}, {platform.node() or platform.machine()}"}
    for out in args.out:
        print(f"wrote {write_results(records, out, about)}")
    statuses = {r["status"] for r in records}
    return 2 if "refused" in statuses else 3 if statuses - {"ok"} else 0
