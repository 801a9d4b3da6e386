"""A tiny Chinese → English translator trained here, run on our numpy core (issue 40).

``corpus.py`` writes the sentences (``corpus.tsv``), ``train.py`` trains a torch encoder–decoder on them and writes
``model.npz``, ``model.json`` and ``record.json``, and :func:`translate` runs the trained weights through
:mod:`selfattn.core` in float64, one word at a time, keeping every step in a :class:`Translation`::

    from selfattn.translate import load, translate
    t = translate(load(), "早上好")
    t.output          # 'good morning'
    t.cross_weights   # (decoder layers, heads, words, source characters)

Only :func:`torch_check` (and training) needs torch.
"""

from selfattn.translate.infer import (MAX_CHARS, TorchCheck, Translation, Translator, as_json, check_text, full_pass,
                                      load, torch_check, translate)

__all__ = ["MAX_CHARS", "TorchCheck", "Translation", "Translator", "as_json", "check_text", "full_pass", "load",
           "torch_check", "translate"]
