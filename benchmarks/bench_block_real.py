"""Server CPU of the Transformer block page's real layer view (issue 32: "a real layer view ≤ 1 s of server CPU").

Usage:
    python benchmarks/bench_block_real.py [--repeats 8] [--app-dir DIR [DIR ...]] [--blas-one] [--json out.json]

Each checkout is started as the hosted demo (``SELFATTN_HOSTED=1 streamlit run app.py``, its own
``.streamlit/config.toml``), left to go quiet (the app loads MiniLM in the background at start),
and visited once at /block?source=real (untimed: the first view after start also loads what the
page imports). Then, per repeat, with the server otherwise idle, one visitor
(``support.visitor.Visitor``: Streamlit's websocket protocol, no browser):

* ``open``: opens ``/block?source=real&text=<a sentence never sent before>`` (the model runs on
  the new sentence: nothing cached);
* ``open_default``: opens ``/block?source=real`` (the default sentence, cached after its first view);
* ``sentence``: in that open tab, types another new sentence into the text box (its widget
  state, sent as the browser sends it);
* ``layer``: picks another layer (1-6) in the same tab (the sentence's model run is cached; the
  layer is recomputed from its weights).

What is measured: the server process's CPU seconds (user + system, ``/proc/<pid>/stat``) from
just before the request to 0.3 s after its run finished (so the sending of its messages is in),
and the wall time to the run's ``script_finished``. Every view must finish without an exception
and show the check against the model's own hidden state. Several ``--app-dir`` are measured in
turn, their order alternating with each repeat. ``--blas-one`` also starts the last checkout a second
time with ``OPENBLAS_NUM_THREADS=1`` (numpy's BLAS on one thread, as torch is when hosted), measured
in the same rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from support.server import LocalServer  # noqa: E402
from support.visitor import Tally, Visitor, rerun_request  # noqa: E402

KINDS = ("open", "open_default", "sentence", "layer")
WORDS = ("the cat sat on the mat while a dog ran past the old red house near the river and birds sang in tall "
         "green trees under a bright morning sky").split()
TAIL_S = 0.3  # after script_finished: the server may still be sending the run's messages


class EnvServer(LocalServer):
    """A LocalServer started with extra environment variables."""

    def __init__(self, app_dir: Path, label: str, work: Path, extra: dict[str, str]):
        super().__init__(app_dir, label, work)
        self.extra = extra

    async def start(self) -> None:
        saved = {key: os.environ.get(key) for key in self.extra}
        os.environ.update(self.extra)  # read by LocalServer.start's Popen (servers start one at a time)
        try:
            await super().start()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def sentence(k: int, salt: int) -> str:
    """A sentence of about 12-20 tokens that no earlier call (with this salt) returned."""
    words = [WORDS[(k * 7 + i * 3 + salt) % len(WORDS)] for i in range(10 + k % 6)]
    return " ".join(words).capitalize() + f" {salt % 1000}-{k}."


def widget_id(visitor: Visitor, kind: str, key: str) -> str:
    for element in visitor.elements.values():
        if element.WhichOneof("type") == kind and getattr(element, kind).id.endswith(f"-{key}"):
            return getattr(element, kind).id
    raise RuntimeError(f"no {kind} with key {key} on the page")


def check(visitor: Visitor, tally: Tally, what: str) -> None:
    if tally.exceptions or tally.errors:
        raise RuntimeError(f"{what}: errors {dict(tally.errors)}, exceptions {tally.exceptions}: {tally.samples}")
    if not any("hidden state" in text for text in visitor.texts()):
        raise RuntimeError(f"{what}: the page does not show the check against the model's hidden state")


async def timed(server: LocalServer, action) -> tuple[float, float]:
    """(server CPU seconds, wall seconds) of one awaited page run."""
    pid = server.pids()[0]
    cpu0, start = server.cpu()[pid], time.perf_counter()
    await action
    wall = time.perf_counter() - start
    await asyncio.sleep(TAIL_S)
    return server.cpu()[pid] - cpu0, wall


async def change(visitor: Visitor, kind: str, key: str, state: WidgetState) -> None:
    """Send the rerun request of one widget changed (``state``), all others as the browser holds them."""
    visitor.widgets[state.id] = state
    await visitor.ws.send(rerun_request(url=visitor.url, page_hash=visitor.page_hash, query_string=visitor.query_string,
                                        widgets=visitor.widgets.values(), cached_hashes=visitor.cache,
                                        fragment_id=visitor.fragments.get(state.id, "")))
    await visitor.finish_run()


async def one_repeat(server: LocalServer, k: int, salt: int, timeout: float) -> dict:
    out = {}
    tally = Tally()
    await server.wait_quiet(20)
    fresh = Visitor(server.url, tally, timeout)
    try:
        query = urlencode({"source": "real", "text": sentence(2 * k, salt)})
        out["open"] = await timed(server, fresh.open("block", query))
        check(fresh, tally, "open")
    finally:
        await fresh.close()
    await server.wait_quiet(20)
    tab = Visitor(server.url, tally, timeout)
    try:
        out["open_default"] = await timed(server, tab.open("block", "source=real"))
        check(tab, tally, "open_default")
        await server.wait_quiet(20)
        text_id = widget_id(tab, "text_area", "tb_text")
        state = WidgetState(id=text_id, string_value=sentence(2 * k + 1, salt))
        out["sentence"] = await timed(server, change(tab, "text_area", "tb_text", state))
        check(tab, tally, "sentence")
        await server.wait_quiet(20)
        layer_id = widget_id(tab, "selectbox", "tb_rlayer")
        state = WidgetState(id=layer_id, string_value=str(2 + k % 5))  # layers 2..6, shown 1-based
        out["layer"] = await timed(server, change(tab, "selectbox", "tb_rlayer", state))
        check(tab, tally, "layer")
    finally:
        await tab.close()
    return out


def summarize(values: list[float]) -> dict:
    values = sorted(values)
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    return {"median": round(statistics.median(values), 3), "p90": round(p90, 3), "min": round(values[0], 3),
            "max": round(values[-1], 3), "n": len(values)}


async def bench(args, servers: list[LocalServer]) -> list[dict]:
    for server in servers:
        await server.start()
    salt = int(time.time()) % 100000
    for server in servers:
        await server.wait_quiet()
        tally = Tally()
        first = Visitor(server.url, tally, args.timeout)
        try:
            cpu, wall = await timed(server, first.open("block", "source=real"))
            check(first, tally, "warm-up")
        finally:
            await first.close()
        print(f"{server.label}: first real view after start (untimed warm-up): {cpu:.2f} CPU s, {wall:.2f} s", flush=True)
    results = {server.label: {kind: [] for kind in KINDS} for server in servers}
    for k in range(args.repeats):
        for server in servers if k % 2 == 0 else servers[::-1]:
            for kind, value in (await one_repeat(server, k, salt, args.timeout)).items():
                results[server.label][kind].append(value)
    rows = []
    print(f"{'app':<28}{'view':<14}{'CPU s median':>13}{'p90':>7}{'max':>7}{'wall s median':>15}{'p90':>7}")
    for label, kinds in results.items():
        for kind, values in kinds.items():
            row = {"app": label, "view": kind, "cpu_s": summarize([c for c, _ in values]),
                   "wall_s": summarize([w for _, w in values]), "runs": values}
            rows.append(row)
            print(f"{label[-27:]:<28}{kind:<14}{row['cpu_s']['median']:>13.3f}{row['cpu_s']['p90']:>7.3f}"
                  f"{row['cpu_s']['max']:>7.3f}{row['wall_s']['median']:>15.3f}{row['wall_s']['p90']:>7.3f}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--blas-one", action="store_true",
                        help="also measure the last checkout started with OPENBLAS_NUM_THREADS=1")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    env = {"date": date.today().isoformat(), "python": platform.python_version(),
           "cores": len(os.sched_getaffinity(0)), "load_average": [round(x, 2) for x in os.getloadavg()]}
    print(f"python {env['python']}, cores: {env['cores']}, load average {env['load_average']}")
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-block-real-") as work:
        servers = [LocalServer(d.resolve(), str(d), Path(work)) for d in args.app_dir]
        if args.blas_one:
            last = args.app_dir[-1]
            servers.append(EnvServer(last.resolve(), f"{last} BLAS 1", Path(work), {"OPENBLAS_NUM_THREADS": "1"}))
        try:
            rows = asyncio.run(bench(args, servers))
        finally:
            for server in servers:
                server.stop()
    env["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "rows": rows}, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")


if __name__ == "__main__":
    main()
