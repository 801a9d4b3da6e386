"""What a sweep may ask for: its config, the local and hosted limits, the checks, and torch's threads."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from selfattn.bench.results import DEVICES, DTYPE_NAMES
from selfattn.core.checks import check_heads
from selfattn.core.torch_attention import IMPLS
from selfattn.errors import InputError
from selfattn.hosting import is_hosted

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
assert tuple(DTYPES) == DTYPE_NAMES
MiB = 1024 * 1024
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
               "memory_cap_bytes": 160 * MiB, "rss_cap_bytes": 400 * MiB, "cpu_budget_s": 6.0, "cpu_stop_s": 8.0,
               "threads": 1, "cooldown_s": 30},
}


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


def limit_threads(hosted: bool | None = None) -> None:
    """Hosted: torch computes on one thread from now on, in every thread of the process that starts later.

    ``torch.set_num_threads`` is process-wide and read by each thread when it first computes, so
    it is set once and left: restoring it after a sweep would race with other visitors' pages
    (the PyTorch check here, the embeddings page's model), which also share the machine.
    """
    threads = limits_for(hosted)["threads"]
    if threads is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
