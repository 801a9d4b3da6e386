"""Time naive, fused and reference multi-head attention on CPU or CUDA; save, load and check results.

One module per concern, every name also here (``from selfattn import bench; bench.run_benchmark``):

* ``limits``: the sweep's config (:class:`BenchConfig`), the local and hosted limits, their checks;
* ``cost``: what a sweep will cost before it runs (seconds on one thread, bytes per run) and the budgets;
* ``machine``: the device's name and free memory;
* ``sweep``: running it (:func:`run_benchmark`), one record per run;
* ``ratios``: noisy timings and time ratios; ``results``: records as files; ``summary``: what they say;
* ``cli``: ``python -m selfattn.bench``; ``guard``: one sweep at a time, resident memory;
  ``choices``: what the Heads page offers.

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

from selfattn.bench.cost import (CALL_OVERHEAD_S, CPU_SPEED, MEMORY_HEADROOM, ROUNDS, RUN_OVERHEAD_S, check_cost,
                                 estimate_call_seconds, estimate_memory_bytes, estimate_run_bytes, estimate_run_seconds,
                                 estimate_sweep_seconds, memory_budget_bytes, memory_error)
from selfattn.bench.limits import DTYPES, LIMITS, BenchConfig, limit_threads, limits_for, validate_config
from selfattn.bench.machine import available_memory_bytes, device_name
from selfattn.bench.ratios import NOISY_IQR_SHARE, is_noisy, speed_ratios
from selfattn.bench.results import (DEVICES, DTYPE_NAMES, RECORD_FIELDS, REQUIRED_FIELDS, RESULTS_MAX_BYTES,
                                    RESULTS_MAX_ROWS, SCHEMA, STATUSES, flop_count, load_results, read_about,
                                    records_to_csv, records_to_json, write_results)
from selfattn.bench.sweep import MAX_BLOCK_CALLS, run_benchmark
from selfattn.core.torch_attention import IMPLS
from selfattn.errors import InputError

__all__ = [
    "CALL_OVERHEAD_S", "CPU_SPEED", "DEVICES", "DTYPES", "DTYPE_NAMES", "IMPLS", "InputError", "LIMITS",
    "MAX_BLOCK_CALLS", "MEMORY_HEADROOM", "NOISY_IQR_SHARE", "RECORD_FIELDS", "REQUIRED_FIELDS", "RESULTS_MAX_BYTES",
    "RESULTS_MAX_ROWS", "ROUNDS", "RUN_OVERHEAD_S", "SCHEMA", "STATUSES", "BenchConfig", "available_memory_bytes",
    "check_cost", "device_name", "estimate_call_seconds", "estimate_memory_bytes", "estimate_run_bytes",
    "estimate_run_seconds", "estimate_sweep_seconds", "flop_count", "is_noisy", "limit_threads", "limits_for",
    "load_results", "memory_budget_bytes", "memory_error", "read_about", "records_to_csv", "records_to_json",
    "run_benchmark", "speed_ratios", "validate_config", "write_results",
]
