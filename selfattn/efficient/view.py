"""The Efficient attention page's declaration: its settings table, its limits and what else it keeps.

:func:`settings` is the page's settings table (read by ``ui/state.py`` through ``ui/pages.py``). The codecs take
any size a link may carry; the page refuses what is over :func:`limits` (smaller hosted) with a message, keeping the
last good result. :data:`KEPT` and :data:`WIDGETS` name the page's other session keys.
"""

from __future__ import annotations

from selfattn.display.share import Bool, Choice, Field, Int

MAX_SEED = 2**31 - 1
BIG = 10**6  # what a link's size may say; the page names sizes over its limits
PARTS = ("tiles", "traffic", "heads", "window", "rotary")
TRAFFIC_BLOCKS = ("sram", "blocks")  # the paper's choice from a fast-memory size, or block sizes typed


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

KEPT = {
    "ef_tiles_good": "last_good: the tiles' view (selfattn.efficient.compute.TilesView)",
    "ef_traffic_good": "last_good: the traffic table's view (TrafficView)",
    "ef_heads_good": "last_good: the grouped heads' view (HeadsView)",
    "ef_window_good": "last_good: the sliding window's view (WindowView)",
    "ef_rotary_good": "last_good: the rotary positions' view (RotaryView)",
}
WIDGETS = {
    "ef_next": "the tiles' Next button",
    "ef_back": "the tiles' Back button",
    "ef_first": "the tiles' first-step button",
    "ef_last": "the tiles' last-step button",
}
