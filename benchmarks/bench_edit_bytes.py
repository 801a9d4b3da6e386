"""Bytes the server sends for one edit of the Playground, by kind of message, old code against new.

A visitor (``benchmarks/bench_load.py``'s, which keeps the browser's message cache and sends its
hashes back) opens the Playground at a link, then types into the first cell of X (every step
changes) and of W_v (Q, K, the scores and weights stay the same). For each it counts the bytes of
the charts' messages, of everything else, and the charts Streamlit sent as a reference to one the
browser already holds (``ref_hash``: an unchanged chart of 10 kB or more costs about 60 bytes).

    python benchmarks/bench_edit_bytes.py                      # this checkout
    python benchmarks/bench_edit_bytes.py --before f700ad0     # and a commit, extracted with git archive
    python benchmarks/bench_edit_bytes.py --before f700ad0 --after 6818ba4   # two commits
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support import server as servers, visitor as wire  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

LINKS = {"tutorial (3 tokens, d=3)": "", "n=32, d=16": "size=32.16.16.16"}
EDITS = {"X[0, x1]": r"-pged_x_\d+$", "W_v[0, 0]": r"-pged_w_v_\d+$"}


def is_chart(element) -> bool:
    """A Vega-Lite chart, or step maps (a component keyed ``map_*``, issue 22, or a row of them keyed ``maps_*``)."""
    kind = element.WhichOneof("type")
    return kind == "vega_lite_chart" or (kind == "bidi_component" and ("-map_" in element.bidi_component.id
                                                                      or "-maps_" in element.bidi_component.id))


class Counting(wire.Visitor):
    """A visitor that sorts the bytes it receives: charts, references to cached messages, the rest."""

    def reset(self) -> None:
        self.tally_bytes = {"charts": 0, "other": 0}
        self.charts = self.refs = 0

    def handle(self, msg: ForwardMsg):
        size = msg.ByteSize()
        if msg.WhichOneof("type") == "ref_hash":
            self.refs += 1
            self.tally_bytes["other"] += size
        elif msg.WhichOneof("type") == "delta" and is_chart(msg.delta.new_element):
            self.charts += 1
            self.tally_bytes["charts"] += size
        else:
            self.tally_bytes["other"] += size
        return super().handle(msg)

    async def type_into(self, pattern: str, value: str) -> None:
        """Type ``value`` into the first cell of the matrix editor whose widget id matches ``pattern``."""
        import re

        editor = next(wid for wid in self.drawn if re.search(pattern, wid))
        element = next(e for e in self.elements.values()
                       if e.WhichOneof("type") == "bidi_component" and e.bidi_component.id == editor)
        cells = self.typed_table(editor, element)
        cells[0][1] = value  # the first number (a token's label comes first in X; W's row label likewise)
        self.revs[editor] = self.revs.get(editor, 0) + 1
        self.widgets[editor] = wire.WidgetState(id=editor, json_value=wire.editor_state(
            cells, self.revs[editor]))
        await self.ws.send(wire.rerun_request(url=self.url, page_hash=self.page_hash,
                                                    query_string=self.query_string,
                                                    widgets=self.widgets.values(), cached_hashes=self.cache,
                                                    fragment_id=self.fragments.get(editor, "")))
        await self.finish_run()


async def measure(url: str) -> dict:
    out = {}
    for name, query in LINKS.items():
        v = Counting(url, wire.Tally(), 120)
        try:
            v.reset()
            if not query:
                await v.open("playground")
            else:
                v.url = f"{url}/{wire.PAGES['playground']}?{query}"
                v.query_string = query
                v.cookies = await wire.http_get(v.url, v.timeout)
                host = url.split("//", 1)[1]
                v.ws = await wire.connect(f"ws://{host}/_stcore/stream",
                                                subprotocols=[wire.Subprotocol("streamlit")],
                                                origin=wire.Origin(f"http://{host}"), proxy=None,
                                                max_size=None, open_timeout=v.timeout)
                await v.ws.send(wire.rerun_request(url=v.url, page_name=wire.PAGES["playground"],
                                                         query_string=query))
                await v.finish_run()
            out[(name, "open")] = (dict(v.tally_bytes), v.charts, v.refs)
            for k, (edit, pattern) in enumerate(EDITS.items()):
                v.reset()
                await v.type_into(pattern, str(7 + k))
                out[(name, edit)] = (dict(v.tally_bytes), v.charts, v.refs)
        finally:
            await v.close()
    return out


def run(app_dir: Path, label: str, work: Path) -> dict:
    server = servers.LocalServer(app_dir, label, work)

    async def go():
        await server.start()
        try:
            await measure(server.url)  # warm: imports, caches
            return await measure(server.url)
        finally:
            server.stop()
    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="a commit to compare with (extracted with git archive)")
    parser.add_argument("--after", help="a commit to measure instead of this checkout's working tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)

        def extract(rev: str) -> Path:
            folder = work / rev
            folder.mkdir()
            archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
            return folder

        checkouts = {args.after: extract(args.after)} if args.after else {"this checkout": ROOT}
        if args.before:
            checkouts = {args.before: extract(args.before), **checkouts}
        results = {label: run(path, label, work) for label, path in checkouts.items()}
    print("| checkout | link | action | chart bytes | other bytes | charts sent | sent as a reference |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for label, rows in results.items():
        for (link, action), (sizes, charts, refs) in rows.items():
            print(f"| {label} | {link} | {action} | {sizes['charts']:,} | {sizes['other']:,} | {charts} | {refs} |")


if __name__ == "__main__":
    main()
