"""Where a whole test run's CPU goes: every process's CPU, by kind and by the test file it was spent for.

Usage: python benchmarks/suite_cpu.py [--every 1] [--top 40] [--by test] [--json FILE] -- bash tests/run.sh [pytest args]

Runs the command with ``SELFATTN_TEST_TIMELINE`` set (tests/conftest.py: each test's worker, its pid, start and end), reads
every process's CPU from /proc every ``--every`` seconds until the command ends, and prints what the run's CPU went
to. On two cores with four workers the suite is CPU-bound (docs/benchmarks.md), so the test times of the timeline
say what waited, not what cost: a browser test waits on Chromium, a flood on its server. Here each process's CPU is
given to the pytest-xdist worker whose tree it grew in (the worker's environment names it, ``PYTEST_XDIST_WORKER``,
and what a worker starts inherits it; a worker itself is the parent of such a process) and, through the timeline,
to the test file that worker was running then: Chromium, the Streamlit servers, pip and the container build count
for the test that started them.

A process first seen at a sample counts all its CPU at that sample. One that ended between two samples is counted
through its parent: /proc adds a reaped child's time to the parent's ``cutime``/``cstime``, so what those grew by,
less what was already counted of the children that ended, is the parent's (and counted as the parent's kind). What
the command's processes spent before their worker is known (collection, the controller) counts for "pytest (before
a worker is known)".
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
WORKER_ENV = b"PYTEST_XDIST_WORKER="
XDIST_WORKER_CMD = b"sys.stdin.readline"  # how execnet starts a worker: python -c "import sys;exec(eval(sys.stdin.readline()))"
AFTER_END = 1.5  # seconds after a test's end that its worker's CPU still counts for it (samples and teardown lag)


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    comm: str
    own: int  # user + system ticks
    reaped: int  # the user + system ticks of the children it has reaped (cutime + cstime)


def parse_stat(text: str) -> Proc:
    """One /proc/<pid>/stat line (the command name may hold spaces and brackets: it ends at the last ')')."""
    head, _, rest = text.rpartition(")")
    pid, _, comm = head.partition(" (")
    fields = rest.split()
    return Proc(int(pid), int(fields[1]), comm, int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))


def kind(comm: str, cmdline: bytes) -> str:
    """What a process is, for the totals by kind."""
    if "chrom" in comm or b"chromium" in cmdline[:200]:
        return "Chromium"
    if b"streamlit" in cmdline and b"run" in cmdline:
        return "Streamlit servers"
    if b"pip" in cmdline[:200]:
        return "pip"
    if comm in ("buildah", "podman", "runc", "conmon", "crun", "tar", "debootstrap"):
        return "container build"
    if comm == "node" or b"playwright" in cmdline[:300]:
        return "Playwright drivers"
    if comm == "nginx":
        return "nginx"
    if comm.startswith("python"):
        return "pytest and other Python"
    return "other"


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every core: user, nice, system, irq, softirq, steal), from
    /proc/stat: what the run's own figures are checked against (the difference is what else ran)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    return sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7)) / TICK


def read_procs() -> dict[int, Proc]:
    procs = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                procs[int(name)] = parse_stat(Path(f"/proc/{name}/stat").read_text())
            except (OSError, ValueError, IndexError):
                continue
    return procs


def descendants(root: int, procs: dict[int, Proc]) -> set[int]:
    """``root`` and every process under it (by each one's parent, whatever the order of their pids)."""
    children = collections.defaultdict(list)
    for proc in procs.values():
        children[proc.ppid].append(proc.pid)
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid in procs and pid not in found:
            found.add(pid)
            stack.extend(children[pid])
    return found


def read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def named(worker: str | None) -> bool:
    """Whether a worker is known by its name (gw0), not yet by its pid alone ("pid 4242") or not at all."""
    return worker is not None and not worker.startswith("pid ")


def worker_in_env(environ: bytes) -> str | None:
    for entry in environ.split(b"\0"):
        if entry.startswith(WORKER_ENV):
            return entry[len(WORKER_ENV):].decode()
    return None


def counted_of_ended(ended: dict[int, Proc]) -> collections.Counter:
    """By parent still running: what was counted already of its children that ended since the last sample, each with
    the children that ended under it (a build step's shell and the pip under it ending in the same second: pip's time
    goes to the shell as the shell reaps it, then with the shell's to its parent, and was counted while pip ran)."""
    under = collections.defaultdict(list)
    for proc in ended.values():
        under[proc.ppid].append(proc)

    def counted(proc: Proc) -> int:
        return proc.own + proc.reaped + sum(counted(child) for child in under.get(proc.pid, ()))

    return collections.Counter({parent: sum(counted(child) for child in children)
                                for parent, children in under.items() if parent not in ended})


class Sampler:
    """CPU deltas per (worker, kind) at each sample, for the processes under ``root``."""

    def __init__(self, root: int):
        self.root = root
        self.last: dict[int, Proc] = {}
        self.worker: dict[int, str | None] = {}
        self.kinds: dict[int, str] = {}

    def sample(self, procs: dict[int, Proc]) -> dict[tuple[str | None, str], float]:
        ours = descendants(self.root, procs)
        for pid in sorted(ours - self.worker.keys()):  # new: their worker from their environment, or their parent's
            # (Chromium's zygote clears what /proc shows of its environment); their kind
            cmdline = read_bytes(f"/proc/{pid}/cmdline")
            self.worker[pid] = (worker_in_env(read_bytes(f"/proc/{pid}/environ")) or self.worker.get(procs[pid].ppid)
                                or (f"pid {pid}" if XDIST_WORKER_CMD in cmdline else None))  # a worker not named yet
            self.kinds[pid] = kind(procs[pid].comm, cmdline)
        for pid in ours:  # a worker itself: the parent of a process that names it, started as execnet starts one
            parent = procs[pid].ppid
            if self.worker.get(pid) and parent in ours and not named(self.worker.get(parent)) \
                    and XDIST_WORKER_CMD in read_bytes(f"/proc/{parent}/cmdline"):
                self.worker[parent] = self.worker[pid]
        counted_ended = counted_of_ended({pid: self.last.pop(pid) for pid in set(self.last) - ours})
        for pid in set(self.worker) - ours:
            self.worker.pop(pid, None)
            self.kinds.pop(pid, None)
        deltas: dict[tuple[str | None, str], float] = collections.Counter()
        for pid in ours:
            now, before = procs[pid], self.last.get(pid)
            own = now.own - (before.own if before else 0)
            reaped = now.reaped - (before.reaped if before else 0)
            delta = own + max(0, reaped - counted_ended[pid])
            self.last[pid] = now
            if delta > 0:
                deltas[self.worker[pid], self.kinds[pid]] += delta / TICK
        return dict(deltas)


def read_timeline(lines, by: str = "file") -> dict[str, list[tuple[float, float, str]]]:
    """The timeline's tests by worker, in order: (start, end, the test's file, or with ``by="test"`` its node id).
    A line is "worker start end seconds pid node id" (tests/conftest.py); a worker's pid names it too ("pid <pid>"):
    a worker that starts no process is known by it alone (the fast tier's, whose CPU was all "before a worker is
    known")."""
    tests = collections.defaultdict(list)
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) == 6:
            node = parts[5].strip()
            run = (float(parts[1]), float(parts[2]), node if by == "test" else node.split("::")[0])
            tests[parts[0]].append(run)
            tests[f"pid {parts[4]}"].append(run)
    for runs in tests.values():
        runs.sort()
    return tests


def attribute(samples, timeline: dict[str, list[tuple[float, float, str]]]):
    """(CPU seconds by test file, by kind, by test file and kind) from ``samples``: [(time, {(worker, kind): seconds})].
    A worker's CPU at a time when it ran no test (between two, or before its first) counts for "<worker> between
    tests"."""
    starts = {worker: [start for start, _, _ in runs] for worker, runs in timeline.items()}
    by_file, by_kind, by_both = collections.Counter(), collections.Counter(), collections.defaultdict(collections.Counter)
    for at, deltas in samples:
        for (worker, what), seconds in deltas.items():
            by_kind[what] += seconds
            if worker is None:
                name = "pytest (before a worker is known)"
            else:
                i = bisect.bisect_right(starts.get(worker, []), at) - 1
                runs = timeline.get(worker, [])
                name = runs[i][2] if i >= 0 and at <= runs[i][1] + AFTER_END else f"{worker} between tests"
            by_file[name] += seconds
            by_both[name][what] += seconds
    return by_file, by_kind, by_both


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--top", type=int, default=40, help="test files to list")
    parser.add_argument("--by", choices=("file", "test"), default="file", help="what the CPU is listed by")
    parser.add_argument("--json", type=Path)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command, e.g. bash tests/run.sh")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --, e.g. -- bash tests/run.sh")
    timeline = Path(os.environ.get("SELFATTN_TEST_TIMELINE") or tempfile.mkstemp(suffix=".timeline")[1])
    started, busy = time.time(), machine_busy()
    proc = subprocess.Popen(command, env={**os.environ, "SELFATTN_TEST_TIMELINE": str(timeline)})
    sampler, samples = Sampler(proc.pid), []
    while proc.poll() is None:
        at = time.time()
        samples.append((at, sampler.sample(read_procs())))
        time.sleep(max(0.0, args.every - (time.time() - at)))
    wall, busy = time.time() - started, machine_busy() - busy
    by_file, by_kind, by_both = attribute(samples, read_timeline(timeline.read_text().splitlines(), args.by))
    total = sum(by_kind.values())
    print(f"\nexit {proc.returncode}, wall {wall / 60:.1f} min, CPU {total:.0f} s "
          f"({total / wall / (os.cpu_count() or 1):.0%} of {os.cpu_count()} cores); the whole machine's CPU meanwhile "
          f"{busy:.0f} s (this sampler's and anything else's included)")
    for what, seconds in by_kind.most_common():
        print(f"  {seconds:7.0f} s  {what}")
    print(f"CPU by test {args.by} (the {args.top} largest of {len(by_file)}):")
    for name, seconds in by_file.most_common(args.top):
        print(f"  {seconds:7.1f} s  {name}")
    if args.json:
        args.json.write_text(json.dumps({"exit": proc.returncode, "wall_s": round(wall, 1), "cpu_s": round(total, 1),
                                         "by_kind": by_kind, "by_file": by_file,
                                         "by_file_and_kind": by_both}, indent=1))
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
