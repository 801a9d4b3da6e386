"""A seeded random walk over Efficient attention (issue 53): every widget of every part, sizes over the limits,
pasted Q, K, V (good tables, bad cells, hostile text), Play, the timing button with tiny sizes, and language
switches.

Besides :func:`tests.fuzz.check_page` after every action (no exception, no traceback, messages in the visitor's
language, the link reopens cleanly): the open part always shows its result or a message; while the input is bad,
the last good result is still drawn (its charts).
"""

from __future__ import annotations

import pytest

from selfattn.efficient import timing
from selfattn.efficient.view import PARTS
from tests import fuzz

GOOD_TABLES = ("# Q\n1,0\n0,1\n# K\n1,0\n0,1\n# V\n1,2\n3,4", "# Q\n0.5;-1\n# K\n2;1\n# V\n3;4")


class EfficientWalk(fuzz.Walk):
    page = name = "efficient"
    title_key = "ef.title"
    restart_every = 60

    def moves(self):
        return [(3, self.toggle), (5, self.number), (2, self.choose), (2, self.click), (2, self.slide),
                (2, self.tables), (1, self.switch_language), (0.5, self.rerun), (3, self.to_part)]

    def moving(self) -> tuple[str, ...]:
        return ("step",)  # the tiles' Play moves the step with the clock

    def part_now(self) -> str:
        at = self.at
        return at.session_state["ef_part"] if "ef_part" in at.session_state else PARTS[0]

    def has_result(self, at) -> bool:
        return bool(at.get("vega_lite_chart")) or bool(at.dataframe)

    def forget(self) -> None:
        self.charted = None

    def remember(self) -> None:
        self.charted = (self.part_now(), len(self.at.get("vega_lite_chart")))

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        kept = [text for _, text in fuzz.alerts(at.main) if fuzz.kept_note(lang) in text]
        if kept:  # a bad input with a last good result: that result is still drawn
            assert at.get("vega_lite_chart") or at.dataframe, ("the last good result went away", kept)

    def to_part(self) -> str:
        part = self.rng.choice(PARTS)
        self.at.session_state["ef_part"] = part
        self.at.session_state["_keep_ef_part"] = part
        self.at.run()
        return f"part -> {part}"

    def tables(self) -> str:
        """Type into the pasted Q, K, V (the box shows while "Type Q, K, V" is on): good tables, or hostile text."""
        boxes = [w for w in self.at.main.text_area if w.key == "ef_qkv"]
        if not boxes:
            return self.toggle()
        r = self.rng.random()
        text = self.rng.choice(GOOD_TABLES) if r < 0.4 else (
            boxes[0].value.replace("1", self.rng.choice(fuzz.BAD_CELLS) or "", 1) if r < 0.7 else fuzz.hostile_text(self.rng))
        self.type_into(boxes[0], text)
        return f"tables = {text[:60]!r} ({len(text)} chars)"

    def click(self, skip: tuple[str, ...] = ()) -> str:
        return super().click(skip=("ef_play",)) if self.rng.random() < 0.8 else super().click()


@pytest.mark.parametrize("seed", fuzz.seeds(5))
def test_the_efficient_page_never_crashes_and_always_shows_a_result_or_a_message(seed, monkeypatch):
    monkeypatch.setitem(timing.PAGE_SIZES, "local", (32, 64))  # the timing button, in a few milliseconds
    EfficientWalk(seed).run()
