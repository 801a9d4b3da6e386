"""A seeded random walk over Sentence embeddings (issue 14): sentences, pairs, sources, model names, sliders.

Besides :func:`tests.fuzz.check_page` after every action: only the open part (ui/parts.py) runs, and the walk
switches parts by their tabs and the "next part" button; every sentence box keeps what was typed; each sentence
that once had vectors keeps showing them in part 1 (the last good ones, with a note, when the new text has none);
once a model's heads were shown they stay in part 2.
"""

from __future__ import annotations

import pytest

from selfattn.i18n import t
from selfattn.text.view import PARTS
from tests import fuzz

MODEL_NAMES = ("minilm", "sentence-transformers/all-MiniLM-L6-v2", "bert-base-chinese", "", "   ", "/etc/passwd",
               "~/.ssh", "../../etc/passwd", "/", "/tmp", "a/b/c", "x" * 301, "no-such-model", "minilm ", "MiniLM",
               "http://example.com/model", "C:\\models", "\x00")


class EmbeddingsWalk(fuzz.Walk):
    page = name = "embeddings"
    title_key = "emb.title"
    parts, part_key = PARTS, "emb_part"

    def moves(self):
        return [(2, self.toggle), (4, self.choose), (2, self.slide), (6, self.type_text), (2, self.model_name),
                (2, self.click), (1, self.switch_language), (0.5, self.rerun), (3, self.switch_part)]

    def model_name(self) -> str:
        """Type a model name (the box shows only when Hugging Face is the source)."""
        boxes = [w for w in self.widgets("text_input") if w.key == "emb_model"]
        if not boxes:
            return self.choose()
        name = self.rng.choice(MODEL_NAMES)
        self.type_into(boxes[0], name)
        return f"model {name[:60]!r}"

    def has_result(self, at) -> bool:
        """The open part's result: part 1's figures, the model's map, the word-order view (see :meth:`check`)."""
        part = at.session_state["emb_part"] if "emb_part" in at.session_state else PARTS[0]
        if part == "raw":
            return bool(at.metric)
        return bool(at.get("vega_lite_chart")) or bool(at.error)

    def forget(self) -> None:
        self.model_shown = False

    def remember(self) -> None:
        self.model_shown = self.model_shown or "emb_model_good" in self.at.session_state

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        state = at.session_state
        part = self.part()
        found = {str(w.key) for w in fuzz.everything(at) if getattr(w, "key", None)}
        ran = {"raw": any(m.label == t("emb.tokens", lang) for m in at.metric),
               "model": any(k.startswith("emb_view__") for k in found),
               "order": "emb_order_a" in found}
        assert not [p for p, yes in ran.items() if yes and p != part], ("only the open part runs", part, ran)
        if part == "raw":
            mode = state["emb_mode"]
            slots = [f"{mode}{i}" for i in range(2 if mode == "pair" else 1)]
            good = state["emb_good"] if "emb_good" in state else {}
            tokens = [m for m in at.metric if m.label == t("emb.tokens", lang)]
            assert len(tokens) == sum(slot in good for slot in slots), "a sentence's last good vectors are not shown"
        if self.model_shown and part == "model":
            assert "emb_model_good" in state
            head_maps = [b for b in at.get("download_button") if str(b.proto.id).endswith("-dl_head_map")]
            assert head_maps, "the model's heads are gone"  # the map of the view chosen (head, mean, max, rollout)
            if state["emb_view"] == "head":  # one head: checked against its recomputation, beside it
                assert any(m.label == t("emb.recomputed", lang) for m in at.metric), "the head's check is gone"


@pytest.mark.parametrize("seed", fuzz.seeds(1))
def test_random_visitor_actions_never_crash_the_embeddings_page(seed, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", fuzz.NO_HUB)  # a model not on the machine is looked up nowhere
    EmbeddingsWalk(seed).run()
