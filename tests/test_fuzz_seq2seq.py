"""A seeded random walk over the Encoder–decoder page (issue 39): every widget, cells of every editor shown (the
source, the target, the weights of whichever layer is chosen), presets, undo, generation steps and language
switches; Play, whose generation then moves its step on between actions; its parts, by their tabs or the "next part"
button (only the open part's maps are drawn).

Besides :func:`tests.fuzz.check_page` after every action (no exception, no traceback, messages in the visitor's
language, the link reopens cleanly): the page always shows its two check lines (against ``torch.nn.Transformer``,
and the cached steps against the full pass) or a message saying what is wrong; while the input is bad, the check
lines of the last good result stay.
"""

from __future__ import annotations

import pytest

from selfattn.seq2seq.view import ALL_TABLES, MAX_TOKENS, MAX_TRANSLATED_WORDS, SOURCE_PARTS
from support.apptest import step_maps
from tests import fuzz
from tests.seq2seqpage import checked, label, send


class Seq2seqWalk(fuzz.Walk):
    page, name = "seq2seq", "seq2seq"
    title_key = "s2s.title"
    restart_every = 60
    part_key = "s2s_part"
    focus_of = {"s2s_": "s2s_focus"}  # the translator's maps (s2t_) pick its step, which moves while it plays

    @property
    def parts(self) -> tuple[str, ...]:
        """The open source's parts (the toy has no "how it learned")."""
        at = self.at
        return SOURCE_PARTS[at.session_state["s2s_source"] if "s2s_source" in at.session_state else "toy"]

    def moves(self):
        return [(4, self.number), (4, self.choose), (1.5, self.press), (8, self.edit_cell), (1, self.type_text),
                (1, self.switch_language), (0.5, self.rerun), (3, self.switch_part),
                (2, lambda: self.open_or_close("s2s_weights")), (2, self.click_map)]

    def press(self) -> str:
        """A button, but not the translator's Train (a run of its own is tests/test_translator_train.py's)."""
        return self.click(skip=("s2s_train_go",))

    def has_result(self, at) -> bool:  # the translator's own walk is tests/test_translator_app.py's
        return checked(at) or at.session_state["s2s_source"] == "translator"

    def check(self) -> None:
        at, lang = self.at, fuzz.lang_of(self.at)
        kept = [text for _, text in fuzz.alerts(at.main) if fuzz.kept_note(lang) in text]
        if kept and at.session_state["s2s_source"] == "toy":  # a bad input with a last good result: still checked
            assert checked(at), ("the last good result went away", kept)
        part, drawn = self.part(), set(step_maps(at))
        prefix = "s2s_" if at.session_state["s2s_source"] == "toy" else "s2t_"
        shown = {"pass": f"{prefix}memory" in drawn,
                 "generation": any(key.startswith((f"{prefix}cache_", f"{prefix}step_")) for key in drawn),
                 "learned": any(key.startswith(f"{prefix}ckpt_") for key in drawn)}
        if drawn:  # none while a bad first input stops the page
            assert [p for p, yes in shown.items() if yes] == [part], ("only the open part is drawn", part, shown)
        for slot, most in (("s2s_playing", MAX_TOKENS - 1), ("s2s_tplaying", MAX_TRANSLATED_WORDS)):
            if slot in at.session_state:  # a play has moves left, no more than a generation has steps
                assert 0 < at.session_state[slot]["moves"] <= most, (slot, at.session_state[slot])

    def moving(self) -> tuple[str, ...]:
        """While generation plays (Play is pressed like any button), its step moves on about once a second."""
        return tuple(param for param, playing in (("step", "s2s_playing"), ("tstep", "s2s_tplaying"))
                     if playing in self.at.session_state)

    def extra_options(self):
        return ["post", "pre", "e2", "d3", "toy", *range(257, 301)]  # the translator's temperatures reach 300

    def edit_cell(self) -> str:
        return self.edit_table_cell(label, ALL_TABLES, send)


@pytest.mark.parametrize("seed", fuzz.seeds(3))
def test_the_encoder_decoder_page_never_crashes_and_always_shows_its_checks_or_a_message(seed):
    Seq2seqWalk(seed).run()
