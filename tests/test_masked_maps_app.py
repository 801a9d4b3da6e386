"""Issue 50 (item 3): a weights map under a mask writes each masked cell's weight, 0, and draws it as masked.

The masked self-attention's map printed "−∞" in its masked cells under a 0–1 legend: −∞ is the score before
softmax, the weight there is 0. Every weights map under a mask (the Encoder–decoder's masked self-attention, the
Transformer block's heads with the causal mask, the Playground's weights with it) now carries its weights as the
cells' text and the mask apart (``mask``: the cells drawn grey and hatched), with a note under the map saying what
grey means, in both languages; a scores map keeps its −∞ (that is the score).
"""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.i18n import t_plain
from support.apptest import open_link, open_page, step_maps
from ui.components.heatmap import map_data

UPPER = [[int(j > i) for j in range(3)] for i in range(3)]  # a causal mask over three tokens: what it forbids


def assert_masked_weights(data: dict, lang: str = "en") -> None:
    """A weights map under a causal mask: no −∞, the masked cells' text 0, the mask the upper triangle."""
    n = len(data["cells"])
    assert not any("∞" in cell for row in data["cells"] for cell in row), data["cells"]
    assert data["mask"] == [[int(j > i) for j in range(n)] for i in range(n)], data.get("mask")
    assert all(data["cells"][i][j] == "0" for i in range(n) for j in range(i + 1, n)), data["cells"]
    assert data["mask_note"] == t_plain("common.map_masked", lang) and "−∞" in data["mask_note"]
    assert (data["lo"], data["hi"]) == (0.0, 1.0)  # the legend's 0..1 is what the cells hold


def test_map_data_writes_weights_and_carries_the_mask_apart():
    from selfattn.display.charts import masked_weights

    weights = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])
    data = map_data(masked_weights(weights, np.tril(np.ones((3, 3), dtype=bool))), "abc", "abc", name="w",
                    role="weights", domain=(0.0, 1.0))
    assert data["cells"] == [["1", "0", "0"], ["0.25", "0.75", "0"], ["0.2", "0.3", "0.5"]]
    assert data["mask"] == UPPER
    plain = map_data(weights, "abc", "abc", name="w")  # no mask given: none sent
    assert "mask" not in plain
    unmasked = map_data(masked_weights(weights, np.ones((3, 3), dtype=bool)), "abc", "abc", name="w")
    assert "mask" not in unmasked  # a mask that forbids nothing: nothing to say


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_encoder_decoder_s_masked_self_attention_writes_0_and_shows_the_mask(lang):
    at = open_page("seq2seq", lang)
    assert not at.exception
    maps = step_maps(at)
    for h in (1, 2):
        assert_masked_weights(maps[f"s2s_d1_self{h}"], lang)
        assert "mask" not in maps[f"s2s_d1_cross{h}"]  # cross-attention reads every source position


def test_the_block_s_causal_heads_and_the_playground_s_causal_weights_show_the_mask_the_same_way():
    block = open_link("block", {"causal": "1"})
    assert not block.exception
    heads = {k: v for k, v in step_maps(block).items() if "_att" in k}
    assert heads
    for data in heads.values():
        assert_masked_weights(data)
    assert all("mask" not in v for v in step_maps(open_link("block", {})).values())  # no mask, nothing masked

    at = open_page("playground")
    at.toggle(key="pg_causal").set_value(True).run()
    maps = step_maps(at)
    assert_masked_weights(maps["weights"])
    assert "mask" not in maps["scaled_scores"] and "−∞" in maps["scaled_scores"]["cells"][0][1]  # a score is −∞
