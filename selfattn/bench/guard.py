"""What a sweep may take from a shared server: one sweep at a time for all replicas, and memory watched.

* :func:`one_sweep_at_a_time`: an exclusive, non-blocking ``fcntl.flock`` on a lock file in the
  cache folder (``SELFATTN_CACHE_DIR``), which every replica of ``deploy/serve.sh`` shares. A
  sweep that finds it held is refused at once with ``bench_busy`` and how long the holder
  expects to take (written into the file), instead of waiting in a queue.
* :class:`MemoryWatch`: the process's resident memory (``VmRSS``) before, at the peak (sampled
  every 20 ms) and after a sweep; :func:`give_back_memory` returns freed heap pages to the
  system afterwards (glibc's ``malloc_trim``), so a finished sweep does not stay resident.
* :func:`check_cooldown` and :func:`note_finished`: a visitor's wait between two sweeps, kept in a
  table of when each session's last sweep ended (the page keeps one per process).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from selfattn.errors import InputError

LOCK_NAME = "bench.lock"
_local_lock = threading.Lock()  # where flock is missing (not POSIX) or the folder cannot be written


def lock_path() -> Path:
    """The lock file every replica shares: ``bench.lock`` in the cache folder (``SELFATTN_CACHE_DIR``)."""
    from selfattn.text.charvec import cache_dir

    return cache_dir() / LOCK_NAME


def _busy(retry_s: float) -> InputError:
    wait = max(1, math.ceil(retry_s))
    return InputError("bench_busy", f"Another benchmark is running on this server; try again in about {wait} s.",
                      retry_s=wait)


def _retry_after(fd: int) -> float:
    """Seconds the holder of the lock said it would still take (10 when it said nothing readable)."""
    try:
        said = json.loads(os.pread(fd, 256, 0) or b"{}")
        return float(said["until"]) - time.time()
    except (OSError, ValueError, KeyError, TypeError):
        return 10.0


@contextlib.contextmanager
def one_sweep_at_a_time(expected_s: float, path: Path | None = None) -> Iterator[None]:
    """Hold the server-wide benchmark lock for the ``with`` block, or refuse at once.

    Args:
        expected_s: how long the sweep is expected to take; written into the lock file so that a
            refused visitor can be told when to try again.
        path: the lock file (default :func:`lock_path`).

    Raises:
        InputError: ``bench_busy`` (param retry_s) when another sweep, in this process or another
            replica, holds the lock.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: one sweep at a time in this process
        fcntl = None
    fd = None
    if fcntl is not None:
        path = path or lock_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            fd = None
    if fd is None:
        if not _local_lock.acquire(blocking=False):
            raise _busy(expected_s)
        try:
            yield
        finally:
            _local_lock.release()
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(_retry_after(fd)) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "until": time.time() + expected_s}).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def rss_bytes() -> int | None:
    """This process's resident memory (``VmRSS``) in bytes, or None where /proc is missing."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class MemoryWatch:
    """Resident memory of this process before, at the peak and after a ``with`` block (bytes).

    ``over(limit)`` says whether the peak so far rose more than ``limit`` above ``before``: a sweep
    checks it between runs and stops when it is true.
    """

    def __init__(self, every_s: float = 0.02):
        self.every_s = every_s
        self.before = self.peak = self.after = rss_bytes() or 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="selfattn-rss", daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.every_s):
            self.peak = max(self.peak, rss_bytes() or 0)

    def __enter__(self) -> MemoryWatch:
        self.before = self.peak = rss_bytes() or 0
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes() or 0)
        give_back_memory()
        self.after = rss_bytes() or 0

    def growth(self) -> int:
        """Bytes the peak so far is above ``before``."""
        return max(self.peak, rss_bytes() or 0) - self.before

    def over(self, limit: int | None) -> bool:
        return limit is not None and self.growth() > limit


def give_back_memory() -> None:
    """Hand freed heap memory back to the system (glibc's ``malloc_trim(0)``; nothing elsewhere)."""
    name = ctypes.util.find_library("c")
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(name).malloc_trim(0)


def check_cooldown(finished: dict[str, float], session: str, cooldown_s: float, now: float) -> None:
    """Refuse a sweep while ``session``'s last one ended less than ``cooldown_s`` before ``now``.

    Args:
        finished: when each session's last sweep ended (``time.monotonic``), by session id.

    Raises:
        InputError: ``bench_cooldown`` (params wait_s, cooldown_s), the wait in whole seconds rounded up.
    """
    last = finished.get(session)
    wait = cooldown_s - (now - last) if last is not None else 0
    if wait > 0:
        raise InputError("bench_cooldown", f"You ran a benchmark moments ago; you can run again in "
                         f"{math.ceil(wait)} s.", wait_s=math.ceil(wait), cooldown_s=cooldown_s)


def note_finished(finished: dict[str, float], session: str, cooldown_s: float, now: float) -> None:
    """Note that ``session``'s sweep ended at ``now`` (nothing when there is no cooldown), forgetting the
    sessions whose cooldown is over, so the table holds only those still waiting."""
    for old in [s for s, at in list(finished.items()) if now - at >= cooldown_s]:
        finished.pop(old, None)
    if cooldown_s > 0:
        finished[session] = now
