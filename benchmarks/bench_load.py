"""A class at once: K visitors driven through Streamlit's own websocket protocol (no browsers).

Usage:
    python benchmarks/bench_load.py [--scenario open|edit|soak|cost|capacity|all] [--page playground embeddings ...]
        [--visitors K] [--edits E] [--timeout S] [--repeat R] [--json out.json] [--pod] [--wait-load L]
        [--max-visitors N] [--bound S] [--class-seconds S] [--every S]
        [--app-dir DIR [DIR ...]] [--start] [--serve-replicas N [N ...]] [--floor] | [--url URL --pids PID ...]

A visitor does what a browser tab does on the wire, and nothing more: it fetches the page
(``GET /playground``, keeping the cookies it is given, so that a proxy's sticky-route cookie
comes back with every later request), opens the websocket ``/_stcore/stream`` (subprotocol
``streamlit``, that Cookie header, the page's Origin) and sends the ``rerun_script`` BackMsg the
frontend sends on load: the page's url path as ``page_name``, the query string, the browser's
context. It then reads the ForwardMsgs (``streamlit.proto``) the way the frontend does:

* a run starts with ``new_session`` and ends with ``script_finished``. A run that ends early
  for a rerun (``st.rerun``: the first visit to a deep link after the server starts reruns
  once through ``app.py``'s frame) is followed by the next; the visitor is served when a run
  finishes successfully. Any other end (a compile error, a missing page) is an error;
* it keeps the messages Streamlit marks cacheable and names their hashes in every later
  rerun request, so unchanged elements come back as ``ref_hash`` references, as in a browser;
* it mirrors the browser's widget manager: every widget's value (value or default from its
  element, the element's value whenever the server sets one), sent back with each rerun;
  widgets of the kinds it does not mirror (buttons, uploads, segmented controls) are left
  out, and Streamlit keeps their last values;
* any ``exception`` element (a traceback shown in the page) counts as an exception shown.

An edit is what the Playground's matrix editor sends when a visitor types a number into the
first cell of X's column x1 and presses Enter: the editor's widget state, the JSON text
``{"table":{"rev":1,"cells":[["Input 1","5","0","1","0"],...]}}`` (the full table as typed, its
revision counting up; each edit a value not sent before), in a rerun request with all the other
widgets' values (for an editor inside an ``st.fragment``, a rerun of that fragment, as the browser
asks). The edit must change the step-by-step text of the page (the boxes of worked-out lines), or it is
counted as an error. Every page has its own edit (``support.visitor.EDITS``): on the Transformer
block and the Encoder–decoder the first cell of X (the source X), typed into their matrix editors
the same way; on Sentence embeddings a new six-character sentence in the text box; on Heads &
devices another seed (a setting: new random input and weights). Those must change what the page
shows (every element but the inputs). On Streamlit's floor, which has no widget, an "edit" is a
rerun request, what any widget change costs there.

What is timed (wall clock, this process):

* page open: from the page's GET to the ``script_finished`` that ends the visit's last run;
  the page's static files (JS, CSS) are not fetched: a browser has them cached;
* edit: from sending the rerun request to its run's successful ``script_finished``;
* runs per second: page runs served (opens + edits) / wall time of the scenario;
* server RSS per process (``VmRSS``) before, after and at the peak (sampled every 0.25 s),
  and the server's CPU seconds, from ``/proc``.

Scenarios (``--scenario``; ``all`` runs the first three, in this order):

* ``open``: K visitors (default 40) open each ``--page`` at once;
* ``edit``: K visitors (default 10) open the Playground at once, then each makes E edits of X
  (default 5), one after another, all visitors at the same time;
* ``soak``: V visitors (default 300) open the first ``--page`` and close it, one after another
  (at most ``--soak-seconds``); RSS growth per visitor. Streamlit keeps a closed visitor's
  session for ``server.disconnectedSessionTTL`` (120 s; at most 128 sessions), so the growth
  right after includes those; ``--settle S`` waits S seconds, makes one more visit (which lets
  Streamlit drop the expired sessions) and reads RSS again;
* ``cost``: what a visitor costs on each ``--page``: K visitors (default 10) open it at once, then
  each makes E edits of the page's kind, one after another, all visitors at the same time, every
  edit typing what no edit of the run typed before (so no visitor's result is another's cached
  one). Server CPU an open (CPU seconds over the opens / K) and an edit (over the edits / their
  number), edit p50/p95, and RSS growth a visitor (RSS with the K tabs still open, less RSS before,
  / K);
* ``capacity``: the visitors one pod of one CPU holds, per ``--page`` (implies ``--pod`` and
  ``--floor``). For N = 1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32 ... (``--max-visitors``), N visitors
  open the page at once, and N open Streamlit's floor at once, page and floor alternating
  ``--repeat`` times; the rung is within when the page's median p95 is at most 2x the floor's, and
  (a second, absolute mark) at most ``--bound`` seconds. It climbs until the page has been outside
  both; the answer is the largest N within each, every smaller N within too. With
  ``--class-seconds S`` the same for a class that works: N visitors open, then for S seconds each
  edits every ``--every`` seconds (their turns spread over that interval), edit p95 against the
  floor's reruns at the same N and pace. Not part of ``all``.

``--pod`` serves as a pod of ``deploy/k8s`` does: each server process (and every thread in it) on
CPU 0 only, as ``taskset -c 0`` would start it, with the pod's one compute thread for torch and
numpy's BLAS (:data:`POD_ENV`, as ``deploy/k8s/base/deployment.yaml`` sets it); the visitors (this
process) run on the other CPUs. Every row notes the 1-minute load average at its start (other work
on the machine shares the servers' CPU); ``--wait-load L`` first waits while it is above L (at most
``--wait-most`` seconds, looking once a minute).

Servers: by default (``--start``) each ``--app-dir`` is started here as one process,
``SELFATTN_HOSTED=1 streamlit run app.py --server.headless true`` on a free port, after which
the script waits for ``/_stcore/health`` and for the server to go quiet (the app loads a model in
the background at start) and makes one warm-up visit to every page it will measure (and one
edit). ``--serve-replicas N`` measures the checkout's ``deploy/serve.sh --replicas N --port P``
(a proxy in front of N processes; their pids are found under it in ``/proc``, and each replica
is warmed up directly); ``--start --serve-replicas 2`` measures one process and two replicas in
the same run. ``--url URL --pids PID ...`` measures a server started elsewhere. With several
targets (old and new checkouts: ``--app-dir OLD NEW``) every measurement is taken on each in
turn, the order alternating with each ``--repeat``, so that they meet the same machine.

All traffic stays on the loopback interface; every wait is bounded (``--timeout`` per page run,
``--soak-seconds``), and the script stops the servers it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support.server import LocalServer, RemoteServer, Replicas, Target  # noqa: E402
from support.visitor import EDITS, PAGES, Tally, Visitor, attempt, edit_value, typed  # noqa: E402

DEFAULT_VISITORS = {"open": 40, "edit": 10, "soak": 300, "cost": 10}
SCENARIOS = ("open", "edit", "soak", "cost", "capacity")
ALL = ("open", "edit", "soak")  # what --scenario all runs
LADDER = (1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64)  # visitors at once, in turn, in 'capacity'
# The pod's environment that bears on CPU (deploy/k8s/base/deployment.yaml; tests/test_bench_load.py holds the two
# equal): one compute thread per process for torch and numpy's BLAS
POD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
POD_CPU = 0  # --pod: the servers' one CPU; the visitors run on the others
FRESH = itertools.count(1)  # edits' indices: each edit of a run types what no edit before it did (0: the warm-up's)


# ── Scenarios ──────────────────────────────────────────────────────────────────────────
def nothing(_name: str) -> None:
    """A ``mark`` that marks nothing."""


async def edit_once(tab: Visitor, page: str) -> float:
    """One edit of ``page`` as its visitor makes it (:data:`support.visitor.EDITS`), typing what no edit of this
    run typed before; on a page without one (Streamlit's floor) a rerun, what a widget change costs there."""
    if page in EDITS:
        return await tab.edit(typed(page, next(FRESH)), EDITS[page])
    return await tab.rerun()


async def scenario_open(url: str, page: str, visitors: int, args, tally: Tally, mark=nothing) -> int:
    """``visitors`` tabs open ``page`` at once; return the number of visitors."""
    async def one() -> None:
        visitor = Visitor(url, tally, args.timeout)
        try:
            await attempt(tally, visitor.open(page))
        finally:
            await visitor.close()

    await asyncio.gather(*(one() for _ in range(visitors)))
    return visitors


async def scenario_edit(url: str, page: str, visitors: int, args, tally: Tally, mark=nothing) -> int:
    """``visitors`` tabs open the Playground at once, then each edits X ``args.edits`` times."""
    tabs = [Visitor(url, tally, args.timeout) for _ in range(visitors)]
    try:
        opened = await asyncio.gather(*(attempt(tally, tab.open("playground")) for tab in tabs))

        async def edits(tab: Visitor) -> None:
            for k in range(args.edits):
                if not await attempt(tally, tab.edit(edit_value(k))):
                    return

        await asyncio.gather(*(edits(tab) for tab, ok in zip(tabs, opened) if ok))
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs))
    return visitors


async def scenario_soak(url: str, page: str, visitors: int, args, tally: Tally, mark=nothing) -> int:
    """Tabs open ``page`` and close it one after another; return how many did (time-bounded)."""
    deadline = time.monotonic() + args.soak_seconds
    done = 0
    while done < visitors and time.monotonic() < deadline:
        visitor = Visitor(url, tally, args.timeout)
        try:
            await attempt(tally, visitor.open(page))
        finally:
            await visitor.close()
        done += 1
    return done


async def scenario_cost(url: str, page: str, visitors: int, args, tally: Tally, mark=nothing) -> int:
    """``visitors`` tabs open ``page`` at once (``mark("opened")``), then each makes ``args.edits`` edits of
    the page's kind one after another, every edit its own (``mark("edited")``, the tabs still open)."""
    tabs = [Visitor(url, tally, args.timeout) for _ in range(visitors)]
    try:
        opened = await asyncio.gather(*(attempt(tally, tab.open(page)) for tab in tabs))
        mark("opened")

        async def edits(tab: Visitor) -> None:
            for _ in range(args.edits):
                if not await attempt(tally, edit_once(tab, page)):
                    return

        await asyncio.gather(*(edits(tab) for tab, ok in zip(tabs, opened) if ok))
        mark("edited")
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs))
    return visitors


async def scenario_class(url: str, page: str, visitors: int, args, tally: Tally, mark=nothing) -> int:
    """A class that works: ``visitors`` tabs open ``page`` at once (``mark("opened")``), then for
    ``args.class_seconds`` each edits every ``args.every`` seconds, their turns spread evenly over that
    interval (``mark("edited")``)."""
    tabs = [Visitor(url, tally, args.timeout) for _ in range(visitors)]
    loop = asyncio.get_running_loop()
    try:
        opened = await asyncio.gather(*(attempt(tally, tab.open(page)) for tab in tabs))
        mark("opened")
        end = loop.time() + args.class_seconds

        async def work(i: int, tab: Visitor) -> None:
            await asyncio.sleep(args.every * i / visitors)
            while loop.time() < end:
                started = loop.time()
                if not await attempt(tally, edit_once(tab, page)):
                    return
                await asyncio.sleep(max(0.0, args.every - (loop.time() - started)))

        await asyncio.gather(*(work(i, tab) for i, (tab, ok) in enumerate(zip(tabs, opened)) if ok))
        mark("edited")
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs))
    return visitors


RUNNERS = {"open": scenario_open, "edit": scenario_edit, "soak": scenario_soak, "cost": scenario_cost,
           "class": scenario_class}


# ── Streamlit's own floor ─────────────────────────────────────────────────────────────
FLOOR_APP = """import streamlit as st

st.title("Floor")
st.write("Two elements: what any Streamlit page costs to open.")
"""


class Floor(LocalServer):
    """Streamlit's own floor: a two-element app (a title and a line), served as the checkout is (its
    ``.streamlit/config.toml``), in hosted mode. What no page of ours can open faster than."""

    def __init__(self, config_dir: Path, work: Path):
        app_dir = work / "floor"
        (app_dir / ".streamlit").mkdir(parents=True, exist_ok=True)
        (app_dir / "app.py").write_text(FLOOR_APP)
        config = config_dir / ".streamlit" / "config.toml"
        if config.exists():
            (app_dir / ".streamlit" / "config.toml").write_text(config.read_text())
        super().__init__(app_dir, "streamlit floor", work)

    @staticmethod
    def page_for(page: str) -> str:
        return "home"  # its one page, whatever page the others open


async def warm_up(target: Target, pages: list[str], edit: bool, timeout: float) -> Tally:
    """One visit per page (and one edit of each, with ``edit``) on every app process of ``target``, untimed."""
    tally = Tally()
    for url in target.direct_urls or [target.url]:
        for page in dict.fromkeys(page_for(target, p) for p in pages):
            visitor = Visitor(url, tally, timeout)
            try:
                if await attempt(tally, visitor.open(page)) and edit and page in EDITS:
                    await attempt(tally, visitor.edit(typed(page, 0), EDITS[page]))
            finally:
                await visitor.close()
    await target.wait_quiet()
    return tally


# ── Measuring and reporting ────────────────────────────────────────────────────────────
def page_for(target: Target, page: str) -> str:
    """The page a target opens for ``page`` (the floor has one)."""
    return target.page_for(page) if isinstance(target, Floor) else page


def summarize(seconds: list[float]) -> dict:
    """p50, p95 and max in seconds (p95 interpolated between ranks), and the count."""
    values = sorted(seconds)
    if not values:
        return {"n": 0}
    p95 = statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    return {"p50": round(statistics.median(values), 3), "p95": round(p95, 3), "max": round(values[-1], 3),
            "n": len(values)}


async def sample_peak(target: Target, peak: dict) -> None:
    """Keep the highest RSS seen per process in ``peak`` until cancelled."""
    while True:
        for pid, mb in target.rss().items():
            if mb is not None:
                peak[pid] = max(peak.get(pid, 0.0), mb)
        await asyncio.sleep(0.25)


async def measure(target: Target, scenario: str, page: str, args, repeat: int, visitors: int | None = None) -> dict:
    """Run one scenario against one target (``visitors``: instead of --visitors); return its row of the report."""
    visitors = visitors or args.visitors or DEFAULT_VISITORS[scenario]
    await target.wait_quiet(30)
    tally, peak, marks = Tally(), {}, {}
    load = [round(x, 2) for x in os.getloadavg()]
    before, cpu0, client0 = target.rss(), target.cpu(), time.process_time()

    def mark(name: str) -> None:  # the server's CPU seconds and RSS where the scenario says
        marks[name] = (sum(target.cpu().values()), total(target.rss()))

    sampler = asyncio.create_task(sample_peak(target, peak))
    start = time.perf_counter()
    try:
        done = await RUNNERS[scenario](target.url, page_for(target, page), visitors, args, tally, mark)
    finally:
        wall = time.perf_counter() - start
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    after = target.rss()
    server_cpu = {pid: seconds - cpu0.get(pid, 0.0) for pid, seconds in target.cpu().items()}
    row = {"target": target.label, "scenario": scenario,
           "page": "playground" if scenario == "edit" else page_for(target, page),
           "repeat": repeat, "visitors": done, "edits_each": args.edits if scenario in ("edit", "cost") else 0,
           "open": summarize(tally.opens), "edit": summarize(tally.edits),
           "runs": len(tally.opens) + len(tally.edits), "wall_s": round(wall, 2),
           "runs_per_s": round((len(tally.opens) + len(tally.edits)) / wall, 2),
           "errors": dict(tally.errors), "exceptions": tally.exceptions, "samples": tally.samples,
           "rss_mb_before": rounded(before), "rss_mb_after": rounded(after), "rss_mb_peak": rounded(peak),
           "server_cpu_s": round(sum(server_cpu.values()), 1), "server_cpu_s_per_process": rounded(server_cpu),
           "client_cpu_s": round(time.process_time() - client0, 1),
           "load_average": load, "load_average_end": [round(x, 2) for x in os.getloadavg()]}
    row.update(per_visitor(marks, sum(cpu0.values()), total(before), done, len(tally.edits)))
    if scenario == "soak":
        row["growth_mb_per_visitor"] = round((total(after) - total(before)) / max(done, 1), 3)
        if args.settle:
            await asyncio.sleep(args.settle)
            await scenario_soak(target.url, page, 1, args, Tally())
            row["settle_s"], row["rss_mb_settled"] = args.settle, rounded(target.rss())
            row["growth_mb_per_visitor_settled"] = round((total(target.rss()) - total(before)) / max(done, 1), 3)
    return row


def per_visitor(marks: dict, cpu0: float, rss0: float, visitors: int, edits: int) -> dict:
    """Server CPU an open and an edit, and RSS growth a visitor, from the scenario's marks ("opened": after
    the opens; "edited": after the edits, the tabs still open) and the CPU seconds and RSS at its start."""
    out = {}
    if "opened" in marks and visitors:
        out["open_cpu_s_per_visitor"] = round((marks["opened"][0] - cpu0) / visitors, 4)
    if "edited" in marks and visitors:
        out["edit_cpu_s_per_edit"] = round((marks["edited"][0] - marks["opened"][0]) / edits, 4) if edits else None
        out["mb_per_visitor"] = round((marks["edited"][1] - rss0) / visitors, 2)
    return out


def rounded(rss: dict) -> dict:
    return {str(pid): None if mb is None else round(mb, 1) for pid, mb in rss.items()}


def total(rss: dict) -> float:
    return sum(mb for mb in rss.values() if mb is not None)


def fmt_latency(summary: dict) -> str:
    if not summary.get("n"):
        return f"{'-':>7}{'-':>7}{'-':>7}"
    return f"{summary['p50']:>7.2f}{summary['p95']:>7.2f}{summary['max']:>7.2f}"


HEADER = (f"{'target':<24}{'scenario':<9}{'page':<11}{'K':>4}  {'open p50':>7}{'p95':>7}{'max':>7}  "
          f"{'edit p50':>7}{'p95':>7}{'max':>7}{'runs/s':>8}{'errors':>7}{'exc':>5}"
          f"{'RSS MB before':>15}{'after':>7}{'peak':>7}{'MB/vis':>8}{'CPU s':>7}{'wall s':>8}{'load':>6}")


def print_row(row: dict) -> None:
    errors = sum(row["errors"].values())
    growth = f"{row['growth_mb_per_visitor']:>8.3f}" if "growth_mb_per_visitor" in row else f"{'':>8}"
    print(f"{row['target'][-23:]:<24}{row['scenario']:<9}{row['page']:<11}{row['visitors']:>4}  "
          f"{fmt_latency(row['open'])}  {fmt_latency(row['edit'])}{row['runs_per_s']:>8.2f}{errors:>7}{row['exceptions']:>5}"
          f"{total(row['rss_mb_before']):>15.0f}{total(row['rss_mb_after']):>7.0f}{total(row['rss_mb_peak']):>7.0f}"
          f"{growth}{row['server_cpu_s']:>7.1f}{row['wall_s']:>8.1f}{row['load_average'][0]:>6.1f}", flush=True)
    if "open_cpu_s_per_visitor" in row:
        edit = row.get("edit_cpu_s_per_edit")
        print(f"    server CPU: {1000 * row['open_cpu_s_per_visitor']:.0f} ms an open"
              + (f", {1000 * edit:.0f} ms an edit" if edit is not None else "")
              + (f"; RSS growth {row['mb_per_visitor']:.2f} MB a visitor (tabs open)" if "mb_per_visitor" in row else ""),
              flush=True)
    if len(row["rss_mb_after"]) > 1:
        print("    per process: RSS MB before -> after (peak), CPU s: " + "; ".join(
            f"pid {pid} {row['rss_mb_before'].get(pid)} -> {mb} ({row['rss_mb_peak'].get(pid)}), "
            f"{row['server_cpu_s_per_process'].get(pid)}" for pid, mb in row["rss_mb_after"].items()))
    if "rss_mb_settled" in row:
        print(f"    after {row['settle_s']:g} s and one more visit: RSS {total(row['rss_mb_settled']):.0f} MB, "
              f"{row['growth_mb_per_visitor_settled']:.3f} MB per visitor")
    if errors:
        print("    errors: " + ", ".join(f"{kind} {n}" for kind, n in sorted(row["errors"].items())))
    for sample in row["samples"]:
        print(f"    e.g. {sample}")


# ── Capacity: visitors a 1-CPU pod holds ───────────────────────────────────────────────
def judge(pairs: list[dict], key: str, bound: float) -> dict:
    """One rung of the ladder: the page's and the floor's ``key`` ("open" or "edit") p95 in each repeat, and
    whether the page's median p95 over the repeats is within 2x the floor's median and within ``bound`` seconds,
    every run without errors."""
    page = [pair["page"][key].get("p95") for pair in pairs]
    floor = [pair["floor"][key].get("p95") for pair in pairs]
    clean = all(not pair[side]["errors"] and pair[side]["exceptions"] == 0 and pair[side][key].get("n")
                for pair in pairs for side in ("page", "floor"))
    mid = statistics.median(page) if clean else None
    return {"p95": page, "floor_p95": floor,
            "ratio": [round(p / f, 2) if clean and f else None for p, f in zip(page, floor)],
            "within_2x_floor": clean and mid <= 2 * statistics.median(floor),
            "within_bound": clean and mid <= bound,
            "load_average": [pair[side]["load_average"][0] for pair in pairs for side in ("page", "floor")]}


async def capacity(args, app: Target, floor: Target, page: str, kind: str) -> tuple[list[dict], dict]:
    """N visitors on ``page`` for N up the :data:`LADDER`, beside Streamlit's floor at the same N, page and floor
    alternating ``args.repeat`` times. ``kind`` "open": N open at once (open p95); "class": N open, then each
    edits every few seconds (edit p95). Climbs until the page has been outside each of the two marks (2x the floor's
    p95, ``args.bound``; :func:`judge`) at some N. Returns the rows and the summary: the largest N within each
    mark, every N below it within too."""
    scenario, key = ("open", "open") if kind == "open" else ("class", "edit")
    rows, steps, largest, failed = [], [], {"2x_floor": 0, "bound": 0}, set()
    for n in (n for n in LADDER if n <= args.max_visitors):
        pairs = []
        for repeat in range(args.repeat):
            pair = {}
            for side, target in (("page", app), ("floor", floor))[::1 if repeat % 2 == 0 else -1]:
                pair[side] = await measure(target, scenario, page, args, repeat, visitors=n)
                rows.append(pair[side])
                print_row(rows[-1])
            pairs.append(pair)
        step = {"visitors": n, **judge(pairs, key, args.bound)}
        steps.append(step)
        for name, ok in (("2x_floor", step["within_2x_floor"]), ("bound", step["within_bound"])):
            if ok and name not in failed:
                largest[name] = n
            elif not ok:
                failed.add(name)
        print(f"  -> {page} {kind} N={n}: p95 {step['p95']} s, floor {step['floor_p95']} s, "
              f"within 2x floor: {step['within_2x_floor']}, within {args.bound:g} s: {step['within_bound']}", flush=True)
        if len(failed) == len(largest):
            break
    summary = {"target": app.label, "page": page, "kind": kind, "bound_s": args.bound,
               "largest_within_2x_floor": largest["2x_floor"], "largest_within_bound": largest["bound"],
               "stopped": len(failed) == len(largest), "steps": steps}
    return rows, summary


def print_capacity(summaries: list[dict]) -> None:
    print("\ncapacity of one process on one CPU: the most visitors at once whose median p95 is within 2x Streamlit's "
          "floor's (same N, same pinning) and within the bound, every smaller N within too")
    for s in summaries:
        more = "" if s["stopped"] else " or more (the ladder ended)"
        print(f"  {s['target'][-23:]:<24}{s['page']:<11}{s['kind']:<6} 2x floor: {s['largest_within_2x_floor']:>3}"
              f"   <= {s['bound_s']:g} s: {s['largest_within_bound']:>3}{more}", flush=True)


# ── The pod: one CPU, one compute thread ──────────────────────────────────────────────
@contextlib.contextmanager
def pinned(cpus: set[int]):
    """This thread, and every process it starts meanwhile (all their threads), on ``cpus`` only: what
    ``taskset -c`` does for a command; as before afterwards."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def cpus_allowed(pid: int) -> list[str]:
    """The CPU lists (``Cpus_allowed_list``) of every thread of ``pid``, each once."""
    found = set()
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(OSError):
            found |= {line.split(":", 1)[1].strip() for line in status.read_text().splitlines()
                      if line.startswith("Cpus_allowed_list:")}
    return sorted(found)


async def wait_for_quiet_machine(load: float, most: float, every: float = 60.0) -> None:
    """Wait while the 1-minute load average is above ``load``, ``most`` seconds at most, looking every ``every``."""
    deadline = time.monotonic() + most
    while os.getloadavg()[0] > load and time.monotonic() < deadline:
        print(f"load average {os.getloadavg()[0]:.2f} > {load:g}: waiting", flush=True)
        await asyncio.sleep(min(every, max(0.0, deadline - time.monotonic())))


# ── The run ────────────────────────────────────────────────────────────────────────────
def environment() -> dict:
    import streamlit

    return {"date": date.today().isoformat(), "python": platform.python_version(), "machine": platform.machine(),
            "cores": len(os.sched_getaffinity(0)), "streamlit": streamlit.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def plan(args) -> list[tuple[str, str]]:
    """The (scenario, page) measurements to take, in order."""
    scenarios = ALL if args.scenario == "all" else (args.scenario,)
    steps = []
    for scenario in scenarios:
        if scenario in ("open", "cost", "capacity"):
            steps += [(scenario, page) for page in args.page]
        else:
            steps.append((scenario, "playground" if scenario == "edit" else args.page[0]))
    return steps


def make_targets(args, work: Path) -> list[Target]:
    """The servers to measure: ``--url``, or per checkout one process and/or serve.sh replicas."""
    if args.url:
        return [RemoteServer(args.url, args.pids)]
    dirs = [d.resolve() for d in args.app_dir]
    many = len(dirs) > 1
    targets: list[Target] = []
    for app_dir in dirs:
        name = f"{app_dir.name or app_dir} " if many else ""
        if args.start or not args.serve_replicas:
            targets.append(LocalServer(app_dir, f"{name}1 process", work))
        for n in args.serve_replicas or ():
            targets.append(Replicas(app_dir, n, f"{name}serve.sh x{n}", work))
    if args.floor:
        targets.append(Floor(dirs[0], work))
    return targets


async def start(args, targets: list[Target], env: dict) -> None:
    """Start the servers; with ``--pod`` on CPU :data:`POD_CPU` with the pod's environment, and this process
    (the visitors) on the other CPUs from then on. Notes each server's CPUs in ``env``."""
    if not args.pod:
        for target in targets:
            await target.start()
        return
    os.environ.update(POD_ENV)
    with pinned({POD_CPU}):
        for target in targets:
            await target.start()
    os.sched_setaffinity(0, os.sched_getaffinity(0) - {POD_CPU})
    env["pod"] = {"env": POD_ENV, "visitors_cpus": sorted(os.sched_getaffinity(0)),
                  "server_cpus": {t.label: [cpus_allowed(pid) for pid in t.pids()] for t in targets}}
    print(f"pod: servers on CPU {POD_CPU} ({env['pod']['server_cpus']}), visitors on {env['pod']['visitors_cpus']}, "
          + ", ".join(f"{k}={v}" for k, v in POD_ENV.items()), flush=True)


async def bench(args, targets: list[Target], env: dict) -> tuple[list[dict], list[dict]]:
    steps = plan(args)
    if args.wait_load:
        await wait_for_quiet_machine(args.wait_load, args.wait_most)
        env["load_average_start"] = [round(x, 2) for x in os.getloadavg()]
    await start(args, targets, env)
    for target in targets:
        await target.wait_quiet()
        if args.warmup:
            pages = list(dict.fromkeys(page for _, page in steps))
            edit = any(s in ("edit", "cost", "capacity") for s, _ in steps)
            tally = await warm_up(target, pages, edit=edit, timeout=args.timeout)
            if tally.errors or tally.exceptions:
                print(f"warm-up of {target.label}: errors {dict(tally.errors)}, exceptions {tally.exceptions}; "
                      + "; ".join(tally.samples), flush=True)
    print(HEADER, flush=True)
    rows, summaries = [], []
    floor = next((target for target in targets if isinstance(target, Floor)), None)
    for scenario, page in steps:
        if scenario == "capacity":
            for kind in ("open", "class") if args.class_seconds else ("open",):
                for app in (target for target in targets if target is not floor):
                    more, summary = await capacity(args, app, floor, page, kind)
                    rows += more
                    summaries.append(summary)
            continue
        for repeat in range(args.repeat):
            for target in targets if repeat % 2 == 0 else targets[::-1]:
                rows.append(await measure(target, scenario, page, args, repeat))
                print_row(rows[-1])
    if summaries:
        print_capacity(summaries)
    return rows, summaries


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="open",
                        help=f"'all' runs {', '.join(ALL)}")
    parser.add_argument("--page", nargs="+", choices=list(PAGES), default=["playground"],
                        help="pages opened by 'open', 'cost' and 'capacity' (each in turn); 'soak' opens the first")
    parser.add_argument("--visitors", type=int,
                        help=f"visitors per scenario (default: {', '.join(f'{k} {v}' for k, v in DEFAULT_VISITORS.items())}; "
                             "'capacity' climbs its own ladder)")
    parser.add_argument("--edits", type=int, default=5, help="edits per visitor in 'edit' and 'cost'")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a page run may take before it counts as an error")
    parser.add_argument("--repeat", type=int, default=1, help="measurements per scenario and target (order alternating)")
    parser.add_argument("--soak-seconds", type=float, default=600.0, help="the soak stops after this long")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="after the soak, wait this long, visit once more and read RSS again")
    parser.add_argument("--pod", action="store_true",
                        help=f"as a 1-CPU pod: the servers started on CPU {POD_CPU} only (as taskset -c {POD_CPU}) with "
                             "the pod's one compute thread, the visitors on the other CPUs ('capacity' implies it)")
    parser.add_argument("--max-visitors", type=int, default=LADDER[-1], help="'capacity': the top of the ladder")
    parser.add_argument("--bound", type=float, default=1.0,
                        help="'capacity': also the most visitors with p95 within this many seconds")
    parser.add_argument("--class-seconds", type=float, default=0.0,
                        help="'capacity': also a class that edits for this long after opening (0: not)")
    parser.add_argument("--every", type=float, default=3.0, help="'capacity' class: seconds between a visitor's edits")
    parser.add_argument("--wait-load", type=float,
                        help="before starting, wait while the 1-minute load average is above this (--wait-most)")
    parser.add_argument("--wait-most", type=float, default=600.0, help="the longest --wait-load waits, in seconds")
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT], help="checkouts to measure (default: this one)")
    parser.add_argument("--floor", action="store_true",
                        help="also measure Streamlit's own floor: a two-element app served the same way")
    parser.add_argument("--start", action="store_true",
                        help="start each checkout as one process (the default unless --serve-replicas or --url)")
    parser.add_argument("--serve-replicas", type=int, nargs="+", metavar="N",
                        help="also (or instead) measure deploy/serve.sh --replicas N of each checkout")
    parser.add_argument("--url", help="measure a server already running, e.g. http://127.0.0.1:8501")
    parser.add_argument("--pids", type=int, nargs="*", default=[], help="with --url: its app processes, for RSS")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false", help="skip the warm-up visits")
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    if args.url and (args.start or args.serve_replicas):
        parser.error("--url measures a running server: leave out --start and --serve-replicas")
    if urlsplit(args.url or "http://127.0.0.1").hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("--url must be a loopback address (127.0.0.1 or localhost)")
    for name in ("visitors", "edits", "repeat", "max_visitors"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.scenario == "capacity":
        args.pod = args.floor = True
    if args.pod and (args.url or args.serve_replicas):
        parser.error("--pod (and 'capacity') starts the servers itself: leave out --url and --serve-replicas")
    if args.pod and not os.sched_getaffinity(0) - {POD_CPU} or args.pod and POD_CPU not in os.sched_getaffinity(0):
        parser.error(f"--pod needs CPU {POD_CPU} for the servers and at least one other for the visitors")
    if args.bound <= 0 or args.every <= 0 or args.class_seconds < 0:
        parser.error("--bound and --every must be above 0, --class-seconds at least 0")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    env = environment()
    print(f"python {env['python']}, {env['machine']}, cores: {env['cores']}, streamlit {env['streamlit']}, "
          f"load average {env['load_average']}")
    print("seconds; open = GET of the page to its last run finished; edit = rerun request to its run finished; "
          "runs/s = runs served / wall time; RSS = sum over the app processes; CPU s = the server's; "
          "load = 1-minute load average at the start of the row")
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-load-") as work:
        targets = make_targets(args, Path(work))
        try:
            rows, summaries = asyncio.run(bench(args, targets, env))
        finally:
            for target in targets:
                target.stop()
    env["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        report = {"environment": env, "argv": sys.argv, "rows": rows, **({"capacity": summaries} if summaries else {})}
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
