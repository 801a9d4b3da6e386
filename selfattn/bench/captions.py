"""The Heads & devices page's words that describe a state, computed from that state (no Streamlit).

Each function takes the state it describes (a sweep's config and limits, records, a setup, a progress
call) and the language, so a caption never says what a sentence written for the default would.
"""

from __future__ import annotations

import math

from selfattn.bench import summary
from selfattn.bench.choices import bench_choices
from selfattn.bench.limits import BenchConfig
from selfattn.bench.machine import device_name
from selfattn.bench.cost import ROUNDS
from selfattn.bench.results import DEVICES
from selfattn.bench.sweep import sweep_threads
from selfattn.bench.tables import impl_name, values_text
from selfattn.i18n import Markdown, t, t_plain

BACKENDS = ("flash", "cudnn", "efficient")  # the SDPA backends the page names


def mask_tex(causal: bool, lang: str) -> Markdown:
    """The mask term + M of the attention formula, only while the causal mask is on."""
    return t("hd.tex_mask", lang) if causal else Markdown("")


def attention_tex(d_k: int, causal: bool, lang: str) -> Markdown:
    """softmax(QKᵀ/√d_k [+ M]) in KaTeX, with this d_k and the mask term only while the causal mask is on."""
    return t("hd.tex_attention", lang, dk=int(d_k), mask=mask_tex(causal, lang))


def scale_after_softmax_text(head_dim: int, causal: bool, lang: str) -> Markdown:
    """Mistake 2's explanation: the right and the wrong formula for this head width and mask."""
    return t("hd.mistake_scale_after_softmax_explain", lang, hd=head_dim, root=f"{math.sqrt(head_dim):.4g}",
             right=attention_tex(head_dim, causal, lang),
             wrong=t("hd.tex_wrong", lang, dk=head_dim, mask=mask_tex(causal, lang)))


def part_note(rows: int, cols: int, shape: tuple[int, int], lang: str) -> str:
    """The words under a map drawn in part: what is shown, and that the CSV has everything ("" if whole)."""
    if (rows, cols) == tuple(shape):
        return ""
    return t("hd.shown_block", lang, r=rows, rows=shape[0], c=cols, cols=shape[1])


def device_label(device: str, lang: str) -> str:
    """The device box's short name (CPU, GPU), which fits the box; the caption under it names the machine."""
    return t_plain(f"hd.device_{device}", lang) if device in DEVICES else str(device)


def device_caption(config: BenchConfig, limits: dict, lang: str) -> Markdown:
    """What the runs will run on, from the chosen device and precision: the machine's name and its threads."""
    return t("hd.device_caption", lang, name=device_name(config.device), threads=sweep_threads(config, limits),
             dtype=config.dtype)


def method_caption(config: BenchConfig, limits: dict, lang: str) -> Markdown:
    """How the visitor's runs are timed, from the sweep's own settings."""
    return t("hd.bench_method", lang, warmup=config.warmup, rounds=ROUNDS, ms=round(config.min_run_time * 1000),
             threads=sweep_threads(config, limits))


def limits_caption(limits: dict, lang: str) -> str:
    """The limits the choosers really offer, in words (not the core's looser sanity bounds)."""
    offer = bench_choices(limits)
    every = len(offer["heads"]) * len(offer["seq_len"]) * len(offer["impls"])  # runs when everything is chosen
    return t("hd.bench_limits", lang, n=max(offer["seq_len"]), d=max(offer["d_model"]), heads=max(offer["heads"]),
             batch=offer["batch"], runs=min(int(limits["max_runs"]), every))


def progress_text(done: int, total: int, label: str, lang: str) -> str:
    """The progress bar's words for ``run_benchmark``'s callback: the run starting now, counted from 1."""
    if done >= total:
        return t("hd.bench_finished", lang, total=total)
    impl, _, sizes = label.partition(" ")  # "naive h=1 n=256": the implementation named in the page's language
    return t("hd.bench_progress", lang, run=done + 1, total=total, label=f"{impl_name(impl, lang)} {sizes}".strip())


def bundled_label(name: str, records: list[dict] | None, lang: str) -> str:
    """A bundled file's name on the page, from its records: the machine and precision it was measured with."""
    first = (records or [{}])[0]
    return t_plain("hd.bundled_name", lang, device=first.get("device_name", name), dtype=first.get("dtype", ""))


def bundled_caption(name: str, records: list[dict], about: dict[str, str], lang: str) -> Markdown:
    """What a bundled file holds, from its records and its ``about``: machine, date and the sweep's settings."""
    return t("hd.bundled_about", lang, name=bundled_label(name, records, lang), date=about.get("measured", "?")[:10],
             machine=about.get("machine", values_text(records, "device_name")), dtype=values_text(records, "dtype"),
             batch=values_text(records, "batch"), d_model=values_text(records, "d_model"),
             heads=values_text(records, "heads"), lens=values_text(records, "seq_len"),
             torch=values_text(records, "torch_version"), threads=values_text(records, "num_threads"))


def backend_name(backend: str, lang: str) -> str:
    """An SDPA backend's name (flash, cudnn, efficient) as the page writes it."""
    return t_plain(f"hd.backend_{backend}", lang) if backend in BACKENDS else str(backend)


def sentence_text(sentence: summary.Sentence, lang: str) -> Markdown:
    """A summary sentence in ``lang``: implementations and backends named in it."""
    params = dict(sentence.params)
    if "backend" in params:
        params["backend"] = backend_name(params["backend"], lang)
    if "refused" in params:
        params["refused"] = (", ".join(backend_name(b, lang) for b in params["refused"])
                             or t_plain("hd.backend_none", lang))
    return t(sentence.key, lang, **params)


def setup_title(setup: summary.Setup, lang: str, heads: tuple[int, ...] | None = None) -> Markdown:
    """A chart's heading: the results, the machine and the sizes it was timed at (and its heads, when split)."""
    if setup.device_name in setup.source:  # a bundled file's name says its machine and precision already
        title = t("hd.setup_sizes", lang, source=setup.source, batch=setup.batch, d_model=setup.d_model)
    else:
        title = t("hd.setup_source", lang, source=setup.source, title=t(
            "hd.setup_title", lang, device=setup.device_name, dtype=setup.dtype, batch=setup.batch,
            d_model=setup.d_model))
    return t("hd.setup_heads", lang, title=title, heads=", ".join(map(str, heads))) if heads else title
