"""The Sentence embeddings page's declaration: its settings table and what else it keeps in session state.

:func:`settings` is the page's settings table (session-state key, link parameter, codec, default; read by
``ui/state.py`` through ``ui/navigation.py``); hosted, the model is one of the allow-list (a link may name one by its old
id). :data:`KEPT` and :data:`WIDGETS` name the page's other session keys (tests/test_session_keys.py holds the page
to them).
"""

from __future__ import annotations

from selfattn.display.share import Bool, Choice, Field, Int, Text
from selfattn.text import models
from selfattn.text.embedding_text import MAX_CHARS
from selfattn.text.embeddings import KINDS, SOURCES

# The page's parts (ui/parts.py), in a learner's order, the first what a newcomer sees first: the sentence as vectors
# and attention, a real model's heads, the same words in another order.
PARTS = ("raw", "model", "order")


def settings(hosted: bool) -> tuple[Field, ...]:
    """The page's settings; ``hosted`` offers only the allow-listed models."""
    if hosted:
        allowed = tuple(sorted(models.HOSTED_ALLOWLIST))
        old_ids = tuple(sorted(old for old, new in models.LEGACY_IDS.items() if new in models.HOSTED_ALLOWLIST))
        model = Field("emb_model", "model", Choice(allowed + old_ids), allowed[0])
    else:
        model = Field("emb_model", "model", Text(300), "bert-base-chinese")
    return (Field("emb_part", "part", Choice(PARTS), PARTS[0]),
            Field("emb_mode", "mode", Choice(("single", "pair")), "single"),
            Field("emb_text", "text", Text(MAX_CHARS), "早上好"),
            Field("emb_text_b", "text2", Text(MAX_CHARS), "Good morning"),
            Field("emb_source", "source", Choice(SOURCES), "auto"),
            model,
            Field("emb_kind", "kind", Choice(KINDS), "static"),
            Field("emb_dims", "dims", Int(4, 64), 16),
            Field("emb_scale", "scale", Bool(), False),  # with unit-length vectors ÷√d would flatten every row
            Field("emb_unit", "unit", Bool(), True),  # the character vectors are ~20 long: raw, the softmax is one-hot
            Field("emb_layer", "layer", Int(1, 64), 1),
            Field("emb_head", "head", Int(1, 64), 1),
            Field("emb_units", "units", Choice(("tokens", "words")), "tokens"),
            Field("emb_view", "map", Choice(("head", "mean", "max", "rollout")), "head"),
            Field("emb_pick", "pick", Int(0, 600), 0),  # head view: 0 all tokens, i the i-th
            Field("emb_order_a", "oa", Text(MAX_CHARS), "狗咬人"),  # issue 24: same words, another order
            Field("emb_order_b", "ob", Text(MAX_CHARS), "人咬狗"))


KEPT = {
    "emb_good": "last_good: each sentence slot's embeddings ({mode}{index} -> TokenEmbeddings)",
    "emb_model_good": "last_good: (spec, bundle, run) of the model's heads last shown",
    "emb_download": "the model whose download button was clicked, until the download runs",
    "emb_order_good": "last_good: {kind: ui.embeddings.order.Compared} of the same words in another order (ui/embeddings/order.py)",
    "emb_patterns": "the pattern grid's selection (a click picks a layer and head)",
}
WIDGETS = {
    "preset_*": "the example sentences, one button each",
    "use_chinese_model": "the switch to the real Chinese model",
    "order_pair_*": "the word-order section's example pairs, one button each",
    "order_use_chinese_model": "the word-order section's switch to the real Chinese model",
    "emb_part_tabs": "the parts' tab bar (its label; the part is emb_part)",
    "emb_part_next": "the button to the next part",
}
