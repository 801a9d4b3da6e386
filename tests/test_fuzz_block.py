"""A seeded random walk over the Transformer block page (issue 32): every widget, cells of every editor shown,
sentences for the real model, presets, undo and language switches; the toy's parts, by their tabs or the "next
part" button (only the open part's maps and editors are drawn).

Besides :func:`tests.fuzz.check_page` after every action (no exception, no traceback, messages in the visitor's
language, the link reopens cleanly): the page always shows its check line ("checked against
torch.nn.TransformerEncoderLayer …" or "against the model's own hidden state …") or a message saying what is
wrong; while the input is bad, the check line of the last good result stays.
"""

from __future__ import annotations

import pytest

from selfattn.block.view import PAGE_PARTS
from support.apptest import editors, step_maps
from tests import fuzz
from tests.blockpage import check_line, label, send


class BlockWalk(fuzz.Walk):
    page, name = "block", "block"
    title_key = "tb.title"
    restart_every = 60
    parts, part_key = PAGE_PARTS, "tb_part"
    focus_of = {"tb_": "tb_focus"}

    def moves(self):
        return [(3, self.toggle), (4, self.number), (4, self.choose), (1, self.click), (2, self.type_text),
                (8, self.edit_cell), (1.5, self.sentence), (1, self.switch_language), (0.5, self.rerun),
                (3, self.switch_toy_part), (2, lambda: self.open_or_close("tb_weights")), (2, self.click_map)]

    def toy(self) -> bool:
        return self.at.session_state["tb_source"] == "toy" if "tb_source" in self.at.session_state else True

    def switch_toy_part(self) -> str:
        """Another part of the toy (the real model's layer is one section: a choice there instead)."""
        return self.switch_part() if self.toy() else self.choose()

    def has_result(self, at) -> bool:
        return check_line(at) is not None

    def forget(self) -> None:
        self.good = False

    def remember(self) -> None:
        self.good = self.good or check_line(self.at) is not None

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        kept = [text for _, text in fuzz.alerts(at.main) if fuzz.kept_note(lang) in text]
        if kept:  # a bad input with a last good result: that result is still checked on screen
            assert check_line(at) is not None, ("the last good result went away", kept)
        if self.toy():  # only the open part is drawn: its maps, and X and the weights' editors in the first alone
            part, drawn = self.part(), set(step_maps(at))
            shown = {"layer": any(k.startswith("tb_layer") for k in drawn) or bool(editors(at)),
                     "stack": any(k.startswith(("tb_stack", "tb_final")) for k in drawn),
                     "batch": any(k.startswith("tb_batch") for k in drawn)}
            assert [p for p, yes in shown.items() if yes] in ([part], []), ("only the open part is drawn", part, shown)

    def extra_options(self):
        return ["toy", "real", "post", "pre"]

    def edit_cell(self) -> str:
        return self.edit_table_cell(label, self.tables(), send)

    def tables(self) -> list[str]:
        from selfattn.block.view import ALL_TABLES

        return list(ALL_TABLES)

    def sentence(self) -> str:
        """Type a sentence for the real model (its box shows in the real source)."""
        boxes = [w for w in self.at.main.text_area if w.key == "tb_text"]
        if not boxes:
            return self.choose()
        text = fuzz.hostile_text(self.rng)
        self.type_into(boxes[0], text)
        return f"sentence = {text[:60]!r} ({len(text)} chars)"


@pytest.mark.parametrize("seed", fuzz.seeds(5))
def test_the_block_page_never_crashes_and_always_shows_a_check_or_a_message(seed, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", fuzz.NO_HUB)
    BlockWalk(seed).run()
