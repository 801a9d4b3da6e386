"""The tiny poet's page (写诗 / A tiny poet): its settings table, its limits and what else it keeps.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``): the acrostic or the
first line, the sampling (temperature and top-p in hundredths), the seed, the step shown and the checkpoint. The
page refuses what is over :func:`limits` (smaller hosted) with a message, keeping the last good poem.
"""

from __future__ import annotations

import json

from selfattn.display.share import Bool, Choice, Field, Int, Text
from selfattn.i18n import t_plain
from selfattn.poet.weights import RECORD_PATH

MODES = ("acrostic", "first")  # 藏头 (the first character of each line), or a first line to continue
MAX_SEED = 2**32 - 1
BIG = 10**6  # what a link's number may say; the page names what is over its limits
MAX_TEXT = 100  # characters a link may carry in a typed box (the poet reads at most this many)
TEMPERATURES = tuple(range(10, 301, 10))  # hundredths: 0.10 … 3.00
TOP_PS = tuple(range(5, 101, 5))  # hundredths: 100 is off
TOP_CANDIDATES = 12  # candidates in the bar chart
PARTS = ("write", "step", "learned", "words")  # the page's parts (ui/parts.py), in a learner's order


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
    Field("po_part", "part", Choice(PARTS), PARTS[0]),  # the part open (ui/parts.py)
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
    "po_own": "the visitor's own run (selfattn.poet.train.LiveRun) the page writes with, while it does (local only)",
    "po_train_asked": "the run the Train button asked for, until the learned part draws its progress",
    "po_playing": "the poet's generation playing: {moves left, when the step last moved} (ui.play.Player), absent "
                  "when paused",
}
WIDGETS = {
    "po_next": "the step view's Next button",
    "po_back": "the step view's Back button",
    "po_play": "the step view's Play/Pause button (ui.play.Player)",
    "po_part_tabs": "the parts' tab bar (ui/parts.py)",
    "po_part_next": "the button to the next part (ui/parts.py)",
    "po_csv_*": "the CSV download buttons: the candidates, each layer's attention, K and V cache, the loss curve",
    "po_train_epochs": "the learned part's passes of a run of one's own (local only)",
    "po_train": "the learned part's Train button (local only)",
    "po_train_back": "the button back to the shipped model",
    "po_zip": "the ZIP of every table with settings.txt",
    "map_po_*": "the step's linked maps: each layer's attention, K and V cache (a click sends a trigger, not read)",
}


def settings_text(link: str, link_short: bool, poem, *, step: int, token: str, checkpoint: int, lang: str) -> str:
    """The poet's settings.txt: the view's link and what it shows, one line each (``poem``: a
    :class:`selfattn.poet.Poem`; ``step``: the character shown, from 0, and ``token`` that character)."""
    def line(name_key: str, value) -> str:
        return t_plain("common.settings_line", lang, name=t_plain(name_key, lang), value=value)

    s = poem.settings
    start = (t_plain("po.settings_acrostic", lang, chars=s.acrostic) if s.acrostic else
             t_plain("po.settings_first", lang, chars=s.first) if s.first else "—")
    knobs = t_plain("po.settings_greedy_on", lang) if s.greedy else t_plain(
        "po.settings_knobs", lang, temp=f"{s.temperature:.2f}", k=s.top_k if s.top_k is not None else "—",
        p=f"{s.top_p:.2f}" if s.top_p is not None else "—")
    lines = [t_plain("po.settings_title", lang), "", t_plain("common.settings_link", lang, link=link)]
    if link_short:
        lines.append(t_plain("common.settings_link_short", lang))
    lines += [line("po.settings_poem", poem.text), line("po.settings_start", start),
              line("po.settings_sampling", knobs), line("po.settings_seed", s.seed),
              line("po.settings_step", f"{step + 1}: {token}"), line("po.settings_ckpt", checkpoint)]
    return "\n".join(lines) + "\n"
