"""Running a sweep: every impl x heads x seq_len run timed in turns, its peak memory measured, one record each."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from selfattn.bench.cost import (ROUNDS, check_cost, estimate_run_bytes, estimate_run_seconds, memory_budget_bytes,
                                 memory_error)
from selfattn.bench.guard import MemoryWatch
from selfattn.bench.limits import DTYPES, MiB, BenchConfig, limit_threads, limits_for, validate_config
from selfattn.bench.machine import device_name
from selfattn.bench.results import RECORD_FIELDS, flop_count
from selfattn.core.torch_attention import build_attention_modules

MAX_BLOCK_CALLS = 100_000  # calls in one round's block, at most


def cpu_peak_bytes(fn: Callable[[], Any]) -> int:
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
        return cpu_peak_bytes(fn), "measured_cpu_profiler"
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
                                                    f"{lim['rss_cap_bytes'] // MiB} MiB of memory on this server."}
    if budget is not None and record["est_mem_bytes"] > budget:
        err = memory_error(record["est_mem_bytes"], budget)
        return {"error_code": err.code, "error": str(err)}
    return {}


def sweep_threads(config: BenchConfig, limits: dict) -> int:
    """The CPU threads a sweep of ``config`` computes on under ``limits`` (what :func:`run_benchmark` will set)."""
    return limits["threads"] or (config.threads if config.device == "cpu" and config.threads else
                                 torch.get_num_threads())
