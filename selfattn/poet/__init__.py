"""A tiny Chinese poet trained here: a decoder-only Transformer that writes 五言 poems, on our numpy core (issue 54).

``corpus.py`` made ``poems.txt.xz`` (regulated five-character poems of the 全唐诗, simplified) from the npm package
chinese-poetry; ``train.py`` trains a torch twin on it and writes ``model.npz``, ``model.json``,
``checkpoints.npz`` and ``record.json``; :func:`generate` writes a poem one character at a time through
:mod:`selfattn.core` in float64, keeping every step::

    from selfattn.poet import generate, load_poet
    poet = load_poet()
    poem = generate(poet, acrostic="春夏秋冬", temperature=0.8, top_k=40, seed=1)
    poem.text                        # 4 lines, "，" and "。" placed by the decoding
    poem.steps[3].sampling.final     # (V,) what the 4th character was drawn from
    poem.steps[3].attention[0]       # (heads, 4) layer 1's attention of the token before, over the poem so far
    poem.steps[3].read.cache.keys[0] # (heads, 4, head_dim) layer 1's key cache at that step

Only :func:`torch_check` (and training) needs torch.
"""

from __future__ import annotations

import json
from pathlib import Path

from selfattn.errors import InputError
from selfattn.poet.generate import (MAX_INPUT, MAX_SAMPLES, Poem, Settings, Step, as_json, cache_check, check_samples,
                                    check_settings, generate, step_cache_difference, torch_check)
from selfattn.poet.model import Poet, forward
from selfattn.poet.weights import (CHECKPOINTS_PATH, MODEL_JSON, RECORD_PATH, WEIGHTS_PATH, Weights, load_checkpoints,
                                   load_weights)

__all__ = ["MAX_INPUT", "MAX_SAMPLES", "Poem", "Poet", "Settings", "Step", "as_json", "cache_check", "check_samples",
           "check_settings", "checkpoint_poets", "forward", "generate", "load_poet", "step_cache_difference",
           "torch_check"]


def load_poet(npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON, record_path: Path = RECORD_PATH) -> Poet:
    """The committed (or the given) trained model with its record, ready for :func:`generate`.

    Raises:
        InputError: ``poet_no_model`` when a file is missing (train first: ``python -m selfattn.poet.train``).
    """
    from selfattn.i18n import t_plain

    missing = [p.name for p in (Path(npz_path), Path(json_path)) if not p.exists()]
    if missing:
        params = {"files": ", ".join(missing)}
        raise InputError("poet_no_model", t_plain("err.poet_no_model", "en", **params), **params)
    record = json.loads(Path(record_path).read_text(encoding="utf-8")) if Path(record_path).exists() else None
    return Poet.from_weights(load_weights(npz_path, json_path), record)


def checkpoint_poets(poet: Poet, path: Path = CHECKPOINTS_PATH) -> dict[int, Poet]:
    """step → the model as it was then (the int8 checkpoints of "how it learned"), the final model last."""
    found = {step: Poet.from_weights(Weights(poet.config, poet.vocab, arrays), poet.record)
             for step, arrays in load_checkpoints(path).items()}
    record = poet.record or {}
    return {**found, int(record.get("steps", max(found, default=0) + 1)): poet}
