"""Server-side time of a page rerun after one edit, measured through AppTest.

Usage: python benchmarks/bench_pages.py [--edits 25]

Playground: the page is opened once, then one cell of X is edited and the page rerun,
``--edits`` times. Sentence embeddings: the sentence is changed to a new one (never seen
before, so nothing is cached) and the page rerun. The script prints median and spread.
"""

from __future__ import annotations

import argparse
import logging
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from support import apptest  # noqa: E402


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    from ui import warmup

    warmup.wait()  # the app loads the English model in the background at start; let it finish
    at.switch_page(f"pages/{page}.py")
    at.run()
    return at


def open_playground() -> AppTest:
    return open_page("playground")


WORDS = ("the cat sat on the mat while a dog ran past the old red house near the river and "
         "birds sang in tall green trees under a bright morning sky").split()
HANZI = "早上好今天天气很好我爱自然语言处理猫狗鸟鱼山水花草红绿蓝白大小多少上下左右"


def time_sentences(at: AppTest, edits: int, tokens: int, chinese: bool) -> list[float]:
    times = []
    for k in range(edits):
        if chinese:
            text = "".join(HANZI[(k * 7 + i * 3) % len(HANZI)] for i in range(tokens))
        else:
            text = " ".join(WORDS[(k * 5 + i) % len(WORDS)] for i in range(tokens - 1)) + f" {k}"
        at.text_input(key="emb_text").set_value(text)
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
        assert not at.exception and not at.error, "the rerun failed"
    return times


def time_edits(at: AppTest, edits: int) -> list[float]:
    times = []
    for k in range(edits):
        rows = len(apptest.playground_tables(at)["x"])
        apptest.send_cell(at, "x", k % rows, "x1", str(k % 7))  # the matrix editor's full table, as typed
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
        assert not at.exception and not at.error, "the rerun failed"
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=25, help="edits timed per configuration (>= 2)")
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)

    print(f"python {platform.python_version()}, {platform.machine()}, cores: {len(__import__('os').sched_getaffinity(0))}")
    print(f"{'configuration':<38}{'median ms':>10}{'p25':>8}{'p75':>8}{'min':>8}{'max':>8}")
    at = open_playground()
    rows = [("tutorial preset (3 tokens, d=4)", time_edits(at, args.edits))]

    at = open_playground()
    for field, value in (("pg_n", 32), ("pg_d_in", 16), ("pg_d_k", 16), ("pg_d_v", 16)):
        at.number_input(key=field).set_value(value).run()
    preset = [box for box in at.selectbox if str(box.key).startswith("pg_preset__")]  # see ui.widgets.choice
    preset[0].set_value("random").run()
    at.button[0].click().run()
    assert apptest.map_frame(at, "outputs").shape == (32, 16)
    rows.append(("random, n=32, d_in=d_k=d_v=16", time_edits(at, args.edits)))

    at = open_page("embeddings")
    rows.append(("embeddings, English, 8 tokens", time_sentences(at, args.edits, 8, False)))
    rows.append(("embeddings, English, 32 tokens", time_sentences(at, args.edits, 32, False)))
    rows.append(("embeddings, Chinese, 32 characters", time_sentences(at, args.edits, 32, True)))
    rows.append(("embeddings, Chinese, 64 characters", time_sentences(at, args.edits, 64, True)))

    for name, times in rows:
        # inclusive: the quartiles lie between the fastest and the slowest run (the default, exclusive, extrapolates
        # past them with few runs: two runs far apart gave a negative p25)
        q = statistics.quantiles(times, n=4, method="inclusive")
        print(f"{name:<38}{statistics.median(times):>10.1f}{q[0]:>8.1f}{q[2]:>8.1f}{min(times):>8.1f}{max(times):>8.1f}")


if __name__ == "__main__":
    main()
