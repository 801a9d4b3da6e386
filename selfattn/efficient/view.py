"""The Efficient attention page's declaration: its settings table, its limits and what else it keeps.

:func:`settings` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``). The codecs take
any size a link may carry; the page refuses what is over :func:`limits` (smaller hosted) with a message, keeping the
last good result. :data:`KEPT` and :data:`WIDGETS` name the page's other session keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfattn.display.share import BadValue, Bool, Choice, Field, Int

MAX_SEED = 2**31 - 1
BIG = 10**6  # what a link's size may say; the page names sizes over its limits
PARTS = ("tiles", "traffic", "heads", "window", "rotary")
TRAFFIC_BLOCKS = ("sram", "blocks")  # the paper's choice from a fast-memory size, or block sizes typed
MAX_QKV_CHARS = 12_000  # the pasted Q, K, V: 3 tables of at most 24 × 16 numbers of a few characters each
ESC = "~"  # in the link, the pasted tables' line break is ~n, a tab ~t, a ~ itself ~~ (a link refuses control characters)
_ESCAPES = {"n": "\n", "t": "\t", ESC: ESC}


@dataclass(frozen=True)
class TablesText:
    """The pasted Q, K, V: text of at most ``max_chars`` characters; in the link, line breaks and tabs escaped."""

    max_chars: int

    def encode(self, value: str) -> str:
        return str(value).replace("\r", "").replace(ESC, ESC + ESC).replace("\n", ESC + "n").replace("\t", ESC + "t")

    def decode(self, text: str) -> str:
        if len(text) > self.max_chars:
            raise BadValue("too_long", n=self.max_chars)
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
            raise BadValue("control_chars")
        out, i = [], 0
        while i < len(text):
            if text[i] == ESC and i + 1 < len(text) and text[i + 1] in _ESCAPES:
                out.append(_ESCAPES[text[i + 1]])
                i += 2
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    def fits(self, value) -> bool:
        return isinstance(value, str) and len(value) <= self.max_chars


def limits(hosted: bool) -> dict[str, int]:
    """The largest sizes the page computes (hosted: a shared demo's)."""
    return {"n": 12 if hosted else 24,  # queries (= keys) of the tiles, the window and the heads
            "d": 8 if hosted else 16,  # a head's width
            "block": 24,
            "traffic_n": 16_384, "traffic_d": 256,
            "tiles": 100_000 if hosted else 400_000,  # tiles counted by the traffic table (all its sizes together)
            "heads": 16 if hosted else 32,
            "layers": 32,
            "position": 4096}


FIELDS = (
    Field("ef_part", "part", Choice(PARTS), "tiles"),
    Field("ef_seed", "seed", Int(0, MAX_SEED), 0),
    # 1. tiles, step by step
    Field("ef_n", "n", Int(1, BIG), 6),
    Field("ef_d", "d", Int(1, BIG), 4),
    Field("ef_bq", "bq", Int(1, BIG), 2),
    Field("ef_bk", "bk", Int(1, BIG), 3),
    Field("ef_causal", "causal", Bool(), False),
    Field("ef_windowed", "windowed", Bool(), False),
    Field("ef_window", "w", Int(1, BIG), 3),
    Field("ef_step", "step", Int(0, BIG), 0),
    Field("ef_typed", "typed", Bool(), False),  # Q, K, V pasted as CSV instead of seeded
    Field("ef_qkv", "qkv", TablesText(MAX_QKV_CHARS), ""),
    # 2. traffic
    Field("ef_tn", "tn", Int(1, BIG), 4096),
    Field("ef_td", "td", Int(1, BIG), 64),
    Field("ef_tblocks", "tb", Choice(TRAFFIC_BLOCKS), "sram"),
    Field("ef_sram", "sram", Int(1, BIG), 49_152),
    Field("ef_tbq", "tbq", Int(1, BIG), 64),
    Field("ef_tbk", "tbk", Int(1, BIG), 64),
    Field("ef_tcausal", "tcausal", Bool(), False),
    # 3. grouped-query heads
    Field("ef_h", "h", Int(1, BIG), 8),
    Field("ef_g", "g", Int(1, BIG), 2),
    Field("ef_hn", "hn", Int(1, BIG), 4),
    Field("ef_tile_mistake", "mistake", Bool(), False),
    # 4. sliding window
    Field("ef_wn", "wn", Int(1, BIG), 10),
    Field("ef_ww", "ww", Int(1, BIG), 3),
    Field("ef_layers", "layers", Int(1, BIG), 3),
    # 5. rotary positions
    Field("ef_rd", "rd", Int(1, BIG), 8),
    Field("ef_m", "m", Int(0, BIG), 3),
    Field("ef_kn", "kn", Int(0, BIG), 1),
    Field("ef_pair", "pair", Int(0, BIG), 0),
)

_SHARED = {"ef_part", "ef_seed", "ef_d", "ef_causal"}
PART_KEYS = {  # the settings whose widgets each part draws (the page puts the others back from their shadows)
    "tiles": _SHARED | {"ef_n", "ef_bq", "ef_bk", "ef_windowed", "ef_window", "ef_step", "ef_typed", "ef_qkv"},
    "traffic": {"ef_part", "ef_tn", "ef_td", "ef_tblocks", "ef_sram", "ef_tbq", "ef_tbk", "ef_tcausal"},
    "heads": _SHARED | {"ef_h", "ef_g", "ef_hn", "ef_tile_mistake"},
    "window": {"ef_part", "ef_seed", "ef_d", "ef_wn", "ef_ww", "ef_layers"},
    "rotary": {"ef_part", "ef_seed", "ef_rd", "ef_m", "ef_kn", "ef_pair"},
}

KEPT = {
    "ef_tiles_good": "last_good: the tiles' view (selfattn.efficient.compute.TilesView)",
    "ef_traffic_good": "last_good: the traffic table's view (TrafficView)",
    "ef_heads_good": "last_good: the grouped heads' view (HeadsView)",
    "ef_window_good": "last_good: the sliding window's view (WindowView)",
    "ef_rotary_good": "last_good: the rotary positions' view (RotaryView)",
    "ef_drawn": "the settings whose widgets the last run drew (the others are put back from their shadows)",
    "ef_playing": "the tiles' play (ui/play.py): moves left and when the last was; written by its button and advance",
    "ef_time_requested": "set by the timing button's callback, popped by the run that times",
    "ef_sdpa_run": "the figures of this server's last timing of SDPA against the materialised softmax",
}
WIDGETS = {
    "ef_part_tabs": "the parts' tab bar (its label; the part is ef_part)",
    "ef_part_next": "the button to the next part (ui/parts.py)",
    "ef_next": "the tiles' Next button",
    "ef_back": "the tiles' Back button",
    "ef_first": "the tiles' first-step button",
    "ef_last": "the tiles' last-step button",
    "ef_play": "the tiles' Play/Pause button",
    "ef_qkv_panel": "the tiles' expander of Q, K and V with their CSVs (made only while it is open)",
    "ef_time": "the traffic part's button that times SDPA against the materialised softmax on this server",
}
