"""The Heads & devices page's declaration: its settings table and what else it keeps in session state.

:func:`settings` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``); hosted, the benchmark
offers the smaller sizes of :func:`selfattn.bench.limits_for`. :data:`KEPT` and :data:`WIDGETS` name the page's
other session keys (tests/test_session_keys.py holds the page to them).
"""

from __future__ import annotations

from selfattn.bench import choices as hd
from selfattn.bench.limits import DTYPES, limits_for
from selfattn.core.heads import MISTAKES
from selfattn.display.share import Bool, Choice, Choices, Field, Int, Text

MAX_SEED = 2**31 - 1
PARTS = ("compare", "check", "bench")  # the page's parts (ui/parts.py), in a learner's order: the first opens first


def settings(hosted: bool) -> tuple[Field, ...]:
    """The page's settings; ``hosted`` offers the hosted benchmark's sizes."""
    offer = hd.bench_choices(limits_for(hosted))
    devices = tuple(hd.devices())
    return (Field("hd_part", "part", Choice(PARTS), PARTS[0]),
            Field("hd_input", "input", Choice(("random", "sentence")), "random"),
            Field("hd_seed", "seed", Int(0, MAX_SEED), 0),
            Field("hd_n", "n", Int(1, hd.MAX_N), 6),
            Field("hd_d", "d", Choice(hd.D_CHOICES), 16),
            Field("hd_text", "text", Text(200), "早上好，今天天气很好"),
            Field("hd_causal", "causal", Bool(), False),
            Field("hd_heads", "heads", Int(1, hd.MAX_HEADS), 4),
            Field("hd_open", "open", Choices(tuple(MISTAKES)), [MISTAKES[0]]),
            Field("hd_device", "device", Choice(devices), devices[0]),
            Field("hd_dtype", "dtype", Choice(tuple(DTYPES)), "float32"),
            Field("hd_batch", "batch", Int(1, offer["batch"]), 1),
            Field("hd_bench_d", "bd", Choice(tuple(offer["d_model"])), 512),
            Field("hd_bench_heads", "bh", Choices(tuple(offer["heads"])), [1, 8]),
            Field("hd_bench_lens", "bn", Choices(tuple(offer["seq_len"])), [128, 256, 512]),
            Field("hd_bench_impls", "bi", Choices(tuple(offer["impls"])), list(offer["impls"])),
            Field("hd_bundled", "results", Choices(tuple(hd.bundled_results())), list(hd.bundled_results())))


KEPT = {
    "hd_good": "last_good: (x, tokens, weights, single, multi) of the head comparison",
    "hd_bench": "last_good: the records of this session's benchmark run",
    "hd_uploaded": "last_good: (file name, records) of the uploaded results",
    "hd_run_requested": "set by the Run button, until the benchmark runs",
    "hd_open_*": "each mistake panel's expander",
}
WIDGETS = {
    "hd_run": "the Run button",
    "hd_upload": "the results uploader",
    "hd_upload_panel": "the expander of the results' upload (its chooser and uploader are made only while it is open)",
    "hd_part_tabs": "the parts' tab bar (its label; the part is hd_part)",
    "hd_part_next": "the button to the next part",
}
