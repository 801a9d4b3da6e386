"""The tiny poet's page (写诗 / A tiny poet): its settings table, its limits and what else it keeps.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``): the acrostic or the
first line, the sampling (temperature and top-p in hundredths), the seed, the step shown and the checkpoint. The
page refuses what is over :func:`limits` (smaller hosted) with a message, keeping the last good poem.
"""

from __future__ import annotations

import json

from selfattn.display.share import Bool, Choice, Field, Int, Text
from selfattn.poet.weights import RECORD_PATH

MODES = ("acrostic", "first")  # 藏头 (the first character of each line), or a first line to continue
MAX_SEED = 2**32 - 1
BIG = 10**6  # what a link's number may say; the page names what is over its limits
MAX_TEXT = 100  # characters a link may carry in a typed box (the poet reads at most this many)
TEMPERATURES = tuple(range(10, 301, 10))  # hundredths: 0.10 … 3.00
TOP_PS = tuple(range(5, 101, 5))  # hundredths: 100 is off
TOP_CANDIDATES = 12  # candidates in the bar chart


def _final_step() -> int:
    """The training step of the shipped model (the last checkpoint of "how it learned")."""
    try:
        return int(json.loads(RECORD_PATH.read_text(encoding="utf-8"))["steps"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


FINAL_STEP = _final_step()


def limits(hosted: bool) -> dict[str, int]:
    """The most the page samples a run (hosted: a shared demo's)."""
    return {"chars": 16 if hosted else 100,  # characters typed in a box
            "top_k": 200 if hosted else 100_000,  # top-k above the vocabulary is refused by the poet anyway
            "poems": 1}  # poems written a run (one, plus the checkpoint's)


FIELDS = (
    Field("po_mode", "mode", Choice(MODES), "acrostic"),
    Field("po_acrostic", "acrostic", Text(MAX_TEXT), "春夏秋冬"),
    Field("po_first", "first", Text(MAX_TEXT), "白日依山尽"),
    Field("po_temp", "temp", Int(TEMPERATURES[0], TEMPERATURES[-1]), 80),
    Field("po_top_k", "topk", Int(0, BIG), 40),  # 0: off
    Field("po_top_p", "topp", Int(TOP_PS[0], TOP_PS[-1]), 100),  # 100: off
    Field("po_greedy", "greedy", Bool(), False),
    Field("po_seed", "seed", Int(0, MAX_SEED), 0),
    Field("po_step", "step", Int(1, BIG, shift=1), 0),  # the character shown, counted from 1 in the link
    Field("po_ckpt", "ckpt", Int(0, BIG), FINAL_STEP),  # the training step of the checkpoint shown
)

KEPT = {
    "po_good": "last_good: the poem written with the settings (selfattn.poet.Poem)",
}
WIDGETS = {
    "po_next": "the step view's Next button",
    "po_back": "the step view's Back button",
    "po_csv_*": "the step view's CSV download buttons: the candidates, each layer's attention",
}
