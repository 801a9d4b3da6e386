"""A play button for a step control: the step moves on about once a second until the last, then it stops.

The part of the page that draws the steps runs as a fragment (:meth:`Player.run`) that Streamlit reruns every
:data:`PLAY_SECONDS` only while playing: an idle page makes no reruns. The browser starts and stops that timer only
with a whole-page run, so a fragment run that finds the play started or stopped since the timer was set asks for
one (``st.rerun(scope="app")``).

While it plays, the step box is drawn read-only and new at each step (:meth:`Player.step_box`). A rerun the timer
asks for carries the browser's widgets as they are at that moment; when it left just after a move and before the
browser had drawn it, it held the box at the step before, and Streamlit took that for the visitor picking it: the
play went back a step and spent its moves on the way, stopping short of the last (a whole-suite run, then 2 of 95
plays in Chromium on a loaded machine; tests/test_seq2seq_app.py sends the box as it was before the move). Pause,
and the box is the visitor's again.

Hosted-demo safe: what plays is kept in session state under the page's own key (declared in its ``KEPT``), written
only by the button's callback and by :meth:`Player.advance`, never by a widget, so a websocket client cannot set it.
A client may ask for reruns at will (each one a message, counted by ``ui/server_limits.py``), but a run moves the
step only when :data:`SOONEST_S` have passed since the last move, so nothing plays faster than about once a second;
and a play makes at most as many moves as there were steps to the last when it was pressed, so a step sent back to
the first (Next step past the last) cannot make it play forever.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import streamlit as st

from ui import state as settings
from ui.widgets import choice, tr

PLAY_SECONDS = 1.0  # between two moves while playing: the fragment's rerun interval
SOONEST_S = 0.75  # the least time between two moves (a rerun sooner than this, asked for or forged, moves nothing)
clock = time.monotonic  # the seconds a play is timed by (the tests move a clock of their own instead of waiting)


@dataclass(frozen=True)
class Player:
    """One step control's play button: ``slot`` is its state in session state ({"moves": moves left, "at": when the
    last move was, :data:`clock`}; absent or no moves left: paused), ``step`` the setting of the step shown (0
    to the last), ``button`` the Play/Pause button's key, ``page`` the page whose settings a fragment run checks."""

    slot: str
    step: str
    button: str
    page: str
    words: str = "s2s"  # the catalog's prefix of the button's words: <words>.play, <words>.pause, <words>.play_help

    def playing(self) -> bool:
        return st.session_state.get(self.slot, {}).get("moves", 0) > 0

    def stop(self) -> None:
        st.session_state.pop(self.slot, None)

    def toggle(self, last: int) -> None:
        """The button's callback: pause, or play from the step shown to ``last`` (from the first when it is shown at
        the last already)."""
        if self.playing():
            self.stop()
            return
        step = min(max(int(settings.value(self.step)), 0), last)
        if step >= last:
            step = 0
            settings.put(self.step, step)
        if last > step:
            st.session_state[self.slot] = {"moves": last - step, "at": clock()}

    def advance(self, last: int) -> None:
        """While playing, before the step control is drawn: one step on when :data:`SOONEST_S` have passed since
        the last move; the play stops at ``last`` or when its moves are spent."""
        if not self.playing():
            return
        play = st.session_state[self.slot]
        now = clock()
        if now - play["at"] < SOONEST_S:
            return
        step = min(int(settings.value(self.step)) + 1, last)
        settings.put(self.step, step)
        moves = 0 if step >= last else play["moves"] - 1
        st.session_state[self.slot] = {"moves": moves, "at": now}
        if not moves:
            self.stop()

    def step_box(self, label: str, options: range, names: dict) -> int:
        """The step control: the visitor's select box (``ui.widgets.choice``), or while playing the step shown in a
        read-only box of that step's own (no key: a box sent back as it was before a move names a box not drawn any
        more, which Streamlit drops). Returns the step."""
        if not self.playing():
            return choice(st.selectbox, label, options, self.step, names)
        step = min(max(int(settings.value(self.step)), options[0]), options[-1])  # as the choice box would keep it
        st.selectbox(label, options, index=step - options[0], format_func=names.__getitem__, disabled=True)
        return step

    def draw_button(self, last: int, where=st) -> None:
        """Play, or Pause while playing (nothing to play with one step)."""
        playing = self.playing()
        where.button(tr(f"{self.words}.pause" if playing else f"{self.words}.play"), key=self.button,
                     on_click=self.toggle, args=(last,), icon=":material/pause:" if playing else ":material/play_arrow:",
                     width="stretch", disabled=last < 1, help=tr(f"{self.words}.play_help"))

    def run(self, body: Callable[[], None], *, always: bool) -> None:
        """``body``, the part of the page that draws the steps: a fragment rerun every :data:`PLAY_SECONDS` while
        playing; else a fragment rerun by its own widgets only (``always``), or part of the page's run."""
        playing = self.playing()

        def steps() -> None:
            if self.playing() != playing or settings.refuse_unfit_settings(settings.fields(self.page)):
                st.rerun(scope="app")  # the timer starts or stops with a whole run; a refused setting is said there
            body()

        if playing or always:
            st.fragment(steps, run_every=PLAY_SECONDS if playing else None)()
        else:
            body()
