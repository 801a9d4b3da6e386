"""The Efficient attention page's numbers: each part's view, computed from its settings, checked against torch.

Each ``*_view`` function is pure (settings in, a frozen view out) and raises :class:`InputError` for sizes over the
page's limits (:func:`selfattn.efficient.view.limits`), so the page keeps the last good view. torch and transformers
are imported when a check first runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import attend, score_scale
from selfattn.core.compare import largest_difference
from selfattn.core.efficient import (GroupedTrace, Tile, TiledTrace, attention_traffic, grouped_query_attention,
                                     kv_head_of, pairing_permutation, paper_blocks, rotary, rotary_angles,
                                     tiled_attention, visible)
from selfattn.core.positions import positional_encoding
from selfattn.errors import InputError

FP16_BYTES = 2
CONFIG_SOURCE = "config.json"  # where each model's figures come from: the model's config.json on its model card


@dataclass(frozen=True)
class ModelConfig:
    """A real model's attention sizes, as its config.json on its model card gives them."""

    name: str
    repo: str  # the model card (huggingface.co/<repo>) whose config.json gives the figures
    layers: int  # num_hidden_layers
    heads: int  # num_attention_heads
    kv_heads: int  # num_key_value_heads
    head_dim: int  # hidden_size / num_attention_heads


CONFIGS = (ModelConfig("Llama-2-7B", "meta-llama/Llama-2-7b-hf", 32, 32, 32, 128),
           ModelConfig("Llama-2-70B", "meta-llama/Llama-2-70b-hf", 80, 64, 8, 128),
           ModelConfig("Mistral-7B", "mistralai/Mistral-7B-v0.1", 32, 32, 8, 128))


def too_big(name: str, value: int, most: int) -> None:
    """Raise ``ef_too_big`` naming the size when ``value`` is over ``most``."""
    if value > most:
        raise InputError("ef_too_big", f"{name} = {value} is over this page's limit of {most}.", name=name,
                         value=value, most=most)


def random_matrix(seed: int, shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    """Standard-normal numbers drawn with ``seed``, rounded to 2 decimals so that they can be read."""
    return np.round(np.random.default_rng([seed, salt]).normal(size=shape), 2)


def torch_sdpa(q, k, v, keep: np.ndarray | None = None, enable_gqa: bool = False) -> np.ndarray:
    """``torch.nn.functional.scaled_dot_product_attention`` in float64; ``keep`` (n_q, n_k) True where allowed."""
    import torch
    import torch.nn.functional as F

    t = [torch.tensor(np.asarray(a, dtype=float))[None] for a in (q, k, v)]  # a batch of one
    mask = None if keep is None else torch.tensor(keep)
    return F.scaled_dot_product_attention(*t, attn_mask=mask, enable_gqa=enable_gqa)[0].numpy()


# ── 1. Tiles, step by step ───────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class RowStep:
    """One row of the current tile, written out: the online softmax's update with its numbers."""

    row: int  # the query (0-based)
    scores: np.ndarray  # (b_k,) its scores in the tile, -inf where masked
    m_old: float
    m_new: float
    rescale: float  # exp(m_old − m_new)
    exps: np.ndarray  # (b_k,) exp(s − m_new)
    exp_sum: float  # Σ exps
    l_old: float
    l_new: float  # l_old · rescale + Σ exps
    acc_old: np.ndarray  # (d_v,)
    acc_new: np.ndarray  # (d_v,) acc_old · rescale + exps @ V_j


@dataclass(frozen=True)
class TilesView:
    """The tiled loop on seeded Q, K, V, and where the step slider stands."""

    q: np.ndarray  # (n, d)
    k: np.ndarray  # (n, d)
    v: np.ndarray  # (n, d)
    trace: TiledTrace
    scores: np.ndarray  # (n, n) q kᵀ / √d, -inf where masked: what standard attention stores
    keep: np.ndarray  # (n, n) bool
    torch_difference: float  # largest |ours − torch's scaled_dot_product_attention|
    attend_difference: float  # largest |ours − the Playground's attention (selfattn.attend)|
    causal: bool
    window: int | None

    @property
    def steps(self) -> int:
        return len(self.trace.tiles)


def tiles_view(seed: int, n: int, d: int, block_q: int, block_k: int, causal: bool, window: int | None,
               limits: dict) -> TilesView:
    """Seeded Q, K, V (n, d) through the tiled loop, checked against torch and the Playground's attention."""
    too_big("n", n, limits["n"])  # before the matrices are made; tiles_view_of checks the rest
    too_big("d", d, limits["d"])
    q, k, v = (random_matrix(seed, (n, d), salt) for salt in (1, 2, 3))
    return tiles_view_of(q, k, v, block_q, block_k, causal, window, limits)


def tiles_view_of(q: np.ndarray, k: np.ndarray, v: np.ndarray, block_q: int, block_k: int, causal: bool,
                  window: int | None, limits: dict) -> TilesView:
    """Given Q, K, V (n, d) through the tiled loop, checked against torch and the Playground's attention."""
    n, d = q.shape
    too_big("n", n, limits["n"])
    too_big("d", d, limits["d"])
    too_big("B_r", block_q, limits["block"])
    too_big("B_c", block_k, limits["block"])
    if window is not None:
        too_big("w", window, limits["n"])
    trace = tiled_attention(q, k, v, block_q, block_k, causal=causal, window=window)
    keep = visible(n, n, causal, window)
    plain = attend(q, k, v, scale=score_scale(d), mask=keep)
    return TilesView(q, k, v, trace, plain.scaled_scores, keep,
                     largest_difference(trace.outputs, torch_sdpa(q, k, v, keep)),
                     largest_difference(trace.outputs, plain.outputs), causal, window)


QKV_NAMES = ("Q", "K", "V")


def qkv_text(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> str:
    """Q, K, V as the text box holds them: each table after a line ``# Q`` (``# K``, ``# V``), a row a line, its
    numbers separated by commas."""
    return "\n\n".join(f"# {name}\n" + "\n".join(",".join(f"{x:g}" for x in row) for row in np.asarray(m).tolist())
                        for name, m in zip(QKV_NAMES, (q, k, v)))


def parse_qkv(text: str, limits: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V from pasted text (:func:`qkv_text`'s form; rows may also be separated by ``;``, numbers by tabs).

    Raises:
        InputError: ``ef_csv_tables`` (not three tables), ``ef_csv_number`` (a cell that is not a finite number),
            ``ef_csv_ragged`` (rows of different lengths), ``ef_csv_shapes`` (Q, K, V not all n × d), ``ef_too_big``.
    """
    tables: list[list[str]] = []
    current: list[str] | None = None
    for raw in str(text).replace(";", "\n").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            current = []
            tables.append(current)
        elif line:
            if current is None:
                current = []
                tables.append(current)
            current.append(line)
    tables = [t for t in tables if t]
    if len(tables) != 3:
        raise InputError("ef_csv_tables", f"Paste three tables, Q, K and V, each after a line # Q, # K, # V; found "
                         f"{len(tables)}.", found=len(tables))
    parsed = []
    for name, rows in zip(QKV_NAMES, tables):
        too_big(f"{name} rows", len(rows), limits["n"])
        matrix = []
        for r, line in enumerate(rows):
            cells = [c.strip() for c in line.replace("\t", ",").split(",")]
            too_big(f"{name} columns", len(cells), limits["d"])
            row = []
            for c, cell in enumerate(cells):
                try:
                    x = float(cell)
                except ValueError:
                    x = math.nan
                if not math.isfinite(x):
                    raise InputError("ef_csv_number", f"{name}, row {r + 1}, column {c + 1}: {cell!r} is not a "
                                     f"finite number.", name=name, row=r + 1, col=c + 1, value=cell[:20])
                row.append(x)
            if matrix and len(row) != len(matrix[0]):
                raise InputError("ef_csv_ragged", f"{name}, row {r + 1} has {len(row)} numbers; its first row has "
                                 f"{len(matrix[0])}.", name=name, row=r + 1, got=len(row), want=len(matrix[0]))
            matrix.append(row)
        parsed.append(np.array(matrix, dtype=float))
    q, k, v = parsed
    if not q.shape == k.shape == v.shape:
        shape = lambda m: f"{m.shape[0]} × {m.shape[1]}"  # noqa: E731
        raise InputError("ef_csv_shapes", f"Q, K and V must all be n × d: Q is {shape(q)}, K is {shape(k)}, V is "
                         f"{shape(v)}.", q=shape(q), k=shape(k), v=shape(v))
    return q, k, v


def typed_tiles_view(text: str, block_q: int, block_k: int, causal: bool, window: int | None,
                     limits: dict) -> TilesView:
    """:func:`tiles_view_of` on the pasted Q, K, V (:func:`parse_qkv`)."""
    return tiles_view_of(*parse_qkv(text, limits), block_q, block_k, causal, window, limits)


def _before(trace: TiledTrace, index: int) -> Tile | None:
    """The tile computed just before ``index`` for the same query block, or None (the block's first)."""
    if index > 0 and trace.tiles[index - 1].query_block == trace.tiles[index].query_block:
        return trace.tiles[index - 1]
    return None


def row_step(view: TilesView, index: int) -> RowStep:
    """The update of tile ``index`` written out for one of its rows: the row with the most keys visible in it."""
    tile = view.trace.tiles[index]
    finite = np.isfinite(tile.scores).sum(axis=1)  # (b_q,)
    i = int(np.argmax(finite))
    before = _before(view.trace, index)
    d_v = view.v.shape[1]
    l_old = 0.0 if before is None else float(before.row_sum[i])
    acc_old = np.zeros(d_v) if before is None else before.acc[i]
    m_new = float(tile.row_max[i])
    exps = np.exp(tile.scores[i] - (m_new if math.isfinite(m_new) else 0.0))
    return RowStep(tile.rows[0] + i, tile.scores[i], float(tile.row_max_before[i]), m_new, float(tile.rescale[i]),
                   exps, float(exps.sum()), l_old, float(tile.row_sum[i]), acc_old, tile.acc[i])


def outputs_so_far(view: TilesView, step: int) -> np.ndarray:
    """(n, d_v) each row's acc / ℓ after the first ``step`` tiles; NaN where its row has met no visible key yet."""
    out = np.full(view.trace.outputs.shape, np.nan)
    for tile in view.trace.tiles[:step]:
        r0, r1 = tile.rows
        seen = tile.row_sum > 0
        out[r0:r1][seen] = tile.acc[seen] / tile.row_sum[seen][:, None]
    return out


def done_cells(view: TilesView, step: int) -> np.ndarray:
    """(n, n) bool: the cells of the tiles computed in the first ``step`` steps."""
    done = np.zeros(view.keep.shape, dtype=bool)
    for tile in view.trace.tiles[:step]:
        done[tile.rows[0]:tile.rows[1], tile.cols[0]:tile.cols[1]] = True
    return done


def skipped_before(view: TilesView, step: int) -> list[tuple[int, int]]:
    """The tiles skipped (all masked) between the step before ``step`` and this one, in the loop's order; at the last
    step, also those after it."""
    tiles = view.trace.tiles
    low = (tiles[step - 2].query_block, tiles[step - 2].key_block) if step >= 2 else (-1, -1)
    high = (tiles[step - 1].query_block, tiles[step - 1].key_block) if step >= 1 else (-1, -1)
    if step == len(tiles):
        high = (math.inf, math.inf)
    return [s for s in view.trace.skipped if low < s < high]


def tile_grid(n_q: int, n_k: int, block_q: int, block_k: int) -> list[tuple[int, int, int, int, int, int]]:
    """Every tile of the score matrix as (query block, key block, row start, row stop, col start, col stop)."""
    return [(qb, kb, r0, min(r0 + block_q, n_q), c0, min(c0 + block_k, n_k))
            for qb, r0 in enumerate(range(0, n_q, block_q)) for kb, c0 in enumerate(range(0, n_k, block_k))]


# ── 2. Traffic ───────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class TrafficView:
    """Reads and writes of standard attention and of the tiled loop, for the sizes picked and smaller n."""

    n: int
    d: int
    block_q: int
    block_k: int
    causal: bool
    rows: tuple[dict, ...]  # one a sequence length: n, standard/tiled reads and writes, totals
    passes: int  # how many times the tiled loop reads K and V: once per query block
    kv_reads: int  # the numbers of K and V it reads at n


def traffic_lengths(n: int) -> list[int]:
    """The sequence lengths of the chart: powers of two from 64 below ``n``, and ``n``."""
    return sorted({*(2**p for p in range(6, 15) if 2**p < n), n})


def traffic_view(n: int, d: int, blocks: str, sram: int, block_q: int, block_k: int, causal: bool,
                 limits: dict) -> TrafficView:
    """Traffic counted by :func:`attention_traffic` at n and the smaller lengths of :func:`traffic_lengths`."""
    too_big("n", n, limits["traffic_n"])
    too_big("d", d, limits["traffic_d"])
    if blocks == "sram":
        block_q, block_k = paper_blocks(sram, d)
    lengths = traffic_lengths(n)
    tiles = sum(math.ceil(m / block_q) * math.ceil(m / block_k) for m in lengths)
    if tiles > limits["tiles"]:
        raise InputError("ef_too_many_tiles", f"These blocks make {tiles} tiles to count; the most is "
                         f"{limits['tiles']}: pick larger blocks or a smaller n.", tiles=tiles, most=limits["tiles"])
    rows = []
    for m in lengths:
        counted = attention_traffic(m, m, d, d, block_q, block_k, causal)
        std, tiled = counted["standard"], counted["tiled"]
        rows.append({"n": m, "standard_reads": std["reads"], "standard_writes": std["writes"],
                     "tiled_reads": tiled["reads"], "tiled_writes": tiled["writes"],
                     "standard": std["reads"] + std["writes"], "tiled": tiled["reads"] + tiled["writes"],
                     "row_stats": tiled["row_stats"]})
    passes = math.ceil(n / block_q)
    return TrafficView(n, d, block_q, block_k, causal, tuple(rows), passes, passes * n * 2 * d)


def ratio(a: float, b: float) -> float:
    """a / b, for a sentence that says how many times more (b is never 0 here)."""
    return a / b


# ── 3. Grouped-query heads ───────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class HeadsView:
    """h query heads over g key/value heads, the right way and (when asked) with ``tile``'s order."""

    h: int
    g: int
    right: GroupedTrace
    shown: GroupedTrace  # right, or the mistake's
    torch_outputs: np.ndarray  # (h, n, d) scaled_dot_product_attention(..., enable_gqa=True)
    difference: float  # largest |shown − torch|
    head_differences: tuple[float, ...]  # (h,) the same for each query head
    wrong_heads: tuple[int, ...]  # query heads that read another key/value head than torch's
    mistake: bool


def heads_view(seed: int, h: int, g: int, n: int, d: int, causal: bool, mistake: bool, limits: dict) -> HeadsView:
    """Seeded q (h, n, d), k and v (g, n, d), attended by :func:`grouped_query_attention` and by torch."""
    too_big("h", h, limits["heads"])
    too_big("g", g, limits["heads"])
    too_big("n", n, limits["n"])
    too_big("d", d, limits["d"])
    q, k, v = random_matrix(seed, (h, n, d), 4), random_matrix(seed, (g, n, d), 5), random_matrix(seed, (g, n, d), 6)
    right = grouped_query_attention(q, k, v, causal=causal)  # InputError gqa_groups when g does not divide h
    shown = grouped_query_attention(q, k, v, causal=causal, mistake="tile") if mistake else right
    torch_out = torch_sdpa(q, k, v, visible(n, n, causal), enable_gqa=True)
    per_head = tuple(largest_difference(shown.outputs[i], torch_out[i]) for i in range(h))
    wrong = tuple(i for i in range(h) if shown.kv_head[i] != right.kv_head[i])
    return HeadsView(h, g, right, shown, torch_out, max(per_head), per_head, wrong, mistake)


def divisors(h: int) -> list[int]:
    """The numbers of key/value heads that h query heads can share: the divisors of h."""
    return [g for g in range(1, h + 1) if h % g == 0]


def kv_cache_rows(g_choices: tuple[int, ...] = ()) -> list[dict]:
    """KV-cache bytes per token in float16 for :data:`CONFIGS`: 2 (K and V) · layers · g · d_head · 2 bytes; with
    every query head its own key/value head (g = h) for comparison."""
    rows = []
    for c in CONFIGS:
        per = 2 * c.layers * c.kv_heads * c.head_dim * FP16_BYTES
        full = 2 * c.layers * c.heads * c.head_dim * FP16_BYTES
        rows.append({"model": c.name, "repo": c.repo, "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads,
                     "head_dim": c.head_dim, "bytes": per, "bytes_mha": full, "saved": full / per})
    return rows


def kv_cache_curve() -> list[dict]:
    """Bytes per token of each config for every g dividing its head count (the chart against g)."""
    return [{"model": c.name, "g": g, "bytes": 2 * c.layers * g * c.head_dim * FP16_BYTES, "real": g == c.kv_heads}
            for c in CONFIGS for g in divisors(c.heads)]


# ── 4. Sliding window ────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class WindowView:
    """The causal sliding window on seeded q, k, v: its mask, the check against torch, how far the last token sees."""

    n: int
    w: int
    layers: int
    keep: np.ndarray  # (n, n) bool
    difference: float  # largest |ours − torch's SDPA with this mask|
    reach: np.ndarray  # (layers + 1, n) bool: which positions the last token's output depends on after l layers
    field: tuple[int, ...]  # (layers + 1,) how many positions that is
    formula: tuple[int, ...]  # (layers + 1,) min(n, 1 + l·(w − 1))


def window_view(seed: int, n: int, w: int, d: int, layers: int, limits: dict) -> WindowView:
    """The banded mask i − w < j ≤ i, attention under it against torch, and the receptive field layer by layer."""
    too_big("n", n, limits["n"])
    too_big("w", w, limits["n"])
    too_big("L", layers, limits["layers"])
    q, k, v = (random_matrix(seed, (n, d), salt) for salt in (7, 8, 9))
    keep = visible(n, n, window=w)
    ours = tiled_attention(q, k, v, block_q=n, block_k=n, window=w).outputs
    reach = [np.eye(n, dtype=bool)[n - 1]]
    for _ in range(layers):
        reach.append((reach[-1].astype(int) @ keep.astype(int)) > 0)  # one more layer: every key of a reached query
    reach = np.array(reach)
    return WindowView(n, w, layers, keep, largest_difference(ours, torch_sdpa(q, k, v, keep)), reach,
                      tuple(int(r.sum()) for r in reach), tuple(min(n, 1 + l * (w - 1)) for l in range(layers + 1)))


# ── 5. Rotary positions ──────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class RotaryView:
    """A query at position m and a key at position n_k, rotated; the pair picked; both pairings; the checks."""

    d: int
    m: int
    n_k: int
    pair: int
    q: np.ndarray  # (d,)
    k: np.ndarray  # (d,)
    theta: float  # θ_i = 10000^(−2i/d)
    angle: float  # m·θ_i
    half: np.ndarray  # (d,) q at m, half pairing
    interleaved: np.ndarray  # (d,) q at m, interleaved pairing
    permutation: np.ndarray  # (d,)
    permuted_difference: float  # largest |rotary(q[p], half) − rotary(q, interleaved)[p]|
    transformers_difference: float  # largest |ours (half) − transformers' Llama apply_rotary_pos_emb|
    gptj_difference: float  # largest |ours (interleaved) − transformers' GPT-J apply_rotary_pos_emb|
    shifts: tuple[dict, ...]  # s, the rotated score at (m + s, n_k + s), the score with added positions


SHIFTS = (0, 1, 2, 5, 10, 100)


def _score(q: np.ndarray, k: np.ndarray) -> float:
    return float(q @ k) / math.sqrt(len(q))


def rotary_view(seed: int, d: int, m: int, n_k: int, pair: int, limits: dict, base: float = 10000.0) -> RotaryView:
    """Rotate a seeded query at m and key at n_k; check both pairings against transformers; shift both positions."""
    too_big("d", d, limits["d"])
    too_big("m", m, limits["position"])
    too_big("n", n_k, limits["position"])
    if d % 2:
        rotary(np.zeros((1, d)))  # raises odd_width, in the core's words
    too_big("i", pair, d // 2 - 1)
    q, k = random_matrix(seed, (d,), 10), random_matrix(seed, (d,), 11)
    half = rotary(q[None], [m])[0]
    interleaved = rotary(q[None], [m], pairing="interleaved")[0]
    p = pairing_permutation(d)
    permuted = rotary(q[p][None], [m])[0]
    angle = float(rotary_angles([m], d, base)[0, pair])
    shifts = []
    for s in SHIFTS:
        rq, rk = rotary(q[None], [m + s])[0], rotary(k[None], [n_k + s])[0]
        pe = positional_encoding(max(m, n_k) + s + 1, d)
        shifts.append({"s": s, "m": m + s, "n": n_k + s, "rotary": _score(rq, rk),
                       "added": _score(q + pe[m + s], k + pe[n_k + s])})
    return RotaryView(d, m, n_k, pair, q, k, base ** (-2 * pair / d), angle, half, interleaved, p,
                      largest_difference(permuted, interleaved[p]), largest_difference(half, llama_rope(q, m, base)),
                      largest_difference(interleaved, gptj_rope(q, m, base)), tuple(shifts))


def _frequencies(d: int, m: int, base: float):
    import torch

    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # as LlamaRotaryEmbedding builds it
    return torch.tensor([float(m)], dtype=torch.float64)[:, None] * inv_freq[None, :]  # (1, d/2)


def llama_rope(x: np.ndarray, m: int, base: float) -> np.ndarray:
    """x (d,) at position m through transformers' Llama ``apply_rotary_pos_emb`` (half pairing)."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    freqs = _frequencies(len(x), m, base)
    emb = torch.cat([freqs, freqs], dim=-1)[None]  # (1, 1, d)
    t = torch.tensor(x, dtype=torch.float64)[None, None, None]  # (batch, heads, n, d)
    out, _ = apply_rotary_pos_emb(t, t, emb.cos(), emb.sin())
    return out[0, 0, 0].numpy()


def gptj_rope(x: np.ndarray, m: int, base: float) -> np.ndarray:
    """x (d,) at position m through transformers' GPT-J ``apply_rotary_pos_emb`` (interleaved pairing)."""
    import torch
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb

    freqs = _frequencies(len(x), m, base)
    t = torch.tensor(x, dtype=torch.float64)[None, None, None]  # GPT-J's (batch, n, heads, d)
    return apply_rotary_pos_emb(t, freqs.sin()[None], freqs.cos()[None])[0, 0, 0].numpy()


def rotated_pair(view: RotaryView) -> tuple[tuple[float, float], tuple[float, float]]:
    """The pair picked of q, (before, after) its rotation by m·θ_i, in the half pairing (dimensions i, i + d/2)."""
    i, j = view.pair, view.pair + view.d // 2
    return (float(view.q[i]), float(view.q[j])), (float(view.half[i]), float(view.half[j]))


def spread(values) -> float:
    """The largest minus the smallest of ``values``: 0 when a score does not change with the shift."""
    return float(max(values) - min(values))
