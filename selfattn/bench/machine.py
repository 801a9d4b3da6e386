"""What this machine has: the device's name and its free memory."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch


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
